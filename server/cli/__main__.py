"""``python -m levata.server.cli``: the ``levata`` command."""

from levata.server.cli import main

main()
