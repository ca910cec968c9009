"""Tune the solver's move-ordering scores by node counts (coordinate descent).

    python benchmarks/solver_tune.py [--deals 100] [--seed 11] [--passes 1]

Objective: the sum over deals of log(nodes) (the geometric mean: the median and p90 matter,
not a few huge deals). Each trial sets the scores with ``solver_order._order_weights`` and solves
the same seeded 13-card deals (answers checked against DDS); a change is kept when it
lowers the objective by more than 0.2%. Prints the best scores found.
"""

from __future__ import annotations

import argparse
import math
import statistics

from solver import mask_of_indexes
from solver_nodes import dds_answers, deals_of

from levata.engine import solver as S
from levata.engine.rules import TrickRules
from levata.engine.solver_order import _order_weights


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated names to tune")
    args = ap.parse_args()
    want = dds_answers(13, args.deals, args.seed)
    rules = {t: TrickRules(4, t, teams=(0, 1, 0, 1)) for t in (None, 0, 1, 2, 3)}
    deals = [
        ([mask_of_indexes(h) for h in hands], leader, None if strain == 4 else strain)
        for hands, leader, strain in deals_of(13, args.deals, args.seed)
    ]

    def evaluate(w: dict) -> tuple[float, int, float]:
        _order_weights(w)
        nodes = []
        for i, (masks, leader, trump) in enumerate(deals):
            s = S.Solver(rules[trump])
            v = s.solve(masks, leader, objective=S.tricks((leader, (leader + 2) % 4)))
            assert v == want[i], (i, v, want[i])
            nodes.append(s.nodes)
        return sum(math.log(n) for n in nodes), sum(nodes), statistics.median(nodes)

    best = _order_weights()
    fb = evaluate(best)
    print("start", fb, best, flush=True)
    names = list(best)
    if args.only:
        names = args.only.split(",")
    for _ in range(args.passes):
        for name in names:
            v = best[name]
            cands = sorted({v * 2, v // 2, v + max(1, abs(v) // 4), v - max(1, abs(v) // 4)} - {v})
            if v == 0:
                cands = [-300, 300]
            if name in ("O_CONTEST_RANK", "O_LEAD_RANK"):
                cands = [c for c in (-1, 0, 1, 3) if c != v]
            for cand in cands:
                w = dict(best, **{name: cand})
                f = evaluate(w)
                better = f[0] < fb[0] - 0.5
                print(
                    f"  {name}={cand}: log {f[0]:.2f} total {f[1]:,} median {f[2]:,.0f}"
                    f" {'KEEP' if better else ''}",
                    flush=True,
                )
                if better:
                    best, fb = w, f
            _order_weights(best)
        print("pass", fb, best, flush=True)
    print("best", best)


if __name__ == "__main__":
    main()
