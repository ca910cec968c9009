"""``python -m levata.bots``: run a bot process (see :mod:`levata.bots.runner`)."""

import sys

from levata.bots.runner import main

sys.exit(main())
