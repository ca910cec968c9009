"""Playing strength on duplicate deals: search - heuristic and heuristic - random, per game.

    python benchmarks/strength.py --game macao [--deals 40] [--time-ms 100] [--players 2]
        [--search ismcts] [--search-option rollout=random] [-o mode=realtime] [--jobs 2]
        [--teams]

Each pair of bots (the search bot against the heuristic, the heuristic against random) plays
every deal once in every seating of the two bots at the table (both bots present: 2 seatings
for 2 players, 6 for 3, 14 for 4), so every hand is held by both from every seat and the luck
of the cards cancels; with ``--teams`` each bot holds whole teams of the game's partnerships
(Tabinet's 0+2 and 1+3 at four), the two-table method. A bot's score on a deal is its mean over
the seats it held; the difference is paired by deal, with a 95% interval (normal approximation
over deals). A game with a duplicate unit (Whist's ``deal_size``) plays one deal per board,
every value of the unit in turn (Whist: 1 to 8 cards; Rentz: each sub-game; Filcău: its one
deal). It prints the search bot's cost too: iterations (simulations) or worlds per second,
median and p90 time per decision, measured in the same run.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from levata.bots import make_bot, play_match
from levata.bots.base import bot_path
from levata.engine import BadConfig, all_games, game
from levata.engine.seeds import derive

Z95 = 1.96


@dataclass
class Board:
    """One deal's outcome for one pair: each bot's mean score and the search bot's costs."""

    scores: dict[str, float]
    times: list[float] = field(default_factory=list)
    iterations: int = 0
    rollouts: int = 0
    seconds: float = 0.0


def seatings(
    players: int, teams: tuple[tuple[int, ...], ...] | None = None
) -> list[tuple[int, ...]]:
    """Every way to seat two bots (0 and 1) at the table with both present; with ``teams``
    (two partnerships) each bot holds a whole team, in both seatings.

    >>> seatings(2)
    [(0, 1), (1, 0)]
    >>> len(seatings(3)), len(seatings(4)), seatings(4, ((0, 2), (1, 3)))
    (6, 14, [(0, 1, 0, 1), (1, 0, 1, 0)])
    """
    if teams:
        if len(teams) != 2:
            raise ValueError("--teams needs a game of two partnerships at this table")
        side = {s: k for k, team in enumerate(teams) for s in team}
        return [tuple(side[s] ^ flip for s in range(players)) for flip in (0, 1)]
    return [s for s in itertools.product((0, 1), repeat=players) if 0 < sum(s) < players]


def options_for(name: str, deal: int, extra: dict[str, Any]) -> dict[str, Any]:
    spec = game(name)
    opts = dict(extra)
    if spec.duplicate_unit and spec.duplicate_unit not in opts:
        unit = spec.option(spec.duplicate_unit)
        low = max(1, unit.minimum or 1)  # 0 is the whole game, never a board
        high = max(low, unit.maximum or low)
        opts[spec.duplicate_unit] = low + deal % (high - low + 1)
    return opts


def make(kind: str, name: str, seed: int, time_ms: float, bot_options: dict[str, Any]) -> Any:
    if kind in ("random", "heuristic"):
        return make_bot(kind, name, seed=seed)
    module, _, cls = bot_path(kind, name).partition(":")
    return getattr(importlib.import_module(module), cls)(name, seed, time_ms=time_ms, **bot_options)


class Timed:
    """A bot whose every decision is timed (any bot: the search bots' own stats aside)."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.name = bot, bot.name
        self.times: list[float] = []

    def act(self, view: Any, legal: Any) -> Any:
        start = time.perf_counter()
        action = self.bot.act(view, legal)
        if len(legal) > 1:
            self.times.append(time.perf_counter() - start)
        return action


def play_board(job: tuple[Any, ...]) -> Board:
    """Every seating of one deal for one pair of bots."""
    name, players, deal, seed, pair, time_ms, extra, bot_options, teams = job
    spec = game(name)
    opts = options_for(name, deal, extra)
    totals = {pair[0]: [0.0, 0], pair[1]: [0.0, 0]}
    board = Board({})
    for k, seating in enumerate(seatings(players, spec.teams(players) if teams else None)):
        state = spec.new_match(players=players, options=opts, seed=derive(seed, deal))
        bots = [
            Timed(make(pair[who], name, derive(seed, deal, k, s), time_ms, bot_options))
            for s, who in enumerate(seating)
        ]
        result = play_match(state, bots)
        for s, who in enumerate(seating):
            totals[pair[who]][0] += result.scores[s]
            totals[pair[who]][1] += 1
        for b, who in zip(bots, seating, strict=True):
            if who == 0:
                board.times.extend(b.times)
            stats = getattr(b.bot, "stats", None)
            if stats is not None:
                board.iterations += stats.iterations
                board.rollouts += getattr(stats, "rollouts", stats.iterations)
                board.seconds += stats.seconds
    board.scores = {b: t / n for b, (t, n) in totals.items()}
    return board


def interval(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval."""
    m = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return m, half


