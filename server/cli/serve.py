"""``levata serve``: run a referee until interrupted."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from levata.engine import BadConfig
from levata.server.cli.common import (
    ADOPT_DB_OPTION,
    DB_OPTION,
    adopt_db,
    err,
    fail,
    out,
)
from levata.server.database import folder_problem
from levata.server.match.auth import admin_token_file_for
from levata.server.match.log import LogFormat, LogLevel
from levata.server.match.log import configure as configure_logging
from levata.server.match.store import DEFAULT_DB, Store

if TYPE_CHECKING:  # imported when serving: the command line starts faster without
    from levata.server.match.arena import Arena


def serve(  # noqa: PLR0915  (one command: its checks, in order, then serving)
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).", min=0, max=65535)] = 50051,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    adopt: Annotated[bool, ADOPT_DB_OPTION] = False,
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
    move_ms: Annotated[int, typer.Option(help="Default time per decision, ms.", min=1)] = 2000,
    bank_ms: Annotated[int, typer.Option(help="Default time bank per match, ms.", min=0)] = 20000,
    tls_cert: Annotated[Path | None, typer.Option(help="TLS certificate (PEM).")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="TLS private key (PEM).")] = None,
    hello_timeout: Annotated[
        float, typer.Option(help="Seconds a new stream has to say Hello.", min=0.1, max=600)
    ] = 10.0,
    outbox_mb: Annotated[
        float,
        typer.Option(
            help="Megabytes that may wait unsent for one bot stream (or 32,768 messages):"
            " past either, a bot that does not read its stream is disconnected"
            " (RESOURCE_EXHAUSTED) instead of buffered.",
            min=0.01,
            max=1024,
        ),
    ] = 16.0,
    entrant_socket: Annotated[
        Path | None,
        typer.Option(
            help="Also serve bots on this Unix socket: ArenaService only, no admin service (a"
            " tournament's sandboxed bots reach it without network: its --entrant-socket)."
        ),
    ] = None,
    web: Annotated[
        int | None,
        typer.Option(
            "--web",
            help="Also serve the web table on this port (same --host): live matches as a"
            " spectator sees them, replays, tournaments (docs/web.md).",
            min=0,
            max=65535,
        ),
    ] = None,
    web_public: Annotated[
        bool,
        typer.Option(
            help="With --web: finished records are public (any seat's view, the whole table)."
        ),
    ] = False,
    log_level: Annotated[
        LogLevel,
        typer.Option(
            metavar="LEVEL",
            help="debug, info, warning or error: log connections, matches (created,"
            " started, ended), strikes, forfeits and suspensions from this level up, on"
            " standard error (info: all of them; warning: suspensions and problems).",
        ),
    ] = LogLevel.info,
    log_format: Annotated[
        LogFormat,
        typer.Option(
            metavar="|".join(LogFormat),
            help="text: a line a person reads; json: one JSON object per line (docs/operating.md).",
        ),
    ] = LogFormat.text,
    workers: Annotated[
        int,
        typer.Option(
            help="Referee processes behind the port, sharing the --db records, so that one"
            " host uses its cores (docs/scale-out.md). Above 1, a front process on the port"
            " routes each reply and admin call to its match's worker, at a CPU cost per"
            " decision about half a referee's, so it caps a host at some 7,000 decisions/s;"
            " a worker that dies is started again.",
            min=1,
            max=256,
        ),
    ] = 1,
) -> None:
    """Run the referee until interrupted.

    The admin service always needs the admin token (metadata ``authorization: Bearer
    TOKEN``): it is read from --admin-token-file, or made and written there, readable by its
    owner only; the path is printed at start-up. Admin clients such as ``levata match
    --server`` read it from $LEVATA_ADMIN_TOKEN or their own --admin-token-file."""
    from levata.server.match.app import start_entrant_server, start_server
    from levata.server.match.auth import load_or_create_admin_token, read_tokens_file
    from levata.server.match.clocks import Policy
    from levata.server.match.limits import Limits, raise_open_file_limit

    check_tls(tls_cert, tls_key)
    adopt_db(db, adopt)
    for taken in (port, web):  # the referee's port, and the web table's if any
        check_port(host, taken)
    missing = folder_problem(db)
    if missing:  # before the admin token is written beside it
        raise fail(f"cannot open the database {db}: {missing}")
    token_path = admin_token_file or admin_token_file_for(db)
    try:
        pairs = read_tokens_file(tokens_file) if tokens_file else {}
        admin_token, created = load_or_create_admin_token(token_path)
    except BadConfig as exc:
        raise fail(str(exc)) from None
    raise_open_file_limit()  # connections are capped below it (levata.server.match.limits)
    if entrant_socket and (len(str(entrant_socket)) > 100 or not entrant_socket.parent.is_dir()):
        raise fail(f"--entrant-socket {entrant_socket}: needs an existing folder, a short path")

    store = open_writable(db)
    configure_logging(log_level.value, log_format.value)
    if workers > 1:  # a front and its referee workers (levata.server.cli.workers)
        return _serve_workers(
            workers, store, host, port, tls_cert, tls_key, entrant_socket, tokens_file,
            admin_token, f"admin token {'written to' if created else 'read from'} {token_path}"
            " (owner-only)", move_ms, bank_ms, hello_timeout, int(outbox_mb * 2**20),
            log_level.value, log_format.value, web, web_public,
        )  # fmt: skip

    async def main_loop() -> None:
        server, arena = await start_server(
            store,
            host,
            port,
            Policy(move_ms=move_ms, bank_ms=bank_ms),
            admin_token,
            tls_cert,
            tls_key,
            limits=Limits.for_open_files(
                hello_timeout_s=hello_timeout, outbox_bytes=int(outbox_mb * 2**20)
            ),
        )
        for name, secret in pairs.items():
            arena.add_bot(name, secret, rotate=True)  # the file is the operator's word
        entrants = None
        if entrant_socket is not None:
            entrants = await start_entrant_server(arena, entrant_socket)
            out.print(f"bots only (no admin service) on unix:{entrant_socket}", soft_wrap=True)
        # Everything loaded so far lives as long as the referee: out of the collector's
        # sight; and fewer collections of the young objects each decision makes (a match
        # makes few reference cycles), a few percent of the referee's time otherwise.
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        out.print(f"levata referee serving on {host}:{arena.port} (records in {db})")
        verb = "written to" if created else "read from"
        out.print(f"admin token {verb} {token_path} (owner-only)", soft_wrap=True)
        say_recovered(arena.recovered)
        site = await _start_web(
            str(arena.store.path), arena.port, arena.admin_token, host, web, web_public, tls_cert
        )
        stopping = asyncio.Event()  # SIGTERM and Ctrl-C: the same orderly stop
        for sig in (signal.SIGTERM, signal.SIGINT):
            asyncio.get_running_loop().add_signal_handler(sig, stopping.set)
        try:
            await stopping.wait()
        finally:
            await _shut_down(arena, server, entrants, site)

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C before the loop took the signal
        try:
            asyncio.run(main_loop())
        except BadConfig as exc:  # the port cannot be had
            store.close()
            raise fail(str(exc)) from None
    out.print("stopped")


def _serve_workers(
    workers: int,
    store: Store,
    host: str,
    port: int,
    tls_cert: Path | None,
    tls_key: Path | None,
    entrant_socket: Path | None,
    tokens_file: Path | None,
    admin_token: str,
    token_line: str,
    move_ms: int,
    bank_ms: int,
    hello_timeout: float,
    outbox_bytes: int,
    log_level: str,
    log_format: str,
    web: int | None,
    web_public: bool,
) -> None:
    """``levata serve --workers N`` (N > 1): :mod:`levata.server.cli.workers`. The
    records were made and migrated by ``store``, once, before any worker opens them."""
    db = store.path
    store.close()
    from levata.server.cli.workers import WorkerSettings, run_front
    from levata.server.match.limits import Limits

    settings = WorkerSettings(
        db, "", 0, workers, admin_token, str(tokens_file) if tokens_file else None,
        move_ms, bank_ms, hello_timeout, outbox_bytes, log_level, log_format,
    )  # fmt: skip
    limits = Limits.for_open_files(hello_timeout_s=hello_timeout, outbox_bytes=outbox_bytes)
    tls = (tls_cert, tls_key) if tls_cert and tls_key else None
    web_table = None
    if web is not None:  # the web table watches through the front, as any spectator would

        async def web_table(bound: int) -> Any:
            return await _start_web(str(db), bound, admin_token, host, web, web_public, tls_cert)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            run_front(settings, host, port, tls, entrant_socket, token_line, limits, web_table)
        )
    out.print("stopped")


async def _start_web(
    db: str,
    referee_port: int,
    admin_token: str,
    host: str,
    port: int | None,
    public: bool,
    tls_cert: Path | None,
) -> Any:
    """The web table beside the referee on ``referee_port`` (``levata serve --web``), a
    process of its own (:mod:`levata.server.web.beside`), or ``None`` without one."""
    if port is None:
        return None
    from levata.server.web.beside import Settings, WebProcess, referee_address

    settings = Settings(
        db=db,
        host=host,
        port=port,
        referee=referee_address(host, referee_port, tls=tls_cert is not None),
        admin_token=admin_token,
        public=public,
        tls_ca=str(tls_cert) if tls_cert else None,
    )
    try:
        site = await WebProcess.start(settings)
    except RuntimeError as exc:
        err.print(f"the web table did not start: {exc}", markup=False, soft_wrap=True)
        return None
    out.print(f"web table on http://{host}:{site.port}/ (docs/web.md)", soft_wrap=True)
    return site


def check_port(host: str, port: int | None) -> None:
    """Fail in one line (status 2) when ``host:port`` cannot be listened on, before gRPC
    tries (and logs its own lines about it): another referee has it, most likely."""
    import socket

    if not port:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise fail(
                f"cannot listen on {host}:{port}: {exc.strerror} (another referee there?)"
            ) from None


def check_tls(cert: Path | None, key: Path | None) -> None:
    """Both TLS files or neither, each readable: a referee never falls back to plaintext
    because one of them is missing."""
    if (cert is None) != (key is None):
        raise fail("--tls-cert and --tls-key go together (TLS needs both)")
    for what, path in (("certificate", cert), ("key", key)):
        if path is None:
            continue
        try:
            text = path.read_bytes()
        except OSError as exc:
            raise fail(f"cannot read the TLS {what} {path}: {exc.strerror}") from None
        if b"-----BEGIN " not in text:
            raise fail(f"the TLS {what} {path} is not PEM (no -----BEGIN line)")


def open_writable(db: Path) -> Store:
    """The referee's records, or one clear line (exit 2) when the file cannot be opened or
    written at all: a referee that could not record a single move must not start."""
    import sqlite3

    from levata.server.database import DatabaseError
    from levata.server.match.store import StoreUnavailable

    try:
        store = Store(db)
        store.check_writable()  # a write transaction: read-only, locked, full, I/O error
    except DatabaseError as exc:
        if exc.newer:
            raise  # its own line, status 1
        raise fail(f"cannot open the records at {db} for writing: {exc}") from None
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


async def _shut_down(arena: Arena, server: Any, entrants: Any, site: Any = None) -> None:
    """The orderly stop: the streams end, and the matches still running are left to the next
    start on this file (``arena``'s, ``server`` and the entrants' ``entrants`` if any; the
    web table ``site`` first, if any)."""
    if site is not None:
        await site.stop()
    left = sum(r.status == "running" for r in arena.matches.values())
    await arena.close(resumable=True)  # the next start on this file takes them up
    await asyncio.sleep(0.2)  # the streams' ends reach the bots
    if entrants is not None:
        await entrants.stop(1)
    await server.stop(1)
    arena.store.close()
    if left:
        out.print(f"{left} unfinished match(es) recorded: the next start resumes them")
