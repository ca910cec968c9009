"""Entry A's mean place minus entry B's over two seat-rotated series of the same deals played
in two table orders (A in one seat, B in it in the other): the fair comparison where the
neighbours matter, as in Trombon (a rotated series keeps every entry between the same two).

Each deal's difference is averaged over its rotations in each series, then over the two
series; the 95% interval comes from 2,000 bootstrap resamples of the deals. Beside the place,
the same for the share of matches lost and of first places (percentage points). More pairs of
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

from finishing import loser_seats

#: What is compared, per deal: A's place minus B's, and A's share of losses and of first
#: places minus B's (the loser: alone or tied at the worst place, as ``finishing.py`` has it).
MEASURES = ("place", "lost", "first out")


def per_deal(db: str, a: str, b: str) -> dict[int, tuple[float, ...]]:
    """Per deal (match group), A's :data:`MEASURES` minus B's, averaged over its rotations
    (``a``, ``b``: the entries' names, or alternatives ``NAME|NAME``, the first seated one
    counting)."""
    out: dict[int, list[tuple[int, ...]]] = {}
    con = sqlite3.connect(db)
    rows = con.execute(
        "select grp, seats, result from tournament_matches where status = 'finished'"
    )
    for grp, seats_text, result_text in rows:
        seats, res = json.loads(seats_text), json.loads(result_text)
        if res.get("forfeited"):
            continue
        ranks = res["ranks"]
        sa, sb = _seat(seats, a), _seat(seats, b)
        losers = loser_seats(ranks)
        out.setdefault(grp, []).append(
            (
                ranks[sa] - ranks[sb],
                (sa in losers) - (sb in losers),
                (ranks[sa] == 1) - (ranks[sb] == 1),
            )
        )
    return {g: tuple(statistics.fmean(col) for col in zip(*v, strict=True)) for g, v in out.items()}


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
    both: list[tuple[float, ...]] = []
    orders: list[list[float]] = [[], []]
    for k in range(0, len(files), 2):
        one = per_deal(files[k], args.a, args.b)
        two = per_deal(files[k + 1], args.a, args.b)
        both += [
            tuple((x + y) / 2 for x, y in zip(one[g], two[g], strict=True))
            for g in sorted(one)
            if g in two
        ]
        orders[0] += [d[0] for d in one.values()]
        orders[1] += [d[0] for d in two.values()]
    if not both:
        raise SystemExit("error: the two series share no deal")
    for i, measure in enumerate(MEASURES):
        values = [d[i] for d in both]
        rng = random.Random(1)
        boots = sorted(statistics.fmean(rng.choices(values, k=len(values))) for _ in range(2000))
        scale, unit = (1, "") if i == 0 else (100, " points")
        line = (
            f"{args.a} - {args.b}: {measure} {scale * statistics.fmean(values):+.3f}"
            f" [{scale * boots[50]:+.3f}, {scale * boots[1949]:+.3f}]{unit} over {len(values)}"
            " deals"
        )
        if i == 0:
            line += (
                f" (below 0: A finishes earlier); one order {statistics.fmean(orders[0]):+.3f},"
                f" the other {statistics.fmean(orders[1]):+.3f}"
            )
        print(line)


if __name__ == "__main__":
    main()
