"""Who plays whom, where, and on which cards: the schedule of a tournament.

A pure function of the tournament's spec (no I/O), so a resumed tournament rebuilds exactly
the schedule it started with. Seeds flow down: the tournament seed gives each deal its seed,
``derive(seed, "deal", k)``; every seating of deal ``k`` shares that seed, so the cards are
the same and only who sits where changes.

Formats:

* ``duplicate``: for each deal ``k``, every *table* (each combination of ``players`` entries;
  one table when there are as many entries as seats) plays every *seating* of the same deal.
  Seatings are the cyclic rotations (``rotate``: every entry plays every seat of every deal,
  ``players`` matches a deal) or every permutation (``permute``: also balances who sits just
  after whom, ``players!`` matches a deal). The command line's ``auto`` takes ``permute`` up
  to four seats (see ``AUTO_PERMUTE`` in :mod:`levata.server.tournament.spec` for why).
* ``roundrobin``: the same tables and seatings, but every match is dealt fresh cards (its own
  seed, ``derive(seed, "match", k, table, seating)``); round ``k`` is the group of matches
  that together seat every entry in every seat once.

Team games use the **two-table method**: the seats are grouped into partnerships (``teams``,
e.g. ``((0, 2), (1, 3))``) and the rotations move whole teams, so with two teams the same deal
is played twice, the partnerships swapping sides, exactly as two duplicate tables would.

A *group* is the unit the statistics resample (``deal`` ``k``): the rotations of one deal.

>>> s = make_schedule(["a", "b", "c"], players=3, deals=2, seed=1)
>>> len(s), [m.seats for m in s[:3]]
(6, [('a', 'b', 'c'), ('c', 'a', 'b'), ('b', 'c', 'a')])
>>> len({m.seed for m in s[:3]}), s[0].seed == s[3].seed
(1, False)
>>> [m.seats for m in make_schedule(["x", "y"], 4, 1, 1, teams=((0, 2), (1, 3)))]
[('x', 'y', 'x', 'y'), ('y', 'x', 'y', 'x')]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from levata.engine.seeds import derive

__all__ = ["FORMATS", "SEATINGS", "ScheduledMatch", "deal_sizes", "make_schedule", "parse_teams"]

FORMATS = ("duplicate", "roundrobin")
SEATINGS = ("rotate", "permute")


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule.

    ``index``: its place in the schedule (also the label bots seed their choices with);
    ``group``: the deal (duplicate) or round (round-robin) it belongs to; ``table``: which
    combination of entries; ``seating``: which rotation or permutation; ``seats``: the entry
    name in each seat; ``options``: the game options of this match (a single-deal tournament
    sets the game's :attr:`~levata.engine.GameSpec.duplicate_unit` option here).
    """

    index: int
    group: int
    table: int
    seating: int
    seed: int
    seats: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)


def deal_sizes(minimum: int | None, maximum: int | None, fixed: int | None) -> list[int]:
    """The single-deal sizes deals cycle through: ``fixed`` alone, else every size from the
    option's smallest non-zero value to its largest (so deals mix like a whole match).

    >>> deal_sizes(0, 8, None)
    [1, 2, 3, 4, 5, 6, 7, 8]
    >>> deal_sizes(0, 8, 3)
    [3]
    """
    if fixed is not None:
        return [fixed]
    low = max(1, minimum or 0)
    high = maximum if maximum is not None else low
    return list(range(low, high + 1))


def parse_teams(text: str, players: int) -> tuple[tuple[int, ...], ...]:
    """``"0+2,1+3"`` -> ``((0, 2), (1, 3))``; every seat in exactly one team.

    >>> parse_teams("0+2,1+3", 4)
    ((0, 2), (1, 3))
    >>> parse_teams("0+1", 4)
    Traceback (most recent call last):
    ...
    ValueError: teams must cover seats 0..3 exactly once, got 0+1
    >>> parse_teams("0+2,1", 3)
    Traceback (most recent call last):
    ...
    ValueError: teams must be of one size, got 0+2,1 (2, 1 seats)
    """
    try:
        teams = tuple(tuple(int(s) for s in part.split("+")) for part in text.split(","))
    except ValueError:
        raise ValueError(f"teams are seats joined by + and parted by commas, got {text}") from None
    seats = sorted(s for t in teams for s in t)
    if seats != list(range(players)) or len(teams) < 2:
        raise ValueError(f"teams must cover seats 0..{players - 1} exactly once, got {text}")
    if len({len(t) for t in teams}) > 1:  # an entry plays one seat of each of its teams
        sizes = ", ".join(str(len(t)) for t in teams)
        raise ValueError(f"teams must be of one size, got {text} ({sizes} seats)")
    return teams


