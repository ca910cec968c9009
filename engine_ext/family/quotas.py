"""The quota family: trick games where each seat plays for its own number of tricks.

Banking Cards, 8-5-3 / 6-3-2-1 and 3-5-8 share one shape: 52 cards, 16 each to three seats
(quotas 8, 5, 3) or 12 each to four (6, 3, 2, 1), four cards left over (a Surpriza or a
kitty), a score of tricks minus quota (each deal's row sums to 0), and the tricks over and
under quota carried into the next deal as *credits* and *debts*, paid back by card exchanges
before the play. What differs (who asks whom, how an exchange is answered) is each game's
own rule, in its module; what is the same is stated once, here.

>>> quotas(4, first=1)
[1, 6, 3, 2]
>>> carried([9, 4, 3], [8, 5, 3])
([1, 0, 0], [0, 1, 0])
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from levata.engine.cards import Card, parse_cards  # noqa: F401  (the examples use it)
from levata.engine.contract import BadConfig

__all__ = [
    "HAND_SIZE",
    "LEFT_OVER",
    "QUOTAS",
    "carried",
    "highest_of",
    "lowest_of",
    "parse_row",
    "practice_previous",
    "quotas",
    "results",
]

#: Quotas (minimum tricks) in play order from the seat that plays for the most.
QUOTAS = {4: (6, 3, 2, 1), 3: (8, 5, 3)}
#: Cards each seat is dealt.
HAND_SIZE = {4: 12, 3: 16}
#: Cards dealt to nobody (the Surpriza or the kitty): 52 - players x hand size.
LEFT_OVER = 4


def quotas(players: int, first: int) -> list[int]:
    """Each seat's quota when seat ``first`` plays for the most: 8-5-3 or 6-3-2-1 on from it.

    >>> quotas(3, first=0), quotas(3, first=2), quotas(4, first=0)
    ([8, 5, 3], [5, 3, 8], [6, 3, 2, 1])
    """
    row = QUOTAS[players]
    return [row[(s - first) % players] for s in range(players)]


def results(tricks: Sequence[int], quota: Sequence[int]) -> list[int]:
    """A deal's score row: tricks minus quota for each seat (it sums to 0).

    >>> results([9, 4, 3], [8, 5, 3])
    [1, -1, 0]
    """
    return [t - q for t, q in zip(tricks, quota, strict=True)]


def carried(tricks: Sequence[int], quota: Sequence[int]) -> tuple[list[int], list[int]]:
    """The credits (tricks over quota) and debts (under) a deal leaves the next one.

    >>> carried([8, 2, 1, 1], [6, 3, 2, 1])
    ([2, 0, 0, 0], [0, 1, 1, 0])
    """
    credit = [max(0, t - q) for t, q in zip(tricks, quota, strict=True)]
    debt = [max(0, q - t) for t, q in zip(tricks, quota, strict=True)]
    return credit, debt


def highest_of(cards: Iterable[Card], suit: int) -> Card | None:
    """The highest card of ``suit`` among ``cards`` (``None`` when void): what an exchange
    takes from the seat in debt.

    >>> highest_of(parse_cards("KD 2D AS"), Card.parse("4D").suit)
    Card('KD')
    """
    of = [c for c in cards if c.suit == suit]
    return max(of, key=lambda c: c.rank) if of else None


def lowest_of(cards: Iterable[Card], suit: int) -> Card | None:
    """The lowest card of ``suit`` among ``cards`` (``None`` when void).

    >>> lowest_of(parse_cards("KD 2D AS"), Card.parse("4D").suit)
    Card('2D')
    """
    of = [c for c in cards if c.suit == suit]
    return min(of, key=lambda c: c.rank) if of else None


def parse_row(text: str, players: int, name: str) -> list[int] | None:
    """A per-seat row of integers from an option (a deal before's ``tricks - quota``, say:
    ``"2,-1,1,-2"``); ``None`` when empty.

    >>> parse_row("+2,-1, 1,-2", 4, "previous"), parse_row("", 4, "previous")
    ([2, -1, 1, -2], None)
    """
    if not str(text).strip():
        return None
    try:
        row = [int(x) for x in str(text).replace(" ", "").split(",")]
    except ValueError:
        raise BadConfig(f"option {name}: expected {players} integers, got {text!r}") from None
    if len(row) != players:
        raise BadConfig(f"option {name}: expected {players} integers, got {len(row)}")
    return row


def practice_previous(players: int, first: int, credits: int, rng: random.Random) -> list[int]:
    """``tricks - quota`` of a made-up previous deal whose seat ``first`` played for the most,
    carrying ``credits`` credits in all (a one-deal match's start, the duplicate unit): each
    credit is one trick moved from a seat at or under its quota to one at or over its own.

    >>> row = practice_previous(4, 0, 3, random.Random(1))
    >>> sum(row), sum(max(0, d) for d in row)
    (0, 3)
    """
    quota = quotas(players, first)
    for _ in range(100):  # a walk can strand itself (no seat left to lose a trick): retry
        tricks = list(quota)
        for _ in range(credits):
            takers = [s for s in range(players) if tricks[s] >= quota[s]]
            givers = [s for s in range(players) if 0 < tricks[s] <= quota[s]]
            pairs = [(g, t) for g in givers for t in takers if g != t]
            if not pairs:
                break
            g, t = rng.choice(pairs)
            tricks[g] -= 1
            tricks[t] += 1
        row = results(tricks, quota)
        if sum(max(0, d) for d in row) == credits:
            break
    return row
