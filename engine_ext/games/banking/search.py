"""Banking's search hooks: what a trump or a Gunoi card is worth to the Declarant in one world.

A search bot (``levata.bots.search.pimc``) averages these over worlds rebuilt from its view:

* **trump**: for each suit, the Declarant takes the world's Surpriza, buries the four cards a
  player would (:func:`bury_order`), and the deal is played out with that trump by greedy
  playouts in C (:func:`levata.engine.playouts.playouts`); the value is its mean tricks;
* **discard** (the Gunoi, one card at a time): each candidate card completes a Gunoi with the
  cards a player would bury next, and is worth the Declarant's mean tricks after it.

Other calls (offers, waives, refusals, declarations, the Final Exchange) are not rated: the
bot leaves them to the heuristic. The exchanges between the trump and the play are left out
of these playouts (they are the other seats' own choices, and small beside the trump).

>>> from levata.engine import Card, Suit, parse_cards
>>> [str(c) for c in bury_order(parse_cards("3D AS 2S 9S 10S JS 5C"), Suit.CLUBS)[:2]]
['3D', '2S']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.games.banking import rules as br
from levata.engine.playouts import playouts
from levata.engine.rules import TrickRules

__all__ = ["PLAYOUTS", "bury_order", "gunoi_value", "rate_calls"]

#: Greedy playouts per candidate and world (10% random cards, so that they differ).
PLAYOUTS = 12


def gunoi_value(card: Card, hand: Sequence[Card], trump: Suit | None) -> float:
    """What keeping ``card`` is worth to the Declarant: the lowest is buried first. Trumps
    and Aces stay; a low card of a short side suit goes first (burying it makes a void).

    >>> from levata.engine import parse_cards
    >>> hand = parse_cards("3D AS 2S 9S 10S JS 5C")
    >>> gunoi_value(Card.parse("3D"), hand, Suit.CLUBS) < gunoi_value(Card.parse("2S"), hand, None)
    True
    """
    if card.suit == trump:
        return 100.0 + card.rank
    if card.rank == 14:
        return 60.0
    length = sum(1 for c in hand if c.suit == card.suit)
    return 2.0 * card.rank + length


def bury_order(hand: Sequence[Card], trump: Suit | None) -> list[Card]:
    """``hand`` in the order a Declarant buries it (:func:`gunoi_value`, lowest first)."""
    return sorted(hand, key=lambda c: (gunoi_value(c, hand, trump), c))


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
    """The Declarant's mean tricks in this full state after each trump or Gunoi card of
    ``calls``; ``{}`` for every other call. ``state`` is a ``BankingState``."""
    k, n = state.declarant, state.players
    if seat != k:
        return {}
    seed = state.seed & 0xFFFFFFFF
    out: dict[Action, float] = {}
    for action in calls:
        hands = [list(h) for h in state.hands]
        if action.kind == "trump" and action.choice:
            suit = Suit.parse(action.choice)
            hands[k] = hands[k] + list(state.kitty)
            buried = bury_order(hands[k], suit)[: br.SURPRIZA]
            hands[k] = [c for c in hands[k] if c not in buried]
            rules = TrickRules(n, suit, must_trump=True)
        elif action.kind == "discard" and action.card is not None:
            rest = [c for c in hands[k] if c != action.card]
            more = br.SURPRIZA - len(state.gunoi) - 1
            buried = bury_order(rest, state.trump)[:more]
            hands[k] = [c for c in rest if c not in buried]
            rules = state.rules
        else:
            continue
        out[action] = _tricks(rules, hands, k, k, seed)
    return out
