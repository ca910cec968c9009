"""Tarneeb's rules a card player would name: the bids, the deal's points, the idle count,
the rotation, as pure functions (read by the match, :mod:`levata.engine.games.tarneeb`, and
by the bots: its strategy, :mod:`levata.bots.strategy.tarneeb`, scores calls with them).

>>> deal_points(8, 9)
(14, 4)
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.engine.cards import Suit

PLAYERS = 4
HAND_SIZE = 13
TEAMS = (0, 1, 0, 1)  # seat -> team: partners sit opposite
MIN_BID, MAX_BID = 7, 13
TARGET = 100
IDLE_DEALS, IDLE_PENALTY = 3, 10
MADE_BONUS, DEFEAT_BONUS = 5, 5
NO_TRUMP = "NT"
STRAINS = ("C", "D", "H", "S", NO_TRUMP)
ROTATIONS = ("seed", "clockwise")
#: The phase and action of the trump call (the event of the same name records it).
TRUMP = "trump"


# -- the rules a card player would name --------------------------------------------------------


def legal_bids(high: int) -> list[int]:
    """The bids open over the highest bid ``high`` (0: none yet).

    >>> legal_bids(0)[:2], legal_bids(8)[:1], legal_bids(12)
    ([7, 8], [9], [13])
    """
    return list(range(max(MIN_BID, high + 1), MAX_BID + 1))


def deal_points(contract: int, made: int) -> tuple[int, int]:
    """The declaring and the other team's points when the declarers take ``made`` tricks.

    The rules' scenarios 4 and 5:

    >>> deal_points(8, 9), deal_points(8, 7)
    ((14, 4), (-8, 11))
    """
    if made >= contract:
        return MADE_BONUS + made, HAND_SIZE - made
    return -contract, HAND_SIZE - made + DEFEAT_BONUS


def idle_after(idle: Sequence[int], declarers: int) -> tuple[list[int], list[int]]:
    """The idle counters after a deal declared by team ``declarers``, and each team's
    penalty: a third deal in a row without declaring costs 10 and starts the count again.

    >>> idle_after([0, 2], 0)
    ([0, 0], [0, -10])
    >>> idle_after([1, 0], 1)
    ([2, 0], [0, 0])
    """
    out, penalty = [], []
    for team, count in enumerate(idle):
        count = 0 if team == declarers else count + 1
        penalty.append(-IDLE_PENALTY if count == IDLE_DEALS else 0)
        out.append(0 if count == IDLE_DEALS else count)
    return out, penalty


def next_shuffler(shuffler: int, rotation: str = "seed") -> int:
    """S of the next deal: the seat before (``seed``: this shuffler bids first next), or the
    next seat (``clockwise``). The rules' scenario 9: S = 0, then 3, then 2.

    >>> next_shuffler(0), next_shuffler(3), next_shuffler(0, "clockwise")
    (3, 2, 1)
    """
    step = 1 if rotation == "clockwise" else -1
    return (shuffler + step) % PLAYERS


def partnerships(players: int) -> tuple[tuple[int, ...], ...]:
    """The spec's ``teams`` trait: partners sit opposite [D1].

    >>> partnerships(4)
    ((0, 2), (1, 3))
    """
    return tuple(tuple(s for s in range(players) if TEAMS[s] == t) for t in (0, 1))


def _strain_trump(strain: str | None) -> Suit | None:
    return None if strain in (None, NO_TRUMP) else Suit.parse(strain)
