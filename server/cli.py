"""The ``levata`` command line.

    levata games                         list the games, player counts and options
    levata play --game whist --players 4 --bots heuristic,random,random,random --seed 7

Bad input (an unknown game, a wrong player count, a bad option or bot) prints one line
starting with ``error:`` and exits with status 2; never a traceback.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from levata.bots import make_bot, play_match
from levata.engine import BadConfig, GameState, all_games, game
from levata.engine.seeds import derive
from levata.server.narrate import narrate

app = typer.Typer(
    help="levata: refereed Romanian card games for bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)

EXIT_USAGE = 2


def fail(message: str) -> typer.Exit:
    """Print one clear line and return the exit to raise (status 2)."""
    err.print(f"error: {message}", markup=False)
    return typer.Exit(EXIT_USAGE)


@app.command("games")
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


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``["deal_size=3", "zero_wins=off"]`` -> a dict; a pair without ``=`` is an error."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise BadConfig(f"option {pair!r} is not NAME=VALUE")
        options[name.strip()] = value.strip()
    return options


def build_match(
    game_name: str, players: int | None, bots: str, seed: int, options: list[str]
) -> tuple[GameState, list]:
    """The match and its bots from command-line values; :class:`BadConfig` on bad input."""
    spec = game(game_name)
    kinds = [b.strip() for b in bots.split(",") if b.strip()]
    if players is None:  # one bot per seat, or the fewest players when one name fills all
        players = len(kinds) if len(kinds) > 1 else spec.players[0]
    if len(kinds) == 1:
        kinds = kinds * players
    if len(kinds) != players:
        raise BadConfig(f"{players} players need {players} bots, --bots names {len(kinds)}")
    state = spec.new_match(players=players, options=parse_options(options), seed=seed)
    seated = [make_bot(k, spec.name, seed=derive(seed, "bot", s)) for s, k in enumerate(kinds)]
    return state, seated


@app.command()
def play(
    game_name: Annotated[str, typer.Option("--game", "-g", help="Game name (see `levata games`).")],
    players: Annotated[
        int | None,
        typer.Option("--players", "-n", help="Number of players (default: one per bot)."),
    ] = None,
    bots: Annotated[
        str,
        typer.Option(
            help="Comma-separated bot per seat: random or heuristic; one name fills every seat."
        ),
    ] = "random",
    seed: Annotated[int, typer.Option(help="Seed of the match: the same seed replays it.")] = 0,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final standings.")] = False,
) -> None:
    """Play one match in-process and print its log and the final standings."""
    try:
        state, seated = build_match(game_name, players, bots, seed, option or [])
    except BadConfig as exc:
        raise fail(str(exc)) from None
    out.print(
        f"{state.spec.title}: {state.players} players, seed {seed}, "
        f"bots {', '.join(b.name for b in seated)}"
    )
    cursor = 0

    def show(_seat: int, _action: object) -> None:
        nonlocal cursor
        for ev in state.events(since=cursor):
            out.print(narrate(ev), markup=False, soft_wrap=True)
        cursor = len(state.events())

    result = play_match(state, seated, on_action=None if quiet else show)
    table = Table(title="final standings")
    for col in ("rank", "seat", "bot", "score", ""):
        table.add_column(col)
    order = sorted(range(state.players), key=lambda s: (result.ranks[s], s))
    for s in order:
        mark = "winner" if s in result.winners else ""
        table.add_row(str(result.ranks[s]), str(s), seated[s].name, f"{result.scores[s]:g}", mark)
    out.print(table)
    if result.reason != "complete":
        out.print(f"match stopped early: {result.reason}")


def main() -> None:
    """Entry point of the ``levata`` script."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
