"""Test helpers: a real referee on loopback, real bot processes, and a raw protocol client.

Nothing here is a mock: the server is the production ``start_server`` on a free port (run on
its own event loop in a thread so tests stay synchronous), bots are ``python -m levata.bots``
processes, and :class:`RawBot` speaks the wire protocol by hand to misbehave on purpose.
"""

from __future__ import annotations

import asyncio
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc

from levata.server.app import start_server
from levata.server.referee import Policy
from levata.server.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

#: Short games for refereed tests: a couple of Whist deals, capped random speed games.
QUICK_OPTIONS: dict[str, dict[str, str]] = {
    "whist": {"deal_size": "2"},
    "macao": {"action_cap": "300"},
    "repezita": {"tick_cap": "60", "time_cap_ms": "6000"},
}


class LiveServer:
    """A referee serving on 127.0.0.1 in a background thread."""

    def __init__(self, db: Path, policy: Policy | None = None, **kwargs: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.store = Store(db)
        self.server, self.arena = self.run(
            start_server(self.store, port=0, policy=policy, **kwargs)
        )
        self.address = f"127.0.0.1:{self.arena.port}"
        self.channel = grpc.insecure_channel(self.address)
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)

    def run(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def add_bot(self, name: str) -> str:
        async def add() -> str:
            return self.arena.add_bot(name)

        return self.run(add())

    def create(
        self,
        game: str,
        seat_bots: list[str],
        seed: int = 1,
        options: dict[str, str] | None = None,
        **policy: int,
    ) -> str:
        req = admin_pb2.CreateMatchRequest(
            game=game,
            players=len(seat_bots),
            seat_bots=seat_bots,
            seed=seed,
            options=QUICK_OPTIONS.get(game, {}) if options is None else options,
            policy=arena_pb2.MatchPolicy(**policy),
        )
        return self.admin.CreateMatch(req, timeout=10).match.match_id

    def info(self, match_id: str) -> admin_pb2.MatchInfo:
        return self.admin.GetMatch(admin_pb2.GetMatchRequest(match_id=match_id), timeout=10).match

    def wait(self, match_id: str, timeout: float = 120) -> admin_pb2.MatchInfo:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            info = self.info(match_id)
            if info.status in (admin_pb2.MATCH_STATUS_FINISHED, admin_pb2.MATCH_STATUS_ABORTED):
                return info
            time.sleep(0.05)
        raise AssertionError(f"match {match_id} did not end in {timeout} s")

    def applied(self, match_id: str) -> int:
        return len(self.store.actions(match_id))

    def stop(self) -> None:
        self.channel.close()
        self.run(self.arena.close())
        self.run(self.server.stop(None))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def bot_process(
    kind: str,
    game: str,
    server: LiveServer,
    token: str,
    seed: int = 0,
    matches: int = 1,
    log: Path | None = None,
) -> subprocess.Popen[bytes]:
    """A real bot process connected to ``server``."""
    cmd = [
        sys.executable,
        "-m",
        "levata.bots",
        "run",
        kind,
        "--game",
        game,
        "--server",
        server.address,
        f"--token={token}",
        "--seed",
        str(seed),
        "--matches",
        str(matches),
        "--quiet",
    ]
    return subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=log.open("wb") if log else subprocess.DEVNULL
    )


class RawBot:
    """A hand-driven protocol client: send what you like, read what comes back."""

    def __init__(
        self,
        server: LiveServer | str,
        token: str,
        resume_token: str = "",
        last_seen: dict[str, int] | None = None,
        channel_options: list[tuple[str, Any]] | None = None,
    ) -> None:
        address = server.address if isinstance(server, LiveServer) else server
        self.channel = grpc.insecure_channel(address, options=channel_options or [])
        self.outgoing: queue.Queue[arena_pb2.PlayRequest | None] = queue.Queue()
        self.incoming: queue.Queue[Any] = queue.Queue()
        self.outgoing.put(
            arena_pb2.PlayRequest(
                hello=arena_pb2.Hello(
                    token=token,
                    protocol_version="1",
                    resume_token=resume_token,
                    last_seen=last_seen or {},
                )
            )
        )
        self.call = arena_pb2_grpc.ArenaServiceStub(self.channel).Play(self._requests())
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.seen: list[arena_pb2.PlayResponse] = []

    def _requests(self):
        while (msg := self.outgoing.get()) is not None:
            yield msg

    def _read(self) -> None:
        try:
            for msg in self.call:
                self.incoming.put(msg)
        except grpc.RpcError as exc:
            self.incoming.put(exc)
        self.incoming.put(None)

    def next(self, kind: str, timeout: float = 20) -> Any:
        """The next message of ``kind`` (others are kept in ``seen``); raises on stream end."""
        end = time.monotonic() + timeout
        while True:
            msg = self.incoming.get(timeout=max(end - time.monotonic(), 0.01))
            if msg is None or isinstance(msg, grpc.RpcError):
                raise ConnectionError(f"stream ended: {msg}")
            self.seen.append(msg)
            if msg.WhichOneof("message") == kind:
                return getattr(msg, kind)

    def error_code(self, timeout: float = 20) -> grpc.StatusCode:
        """The gRPC status the stream ended with."""
        end = time.monotonic() + timeout
        while True:
            msg = self.incoming.get(timeout=max(end - time.monotonic(), 0.01))
            if isinstance(msg, grpc.RpcError):
                return msg.code()
            if msg is None:
                return grpc.StatusCode.OK

    def reply(self, req: arena_pb2.DecisionRequest, index: int | None = 0, **fields: Any) -> None:
        msg = arena_pb2.ActionReply(
            match_id=req.match_id, request_id=req.request_id, state_version=req.state_version
        )
        if index is not None:
            msg.index = index
        for k, v in fields.items():
            if k == "action":
                msg.action.CopyFrom(v)
            else:
                setattr(msg, k, v)
        self.send(msg)

    def send(self, reply: arena_pb2.ActionReply) -> None:
        self.outgoing.put(arena_pb2.PlayRequest(reply=reply))

    def close(self) -> None:
        self.outgoing.put(None)
        self.call.cancel()
        self.channel.close()
