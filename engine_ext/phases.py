"""The shared phase names a view reports (:attr:`SeatView.phase
<levata.engine.contract.SeatView.phase>`). A game names its own phases as constants in its
module (Macao's ``request``, Repezita's ``race``).

>>> from levata.engine import game
>>> game("whist").new_match(players=3, seed=1).view(0).phase == BIDDING
True
"""

from __future__ import annotations

__all__ = ["BIDDING", "OVER", "PLAYING"]

#: Seats bid (or declare a contract) before the cards are played.
BIDDING = "bid"
#: Cards are played (to tricks, to a pile).
PLAYING = "play"
#: The match is over: nobody is to act.
OVER = "over"
