"""``levata play`` (one match in this process, narrated) and ``levata match`` (one match
refereed over gRPC, each bot in its own process)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from levata.bots import make_bot, play_match
from levata.engine import BadConfig, GameState, game
from levata.engine.seeds import derive
from levata.server.cli.common import (
    ADMIN_TOKEN_FILE_OPTION,
    DB_OPTION,
    admin_token_of,
    fail,
    out,
)
from levata.server.match.narrate import narrate
from levata.server.match.store import DEFAULT_DB
from levata.server.options import parse_options


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
            out.print(narrate(ev, state.spec), markup=False, soft_wrap=True)
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


def match(
    game_name: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    bots: Annotated[str, typer.Option(help="Bot kind per seat, comma-separated.")] = "random",
    players: Annotated[int | None, typer.Option("--players", "-n", help="Players.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the match.")] = 0,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="NAME=VALUE.")] = None,
    server: Annotated[
        str | None, typer.Option(help="Use a running referee HOST:PORT instead of starting one.")
    ] = None,
    admin_token_file: Annotated[Path | None, ADMIN_TOKEN_FILE_OPTION] = None,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.")] = 2000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the result.")] = False,
) -> None:
    """Referee one match over gRPC, each bot in its own process, and print the result."""
    from levata.server.match.run import run_refereed_match

    try:
        state, _ = build_match(game_name, players, bots, seed, option or [])
    except BadConfig as exc:
        raise fail(str(exc)) from None
    kinds = [b.strip() for b in bots.split(",") if b.strip()]
    kinds = kinds * state.players if len(kinds) == 1 else kinds
    try:
        outcome = asyncio.run(
            run_refereed_match(
                state.spec.name,
                state.players,
                kinds,
                seed,
                parse_options(option or []),
                server=server,
                admin_token=admin_token_of(server, admin_token_file),
                db=db,
                move_ms=move_ms,
                narrate_to=None
                if quiet
                else lambda line: out.print(line, markup=False, soft_wrap=True),
            )
        )
    except RuntimeError as exc:
        raise fail(str(exc)) from None
    info = outcome.info
    out.print(f"match {info.match_id}: {state.spec.title}, refereed over gRPC", soft_wrap=True)
    table = Table()
    for col in ("rank", "seat", "bot", "score", "strikes", ""):
        table.add_column(col)
    res = info.result
    for s in sorted(range(info.players), key=lambda s: (res.ranks[s], s)):
        mark = "winner" if s in res.winners else ("forfeit" if s in res.forfeited else "")
        table.add_row(
            str(res.ranks[s]), str(s), kinds[s], f"{res.scores[s]:g}", str(info.strikes[s]), mark
        )
    out.print(table)
    out.print(f"record: {db} (levata replay {info.match_id} --db {db})", soft_wrap=True)
