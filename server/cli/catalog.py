"""``levata games`` and ``levata bots``: what this installation can play, and with whom.

Both read the game registry and each game's traits, so a new game shows up by registering.
"""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from levata.bots import bot_names
from levata.bots.base import bot_path
from levata.engine import all_games
from levata.server.cli.common import (
    out,
)


def list_games() -> None:
    """List every game with its player counts and options (default in brackets)."""
    table = Table(title="levata games", show_lines=True)
    table.add_column("game")
    table.add_column("players")
    table.add_column("options")
    for spec in all_games():
        opts = "\n".join(
            f"{o.name} [{o.default}]"
            + (f" {'|'.join(str(c) for c in o.choices)}" if o.choices else "")
            + f": {o.help}"
            for o in spec.options
        )
        counts = f"{spec.players[0]}-{spec.players[-1]}"
        table.add_row(f"{spec.name}\n{spec.title}", counts, escape(opts) or "-")
    out.print(table)


def list_bots() -> None:
    """List the reference bots of every game (``--bots`` kinds) and where each one lives."""
    table = Table(title="levata bots", show_lines=True)
    table.add_column("game")
    table.add_column("bots")
    table.add_column("class")
    for spec in all_games():
        kinds = bot_names(spec.name)
        table.add_row(
            f"{spec.name}\n{spec.title}",
            "\n".join(kinds),
            "\n".join(bot_path(k, spec.name) for k in kinds),
        )
    out.print(table)
