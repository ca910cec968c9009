"""``levata games`` and ``levata bots``: what this installation can play, and with whom.

Both read the game registry and each game's traits, so a new game shows up by registering.
"""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from levata.bots import bot_names
from levata.bots.base import bot_path
from levata.engine import BadConfig, all_games, game
from levata.engine.describe import describe
from levata.server.cli.common import fail, out


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
    out.print(
        "What a bot of a game sees: levata describe GAME. The rules as implemented:"
        " docs/games/GAME.md in the source tree.",
        markup=False,
    )


def describe_game(name: str = typer.Argument(help="Game name (see levata games).")) -> None:
    """Print what a bot of GAME sees: phases, zones, counts, counters, facts, actions,
    events and card notation, generated from the engine."""
    try:
        spec = game(name)
    except BadConfig as exc:
        raise fail(str(exc)) from None
    print(describe(spec), end="")


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
