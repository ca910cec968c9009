"""Node counts of the double-dummy solver on a fixed set of seeded 13-card bridge deals.

    python benchmarks/solver_nodes.py [--deals 200] [--seed 7] [--size 13]

Deterministic and load-independent: develop the search against these counts (total,
median, p90 of nodes per deal; a fresh Solver per deal, one strain and one leader per deal,
the leader's side's tricks) and keep wall-time ratios for the final figures
(``benchmarks/solver.py --sections dds``). Every answer is checked against DDS (endplay);
DDS's answers are cached per (seed, size, deals) under the system's temp folder.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import tempfile
import time

from solver import mask_of_indexes, pbn

from levata.engine.rules import TrickRules
from levata.engine.solver import Solver, tricks


def deals_of(size: int, deals: int, seed: int):
    rng = random.Random(seed * 1000 + size)
    deck = [16 * s + r for s in range(4) for r in range(2, 15)]
    for _ in range(deals):
        rng.shuffle(deck)
        hands = [deck[size * i : size * i + size] for i in range(4)]
        leader = rng.randrange(4)
        strain = rng.randrange(5)
        yield hands, leader, strain


def dds_answers(size: int, deals: int, seed: int) -> list[int]:
    path = os.path.join(tempfile.gettempdir(), f"levata_dds_{seed}_{size}_{deals}.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    from endplay.dds import solve_board
    from endplay.dds.solve import SolveMode
    from endplay.types import Deal, Denom, Player

    denoms = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]
    out = []
    for hands, leader, strain in deals_of(size, deals, seed):
        deal = Deal(pbn(hands), first=Player(leader), trump=denoms[strain])
        out.append(max(score for _, score in solve_board(deal, SolveMode.OptimalOne)))
    with open(path, "w") as f:
        json.dump(out, f)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--size", type=int, default=13)
    ap.add_argument("--per-deal", action="store_true", help="print each deal's nodes")
    args = ap.parse_args()
    want = dds_answers(args.size, args.deals, args.seed)
    rules = {t: TrickRules(4, t, teams=(0, 1, 0, 1)) for t in (None, 0, 1, 2, 3)}
    nodes, windows, bad = [], 0, 0
    start = time.perf_counter()
    for i, (hands, leader, strain) in enumerate(deals_of(args.size, args.deals, args.seed)):
        trump = None if strain == 4 else strain
        s = Solver(rules[trump])
        got = s.solve(
            [mask_of_indexes(h) for h in hands],
            leader,
            objective=tricks((leader, (leader + 2) % 4)),
        )
        nodes.append(s.nodes)
        windows += s.stats["windows"]
        if got != want[i]:
            bad += 1
            where = f"deal {i}: {pbn(hands)} leader {leader} strain {strain}"
            print(f"DISAGREE {where}: {got} vs {want[i]}")
        if args.per_deal:
            print(i, s.nodes)
    elapsed = time.perf_counter() - start
    q = statistics.quantiles(nodes, n=10)
    print(
        f"deals {args.deals} seed {args.seed} size {args.size}: total {sum(nodes):,} "
        f"median {statistics.median(nodes):,.0f} p90 {q[8]:,.0f} max {max(nodes):,} "
        f"log-sum {sum(math.log(n) for n in nodes):.1f} windows {windows} wrong {bad}"
        f" ({elapsed:.1f} s)"
    )


if __name__ == "__main__":
    main()
