"""Entry A's mean place minus entry B's, in process, over the same deals played in both table
orders and every rotation (as ``paired_orders.py`` reads from two referee series): a tuning
bench where a fixed ``iterations=N`` keeps the machine's load out of the figures.

Orders: ``A B C...`` and ``B A C...`` (the other entries keep their places), each deal in
every rotation of the seats. Each deal's difference is averaged over its rotations in each
order, then over the two orders; the 95% interval comes from 2,000 bootstrap resamples of
the deals::

    python benchmarks/orders_inprocess.py --game huzur ismcts:iterations=16 heuristic \\
        --others random --deals 30 --seed 4101 --jobs 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time

from levata.bots import play_match
from levata.bots.base import make_bot, parse_bot
from levata.engine import game as find_game


def one_game(job: tuple[str, list[str], int, int, int]) -> tuple[int, int, int, list[int], float]:
    """Play one deal in one table order and rotation; (deal, order, rotation, ranks of the
    entries in table order, seconds)."""
    name, table, deal, order, rot = job
    n = len(table)
    seats = [table[(s - rot) % n] for s in range(n)]
    bots = []
    for s, entry in enumerate(seats):
        kind, options = parse_bot(entry, name)
        bots.append(make_bot(kind, name, seed=deal * 100 + s, **options))
    started = time.perf_counter()
    res = play_match(find_game(name).new_match(players=n, seed=deal), bots)
    # the ranks of the table's entries, as the table lists them
    ranks = [res.ranks[(i + rot) % n] for i in range(n)]
    return deal, order, rot, ranks, time.perf_counter() - started


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--game", default="huzur")
    p.add_argument("--others", nargs="*", default=["random"], help="the other seats' entries")
    p.add_argument("--deals", type=int, default=30)
    p.add_argument("--seed", type=int, default=4101)
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args()
    tables = [[args.a, args.b, *args.others], [args.b, args.a, *args.others]]
    n = len(tables[0])
    jobs = [
        (args.game, tables[o], args.seed + d, o, r)
        for d in range(args.deals)
        for o in range(2)
        for r in range(n)
    ]
    diffs: dict[tuple[int, int], list[int]] = {}
    secs: list[float] = []
    with multiprocessing.Pool(args.jobs) as pool:
        for deal, order, rot, ranks, spent in pool.imap_unordered(one_game, jobs):
            ia, ib = (0, 1) if order == 0 else (1, 0)
            diffs.setdefault((deal, order), []).append(ranks[ia] - ranks[ib])
            secs.append(spent)
            print(deal, order, rot, ranks, f"{spent:.1f}", file=sys.stderr, flush=True)
    per_order = {k: statistics.fmean(v) for k, v in diffs.items()}
    deals = sorted({d for d, _ in per_order})
    both = [(per_order[(d, 0)] + per_order[(d, 1)]) / 2 for d in deals]
    rng = random.Random(1)
    boots = sorted(statistics.fmean(rng.choices(both, k=len(both))) for _ in range(2000))
    one = statistics.fmean(per_order[(d, 0)] for d in deals)
    two = statistics.fmean(per_order[(d, 1)] for d in deals)
    print(
        f"{args.a} - {args.b}: place {statistics.fmean(both):+.3f}"
        f" [{boots[50]:+.3f}, {boots[1949]:+.3f}] over {len(both)} deals x {n} rotations x 2"
        f" orders (below 0: A finishes earlier); order A-first {one:+.3f}, B-first {two:+.3f};"
        f" {statistics.fmean(secs):.1f} s a game"
    )


if __name__ == "__main__":
    main()
