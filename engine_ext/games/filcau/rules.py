"""Filcău's rules a card player would name, as pure functions: the order of the trumps, what
a hand may bind or "fris" with, how the team status moves and who deals next. Read by the
match (:mod:`levata.engine.games.filcau`) and by the bots.

The 20 cards are J, Q, K, 10, A of the four French suits. The four queens are the *filcăi*,
always trumps above the trump suit: Q♠ > Q♣ > Q♥ > Q♦ > A > 10 > K > J of trumps; a plain
suit runs A > 10 > K > J.

>>> from levata.engine.cards import parse_cards
>>> binding_value(parse_cards("QS AH 10H KH JC"), Suit.HEARTS)   # four trumps, farbă J♣
(4, 1)
>>> fris_trump(parse_cards("QD KH JH"))
<Suit.HEARTS: 2>
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.engine.cards import Card, Suit, french_deck

__all__ = [
    "EGAL",
    "FILCAI",
    "LOW_NAMES",
    "PLAYERS",
    "SEF",
    "SLUGA",
    "SUITS",
    "TARGET",
    "TEAMS",
    "binding_value",
    "closed",
    "deck",
    "fris_cards",
    "fris_trump",
    "is_filcau",
    "next_dealer",
    "partner",
    "statuses_after",
    "trump_power",
    "trumps_for",
]

PLAYERS = 4
TEAMS = (0, 1, 0, 1)  # partners sit opposite
HAND = 5
FIRST_PACKET = 3  # a cut deal gives 3 cards, then (after the fris window) 2
TARGET = 11
HUDA_POINTS, HUDA_BOUND = 2, -2  # all five tricks; the bound team taking none
WINNING_POINTS = 6  # card points (of 8) that move a team up
SLUGA, EGAL, SEF = "sluga", "egal", "sef"  # servant, equal, chief
SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
#: The filcăi, highest first: the rank of queens.
FILCAU = 12
FILCAI = tuple(Card(s, FILCAU) for s in (Suit.SPADES, Suit.CLUBS, Suit.HEARTS, Suit.DIAMONDS))
#: A trump's power from the lowest: J, K, 10, A of the trump suit, then Q♦, Q♥, Q♣, Q♠.
_PLAIN_POWER = {11: 0, 13: 1, 10: 2, 14: 3}
_FILCAU_POWER = {Suit.DIAMONDS: 4, Suit.HEARTS: 5, Suit.CLUBS: 6, Suit.SPADES: 7}
#: How a call names a binding's lowest trump, by power.
LOW_NAMES = ("J", "K", "10", "A", "QD", "QH", "QC", "QS")


def deck() -> tuple[Card, ...]:
    """The 20 cards: 10, J, Q, K, A of each suit.

    >>> len(deck())
    20
    """
    return french_deck(lowest=10)


def is_filcau(card: Card) -> bool:
    return card.rank == FILCAU


def partner(seat: int) -> int:
    return (seat + 2) % PLAYERS


def trump_power(card: Card) -> int:
    """The card's strength as a trump (0 = J of trumps ... 7 = Q♠).

    >>> trump_power(Card.parse("QS")), trump_power(Card.parse("AH")), trump_power(Card.parse("JC"))
    (7, 3, 0)
    """
    if is_filcau(card):
        return _FILCAU_POWER[card.suit]
    return _PLAIN_POWER[card.rank]


def trumps_for(hand: Sequence[Card], suit: Suit) -> list[Card]:
    """T(S): the hand's filcăi and its cards of ``suit``."""
    return [c for c in hand if is_filcau(c) or c.suit == suit]


