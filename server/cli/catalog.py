"""``levata games`` and ``levata bots``: what this installation can play, and with whom.

Both read the game registry and each game's traits, so a new game shows up by registering.
"""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from levata.bots import bot_names
from levata.bots.base import bot_class, bot_defaults, bot_path
from levata.bots.entry import describe_options
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
    """List the reference bots of every game (``--bots`` kinds), where each one lives and
    its options (set with ``--bots KIND:key=value``)."""
    table = Table(title="levata bots")
    table.add_column("game")
    table.add_column("bot")
    # narrow terminals: long option lists and class paths wrap, never cut short
    table.add_column("options (defaults)", overflow="fold", ratio=3)
    table.add_column("class", overflow="fold", ratio=2)
    table.caption = "options: --bots KIND:key=value[:key=value...], e.g. pimc:worlds=40"
    for spec in all_games():
        kinds = bot_names(spec.name)
        for n, k in enumerate(kinds):
            opts = describe_options(bot_class(k, spec.name))
            own = bot_defaults(k, spec.name)  # the game's settings over the class's defaults
            if own:
                opts += "; for this game: " + ", ".join(f"{a}={v}" for a, v in own.items())
            table.add_row(
                spec.name if n == 0 else "",
                k,
                escape("-" if opts == "none" else opts),
                bot_path(k, spec.name),
                end_section=n == len(kinds) - 1,
            )
    out.print(table)
