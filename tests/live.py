"""Test helpers: a real referee on loopback, real bot processes, and a raw protocol client.

Nothing here is a mock: the server is the production ``start_server`` on a free port (run on
its own event loop in a thread so tests stay synchronous), bots are ``python -m levata.bots``
processes, and :class:`RawBot` speaks the wire protocol by hand to misbehave on purpose.
"""

from __future__ import annotations

import asyncio
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc

from levata.server.match.app import start_server
from levata.server.match.clocks import Policy
from levata.server.match.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

#: Short games for refereed tests: a couple of Whist deals, capped random speed games.
QUICK_OPTIONS: dict[str, dict[str, str]] = {
    "whist": {"deal_size": "2"},
    "macao": {"action_cap": "300"},
    "repezita": {"tick_cap": "60", "time_cap_ms": "6000"},
}


class AdminAuth(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds ``authorization: Bearer TOKEN`` to every call, as an operator's client does."""

    def __init__(self, token: str) -> None:
        self.token = token

    def _with_token(self, details: Any) -> Any:
        metadata = [*(details.metadata or ()), ("authorization", f"Bearer {self.token}")]
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation, client_call_details, request):
        return continuation(self._with_token(client_call_details), request)

    def intercept_unary_stream(self, continuation, client_call_details, request):
        return continuation(self._with_token(client_call_details), request)


class AdminCalls:
    """The admin calls the tests make, through ``self.admin`` (an AdminService stub)."""

    admin: admin_pb2_grpc.AdminServiceStub

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


class LiveServer(AdminCalls):
    """A referee serving on 127.0.0.1 in a background thread."""

    def __init__(
        self, db: Path, policy: Policy | None = None, port: int = 0, **kwargs: Any
    ) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.store = Store(db)
        self.server, self.arena = self.run(
            start_server(self.store, port=port, policy=policy, **kwargs)
        )
        self.address = f"127.0.0.1:{self.arena.port}"
        self.tokens: dict[str, str] = {}  # bot name -> token, as issued here
        self.admin_token = self.arena.admin_token
        self.channel = grpc.intercept_channel(
            grpc.insecure_channel(self.address), AdminAuth(self.admin_token)
        )
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)

    def run(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def add_bot(self, name: str) -> str:
        """Register ``name`` (as RegisterBot does) and return its token."""

        async def add() -> str:
            return self.arena.add_bot(name)

        self.tokens[name] = self.run(add())
        return self.tokens[name]

    def applied(self, match_id: str) -> int:
        return len(self.store.actions(match_id))

    def stop(self, resumable: bool = False) -> None:
        """Stop serving; ``resumable``: as ``levata serve`` stops, its matches left to the next
        referee on the same file."""
        self.channel.close()
        self.run(self.arena.close(resumable=resumable))
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
        "--seed",
        str(seed),
        "--matches",
        str(matches),
        "--quiet",
    ]
    return subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb") if log else subprocess.DEVNULL,
        env=bot_env(token),
    )


def bot_env(token: str) -> dict[str, str]:
    """The environment of a bot process: ours, plus its token (never on the command line)."""
    return {**os.environ, "LEVATA_TOKEN": token}


class RawBot:
    """A hand-driven protocol client: send what you like, read what comes back."""

    def __init__(
        self,
        server: LiveServer | str,
        token: str,
        resume_token: str = "",
        last_seen: dict[str, int] | None = None,
        channel_options: list[tuple[str, Any]] | None = None,
        batch_events: bool = False,
        bundle: bool = False,
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
                    batch_events=batch_events,
                    bundle=bundle,
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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess(AdminCalls):
    """``levata serve`` as a process of its own on a free loopback port, with an admin client.

    The admin token is the one ``serve`` writes beside its database; nothing secret is on a
    command line. ``prefix`` runs the server under another program (``prlimit`` ...)."""

    def __init__(
        self,
        tmp: Path,
        *args: str,
        prefix: tuple[str, ...] = (),
        db: Path | None = None,
        port: int = 0,
        token_file: Path | None = None,
        wait_serving: bool = True,
    ) -> None:
        self.db = db or tmp / "serve.db"
        self.token_file = token_file or self.db.with_name(self.db.name + ".admin-token")
        # A free port is free only until someone takes it (tests run in parallel): when the
        # referee cannot bind the port picked for it, pick another.
        for attempt in range(5):
            self.port = port or _free_port()
            self.log = tmp / f"serve-{self.port}-{time.monotonic_ns()}.log"
            cmd = [*prefix, sys.executable, "-m", "levata.server.cli", "serve"]
            cmd += ["--port", str(self.port), "--db", str(self.db), *args]
            if token_file is not None:
                cmd += ["--admin-token-file", str(token_file)]
            self.proc = subprocess.Popen(cmd, stdout=self.log.open("wb"), stderr=subprocess.STDOUT)
            self.address = f"127.0.0.1:{self.port}"
            end = time.monotonic() + 60
            while not (self._serving() if wait_serving else self.health() is not None):
                if self.proc.poll() is not None or time.monotonic() > end:
                    break
                time.sleep(0.1)
            else:
                break
            output = self.log.read_text()
            if port or attempt == 4 or "port" not in output.lower():
                raise RuntimeError(f"levata serve did not start: {output}")
        self.admin_token = self.token_file.read_text().strip()
        self.channel = grpc.intercept_channel(
            grpc.insecure_channel(self.address), AdminAuth(self.admin_token)
        )
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)

    def _serving(self) -> bool:
        from grpc_health.v1 import health_pb2

        return self.health() == health_pb2.HealthCheckResponse.SERVING

    def health(self) -> int | None:
        """The health status the referee reports, ``None`` while it does not answer (or
        has not written its admin token yet)."""
        if not self.token_file.exists() or not self.token_file.read_text().strip():
            return None
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        with grpc.insecure_channel(f"127.0.0.1:{self.port}") as ch:
            try:
                return (
                    health_pb2_grpc.HealthStub(ch)
                    .Check(health_pb2.HealthCheckRequest(), timeout=2)
                    .status
                )
            except grpc.RpcError:
                return None

    def output(self) -> str:
        """What the referee printed so far."""
        return self.log.read_text(errors="replace")

    def register(self, name: str, rotate: bool = False) -> str:
        req = admin_pb2.RegisterBotRequest(name=name, rotate=rotate)
        return self.admin.RegisterBot(req, timeout=10).token

    def retrying(self, call: Any, timeout: float = 60) -> Any:
        """``call()``, retried while the referee refuses connections (UNAVAILABLE)."""
        end = time.monotonic() + timeout
        while True:
            try:
                return call()
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > end:
                    raise
                time.sleep(0.2)

    def register_retrying(self, name: str) -> str:
        return self.retrying(lambda: self.register(name))

    def create_retrying(self, game: str, seat_bots: list[str], **kw: Any) -> str:
        return self.retrying(lambda: self.create(game, seat_bots, **kw))

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def open_files(self) -> int:
        return len(list(Path(f"/proc/{self.proc.pid}/fd").iterdir()))

    def stop(self) -> None:
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
