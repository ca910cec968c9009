"""One refereed match end to end: a referee, a process per bot, the result.

Used by ``levata match``. Without ``server`` it starts a referee in this process on a free
loopback port; either way every bot runs as its own process (``python -m levata.bots run``)
and connects over gRPC with a token issued for its seat.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import grpc

from levata.bots.wire import event_from_pb
from levata.engine.seeds import derive
from levata.server.match.auth import ADMIN_TOKEN_ENV, TOKEN_ENV, admin_metadata
from levata.server.match.narrate import narrate
from levata.server.match.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

__all__ = ["MatchOutcome", "bot_command", "run_refereed_match"]


@dataclass
class MatchOutcome:
    info: admin_pb2.MatchInfo
    logs: Path


def bot_command(kind: str, game: str, server: str, seed: int) -> list[str]:
    """The command line of one bot process (its token goes in its environment)."""
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


async def run_refereed_match(
    game: str,
    players: int,
    kinds: list[str],
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
    procs: list[subprocess.Popen[bytes]] = []
    try:
        async with grpc.aio.insecure_channel(server) as channel:
            admin = admin_pb2_grpc.AdminServiceStub(channel)
            try:
                names = []
                for seat, kind in enumerate(kinds):
                    reg = await admin.RegisterBot(  # rotate: a rerun reuses the name
                        admin_pb2.RegisterBotRequest(name=f"{kind}-{seat}-{seed}", rotate=True),
                        metadata=metadata,
                        timeout=10,
                    )
                    names.append(reg.name)
                    log = (logs / f"seat{seat}-{kind}.log").open("wb")
                    procs.append(
                        subprocess.Popen(
                            bot_command(kind, game, server, derive(seed, "bot", seat)),
                            stdout=subprocess.DEVNULL,
                            stderr=log,
                            env={**os.environ, TOKEN_ENV: reg.token},
                        )
                    )
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
        for p in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=10)
        return MatchOutcome(info, logs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if own_server is not None and arena is not None:
            await arena.close()
            await own_server.stop(None)


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
