"""The ``levata`` command line.

    levata games                         list the games, player counts and options
    levata play --game whist --players 4 --bots heuristic,random,random,random --seed 7
    levata match --game whist --bots heuristic,random,random,random   refereed over gRPC
    levata serve --port 50051 --tokens-file tokens.txt                 run a referee
    LEVATA_TOKEN=T levata bot run heuristic --game whist --server HOST:PORT
    levata bot bridge --server HOST:PORT --token-file T.txt -- PROGRAM ARGS
    levata replay ID / levata export ID   check or dump a recorded match
    levata tournament --game whist --bots heuristic,random,random --deals 12   a duplicate
    levata report ID --html report.html  a tournament's standings, as one HTML page

Bad input (an unknown game, a wrong player count, a bad option or bot) prints one line
starting with ``error:`` and exits with status 2; never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from levata.bots import make_bot, play_match
from levata.engine import BadConfig, GameState, all_games, game
from levata.engine.seeds import derive
from levata.server.auth import admin_token_file_for, client_admin_token
from levata.server.narrate import narrate
from levata.server.store import DEFAULT_DB, Store
from levata.server.tourney_store import TourneyStore

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
ADMIN_TOKEN_FILE_OPTION = typer.Option(
    help="With --server: file holding that referee's admin token (default: $LEVATA_ADMIN_TOKEN)."
)


def admin_token_of(server: str | None, file: Path | None) -> str | None:
    """The admin token an admin client sends to ``server`` (none needed without one)."""
    if server is None:
        if file is not None:
            raise fail("--admin-token-file goes with --server")
        return None
    try:
        token = client_admin_token(file)
    except BadConfig as exc:
        raise fail(str(exc)) from None
    if token is None:
        raise fail(
            "--server needs that referee's admin token: set LEVATA_ADMIN_TOKEN or pass"
            " --admin-token-file (levata serve prints where it keeps it)"
        )
    return token


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 50051,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    tokens_file: Annotated[
        Path | None,
        typer.Option(
            help="Owner-only file of bot tokens, one 'NAME TOKEN' per line (tokens never go"
            " on a command line; bots can also be registered with AdminService.RegisterBot)."
        ),
    ] = None,
    admin_token_file: Annotated[
        Path | None,
        typer.Option(
            help="Owner-only file holding the admin token; made with a fresh token if missing"
            " (default: DB.admin-token beside the database)."
        ),
    ] = None,
    move_ms: Annotated[int, typer.Option(help="Default time per decision, ms.")] = 2000,
    bank_ms: Annotated[int, typer.Option(help="Default time bank per match, ms.")] = 20000,
    tls_cert: Annotated[Path | None, typer.Option(help="TLS certificate (PEM).")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="TLS private key (PEM).")] = None,
    hello_timeout: Annotated[
        float, typer.Option(help="Seconds a new stream has to say Hello.", min=0.1, max=600)
    ] = 10.0,
    entrant_socket: Annotated[
        Path | None,
        typer.Option(
            help="Also serve bots on this Unix socket: ArenaService only, no admin service (a"
            " tournament's sandboxed bots reach it without network: its --entrant-socket)."
        ),
    ] = None,
) -> None:
    """Run the referee until interrupted.

    The admin service always needs the admin token (metadata ``authorization: Bearer
    TOKEN``): it is read from --admin-token-file, or made and written there, readable by its
    owner only; the path is printed at start-up. Admin clients such as ``levata match
    --server`` read it from $LEVATA_ADMIN_TOKEN or their own --admin-token-file."""
    from levata.server.app import start_entrant_server, start_server
    from levata.server.auth import load_or_create_admin_token, read_tokens_file
    from levata.server.limits import Limits, raise_open_file_limit
    from levata.server.referee import Policy

    token_path = admin_token_file or admin_token_file_for(db)
    try:
        pairs = read_tokens_file(tokens_file) if tokens_file else {}
        admin_token, created = load_or_create_admin_token(token_path)
    except BadConfig as exc:
        raise fail(str(exc)) from None
    raise_open_file_limit()  # connections are capped below it (levata.server.limits)
    if entrant_socket and (len(str(entrant_socket)) > 100 or not entrant_socket.parent.is_dir()):
        raise fail(f"--entrant-socket {entrant_socket}: needs an existing folder, a short path")

    store = open_writable(db)

    async def main_loop() -> None:
        server, arena = await start_server(
            store,
            host,
            port,
            Policy(move_ms=move_ms, bank_ms=bank_ms),
            admin_token,
            tls_cert,
            tls_key,
            limits=Limits.for_open_files(hello_timeout_s=hello_timeout),
        )
        for name, secret in pairs.items():
            arena.add_bot(name, secret, rotate=True)  # the file is the operator's word
        entrants = None
        if entrant_socket is not None:
            entrants = await start_entrant_server(arena, entrant_socket)
            out.print(f"bots only (no admin service) on unix:{entrant_socket}", soft_wrap=True)
        out.print(f"levata referee serving on {host}:{arena.port} (records in {db})")
        verb = "written to" if created else "read from"
        out.print(f"admin token {verb} {token_path} (owner-only)", soft_wrap=True)
        say_recovered(arena.recovered)
        stopping = asyncio.Event()  # SIGTERM and Ctrl-C: the same orderly stop
        for sig in (signal.SIGTERM, signal.SIGINT):
            asyncio.get_running_loop().add_signal_handler(sig, stopping.set)
        try:
            await stopping.wait()
        finally:
            left = sum(r.status == "running" for r in arena.matches.values())
            await arena.close(resumable=True)  # the next start on this file takes them up
            await asyncio.sleep(0.2)  # the streams' ends reach the bots
            if entrants is not None:
                await entrants.stop(1)
            await server.stop(1)
            arena.store.close()
            if left:
                out.print(f"{left} unfinished match(es) recorded: the next start resumes them")

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C before the loop took the signal
        try:
            asyncio.run(main_loop())
        except BadConfig as exc:  # the port cannot be had
            store.close()
            raise fail(str(exc)) from None
    out.print("stopped")


def open_writable(db: Path) -> Store:
    """The referee's records, or one clear line (exit 2) when the file cannot be opened or
    written at all: a referee that could not record a single move must not start."""
    import sqlite3

    from levata.server.store import StoreUnavailable

    try:
        store = Store(db)
        store.flush(force=True)  # nothing queued: a probe write
    except (sqlite3.Error, OSError, StoreUnavailable) as exc:
        raise fail(f"cannot open the records at {db} for writing: {exc}") from None
    return store


def say_recovered(recovered: list[Any]) -> None:
    """One line per match a previous referee left unfinished: resumed, or why not."""
    for r in recovered:
        if r.why:
            err.print(f"match {r.match_id} closed as aborted: {r.why}", markup=False)
        else:
            out.print(f"match {r.match_id} resumed from its record: its bots may reconnect")


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
    admin_token_file: Annotated[Path | None, ADMIN_TOKEN_FILE_OPTION] = None,
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


# -- tournaments (levata.server.tournament) ----------------------------------------------------


@app.command()
def tournament(
    game_name: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    bots: Annotated[
        str,
        typer.Option(
            help="Entries, comma-separated: a bot kind (heuristic, random...), a manifest"
            " FILE.toml, or @NAME for a bot already connected to --server."
        ),
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format", help="duplicate (each deal played in every seating) or roundrobin."
        ),
    ] = "duplicate",
    deals: Annotated[int, typer.Option(help="Deals (duplicate) or rounds (roundrobin).")] = 12,
    seed: Annotated[int, typer.Option(help="Tournament seed: deals and bots derive from it.")] = 0,
    players: Annotated[
        int | None,
        typer.Option("--players", "-n", help="Seats per match (default: one per entry)."),
    ] = None,
    unit: Annotated[
        str | None,
        typer.Option(help="deal: every match one deal (sizes cycle); game: whole games."),
    ] = None,
    seating: Annotated[
        str,
        typer.Option(
            help="permute (every seating), rotate (cyclic rotations only) or auto (permute"
            " up to 4 seats)."
        ),
    ] = "auto",
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="NAME=VALUE.")] = None,
    teams: Annotated[
        str | None, typer.Option(help="Partnerships for the two-table method, e.g. 0+2,1+3.")
    ] = None,
    parallel: Annotated[int, typer.Option(help="Matches played at once.")] = 4,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the unfinished tournament of this spec.")
    ] = False,
    server: Annotated[
        str | None, typer.Option(help="Use a running referee HOST:PORT instead of starting one.")
    ] = None,
    admin_token_file: Annotated[Path | None, ADMIN_TOKEN_FILE_OPTION] = None,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.")] = 2000,
    logs: Annotated[
        Path | None, typer.Option(help="Folder of the bots' stderr logs (default: by the db).")
    ] = None,
    html: Annotated[Path | None, typer.Option(help="Also write the HTML report here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    sandbox: Annotated[
        str,
        typer.Option(
            help="How submitted bots (manifests) are isolated: auto or bwrap (bubblewrap: no"
            " network, no other process or file in view, a user of their own), none."
        ),
    ] = "auto",
    entrant_socket: Annotated[
        Path | None,
        typer.Option(
            help="With --server: that referee's entrants' socket (levata serve"
            " --entrant-socket), so sandboxed bots need no network."
        ),
    ] = None,
) -> None:
    """Play a tournament over the referee, each bot its own process; print the standings."""
    import os

    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # before gRPC starts: no INFO chatter
    from levata.server.sandbox import Sandbox, check_mode
    from levata.server.tournament import build_spec, prepare, run_tournament

    if parallel < 1:
        raise fail("--parallel must be at least 1")
    try:
        spec = build_spec(
            game_name,
            bots,
            players=players,
            fmt=fmt,
            deals=deals,
            seed=seed,
            unit=unit,
            seating=seating,
            options=option or [],
            teams=teams,
            move_ms=move_ms,
            server=server,
        )
        manifests = any(e.kind == "manifest" for e in spec.entries)
        check_mode(sandbox, manifests, Sandbox(share_net=bool(server and not entrant_socket)))
    except BadConfig as exc:
        raise fail(str(exc)) from None
    tdb = TourneyStore(db)
    tid, resumed = prepare(tdb, spec, resume)
    out.print(
        f"tournament {tid}{' (resumed)' if resumed else ''}: {spec.describe()}; "
        f"{len(spec.schedule())} matches, records in {db}",
        soft_wrap=True,
        markup=False,
    )
    try:
        with _RichProgress(quiet) as progress:
            asyncio.run(
                run_tournament(
                    tid,
                    db,
                    tdb,
                    parallel,
                    server,
                    admin_token_of(server, admin_token_file),
                    logs,
                    progress,
                    sandbox,
                    entrant_socket,
                )
            )
    except RuntimeError as exc:
        err.print(f"error: {exc} (run again with --resume to continue)", markup=False)
        raise typer.Exit(1) from None
    _show_report(tdb, tid, db, html, None, None)


@app.command()
def report(
    tournament_id: Annotated[
        str, typer.Argument(help="Tournament id (or a unique prefix, or latest).")
    ] = "latest",
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    html: Annotated[Path | None, typer.Option(help="Write the HTML report here.")] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write spec and standings as JSON here.")
    ] = None,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
) -> None:
    """Print a tournament's standings; write them as one self-contained HTML page."""
    if not db.exists():
        raise fail(f"no database at {db}")
    if resamples < 10:
        raise fail("--resamples must be at least 10")
    tdb = TourneyStore(db)
    tid = tdb.resolve(tournament_id)
    if tid is None:
        known = ", ".join(t["id"] for t in tdb.tournaments()[:5]) or "none"
        raise fail(f"no tournament {tournament_id!r} in {db} (recent: {known})")
    _show_report(tdb, tid, db, html, json_out, resamples)


