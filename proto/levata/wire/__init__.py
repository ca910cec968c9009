"""levata.wire: the protocol's codec, what the referee and the bots both need to speak it.

* :mod:`levata.wire.codec`: engine values (views, events, actions, results) to the
  ``levata.v1`` messages and back;
* :mod:`levata.wire.encode`: the hottest of them (a seat's view, an event) straight to the
  wire format, in Cython;
* :mod:`levata.wire.credentials`: where a bot's token is kept (the environment or an
  owner-only file, never argv).

It imports the engine and the generated messages, never the server or the bots (an
import-linter contract in pyproject.toml), so the referee depends on it, not on the bots.
"""
