"""Fishing games: a face-up table layout, capture piles, the last capturer, sweeps, packets.

In a fishing game (Tabinet; Casino, Scopa and Cicera are cousins) a player plays a card from
the hand and either *captures* table cards with it (by rank or by sums) or *trails* it onto
the table. What they share lives here:

* :class:`FishingTable`, a base to mix into a game's state (before ``GameState``): the places
  (hands, the face-down stock, the face-up ``table``, the ``played`` card while a capture is
  being built, and each seat's capture ``pile``), the sides (a seat alone, or a team), the
  ``last_capturer``, packet deals from the stock (:meth:`FishingTable.deal_packets`), a trail,
  a capture that reports a sweep (:meth:`FishingTable.capture`) and the leftover table going
  to the last capturer at the end (:meth:`FishingTable.sweep_rest`).
* **Captures by sums** as a composite move of atomic steps (:class:`Selection`): the
  player takes table cards (``take``) one at a time, in table order, and is ``done`` when they
  form disjoint sets each summing to the played card's value (:func:`captures`). Which sets
  they form changes nothing taken, so every capture has exactly one path, and every step
  offered leads to a complete capture: no partial choice is a dead end.
* :func:`capture_sets` and :func:`capture_choices` list every set and every choice of
  disjoint sets at once (what a bot weighs); :func:`partition` splits a capture into sets.

A card's values come from the game (``values(card) -> tuple of ints``: Tabinet's ace is
``(1, 11)``), so the same code serves any sum rule.

Capture piles are kept per seat (a team's pile is its seats' piles together). They lie face
down, but every card in them was face up or just played, so their contents are public
history: views show them.

>>> from levata.engine.cards import parse_cards
>>> face = lambda c: (1, 11) if c.rank == 14 else (c.rank,)
>>> table = parse_cards("AD 8C 2H 7S 5D")
>>> [[str(table[i]) for i in s] for s in capture_sets(9, table, face)]
[['AD', '8C'], ['2H', '7S']]
>>> len(capture_choices(capture_sets(9, table, face)))  # {A,8}, {2,7} or both
3
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import Event
from levata.engine.zones import FACE_DOWN, FACE_UP, OWNER, Place, Zoned

__all__ = [
    "FishingTable",
    "Selection",
    "Values",
    "capture_choices",
    "capture_sets",
    "captures",
    "completable",
    "partition",
    "sides_of",
    "unions",
]

#: A card's possible values in a sum (most cards one; an ace that counts 1 or 11, two).
Values = Callable[[Card], tuple[int, ...]]


def sides_of(players: int, teams: Sequence[Sequence[int]] | None) -> tuple[tuple[int, ...], ...]:
    """The sides at a table: the teams, or every seat alone.

    >>> sides_of(3, None), sides_of(4, ((0, 2), (1, 3)))
    (((0,), (1,), (2,)), ((0, 2), (1, 3)))
    """
    if teams:
        return tuple(tuple(t) for t in teams)
    return tuple((s,) for s in range(players))


def _reach(start: int, cards: Sequence[Card], values: Values, mask: int) -> int:
    """The sums reachable from the bit set ``start`` adding every card of ``cards``."""
    reach = start
    for c in cards:
        step = 0
        for v in values(c):
            step |= reach << v
        reach = step & mask
    return reach


def completable(
    target: int, must: Sequence[Card], optional: Sequence[Card], values: Values
) -> bool:
    """Whether ``must`` plus some subset of ``optional`` sums to ``target`` exactly.

    >>> from levata.engine.cards import parse_cards
    >>> face = lambda c: (1, 11) if c.rank == 14 else (c.rank,)
    >>> completable(9, parse_cards("AD"), parse_cards("5D 8C"), face)  # A + 8
    True
    >>> completable(9, parse_cards("AD 8C 5D"), [], face)  # 14 or 24
    False
    """
    mask = (1 << (target + 1)) - 1
    reach = _reach(1, must, values, mask)
    if not reach:
        return False
    for c in optional:
        step = reach
        for v in values(c):
            step |= reach << v
        reach = step & mask
    return bool(reach >> target & 1)


def capture_sets(target: int, table: Sequence[Card], values: Values) -> list[tuple[int, ...]]:
    """Every set of table cards (as increasing indices) that sums to ``target``."""
    return _sets(target, tuple(values(c) for c in table))


def _sets(target: int, table: tuple[tuple[int, ...], ...]) -> list[tuple[int, ...]]:
    """:func:`capture_sets` on each card's values."""
    out: list[tuple[int, ...]] = []
    n = len(table)
    mask = (1 << (target + 1)) - 1

    def grow(chosen: list[int], reach: int, nxt: int) -> None:
        if chosen and reach >> target & 1:
            out.append(tuple(chosen))
        for j in range(nxt, n):
            step = 0
            for v in table[j]:
                step |= reach << v
            step &= mask
            if step:
                chosen.append(j)
                grow(chosen, step, j + 1)
                chosen.pop()

    grow([], 1, 0)
    return out


