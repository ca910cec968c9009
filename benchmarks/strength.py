"""Playing strength on duplicate deals: search - heuristic and heuristic - random, per game.

    python benchmarks/strength.py --game macao [--deals 40] [--time-ms 100] [--players 2]
        [--search ismcts] [--search-option rollout=random] [-o mode=realtime] [--jobs 2]
        [--teams [0+2,1+3]] [--pair ENTRY ENTRY]

Each pair of bots (the search bot against the heuristic, the heuristic against random) plays
every deal once in every seating of the two bots at the table (both bots present: 2 seatings
for 2 players, 6 for 3, 14 for 4), so every hand is held by both from every seat and the luck
of the cards cancels; with ``--teams`` each bot holds whole teams of the game's partnerships
(Tabinet's 0+2 and 1+3 at four), the two-table method; ``--teams 0+2,1+3`` names the two
sides' seats in a game of no partnerships (Whist at four: x y x y, then y x y x). A bot's score
on a deal is its mean over the seats it held; the difference is paired by deal, with a 95%
interval (normal approximation over deals, and 2,000 bootstrap resamples of the deals).
``--pair A B`` plays two bot entries of their own options and clocks instead
(``pimc:infer=1:worlds=20:time_ms=0`` against ``pimc:infer=0:worlds=20:time_ms=0``: equal
worlds, no clock), and prints each one's cost: worlds searched and CPU ms per decision.
Where the game's deal records carry bids and tricks (Whist), each side's bids made exactly,
over and under. A game with a duplicate unit (Whist's ``deal_size``) plays one deal per board,
every value of the unit in turn (Whist: 1 to 8 cards; Rentz: each sub-game; Filcău: its one
deal). It prints the search bot's cost too: iterations (simulations) or worlds per second,
median and p90 time per decision, measured in the same run.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from duplicate_series import interval as bootstrap  # the series' resampling of whole deals

from levata.bots import make_bot, play_match
from levata.bots.base import bot_path, parse_bot
from levata.engine import BadConfig, all_games, game
from levata.engine.seeds import derive
from levata.server.tournament.schedule import parse_teams

Z95 = 1.96
BIDS = ("exact", "over", "under")


@dataclass
class Board:
    """One deal's outcome for one pair: each side's mean score, the first side's search
    costs, and per side its decisions' CPU seconds and worlds and its bids' outcomes."""

    scores: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    iterations: int = 0
    rollouts: int = 0
    seconds: float = 0.0
    cpu: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    worlds: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))
    bids: tuple[list[int], list[int]] = field(default_factory=lambda: ([0] * 3, [0] * 3))


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


def make(
    kind: str, name: str, seed: int, time_ms: float, bot_options: dict[str, Any] | None
) -> Any:
    """One side's bot. ``bot_options`` ``None``: ``kind`` is a whole bot entry, made as the
    referee makes it (``pimc:worlds=20:time_ms=0``: its own options and clock)."""
    if bot_options is None:
        entry_kind, options = parse_bot(kind, name)
        return make_bot(entry_kind, name, seed=seed, **options)
    if kind in ("random", "heuristic"):
        return make_bot(kind, name, seed=seed)
    module, _, cls = bot_path(kind, name).partition(":")
    return getattr(importlib.import_module(module), cls)(name, seed, time_ms=time_ms, **bot_options)


class Timed:
    """A bot whose every decision is timed, on the clock and in CPU time, with the worlds it
    searched where it tells them (``last_worlds``: pimc)."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.name = bot, bot.name
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.worlds: list[int] = []

    def act(self, view: Any, legal: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        action = self.bot.act(view, legal)
        if len(legal) > 1:
            self.times.append(time.perf_counter() - start)
            self.cpu.append(time.process_time() - cpu)
            worlds = getattr(self.bot, "last_worlds", None)
            if isinstance(worlds, int):
                self.worlds.append(worlds)
        return action


def count_bids(deals: Sequence[Any], seating: Sequence[int], into: tuple[list[int], ...]) -> None:
    """Add each side's bids made exactly, over and under (``BIDS``) in the deal records that
    carry bids and tricks (Whist's).

    >>> into = ([0, 0, 0], [0, 0, 0])
    >>> count_bids([{"bids": [2, 1, 0, 3], "tricks": [2, 3, 0, 2]}], (0, 1, 0, 1), into)
    >>> into
    ([2, 0, 0], [0, 1, 1])
    """
    for record in deals:
        if not isinstance(record, dict) or "bids" not in record or "tricks" not in record:
            continue
        for s, who in enumerate(seating):
            bid, took = record["bids"][s], record["tricks"][s]
            if bid is not None:
                into[who][0 if took == bid else 1 if took > bid else 2] += 1


def play_board(job: tuple[Any, ...]) -> Board:
    """Every seating of one deal for one pair of bots."""
    name, players, deal, seed, pair, time_ms, extra, bot_options, teams = job
    spec = game(name)
    opts = options_for(name, deal, extra)
    totals = [[0.0, 0], [0.0, 0]]
    board = Board()
    for k, seating in enumerate(seatings(players, teams)):
        state = spec.new_match(players=players, options=opts, seed=derive(seed, deal))
        bots = [
            Timed(make(pair[who], name, derive(seed, deal, k, s), time_ms, bot_options))
            for s, who in enumerate(seating)
        ]
        result = play_match(state, bots)
        for s, who in enumerate(seating):
            totals[who][0] += result.scores[s]
            totals[who][1] += 1
        count_bids(result.deals, seating, board.bids)
        for b, who in zip(bots, seating, strict=True):
            board.cpu[who].extend(b.cpu)
            board.worlds[who].extend(b.worlds)
            if who == 0:
                board.times.extend(b.times)
            stats = getattr(b.bot, "stats", None)
            if stats is not None and who == 0:
                board.iterations += stats.iterations
                board.rollouts += getattr(stats, "rollouts", stats.iterations)
                board.seconds += stats.seconds
    board.scores = [t / n for t, n in totals]
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


def print_costs(pair: tuple[str, str], boards: list[Board]) -> None:
    """Each side's decisions: worlds searched and CPU ms per decision, and its bids."""
    for who, entry in enumerate(pair):
        cpu = [c for b in boards for c in b.cpu[who]]
        worlds = [w for b in boards for w in b.worlds[who]]
        line = f"  {entry}: {len(cpu)} decisions"
        if worlds:
            line += f", {statistics.fmean(worlds):.1f} worlds"
        if cpu:
            ms = [1000 * c for c in cpu]
            line += (
                f", CPU {statistics.fmean(ms):.1f} ms (median {statistics.median(ms):.1f},"
                f" p90 {quantile(ms, 0.9):.1f}) a decision"
            )
            if worlds and sum(worlds):
                line += f", {sum(ms) / sum(worlds):.2f} ms a world"
        bids = [sum(b.bids[who][k] for b in boards) for k in range(3)]
        if sum(bids):
            shares = " / ".join(f"{100 * x / sum(bids):.0f}" for x in bids)
            line += f"; bids {'/'.join(BIDS)} {shares}%"
        print(line)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", required=True, choices=[g.name for g in all_games()])
    p.add_argument("--deals", type=int, default=40, help="duplicate deals per pair (default 40)")
    p.add_argument("--time-ms", type=float, default=100.0, help="search time per decision")
    p.add_argument("--players", type=int, default=None, help="default: the fewest the game has")
    p.add_argument("--search", default="ismcts", help="the search bot kind (ismcts, pimc)")
    p.add_argument("--search-option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--skip-random", action="store_true", help="only search - heuristic")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument(
        "--teams",
        nargs="?",
        const="game",
        default=None,
        metavar="SEATS",
        help="each bot holds whole partnerships: the game's, or these seats (0+2,1+3)",
    )
    p.add_argument(
        "--pair",
        nargs=2,
        metavar="ENTRY",
        help="two bot entries of their own options and clock (pimc:worlds=20:time_ms=0)",
    )
    return p


def table_teams(name: str, players: int, text: str | None) -> tuple[tuple[int, ...], ...] | None:
    """The sides' seats of ``--teams``: the game's partnerships (``game``) or the seats named;
    :class:`ValueError` where there are none.

    >>> table_teams("whist", 4, "0+2,1+3"), table_teams("whist", 4, None)
    (((0, 2), (1, 3)), None)
    """
    if text is None:
        return None
    if text != "game":
        return parse_teams(text, players)
    teams = game(name).teams(players)
    if not teams:
        raise ValueError(f"{name} has no partnerships at {players} players: name the seats")
    return teams


def report(
    args: argparse.Namespace, results: dict[tuple[str, str], list[Board]], header: str
) -> None:
    print(header)
    print(f"{'pair':24} {'mean diff/deal':>15} {'95% interval':>22} {'bootstrap':>18}  significant")
    rng = random.Random(1)
    for pair, boards in results.items():
        diffs = [b.scores[0] - b.scores[1] for b in boards]
        m, h = interval(diffs)
        lo, hi = bootstrap(diffs, rng)
        sig = "yes" if abs(m) > h else "no (covers 0)"
        label = f"{pair[0]} - {pair[1]}"
        print(
            f"{label:24} {m:+15.3f} {f'[{m - h:+.3f}, {m + h:+.3f}]':>22}"
            f" {f'[{lo:+.3f}, {hi:+.3f}]':>18}  {sig}"
        )
        if args.pair:
            print_costs(pair, boards)
    if args.pair:
        return
    boards = next(iter(results.values()))
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


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    spec = game(args.game)
    players = args.players or spec.players[0]
    if players not in spec.players:
        return _error(f"{spec.name} is not played by {players}")
    if args.time_ms <= 0 or args.time_ms > 200:
        return _error("--time-ms must be in (0, 200]")
    extra = parse_pairs(args.option)
    bot_options: dict[str, Any] | None = parse_pairs(args.search_option)
    pairs = [(args.search, "heuristic")] + ([] if args.skip_random else [("heuristic", "random")])
    if args.pair:
        pairs, bot_options = [tuple(args.pair)], None  # whole entries
    try:
        teams = table_teams(spec.name, players, args.teams)
        spec.resolve_options(extra)
        for kind in pairs[0]:
            make(kind, spec.name, 0, args.time_ms, bot_options)
    except (BadConfig, ValueError, TypeError) as exc:
        return _error(str(exc))
    start = time.perf_counter()
    results: dict[tuple[str, str], list[Board]] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for pair in pairs:
            jobs = [
                (spec.name, players, d, args.seed, pair, args.time_ms, extra, bot_options, teams)
                for d in range(args.deals)
            ]
            results[pair] = list(pool.map(play_board, jobs))
    elapsed = time.perf_counter() - start
    opts = " ".join(f"{k}={v}" for k, v in extra.items())
    clock = "each entry its own clock" if args.pair else f"{args.time_ms:g} ms per search decision"
    report(
        args,
        results,
        f"{spec.name}, {players} players{', ' + opts if opts else ''}: {args.deals} duplicate "
        f"deals x {len(seatings(players, teams))} seatings per pair (seed {args.seed}), "
        f"{clock}, {elapsed:.0f} s",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
