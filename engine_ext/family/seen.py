"""Per-seat histories kept as events are emitted, so a view never filters the whole log.

A mixin for a :class:`~levata.engine.contract.GameState` (put it before ``GameState`` in the
bases); the game calls :meth:`SeatHistories._start_histories` before its first event, and
:meth:`SeatHistories._refresh_histories` for the seats whose private events it rewrote.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from levata.engine.contract import Event, GameState

__all__ = ["SeatHistories"]


class SeatHistories(GameState):
    """Each seat's history as a list that grows with every event it may see.

    >>> from levata.engine import game
    >>> state = game("macao").new_match(players=2, seed=1)
    >>> state.history(0) == tuple(e for e in state.events() if e.visible_to(0))
    True
    """

    _seen: list[list[Event]]

    def _start_histories(self) -> None:
        self._seen = [[] for _ in range(self.players)]

    def _emit(self, kind: str, /, **kwargs: Any) -> Event:
        ev = super()._emit(kind, **kwargs)
        seen = self._seen
        if ev.audience is None:
            for lst in seen:
                lst.append(ev)
        else:
            for s in ev.audience:
                seen[s].append(ev)
        return ev

    def history(self, seat: int) -> tuple[Event, ...]:
        return tuple(self._seen[seat])

    def _refresh_histories(self, seats: Iterable[int]) -> None:
        """Rebuild the histories of ``seats`` from the log (after events were rewritten)."""
        for s in seats:
            self._seen[s] = [e for e in self._log if e.visible_to(s)]
