"""What the search knows of Toci beyond its rules: the toci window needs no search.

In a window every other seat may call ``toci`` for free: a call on a card that fitted keeps
the card with the actor, one on a card that fitted nowhere does nothing at all, so the call
when the card fitted (the heuristic's) can never be bettered. The actor's late correction,
where the card fits, moves it off its own pile unless a call beat it, and passing keeps it: the
correction can never be worse. Placements are left to the search.

>>> from levata.engine.games.toci import TociState, PLACE_OWN
>>> state = TociState.set_up(3, piles=["", "6S", "KD"], circle="7C 2H")
>>> state.apply(0, PLACE_OWN)
>>> str(TociStrategy().settled(state.view(2), state.legal_actions(2)))
'toci'
>>> state = TociState.set_up(3, piles=["", "6S", "KD"], circle="7C 2H")
>>> TociStrategy().settled(state.view(0), state.legal_actions(0)) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.heuristic.toci import HeuristicBot
from levata.bots.strategy import Strategy
from levata.engine import Action, SeatView
from levata.engine.games.toci import WINDOW

__all__ = ["TociStrategy"]

_CAREFUL = HeuristicBot()


class TociStrategy(Strategy):
    """Toci: the window's calls and corrections are settled; placements are searched."""

    def settled(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        if view.phase != WINDOW:
            return None
        return _CAREFUL.act(view, legal)  # deterministic: it draws nothing from its stream
