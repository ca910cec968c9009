"""Pushing to onlookers: a :class:`Feed` hands each message, encoded once (server-sent events),
to every onlooker's queue, and each onlooker's :class:`EventStream` writes what its queue holds.

However many watch, a message costs one serialisation: what is left per onlooker is a queue
put and its connection's write. An onlooker that does not keep up is dropped, never waited
for (its page reconnects, and is sent where things stand).

>>> sse({"status": "running", "events": [[3, "seat 1 plays 7H"]]})
b'data: {"status":"running","events":[[3,"seat 1 plays 7H"]]}\\n\\n'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

__all__ = ["KEEPALIVE", "KEEPALIVE_S", "ONLOOKER_QUEUE", "SLICE", "EventStream", "Feed", "sse"]

#: Messages that may wait for one slow onlooker before it is dropped.
ONLOOKER_QUEUE = 64
#: Seconds between keep-alive comments on an idle event stream.
KEEPALIVE_S = 15.0
#: Onlookers handed a message in one go: each one's write then runs in the same turn of the
#: event loop, so a slice is what other work arriving meanwhile (a page, a table) may wait for.
SLICE = 8
#: A comment line: keeps an idle connection (and any proxy on the way) open.
KEEPALIVE = b": keep-alive\n\n"


def sse(message: dict[str, Any]) -> bytes:
    """``message`` as one server-sent event (compact JSON on one ``data:`` line)."""
    return f"data: {json.dumps(message, separators=(',', ':'))}\n\n".encode()


class Feed:
    """The onlookers of one thing (a live match, a tournament page): their queues."""

    def __init__(self) -> None:
        self.clients: set[asyncio.Queue[bytes | None]] = set()

    def join(self, first: bytes, ended: bool) -> EventStream:
        """A new onlooker's stream: ``first`` (where things stand, encoded once for all who
        join at that moment), then every message sent; just ``first`` when ``ended``."""
        q: asyncio.Queue[bytes | None] = asyncio.Queue(ONLOOKER_QUEUE)
        if ended:
            q.put_nowait(None)
        else:
            self.clients.add(q)
        return EventStream(self, q, first)

    def send(self, data: bytes) -> None:
        """``data`` (already encoded) to every onlooker."""
        for q in list(self.clients):
            self._offer(q, data)

    async def spread(self, data: bytes) -> None:
        """``data`` to every onlooker, :data:`SLICE` at a time, the event loop free between
        two slices: a page asked for meanwhile waits for a few onlookers' writes at most, not
        for every one of them."""
        for k, q in enumerate(list(self.clients)):
            if k and k % SLICE == 0:
                await asyncio.sleep(0)  # the loop's other work (a reply) goes first
            if q in self.clients:  # it may have left meanwhile
                self._offer(q, data)

    def left(self) -> None:
        """An onlooker's stream ended (what a feed does then: nothing here)."""

    def close(self) -> None:
        """Every onlooker's stream ends."""
        for q in list(self.clients):
            self._offer(q, None)
        self.clients.clear()

    def drop(self, q: asyncio.Queue[bytes | None]) -> None:
        """An onlooker left: its stream ends."""
        self.clients.discard(q)
        self._offer(q, None)

    def _offer(self, q: asyncio.Queue[bytes | None], data: bytes | None) -> None:
        try:
            q.put_nowait(data)
        except asyncio.QueueFull:  # too slow: its stream ends, the page may reconnect
            self.clients.discard(q)
            with contextlib.suppress(asyncio.QueueEmpty):
                q.get_nowait()
            q.put_nowait(None)


class EventStream:
    """One onlooker's event stream, as a bare ASGI response: ``first``, then each message as
    it comes. Bare (one coroutine, one queue, no task per message): what is left per
    onlooker is its queue and its connection's writes."""

    HEADERS = [
        (b"content-type", b"text/event-stream; charset=utf-8"),
        (b"cache-control", b"no-store"),
        (b"x-accel-buffering", b"no"),
    ]

    def __init__(self, feed: Feed, q: asyncio.Queue[bytes | None], first: bytes) -> None:
        self.feed, self.q, self.first = feed, q, first

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.HEADERS})
        hang_up = asyncio.ensure_future(self._hang_up(receive))
        try:
            data: bytes | None = self.first
            while data is not None:
                await send({"type": "http.response.body", "body": data, "more_body": True})
                data = await self.q.get()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the connection is gone
            pass
        finally:
            hang_up.cancel()
            self.feed.clients.discard(self.q)
            self.feed.left()

    async def _hang_up(self, receive: Any) -> None:
        """Wait for the onlooker to leave, then end its stream."""
        while (await receive())["type"] != "http.disconnect":
            pass
        self.feed.drop(self.q)
