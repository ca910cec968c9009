"""A Toci bot that never misses a fit and never lets a rival's miss go.

* A turned-up card that fits somewhere is always placed (each placement lets the seat turn up
  another card instead of keeping one): on the pile of the rival holding the fewest cards, the
  one nearest to going out, else on the house
  (:func:`~levata.engine.games.toci.rules.careful_target`). A card that fits nowhere goes on
  the own pile.
* In a toci window it works out, as every seat must, whether the card just put on the actor's
  own pile fitted anywhere: it calls ``toci`` when it did (a valid call is free and keeps the
  card with the actor), else passes. As the actor it corrects its own miss where it can
  (it never misses, but a position may start in one).

The same choices are the game's fast playout policy (``TociState.choose``), so the search's
rollouts play as this bot does.

>>> from levata.engine.games.toci import TociState
>>> state = TociState.set_up(3, piles=["", "9S", "2H"], house="AC", circle="10H")
>>> bot = HeuristicBot(seed=1)
>>> str(bot.act(state.view(0), state.legal_actions(0)))
'place_on 1'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.bots.strategy.toci import held, tops, window_move
from levata.engine import Action, SeatView
from levata.engine.games.toci import PLACE_HOUSE, PLACE_OWN, WINDOW, place_on
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
            return window_move(view)
        house = view.zones["house"]
        actor = view.counters["actor"]
        card = view.zones["revealed"][-1]
        fitting = targets(
            card, house[-1] if house else None, tops(view), actor, view.facts["finished"]
        )
        if not fitting:
            return PLACE_OWN
        target = careful_target(fitting, held(view), actor)
        return PLACE_HOUSE if target == HOUSE else place_on(int(target))
