"""Streams that have not said Hello yet, counted per listener ("door") and per connection.

A stream says who it is (``Hello`` with a token) in its first message; until then it is
nobody's, so it cannot be counted per credential. Counting such streams per peer *host*
(as levata did) lets one client starve every other: all clients of a Unix socket, and all
local TCP clients, are the same host. So:

* **Per listener, evicting the oldest.** Each listener has its own quota (the TCP port,
  ``levata serve --entrant-socket``, and each tournament entry's own socket are separate
  doors, one gRPC server each: a stream's context does not say which of a server's ports it
  came in on). When a door is full, a new stream *evicts the oldest* waiting one rather than
  being refused: an honest client says Hello in its first message, within milliseconds, while
  a flood's streams never do and so are always the oldest. A flood can only make a newcomer
  retry (the SDK retries RESOURCE_EXHAUSTED with backoff), never keep it out.
* **Per connection on TCP.** ``context.peer()`` is ``ipv4:ADDRESS:PORT``: one connection.
  One connection may hold only a few streams without Hello (more are refused); a flood needs
  many connections, which the server's connection limit and idle timeout bound. A Unix
  socket's peer is ``unix:`` for every client (no address), so there the door is the unit:
  a tournament gives every entry a socket of its own, so a flood on one cannot touch another.

>>> door = Door("tcp", per_listener=2, per_connection=1)
>>> evicted = []
>>> door.enter("ipv4:127.0.0.1:1000", lambda: evicted.append("a"))
1
>>> door.enter("ipv4:127.0.0.1:1000", lambda: evicted.append("b")) is None  # one per connection
True
>>> door.enter("ipv4:127.0.0.1:1001", lambda: evicted.append("c"))
2
>>> door.enter("ipv4:127.0.0.1:1002", lambda: evicted.append("d")), evicted  # evicts the oldest
(3, ['a'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

__all__ = ["Door"]


class Door:
    """The streams without Hello of one listener, oldest first."""

    def __init__(self, name: str, per_listener: int, per_connection: int) -> None:
        self.name = name
        self.per_listener = max(1, per_listener)
        self.per_connection = max(1, per_connection)
        self._waiting: dict[int, tuple[str, Callable[[], None]]] = {}  # key -> (peer, evict)
        self._per_peer: Counter[str] = Counter()
        self._next = 0
        self.evicted = 0  # streams evicted so far (for logs and tests)

    def __len__(self) -> int:
        return len(self._waiting)

    def enter(self, peer: str, evict: Callable[[], None]) -> int | None:
        """Admit a stream from ``peer`` (``context.peer()``); its key for :meth:`leave`, or
        ``None`` when its TCP connection holds too many already. ``evict()`` is called
        should it be pushed out by a newer stream while still waiting."""
        counted = peer.startswith(("ipv4:", "ipv6:"))  # a Unix socket's peer is anyone
        if counted and self._per_peer[peer] >= self.per_connection:
            return None
        while len(self._waiting) >= self.per_listener:
            oldest = next(iter(self._waiting))
            _, push_out = self._waiting[oldest]
            self.leave(oldest)
            self.evicted += 1
            push_out()
        self._next += 1
        key = self._next
        self._waiting[key] = (peer, evict)
        if counted:
            self._per_peer[peer] += 1
        return key

    def leave(self, key: int) -> None:
        """The stream said Hello, or ended (idempotent)."""
        entry = self._waiting.pop(key, None)
        if entry is not None and entry[0] in self._per_peer:
            self._per_peer[entry[0]] -= 1
            if not self._per_peer[entry[0]]:
                del self._per_peer[entry[0]]
