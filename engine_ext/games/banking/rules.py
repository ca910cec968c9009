"""Banking Cards: the rules a card player would name, as pure functions (no match state).

Seats are numbered in play order (``next(s) = s + 1``); the Declarant ``K`` is the seat after
the Dealer. The match (:mod:`levata.engine.games.banking`) calls these; the bots and the
tests call them too, so each rule is stated once.

>>> quotas(4, declarant=0)
[6, 3, 2, 1]
>>> answer(Card.parse("5S"), parse_cards("KS 9S 4S"))
('a', Card('KS'))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from levata.engine.cards import Card, parse_cards  # noqa: F401  (the examples use it)
from levata.engine.family import quotas as quota_family

__all__ = [
    "CARBOAVE",
    "FIGURES",
    "answer",
    "carried",
    "figureless",
    "final_exchanges",
    "final_threshold",
    "mal_points",
    "perechiuta_order",
    "perechiuta_target",
    "quotas",
    "receivers",
    "requests",
    "round_threshold",
    "standing",
    "winners",
]

#: A, K, Q, J: a hand without any of them may refuse the deal.
FIGURES = frozenset({11, 12, 13, 14})
#: The ranks whose four of a kind are a Perechiuța.
CARBOAVE = tuple(range(2, 8))
#: The quota family's deal: quotas from the Declarant, 12 or 16 cards, a 4-card Surpriza.
QUOTAS, HAND_SIZE, SURPRIZA = quota_family.QUOTAS, quota_family.HAND_SIZE, quota_family.LEFT_OVER


def quotas(players: int, declarant: int) -> list[int]:
    """Each seat's quota this session: 6-3-2-1 (4p) or 8-5-3 (3p) from the Declarant on.

    >>> quotas(4, declarant=0), quotas(3, declarant=0), quotas(4, declarant=2)
    ([6, 3, 2, 1], [8, 5, 3], [2, 1, 6, 3])
    """
    return quota_family.quotas(players, first=declarant)


def figureless(cards: Iterable[Card]) -> bool:
    """No A, K, Q or J: the hand may refuse the deal.

    >>> figureless(parse_cards("10S 9H 2C")), figureless(parse_cards("10S JH"))
    (True, False)
    """
    return all(c.rank not in FIGURES for c in cards)


carried = quota_family.carried


def requests(credit: Sequence[int], debt: Sequence[int], declarant: int) -> list[tuple[int, int]]:
    """The penalty exchanges, one ``(requester, target)`` per unit of credit, in the order
    they are made: requesters in play order from the Declarant (the one with most tricks to
    make asks first); each asks *only to the right*: the first seat after it that still owes
    a trick, nearest first.

    Scenario 5 of the rules: A +2, B -1, C +1, D -2, K = A.

    >>> requests([2, 0, 1, 0], [0, 1, 0, 2], declarant=0)
    [(0, 1), (0, 3), (2, 3)]
    """
    n = len(credit)
    left = list(debt)
    out: list[tuple[int, int]] = []
    for i in range(n):
        r = (declarant + i) % n
        for _ in range(credit[r]):
            for step in range(1, n):
                t = (r + step) % n
                if left[t] > 0:
                    left[t] -= 1
                    out.append((r, t))
                    break
    return out


def answer(
    offered: Card, target: Iterable[Card], protected: Iterable[Card] = ()
) -> tuple[str, Card | None]:
    """The target's automatic answer to an offered card: ``(case, card it gives back)``.

    (a) it holds a higher card of the suit: it gives its highest; (b) it holds the suit but
    nothing higher: it gives its lowest; (c) it holds none: the offered card goes back
    (``None``). Protected cards (the Surpriza in the Declarant's hand, asked by a
    Perechiuța) count as absent.

    >>> answer(Card.parse("5S"), parse_cards("KS 9S 4S"))
    ('a', Card('KS'))
    >>> answer(Card.parse("5S"), parse_cards("3S 2S"))
    ('b', Card('2S'))
    >>> answer(Card.parse("5S"), parse_cards("AH"))
    ('c', None)
    >>> answer(Card.parse("5D"), parse_cards("QD 9D"), protected=parse_cards("QD"))
    ('a', Card('9D'))
    >>> answer(Card.parse("5D"), parse_cards("QD"), protected=parse_cards("QD"))
    ('c', None)
    """
    kept = set(protected)
    suit = [c for c in target if c.suit == offered.suit and c not in kept]
    if not suit:
        return "c", None
    best = max(suit, key=lambda c: c.rank)
    if best.rank > offered.rank:
        return "a", best
    return "b", min(suit, key=lambda c: c.rank)


def perechiuta_target(holder: int, round_points: Sequence[int], quota: Sequence[int]) -> int | None:
    """Whom a Perechiuța asks: the round leader with the smallest quota this session; a
    holder who leads asks the other leader (smallest quota); a lone leader asks nobody.

    Scenario 6: points A 5, B 5, C -4, D -6; quotas A 2, B 1, C 6, D 3.

    >>> pts, q = [5, 5, -4, -6], [2, 1, 6, 3]
    >>> perechiuta_target(2, pts, q), perechiuta_target(0, pts, q)
    (1, 1)
    >>> print(perechiuta_target(0, [5, 4, -4, -5], q))
    None
    """
    top = max(round_points)
    leaders = [s for s, p in enumerate(round_points) if p == top and s != holder]
    if not leaders:
        return None
    return min(leaders, key=lambda s: quota[s])


def perechiuta_order(declared: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Declared ``(holder, rank)`` Perechiuțe in the order they ask: rank ascending (every 2
    first); one rank has one holder, so the order is total.

    Scenario 7: C's four 3s ask before D's four 6s.

    >>> perechiuta_order([(3, 6), (2, 3)])
    [(2, 3), (3, 6)]
    """
    return sorted(declared, key=lambda d: (d[1], d[0]))