def _seatings(units: int, how: str) -> list[tuple[int, ...]]:
    """Each seating as ``order[u]`` = the table member in unit (seat or team) ``u``."""
    if how == "permute":
        return list(itertools.permutations(range(units)))
    return [tuple((u - r) % units for u in range(units)) for r in range(units)]


def make_schedule(  # noqa: PLR0913  (a tournament's knobs, each but the first four by keyword)
    entries: Sequence[str],
    players: int,
    deals: int,
    seed: int,
    fmt: str = "duplicate",
    seating: str = "rotate",
    teams: Sequence[Sequence[int]] | None = None,
    options: dict[str, Any] | None = None,
    sizes: Sequence[int] | None = None,
    size_option: str | None = None,
) -> list[ScheduledMatch]:
    """Every match of a tournament, in play order (deal by deal).

    ``entries``: the distinct entry names; ``teams``: partnerships for the two-table method
    (each entry then plays every seat of its team); ``sizes``: single-deal sizes that deal
    ``k`` takes in turn (``sizes[k % len(sizes)]`` as option ``size_option``, the game's
    :attr:`~levata.engine.GameSpec.duplicate_unit`), or ``None`` to play whole games.

    >>> sized = make_schedule(["a", "b", "c"], 3, 2, 7, sizes=[1, 2], size_option="deal_size")
    >>> [m.options for m in sized[::3]]
    [{'deal_size': 1}, {'deal_size': 2}]
    >>> len(make_schedule(list("abcd"), 3, 1, 7, seating="permute"))  # C(4,3) tables x 3!
    24
    """
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    if seating not in SEATINGS:
        raise ValueError(f"seating {seating!r} is not one of {', '.join(SEATINGS)}")
    if len(set(entries)) != len(entries):
        raise ValueError("entry names must be distinct")
    units: list[tuple[int, ...]] = (
        [tuple(t) for t in teams] if teams else [(s,) for s in range(players)]
    )
    if len(entries) < len(units):
        raise ValueError(f"{len(units)} seats (or teams) need at least {len(units)} entries")
    if deals < 1:
        raise ValueError("a tournament needs at least one deal")
    if sizes and size_option is None:
        raise ValueError("single-deal sizes need the option that sets them (size_option)")
    tables = list(itertools.combinations(entries, len(units)))
    orders = _seatings(len(units), seating)
    out: list[ScheduledMatch] = []
    for k in range(deals):
        opts = dict(options or {})
        if sizes:
            opts[str(size_option)] = sizes[k % len(sizes)]
        for t, table in enumerate(tables):
            for r, order in enumerate(orders):
                if fmt == "duplicate":
                    match_seed = derive(seed, "deal", k)
                else:
                    match_seed = derive(seed, "match", k, t, r)
                seats = _seated(players, units, table, order)
                out.append(ScheduledMatch(len(out), k, t, r, match_seed, seats, opts))
    return out


def _seated(
    players: int, units: list[tuple[int, ...]], table: tuple[str, ...], order: tuple[int, ...]
) -> tuple[str, ...]:
    """Who sits where: unit ``u`` (a seat, or a team's seats) gets ``table[order[u]]``.

    >>> _seated(4, [(0, 2), (1, 3)], ("x", "y"), (1, 0))
    ('y', 'x', 'y', 'x')
    """
    seats: list[str] = [""] * players
    for u, members in enumerate(units):
        for s in members:
            seats[s] = table[order[u]]
    return tuple(seats)
