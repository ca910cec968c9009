"""The clocks of a refereed match: the match's policy, the seats' turns, when the match must
look again, and what runs out.

The clocks are the server's. A request's deadline is ``move_ms`` plus the seat's bank left
(time over ``move_ms`` comes out of the bank), counted from when the request is written to
the seat's stream (:class:`~levata.server.match.seats.Turn`). The match task waits for its
next inbox item until the earliest moment something may be due (:meth:`Clocks._next_wakeup`):
a deadline, a resume window's end, a batch of events that waited its lag, a real-time tick;
then it looks at what ran out (:meth:`Clocks._expire`). A suspended match stops every clock
(:meth:`Clocks._shift_clocks`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from levata.engine import GameState
from levata.server.match.inbox import Inbox
from levata.server.match.seats import Pending, Seat, Turn
from levata.v1 import arena_pb2

__all__ = ["REALTIME_IDLE_S", "Clocks", "Policy"]

#: Real-time games: after a seat's action changed nothing (a pass), its next request waits
#: for news or this long, so a waiting bot does not spin the referee.
REALTIME_IDLE_S = 0.1


@dataclass(frozen=True)
class Policy:
    """Clocks and fault policy of a match (milliseconds)."""

    move_ms: int = 2_000
    bank_ms: int = 20_000
    startup_ms: int = 30_000
    max_strikes: int = 3
    resume_window_ms: int = 10_000

    def overlay(self, msg: arena_pb2.MatchPolicy | None) -> Policy:
        """This policy with the fields ``msg`` sets in place."""
        if msg is None:
            return self
        changes = {f: getattr(msg, f) for f in asdict(self) if msg.HasField(f)}
        return Policy(**{**asdict(self), **changes})

    def to_pb(self) -> arena_pb2.MatchPolicy:
        return arena_pb2.MatchPolicy(**asdict(self))


class Clocks:
    """The referee's time keeping (a part of :class:`~levata.server.match.referee.Referee`)."""

    clock: Callable[[], float]
    policy: Policy
    seats: list[Seat]
    state: GameState
    status: str
    inbox: Inbox
    started_at: float

    if TYPE_CHECKING:  # the match flow's, in levata.server.match.referee

        def _forfeit(self, seats: list[int], why: str) -> None: ...
        def _strike(self, i: int, p: Pending) -> None: ...
        def _read_in_time(self, p: Pending) -> bool: ...
        def _record_clock(self, now: int) -> None: ...
        def _flush_events(self, i: int) -> None: ...

    def _shift_clocks(self, pause: float) -> None:
        """Nobody's clock ran while the match was suspended: move every running time on."""
        self.started_at += pause
        for seat in self.seats:
            if seat.gone_since is not None:
                seat.gone_since += pause
            if seat.idle_until:
                seat.idle_until += pause
            turn = getattr(seat.pending, "turn", None)
            if turn is not None:
                turn.built_at += pause
                turn.deadline += pause
                if turn.started_at is not None:
                    turn.started_at += pause

    def _clock_ms(self) -> int:
        return int((self.clock() - self.started_at) * 1000)

    def _next_wakeup(self) -> float:
        """The earliest moment something may be due: a deadline, a resume window's end, a
        batch's lag, a real-time tick (in an hour if nothing is)."""
        times = []
        for s in self.seats:
            if s.pending is not None:
                times.append(s.pending.turn.deadline)
            if s.gone_since is not None:
                times.append(s.gone_since + self.policy.resume_window_ms / 1000)
            if s.unsent_since is not None:
                times.append(s.unsent_since + s.lag)
        if self.state.realtime:
            times.append(self.clock() + 0.05)  # real-time stall timers need a heartbeat
            times += [s.idle_until for s in self.seats if s.idle_until > self.clock()]
        return min(times, default=self.clock() + 3600)

    def _start(self, turn: Turn, now: float) -> None:
        """Start a turn's clock, and have the match look at its deadline: the match task
        waited towards the latest the deadline could be, and wakes at this one instead.

        (Waking at the earliest it could be, as if the clock had started when the request was
        built, made a match whose request was still queued at that moment look again and
        again without a pause, keeping the writer that would send the request from running:
        at 1,000 matches on unbundled streams every seat then timed out.)"""
        turn.start(now)
        if self.status == "running":
            self.inbox.ring_by(turn.deadline)

    def _tick_clock(self) -> None:
        """Feed the referee's clock to a real-time game; record it if anything happened."""
        before = self.state.event_count()
        now = self._clock_ms()
        self.state.advance_clock(now)
        if self.state.event_count() != before or self.state.is_over():
            self._record_clock(now)

    def _expire(self) -> None:
        """Act on what ran out: batched events that waited their lag are sent, seats gone past
        the resume window forfeit, seats past their deadline with no reply read in time are
        struck (:meth:`~levata.server.match.referee.Referee._strike`)."""
        now = self.clock()
        for i, s in enumerate(self.seats):
            if s.unsent_since is not None and now >= s.unsent_since + s.lag:
                self._flush_events(i)  # batched events waited long enough for a request
        window = self.policy.resume_window_ms / 1000
        gone = [
            i
            for i, s in enumerate(self.seats)
            if s.gone_since is not None and now >= s.gone_since + window
        ]
        if gone and self.status == "running":
            self._forfeit(gone, "did not resume within the window")
            return
        for i, s in enumerate(self.seats):
            if self.status != "running":
                return  # a strike ended the match
            p = s.pending
            if p is not None and now >= p.deadline and not self._read_in_time(p):
                self._strike(i, p)
