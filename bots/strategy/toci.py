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

from levata.bots.strategy import Strategy
from levata.engine import Action, Card, SeatView
from levata.engine.games.toci import PASS, TOCI, WINDOW, correct
from levata.engine.games.toci.rules import careful_target, targets

__all__ = ["TociStrategy", "held", "tops", "window_move"]


def tops(view: SeatView) -> list[Card | None]:
    """Each seat's pile top (``None``: an empty pile)."""
    piles = [view.zones[f"pile:{s}"] for s in range(view.players)]
    return [p[-1] if p else None for p in piles]


def held(view: SeatView) -> list[int]:
    """The cards each seat holds: its stock and its pile."""
    counts = view.counts
    return [counts[f"stock:{s}"] + counts[f"pile:{s}"] for s in range(view.players)]


def window_move(view: SeatView) -> Action:
    """The window's move: a rival calls ``toci`` when the card put on the actor's pile
    fitted somewhere, the actor corrects its miss where the careful player would have put the
    card; else ``pass``."""
    actor = view.counters["actor"]
    piles = tops(view)
    card = piles[actor]  # the card just put on the actor's own pile
    assert card is not None
    house = view.zones["house"]
    fitting = targets(card, house[-1] if house else None, piles, actor, view.facts["finished"])
    if not fitting:
        return PASS
    if view.seat != actor:
        return TOCI
    return correct(careful_target(fitting, held(view), actor))


class TociStrategy(Strategy):
    """Toci: the window's calls and corrections are settled; placements are searched."""

    def settled(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        if view.phase != WINDOW:
            return None
        return window_move(view)
