"""A match task's inbox: what the arena hands its referee, and the alarm that wakes it.

Every decision of every match passes through here twice (the reply in, the wait for the
next), so it is kept cheap: ``asyncio.Queue`` looks the running loop up on each wait (in
Python 3.11 a ``getpid`` system call each time), and a wait with a timeout used to cost a
timer of its own. Here the loop is looked up once and a single alarm serves every wait.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["Inbox"]


class Inbox:
    """A first-in, first-out queue for one consumer whose waits have deadlines.

    A wait ends with an item or when the alarm rings. The alarm is set no later than the
    deadline of the wait, and a later wait keeps it while it rings no later than that wait's
    own deadline; :meth:`ring_by` may also move it earlier (the referee does when a clock
    starts). An alarm that rings early only makes the consumer look at the time and wait
    again. A match asked every few milliseconds with a clock of seconds so sets one timer per
    clock period, not one per decision.

    A wait always gives the event loop a turn, even with no time left: a consumer that looks
    again at once must not keep every other task (the connections' writers among them) from
    running.

    >>> import time
    >>> async def demo():
    ...     inbox = Inbox(time.monotonic)
    ...     inbox.put_nowait("reply")
    ...     first = await inbox.get(0.01)
    ...     try:
    ...         await inbox.get(0.01)
    ...     except TimeoutError:
    ...         return first, "timed out"
    >>> asyncio.run(demo())
    ('reply', 'timed out')
    """

    __slots__ = ("_alarm", "_alarm_at", "_items", "_loop", "_waiter", "clock")

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock  # the referee's clock: deadlines are on it
        self._items: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._alarm: asyncio.TimerHandle | None = None
        self._alarm_at = math.inf

    def put_nowait(self, item: Any) -> None:
        """Queue ``item`` (never blocks)."""
        self._items.append(item)
        self._wake()

    def empty(self) -> bool:
        return not self._items

    def queued(self) -> tuple[Any, ...]:
        """What waits to be taken, oldest first (left in place)."""
        return tuple(self._items)

    async def get(self, timeout: float) -> Any:
        """The next item; ``TimeoutError`` when the alarm rings first: at the latest after
        ``timeout`` seconds, earlier if :meth:`ring_by` asked for an earlier look. An item
        already queued is taken even when no time is left, and with no time left and no
        item the loop still gets a turn before ``TimeoutError``."""
        if self._items:
            return self._items.popleft()
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        now = self.clock()
        if timeout > 0:
            self.ring_by(now + timeout, now)
            self._waiter = self._loop.create_future()
            try:
                await self._waiter  # an item, or the alarm
            finally:
                self._waiter = None
        else:
            await asyncio.sleep(0)
        if self._items:
            return self._items.popleft()
        raise TimeoutError

    def ring_by(self, when: float, now: float | None = None) -> None:
        """Make sure the consumer looks again no later than ``when`` (the referee's clock)."""
        if self._alarm is not None and self._alarm_at <= when:
            return
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        if self._alarm is not None:
            self._alarm.cancel()
        now = self.clock() if now is None else now
        self._alarm_at = when
        self._alarm = self._loop.call_later(max(0.0, when - now), self._ring)

    def close(self) -> None:
        """Cancel the alarm (the match is over)."""
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm, self._alarm_at = None, math.inf

    def _ring(self) -> None:
        self._alarm, self._alarm_at = None, math.inf
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
