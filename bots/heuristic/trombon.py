"""Trombon's reference bots: the heuristic and two baselines.

* :class:`HeuristicBot` plays the truth when it can (every card of the claimed rank it holds,
  the count true), lies only when it must (no card of the rank: its least useful single card,
  count true) and calls when the claim is impossible or unlikely from its own hand and the
  cards it has seen (:func:`~levata.bots.strategy.trombon.lie_odds`), more readily when the
  claimant is going out and less when the pile is big.
* :class:`AlwaysCallBot` plays as the heuristic and calls ``trombon`` on every play.
* :class:`NeverLieBot` never lies of its own will: the truth when it can, one card with its
  true count when the rules force a lie, and it never calls.

>>> from levata.engine import game
>>> state = game("trombon").new_match(players=3, seed=2)
>>> seat = state.to_act()[0]
>>> bot = HeuristicBot("trombon", seed=1)
>>> bot.act(state.view(seat), state.legal_actions(seat)).kind
'claim'
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.bots.strategy.trombon import Table, call_choice, play_choice
from levata.engine import Action, SeatView
from levata.engine.games.trombon.world import HistoryReader

__all__ = ["AlwaysCallBot", "HeuristicBot", "NeverLieBot"]


class HeuristicBot:
    """Truth when it can, a lie when it must, a call when the claim is unlikely."""

    name = "heuristic"
    always_call = False
    never_call = False

    def __init__(self, game: str = "trombon", seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.reader = HistoryReader()

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        table = Table.from_view(view, self.reader)
        if view.phase == "window":
            if self.never_call:
                return legal[0]
            kind = "trombon" if self.always_call else call_choice(table, view.seat, self.rng)
            return next((a for a in legal if a.kind == kind), legal[0])
        return play_choice(table, view.seat, legal, self.rng)


class AlwaysCallBot(HeuristicBot):
    """Baseline: plays as the heuristic, calls TROMBON on every play."""

    name = "always_call"
    always_call = True


class NeverLieBot(HeuristicBot):
    """Baseline: lies only when the rules force it (never about the count), never calls."""

    name = "never_lie"
    never_call = True
