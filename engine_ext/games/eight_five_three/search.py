"""8-5-3's search hooks: what a trump or a discard is worth to the first player in one world.

A search bot (``levata.bots.search.pimc``) averages these over worlds rebuilt from its view:

* **trump**: for each suit, F takes the world's Surpriza, discards the four cards a player
  would (:func:`~levata.engine.games.banking.search.bury_order`, the quota family's one
  rule of thumb for the left-over cards: trumps and Aces stay, low cards of short side suits
  go), and the deal is played out with that trump by greedy playouts in C
  (:func:`levata.engine.playouts.playouts`); the value is F's mean tricks;
* **discard** (one card at a time): each candidate completes the discards with the cards a
  player would discard next, and is worth F's mean tricks after it.

The requests are not rated (the bot leaves them to the heuristic): they come before the
trump, and their worth hangs on cards the requester cannot see.

>>> from levata.engine import game
>>> state = game("eight-five-three").new_match(players=3, options={"shuffler": 2}, seed=1)
>>> values = rate_calls(state, 0, state.legal_actions(0))
>>> sorted(a.choice for a in values), all(0 <= v <= 16 for v in values.values())
(['C', 'D', 'H', 'S'], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.family import quotas as qf
from levata.engine.games.banking.search import bury_order
from levata.engine.playouts import playouts
from levata.engine.rules import TrickRules

__all__ = ["PLAYOUTS", "rate_calls"]

#: Greedy playouts per candidate and world (10% random cards, so that they differ).
PLAYOUTS = 12


def _tricks(rules: TrickRules, hands: list[list[Card]], leader: int, seat: int, seed: int) -> float:
    got: Any = playouts(
        rules,
        [mask_of(h) for h in hands],
        leader,
        n=PLAYOUTS,
        policy="greedy",
        epsilon=0.1,
        seed=seed,
    )
    return float(got["tricks"][seat])


def rate_calls(state: Any, seat: int, calls: Sequence[Action]) -> dict[Action, float]:
    """F's mean tricks in this full state after each trump or discard of ``calls``; ``{}``
    for every other call. ``state`` is an ``EightFiveThreeState``."""
    f, n = state.first, state.players
    if seat != f:
        return {}
    seed = state.seed & 0xFFFFFFFF
    out: dict[Action, float] = {}
    for action in calls:
        hands = [list(h) for h in state.hands]
        if action.kind == "trump" and action.choice:
            suit = Suit.parse(action.choice)
            hands[f] = hands[f] + list(state.kitty)
            buried = bury_order(hands[f], suit)[: qf.LEFT_OVER]
            hands[f] = [c for c in hands[f] if c not in buried]
            rules = TrickRules(n, suit)
        elif action.kind == "discard" and action.card is not None:
            rest = [c for c in hands[f] if c != action.card]
            more = qf.LEFT_OVER - len(state.discards) - 1
            buried = bury_order(rest, state.trump)[:more]
            hands[f] = [c for c in rest if c not in buried]
            rules = state.rules
        else:
            continue
        out[action] = _tricks(rules, hands, f, f, seed)
    return out
