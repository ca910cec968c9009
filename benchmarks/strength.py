"""Playing strength on duplicate deals: pimc vs heuristic vs random at Romanian Whist.

    python benchmarks/strength.py [--deals 200] [--worlds 100] [--seed 1]

Each deal (one Whist deal of 2..8 cards, 3 players) is played once for every seating of the
three bots (all 6 permutations), so every bot holds every hand from every seat and luck of
the cards cancels out. A bot's score on a deal is its mean over the seatings; the table gives
the mean score per deal with a 95% confidence interval (normal approximation over deals), and
the pairwise differences, paired by deal, with their intervals. A difference whose interval
covers zero is marked not significant.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import time

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from levata.bots import make_bot, play_match
from levata.bots.pimc import PimcBot
from levata.engine import game
from levata.engine.seeds import derive

BOTS = ("pimc", "heuristic", "random")
Z95 = 1.96


def deal_scores(deal: int, seed: int, worlds: int) -> dict[str, float]:
    """Mean score of each bot on one deal over all seatings."""
    spec = game("whist")
    size = 2 + deal % 7  # 2..8 cards
    totals = {b: 0.0 for b in BOTS}
    perms = list(itertools.permutations(BOTS))
    for k, seating in enumerate(perms):
        state = spec.new_match(players=3, options={"deal_size": size}, seed=derive(seed, deal))
        bots = [
            PimcBot(seed=derive(seed, deal, k, s), worlds=worlds)
            if name == "pimc"
            else make_bot(name, "whist", seed=derive(seed, deal, k, s))
            for s, name in enumerate(seating)
        ]
        result = play_match(state, bots)
        for s, name in enumerate(seating):
            totals[name] += result.scores[s]
    return {b: v / len(perms) for b, v in totals.items()}


def interval(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval."""
    m = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return m, half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (default 200)")
    parser.add_argument("--worlds", type=int, default=100, help="PIMC worlds per decision")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    per_deal: list[dict[str, float]] = []
    start = time.perf_counter()
    with Progress(transient=True) as progress:
        task = progress.add_task("duplicate deals", total=args.deals)
        for d in range(args.deals):
            per_deal.append(deal_scores(d, args.seed, args.worlds))
            progress.advance(task)
    elapsed = time.perf_counter() - start
    out = Console()
    table = Table(
        title=f"Whist, 3 players, {args.deals} duplicate deals x 6 seatings "
        f"({args.worlds} worlds/decision, {elapsed:.0f} s)"
    )
    for col in ("bot", "mean score / deal", "95% interval"):
        table.add_column(col, justify="right")
    for b in sorted(BOTS, key=lambda b: -statistics.fmean(p[b] for p in per_deal)):
        m, h = interval([p[b] for p in per_deal])
        table.add_row(b, f"{m:+.3f}", f"[{m - h:+.3f}, {m + h:+.3f}]")
    out.print(table)
    pairs = Table(title="paired differences (row minus column bot), per deal")
    for col in ("pair", "mean difference", "95% interval", "significant"):
        pairs.add_column(col, justify="right")
    for a, b in itertools.combinations(BOTS, 2):
        m, h = interval([p[a] - p[b] for p in per_deal])
        sig = "yes" if abs(m) > h else "no (interval covers 0)"
        pairs.add_row(f"{a} - {b}", f"{m:+.3f}", f"[{m - h:+.3f}, {m + h:+.3f}]", sig)
    out.print(pairs)


if __name__ == "__main__":
    main()
