"""``levata tournament`` (schedule and play one) and ``levata report`` (its standings)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from levata.engine import BadConfig
from levata.server.cli.common import (
    ADMIN_TOKEN_FILE_OPTION,
    ADOPT_DB_OPTION,
    DB_OPTION,
    EXIT_RUNTIME,
    admin_token_of,
    adopt_db,
    check_output,
    err,
    fail,
    out,
    seed_option,
    write_output,
)
from levata.server.database import DatabaseError
from levata.server.match.store import DEFAULT_DB
from levata.server.tournament.store import TourneyStore

if TYPE_CHECKING:
    from types import TracebackType

    from rich.progress import TaskID


#: ``--replays``: where the report's replay pages go.
REPLAYS_OPTION = typer.Option(
    help="With --html: the folder each match's replay page (levata view) is written into"
    " (default: REPORT-replays beside the report), every match row of the report linked to"
    " its replay."
)
#: ``--no-replays``: a report without them.
NO_REPLAYS_OPTION = typer.Option(
    "--no-replays", help="With --html: write no replay pages; the match rows link to none."
)


def tournament(
    game_name: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    bots: Annotated[
        str,
        typer.Option(
            help="Entries, comma-separated: a reference bot with options"
            " KIND[:key=value...] (heuristic, random, pimc:worlds=40:time_ms=150), a manifest"
            " FILE.toml (a submitted program, sandboxed), @NAME for a bot already connected"
            " to --server, module:Class[:key=value...] (your Python class implementing"
            " Bot) or module:function (docs/python-bots.md). Each entry is recorded as"
            " written: options are part of the spec and so of the tournament id."
        ),
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format", help="duplicate (each deal played in every seating) or roundrobin."
        ),
    ] = "duplicate",
    deals: Annotated[int, typer.Option(help="Deals (duplicate) or rounds (roundrobin).")] = 12,
    seed: Annotated[int, seed_option("Tournament seed: deals and bots derive from it.")] = 0,
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
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", help="Start another tournament of this spec even if one is unfinished."
        ),
    ] = False,
    server: Annotated[
        str | None, typer.Option(help="Use a running referee HOST:PORT instead of starting one.")
    ] = None,
    admin_token_file: Annotated[Path | None, ADMIN_TOKEN_FILE_OPTION] = None,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    adopt: Annotated[bool, ADOPT_DB_OPTION] = False,
    move_ms: Annotated[int, typer.Option(help="Time per decision, ms.")] = 2000,
    logs: Annotated[
        Path | None, typer.Option(help="Folder of the bots' stderr logs (default: by the db).")
    ] = None,
    html: Annotated[Path | None, typer.Option(help="Also write the HTML report here.")] = None,
    replays: Annotated[Path | None, REPLAYS_OPTION] = None,
    no_replays: Annotated[bool, NO_REPLAYS_OPTION] = False,
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
    max_memory_mb: Annotated[
        int,
        typer.Option(help="The most memory (MiB) a manifest may ask for (memory_mb).", min=1),
    ] = 8192,
    max_cpu_seconds: Annotated[
        int,
        typer.Option(help="The most CPU time (s) a manifest may ask for (cpu_seconds).", min=1),
    ] = 7200,
    log_mb: Annotated[
        int,
        typer.Option(
            help="The most each bot's stderr log holds (MiB; NAME.log and its rotated"
            " NAME.log.1 together).",
            min=1,
        ),
    ] = 16,
    executor: Annotated[
        str,
        typer.Option(
            help="Where matches are played: local (this machine), or ray (tasks on a Ray"
            " cluster, each with a referee and the bots on its node; docs/scale-out.md)."
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(help="With --executor ray: the cluster's address (default: a local one)."),
    ] = None,
    ray_chunk: Annotated[
        int, typer.Option(help="With --executor ray: matches per Ray task.", min=1)
    ] = 4,
) -> None:
    """Play a tournament over the referee, each bot its own process; print the standings.

    Stopped (Ctrl-C, a crash, a kill), it resumes with the same command and --resume:
    nothing played is lost or counted twice.

    \b
    levata tournament --game whist --bots pimc,heuristic,random --deals 24 --seed 1
    levata tournament --game whist --bots pimc:worlds=20:time_ms=100,pimc,heuristic
    levata tournament --game macao --bots bots/mine.toml,heuristic,random
    levata tournament --game whist --bots mybot:MyBot:depth=3,heuristic,random"""
    from levata.server.tournament.entries import check_ceilings
    from levata.server.tournament.runner import Hosting, run_tournament
    from levata.server.tournament.sandbox import Sandbox, check_mode
    from levata.server.tournament.spec import Unfinished, build_spec, prepare

    if parallel < 1:
        raise fail("--parallel must be at least 1")
    _check_executor(executor, server, address)
    _check_replays(html, replays, no_replays)
    check_output(html, "--html")  # before the tournament: its end must not be lost
    adopt_db(db, adopt)
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
        check_ceilings(spec.entries, max_memory_mb, max_cpu_seconds)
        manifests = any(e.kind == "manifest" for e in spec.entries)
        check_mode(sandbox, manifests, Sandbox(share_net=bool(server and not entrant_socket)))
    except BadConfig as exc:
        raise fail(str(exc)) from None
    try:  # a tournament that could not record a result must not start
        tdb = TourneyStore(db)
        tdb.check_writable()
    except DatabaseError as exc:
        if exc.newer or exc.bad_path:
            raise  # its own line: status 1 (newer) or 2 (no such folder)
        raise fail(f"cannot open the records at {db} for writing: {exc}") from None
    try:
        tid, resumed = prepare(tdb, spec, resume, fresh)
    except Unfinished as exc:
        raise fail(
            f"{exc}: continue it with the same command and --resume ({resume_command()}),"
            " or add --fresh to start another beside it"
        ) from None
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
                    Hosting(
                        server,
                        admin_token_of(server, admin_token_file),
                        logs,
                        sandbox,
                        entrant_socket,
                        log_mb,
                    ),
                    progress,
                    _executor(executor, address, ray_chunk),
                )
            )
    except DatabaseError:
        raise  # one line, status 1 or 2, from the command's entry point
    except RuntimeError as exc:
        err.print(f"error: {exc} (run again with --resume to continue)", markup=False)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        rows = tdb.rows(tid)
        played = sum(r["status"] == "finished" for r in rows)
        err.print(
            f"interrupted: tournament {tid} stopped after {played} of {len(rows)} matches;"
            f" nothing played is lost. Resume it with: {resume_command()}",
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    _show_report(tdb, tid, db, html, None, None, logs, replays_of(html, replays, no_replays))


def resume_command() -> str:
    """This command line with ``--resume`` (and without ``--fresh``): what continues it."""
    import shlex
    import sys

    args = [a for a in sys.argv[1:] if a not in ("--resume", "--fresh")]
    return shlex.join(["levata", *args, "--resume"])


def _check_executor(executor: str, server: str | None, address: str | None) -> None:
    if executor not in ("local", "ray"):
        raise fail(f"--executor is local or ray, not {executor!r}")
    if executor == "ray" and server is not None:
        raise fail("--executor ray plays on referees of its own, one a task: not with --server")
    if address is not None and executor != "ray":
        raise fail("--address goes with --executor ray")


def _executor(name: str, address: str | None, chunk: int) -> Any:
    """``--executor``: None (the local run), or the Ray cluster's executor."""
    if name != "ray":
        return None
    from levata.server.tournament import on_ray

    return on_ray.executor(address, chunk)


