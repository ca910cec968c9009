"""When a decision began: the moment the referee sent the request, not the moment the bot
got to it.

One bot process holds its seats in every match of a tournament (``--parallel 4``: four
matches at once) and decides one request at a time, so a request may wait behind another
match's search before the bot reads it. The referee's clock (and its reply times) runs from
the sending, so a search that starts its budget when it begins answers late by the wait.
The SDK says when the request was sent (:func:`asked`, from its ``deadline`` less its
``time_left_ms``); a search reads :func:`decision_start` and spends only what is left.
In-process play says nothing and a decision starts when the bot is asked.

>>> import time
>>> now = time.perf_counter()
>>> decision_start() >= now
True
>>> with asked(now - 0.25):
...     round(time.perf_counter() - decision_start(), 1)
0.3
>>> waited_ms(sent_ms=1_000, time_left_ms=500, now_ms=1_120), waited_ms(1_000, 500, 900)
(120.0, 0.0)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["asked", "deadline", "decision_start", "waited_ms"]

_ASKED: ContextVar[float | None] = ContextVar("levata_decision_asked", default=None)

#: What a search keeps back of its budget for what follows its last world (the fallback's
#: tie-break, encoding the reply, the way back to the referee): a share, and a few ms more
#: (the wire's cost does not shrink with a small budget).
RESERVE = 0.05
RESERVE_MS = 5.0


def decision_start() -> float:
    """The ``time.perf_counter()`` at which the decision in progress was asked: when the
    referee sent the request where the SDK said so, else now."""
    now = time.perf_counter()
    at = _ASKED.get()
    return now if at is None else min(at, now)


def deadline(budget_ms: float) -> float:
    """The ``perf_counter`` time by which a search with ``budget_ms`` a decision stops
    (:data:`RESERVE` and :data:`RESERVE_MS` kept back); ``inf`` for no budget (0).

    >>> round((deadline(100) - decision_start()) * 1000)
    90
    """
    if budget_ms <= 0:
        return float("inf")
    return decision_start() + (budget_ms * (1 - RESERVE) - RESERVE_MS) / 1000


@contextmanager
def asked(at: float) -> Iterator[None]:
    """Within the block, decisions began at ``at`` (a ``perf_counter`` time)."""
    token = _ASKED.set(at)
    try:
        yield
    finally:
        _ASKED.reset(token)


def waited_ms(sent_ms: float, time_left_ms: float, now_ms: float) -> float:
    """How long a request sent at ``sent_ms`` (the referee's wall clock, ms) has waited at
    ``now_ms`` (ours): 0 where the two clocks cannot agree (before the sending, or past the
    deadline: another machine's clock), so a skewed clock never starves a search."""
    waited = now_ms - sent_ms
    return float(waited) if 0 <= waited <= time_left_ms else 0.0
