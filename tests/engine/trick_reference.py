"""An independent statement of plain trick play (follow, else trump, who takes the trick),
written apart from the engine: the reference the kernel tests check ``TrickRules`` against.
The engine and the bots read the game's ``TrickRules`` (``levata.engine.family.tricks``).

>>> from levata.engine.cards import Suit, parse_cards
>>> hand = parse_cards("9H JH AD")
>>> [str(c) for c in legal_plays(hand, led=Suit.SPADES, trump=Suit.HEARTS)]
['9H', 'JH']
>>> winner([(0, Card.parse("KS")), (1, Card.parse("2H")), (2, Card.parse("AS"))], Suit.HEARTS)
1
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.engine.cards import Card, Suit

__all__ = ["beats", "legal_plays", "winner"]


def legal_plays(
    hand: Sequence[Card], led: Suit | None, trump: Suit | None, must_trump: bool = True
) -> list[Card]:
    """The cards of ``hand`` that may go on a trick whose led suit is ``led``.

    Follow suit if you can; if you cannot and ``must_trump``, play a trump if you hold one;
    otherwise anything. ``led`` is ``None`` when the seat leads: every card is legal.
    """
    if led is None:
        return list(hand)
    follow = [c for c in hand if c.suit == led]
    if follow:
        return follow
    if must_trump and trump is not None:
        trumps = [c for c in hand if c.suit == trump]
        if trumps:
            return trumps
    return list(hand)


def beats(card: Card, best: Card, trump: Suit | None) -> bool:
    """Does ``card`` beat the trick's current best card ``best``?

    A trump beats any non-trump; otherwise only a higher card of the best card's suit wins.
    """
    if card.suit == best.suit:
        return card.rank > best.rank
    return card.suit == trump


def winner(plays: Sequence[tuple[int, Card]], trump: Suit | None) -> int:
    """The seat that takes a trick given as ``(seat, card)`` pairs in play order."""
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        if beats(card, best, trump):
            best_seat, best = seat, card
    return best_seat
