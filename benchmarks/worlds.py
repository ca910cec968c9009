"""How long a world rebuilt from a view takes, per game: the first world of a view (the plan
made: the walk over its history, the sampler built) and each further world of the same view
(the plan kept, only the deal).

    python benchmarks/worlds.py [--views 150] [--worlds 20] [--seed 1] [--game NAME ...]

The views are those of random matches from ``--seed``, every seat's at every 3rd step. It
prints, per game, microseconds for a first world and for a further one (the median of
``--rounds`` passes, to damp a shared machine's noise), and with ``--json`` one JSON line, so
that a script can run two checkouts alternately and divide the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from levata.engine import GameSpec, SeatView, all_games, game
from levata.engine.testing import new_random_match, random_steps


def views(spec: GameSpec, count: int, seed: int) -> list[SeatView]:
    """``count`` views of random play of ``spec`` (every seat, every 3rd step)."""
    out: list[SeatView] = []
    match = 0
    while len(out) < count:
        state, _ = new_random_match(spec, match, seed + match)
        rng = random.Random(seed + match)
        for step, _ in enumerate(random_steps(state, rng)):
            if state.is_over() or len(out) >= count:
                break
            if step % 3 == 0:
                out.extend(state.view(s) for s in range(state.players))
        match += 1
    return out[:count]


def timings(spec: GameSpec, seen: list[SeatView], worlds: int) -> tuple[float, float]:
    """Microseconds for the first world of a view and for each further one."""
    first = further = 0.0
    for k, view in enumerate(seen):
        fresh = SeatView(**{f: getattr(view, f) for f in view.__dataclass_fields__})
        t0 = time.perf_counter()
        spec.world_from_view(fresh, random.Random(k))
        t1 = time.perf_counter()
        for j in range(worlds):
            spec.world_from_view(fresh, random.Random(j))
        t2 = time.perf_counter()
        first += t1 - t0
        further += t2 - t1
    return 1e6 * first / len(seen), 1e6 * further / (len(seen) * worlds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--views", type=int, default=150)
    parser.add_argument("--worlds", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", action="append", help="a game's name (default: every game)")
    parser.add_argument(
        "--json", action="store_true", help="one JSON line: game -> [first, further]"
    )
    args = parser.parse_args()
    specs = [game(name) for name in args.game] if args.game else all_games()
    figures: dict[str, list[float]] = {}
    for spec in specs:
        seen = views(spec, args.views, args.seed)
        runs = [timings(spec, seen, args.worlds) for _ in range(args.rounds)]
        figures[spec.name] = [statistics.median(r[i] for r in runs) for i in range(2)]
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{'game':18} {'first µs':>10} {'further µs':>11}")
    for name, (first, further) in figures.items():
        print(f"{name:18} {first:10.0f} {further:11.0f}")


if __name__ == "__main__":
    main()