def binding_value(hand: Sequence[Card], suit: Suit) -> tuple[int, int] | None:
    """``(count, low)`` of binding ``suit`` with ``hand`` (low: the lowest trump's power), or
    ``None`` when the suit cannot be bound: at least one filcău, three or four trumps, and
    with four the fifth card (the farbă) not an ace.

    The rules' scenario 3:

    >>> from levata.engine.cards import parse_cards
    >>> binding_value(parse_cards("QS AH 10H KH AC"), Suit.HEARTS) is None   # farbă an ace
    True
    >>> binding_value(parse_cards("QS AH 10H KH AC"), Suit.CLUBS) is None    # two trumps
    True
    >>> binding_value(parse_cards("QD KH JH 10S AS"), Suit.HEARTS)           # trei J
    (3, 0)
    """
    trumps = trumps_for(hand, suit)
    if not any(is_filcau(c) for c in trumps) or len(trumps) not in (3, 4):
        return None
    if len(trumps) == 4 and any(c.rank == 14 for c in hand if c not in trumps):
        return None
    return len(trumps), min(trump_power(c) for c in trumps)


def closed(hand: Sequence[Card]) -> bool:
    """Five trumps for some suit: the seat may not bind and must say "închis".

    >>> from levata.engine.cards import parse_cards
    >>> closed(parse_cards("QS QC AH 10H KH")), closed(parse_cards("QS AH 10H KH JC"))
    (True, False)
    """
    return any(len(trumps_for(hand, s)) == HAND for s in SUITS)


def fris_trump(three: Sequence[Card]) -> Suit | None:
    """The trump a first packet of three cards may "fris" with, or ``None``: one filcău and two
    cards of a suit; two filcăi and a card of a suit; three filcăi (the lowest one's suit).

    The rules' scenario 6:

    >>> from levata.engine.cards import parse_cards
    >>> fris_trump(parse_cards("QD KH JS")) is None
    True
    >>> fris_trump(parse_cards("QS QC 10D")), fris_trump(parse_cards("QS QC QH"))
    (<Suit.DIAMONDS: 1>, <Suit.HEARTS: 2>)
    """
    queens = [c for c in three if is_filcau(c)]
    others = [c for c in three if not is_filcau(c)]
    if len(queens) == 3:
        return min(queens, key=trump_power).suit
    if queens and len({c.suit for c in others}) == 1:
        return others[0].suit
    return None


def fris_cards(three: Sequence[Card]) -> list[Card]:
    """The filcăi a seat may show for a fris with ``three`` (none when it may not fris)."""
    if fris_trump(three) is None:
        return []
    return [c for c in three if is_filcau(c)]


def statuses_after(status: Sequence[str], points: Sequence[int]) -> list[str]:
    """The teams' status after a deal (not a Huda) in which they took ``points``: a team with
    6 or more moves up one step and the other to the matching one.

    The rules' scenario 10:

    >>> statuses_after([EGAL, EGAL], [6, 2])
    ['sef', 'sluga']
    >>> statuses_after(['sef', 'sluga'], [2, 6]), statuses_after([EGAL, EGAL], [5, 3])
    (['egal', 'egal'], ['egal', 'egal'])
    """
    for team in (0, 1):
        if points[team] >= WINNING_POINTS:
            up = {SLUGA: EGAL, EGAL: SEF, SEF: SEF}[status[team]]
            down = {SEF: SLUGA, EGAL: EGAL}[up]
            return [up, down] if team == 0 else [down, up]
    return list(status)


def next_dealer(dealer: int, status: Sequence[str]) -> int:
    """Who deals next: the next seat while both teams are equal, else the next seat of the
    servant team (the deal goes back and forth between the two servants).

    The rules' scenario 12 (team 1, seats 1 and 3, is the servant):

    >>> next_dealer(1, [SEF, SLUGA]), next_dealer(3, [SEF, SLUGA]), next_dealer(0, [EGAL, EGAL])
    (3, 1, 1)
    """
    if status[0] == EGAL:
        return (dealer + 1) % PLAYERS
    servant = status.index(SLUGA)
    return next(s for s in range(dealer + 1, dealer + PLAYERS + 1) if TEAMS[s % 4] == servant) % 4
