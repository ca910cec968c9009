"""Huzur's card rules as plain functions: the deck, the order inside a suit, what beats what,
which leads are legal, and whether some cards can beat a play (the composite moves' pruning).

Shared by the game, its heuristic bot and its fast playout copy, so that all three judge a
card alike.

>>> from levata.engine.cards import Card, Suit
>>> two, king = Card.parse("2D"), Card.parse("KD")
>>> beats(two, king, Suit.CLUBS), beats(king, two, Suit.CLUBS)
(True, False)
>>> len(deck(3)), len(deck(4))
(40, 48)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from levata.engine.cards import Card, Suit, french_deck

__all__ = [
    "HAND_SIZE",
    "LEAD_SIZES",
    "beats",
    "can_beat",
    "deck",
    "extends",
    "is_lead",
    "lowest_trump",
    "power",
]

#: Cards a hand is refilled to while the stock lasts.
HAND_SIZE = 6
#: The sizes a lead may have: one card, three with a pair, five with two pairs.
LEAD_SIZES = (1, 3, 5)
ACE = 14
#: Inside a suit the A, 2 and 3 rank above the King (A > 2 > 3 > K > Q > ...).
_POWER = {ACE: 16, 2: 15, 3: 14}


def power(card: Card) -> int:
    """The card's strength inside its suit: 5..13 for 5..K, then 3, 2, A (14, 15, 16).

    >>> [power(Card.parse(c)) for c in ("7H", "KH", "3H", "2H", "AH")]
    [7, 13, 14, 15, 16]
    """
    return _POWER.get(card.rank, card.rank)


def deck(players: int) -> tuple[Card, ...]:
    """The cut deck: without 4, 5 and 6 for three players (40 cards), without 4 for four (48).

    >>> sorted({c.rank for c in deck(3)}) == [2, 3, 7, 8, 9, 10, 11, 12, 13, 14]
    True
    """
    gone = {4, 5, 6} if players == 3 else {4}
    return tuple(c for c in french_deck() if c.rank not in gone)


def lowest_trump(players: int, trump: Suit) -> Card:
    """The lowest card of the trump suit: the 7 with three players, the 5 with four.

    >>> str(lowest_trump(3, Suit.CLUBS)), str(lowest_trump(4, Suit.HEARTS))
    ('7C', '5H')
    """
    return Card(trump, 7 if players == 3 else 5)


def beats(b: Card, a: Card, trump: Suit) -> bool:
    """Whether ``b`` beats ``a``: the same suit and higher, or a trump on a non-trump.

    >>> c = Suit.CLUBS
    >>> beats(Card.parse("7C"), Card.parse("AD"), c), beats(Card.parse("AD"), Card.parse("7C"), c)
    (True, False)
    >>> beats(Card.parse("AC"), Card.parse("2C"), c), beats(Card.parse("9S"), Card.parse("8H"), c)
    (True, False)
    """
    if b.suit == a.suit:
        return power(b) > power(a)
    return b.suit == trump


def _pairs(cards: Iterable[Card]) -> int:
    """Disjoint pairs of one rank among ``cards``."""
    return sum(n // 2 for n in Counter(c.rank for c in cards).values())


def is_lead(cards: Sequence[Card]) -> bool:
    """A legal opening: one card; three with a pair; five with two disjoint pairs.

    >>> from levata.engine.cards import parse_cards
    >>> [is_lead(parse_cards(t)) for t in ("8H 8S JH", "8H 9S JH", "8H 8S", "8H 8S 8D JH 3D")]
    [True, False, False, False]
    >>> is_lead(parse_cards("8H 8S 8D JH JC")), is_lead(parse_cards("8H 8S JH JC 3D"))
    (True, True)
    """
    n = len(cards)
    return n == 1 or (n == 3 and _pairs(cards) >= 1) or (n == 5 and _pairs(cards) >= 2)


def extends(chosen: Sequence[Card], card: Card, rest: Sequence[Card], most: int = 5) -> bool:
    """Whether ``chosen`` + ``card`` can still grow into a legal lead of more than one card
    and at most ``most`` cards by adding cards of ``rest`` only (the cards a lead built in
    the hand's order may still take).

    Quads are never held, so a rank counts at most three cards: the pairs a budget of ``b``
    more cards can reach are the ones already there, one per odd rank ``rest`` can pair up
    (a card each), then one per rank ``rest`` alone holds twice (two cards each).

    >>> from levata.engine.cards import parse_cards
    >>> extends([], Card.parse("8H"), parse_cards("8S JH"))
    True
    >>> extends([], Card.parse("8H"), parse_cards("9S JH"))
    False
    >>> extends(parse_cards("8H 8S"), Card.parse("JH"), parse_cards("QS"))  # 3 with a pair
    True
    """
    now = [*chosen, card]
    have = Counter(c.rank for c in now)
    avail = Counter(c.rank for c in rest)
    base = sum(n // 2 for n in have.values())
    cheap = sum(1 for r, n in have.items() if n % 2 and avail[r] >= 1)
    dear = sum(1 for r, n in avail.items() if n >= 2 and have[r] == 0)
    for size, need in ((3, 1), (5, 2)):
        budget = size - len(now)
        if size > most or budget < 0 or budget > len(rest):
            continue
        one = min(cheap, budget)
        if base + one + min(dear, (budget - one) // 2) >= need:
            return True
    return False


def can_beat(targets: Sequence[Card], hand: Sequence[Card], trump: Suit) -> bool:
    """Whether ``hand`` holds one card for each of ``targets``, each beating its own (a
    matching, found by augmenting paths: a play has five cards at most).

    >>> from levata.engine.cards import parse_cards
    >>> can_beat(parse_cards("8H 8S JH"), parse_cards("10H JS 8C"), Suit.CLUBS)
    True
    >>> can_beat(parse_cards("8H 9H"), parse_cards("10H 7S"), Suit.CLUBS)
    False
    """
    if len(targets) > len(hand):
        return False
    fits = [[i for i, b in enumerate(hand) if beats(b, a, trump)] for a in targets]
    owner: dict[int, int] = {}  # hand index -> target index

    def place(t: int, seen: set[int]) -> bool:
        for i in fits[t]:
            if i not in seen:
                seen.add(i)
                if i not in owner or place(owner[i], seen):
                    owner[i] = t
                    return True
        return False

    return all(place(t, set()) for t in range(len(targets)))