def _check_replays(html: Path | None, replays: Path | None, no_replays: bool) -> None:
    if replays is not None and html is None:
        raise fail("--replays goes with --html (the report links to them)")
    if replays is not None and no_replays:
        raise fail("--replays and --no-replays: choose one")


def replays_of(html: Path | None, replays: Path | None, no_replays: bool) -> Path | None:
    """The folder the replay pages of a report at ``html`` go into: ``replays`` if given,
    else ``REPORT-replays`` beside it (a report file whose links work wherever the two are
    copied together); ``None`` without a report or with ``--no-replays``.

    >>> replays_of(Path("out/report.html"), None, False).as_posix()
    'out/report-replays'
    >>> replays_of(Path("out/report.html"), None, True) is None
    True
    """
    if html is None or no_replays:
        return None
    return replays if replays is not None else html.with_name(f"{html.stem}-replays")


def _write_replays(db: Path, rows: list[dict[str, Any]], html: Path, folder: Path | None) -> str:
    """Write the replay page of each match of ``rows`` into ``folder`` (one self-contained
    page each: the report stays as light as it was, however many matches); the address the
    report at ``html`` links them by ('' without a folder)."""
    import os

    if folder is None:
        return ""
    from levata.server.match.store import Store
    from levata.server.web.page import replay_page
    from levata.server.web.record import NotViewable, match_data

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"cannot make {folder}: {exc.strerror}") from None
    store = Store(db)
    written = 0
    for r in rows:
        if not r.get("match_id"):
            continue
        try:
            page = replay_page(match_data(store, r["match_id"]))
        except NotViewable as exc:
            err.print(f"no replay of {r['match_id']}: {exc}", markup=False, soft_wrap=True)
            continue
        try:
            (folder / f"{r['match_id']}.html").write_text(page, encoding="utf-8")
        except OSError as exc:
            raise fail(f"cannot write into {folder}: {exc.strerror}") from None
        written += 1
    out.print(f"wrote {written} replays into {folder}", markup=False, soft_wrap=True)
    return Path(os.path.relpath(folder.resolve(), html.resolve().parent)).as_posix() + "/{id}.html"


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
    replays: Annotated[Path | None, REPLAYS_OPTION] = None,
    no_replays: Annotated[bool, NO_REPLAYS_OPTION] = False,
) -> None:
    """Print a tournament's standings; write them as one self-contained HTML page."""
    if not db.exists():
        raise fail(f"no database at {db}")
    if resamples < 10:
        raise fail("--resamples must be at least 10")
    _check_replays(html, replays, no_replays)
    check_output(html, "--html")
    check_output(json_out, "--json")
    from levata.server.match.store import BrokenRecord

    tdb = TourneyStore(db)
    try:
        tid = tdb.resolve(tournament_id)
        if tid is None:
            known = ", ".join(t["id"] for t in tdb.tournaments()[:5]) or "none"
            raise fail(f"no tournament {tournament_id!r} in {db} (recent: {known})")
        folder = replays_of(html, replays, no_replays)
        _show_report(tdb, tid, db, html, json_out, resamples, replays=folder)
    except BrokenRecord as exc:  # a row that cannot be read: one line, not a traceback
        raise fail(f"{exc} (in {db})", EXIT_RUNTIME) from None


