"""Tabinet's numbers: what a card is worth in a sum and in the score, and what a refusal needs.

>>> from levata.engine.cards import parse_cards
>>> [values(c) for c in parse_cards("AS 9H JC QD KS")]
[(1, 11), (9,), (12,), (13,), (14,)]
>>> card_points(parse_cards("10D 2C AS 5H 10C"))  # scenario 9
6
>>> may_refuse(parse_cards("3S 5D KH 8C")), may_refuse(parse_cards("2C AD 5S 6S"))
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable

from levata.engine.cards import Card, Suit, french_deck

__all__ = [
    "ACE",
    "TEN_OF_DIAMONDS",
    "TWO_OF_CLUBS",
    "card_points",
    "is_point_card",
    "may_refuse",
    "points_of",
    "targets",
    "values",
]

TEN, JACK, QUEEN, KING, ACE = 10, 11, 12, 13, 14
TWO_OF_CLUBS = Card(Suit.CLUBS, 2)
TEN_OF_DIAMONDS = Card(Suit.DIAMONDS, 10)
#: A card's values in a sum, by rank: J 12, Q 13, K 14, an ace 1 or 11.
_VALUES = {r: (r,) for r in range(2, 11)} | {JACK: (12,), QUEEN: (13,), KING: (14,), ACE: (1, 11)}
#: The refusal test: more point cards than this among the first four forbid it (D2).
REFUSE_AT_MOST = 1


def values(card: Card) -> tuple[int, ...]:
    """What ``card`` may count in a sum (a table ace counts 1 or 11, set by set)."""
    return _VALUES[card.rank]


def targets(card: Card) -> tuple[int, ...]:
    """The values a played ``card`` may capture for (a played ace: the player says which)."""
    return _VALUES[card.rank]


def is_point_card(card: Card) -> bool:
    """A, K, Q, J, 10 and the 2 of clubs: what scores, and what the refusal test counts."""
    return card.rank >= TEN or card == TWO_OF_CLUBS


def points_of(card: Card) -> int:
    """The card's points: A K Q J 10 one each, but the 10 of diamonds and the 2 of clubs two."""
    return _POINTS[card.rank][card.suit]


def _points(card: Card) -> int:
    if card in (TEN_OF_DIAMONDS, TWO_OF_CLUBS):
        return 2
    return 1 if card.rank >= TEN else 0


#: Looked up by rank then suit, not worked out (and not hashed: a card hashes in Python):
#: search asks at every move of every rollout.
_POINTS = [[0] * 4 for _ in range(ACE + 1)]
for _card in french_deck():
    _POINTS[_card.rank][_card.suit] = _points(_card)


def card_points(cards: Iterable[Card]) -> int:
    """The points of a pile of cards (the deck holds 23)."""
    points = _POINTS
    return sum(points[c.rank][c.suit] for c in cards)


def may_refuse(first_four: Iterable[Card]) -> bool:
    """The first player may refuse its first four cards with at most one point card (D2)."""
    return sum(1 for c in first_four if is_point_card(c)) <= REFUSE_AT_MOST
