"""Simultaneous play: every seat in play submits once per tick, hidden from the others, and the
tick resolves when the last one is in, in a rotating priority (a base to mix into a game's
state, before ``GameState``).

The base keeps the tick mechanism; the game keeps its rules:

* ``tick`` (from 0), ``submissions`` (each seat's action this tick, ``None`` until it is in)
  and who is still to submit (:meth:`to_act`);
* :meth:`priority`, ``P_t``: the seats in play sorted by ``(seat - t) mod N``, so each seat in
  turn is first when two submissions race for the same thing;
* the caps: the options ``tick_cap`` (ticks) and ``time_cap_ms`` (real time), when the game
  has them, end the match through :meth:`_cap_reached`;
* what a view shows of a pending submission: :meth:`submitted` (1 once the seat is in, and
  nothing about what it chose). A submission emits no event at all;
* the hidden buffer in a determinized world: :meth:`_blank_submissions` (a sampled world) and
  :meth:`_restore_submissions` (a world rebuilt from a view) put a game-chosen placeholder in
  place of the other seats' real choices, which must not leak and cannot be guessed;
* a real-time mode (``realtime = True``): no ticks, any seat in play acts at any moment through
  :meth:`_act_now`, judged at ``clock_ms``, the referee's clock; :meth:`advance_clock` fires
  the game's timers (:meth:`_next_timer`, :meth:`_fire_timer`) and the time cap in order;
* :meth:`stamp`: when an outcome happened, for its event (the tick, or the clock);
* in a position (:mod:`levata.engine.position`): the buffer as :data:`SUBMISSIONS` (a
  :class:`~levata.engine.fields.Kept` field the game declares, with ``tick`` and ``clock_ms``
  among its counters), and :meth:`_resume_ticks` once a state is read back, since who is
  still to submit follows from the buffer.

Hooks a game writes: :meth:`seats_in_play` (who submits each tick), :meth:`_resolve` (apply
the submissions in the given order), and when it has them :meth:`_after_tick` (what happens
once a tick is resolved: finishing, stall counters), :meth:`_cap_reached`, and in real time
:meth:`_act_now`, :meth:`_next_timer`, :meth:`_fire_timer`. It calls :meth:`_start_ticks`
once its state is in place, and :meth:`_stop_ticks` when the match ends.

How the coming games use it:

* **Repezita**: every unfinished seat submits ``pass`` or ``play <card>``; plays resolve on the
  pile in ``P_t`` order (the first to land wins a race, the rest bounce).
* **Kemps**: each exchange round is a tick: every seat submits a swap with the centre (or
  ``pass``), resolved in ``P_t`` (two seats wanting the same centre card: the first in ``P_t``
  gets it). Partners' secret signals ride on the same submission as an action payload
  (``swap 7C QH signal=touch``, see :class:`~levata.engine.contract.Action`), so the legal
  list stays the swaps and the game's :meth:`~levata.engine.contract.GameState.payload_schema`
  says which signals a seat may give; every seat sees the signal when the tick resolves
  (what it means is the team's secret). A call is one more submission kind, raced the same way.
* **Toci's call, Trombon's calls**: a call window opens as a tick among the seats that may
  call (``seats_in_play``); each submits its call or ``pass`` and the first call in ``P_t``
  wins, the others are told they were beaten to it (Repezita's bounce). The turn-based play
  around the window is the game's own; the window is one tick.

A tiny game on this base: ``tests/engine/test_simultaneous.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from levata.engine.contract import Action, GameState
from levata.engine.fields import Field, Kept

__all__ = ["SIMULTANEOUS_COUNTERS", "SIMULTANEOUS_FACTS", "SUBMISSIONS", "Simultaneous"]

#: The names a simultaneous game's views use (see :class:`Vocabulary`); a game with a
#: real-time mode says which mode each applies to.
SIMULTANEOUS_COUNTERS = {
    "tick": "the tick being played, from 0",
    "submitted": "1 once you have submitted this tick (you wait for the others)",
}
SIMULTANEOUS_FACTS = {
    "priority": "the seats in play in this tick's resolution order",
}


def _submissions_shown(submissions: Sequence[Action | None]) -> list[str | None]:
    return [None if a is None else str(a) for a in submissions]


def _submissions_read(shown: Sequence[str | None]) -> list[Action | None]:
    return [None if a is None else Action.parse(a) for a in shown]


#: The tick buffer as a position writes it: each seat's submission this tick, ``null`` until
#: it is in (``submissions=[null,"play 7D"]``). Views never show it.
SUBMISSIONS: Field = Kept(
    "submissions",
    "each seat's submission this tick, hidden until the tick resolves (null: not in yet)",
    show=_submissions_shown,
    read=_submissions_read,
)


class Simultaneous(GameState):
    """A match where the seats in play act together, tick by tick (or in real time).

    State the base keeps (games read it freely): ``tick``, ``submissions``. Hooks: see the
    module.
    """

    tick: int
    submissions: list[Action | None]
    _waiting: tuple[int, ...]
    #: Real time: the referee's clock (ms since the match started) the state is judged at.
    clock_ms: int = 0

    # -- hooks the game writes ------------------------------------------------------------------

    def seats_in_play(self) -> list[int]:
        """The seats that submit each tick (real time: that may act), in seat order."""
        raise NotImplementedError

    def _resolve(self, order: Sequence[int]) -> bool:
        """Apply this tick's ``submissions`` in ``order`` (``P_t``, the seats in play); return
        whether the tick changed the table (what a stall rule counts)."""
        raise NotImplementedError

    def _after_tick(self, order: Sequence[int], changed: bool) -> None:
        """After a tick resolved (``changed``: what :meth:`_resolve` said) and its buffer
        emptied, before the tick counter moves on: seats that finished, stall counters.
        Nothing by default."""

    def _cap_reached(self) -> None:
        """The option ``tick_cap`` (or ``time_cap_ms`` in real time) is reached: end the match."""
        raise NotImplementedError(f"{type(self).__name__} has a cap but no end for it")

    def _act_now(self, seat: int, action: Action) -> None:
        """Real time: apply ``action`` at once (the game judges it at ``clock_ms``)."""
        raise NotImplementedError(f"{type(self).__name__} has no real-time mode")

    def _next_timer(self) -> int | None:
        """Real time: when the game's next timer is due (ms), ``None`` when none is set."""
        return None

    def _fire_timer(self) -> None:
        """Real time: the timer :meth:`_next_timer` named is due (``clock_ms`` is its time)."""

    # -- the mechanism --------------------------------------------------------------------------

    def _start_ticks(self, tick: int = 0) -> None:
        """Open tick ``tick`` (call once the game's state is in place, and again to restart)."""
        self.tick = tick
        self._open_tick()

    def _resume_ticks(self) -> None:
        """A state read from a position, ``submissions`` set: the seats in play that are not
        in yet are to act (every seat in play, in real time), nobody once the match is over."""
        if self.is_over():
            self._waiting = ()
        else:
            subs = self.submissions
            self._waiting = tuple(s for s in self.seats_in_play() if subs[s] is None)

    def _stop_ticks(self) -> None:
        """The match is over: nobody is to act any more."""
        self._waiting = ()

    def _open_tick(self) -> None:
        self.submissions = [None] * self.players
        self._waiting = () if self.is_over() else tuple(self.seats_in_play())

    def priority(self) -> list[int]:
        """``P_t``: the seats in play in this tick's resolution order (empty in real time)."""
        if self.realtime:
            return []
        n, t = self.players, self.tick
        return sorted(self.seats_in_play(), key=lambda s: (s - t) % n)

    def to_act(self) -> tuple[int, ...]:
        return self._waiting

    def stamp(self) -> dict[str, Any]:
        """When an outcome happened, for its event's data: the tick, or the clock in real time."""
        return {"at_ms": self.clock_ms} if self.realtime else {"tick": self.tick}

    def submitted(self, seat: int) -> int:
        """What a view shows of a pending submission: 1 once ``seat`` is in, else 0."""
        return int(self.submissions[seat] is not None)

    def _apply(self, seat: int, action: Action) -> None:
        if self.realtime:
            self._act_now(seat, action)
            if not self.is_over():
                self._waiting = tuple(self.seats_in_play())
        else:
            self._submit(seat, action)

    def _submit(self, seat: int, action: Action) -> None:
        """Buffer ``action``; the last submission of the tick resolves it."""
        self.submissions[seat] = action
        self._waiting = tuple(s for s in self._waiting if s != seat)
        if not self._waiting:
            self._resolve_tick()

    def _resolve_tick(self) -> None:
        order = self.priority()
        changed = self._resolve(order)
        self.submissions = [None] * self.players
        self._after_tick(order, changed)
        if not self.is_over():
            self.tick += 1
            cap = self.options.get("tick_cap")
            if cap is not None and self.tick >= cap:
                self._cap_reached()
        self._open_tick()

    def advance_clock(self, now_ms: int) -> None:
        """Move the referee's clock to ``now_ms`` and fire every timer due by then, in order
        (the time cap first when both are due at once). A clock that goes backwards is
        ignored, and so is the clock in tick mode."""
        if not self.realtime or self.is_over() or now_ms <= self.clock_ms:
            return
        cap = self.options.get("time_cap_ms")
        while True:
            due = self._next_timer()
            if cap is not None and (due is None or cap <= due):
                due = cap
            if due is None or due > now_ms:
                break
            self.clock_ms = max(self.clock_ms, due)
            if due == cap:
                self._cap_reached()
                return
            self._fire_timer()
            if self.is_over():  # a timer that ended the match stops the clock with it
                return
        self.clock_ms = now_ms

    # -- determinized worlds --------------------------------------------------------------------

    def _blank_submissions(self, seat: int, blank: Action) -> None:
        """In a world sampled for ``seat``: the other seats' real choices become ``blank`` (they
        stay submitted, so ``to_act`` and every view are unchanged)."""
        for s, action in enumerate(self.submissions):
            if s != seat and action is not None:
                self.submissions[s] = blank

    def _restore_submissions(self, to_act: Sequence[int], blank: Action) -> None:
        """In a world rebuilt from a view: ``to_act`` as the view says, and every seat in play
        that is already in this tick submitted ``blank`` (what it chose is hidden)."""
        self._waiting = tuple(to_act)
        if not self.realtime:
            for s in self.seats_in_play():
                if s not in self._waiting:
                    self.submissions[s] = blank

    def _shallow_copy(self) -> Self:
        other = super()._shallow_copy()
        other.submissions = list(self.submissions)
        return other
