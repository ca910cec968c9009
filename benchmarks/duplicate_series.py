"""A duplicate series of any game, read from the referee's records: each entry's score per
deal, the paired differences between entries, and each entry's decision times.

Play the series over the referee (each bot its own process, every deal in every seating or
rotation), then read it::

    levata tournament --game bestia --bots pimc:time_ms=100,ismcts:time_ms=100,heuristic,random \\
        --deals 60 --unit deal --seating rotate --seed 29 --db bestia.db
    python benchmarks/duplicate_series.py bestia.db

For each tournament it prints, per entry, the mean score per deal (its mean over the matches
of a deal, then over deals), and for each pair of entries the mean of the per-deal
differences, each with a 95% interval from 2,000 bootstrap resamples of whole deals (a deal is
the unit: its seatings share the cards). Then each entry's reply times over the referee
(request sent to reply received) for decisions with more than one legal action: the match is
replayed from its recorded actions to count them. Forfeited matches are left out and counted.
Where the game scores bids against tricks (its score events carry both: Whist), each entry's
share of bids made exactly, and of tricks over and under the bid, from the same replay.

Two settings of one bot measured on the same deals (two tournaments of one seed, one database
each) compare paired by deal with ``--paired PREFIX``: the margin, per deal, of the entries
whose names start with PREFIX over the others, in each database after the first less in the
first::

    python benchmarks/duplicate_series.py --paired pimc counting.db unknown.db
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sqlite3
import statistics
from collections import defaultdict

from levata.engine import Action, GameState, game

RESAMPLES = 2000


def interval(values: list[float], rng: random.Random) -> tuple[float, float]:
    """The 95% bootstrap interval of the mean of ``values``.

    >>> lo, hi = interval([1.0, 2.0, 3.0, 4.0], random.Random(1))
    >>> 1.0 <= lo <= 2.5 <= hi <= 4.0
    True
    """
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def quantile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))] if ys else float("nan")


def scores_by_deal(con: sqlite3.Connection, tid: str) -> tuple[dict[int, dict[str, float]], int]:
    """Per deal, each entry's mean score over the matches it sat in; and the forfeits."""
    sums: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    forfeits = 0
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
        for seat, entry in enumerate(json.loads(seats_text)):
            sums[grp][entry].append(float(res["scores"][seat]))
    return {g: {e: statistics.fmean(v) for e, v in d.items()} for g, d in sums.items()}, forfeits


def decision_times(
    con: sqlite3.Connection, tid: str, bids: dict[str, list[int]] | None = None
) -> dict[str, list[float]]:
    """Each entry's reply latencies (ms) for decisions with more than one legal action; and
    into ``bids``, where the game's score events carry bids and tricks, each entry's count
    of bids made exactly, over and under (tricks against bid)."""
    out: dict[str, list[float]] = defaultdict(list)
    matches = con.execute(
        "select m.id, m.game, m.players, m.options, m.seed, t.seats"
        " from matches m join tournament_matches t on t.match_id = m.id"
        " where t.tournament_id = ? and m.status = 'finished'",
        (tid,),
    ).fetchall()
    for mid, name, players, options, seed, seats in matches:
        entries = json.loads(seats)  # the entry in each seat, as the schedule names it
        state = game(name).new_match(players=players, options=json.loads(options), seed=seed)
        latency = dict(
            con.execute(
                "select request_id, latency_ms from replies where match_id = ?"
                " and outcome = 'applied'",
                (mid,),
            ).fetchall()
        )
        acts = con.execute(
            "select seat, action, request_id from actions where match_id = ? order by n", (mid,)
        )
        for seat, text, request in acts:
            if seat is None or text is None:
                continue
            if len(state.legal_actions(seat)) > 1 and latency.get(request) is not None:
                out[entries[seat]].append(float(latency[request]))
            state.apply(seat, Action.parse(text))
        if bids is not None:
            _tally_bids(state, entries, bids)
    return out


