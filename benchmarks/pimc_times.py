"""PIMC time per decision on 13-card hands: the plan for expensive early tricks, measured.

    python benchmarks/pimc_times.py [--deals 4] [--worlds 100] [--time-ms 500] [--solve-cards 32]

The game is the example of ``docs/writing-a-trick-game.md`` (four players, 13 cards each,
most tricks wins), registered for the run: a trick game the bot has never seen. Four PIMC
bots play each deal; the table gives, per trick, the decisions, the median and p90 time and
the median number of worlds searched. While more than ``solve_cards`` cards are left a world
values each card by greedy rollouts; below, by an exact double-dummy solve.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections import defaultdict
from pathlib import Path

from levata.bots import play_match
from levata.bots.search.pimc import PimcBot
from levata.engine import registry

ROOT = Path(__file__).resolve().parents[1]


def example_spec():
    text = (ROOT / "docs" / "writing-a-trick-game.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    scope: dict = {}
    exec(compile(code, "writing-a-trick-game.md", "exec"), scope)  # registers most-tricks
    return registry.game("most-tricks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--time-ms", type=int, default=500)
    parser.add_argument("--solve-cards", type=int, default=32)
    args = parser.parse_args()
    spec = example_spec()
    times: dict[int, list[float]] = defaultdict(list)
    worlds: dict[int, list[int]] = defaultdict(list)

    class Timed(PimcBot):
        def act(self, view, legal):
            trick = 1 + len(view.zones["played"]) // view.players
            start = time.perf_counter()
            self.last_worlds = 1  # a forced card searches nothing
            action = super().act(view, legal)
            times[trick].append(time.perf_counter() - start)
            worlds[trick].append(self.last_worlds if len(legal) > 1 else 0)
            return action

    for d in range(args.deals):
        state = spec.new_match(players=4, seed=d)
        bots = [
            Timed(
                spec.name,
                seed=10 * d + s,
                worlds=args.worlds,
                time_ms=args.time_ms,
                solve_cards=args.solve_cards,
            )
            for s in range(4)
        ]
        play_match(state, bots)
    print(
        f"PIMC on 13-card hands, 4 players, {args.deals} deals: worlds<={args.worlds}, "
        f"time_ms={args.time_ms}, solve_cards={args.solve_cards}"
    )
    print("trick  n  median ms  p90 ms  median worlds")
    for trick in sorted(times):
        xs = sorted(times[trick])
        p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
        w = statistics.median(worlds[trick])
        med = 1000 * statistics.median(xs)
        print(f"{trick:5d} {len(xs):3d} {med:9.1f} {1000 * p90:7.1f} {w:8.0f}")


if __name__ == "__main__":
    main()
