"""Assemble the gRPC server: arena, admin, health checking, reflection, limits, TLS.

>>> import asyncio, tempfile, os
>>> from levata.server.match.store import Store
>>> async def main():
...     server, arena = await start_server(Store(os.path.join(tempfile.mkdtemp(), "d.db")),
...                                        port=0)
...     await server.stop(None)
...     return arena.port > 0
>>> asyncio.run(main())
True
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from levata.engine import BadConfig
from levata.server.match.arena import AdminServicer, Arena, add_arena_to_server
from levata.server.match.auth import new_token
from levata.server.match.clocks import Policy
from levata.server.match.limits import Limits
from levata.server.match.store import RETRY_S, Store, StoreUnavailable
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

__all__ = ["MAX_MESSAGE_BYTES", "start_entrant_server", "start_server"]

#: Largest message either side may send; a bigger one is refused by gRPC itself.
MAX_MESSAGE_BYTES = 4 * 1024 * 1024


async def start_server(  # noqa: PLR0913  (a referee's settings, each a keyword with a default)
    store: Store,
    host: str = "127.0.0.1",
    port: int = 50051,
    policy: Policy | None = None,
    admin_token: str | None = None,
    tls_cert: Path | None = None,
    tls_key: Path | None = None,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
    limits: Limits | None = None,
    resume: bool = True,
    more: Callable[[Arena], tuple[grpc.GenericRpcHandler, ...]] | None = None,
) -> tuple[grpc.aio.Server, Arena]:
    """Start serving; returns the server and its arena (``arena.port`` is the bound port).

    The admin service is closed by default: without ``admin_token`` a fresh one is made;
    either way it is ``arena.admin_token``. ``limits`` default to what fits under this
    process's open-file limit (:meth:`Limits.for_open_files`). With ``resume`` the matches a
    previous referee left unfinished in ``store`` are taken up (``arena.recovered`` says
    how); a caller with its own plan for them (a tournament replays its own) passes False.
    A ``host`` of ``unix:PATH`` listens on that Unix socket instead (``port`` unused);
    ``more(arena)`` gives further services to serve (a referee worker's own:
    :mod:`levata.server.cli.workers`)."""
    limits = limits or Limits.for_open_files()
    options = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.so_reuseport", 0),
        # Below the open-file limit, so SQLite and the admin service keep descriptors; and a
        # connection that holds no call (a stream refused, or never opened) is let go.
        ("grpc.max_allowed_incoming_connections", limits.connections_total),
        ("grpc.max_connection_idle_ms", limits.idle_connection_ms),
    ]
    server = grpc.aio.server(options=options)
    arena = Arena(store, policy, limits)
    arena.admin_token = admin_token or new_token()
    add_arena_to_server(arena, server)
    admin_pb2_grpc.add_AdminServiceServicer_to_server(
        AdminServicer(arena, arena.admin_token), server
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (
        arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
        admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name,
        health.SERVICE_NAME,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)
    if more is not None:
        server.add_generic_rpc_handlers(more(arena))
    address = host if host.startswith("unix:") else f"{host}:{port}"
    try:
        if tls_cert and tls_key:
            creds = grpc.ssl_server_credentials([(tls_key.read_bytes(), tls_cert.read_bytes())])
            bound = server.add_secure_port(address, creds)
        else:
            bound = server.add_insecure_port(address)
    except RuntimeError:  # gRPC says only "Failed to bind"
        raise BadConfig(f"cannot listen on {address}: the port is taken or not allowed") from None
    arena.port = bound
    if resume:
        arena.recovered = arena.resume_unfinished()
    await server.start()
    await follow_store(store, health_servicer, (*names[:2], ""))
    return server, arena


async def follow_store(
    store: Store, health_servicer: health.aio.HealthServicer, names: tuple[str, ...]
) -> None:
    """Health says SERVING while the records can be written and NOT_SERVING while they
    cannot (disk full, read-only file): a load balancer or an operator sees it at once. While
    writes fail, the file is probed every :data:`~levata.server.match.store.RETRY_S` seconds, so
    health comes back even when no match is writing."""
    loop = asyncio.get_running_loop()
    probing: list[asyncio.Task[None]] = []

    async def tell(failure: str | None) -> None:
        status = health_pb2.HealthCheckResponse.NOT_SERVING if failure else None
        for name in names:
            await health_servicer.set(name, status or health_pb2.HealthCheckResponse.SERVING)
        if failure and not any(not t.done() for t in probing):
            probing[:] = [loop.create_task(probe())]

    async def probe() -> None:
        while store.failure is not None:
            await asyncio.sleep(RETRY_S)
            with contextlib.suppress(StoreUnavailable):
                store.flush(force=True)

    def listener(failure: str | None) -> None:
        loop.call_soon_threadsafe(lambda: loop.create_task(tell(failure)))

    store.listeners.append(listener)
    await tell(store.failure)


async def start_entrant_server(
    arena: Arena,
    socket_path: str | Path,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
    connections: int | None = None,
) -> grpc.aio.Server:
    """A second listener on the same ``arena`` for submitted bots: a Unix socket serving only
    ``ArenaService`` and health checks (no admin service, no reflection).

    Each call makes a gRPC server of its own, with its own quota of streams without Hello
    (:mod:`levata.server.match.doors`) and at most ``connections`` connections (default: the
    referee's whole allowance): a Unix socket's peer has no address, so the socket is what
    tells its clients apart. A tournament starts one per entry and binds each into that
    entry's sandbox only (:mod:`levata.server.tournament.sandbox`): a flood on one socket
    cannot use up another's quota. ``levata serve --entrant-socket PATH`` offers one, shared,
    beside the TCP port. Anyone who can reach
    the file may connect (it is made ``0666``: entries run as users of their own): who reaches
    it is decided by the directory holding it and by what is bound into a sandbox. A stale
    socket left at ``socket_path`` by a killed referee is replaced.

    >>> import asyncio, tempfile, os
    >>> from levata.server.match.store import RETRY_S, Store, StoreUnavailable
    >>> async def main():
    ...     d = tempfile.mkdtemp()
    ...     server, arena = await start_server(Store(os.path.join(d, "d.db")), port=0)
    ...     entrants = await start_entrant_server(arena, os.path.join(d, "entrants.sock"))
    ...     mode = os.stat(os.path.join(d, "entrants.sock")).st_mode & 0o777
    ...     await entrants.stop(None)
    ...     await server.stop(None)
    ...     return oct(mode)
    >>> asyncio.run(main())
    '0o666'
    """
    import contextlib
    import os
    import stat

    path = str(socket_path).removeprefix("unix:")
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISSOCK(os.lstat(path).st_mode):
            os.unlink(path)  # a dead referee's: binding over it would fail
    limits = arena.limits
    options = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.max_allowed_incoming_connections", connections or limits.connections_total),
        ("grpc.max_connection_idle_ms", limits.idle_connection_ms),
    ]
    server = grpc.aio.server(options=options)
    add_arena_to_server(arena, server, door=f"unix:{path}")
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    try:
        server.add_insecure_port(f"unix:{path}")
    except RuntimeError:  # gRPC's words are "Failed to bind"
        raise OSError(f"cannot listen on the Unix socket {path}") from None
    await server.start()
    os.chmod(path, 0o666)
    arena_name = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
    await follow_store(arena.store, health_servicer, (arena_name, ""))
    return server
