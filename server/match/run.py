"""One refereed match end to end: a referee, a process per bot, the result.

Used by ``levata match``. Without ``server`` it starts a referee in this process on a free
loopback port; either way every bot runs as its own process (``python -m levata.bots run``
for a reference entry, or what its :class:`Seat` starts) and connects over gRPC with a token
issued for its seat; a seat may instead name a bot already connected to the referee.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import grpc

from levata.engine.seeds import derive
from levata.server.match.auth import ADMIN_TOKEN_ENV, TOKEN_ENV, admin_metadata, bot_name_for
from levata.server.match.narrate import narrate
from levata.server.match.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2
from levata.wire.codec import event_from_pb

__all__ = ["MatchOutcome", "Seat", "bot_command", "run_refereed_match"]

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


def bot_command(kind: str, game: str, server: str, seed: int) -> list[str]:
    """The command line of one bot process (its token goes in its environment); ``kind`` is
    a bot entry, options and all."""
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
) -> MatchOutcome:
    """Play one match; raises ``RuntimeError`` with a clear message when it cannot."""
    own_server = None
    arena = None
    if server is None:
        from levata.server.match.app import start_server

        own_server, arena = await start_server(Store(db), "127.0.0.1", 0, resume=False)
        server = f"127.0.0.1:{arena.port}"
        admin_token = arena.admin_token
    if not admin_token:
        raise RuntimeError(
            f"the referee at {server} needs its admin token: set {ADMIN_TOKEN_ENV} or pass"
            " --admin-token-file (levata serve says where it wrote it)"
        )
    metadata = admin_metadata(admin_token)
    logs = Path(tempfile.mkdtemp(prefix="levata-bots-"))
    procs: list[tuple[subprocess.Popen[bytes], bool]] = []
    try:
        async with grpc.aio.insecure_channel(server) as channel:
            admin = admin_pb2_grpc.AdminServiceStub(channel)
            try:
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
                    log = logs / f"seat{n}.log"
                    start = seat.start or _entry_process(seat.name, game)
                    try:
                        proc = start(server, reg.token, derive(seed, "bot", n), log)
                        procs.append((proc, seat.lingers))
                    except OSError as exc:
                        raise RuntimeError(f"cannot start the bot of seat {n}: {exc}") from None
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
                info = await watch_match(
                    admin, created.match.match_id, metadata, narrate_to, timeout_s, game
                )
            except grpc.aio.AioRpcError as exc:
                raise RuntimeError(f"referee at {server}: {exc.details()}") from None
        for p, lingers in procs:
            if lingers:
                _stop(p)
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=10)
        return MatchOutcome(info, logs)
    finally:
        for p, _ in procs:
            if p.poll() is None:
                _stop(p, signal.SIGKILL)
                p.wait()
        if own_server is not None and arena is not None:
            await arena.close()
            await own_server.stop(None)


def _stop(p: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Signal a bot process, and its group when it leads one (a bridge and its program)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(p.pid) == p.pid:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)


def _entry_process(entry: str, game: str) -> Launcher:
    """A reference entry's process: ``python -m levata.bots run ENTRY``."""

    def start(server: str, token: str, seed: int, log: Path) -> subprocess.Popen[bytes]:
        with log.open("wb") as err:
            return subprocess.Popen(
                bot_command(entry, game, server, seed),
                stdout=subprocess.DEVNULL,
                stderr=err,
                env={**os.environ, TOKEN_ENV: token},
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
