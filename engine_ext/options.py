"""Rule options as the command line spells them: ``-o deal_size=3 -o zero_wins=off``.

Shared by a single match (:mod:`levata.server.cli`), a tournament's spec
(:mod:`levata.server.tournament.spec`) and the bots' tools (:mod:`levata.bots.regret`), so
it lives in the engine, below all of them.

>>> parse_options(["deal_size=3", "zero_wins = off"])
{'deal_size': '3', 'zero_wins': 'off'}
"""

from __future__ import annotations

from levata.engine import BadConfig

__all__ = ["parse_options"]


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``["deal_size=3", "zero_wins=off"]`` -> a dict; a pair without ``=`` is an error."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise BadConfig(f"option {pair!r} is not NAME=VALUE")
        options[name.strip()] = value.strip()
    return options
