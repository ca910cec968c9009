"""Live matches on the web table, taken from the referee as any spectator client takes them:
through its admin service (``WatchMatch`` in tables: the public events and the public view,
:mod:`levata.server.match.spectator`), over gRPC, in the web table's own process.

One watch per live match, however many onlookers it has: the referee builds a table at most
every :data:`PUSH_EVERY_S` for it, and this process narrates it, draws its frame, encodes
it once and hands the same bytes to every onlooker (:class:`~levata.server.web.feed.Feed`).
The referee's work is the same for one onlooker as for 2,000: none of their connections is
its. And the web table holds nothing but what ``WatchMatch`` gives a spectator: it cannot
show a hidden card it was never sent.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import grpc

from levata.engine import BadConfig, game
from levata.server.match.auth import admin_metadata
from levata.server.match.narrate import narrate
from levata.server.web.feed import KEEPALIVE, KEEPALIVE_S, Feed, sse
from levata.server.web.frames import watched_frame
from levata.v1 import admin_pb2, admin_pb2_grpc
from levata.wire.codec import event_from_pb, view_from_pb

__all__ = ["IDLE_S", "PUSH_EVERY_S", "LiveMatch", "RefereeLink"]

#: Seconds at least between two pushes to a match's onlookers (the referee's tables come no
#: oftener): a fast match's moves go out together, twice a second; a move after a quiet
#: spell goes out at once.
PUSH_EVERY_S = 0.5
#: Seconds a watch is kept with nobody watching (a page reloading comes back within them);
#: then it ends, and the referee has nothing to send.
IDLE_S = 30.0

_STATUS = {
    admin_pb2.MATCH_STATUS_WAITING: "waiting",
    admin_pb2.MATCH_STATUS_RUNNING: "running",
    admin_pb2.MATCH_STATUS_FINISHED: "finished",
    admin_pb2.MATCH_STATUS_ABORTED: "aborted",
}


@dataclass
class RefereeLink:
    """Where the referee is (``HOST:PORT``), the admin token its admin service asks for, and
    for TLS the referee's certificate (or the authority that signed it), checked against
    the address's host name."""

    address: str
    admin_token: str
    tls_ca: bytes | None = None

    def __post_init__(self) -> None:
        self._stub: Any = None

    def stub(self) -> admin_pb2_grpc.AdminServiceStub:
        """The admin service's stub, on a channel made in the running event loop."""
        if self._stub is None:
            if self.tls_ca is None:
                channel = grpc.aio.insecure_channel(self.address)
            else:
                creds = grpc.ssl_channel_credentials(root_certificates=self.tls_ca)
                channel = grpc.aio.secure_channel(self.address, creds)
            self._stub = admin_pb2_grpc.AdminServiceStub(channel)
        return self._stub

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return admin_metadata(self.admin_token)


