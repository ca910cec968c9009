"""8-5-3's strategy: what a trump or a discard is worth to the first player in one world.

A search bot (``levata.bots.search.pimc``) averages these over worlds rebuilt from its view:

* **trump**: for each suit, F takes the world's Surpriza, discards the four cards a player
  would (:func:`~levata.bots.strategy.bury_order`, the quota family's one rule of thumb for
  the left-over cards: trumps and Aces stay, low cards of short side suits go), and the deal
  is played out with that trump by greedy playouts in C
  (:func:`~levata.bots.strategy.playout_tricks`); the value is F's mean tricks;
* **discard** (one card at a time): each candidate completes the discards with the cards a
  player would discard next, and is worth F's mean tricks after it.

The requests are not rated (the bot leaves them to the heuristic): they come before the
trump, and their worth hangs on cards the requester cannot see. In card play a seat plays
for its own tricks (the score is ``tricks - quota``): the plain goal.

>>> from levata.engine import game
>>> state = game("eight-five-three").new_match(players=3, options={"shuffler": 2}, seed=1)
>>> values = EightFiveThreeStrategy().rate_calls(state, 0, state.legal_actions(0), None)
>>> sorted(a.choice for a in values), all(0 <= v <= 16 for v in values.values())
(['C', 'D', 'H', 'S'], True)
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy import Strategy, rate_taking_up
from levata.engine.contract import Action
from levata.engine.family import quotas as qf
from levata.engine.family.tricks import TrickGame
from levata.engine.games.eight_five_three import EightFiveThreeState
from levata.engine.solver import Solver

__all__ = ["EightFiveThreeStrategy"]


class EightFiveThreeStrategy(Strategy):
    """8-5-3 for the search bots: F's trump and discards, by greedy playouts."""

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        """F's mean tricks in ``world`` after each trump or discard of ``calls``; ``{}``
        for every other call."""
        assert isinstance(world, EightFiveThreeState)
        f = world.first
        if seat != f:
            return {}
        return rate_taking_up(
            world, f, calls, world.kitty, world.discards, qf.LEFT_OVER, must_trump=False
        )
