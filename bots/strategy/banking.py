"""Banking's strategy: what a trump or a Gunoi card is worth to the Declarant in one world.

A search bot (``levata.bots.search.pimc``) averages these over worlds rebuilt from its view:

* **trump**: for each suit, the Declarant takes the world's Surpriza, buries the four cards a
  player would (:func:`~levata.bots.strategy.bury_order`), and the deal is played out with
  that trump by greedy playouts in C (:func:`~levata.bots.strategy.playout_tricks`); the
  value is its mean tricks;
* **discard** (the Gunoi, one card at a time): each candidate card completes a Gunoi with the
  cards a player would bury next, and is worth the Declarant's mean tricks after it.

Other calls (offers, waives, refusals, declarations, the Final Exchange) are not rated: the
bot leaves them to the heuristic. The exchanges between the trump and the play are left out
of these playouts (they are the other seats' own choices, and small beside the trump). In
card play a seat plays for its own tricks (the score is ``tricks - quota``, so every trick
is worth one): the plain :class:`~levata.bots.strategy.Strategy` goal.

>>> from levata.engine import game
>>> state = game("banking").new_match(players=4, seed=4)
>>> BankingStrategy().rate_calls(state, 1, [], None)
{}
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy import Strategy, rate_taking_up
from levata.engine.contract import Action
from levata.engine.family.tricks import TrickGame
from levata.engine.games.banking import BankingState
from levata.engine.games.banking import rules as br
from levata.engine.solver import Solver

__all__ = ["BankingStrategy"]


class BankingStrategy(Strategy):
    """Banking for the search bots: the Declarant's trump and Gunoi, by greedy playouts."""

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        """The Declarant's mean tricks in ``world`` after each trump or Gunoi card of
        ``calls``; ``{}`` for every other call. ``solver`` is not needed: 48 cards are too
        many to solve."""
        assert isinstance(world, BankingState)
        k = world.declarant
        if seat != k:
            return {}
        return rate_taking_up(
            world, k, calls, world.kitty, world.gunoi, br.SURPRIZA, must_trump=True
        )
