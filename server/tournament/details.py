"""What the standings leave out, for the report: how each entry's score per deal grew over
the deals, its score by deal size (the game's duplicate unit) and by seat, its clocks and
strikes from the referee's records, and the list of its matches (ids for ``levata replay``).

Scores are counted as the standings count them (:func:`~levata.server.tournament.standings.
entry_results`: a forfeit charged the forfeit score per deal), so every figure here adds up
to the standings' own.

>>> rows = [
...     {"index": i, "group": i // 2, "seats": seats, "options": {"deal_size": 2},
...      "match_id": f"m{i}", "result": {"scores": sc, "ranks": rk, "forfeited": [],
...      "deals": 1, "strikes": [0, 1]}}
...     for i, (seats, sc, rk) in enumerate([
...         (["a", "b"], [4, -2], [1, 2]), (["b", "a"], [1, 2], [2, 1])])]
>>> d = tournament_details(["a", "b"], rows, unit="deal_size")
>>> d.entries["a"].progression, d.entries["a"].by_seat, d.entries["b"].strikes
([(0, 3.0)], {0: (4.0, 1), 1: (2.0, 1)}, 1)
>>> d.entries["a"].by_size, [m.match_id for m in d.entries["b"].matches]
({'2': (3.0, 2)}, ['m0', 'm1'])
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from levata.server.tournament.standings import (
    EntryResult,
    entry_results,
    forfeit_score,
    usual_deals,
)

__all__ = ["Clock", "Details", "EntryDetails", "MatchLine", "percentile", "tournament_details"]


@dataclass(frozen=True)
class MatchLine:
    """One match of an entry, as its row of the report."""

    index: int  # place in the schedule
    group: int  # deal (duplicate) or round
    match_id: str  # what ``levata replay`` takes
    seats: str  # where the entry sat: "2", or "0+2" for partners
    table: tuple[str, ...]  # every seat's entry
    size: str  # the duplicate unit's value ("" for whole games)
    per_deal: float  # its score per deal, as the standings count it
    rank: int
    forfeited: bool
    detail: str  # why the match ended early, if it did


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile by the nearest rank (a reply time that really occurred).

    >>> percentile([10.0, 20.0, 30.0, 40.0], 0.5), percentile([10.0, 20.0, 30.0, 40.0], 0.95)
    (20.0, 40.0)
    >>> math.isnan(percentile([], 0.5))
    True
    """
    if not sorted_values:
        return math.nan
    k = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[k]


@dataclass
class Clock:
    """An entry's replies in the referee's records: their outcomes and reply times."""

    outcomes: Counter[str] = field(default_factory=Counter)  # applied, timeout, illegal...
    latencies: list[float] = field(default_factory=list)  # ms, every timed reply, sorted

    @property
    def replies(self) -> int:
        return sum(self.outcomes.values())

    def quantile(self, q: float) -> float:
        return percentile(self.latencies, q)

    @property
    def faults(self) -> int:
        """Replies that were not applied: late, illegal, stale, malformed..."""
        return self.replies - self.outcomes.get("applied", 0)


@dataclass
class EntryDetails:
    """One entry's breakdowns."""

    name: str
    progression: list[tuple[int, float]] = field(default_factory=list)  # (group, mean so far)
    by_size: dict[str, tuple[float, int]] = field(default_factory=dict)  # -> (per deal, deals)
    by_seat: dict[int, tuple[float, int]] = field(default_factory=dict)  # -> (per deal, deals)
    strikes: int = 0
    forfeits: int = 0
    clock: Clock | None = None  # None: the referee's records are not in this file
    matches: list[MatchLine] = field(default_factory=list)

    def add_replies(self, replies: list[dict[str, Any]], seats: list[int]) -> None:
        """Count the replies its ``seats`` gave in one match (from the referee's records)."""
        if self.clock is None:
            self.clock = Clock()
        for rep in replies:
            if rep["seat"] in seats:
                self.clock.outcomes[rep["outcome"]] += rep.get("count", 1)
                if rep["latency_ms"] is not None:
                    self.clock.latencies.append(float(rep["latency_ms"]))


