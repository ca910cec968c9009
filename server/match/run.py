"""One refereed match end to end: a referee, a process per bot, the result.

Used by ``levata match``. Without ``server`` it starts a referee in this process on a free
loopback port; either way every bot runs as its own process (``python -m levata.bots run``
for a reference entry, or what its :class:`Seat` starts) and connects over gRPC with a token
issued for its seat; a seat may instead name a bot already connected to the referee.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

from levata.engine.seeds import derive
from levata.server.match.auth import ADMIN_TOKEN_ENV, TOKEN_ENV, admin_metadata, bot_name_for
from levata.server.match.narrate import narrate
from levata.server.match.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2
from levata.wire.codec import event_from_pb
from levata.wire.credentials import TLS_CA_ENV

if TYPE_CHECKING:
    from levata.server.match.referee import Referee

__all__ = [
    "MatchFailed",
    "MatchOutcome",
    "Seat",
    "bot_command",
    "ended_early",
    "run_refereed_match",
]

#: What a referee answers when the request was at fault (a wrong admin token, an unknown bot or
#: game, a bad option), as against one it could not be reached or failed at run time.
_CALLER_FAULTS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.OUT_OF_RANGE,
    }
)


class MatchFailed(RuntimeError):
    """A match that could not be played, said in one line; ``caller_fault``: the request was
    at fault (a missing admin token, one the referee refused, a bad argument), not the
    referee or the machine (one it could not reach, a bot that could not start)."""

    def __init__(self, message: str, caller_fault: bool = False) -> None:
        super().__init__(message)
        self.caller_fault = caller_fault


#: Starts one seat's bot process: ``(server, token, seed, log) -> process``.
Launcher = Callable[[str, str, int, Path], subprocess.Popen[bytes]]


@dataclass
class Seat:
    """Who plays a seat: a bot entry (``KIND[:key=value...]`` or ``module:Class``) run as
    ``levata bot run``, a process ``start`` launches, or ``connected``, the name of a bot
    already connected to the referee (nothing is launched)."""

    name: str
    start: Launcher | None = None
    connected: str | None = None
    #: Its process plays on after the match (a submitted bot): stopped at the match's end.
    lingers: bool = False


@dataclass
class MatchOutcome:
    info: admin_pb2.MatchInfo
    logs: Path
    #: Per seat, its bot's log (``None``: a connected bot, not ours).
    seat_logs: list[Path | None]
    #: Per seat, how its process ended before the match did: ``crashed, exit 1``, ``killed
    #: by signal 9`` (``None``: it played to the end, or is not ours).
    ended: list[str | None]


def ended_early(status: int) -> str | None:
    """How a bot process that ended before its match did is named (``None``: status 0).

    >>> ended_early(1), ended_early(-9), ended_early(0)
    ('crashed, exit 1', 'killed by signal 9', None)
    """
    if status == 0:
        return None
    return f"crashed, exit {status}" if status > 0 else f"killed by signal {-status}"


def bot_command(kind: str, game: str, server: str, seed: int) -> list[str]:
    """The command line of one bot process (its token goes in its environment, and the CA of
    a referee that speaks TLS too: :data:`~levata.wire.credentials.TLS_CA_ENV`); ``kind``
    is a bot entry, options and all."""
    return [
        sys.executable,
        "-m",
        "levata.bots",
        "run",
        kind,
        "--game",
        game,
        "--server",
        server,
        "--matches",
        "1",
        "--seed",
        str(seed),
        "--quiet",
    ]


async def run_refereed_match(  # noqa: PLR0913  (the options of `levata match`, by keyword)
    game: str,
    players: int,
    seats: list[Seat],
    seed: int,
    options: dict[str, str],
    server: str | None = None,
    admin_token: str | None = None,
    db: Path = Path("levata.db"),
    move_ms: int = 2000,
    narrate_to: Callable[[str], None] | None = None,
    timeout_s: float = 600,
    logs: Path | None = None,
    tls_ca: Path | None = None,
) -> MatchOutcome:
    """Play one match; raises :class:`MatchFailed` (a ``RuntimeError``) with a clear message
    when it cannot. The
    bots' logs go into the folder ``logs`` (made, owner-only; default: a new folder
    ``levata-logs/match-*`` beside ``db``). A bot process that ends before the match does
    forfeits its seat at once, recorded as what it was (``crashed, exit 1``), when the
    referee is this process's own. ``tls_ca``: ``server`` speaks TLS with a certificate this
    CA (PEM) signed; the admin calls trust it, and so does every bot process (its path in
    their environment, :data:`~levata.wire.credentials.TLS_CA_ENV`)."""
    own_server = None
    arena = None
    if server is None:
        from levata.server.match.app import start_server

        own_server, arena = await start_server(Store(db), "127.0.0.1", 0, resume=False)
        server = f"127.0.0.1:{arena.port}"
        admin_token = arena.admin_token
    if not admin_token:
        raise MatchFailed(
            f"the referee at {server} needs its admin token: set {ADMIN_TOKEN_ENV} or pass"
            " --admin-token-file (levata serve says where it wrote it)",
            caller_fault=True,
        )
    metadata = admin_metadata(admin_token)
    bots = _Bots(_logs_folder(logs, db), len(seats), tls_ca)
    try:
        async with _channel(server, tls_ca) as channel:
            admin = admin_pb2_grpc.AdminServiceStub(channel)
            try:
                names = await bots.start(admin, metadata, seats, game, server, seed)
                created = await admin.CreateMatch(
                    admin_pb2.CreateMatchRequest(
                        game=game,
                        players=players,
                        options=options,
                        seed=seed,
                        seat_bots=names,
                        policy=arena_pb2.MatchPolicy(move_ms=move_ms),
                        # the bots seed from it, not from the fresh match id: the same
                        # --seed plays the same match, bot choices included
                        label=f"seed {seed}",
                    ),
                    metadata=metadata,
                    timeout=10,
                )
                match_id = created.match.match_id
                guard = asyncio.create_task(
                    bots.watch(arena.referee(match_id) if arena is not None else None)
                )
                try:
                    info = await watch_match(admin, match_id, metadata, narrate_to, timeout_s, game)
                finally:
                    guard.cancel()
            except grpc.aio.AioRpcError as exc:
                raise MatchFailed(
                    f"referee at {server}: {exc.details()}", exc.code() in _CALLER_FAULTS
                ) from None
        bots.stop()
        return MatchOutcome(info, bots.logs, bots.seat_logs, bots.ended)
    finally:
        bots.kill()
        if own_server is not None and arena is not None:
            await arena.close()
            await own_server.stop(None)


def _channel(server: str, tls_ca: Path | None) -> grpc.aio.Channel:
    """The admin channel to ``server``: TLS trusting ``tls_ca`` where given."""
    if tls_ca is None:
        return grpc.aio.insecure_channel(server)
    return grpc.aio.secure_channel(server, grpc.ssl_channel_credentials(tls_ca.read_bytes()))


def _logs_folder(logs: Path | None, db: Path) -> Path:
    """The bots' log folder: ``logs``, or a new ``levata-logs/match-*`` beside ``db`` (kept:
    the log of a bot that failed is what its author reads next); owner-only."""
    if logs is None:
        parent = db.resolve().parent / "levata-logs"
        parent.mkdir(mode=0o700, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="match-", dir=parent))
    logs.mkdir(mode=0o700, parents=True, exist_ok=True)
    return logs


class _Bots:
    """The bot processes of one match, by seat: started, watched, stopped."""

    def __init__(self, logs: Path, seats: int, tls_ca: Path | None = None) -> None:
        self.logs = logs
        self.tls_ca = tls_ca  # the referee's CA, for the reference bots' processes
        self.procs: dict[int, tuple[subprocess.Popen[bytes], bool]] = {}
        self.seat_logs: list[Path | None] = [None] * seats
        self.ended: list[str | None] = [None] * seats

    async def start(
        self,
        admin: admin_pb2_grpc.AdminServiceStub,
        metadata: Any,
        seats: list[Seat],
        game: str,
        server: str,
        seed: int,
    ) -> list[str]:
        """Register and start each seat's bot (a connected one is only named); the bot
        names the match seats."""
        names = []
        for n, seat in enumerate(seats):
            if seat.connected is not None:
                names.append(seat.connected)
                continue
            reg = await admin.RegisterBot(  # rotate: a rerun reuses the name
                admin_pb2.RegisterBotRequest(
                    name=bot_name_for(f"{seat.name}-{n}-{seed}"), rotate=True
                ),
                metadata=metadata,
                timeout=10,
            )
            names.append(reg.name)
            log = self.seat_logs[n] = self.logs / f"seat{n}.log"
            start = seat.start or _entry_process(seat.name, game, self.tls_ca)
            try:
                self.procs[n] = (
                    start(server, reg.token, derive(seed, "bot", n), log),
                    seat.lingers,
                )
            except OSError as exc:
                raise RuntimeError(f"cannot start the bot of seat {n}: {exc}") from None
        return names

    async def watch(self, referee: Referee | None) -> None:
        """Note each process that ends with a failure while the match runs, and tell the
        referee (when it is ours) so that its seat forfeits as crashed, at once."""
        while True:
            for seat, (p, _) in self.procs.items():
                status = p.poll()
                if status is None or self.ended[seat] is not None:
                    continue
                why = ended_early(status)
                if why is not None:
                    self.ended[seat] = why
                    if referee is not None:
                        referee.lost(seat, why)
            await asyncio.sleep(0.1)

    def stop(self) -> None:
        """The match is over: stop the processes that play on (submitted bots), and wait
        for every one."""
        for p, lingers in self.procs.values():
            if lingers:
                _stop(p)
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=10)

    def kill(self) -> None:
        for p, _ in self.procs.values():
            if p.poll() is None:
                _stop(p, signal.SIGKILL)
                p.wait()


def _stop(p: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Signal a bot process, and its group when it leads one (a bridge and its program)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(p.pid) == p.pid:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)


def _entry_process(entry: str, game: str, tls_ca: Path | None = None) -> Launcher:
    """A reference entry's process: ``python -m levata.bots run ENTRY`` (trusting
    ``tls_ca`` where the referee speaks TLS)."""
    tls = {TLS_CA_ENV: str(tls_ca.resolve())} if tls_ca is not None else {}

    def start(server: str, token: str, seed: int, log: Path) -> subprocess.Popen[bytes]:
        with log.open("wb") as err:
            return subprocess.Popen(
                bot_command(entry, game, server, seed),
                stdout=subprocess.DEVNULL,
                stderr=err,
                env={**os.environ, TOKEN_ENV: token, **tls},
            )

    return start


async def watch_match(
    admin: admin_pb2_grpc.AdminServiceStub,
    match_id: str,
    metadata,
    narrate_to: Callable[[str], None] | None,
    timeout_s: float,
    game: str | None = None,
) -> admin_pb2.MatchInfo:
    """Follow the match's public events until it ends; returns its final summary. With
    ``narrate_to``, each event becomes a line (in ``game``'s words for its own kinds)."""
    stream = admin.WatchMatch(
        admin_pb2.WatchMatchRequest(match_id=match_id, after_seq=-1),
        metadata=metadata,
        timeout=timeout_s,
    )
    async for msg in stream:
        if msg.WhichOneof("message") == "finished":
            if msg.finished.status != admin_pb2.MATCH_STATUS_FINISHED:
                raise RuntimeError(f"match {match_id} was aborted")
            return msg.finished
        ev = event_from_pb(msg.event)
        if narrate_to is not None and ev.audience is None:
            narrate_to(narrate(ev, game))
    raise RuntimeError(f"the referee stopped reporting match {match_id}")
