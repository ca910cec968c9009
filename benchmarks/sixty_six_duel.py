"""Sixty-six's search against another entry, in one process: the quick duplicate duel the
search modes were tuned with before a series over the referee.

    python benchmarks/sixty_six_duel.py mode=presumed-exact:time_ms=100 mode=plain:time_ms=100 \\
        --first 1000 --deals 100

Each deal (``options={"deal": 1, "first": 0}``, seeded ``first`` .. ``first + deals - 1``) is
played twice, the two bots swapping seats; an entry is ``heuristic`` or the search bot's
options (``key=value`` joined by ``:``). It prints the first entry's game points per deal
minus the other's (a pair's two deals averaged) with a 95% normal interval, and its share of
deals won (a tie half).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from levata.bots import make_bot, play_match
from levata.bots.base import Bot
from levata.bots.strategy.sixty_six import SearchBot
from levata.engine import game

GAME = "sixty-six"


def entry(text: str, seed: int) -> Bot:
    """``heuristic``, or a search bot from ``key=value:key=value`` options."""
    if text == "heuristic":
        return make_bot("heuristic", GAME, seed)
    options: dict[str, str | int] = {}
    for part in filter(None, text.split(":")):
        key, _, value = part.partition("=")
        options[key] = value if key == "mode" else int(value)
    return SearchBot(seed=seed, **options)  # type: ignore[arg-type]


def pair(a: str, b: str, seed: int, same: bool = False) -> tuple[float, float]:
    """The deal of ``seed`` with ``a`` at each seat in turn: ``a``'s mean game points minus
    ``b``'s, and ``a``'s share of the two deals won. ``same``: both bots draw their worlds
    from the same seed."""
    spec = game(GAME)
    diff = won = 0.0
    for a_seat in (0, 1):
        state = spec.new_match(players=2, options={"deal": 1, "first": 0}, seed=seed)
        bots = [entry(a, 2 * seed), entry(b, 2 * seed + (not same))]
        if a_seat:
            bots.reverse()
        scores = play_match(state, bots).scores
        d = scores[a_seat] - scores[1 - a_seat]
        diff += d / 2
        won += (1.0 if d > 0 else 0.5 if d == 0 else 0.0) / 2
    return diff, won


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a", help="the entry measured")
    p.add_argument("b", help="the entry it plays against")
    p.add_argument("--first", type=int, default=1000, help="the first deal's seed")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument(
        "--same-seed",
        action="store_true",
        help="both entries sample worlds from the same seed: with a fixed number of worlds"
        " (time_ms=0) two modes then play alike wherever their modes agree",
    )
    args = p.parse_args(argv)
    start = time.perf_counter()
    seeds = range(args.first, args.first + args.deals)
    pairs = [pair(args.a, args.b, s, args.same_seed) for s in seeds]
    diffs, wins = [d for d, _ in pairs], [w for _, w in pairs]
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
    print(
        f"{args.a} vs {args.b}, seeds {args.first}..{args.first + args.deals - 1}:"
        f" {statistics.mean(diffs):+.3f} ± {half:.3f} game points per deal,"
        f" deals won {statistics.mean(wins):.1%} ({time.perf_counter() - start:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
