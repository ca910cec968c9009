"""A baseline of another bidding style: bids and calls at random, cards as the heuristic.

A search that reads the other seats' bids by a model of its own (Whist's pimc reads them as
counting bidders) is measured against this table to see what its model costs when it is
wrong: here a bid says nothing of the hand, while the card play, the game's heuristic bot's,
still steers for the bid made (``docs/games/whist.md``, "Its bids against tables of another
style"). It is no game's kind; a tournament names it by its path::

    levata tournament --game whist -n 4 --deals 60 --unit deal --seating rotate \\
        --bots pimc:time_ms=100,levata.bots.random_bids:RandomBidsBot

>>> from levata.engine import game
>>> state = game("whist").new_match(players=4, options={"deal_size": 5}, seed=4)
>>> bot = RandomBidsBot("whist", seed=2)
>>> seat = state.to_act()[0]
>>> bot.act(state.view(seat), state.legal_actions(seat)).kind
'bid'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.bots.base import Bot, make_bot
from levata.engine import Action, SeatView, actions

__all__ = ["RandomBidsBot"]


class RandomBidsBot:
    """Every call (a bid, a contract, anything but a card played) uniformly at random; card
    play by the game's heuristic bot."""

    name = "random-bids"

    def __init__(self, game: str = "whist", seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.cards: Bot = make_bot("heuristic", game, seed)

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if any(a.kind != actions.PLAY or a.card is None for a in legal):
            return self.rng.choice(list(legal))
        return self.cards.act(view, legal)