def final_threshold(players: int) -> int:
    """Credits that oblige a Final Exchange: 3 (4 players), 4 (3 players).

    >>> final_threshold(4), final_threshold(3)
    (3, 4)
    """
    return 3 if players == 4 else 4


def final_exchanges(credit: Sequence[int], declarant: int) -> list[int]:
    """The seats whose credit obliges a Final Exchange among all the others, in requester
    order (play order from the Declarant).

    Scenario 10: 4p +3 -1 -1 -1 gives one; 3p +3 -1 -2 none; +4 -2 -2 one.

    >>> final_exchanges([3, 0, 0, 0], 0), final_exchanges([3, 0, 0], 0)
    ([0], [])
    >>> final_exchanges([4, 0, 0], 1)
    [0]
    """
    n = len(credit)
    need = final_threshold(n)
    order = [(declarant + i) % n for i in range(n)]
    return [s for s in order if credit[s] >= need]


def receivers(participants: Sequence[int]) -> dict[int, int]:
    """Where each participant's Final Exchange card goes: the next participant in play
    order, cyclically (with two participants, they swap).

    >>> receivers([1, 2, 3]), receivers([0, 2])
    ({1: 2, 2: 3, 3: 1}, {0: 2, 2: 0})
    """
    k = len(participants)
    return {p: participants[(i + 1) % k] for i, p in enumerate(participants)}


def round_threshold(players: int, mals: int = 0) -> int:
    """Round points that end a round: 9 (4p) or 11 (3p), plus 2 for every MAL this round.

    >>> round_threshold(4), round_threshold(3), round_threshold(4, mals=1)
    (9, 11, 11)
    """
    return (9 if players == 4 else 11) + 2 * mals


def mal_points(players: int, offender: int, literal_3p: bool = False) -> list[int]:
    """Points of a MAL: the offender -6 (4p) or -4 (3p, so that the row sums to 0; the
    seed's literal -6 with ``literal_3p``), every other seat +2.

    >>> mal_points(4, 1), mal_points(3, 0), mal_points(3, 0, literal_3p=True)
    ([2, -6, 2, 2], [-4, 2, 2], [-6, 2, 2])
    """
    loss = 6 if players == 4 or literal_3p else 2 * (players - 1)
    return [-loss if s == offender else 2 for s in range(players)]


def standing(
    tour: Sequence[int], tops: Sequence[int], last: Sequence[int]
) -> list[tuple[int, ...]]:
    """Each seat's key for the final order: Tour points, then rounds finished on top (shared
    tops count for each), then points in the last round. Higher is better."""
    return [(tour[s], tops[s], last[s]) for s in range(len(tour))]


def winners(tour: Sequence[int], tops: Sequence[int], last: Sequence[int]) -> tuple[int, ...]:
    """The Banker: most Tour points; ties go to more rounds topped, then more points in the
    last round; seats still equal win together.

    >>> winners([4, 4, -8], [1, 2, 0], [9, 1, -10])
    (1,)
    >>> winners([4, 4, -8], [1, 1, 1], [9, 1, -10])
    (0,)
    >>> winners([4, 4, -8], [1, 1, 1], [2, 2, -4])
    (0, 1)
    """
    keys = standing(tour, tops, last)
    best = max(keys)
    return tuple(s for s, k in enumerate(keys) if k == best)