@dataclass
class Details:
    """Every entry's breakdowns, and what they are broken down by."""

    unit: str | None  # the game's duplicate unit option (None: whole games)
    sizes: list[str]  # its values, in order
    seats: list[int]
    groups: list[int]
    floor: float  # the forfeit score per deal
    entries: dict[str, EntryDetails]
    records: bool  # whether the referee's records of the matches were found


def _size_key(v: str) -> tuple[int, float | str]:
    try:
        return (0, float(v))
    except ValueError:
        return (1, v)


def tournament_details(
    names: Sequence[str],
    rows: Sequence[dict[str, Any]],
    unit: str | None = None,
    store: Any = None,
) -> Details:
    """The breakdowns of finished schedule ``rows``. ``store``: the referee's
    :class:`~levata.server.match.store.Store` holding the matches (their replies give the
    reply times), or ``None``."""
    done = sorted(
        (r for r in rows if r.get("result") is not None), key=lambda r: (r["group"], r["index"])
    )
    usual = usual_deals(done)
    floor = forfeit_score(done, usual)
    entries = {n: EntryDetails(n) for n in names}
    groups = sorted({r["group"] for r in done})
    total: defaultdict[str, float] = defaultdict(float)  # running sums for the progression
    dealt: Counter[str] = Counter()
    size_sum: dict[tuple[str, str], list[float]] = {}
    seat_sum: dict[tuple[str, int], list[float]] = {}
    found = False
    gi = 0
    for g in groups:
        while gi < len(done) and done[gi]["group"] == g:
            r = done[gi]
            gi += 1
            d = r["result"].get("deals") or usual
            size = str(r.get("options", {}).get(unit, "")) if unit else ""
            replies = _replies(store, r.get("match_id"))
            found = found or replies is not None
            strikes = r["result"].get("strikes") or []
            for who, x in entry_results(r, floor, usual).items():
                e = entries[who]
                seats = [s for s, w in enumerate(r["seats"]) if w == who]
                total[who] += x.score
                dealt[who] += d
                _add(size_sum, (who, size), x.score, d)
                for s in seats:  # a partner's seat counts the team's score
                    _add(seat_sum, (who, s), x.score, d)
                e.strikes += sum(strikes[s] for s in seats if s < len(strikes))
                e.forfeits += x.forfeited
                e.matches.append(_match_line(r, seats, size, x, d))
                if replies is not None:
                    e.add_replies(replies, seats)
        for n in names:
            if dealt[n]:
                entries[n].progression.append((g, total[n] / dealt[n]))
    for (who, size), (tot, cnt) in size_sum.items():
        entries[who].by_size[size] = (tot / cnt, int(cnt))
    for (who, seat), (tot, cnt) in sorted(seat_sum.items()):
        entries[who].by_seat[seat] = (tot / cnt, int(cnt))
    for e in entries.values():
        if e.clock is not None:
            e.clock.latencies.sort()
        e.by_size = dict(sorted(e.by_size.items(), key=lambda kv: _size_key(kv[0])))
    sizes = sorted({s for (_, s) in size_sum}, key=_size_key)
    return Details(
        unit=unit if any(sizes) else None,
        sizes=sizes,
        seats=sorted({s for (_, s) in seat_sum}),
        groups=groups,
        floor=floor,
        entries=entries,
        records=found,
    )


def _add(sums: dict[Any, list[float]], key: Any, score: float, deals: float) -> None:
    """Add a match's score and deals to the running sums under ``key``."""
    acc = sums.setdefault(key, [0.0, 0])
    acc[0] += score
    acc[1] += deals


def _match_line(
    r: dict[str, Any], seats: list[int], size: str, x: EntryResult, deals: float
) -> MatchLine:
    """One entry's line for finished row ``r``, where it sat in ``seats``."""
    return MatchLine(
        r["index"],
        r["group"],
        r.get("match_id") or "",
        "+".join(map(str, seats)),
        tuple(r["seats"]),
        size,
        x.score / deals,
        x.rank,
        x.forfeited,
        r["result"].get("detail", "") if r["result"].get("forfeited") else "",
    )


def _replies(store: Any, match_id: str | None) -> list[dict[str, Any]] | None:
    """The replies of a match in ``store``, or ``None`` when it does not hold the match."""
    if store is None or not match_id or store.match(match_id) is None:
        return None
    replies: list[dict[str, Any]] = store.replies(match_id)
    return replies
