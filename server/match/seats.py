"""The seats of a refereed match: each seat's bot, connection, clock and record, and the
request it has to answer.

A seat's clock for one decision (:class:`Turn`) starts when its request is written to the
seat's stream, not when the referee built it: the referee's own queueing is not the bot's
time (see :data:`DELIVERY_ALLOWANCE_S`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from levata.engine import Action

__all__ = [
    "BATCH_LAG_MAX_S",
    "BATCH_LAG_S",
    "DELIVERY_ALLOWANCE_S",
    "EXCUSED_MAX",
    "Outbox",
    "Pending",
    "Seat",
    "Turn",
    "batch_lag",
]

Outbox = Callable[..., None]
"""Where messages for one connection go: a non-blocking put on that connection's queue,
``outbox(msg)`` or ``outbox(msg, on_written)``: the connection's writer calls ``on_written()``
just before it hands ``msg`` to gRPC (the moment a request's clock starts)."""


#: A seat's clock starts when its request is written to its stream, not when the referee
#: built it: queueing inside a loaded referee is not the bot's time. A request still unwritten
#: this long after it was built starts the clock anyway, so a bot that never reads its stream
#: (its requests are never written: gRPC flow control holds them) is still timed out. Far
#: above any queueing measured at 1,000 concurrent matches, and a bound on what a non-reading
#: bot can add to a match: this much per decision, on top of its clock.
DELIVERY_ALLOWANCE_S = 5.0
#: Batched events (``Hello.batch_events``) wait for the seat's next request or the end at
#: most three times the seat's usual time between requests, within these bounds; then they go as
#: separate messages (see :mod:`levata.server.match.referee`).
BATCH_LAG_S = 0.25
BATCH_LAG_MAX_S = 1.0
#: ... and at most this many events wait, which bounds a request's size.


@dataclass(slots=True)
class Turn:
    """A seat's clock for one decision, shared by the requests that supersede each other.

    It starts when the first of them is written to the seat's stream (:meth:`start`), or
    :data:`DELIVERY_ALLOWANCE_S` after the first was built if none is written by then; until
    it starts, ``deadline`` is that latest possible start plus the budget. The match waits
    towards ``deadline``, and starting the clock moves its alarm earlier
    (:meth:`Referee._start`): it never wakes for a deadline that cannot have come yet."""

    built_at: float
    budget_s: float  # move_ms plus the bank left, when the first request was built
    deadline: float = 0.0
    started_at: float | None = None

    def __post_init__(self) -> None:
        if not self.deadline:
            self.deadline = self.built_at + DELIVERY_ALLOWANCE_S + self.budget_s

    def start(self, now: float) -> None:
        """The clock runs from ``now`` (a request was written), or from the allowance's end."""
        if self.started_at is None:
            self.started_at = min(now, self.built_at + DELIVERY_ALLOWANCE_S)
            self.deadline = self.started_at + self.budget_s


@dataclass(slots=True)
class Pending:
    """An outstanding decision request of one seat."""

    request_id: str
    seat: int
    version: int
    legal: list[Action]
    turn: Turn

    @property
    def deadline(self) -> float:
        return self.turn.deadline


#: Most late replies a seat may have excused at once (see :attr:`Seat.excused`).
EXCUSED_MAX = 64


@dataclass(slots=True)
class Seat:
    """One seat: its bot, connection, clock and record."""

    bot: str
    outbox: Outbox | None = None
    bank_ms: float = 0.0
    strikes: int = 0
    pending: Pending | None = None
    superseded: set[str] = field(default_factory=set)
    retired: deque[str] = field(default_factory=lambda: deque(maxlen=64))  # answered ids
    #: Late replies it may still have refused without spending its allowance: one for each
    #: request sent (at most EXCUSED_MAX saved up), since a fast bot's reply may cross the
    #: request's replacement or settlement once; a flood cannot outrun the requests.
    excused: int = 0
    idle_until: float = 0.0  # real-time: after a no-op, wait for news or this moment
    idle_version: int = -1
    sent_seq: int = -1  # last event sequence number sent to this seat
    batch: bool = False  # its connection takes events inside requests and the end
    unsent_since: float | None = None  # batch: when events began waiting to be sent
    asked_at: float | None = None  # when its last decision was first asked
    ask_gap: float = 0.0  # the usual time between its decisions (a moving average)
    lag: float = BATCH_LAG_S  # how long its batched events may wait (:func:`batch_lag`)
    gone_since: float | None = None  # when the connection dropped
    ever_connected: bool = False


def batch_lag(seat: Seat) -> float:
    """How long a batching seat's events may wait for its next request: three times its usual
    time between requests, within :data:`BATCH_LAG_S` .. :data:`BATCH_LAG_MAX_S`.

    >>> [round(batch_lag(Seat("b", ask_gap=gap)), 3) for gap in (0.05, 0.2, 9.0)]
    [0.25, 0.6, 1.0]
    """
    return min(BATCH_LAG_MAX_S, max(BATCH_LAG_S, 3 * seat.ask_gap))
