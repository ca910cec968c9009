"""``levata serve --workers N``: N referee processes behind one port (the front's, in
:mod:`levata.server.match.front`), so that one host uses all its cores.

The front starts each worker as ``python -m levata.server.cli.worker``, with its settings
(the admin token among them: never on a command line) as one JSON line on its stdin, which
stays open: a worker whose front is gone stops. A worker serves on a Unix socket in an
owner-only folder, says ``ready`` on its stdout once it listens, and takes up at start-up the
unfinished matches that are its own (:func:`~levata.server.match.front.owner`): each
unfinished match is resumed once, by one worker. A worker that dies is started again (its
matches resume from their records and their bots' streams are ended, so that they resume
too); one that dies three times within a minute is left stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from levata.server.cli.common import db_location, err, fail, out

#: Restarts of one worker allowed within :data:`RESTART_WINDOW_S` before it is left stopped.
RESTARTS = 3
RESTART_WINDOW_S = 60.0
#: Seconds a worker has to say ``ready``.
START_S = 120.0


@dataclass
class WorkerSettings:
    """What one worker is told at start (as JSON on its stdin)."""

    db: str
    socket: str
    index: int
    workers: int
    admin_token: str
    tokens_file: str | None
    move_ms: int
    bank_ms: int
    hello_timeout: float
    outbox_bytes: int
    log_level: str = "info"  # levata serve's --log-level and --log-format, for its log lines
    log_format: str = "text"


# -- the front's side ------------------------------------------------------------------------


@dataclass
class _Child:
    index: int
    proc: asyncio.subprocess.Process
    starts: list[float]  # when it was started, lately (a worker that keeps dying is left)


class Workers:
    """The worker processes of one front: started, watched, started again, stopped."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.settings = settings
        self.folder = Path(tempfile.mkdtemp(prefix="levata-workers-"))  # 0700: owner only
        self.children: dict[int, _Child] = {}
        self.stopping = asyncio.Event()
        self._relays: set[asyncio.Task[None]] = set()

    async def start(self, k: int, starts: list[float]) -> Any:
        """Start worker ``k``; its link once it says ``ready``. What it prints before (the
        matches it took up) is printed here."""
        import grpc

        from levata.server.match.app import MAX_MESSAGE_BYTES
        from levata.server.match.front import WorkerLink

        path = self.folder / f"w{k}.sock"
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a dead worker's
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "levata.server.cli.worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        self.children[k] = _Child(k, proc, [*starts, time.monotonic()])
        assert proc.stdin is not None and proc.stdout is not None
        mine = replace(self.settings, index=k, socket=str(path))
        proc.stdin.write(json.dumps(asdict(mine)).encode() + b"\n")  # stdin stays open
        await proc.stdin.drain()
        while (line := await asyncio.wait_for(proc.stdout.readline(), START_S)).strip() != b"ready":
            if not line:
                raise RuntimeError(f"referee worker {k} did not start (status {await proc.wait()})")
            out.print(line.decode(errors="replace").rstrip(), markup=False, soft_wrap=True)
        relay = asyncio.create_task(_relay(proc.stdout))
        self._relays.add(relay)
        relay.add_done_callback(self._relays.discard)
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            # A subchannel of this channel's own: gRPC shares one per address across channels,
            # and a restarted worker's socket has the dead one's address. Its connection in
            # backoff failed the new channel's first calls at once (UNAVAILABLE): the port's
            # health watch of the worker, and the bots' streams to it, were never opened.
            ("grpc.use_local_subchannel_pool", 1),
        ]
        return WorkerLink(k, grpc.aio.insecure_channel(f"unix:{path}", options=options))

    async def watch(self, k: int, front: Any, health_of: Health) -> None:
        """Start worker ``k`` again whenever it dies, unless it keeps dying."""
        while not self.stopping.is_set():
            child = self.children[k]
            status = await child.proc.wait()
            if self.stopping.is_set():
                return
            front.worker_lost(k)
            await health_of.tell()
            recent = [t for t in child.starts if time.monotonic() - t < RESTART_WINDOW_S]
            if len(recent) >= RESTARTS:
                err.print(
                    f"error: referee worker {k} exited (status {status}) {RESTARTS} times within"
                    f" {RESTART_WINDOW_S:g} s: left stopped; its unfinished matches wait for the"
                    " next start",
                    markup=False,
                )
                return
            err.print(
                f"referee worker {k} exited (status {status}): starting it again; its matches"
                " resume from their records",
                markup=False,
            )
            try:
                link = await self.start(k, recent)
            except (RuntimeError, TimeoutError) as exc:
                err.print(f"error: {exc}", markup=False)
                continue
            await front.worker_back(link)
            health_of.follow(link)

    async def stop(self) -> None:
        """Each worker stops in order (its running matches recorded for the next start)."""
        for child in self.children.values():
            with contextlib.suppress(ProcessLookupError):
                child.proc.send_signal(signal.SIGTERM)
        for child in self.children.values():
            try:
                await asyncio.wait_for(child.proc.wait(), 15)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    child.proc.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