def quantile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))] if ys else math.nan


def parse_pairs(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"error: expected NAME=VALUE, got {item!r}")
        for cast in (int, float):
            try:
                out[key] = cast(value)
                break
            except ValueError:
                continue
        else:
            out[key] = {"true": True, "false": False}.get(value.lower(), value)
    return out


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    names = [g.name for g in all_games()]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", required=True, choices=names)
    p.add_argument("--deals", type=int, default=40, help="duplicate deals per pair (default 40)")
    p.add_argument("--time-ms", type=float, default=100.0, help="search time per decision")
    p.add_argument("--players", type=int, default=None, help="default: the fewest the game has")
    p.add_argument("--search", default="ismcts", help="the search bot kind (ismcts, pimc)")
    p.add_argument("--search-option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--skip-random", action="store_true", help="only search - heuristic")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--teams", action="store_true", help="each bot holds whole partnerships")
    args = p.parse_args(argv)
    spec = game(args.game)
    players = args.players or spec.players[0]
    if players not in spec.players:
        return _error(f"{spec.name} is not played by {players}")
    if args.teams and not spec.teams(players):
        return _error(f"{spec.name} has no partnerships at {players} players")
    if args.time_ms <= 0 or args.time_ms > 200:
        return _error("--time-ms must be in (0, 200]")
    extra = parse_pairs(args.option)
    bot_options = parse_pairs(args.search_option)
    try:
        spec.resolve_options(extra)
        make(args.search, spec.name, 0, args.time_ms, bot_options)
    except (BadConfig, ValueError, TypeError) as exc:
        return _error(str(exc))
    pairs = [(args.search, "heuristic")] + ([] if args.skip_random else [("heuristic", "random")])
    start = time.perf_counter()
    results: dict[tuple[str, str], list[Board]] = {}
    teams = args.teams
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for pair in pairs:
            jobs = [
                (spec.name, players, d, args.seed, pair, args.time_ms, extra, bot_options, teams)
                for d in range(args.deals)
            ]
            results[pair] = list(pool.map(play_board, jobs))
    elapsed = time.perf_counter() - start
    opts = " ".join(f"{k}={v}" for k, v in extra.items())
    print(
        f"{spec.name}, {players} players{', ' + opts if opts else ''}: {args.deals} duplicate "
        f"deals x {len(seatings(players, spec.teams(players) if args.teams else None))} "
        f"seatings per pair, {args.time_ms:g} ms per search "
        f"decision, {elapsed:.0f} s"
    )
    print(f"{'pair':24} {'mean diff/deal':>15} {'95% interval':>22}  significant")
    for pair, boards in results.items():
        m, h = interval([b.scores[pair[0]] - b.scores[pair[1]] for b in boards])
        sig = "yes" if abs(m) > h else "no (covers 0)"
        label = f"{pair[0]} - {pair[1]}"
        print(f"{label:24} {m:+15.3f} {f'[{m - h:+.3f}, {m + h:+.3f}]':>22}  {sig}")
    boards = results[pairs[0]]
    times = [t for b in boards for t in b.times]
    iterations = sum(b.iterations for b in boards)
    rollouts = sum(b.rollouts for b in boards)
    seconds = sum(b.seconds for b in boards)
    if times:
        unit = "worlds"
        print(
            f"{args.search}: "
            + (
                f"{iterations / seconds:.0f} {unit}/s, {rollouts / seconds:.0f} simulations/s, "
                if seconds
                else "(the bot reports no search counts), "
            )
            + f"{len(times)} decisions searched, median {1000 * statistics.median(times):.1f} ms, "
            f"p90 {1000 * quantile(times, 0.9):.1f} ms per decision"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
