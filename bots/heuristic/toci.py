"""A Toci bot that never misses a fit and never lets a rival's miss go.

* A turned-up card that fits somewhere is always placed (each placement lets the seat turn up
  another card instead of keeping one): on the pile of the rival holding the fewest cards, the
  one nearest to going out, else on the house
  (:func:`~levata.engine.games.toci.rules.careful_target`). A card that fits nowhere goes on
  the own pile.
* In a toci window it works out, as every seat must, whether the card just put on the actor's
  own pile fitted anywhere (by the match's houses: one, or one per A with ``house_by_suit``):
  it calls ``toci`` when it did (a valid call is free and keeps the card with the actor),
  else passes, or in real time, as the next seat, turns up at once. As the actor it corrects
  its own miss where it can (it never misses, but a position may start in one).

The same choices are the game's fast playout policy (``TociPlayout.choose``), so the search's
rollouts play as this bot does. The window's moves are :meth:`HeuristicBot.settled`: a call on
a card that fitted is free (the card stays with the actor; one on a card that fitted nowhere
does nothing at all), and a correction never hurts the actor, so no search betters them and
the search bot plays them at once.

>>> from levata.engine.games.toci import TociState
>>> state = TociState.set_up(3, piles=["", "9S", "2H"], house="AC", circle="10H")
>>> bot = HeuristicBot(seed=1)
>>> str(bot.act(state.view(0), state.legal_actions(0)))
'place_on 1'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.engine import Action, Card, SeatView
from levata.engine.games.toci import PLACE_HOUSE, PLACE_OWN, TOCI, WINDOW, correct, place_on
from levata.engine.games.toci.rules import HOUSE, careful_target, targets

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """Places every card it may, calls toci on every missed fit."""

    name = "heuristic"

    def __init__(self, game: str = "toci", seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        if view.phase == WINDOW:
            return window_move(view, legal)
        actor = view.counters["actor"]
        fitting = where_it_fits(view, view.zones["revealed"][-1], tops(view))
        if not fitting:
            return PLACE_OWN
        target = careful_target(fitting, held(view), actor)
        return PLACE_HOUSE if target == HOUSE else place_on(int(target))

    def settled(self, view: SeatView, legal: Sequence[Action]) -> Action | None:
        """The window's move, which no search betters (see the module); None elsewhere.

        >>> from levata.engine.games.toci import TociState
        >>> state = TociState.set_up(3, piles=["", "6S", "KD"], circle="7C 2H")
        >>> HeuristicBot().settled(state.view(0), state.legal_actions(0)) is None
        True
        >>> state.apply(0, PLACE_OWN)  # 7C fitted on seat 1's 6S
        >>> str(HeuristicBot().settled(state.view(2), state.legal_actions(2)))
        'toci'
        """
        return window_move(view, legal) if view.phase == WINDOW else None


def tops(view: SeatView) -> list[Card | None]:
    """Each seat's pile top (``None``: an empty pile)."""
    piles = [view.zones[f"pile:{s}"] for s in range(view.players)]
    return [p[-1] if p else None for p in piles]


def held(view: SeatView) -> list[int]:
    """The cards each seat holds: its stock and its pile."""
    counts = view.counts
    return [counts[f"stock:{s}"] + counts[f"pile:{s}"] for s in range(view.players)]


def where_it_fits(view: SeatView, card: Card, piles: Sequence[Card | None]) -> list[int | str]:
    """Where ``card``, held by the actor, fits on the table ``view`` shows."""
    houses = [Card.parse(c) for c in view.facts["houses"]]
    by_suit = bool(view.options.get("house_by_suit"))
    actor, finished = view.counters["actor"], view.facts["finished"]
    return targets(card, houses, piles, actor, finished, by_suit)


def window_move(view: SeatView, legal: Sequence[Action]) -> Action:
    """The window's move: a rival calls ``toci`` when the card put on the actor's pile
    fitted somewhere, the actor corrects its miss where the careful player would have put
    the card; else ``pass`` (real time: the next seat turns up, ``reveal``, the first of its
    legal moves)."""
    actor = view.counters["actor"]
    piles = tops(view)
    card = piles[actor]  # the card just put on the actor's own pile
    assert card is not None
    fitting = where_it_fits(view, card, piles)
    if not fitting or len(legal) == 1:
        return legal[0]  # pass or reveal: no call, or the next seat's call is in already
    if view.seat != actor:
        return TOCI
    return correct(careful_target(fitting, held(view), actor))