def capture_choices(sets: Sequence[tuple[int, ...]]) -> list[tuple[tuple[int, ...], ...]]:
    """Every non-empty choice of pairwise-disjoint sets among ``sets``, each in canonical
    order (sets by their first card).

    >>> capture_choices([(0, 1), (1, 2), (3,)])
    [((0, 1),), ((0, 1), (3,)), ((1, 2),), ((1, 2), (3,)), ((3,),)]
    """
    ordered = sorted(sets)
    out: list[tuple[tuple[int, ...], ...]] = []

    def pick(chosen: list[tuple[int, ...]], used: int, start: int) -> None:
        for k in range(start, len(ordered)):
            s = ordered[k]
            bits = sum(1 << i for i in s)
            if bits & used:
                continue
            chosen.append(s)
            out.append(tuple(chosen))
            pick(chosen, used | bits, k + 1)
            chosen.pop()

    pick([], 0, 0)
    return out


@functools.lru_cache(maxsize=65536)
def unions(target: int, table: tuple[tuple[int, ...], ...]) -> frozenset[int]:
    """:func:`captures` of a table given as each card's values (cached: one table is asked
    many times, in search most of all)."""
    sets = _sets(target, table)
    return frozenset(sum(1 << i for s in choice for i in s) for choice in capture_choices(sets))


def captures(target: int, table: Sequence[Card], values: Values) -> frozenset[int]:
    """Every capture ``target`` can make on ``table``: the cards it takes, as a bit set of
    table indices (each a union of disjoint sets summing to ``target``).

    >>> from levata.engine.cards import parse_cards
    >>> face = lambda c: (1, 11) if c.rank == 14 else (c.rank,)
    >>> sorted(captures(9, parse_cards("AD 8C 2H 7S 5D"), face))  # {A, 8}, {2, 7}, both
    [3, 12, 15]
    """
    return unions(target, tuple(values(c) for c in table))


def partition(
    target: int, table: Sequence[Card], values: Values, taken: int
) -> list[tuple[int, ...]]:
    """One way to split the capture ``taken`` (a bit set) into its sets, in table order.

    >>> from levata.engine.cards import parse_cards
    >>> face = lambda c: (1, 11) if c.rank == 14 else (c.rank,)
    >>> partition(9, parse_cards("AD 8C 2H 7S 5D"), face, 0b1111)
    [(0, 1), (2, 3)]
    """
    for choice in capture_choices(capture_sets(target, table, values)):
        if sum(1 << i for s in choice for i in s) == taken:
            return list(choice)
    raise ValueError(f"{bin(taken)} is no capture of {target}")


@dataclass(frozen=True, slots=True)
class Selection:
    """A capture being gathered one table card at a time, in table order: the played card's
    ``target`` value and the table indices ``taken`` so far (the table does not change
    while the capture is built). Which sets the cards form does not change what is taken,
    so the steps choose cards, not sets; every step offered can still be completed.

    >>> from levata.engine.cards import parse_cards
    >>> face = lambda c: (1, 11) if c.rank == 14 else (c.rank,)
    >>> table = parse_cards("AD 8C 2H 7S 5D")
    >>> sel = Selection(9)
    >>> sel.takes(table, face)  # 5D is in no set of 9; 8C and 7S come after AD or 2H
    [0, 2]
    >>> sel = sel.take(0)
    >>> sel.takes(table, face), sel.can_finish(table, face)
    ([1], False)
    >>> sel = sel.take(1); sel.can_finish(table, face), sel.takes(table, face)
    (True, [2])
    >>> sel.take(2).takes(table, face)  # {A, 8} and {2, 7}: the 7 must follow
    [3]
    """

    target: int
    taken: tuple[int, ...] = ()

    def _mask(self) -> int:
        return sum(1 << i for i in self.taken)

    def takes(self, table: Sequence[Card], values: Values) -> list[int]:
        """The table cards (indices) that may be taken next: after the last one taken, and
        leaving a capture that can still be completed."""
        options = captures(self.target, table, values)
        have = self._mask()
        after = self.taken[-1] if self.taken else -1
        out = []
        for j in range(after + 1, len(table)):
            prefix, low = have | 1 << j, (1 << (j + 1)) - 1
            if any(u & low == prefix for u in options):
                out.append(j)
        return out

    def can_finish(self, table: Sequence[Card], values: Values) -> bool:
        """The cards taken so far are a whole capture (disjoint sets, each the target)."""
        return bool(self.taken) and self._mask() in captures(self.target, table, values)

    def take(self, index: int) -> Selection:
        return replace(self, taken=(*self.taken, index))