class LiveMatch(Feed):
    """One live match's onlookers, fed by one ``WatchMatch`` of the referee: each table is
    narrated, drawn and encoded once and handed to every onlooker's queue; an onlooker that
    joins is sent where the match stands, drawn and encoded once for all who join before it
    moves on. :attr:`ready` is set once the first table came (or the watch failed:
    :attr:`missing`)."""

    def __init__(self, link: RefereeLink, match_id: str, on_end: Any) -> None:
        super().__init__()
        self.link, self.match_id = link, match_id
        self.lines: list[list[Any]] = []  # [seq, line] of every public event so far
        self.frame: dict[str, Any] = {}
        self.version = 0  # actions applied, as of the frame
        self.status = "waiting"
        self.ended = False
        self.missing = False  # no such match live at the referee (or it cannot be reached)
        self.game = ""
        self.title = ""
        self.seat_bots: list[str] = []
        self.ready = asyncio.Event()
        self._standing: tuple[Any, dict[str, Any], bytes] | None = None
        self._idle: asyncio.TimerHandle | None = None
        self.said = 0.0  # when the onlookers were last sent something (the loop's clock)
        self.task = asyncio.get_running_loop().create_task(self._pump(on_end))
        self.left()  # nobody watches yet (a page's stream may never come)

    def message(self, events: list[list[Any]]) -> dict[str, Any]:
        return {
            "frame": self.frame,
            "events": events,
            "status": self.status,
            "version": self.version,
        }

    def standing(self) -> tuple[dict[str, Any], bytes]:
        """Where the match stands (every public event so far and the frame now), as a
        message and as its event: drawn again only once the match has moved on."""
        now = (self.version, len(self.lines), self.status, self.ended)
        if self._standing is None or self._standing[0] != now:
            msg = self.message(self.lines)
            self._standing = (now, msg, sse(msg))
        return self._standing[1], self._standing[2]

    def left(self) -> None:
        """An onlooker left (or none came yet): with nobody left watching, the watch ends
        after :data:`IDLE_S`, unless someone comes meanwhile."""
        if not self.clients and not self.ended:
            if self._idle is not None:
                self._idle.cancel()
            self._idle = asyncio.get_running_loop().call_later(IDLE_S, self._stop_if_idle)

    def _stop_if_idle(self) -> None:
        if not self.clients:
            self.task.cancel()

    def _take(self, table: admin_pb2.PublicTable) -> list[list[Any]]:
        """A table's news: its public events narrated (each once: after a resumed watch,
        those already held are skipped), its frame drawn; the new lines."""
        new: list[list[Any]] = []
        spec = game(table.view.game)
        for pb in table.events:
            if pb.is_public and (not self.lines or pb.seq > self.lines[-1][0]):
                new.append([pb.seq, narrate(event_from_pb(pb), spec)])
                self.lines.append(new[-1])
        self.frame = watched_frame(view_from_pb(table.view))
        self.version = table.actions
        self.status = _STATUS.get(table.status, self.status)
        if not self.title:
            self.game, self.title = spec.name, spec.title
        return new

    async def _pump(self, on_end: Any) -> None:
        stub, metadata = self.link.stub(), self.link.metadata()
        keepalive = asyncio.get_running_loop().create_task(self._keep_alive())
        call = None
        try:
            info = await stub.GetMatch(
                admin_pb2.GetMatchRequest(match_id=self.match_id), metadata=metadata, timeout=30
            )
            self.seat_bots = list(info.match.seat_bots)
            call = stub.WatchMatch(
                admin_pb2.WatchMatchRequest(
                    match_id=self.match_id, table_every_ms=int(PUSH_EVERY_S * 1000)
                ),
                metadata=metadata,
            )
            async for msg in call:
                if msg.WhichOneof("message") != "table":
                    continue  # after the last table: the deal made public, and the summary
                new = self._take(msg.table)
                if not self.ready.is_set():  # the first: where the match stands, for joiners
                    self.ready.set()
                    continue
                self.said = asyncio.get_running_loop().time()
                await self.spread(sse(self.message(new)))  # one encoding, whoever watches
        except (grpc.aio.AioRpcError, BadConfig):
            # no such match live (before the first table), or the referee stopped or
            # dropped the watch: the onlookers are told it is over
            pass
        finally:
            keepalive.cancel()
            if call is not None:
                call.cancel()  # nobody watches (or it is over): the referee stops sending
            self._end()
            on_end(self)

    async def _keep_alive(self) -> None:
        """A match that waits (or thinks) long: a comment now and then keeps the streams (and
        any proxy on the way) open."""
        loop = asyncio.get_running_loop()
        self.said = loop.time()
        while True:
            await asyncio.sleep(max(0.0, self.said + KEEPALIVE_S - loop.time()))
            if loop.time() - self.said >= KEEPALIVE_S:
                self.send(KEEPALIVE)
                self.said = loop.time()

    def _end(self) -> None:
        """The watch is over: the onlookers' streams end, the last of them told how."""
        if self._idle is not None:
            self._idle.cancel()
        self.missing = not self.ready.is_set()
        was_live = not self.missing and self.status not in ("finished", "aborted")
        self.ended = True
        if was_live:  # the referee stopped (or the watch was dropped) before the end
            self.status = "aborted"
            self.send(sse(self.message([])))
        self.close()
        self.ready.set()
