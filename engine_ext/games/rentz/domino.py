"""Rentz, the domino sub-game: the runs around the jacks, the valid cards, whose turn.

Each suit is either not started or a run of consecutive ranks containing its jack. A jack
starts its suit; a card extends a started run by one below (down to the deck's lowest rank)
or one above (up to the ace). A seat that holds a valid card must lay one; otherwise it
passes. An ace gives its seat another turn; the lowest card makes the next seat still holding
cards lose its turn.

>>> rows = rows_of(parse_cards("10S JS"))
>>> rows[Suit.SPADES]
(10, 11)
>>> [str(c) for c in valid_cards(parse_cards("9S QS 8S JH QH"), rows, low=7)]
['9S', 'QS', 'JH']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from levata.engine.cards import Card, Suit, parse_cards  # noqa: F401  (doctests)

__all__ = ["ACE", "JACK", "Rows", "is_valid", "next_holder", "rows_of", "valid_cards"]

JACK, ACE = 11, 14
#: Per started suit, the lowest and highest rank of its run.
Rows = dict[Suit, tuple[int, int]]


def rows_of(layout: Iterable[Card]) -> Rows:
    """The runs the cards laid so far make, per suit."""
    rows: Rows = {}
    for c in layout:
        lo, hi = rows.get(c.suit, (c.rank, c.rank))
        rows[c.suit] = (min(lo, c.rank), max(hi, c.rank))
    return rows


def is_valid(card: Card, rows: Rows, low: int) -> bool:
    """May ``card`` be laid on ``rows`` (a deck whose lowest rank is ``low``)?

    >>> is_valid(Card.parse("JD"), {}, 7), is_valid(Card.parse("QD"), {}, 7)
    (True, False)
    """
    run = rows.get(card.suit)
    if run is None:
        return card.rank == JACK
    lo, hi = run
    return (card.rank == lo - 1 and card.rank >= low) or (card.rank == hi + 1 and card.rank <= ACE)


def valid_cards(hand: Iterable[Card], rows: Rows, low: int) -> list[Card]:
    """The cards of ``hand`` that may be laid now, in the hand's order."""
    return [c for c in hand if is_valid(c, rows, low)]


def next_holder(hands: Sequence[Sequence[Card]], seat: int) -> int:
    """The next seat after ``seat`` in play order that still holds cards (``seat`` itself
    when no other does).

    >>> next_holder([[Card.parse("7S")], [], [Card.parse("8S")]], 0)
    2
    """
    n = len(hands)
    for k in range(1, n + 1):
        t = (seat + k) % n
        if hands[t]:
            return t
    return seat
