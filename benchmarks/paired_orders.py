"""Entry A's mean place minus entry B's over two seat-rotated series of the same deals played
in two table orders (A in one seat, B in it in the other): the fair comparison where the
neighbours matter, as in Trombon (a rotated series keeps every entry between the same two).

Each deal's difference is averaged over its rotations in each series, then over the two
series; the 95% interval comes from 2,000 bootstrap resamples of the deals. More pairs of
series (other seeds) pool their deals; ``NAME|NAME`` names one entry written differently in
different series::

    python benchmarks/paired_orders.py search:time_ms=40:horizon=20 heuristic a.db b.db
    python benchmarks/paired_orders.py "ismcts:guard=2|ismcts" heuristic a1.db b1.db a2.db b2.db
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics


def per_deal(db: str, a: str, b: str) -> dict[int, float]:
    """Per deal (match group), A's place minus B's, averaged over its rotations (``a``, ``b``:
    the entries' names, or alternatives ``NAME|NAME``, the first seated one counting)."""
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
        out.setdefault(grp, []).append(ranks[_seat(seats, a)] - ranks[_seat(seats, b)])
    return {g: statistics.fmean(v) for g, v in out.items()}


def _seat(seats: list[str], names: str) -> int:
    """The seat of the entry ``names`` (``NAME|NAME``: whichever is seated)."""
    for name in names.split("|"):
        if name in seats:
            return seats.index(name)
    raise SystemExit(f"error: no entry {names!r} in a match of {seats}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="entry A, as written in the series")
    p.add_argument("b", help="entry B")
    p.add_argument("first", help="the series of one order (levata tournament --db)")
    p.add_argument("second", help="the series of the other order, same seed and deals")
    p.add_argument("more", nargs="*", help="more pairs of series (other seeds), pooled")
    args = p.parse_args()
    if len(args.more) % 2:
        raise SystemExit("error: series come in pairs (one of each order)")
    files = [args.first, args.second, *args.more]
    both: list[float] = []
    orders: list[list[float]] = [[], []]
    for k in range(0, len(files), 2):
        one = per_deal(files[k], args.a, args.b)
        two = per_deal(files[k + 1], args.a, args.b)
        both += [(one[g] + two[g]) / 2 for g in sorted(one) if g in two]
        orders[0] += one.values()
        orders[1] += two.values()
    if not both:
        raise SystemExit("error: the two series share no deal")
    rng = random.Random(1)
    boots = sorted(statistics.fmean(rng.choices(both, k=len(both))) for _ in range(2000))
    print(
        f"{args.a} - {args.b}: place {statistics.fmean(both):+.3f}"
        f" [{boots[50]:+.3f}, {boots[1949]:+.3f}] over {len(both)} deals (below 0: A finishes"
        f" earlier); one order {statistics.fmean(orders[0]):+.3f},"
        f" the other {statistics.fmean(orders[1]):+.3f}"
    )


if __name__ == "__main__":
    main()
