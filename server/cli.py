"""The ``levata`` command line.

    levata games                         list the games, player counts and options
    levata play --game whist --players 4 --bots heuristic,random,random,random --seed 7
    levata match --game whist --bots heuristic,random,random,random   refereed over gRPC
    levata serve --port 50051 --token mybot=SECRET                     run a referee
    levata bot run heuristic --game whist --server HOST:PORT --token T
    levata bot bridge --server HOST:PORT --token T -- PROGRAM ARGS
    levata replay ID / levata export ID   check or dump a recorded match

Bad input (an unknown game, a wrong player count, a bad option or bot) prints one line
starting with ``error:`` and exits with status 2; never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from levata.bots import make_bot, play_match
from levata.engine import BadConfig, GameState, all_games, game
from levata.engine.seeds import derive
from levata.server.narrate import narrate
from levata.server.store import DEFAULT_DB, Store

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


DB_OPTION = typer.Option("--db", help="SQLite file of match records.")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 50051,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    token: Annotated[
        list[str] | None, typer.Option(help="Bot token NAME=TOKEN (repeatable).")
    ] = None,
    admin_token: Annotated[
        str | None, typer.Option(help="Require this bearer token on admin calls.")
    ] = None,
    move_ms: Annotated[int, typer.Option(help="Default time per decision, ms.")] = 2000,
    bank_ms: Annotated[int, typer.Option(help="Default time bank per match, ms.")] = 20000,
    tls_cert: Annotated[Path | None, typer.Option(help="TLS certificate (PEM).")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="TLS private key (PEM).")] = None,
) -> None:
    """Run the referee until interrupted."""
    from levata.server.app import start_server
    from levata.server.referee import Policy

    pairs = parse_pairs(token or [], "token")

    async def main_loop() -> None:
        server, arena = await start_server(
            Store(db),
            host,
            port,
            Policy(move_ms=move_ms, bank_ms=bank_ms),
            admin_token,
            tls_cert,
            tls_key,
        )
        for name, secret in pairs.items():
            arena.add_bot(name, secret)
        out.print(f"levata referee serving on {host}:{arena.port} (records in {db})")
        try:
            await server.wait_for_termination()
        finally:
            await arena.close()
            await server.stop(1)

    try:
        asyncio.run(main_loop())
    except KeyboardInterrupt:
        out.print("stopped")


def parse_pairs(pairs: list[str], what: str) -> dict[str, str]:
    try:
        return parse_options(pairs)
    except BadConfig:
        raise fail(f"each --{what} is NAME=VALUE") from None


@app.command()
def match(
    game_name: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    bots: Annotated[str, typer.Option(help="Bot kind per seat, comma-separated.")] = "random",
    players: Annotated[int | None, typer.Option("--players", "-n", help="Players.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the match.")] = 0,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="NAME=VALUE.")] = None,
    server: Annotated[
        str | None, typer.Option(help="Use a running referee HOST:PORT instead of starting one.")
    ] = None,
    admin_token: Annotated[str | None, typer.Option(help="Admin token of --server.")] = None,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.")] = 2000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the result.")] = False,
) -> None:
    """Referee one match over gRPC, each bot in its own process, and print the result."""
    from levata.server.matchrun import run_refereed_match

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
                admin_token=admin_token,
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


@app.command()
def replay(
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
) -> None:
    """Re-run a recorded match from its seed and actions; exit 1 if anything differs."""
    from levata.server.replay import replay_match

    if not db.exists():
        raise fail(f"no database at {db}")
    ok, why = replay_match(Store(db), match_id)
    (out if ok else err).print(why, markup=False)
    if not ok:
        raise typer.Exit(1)


@app.command()
def export(
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File (default: stdout).")
    ] = None,
) -> None:
    """Write a recorded match (spec, events, actions, replies, result) as JSON."""
    from levata.server.replay import export_match

    if not db.exists():
        raise fail(f"no database at {db}")
    record = export_match(Store(db), match_id)
    if record is None:
        raise fail(f"no match {match_id!r} in {db}")
    text = json.dumps(record, indent=2)
    if output is None:
        sys.stdout.write(text + "\n")
    else:
        output.write_text(text + "\n")
        out.print(f"wrote {output}")


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def bot(ctx: typer.Context) -> None:
    """Run a bot process: `levata bot run KIND ...` or `levata bot bridge ... -- PROGRAM`."""
    from levata.bots.runner import main as bot_main

    raise typer.Exit(bot_main(list(ctx.args)))


def main() -> None:
    """Entry point of the ``levata`` script."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
