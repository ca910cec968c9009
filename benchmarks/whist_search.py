"""Whist search on duplicate deals: the pimc bot against the heuristic field, new and old.

    python benchmarks/whist_search.py [--deals 40] [--players 4] [--size 7] [--worlds 100]
                                      [--time-ms 0] [--old REV] [--seed 1]
                                      [--save FILE] [--against FILE]

Each deal is played with one searcher at one seat and the heuristic bot at every other seat,
for every seat in turn, once per contender: ``new`` (``levata.bots.search.pimc``), ``old``
(``bots/pimc.py`` as it is at git revision ``--old``, loaded at run time from ``git show``:
it is not part of the package) and ``heuristic`` itself (the baseline: the same deal with
four heuristic bots). A contender's score on a deal is its seat's score averaged over the
seats; differences are paired by deal (duplicate), with 95% intervals (normal approximation
over deals). Beside the score: how often the searcher's bid was exact, over, under.

A per-trick table of the new bot's decision times (median, p90) closes the run.

``--old`` loads only the bot's file: it runs on today's engine and today's game hooks. To
set the new code against an older tree as a whole (hooks included), run this script with
that tree's package first on ``PYTHONPATH`` and ``--no-old --save FILE``, then here with
``--against FILE``: the same deals and seed, paired by deal.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
import types
from collections import defaultdict
from pathlib import Path
from typing import Any

from levata.bots import make_bot, play_match
from levata.bots.search.pimc import PimcBot
from levata.engine import game
from levata.engine.seeds import derive

ROOT = Path(__file__).resolve().parents[1]
Z95 = 1.96


OLD_PATHS = ("bots/search/pimc.py", "bots/pimc.py")  # where the bot lives, and lived


def load_old(rev: str) -> Any:
    """The old PIMC class, from ``git show REV:bots/search/pimc.py`` (or, before the move,
    ``bots/pimc.py``), as a module of its own. It runs on today's engine: the game's hooks
    it calls are today's."""
    for path in OLD_PATHS:
        try:
            source = subprocess.run(
                ["git", "show", f"{rev}:{path}"],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        module = types.ModuleType("old_pimc")
        exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
        return module.PimcBot
    print(f"error: no pimc bot at {rev} ({' or '.join(OLD_PATHS)})", file=sys.stderr)
    raise SystemExit(1)


class Timed:
    """Wraps a bot and keeps its decision times by trick number (bids are trick 0)."""

    def __init__(self, bot: Any, times: dict[int, list[float]]) -> None:
        self.bot, self.times, self.name = bot, times, bot.name

    def act(self, view, legal):
        trick = 0 if legal[0].kind == "bid" else 1 + len(view.zones["played"]) // view.players
        start = time.perf_counter()
        action = self.bot.act(view, legal)
        self.times[trick].append(time.perf_counter() - start)
        return action


def play_deal(args, deal: int, contender: str, old_cls: Any, times) -> list[dict[str, float]]:
    """The contender at each seat in turn among heuristic bots: per seat, score and bid."""
    spec = game("whist")
    out = []
    seats = range(args.players) if contender != "heuristic" else [None]
    for seat in seats:
        state = spec.new_match(
            players=args.players, options={"deal_size": args.size}, seed=derive(args.seed, deal)
        )
        bots: list[Any] = [
            make_bot("heuristic", "whist", derive(args.seed, deal, s)) for s in range(args.players)
        ]
        if contender == "new":
            pimc = PimcBot(
                seed=derive(args.seed, deal, 99),
                worlds=args.worlds,
                time_ms=args.time_ms,
                **dict(args.new_option),
            )
            bots[seat] = Timed(pimc, times)
        elif contender == "old":
            bots[seat] = old_cls(
                seed=derive(args.seed, deal, 99), worlds=args.worlds, time_ms=args.time_ms
            )
        result = play_match(state, bots)
        record = result.deals[0]
        for s in range(args.players) if seat is None else [seat]:
            out.append(
                {
                    "seat": s,
                    "score": result.scores[s],
                    "bid": record["bids"][s],
                    "tricks": record["tricks"][s],
                }
            )
    return out


def number_option(text: str) -> tuple[str, float | str]:
    """``NAME=VALUE`` as a pair: an int where the value is a whole number, a float where it
    is another number, else the word (``bidders=unknown``)."""
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        number = float(value)
    except ValueError:
        return name, value
    return name, int(number) if number.is_integer() and "." not in value else number


def interval(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return m, half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--size", type=int, default=7, help="cards per hand")
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--time-ms", type=int, default=0, help="the new bot budget (0: none)")
    parser.add_argument("--old", default="main", help="git revision of the old bots/pimc.py")
    parser.add_argument("--no-old", action="store_true", help="skip the old bot")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", metavar="FILE", help="write the per-deal scores as JSON")
    parser.add_argument(
        "--against", metavar="FILE", help="a --save of an earlier run: its new bot as 'saved'"
    )
    parser.add_argument(
        "--new-option",
        metavar="NAME=VALUE",
        type=number_option,
        action="append",
        default=[],
        help="an option of the new bot (for example blend=0.1, bidders=unknown); repeatable",
    )
    args = parser.parse_args()
    old_cls = None if args.no_old else load_old(args.old)
    contenders = ["heuristic", "new"] + ([] if args.no_old else ["old"])
    times: dict[int, list[float]] = defaultdict(list)
    per_deal: dict[str, list[float]] = {c: [] for c in contenders}
    bids: dict[str, list[int]] = {c: [0, 0, 0] for c in contenders}  # exact, over, under
    start = time.perf_counter()
    for d in range(args.deals):
        for c in contenders:
            rows = play_deal(args, d, c, old_cls, times)
            per_deal[c].append(statistics.fmean(r["score"] for r in rows))
            for r in rows:
                k = 0 if r["tricks"] == r["bid"] else 1 if r["tricks"] > r["bid"] else 2
                bids[c][k] += 1
    elapsed = time.perf_counter() - start
    if args.against:
        with open(args.against) as f:
            saved = json.load(f)
        if saved["deals"] != args.deals or saved["seed"] != args.seed:
            raise SystemExit(f"{args.against}: another run (deals, seed); not paired")
        contenders.append("saved")
        per_deal["saved"], bids["saved"] = saved["per_deal"]["new"], saved["bids"]["new"]
    print(
        f"Whist, {args.players} players, {args.size} cards, {args.deals} duplicate deals, "
        f"searcher at every seat among heuristic bots; worlds={args.worlds} "
        f"time_ms={args.time_ms} {dict(args.new_option) or ''} ({elapsed:.0f} s)"
    )
    print(f"{'bot':<10} {'score/deal':>11} {'95% +-':>7} {'exact':>6} {'over':>6} {'under':>6}")
    for c in contenders:
        m, h = interval(per_deal[c])
        total = sum(bids[c])
        e, o, u = (100 * x / total for x in bids[c])
        print(f"{c:<10} {m:11.2f} {h:7.2f} {e:5.0f}% {o:5.0f}% {u:5.0f}%")
    pairs = [("new", "heuristic")] + ([] if args.no_old else [("new", "old"), ("old", "heuristic")])
    if args.against:
        pairs += [("new", "saved"), ("saved", "heuristic")]
    for a, b in pairs:
        m, h = interval([x - y for x, y in zip(per_deal[a], per_deal[b], strict=True)])
        print(f"{a} - {b}: {m:+.2f} per deal, 95% interval [{m - h:+.2f}, {m + h:+.2f}]")
    if args.save:
        with open(args.save, "w") as f:
            json.dump(
                {"deals": args.deals, "seed": args.seed, "per_deal": per_deal, "bids": bids}, f
            )
    print("new pimc decision time by trick (0 = bid): n, median ms, p90 ms")
    for trick in sorted(times):
        xs = sorted(times[trick])
        p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
        print(
            f"  trick {trick}: {len(xs):4d} {1000 * statistics.median(xs):8.1f} {1000 * p90:8.1f}"
        )


if __name__ == "__main__":
    main()