class FishingTable(Zoned):
    """Hands, a stock, a face-up table, the card being played and capture piles (a base to
    mix into a game's state, before ``GameState``).

    The game sets ``hands``, ``stock`` (top card **last**), ``layout`` (the place
    ``table``, in the order laid),
    ``played``, ``piles`` (one per seat), ``sides`` (:func:`sides_of`) and ``last_capturer``
    (a seat, ``None`` before any capture).
    """

    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "hand",
            "the seat's cards, kept sorted",
            attr="hands",
            per_seat=True,
            seen=OWNER,
            shown=False,
            counted="how many cards the seat holds",
            sorted=True,
        ),
        Place(
            "stock",
            "the face-down stock, top card last",
            seen=FACE_DOWN,
            shown=False,
            counted="cards left in the stock",
        ),
        Place(
            "table",
            "the face-up cards on the table, in the order they were laid",
            attr="layout",
            seen=FACE_UP,
        ),
        Place(
            "played",
            "the card played to capture while its sets are being chosen",
            seen=FACE_UP,
            shown="nonempty",
        ),
        Place(
            "pile",
            "the cards the seat captured (face down, but every one was seen face up)",
            attr="piles",
            per_seat=True,
            seen=FACE_UP,
            counted="cards the seat has captured",
        ),
    )

    hands: list[list[Card]]
    stock: list[Card]
    layout: list[Card]  # the place ``table`` (``table()`` is every place's truth)
    played: list[Card]
    piles: list[list[Card]]
    sides: tuple[tuple[int, ...], ...]
    last_capturer: int | None

    def side_of(self, seat: int) -> int:
        """The side (an index into ``sides``) that ``seat`` plays for."""
        for k, members in enumerate(self.sides):
            if seat in members:
                return k
        raise ValueError(f"seat {seat} is on no side")

    def side_cards(self, side: int) -> list[Card]:
        """Every card the seats of ``side`` have captured."""
        return [c for s in self.sides[side] for c in self.piles[s]]

    def deal_packets(self, first: int, size: int, seats: Sequence[int] | None = None) -> None:
        """Deal ``size`` cards off the stock to each seat (``seats``, from ``first`` round),
        each told only to its owner, with a public ``packet`` event of the counts."""
        n = self.players
        order = seats if seats is not None else [(first + k) % n for k in range(n)]
        self._emit(
            "packet",
            seat=first,
            size=size,
            seats=list(order),
            stock=len(self.stock) - size * len(order),
        )
        for s in order:
            cards = self.stock[len(self.stock) - size :][::-1]  # the top ``size``, top first
            self.move(cards, "stock", f"hand:{s}", kind=events.HAND, seat=s)

    def turn_up(self, count: int, kind: str = "layout") -> Event | None:
        """Turn the top ``count`` stock cards face up onto the table (a starting layout)."""
        cards = self.stock[len(self.stock) - count :][::-1]
        return self.move(cards, "stock", "table", kind=kind, seen_by=None)

    def trail(self, seat: int, card: Card, kind: str = "trail") -> None:
        """Lay ``card`` from the hand face up on the table."""
        self.move(card, f"hand:{seat}", "table", kind=kind, seat=seat)

    def capture(
        self, seat: int, taken: Sequence[Card], kind: str = "captured", **data: Any
    ) -> bool:
        """The played card and ``taken`` (table cards) go to the seat's pile, told by one
        public event; the seat is now the last capturer. Returns whether the table is now
        empty (a sweep)."""
        cards = [*self.played, *taken]
        self.last_capturer = seat
        self.move(list(self.played), "played", f"pile:{seat}")  # face up to face up: the
        self.move(list(taken), "table", f"pile:{seat}")  # event below tells of them
        swept = not self.layout
        self._emit(kind, seat=seat, cards=cards, sweep=swept, **data)
        return swept

    def sweep_rest(self, kind: str = "rest") -> int | None:
        """At the end: what lies on the table goes to the last capturer's pile (not a sweep).
        Returns that seat, or ``None`` when nobody captured (the cards stay unscored)."""
        seat = self.last_capturer
        if seat is not None and self.layout:
            self.move(
                list(self.layout), "table", f"pile:{seat}", kind=kind, seat=seat, seen_by=None
            )
        return seat

    def hands_empty(self) -> bool:
        """Every hand is played out: time for a packet, or the end of the round."""
        return not any(self.hands)
