"""Entry A's mean place minus entry B's over two seat-rotated series of the same deals played
in two table orders (A in one seat, B in it in the other): the fair comparison where the
neighbours matter, as in Trombon (a rotated series keeps every entry between the same two).

Each deal's difference is averaged over its rotations in each series, then over the two
series; the 95% interval comes from 2,000 bootstrap resamples of the deals::

    python benchmarks/paired_orders.py search:time_ms=40:horizon=20 heuristic a.db b.db
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics


def per_deal(db: str, a: str, b: str) -> dict[int, float]:
    """Per deal (match group), A's place minus B's, averaged over its rotations."""
    out: dict[int, list[int]] = {}
    con = sqlite3.connect(db)
    rows = con.execute(
        "select grp, seats, result from tournament_matches where status = 'finished'"
    )
    for grp, seats_text, result_text in rows:
        seats, res = json.loads(seats_text), json.loads(result_text)
        if res.get("forfeited"):
            continue
        ranks = res["ranks"]
        out.setdefault(grp, []).append(ranks[seats.index(a)] - ranks[seats.index(b)])
    return {g: statistics.fmean(v) for g, v in out.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="entry A, as written in the series")
    p.add_argument("b", help="entry B")
    p.add_argument("first", help="the series of one order (levata tournament --db)")
    p.add_argument("second", help="the series of the other order, same seed and deals")
    args = p.parse_args()
    one = per_deal(args.first, args.a, args.b)
    two = per_deal(args.second, args.a, args.b)
    both = [(one[g] + two[g]) / 2 for g in sorted(one) if g in two]
    if not both:
        raise SystemExit("error: the two series share no deal")
    rng = random.Random(1)
    boots = sorted(statistics.fmean(rng.choices(both, k=len(both))) for _ in range(2000))
    print(
        f"{args.a} - {args.b}: place {statistics.fmean(both):+.3f}"
        f" [{boots[50]:+.3f}, {boots[1949]:+.3f}] over {len(both)} deals (below 0: A finishes"
        f" earlier); one order {statistics.fmean(one.values()):+.3f},"
        f" the other {statistics.fmean(two.values()):+.3f}"
    )


if __name__ == "__main__":
    main()
