"""3-5-8: the rules a card player would name, as pure functions (no match state).

Seats are numbered in play order (``next(s) = s + 1``). The seat playing for 8 tricks names
the contract; the seat after it plays for 5, the one after that for 3. The match
(:mod:`levata.engine.games.three_five_eight`) calls these; the bots and the tests call them
too, so each rule is stated once.

>>> targets(eight=1)
[3, 8, 5]
>>> draw_exchange(parse_cards("3H 9H AS"), parse_cards("QH 5H 2C"), Suit.HEARTS)
(Card('3H'), Card('QH'))
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from levata.engine.cards import Card, Suit, parse_cards  # noqa: F401  (the examples use it)
from levata.engine.family import quotas as quota_family

__all__ = [
    "CONTRACTS",
    "MATCH_DEALS",
    "NO_TRUMP",
    "PLAYERS",
    "contract_options",
    "draw_exchange",
    "drawers",
    "made_up_history",
    "next_eight",
    "targets",
    "trump_of",
    "winners",
]

PLAYERS = 3
#: The no-trump contract ("atuul" in the Romanian rules).
NO_TRUMP = "NT"
#: The five contracts each seat names once as the 8-seat: four trump suits and no-trump.
CONTRACTS = ("C", "D", "H", "S", NO_TRUMP)
#: Counted deals in a match: each of 3 seats uses each of its 5 contracts once.
MATCH_DEALS = PLAYERS * len(CONTRACTS)
#: The quota family's deal: 16 cards each, the last 4 to the kitty.
HAND_SIZE, KITTY = quota_family.HAND_SIZE[PLAYERS], quota_family.LEFT_OVER


def targets(eight: int) -> list[int]:
    """Each seat's target when ``eight`` plays for 8: 8, 5, 3 in play order from it [D1].

    Scenario 1: the 8-seat is seat 1, so seat 2 plays for 5 and seat 0 for 3.

    >>> targets(eight=1), targets(eight=0)
    ([3, 8, 5], [8, 5, 3])
    """
    return quota_family.quotas(PLAYERS, first=eight)


def next_eight(eight: int) -> int:
    """The 8-seat of the next counted deal: the next seat in play order [D1] (old 5 -> 8,
    old 3 -> 5, old 8 -> 3).

    >>> next_eight(1), next_eight(2)
    (2, 0)
    """
    return (eight + 1) % PLAYERS


def trump_of(contract: str) -> Suit | None:
    """The trump suit a contract names (``None`` for no-trump).

    >>> trump_of("H"), trump_of("NT")
    (<Suit.HEARTS: 2>, None)
    """
    return None if contract == NO_TRUMP else Suit.parse(contract)


def contract_options(used: Sequence[str], pas_left: int) -> list[str]:
    """What the 8-seat may announce: each contract it has not used yet, and ``pas`` while it
    has Pas left [D2].

    Scenario 2: clubs, diamonds and the Pas used leave hearts, spades and no-trump.

    >>> contract_options(["C", "D"], pas_left=0)
    ['H', 'S', 'NT']
    >>> contract_options(["C", "D", "H", "S"], pas_left=1)
    ['NT', 'pas']
    """
    left = [c for c in CONTRACTS if c not in used]
    return left + (["pas"] if pas_left > 0 else [])


def drawers(credit: Sequence[int], target: Sequence[int]) -> list[int]:
    """The seats that draw cards from opponents in debt, in order: those with credit, the
    higher current target first [D4].

    >>> drawers([1, 0, 2], [3, 8, 5])
    [2, 0]
    """
    return sorted((s for s in range(len(credit)) if credit[s] > 0), key=lambda s: -target[s])


def draw_exchange(
    drawer: Sequence[Card], opponent: Sequence[Card], suit: Suit
) -> tuple[Card | None, Card | None]:
    """One draw in ``suit``: ``(card the drawer gives, card it gets)``. The drawer gives its
    lowest card of the suit and gets the opponent's highest, even when that is the lower
    one [D5]; an opponent void in the suit gives nothing and gets nothing: ``(None, None)``.

    Scenario 5: X holds 3 and 9 of hearts, O the Queen and 5.

    >>> draw_exchange(parse_cards("3H 9H"), parse_cards("QH 5H"), Suit.HEARTS)
    (Card('3H'), Card('QH'))
    >>> draw_exchange(parse_cards("3H 9H"), parse_cards("QS"), Suit.HEARTS)
    (None, None)
    >>> draw_exchange(parse_cards("9H"), parse_cards("4H"), Suit.HEARTS)  # O's highest is lower
    (Card('9H'), Card('4H'))
    """
    got = quota_family.highest_of(opponent, suit)
    if got is None:
        return None, None
    return quota_family.lowest_of(drawer, suit), got


def winners(scores: Sequence[int]) -> tuple[int, ...]:
    """The highest cumulative score wins; equal seats share the win.

    >>> winners([4, -2, -2]), winners([3, 3, -6])
    ((0,), (0, 1))
    """
    best = max(scores)
    return tuple(s for s, p in enumerate(scores) if p == best)


def made_up_history(first: int, deal: int, rng: random.Random) -> list[list[str]]:
    """The contracts each seat has used before counted deal ``deal`` (from 1) of a match
    whose first 8-seat was ``first``: the 8-seat of each earlier deal used one contract,
    drawn at random among those it had left (what a one-deal match starts from).

    >>> used = made_up_history(0, 5, random.Random(1))
    >>> [len(u) for u in used], all(len(set(u)) == len(u) for u in used)
    ([2, 1, 1], True)
    """
    used: list[list[str]] = [[] for _ in range(PLAYERS)]
    for j in range(deal - 1):
        seat = (first + j) % PLAYERS
        used[seat].append(rng.choice([c for c in CONTRACTS if c not in used[seat]]))
    return used
