"""Finishing order of a seat-rotated series, read from the referee's records: for each entry,
the share of matches it lost and of each finishing place, with 95% intervals.

For the games that end in an order and a loser (Huzur, Trombon, Toci, Macao...), a mean score
hides what players care about: who is left holding the cards. Play the series over the
referee (each bot its own process, every match in every rotation), then read it::

    levata tournament --game macao --bots ismcts:time_ms=100,heuristic,random \\
        --deals 70 --unit game --seating rotate --seed 31 --db macao.db
    python benchmarks/finishing.py macao.db

Per entry it prints the loser share (the loser: the seat alone or tied at the worst place of
its match, when not every seat shares it), the share of each place (1 = first out), the mean
place and the mean score; for each pair of entries the difference of their loser shares and
of their mean places. A match group (the rotations of one deal) is the unit: each entry's
figures are averaged within a group, and the 95% intervals come from 2,000 bootstrap
resamples of whole groups (the rotations share the cards, so they are not independent).
Then each entry's reply times over the referee for decisions with a choice (median, p90,
max). Forfeited matches are left out and counted.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sqlite3
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from duplicate_series import decision_times, interval, quantile


@dataclass
class Seat:
    """One entry's outcomes in one match group: a row per seat it held."""

    places: list[int] = field(default_factory=list)
    lost: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)


def loser_seats(ranks: list[int]) -> set[int]:
    """The seats at the worst place, unless every seat shares it (no loser then).

    >>> sorted(loser_seats([1, 3, 2])), sorted(loser_seats([1, 2, 2])), loser_seats([1, 1])
    ([1], [1, 2], set())
    """
    worst = max(ranks)
    if worst == min(ranks):
        return set()
    return {s for s, r in enumerate(ranks) if r == worst}


def groups(con: sqlite3.Connection, tid: str) -> tuple[dict[int, dict[str, Seat]], int, int]:
    """Per match group, each entry's outcomes; the forfeits; the most seats at a table."""
    out: dict[int, dict[str, Seat]] = defaultdict(lambda: defaultdict(Seat))
    forfeits = players = 0
    rows = con.execute(
        "select grp, seats, result from tournament_matches"
        " where tournament_id = ? and status = 'finished'",
        (tid,),
    )
    for grp, seats_text, result_text in rows:
        res = json.loads(result_text)
        if res.get("forfeited"):
            forfeits += 1
            continue
        ranks = [int(r) for r in res["ranks"]]
        players = max(players, len(ranks))
        losers = loser_seats(ranks)
        for seat, entry in enumerate(json.loads(seats_text)):
            row = out[grp][entry]
            row.places.append(ranks[seat])
            row.lost.append(1.0 if seat in losers else 0.0)
            row.scores.append(float(res["scores"][seat]))
    return out, forfeits, players


def share_text(values: list[float], rng: random.Random, scale: float = 100.0) -> str:
    lo, hi = interval(values, rng)
    mean = statistics.fmean(values)
    return f"{mean * scale:5.1f} [{lo * scale:5.1f}, {hi * scale:5.1f}]"


def report(db: str) -> None:
    rng = random.Random(1)
    con = sqlite3.connect(db)
    for (tid,) in con.execute("select id from tournaments").fetchall():
        by_group, forfeits, players = groups(con, tid)
        if not by_group:
            print(f"{db} {tid}: no finished match")
            continue
        entries = sorted({e for g in by_group.values() for e in g})
        keys = sorted(by_group)
        matches = sum(len(r.places) for g in by_group.values() for r in g.values())
        print(
            f"{db} {tid}: {len(keys)} match groups, {matches} seats played"
            f" ({players} a table), {forfeits} forfeited matches left out"
        )
        print("  shares in %, 95% bootstrap intervals over match groups")
        for e in entries:
            rows = [by_group[g][e] for g in keys if e in by_group[g]]
            lost = [statistics.fmean(r.lost) for r in rows]
            place = [statistics.fmean(r.places) for r in rows]
            score = [statistics.fmean(r.scores) for r in rows]
            print(
                f"  {e:28s} lost {share_text(lost, rng)}"
                f"  mean place {statistics.fmean(place):.2f}"
                f"  mean score {statistics.fmean(score):+.2f}"
            )
            for k in range(1, players + 1):
                at_k = [statistics.fmean(1.0 if p == k else 0.0 for p in r.places) for r in rows]
                print(f"  {'':28s}   place {k}: {share_text(at_k, rng)}")
        for a, b in itertools.combinations(entries, 2):
            both = [g for g in keys if a in by_group[g] and b in by_group[g]]
            if not both:
                continue
            lost = [
                statistics.fmean(by_group[g][a].lost) - statistics.fmean(by_group[g][b].lost)
                for g in both
            ]
            place = [
                statistics.fmean(by_group[g][a].places) - statistics.fmean(by_group[g][b].places)
                for g in both
            ]
            lo, hi = interval(place, rng)
            print(
                f"  {a} - {b}: lost {share_text(lost, rng)} points;"
                f" place {statistics.fmean(place):+.3f} [{lo:+.3f}, {hi:+.3f}]"
                " (below 0: finishes earlier)"
            )
        for e, ts in sorted(decision_times(con, tid).items()):
            print(
                f"  {e:28s} {len(ts)} decisions: median {quantile(ts, 0.5):.0f} ms,"
                f" p90 {quantile(ts, 0.9):.0f} ms, max {max(ts):.0f} ms"
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("db", nargs="+", help="tournament databases (levata tournament --db)")
    for db in p.parse_args().db:
        report(db)


if __name__ == "__main__":
    main()
