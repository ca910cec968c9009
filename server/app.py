"""Assemble the gRPC server: arena, admin, health checking, reflection, limits, TLS.

>>> import asyncio, tempfile, os
>>> from levata.server.store import Store
>>> async def main():
...     server, arena = await start_server(Store(os.path.join(tempfile.mkdtemp(), "d.db")),
...                                        port=0)
...     await server.stop(None)
...     return arena.port > 0
>>> asyncio.run(main())
True
"""

from __future__ import annotations

from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from levata.server.arena import AdminServicer, Arena, ArenaServicer
from levata.server.referee import Policy
from levata.server.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

__all__ = ["MAX_MESSAGE_BYTES", "start_server"]

#: Largest message either side may send; a bigger one is refused by gRPC itself.
MAX_MESSAGE_BYTES = 4 * 1024 * 1024


async def start_server(
    store: Store,
    host: str = "127.0.0.1",
    port: int = 50051,
    policy: Policy | None = None,
    admin_token: str | None = None,
    tls_cert: Path | None = None,
    tls_key: Path | None = None,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
) -> tuple[grpc.aio.Server, Arena]:
    """Start serving; returns the server and its arena (``arena.port`` is the bound port)."""
    options = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.so_reuseport", 0),
    ]
    server = grpc.aio.server(options=options)
    arena = Arena(store, policy)
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(ArenaServicer(arena), server)
    admin_pb2_grpc.add_AdminServiceServicer_to_server(AdminServicer(arena, admin_token), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (
        arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
        admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name,
        health.SERVICE_NAME,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)
    address = f"{host}:{port}"
    if tls_cert and tls_key:
        creds = grpc.ssl_server_credentials([(tls_key.read_bytes(), tls_cert.read_bytes())])
        bound = server.add_secure_port(address, creds)
    else:
        bound = server.add_insecure_port(address)
    arena.port = bound
    await server.start()
    for name in (*names[:2], ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, arena