async def run_front(
    settings: WorkerSettings,
    host: str,
    port: int,
    tls: tuple[Path, Path] | None,
    entrant_socket: Path | None,
    token_line: str,
    limits: Any,
    web: Callable[[int], Awaitable[Any]] | None = None,
) -> None:
    """Start ``settings.workers`` workers and the front; serve until SIGTERM or Ctrl-C.
    ``web``: starts the web table given the front's port (it watches matches through the
    front as any spectator client would), and returns what stops it."""
    import grpc

    from levata.server.match.front import Front

    workers = Workers(settings)
    try:
        links = await asyncio.gather(*(workers.start(k, []) for k in range(settings.workers)))
    except (RuntimeError, TimeoutError) as exc:
        await workers.stop()
        raise fail(str(exc)) from None
    front = Front(list(links), settings.admin_token, limits)
    try:
        server, bound, health_of = await _listen(front, host, port, tls, limits)
    except BaseException:
        await workers.stop()
        raise
    entrants = await _entrants(front, entrant_socket) if entrant_socket else None
    out.print(
        f"levata referee serving on {host}:{bound} (records in {db_location(settings.db)};"
        f" {settings.workers} referee workers)",
        soft_wrap=True,
    )
    out.print(token_line, soft_wrap=True)
    site = await web(bound) if web is not None else None
    watchers = [
        asyncio.create_task(workers.watch(k, front, health_of)) for k in range(settings.workers)
    ]
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, workers.stopping.set)
    try:
        await workers.stopping.wait()
    finally:
        workers.stopping.set()
        front.stopping = True
        if site is not None:
            await site.stop()
        for w in watchers:
            w.cancel()
        for link in list(front.links):
            link.end(grpc.StatusCode.UNAVAILABLE, "the referee is stopping; reconnect")
        await asyncio.sleep(0.2)  # the streams' ends reach the bots
        if entrants is not None:
            await entrants.stop(1)
        await server.stop(1)
        await health_of.stop()
        await workers.stop()


class Health:
    """The port's health: SERVING while every worker is up and says SERVING (each says
    NOT_SERVING while it cannot write the records), NOT_SERVING otherwise, so that a load
    balancer or an operator sees a worker down or its records stuck."""

    def __init__(self, front: Any, servicer: Any, names: tuple[str, ...]) -> None:
        self.front, self.servicer, self.names = front, servicer, names
        self.serving: dict[int, bool] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def follow(self, link: Any) -> None:
        """Watch worker ``link``'s own health until its channel closes."""
        task = asyncio.create_task(self._watch(link))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _watch(self, link: Any) -> None:
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        stub = health_pb2_grpc.HealthStub(link.channel)
        with contextlib.suppress(grpc.RpcError, asyncio.CancelledError):
            async for got in stub.Watch(health_pb2.HealthCheckRequest(service="")):
                self.serving[link.index] = got.status == health_pb2.HealthCheckResponse.SERVING
                await self.tell()
        if self.front.workers[link.index] is link:  # not a restarted worker's old channel
            self.serving[link.index] = False
            await self.tell()

    async def stop(self) -> None:
        """Stop watching the workers, before they stop: each watch then ends as this side's
        cancel, not under a worker's shutdown (which gRPC logs as an unhandled error)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def tell(self) -> None:
        from grpc_health.v1 import health_pb2

        up = all(w.alive and self.serving.get(w.index, True) for w in self.front.workers)
        status = health_pb2.HealthCheckResponse.SERVING if up else None
        for name in self.names:
            await self.servicer.set(name, status or health_pb2.HealthCheckResponse.NOT_SERVING)


async def _listen(
    front: Any, host: str, port: int, tls: tuple[Path, Path] | None, limits: Any
) -> tuple[Any, int, Health]:
    """The public port: the front's services, health and reflection, as a referee's."""
    import grpc
    from grpc_health.v1 import health, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection

    from levata.server.match.app import MAX_MESSAGE_BYTES

    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
            ("grpc.max_allowed_incoming_connections", limits.connections_total),
            ("grpc.max_connection_idle_ms", limits.idle_connection_ms),
        ]
    )
    server.add_generic_rpc_handlers(front.handlers())
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = ("levata.v1.ArenaService", "levata.v1.AdminService", health.SERVICE_NAME)
    reflection.enable_server_reflection((*names, reflection.SERVICE_NAME), server)
    address = f"{host}:{port}"
    try:
        if tls is not None:
            creds = grpc.ssl_server_credentials([(tls[1].read_bytes(), tls[0].read_bytes())])
            bound = server.add_secure_port(address, creds)
        else:
            bound = server.add_insecure_port(address)
    except RuntimeError:
        raise fail(f"cannot listen on {address}: the port is taken or not allowed") from None
    await server.start()
    health_of = Health(front, health_servicer, (*names[:2], ""))
    for link in front.workers:
        health_of.follow(link)
    await health_of.tell()
    return server, bound, health_of


async def _entrants(front: Any, path: Path) -> Any:
    """``--entrant-socket``: the arena alone, on a Unix socket anyone may reach (as a
    referee's: :func:`levata.server.match.app.start_entrant_server`)."""
    import grpc

    server = grpc.aio.server()
    server.add_generic_rpc_handlers(front.handlers(admin=False))
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    server.add_insecure_port(f"unix:{path}")
    await server.start()
    os.chmod(path, 0o666)
    out.print(f"bots only (no admin service) on unix:{path}", soft_wrap=True)
    return server


async def _relay(stream: asyncio.StreamReader) -> None:
    """A worker's later lines, on the front's stdout."""
    while line := await stream.readline():
        out.print(line.decode(errors="replace").rstrip(), markup=False, soft_wrap=True)