def _tally_bids(state: GameState, entries: list[str], bids: dict[str, list[int]]) -> None:
    """Add each seat's bids made exactly, over and under in ``state``'s scored deals."""
    for e in state.view(0).history:
        if e.kind != "score" or "bids" not in e.data or "tricks" not in e.data:
            continue
        for seat, (bid, took) in enumerate(zip(e.data["bids"], e.data["tricks"], strict=True)):
            if bid is None:
                continue
            tally = bids.setdefault(entries[seat], [0, 0, 0])
            tally[0 if took == bid else 1 if took > bid else 2] += 1


def report(db: str) -> None:
    rng = random.Random(1)
    con = sqlite3.connect(db)
    for (tid,) in con.execute("select id from tournaments").fetchall():
        by_deal, forfeits = scores_by_deal(con, tid)
        entries = sorted({e for d in by_deal.values() for e in d})
        deals = sorted(by_deal)
        print(f"{db} {tid}: {len(deals)} deals, {forfeits} forfeited matches left out")
        for e in entries:
            xs = [by_deal[g][e] for g in deals if e in by_deal[g]]
            lo, hi = interval(xs, rng)
            print(f"  {e:28s} {statistics.fmean(xs):+.3f} a deal [{lo:+.3f}, {hi:+.3f}]")
        for a, b in itertools.combinations(entries, 2):
            xs = [
                by_deal[g][a] - by_deal[g][b] for g in deals if a in by_deal[g] and b in by_deal[g]
            ]
            lo, hi = interval(xs, rng)
            sign = "above 0" if lo > 0 else "below 0" if hi < 0 else "covers 0"
            print(f"  {a} - {b}: {statistics.fmean(xs):+.3f} [{lo:+.3f}, {hi:+.3f}] ({sign})")
        bids: dict[str, list[int]] = {}
        for e, ts in sorted(decision_times(con, tid, bids).items()):
            print(
                f"  {e:28s} {len(ts)} decisions: median {quantile(ts, 0.5):.0f} ms,"
                f" p90 {quantile(ts, 0.9):.0f} ms, p99 {quantile(ts, 0.99):.0f} ms,"
                f" max {max(ts):.0f} ms"
            )
        for e, (exact, over, under) in sorted(bids.items()):
            n = exact + over + under
            print(
                f"  {e:28s} {n} bids: exact {exact / n:.0%}, over {over / n:.0%},"
                f" under {under / n:.0%}"
            )


def margins(db: str, prefix: str) -> tuple[str, dict[int, float]]:
    """The entries of ``db``'s tournament named ``prefix...`` and, per deal, their mean score
    less the other entries' mean."""
    con = sqlite3.connect(db)
    (tid,) = con.execute("select id from tournaments").fetchone()
    by_deal, _ = scores_by_deal(con, tid)
    out: dict[int, float] = {}
    names: set[str] = set()
    for g, scores in by_deal.items():
        mine = [v for e, v in scores.items() if e.startswith(prefix)]
        rest = [v for e, v in scores.items() if not e.startswith(prefix)]
        names |= {e for e in scores if e.startswith(prefix)}
        if mine and rest:
            out[g] = statistics.fmean(mine) - statistics.fmean(rest)
    return ", ".join(sorted(names)), out


def paired(dbs: list[str], prefix: str) -> None:
    """Each database's margin for ``prefix`` less the first's, deal by deal.

    >>> paired([], "pimc")
    """
    if not dbs:
        return
    rng = random.Random(1)
    base_name, base = margins(dbs[0], prefix)
    for db in dbs[1:]:
        name, other = margins(db, prefix)
        deals = sorted(set(base) & set(other))
        xs = [other[g] - base[g] for g in deals]
        lo, hi = interval(xs, rng)
        print(
            f"{name} ({db}) - {base_name} ({dbs[0]}), margins paired on {len(deals)} deals:"
            f" {statistics.fmean(xs):+.3f} [{lo:+.3f}, {hi:+.3f}]"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("db", nargs="+", help="tournament databases (levata tournament --db)")
    p.add_argument("--paired", metavar="PREFIX", help="compare PREFIX's margin, paired by deal")
    args = p.parse_args()
    if args.paired:
        paired(args.db, args.paired)
        return
    for db in args.db:
        report(db)


if __name__ == "__main__":
    main()