def _show_report(
    tdb: TourneyStore,
    tid: str,
    db: Path,
    html: Path | None,
    json_out: Path | None,
    resamples: int | None,
) -> None:
    """Print the standings of ``tid``; write the HTML and JSON reports when asked."""
    import datetime

    from levata.server.report import html_report, print_standings
    from levata.server.tournament import TournamentSpec, standings_of, summary_json

    t = tdb.tournament(tid)
    spec = TournamentSpec.from_dict(t["spec"])
    st = standings_of(tdb, tid, resamples)
    state = "" if t["status"] == "finished" else " (unfinished)"
    wide = out if out.is_terminal else Console(highlight=False, width=120)  # files: no squeeze
    print_standings(wide, st, title=f"standings of {tid}{state}: {spec.describe()}")
    if html is not None:
        rows = tdb.rows(tid)
        notes = [
            f"match {r['index']} (deal {r['group']}): {r['result']['detail']}"
            for r in rows
            if r["result"] and r["result"].get("forfeited")
        ]
        when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        page = html_report(tid, spec.describe(), st, notes[:200], f"report of {when}")
        html.write_text(page)
        out.print(f"wrote {html}", markup=False, soft_wrap=True)
    if json_out is not None:
        json_out.write_text(summary_json(tdb, tid) + "\n")
        out.print(f"wrote {json_out}", markup=False, soft_wrap=True)
    if html is None:
        out.print(
            f"report: levata report {tid} --db {db} --html report.html",
            markup=False,
            soft_wrap=True,
        )


class _RichProgress:
    """The tournament's progress bar (on stderr) and notes."""

    def __init__(self, quiet: bool) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.quiet = quiet
        self.bar = Progress(
            TextColumn("matches"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=err,
            disable=quiet,
        )
        self.task = None

    def __enter__(self) -> _RichProgress:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(*exc)

    def start(self, total: int, done: int) -> None:
        self.task = self.bar.add_task("matches", total=total, completed=done)

    def advance(self, row: dict, result: dict) -> None:
        if self.task is not None:
            self.bar.advance(self.task)

    def note(self, line: str) -> None:
        self.bar.console.print(line, markup=False, soft_wrap=True)


def main() -> None:
    """Entry point of the ``levata`` script."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