def _show_report(
    tdb: TourneyStore,
    tid: str,
    db: Path,
    html: Path | None,
    json_out: Path | None,
    resamples: int | None,
    log_dir: Path | None = None,
    replays: Path | None = None,
) -> None:
    """Print the standings of ``tid``; write the HTML and JSON reports when asked."""
    import datetime

    from levata.server.tournament.ladder import ladders_html, print_ladders_of
    from levata.server.tournament.report import (
        details_of,
        forfeit_warnings,
        html_report,
        print_details,
        print_standings,
        standings_of,
        summary_json,
    )
    from levata.server.tournament.spec import TournamentSpec

    t = tdb.tournament(tid)
    assert t is not None  # ``tid`` is resolved: its tournament is there
    spec = TournamentSpec.from_dict(t["spec"])
    st = standings_of(tdb, tid, resamples)
    rows = tdb.rows(tid)
    details = details_of(tdb, tid, db)
    move_ms = spec.policy.get("move_ms")
    state = "" if t["status"] == "finished" else " (unfinished)"
    wide = out if out.is_terminal else Console(highlight=False, width=120)  # files: no squeeze
    print_standings(wide, st, title=f"standings of {tid}{state}: {spec.describe()}")
    print_details(wide, details, st, move_ms)
    print_ladders_of(wide, db, tid, spec.names)  # the ladders it was added to, if any
    logs = (log_dir or db.resolve().parent / "levata-logs" / tid).resolve()
    found = {n: logs / f"{n}.log" for n in spec.names if (logs / f"{n}.log").exists()}
    for line in forfeit_warnings(st, rows, found):
        err.print(line, markup=False, soft_wrap=True)
    if html is not None:
        notes = [
            f"match {r['index']} (deal {r['group'] + 1}, {r['match_id']}): {r['result']['detail']}"
            for r in rows
            if r["result"] and r["result"].get("forfeited")
        ]
        when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        page = html_report(
            tid,
            spec.describe(),
            st,
            notes[:200],
            f"report of {when}",
            details=details,
            move_ms=move_ms,
            db=str(db),
            fmt=spec.format,
            replays=_write_replays(db, rows, html, replays),
            ladders=ladders_html(db, tid, spec.names),
        )
        write_output(html, page, "--html")
    if json_out is not None:
        write_output(json_out, summary_json(tdb, tid) + "\n", "--json")
    if html is None:
        out.print(
            f"report: levata report {tid} --db {db} --html report.html",
            markup=False,
            soft_wrap=True,
        )
    _check_records(tdb, tid, db)


def _check_records(tdb: TourneyStore, tid: str, db: Path) -> None:
    """Verify the records behind the standings (:mod:`levata.server.tournament.audit`):
    the head of the tournament's hash chain is printed, to be kept as its anchor; each
    problem is one line naming the scheduled match, and the command exits 1."""
    from levata.server.match.store import Store
    from levata.server.tournament.audit import verify_tournament

    store = Store(db) if tdb.has_matches() else None
    try:
        audit = verify_tournament(tdb, tid, store)
    finally:
        if store is not None:
            store.close()
    if audit.ok:
        out.print(audit.summary(), markup=False, soft_wrap=True)
        return
    for line in audit.problems:
        err.print(f"records: {line}", markup=False)
    err.print(f"error: tournament {tid}: {audit.summary()}", markup=False)
    raise typer.Exit(EXIT_RUNTIME)


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
        self.task: TaskID | None = None

    def __enter__(self) -> _RichProgress:
        self.bar.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.bar.__exit__(exc_type, exc, tb)

    def start(self, total: int, done: int) -> None:
        self.task = self.bar.add_task("matches", total=total, completed=done)

    def advance(self, row: dict, result: dict) -> None:
        if self.task is not None:
            self.bar.advance(self.task)

    def note(self, line: str) -> None:
        self.bar.console.print(line, markup=False, soft_wrap=True)
