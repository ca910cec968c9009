"""One match driven one decision at a time: what both environments share.

The engine lets several seats act at once (a real-time race, a simultaneous tick); an
environment of PettingZoo's AEC or OpenSpiel's sequential kind asks one seat at a time. The
:class:`Table` picks it: among the seats to act, the first after the seat that acted last, in
turn order, so no seat is starved. A real-time game's clock is told ``CLOCK_STEP_MS`` more
per decision (as the conformance suite plays them), so a match always ends.

>>> from levata.engine import game
>>> table = Table(game("whist"), players=3, options={"deal_size": 1}, seed=4)
>>> while not table.over:
...     seat = table.seat
...     table.play(table.encoding.index(table.state.legal_actions(seat)[0]))
>>> table.standing()
(1.0, 0.0, 1.0)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from levata.engine import GameSpec, GameState
from levata.engine.testing import CLOCK_STEP_MS
from levata.envs.encoding import Encoding

__all__ = ["Table"]


class Table:
    """A match of ``spec`` from ``seed`` (the same seed deals the same cards), with its
    :class:`~levata.envs.encoding.Encoding` (shared when given: it is the same for every
    match at this table size and options)."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        encoding: Encoding | None = None,
    ) -> None:
        self.encoding = encoding or Encoding(spec, players, options)
        self.state: GameState = spec.new_match(
            players=players, options=self.encoding.options, seed=seed
        )
        self.players = players
        self.steps = 0
        self._last = -1
        self.seat = -1
        self._next()

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        other = copy.copy(self)  # the encoding is shared; the match is the engine's clone
        other.state = self.state.clone()
        return other

    @property
    def over(self) -> bool:
        return self.state.is_over()

    def _next(self) -> None:
        """Tell a real-time game the clock, then pick the seat to act (-1 once over)."""
        state = self.state
        if state.realtime and not state.is_over():
            state.advance_clock(self.steps * CLOCK_STEP_MS)
        if state.is_over():
            self.seat = -1
            return
        seats = state.to_act()
        n = self.players
        self.seat = min(seats, key=lambda s: (s - self._last - 1) % n)

    def play(self, index: int) -> None:
        """The seat to act plays the action of slot ``index`` (``IllegalAction`` if it may
        not: the state is then unchanged)."""
        seat = self.seat
        self.state.apply(seat, self.encoding.action(index))
        self._last = seat
        self.steps += 1
        self._next()

    def mask(self, seat: int) -> Any:
        """The legal-action mask of ``seat`` (all zero when it is not to act)."""
        legal = self.state.legal_actions(seat) if seat == self.seat else []
        return self.encoding.mask(legal)

    def observe(self, seat: int, out: Any = None) -> Any:
        return self.encoding.observe(self.state.view(seat, history=False), out)

    def standing(self) -> tuple[float, ...]:
        """Each seat's standing at the end, in ``[0, 1]``: 1 for first place, 0 for last,
        evenly between (tied seats share their rank): comparable across games."""
        ranks = self.state.result().ranks
        n = self.players
        return tuple((n - r) / (n - 1) for r in ranks)

    def scores(self) -> tuple[float, ...]:
        """The match's final scores, on the game's own scale."""
        return tuple(float(s) for s in self.state.result().scores)
