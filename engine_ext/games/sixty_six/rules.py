"""Sixty-six's tables and sums, apart from the match: the deck, card points, the trick duties
in each phase, a seat's points and the game points a deal ends with
(``docs/games/sixty-six.md``; the decisions [D#] are those of the rules specification).

>>> from levata.engine.cards import Card
>>> [str(c) for c in DECK[:5]]
['10C', 'JC', 'QC', 'KC', 'AC']
>>> sum(card_points(c) for c in DECK)
120
>>> claim_award(pts_claimer=70, pts_other=40, tricks_other=2)
1
>>> claim_award(pts_claimer=70, pts_other=30, tricks_other=2), claim_award(70, 0, 0)
(2, 3)
"""

from __future__ import annotations

from typing import cast

from levata.engine.cards import Card, Suit, french_deck
from levata.engine.rules import TrickRules, rank_order_layout

__all__ = [
    "DECK",
    "HAND_SIZE",
    "LAST_TRICK",
    "LAYOUT",
    "MARRIAGE",
    "PLAYERS",
    "POINTS",
    "TARGET",
    "TO_CLAIM",
    "TRUMP_MARRIAGE",
    "card_points",
    "claim_award",
    "closing_award",
    "false_claim_award",
    "play_rules",
]

PLAYERS = 2
HAND_SIZE = 5
#: The 20 cards: 10, J, Q, K, A of each suit (a 52-card deck from the tens up).
DECK: tuple[Card, ...] = french_deck(10)
#: Card points by rank: A 11, 10 10, K 4, Q 3, J 2 (120 in all).
POINTS = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}
#: The card order, A > 10 > K > Q > J in every suit (a layout of the trick kernel).
LAYOUT = rank_order_layout([14, 10, 13, 12, 11])
MARRIAGE, TRUMP_MARRIAGE = 20, 40
LAST_TRICK = 10  # [D4]; none in Schnapsen
TO_CLAIM = 66  # a claim is correct at this many points
TARGET = 7  # game points that win the match
LOW = 33  # an opponent below this many points ("schwarz"-free but beaten): 2 game points


def card_points(card: Card) -> int:
    """The card's points when taken in a trick."""
    return POINTS[card.rank]


def play_rules(trump: Suit, strict: bool, last_trick: bool = True) -> TrickRules:
    """The trick duties: none while the stock is open (any card may follow); once it is
    closed or exhausted, follow with a higher card of the suit led, else any of it, else a
    trump, else anything. In both phases an off-suit non-trump card never wins [D11].

    >>> play_rules(Suit.CLUBS, strict=True).head, play_rules(Suit.CLUBS, strict=False).follow
    (True, False)
    """
    points: dict[Card | int, int] = {16 * s + r: p for s in range(4) for r, p in POINTS.items()}
    layout = cast("dict[Card | int, tuple[int, int]]", LAYOUT)  # indices as keys
    return TrickRules(
        PLAYERS,
        trump,
        follow=strict,
        must_trump=strict,
        head=strict,
        layout=layout,
        points=points,
        last_trick_bonus=LAST_TRICK if last_trick else 0,
    )


def claim_award(pts_claimer: int, pts_other: int, tricks_other: int) -> int:
    """Game points of a correct claim: 3 when the other seat took no trick, 2 when it has
    fewer than 33 points, else 1."""
    if tricks_other == 0:
        return 3
    return 2 if pts_other < LOW else 1


def false_claim_award(tricks_other: int) -> int:
    """Game points the other seat gets for a false claim [D7]: 3 if it took no trick, else 2.

    >>> false_claim_award(0), false_claim_award(4)
    (3, 2)
    """
    return 3 if tricks_other == 0 else 2


def closing_award(tricks: int) -> int:
    """What the seat that did not close gets when the closer fails (or at least, when it
    claims correctly itself) [D8]: 3 if it has no trick (counted at the end of the deal, or
    in Schnapsen at the close), else 2.

    >>> closing_award(0), closing_award(1)
    (3, 2)
    """
    return 3 if tricks == 0 else 2
