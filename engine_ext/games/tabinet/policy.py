"""The greedy Tabinet player: weigh every whole move (a trail, or a capture with the cards it
takes) by the points it banks and the sweep it leaves the next players, and play the best.

The heuristic bot (``levata.bots.heuristic.tabinet``) plays by it, and so do the search's
fast playouts (:mod:`.playout`), so the two cannot drift apart. It reads only what a seat
sees: its hand, the table, and whether a tabla would lift one of the other side's.

A move is ``(card, value, taken)``: ``value`` 0 for a trail, else what the card captures for,
and ``taken`` the table cards as a bit set of table indices.

>>> from levata.engine.cards import parse_cards
>>> hand, table = parse_cards("9H 4C"), parse_cards("AD 8C 2H 7S 5D")
>>> card, value, taken = best_move(hand, table, lift=False, exposed=True)
>>> str(card), value, [str(table[i]) for i in range(len(table)) if taken >> i & 1]
('9H', 9, ['AD', '8C', '2H', '7S'])
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from levata.engine.cards import Card
from levata.engine.family.captures import unions
from levata.engine.games.tabinet.rules import points_of, targets, values

__all__ = ["Move", "best_move", "moves", "rate", "sweepable"]

Move = tuple[Card, int, int]

#: What a tabla is worth to the greedy player (one point, one more when it lifts one).
TABLA = 1.0
#: Each card taken: the most-cards bonus and the rest at the end reward cards a little.
PER_CARD = 0.05
#: The cost of leaving a table the next player can sweep in one capture.
SWEEP_RISK = 0.8
#: The share of a trailed point card's points the other side is expected to take.
EXPOSE = 0.4
#: Larger tables are taken as safe from a sweep: rare, and dear to check at every move.
SWEEP_CHECKED = 6


def moves(hand: Sequence[Card], table: Sequence[Card]) -> list[Move]:
    """Every whole move: each card's captures (every value it may count), then its trail."""
    out: list[Move] = []
    table_values = tuple(values(c) for c in table)
    for card in hand:
        for value in targets(card):
            out.extend((card, value, taken) for taken in sorted(unions(value, table_values)))
        out.append((card, 0, 0))
    return out


def sweepable(table: Sequence[Card]) -> bool:
    """Whether one card could take the whole of ``table`` (a tabla for the next player).

    >>> from levata.engine.cards import parse_cards
    >>> sweepable(parse_cards("5D 4C")), sweepable(parse_cards("KD 9C")), sweepable([])
    (True, False, False)
    """
    if not table or len(table) > SWEEP_CHECKED:
        return False
    return _sweepable(tuple(sorted(values(c) for c in table)))


@functools.lru_cache(maxsize=65536)
def _sweepable(table: tuple[tuple[int, ...], ...]) -> bool:
    """Whether some value from 1 to 14 splits the cards (each card's values, sorted: the
    order never matters here, so equal tables share one answer) into sets of that sum."""
    low = sum(v[0] for v in table)  # every ace at 1
    aces = sum(1 for v in table if len(v) > 1)
    top = max(v[0] for v in table)
    for value in range(top, 15):
        # The sets' sums, value each, add up to the table's: some count of them must.
        if any((low + 10 * a) % value == 0 for a in range(aces + 1)) and _splits(value, table):
            return True
    return False


def _splits(value: int, cards: tuple[tuple[int, ...], ...]) -> bool:
    """Whether ``cards`` split wholly into sets each summing to ``value``."""
    if not cards:
        return True
    rest = cards[1:]
    mask = (1 << (value + 1)) - 1

    def grow(reach: int, start: int, used: tuple[int, ...]) -> bool:
        if reach >> value & 1:
            left = tuple(c for i, c in enumerate(rest) if i not in used)
            if _splits(value, left):
                return True
        for i in range(start, len(rest)):
            step = 0
            for v in rest[i]:
                step |= reach << v
            step &= mask
            if step and grow(step, i + 1, (*used, i)):
                return True
        return False

    first = 0
    for v in cards[0]:
        first |= 1 << v
    return grow(first & mask, 0, ())


def rate(move: Move, table: Sequence[Card], lift: bool, exposed: bool) -> float:
    """How good ``move`` is: points banked, a tabla, the cards, less the risks it leaves.

    ``lift``: a tabla now would also lift one of the other side's. ``exposed``: another side
    plays after this move before the round ends (else nothing left can be lost).

    >>> from levata.engine.cards import parse_cards
    >>> table = parse_cards("5S 6C")
    >>> rate((Card.parse("AH"), 11, 0b11), table, lift=True, exposed=True)  # A + a tabla
    3.15
    >>> round(rate((Card.parse("9D"), 0, 0), table, lift=False, exposed=True), 2)  # 5 6 9
    -0.09
    """
    card, value, taken = move
    table_values = tuple(values(c) for c in table)
    return _rate(card, value, taken, table_values, [points_of(c) for c in table], lift, exposed)


def _rate(
    card: Card,
    value: int,
    taken: int,
    table_values: tuple[tuple[int, ...], ...],
    table_points: list[int],
    lift: bool,
    exposed: bool,
) -> float:
    n = len(table_values)
    if value:
        got = [i for i in range(n) if taken >> i & 1]
        score = points_of(card) + sum(table_points[i] for i in got) + PER_CARD * (1 + len(got))
        if len(got) == n:
            return score + TABLA * (2 if lift else 1)
        left = [table_values[i] for i in range(n) if not taken >> i & 1]
    else:
        score = -EXPOSE * points_of(card) if exposed else 0.0
        score -= 0.01 * values(card)[0]  # trail the small cards first
        left = [*table_values, values(card)]
    if exposed and len(left) <= SWEEP_CHECKED and _sweepable(tuple(sorted(left))):
        score -= SWEEP_RISK
    return score


def best_move(  # noqa: PLR0913  (a capture begun narrows the choice: the last four)
    hand: Sequence[Card],
    table: Sequence[Card],
    lift: bool,
    exposed: bool,
    card: Card | None = None,
    value: int | None = None,
    prefix: Sequence[int] = (),
    may_trail: bool = True,
) -> Move:
    """The best-rated move (the first of equals, in :func:`moves` order); with ``card``,
    ``value`` and ``prefix`` (table indices already taken, in order) only moves that go on
    from a capture already begun."""
    table_values = tuple(values(c) for c in table)
    table_points = [points_of(c) for c in table]
    have = sum(1 << i for i in prefix)
    low = (1 << (prefix[-1] + 1)) - 1 if prefix else 0
    trails = card is None and may_trail
    best: Move | None = None
    best_rate = -1e9
    for c in hand if card is None else (card,):
        for v in targets(c) if value is None else (value,):
            for taken in _sorted_unions(v, table_values):
                if taken & low == have:
                    r = _rate(c, v, taken, table_values, table_points, lift, exposed)
                    if r > best_rate:
                        best, best_rate = (c, v, taken), r
        if trails:
            r = _rate(c, 0, 0, table_values, table_points, lift, exposed)
            if r > best_rate:
                best, best_rate = (c, 0, 0), r
    if best is None:  # nothing to capture while trailing is forbidden: a trail after all
        return best_move(hand, table, lift, exposed)
    return best


@functools.lru_cache(maxsize=65536)
def _sorted_unions(value: int, table: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    return tuple(sorted(unions(value, table)))
