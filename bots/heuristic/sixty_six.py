"""A Sixty-six player that counts: it remembers every card it saw played this deal (completed
tricks lie face down, so its memory is the events it was told), keeps both seats' points,
and decides from them.

* **Claim**: as soon as its counted points reach 66 on lead (or after the last trick); never
  below (a wrong claim gives the other seat 2 or 3).
* **Exchange**: the trump jack for the turned card whenever it may.
* **Marriage**: whenever it holds one on lead with the stock open (trumps first); it leads the
  queen and keeps the king.
* **Close**: when its points and the tricks it is sure of (top trumps, then aces and tens
  whose betters are gone) make 66.
* **Play**: leading, a cheap card of a side suit (never half of a marriage); following with
  the stock open, it wins an ace or a ten cheaply, wins low leads with the ten or ace of
  their suit, and otherwise throws its cheapest card; once play is strict, it wins with its
  lowest winner or throws its cheapest card.

Its memory (:func:`~levata.bots.strategy.sixty_six.deal_from_view`) and its policy
(:func:`~levata.bots.strategy.sixty_six.choose`) live in :mod:`levata.bots.strategy.sixty_six`,
where the search bot plays its simulations with the same policy.

>>> from levata.engine import game
>>> state = game("sixty-six").new_match(players=2, options={"first": 0}, seed=4)
>>> bot = HeuristicBot("sixty-six")
>>> bot.act(state.view(0), state.legal_actions(0)) in state.legal_actions(0)
True
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy.sixty_six import CLAIM, PASS, action_of, choose, deal_from_view, move_of
from levata.engine import Action, SeatView

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """Counts what it saw and plays by :func:`choose`."""

    name = "heuristic"

    def __init__(self, game: str = "sixty-six", seed: int = 0) -> None:
        self.game = game

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        d = deal_from_view(view)
        moves = [move_of(a) for a in legal]
        if view.phase == "claim":
            d.hands = [[], []]  # the last trick is in: the points are final
            return action_of(CLAIM if d.points(view.seat) >= 66 else PASS, legal)
        return action_of(choose(d, view.seat, moves), legal)
