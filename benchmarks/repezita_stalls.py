"""How long Repezita games last with the search, and who wins: in process, two players in
tick mode, the search against ``heuristic`` with the seats both ways, each path (a search
entry) on the same seeds. A stalled search shows as games far over the contract's length
(wrong-card locks, ``docs/games/repezita.md``)::

    python benchmarks/repezita_stalls.py 9301-9316 \\
        --paths ismcts:fast=0:time_ms=50 ismcts:fast=1:time_ms=50

Seeds are numbers or ranges (``9301-9316``); each seed is one deal, played once with the
search at seat 0 and once at seat 1. A game the search wins counts 1, a tie (the cap with as
many cards each) half. ``--games`` prints a line a game (ticks, wrong cards each seat threw).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from levata.bots import play_match
from levata.bots.base import make_bot, parse_bot
from levata.engine import game as find_game

GAME = "repezita"
LONG = 1000  # ticks: a game this long has stalled (the contract's median is near 64)


@dataclass
class Game:
    """One game: the deal, the search's seat, its share of the win, ticks, how it ended,
    the wrong cards the search and the heuristic threw, seconds."""

    seed: int
    seat: int
    won: float
    ticks: int
    reason: str
    wrong_search: int
    wrong_other: int
    seconds: float


def seeds_of(texts: Sequence[str]) -> list[int]:
    """``["9301-9303", "9310"]`` -> ``[9301, 9302, 9303, 9310]``.

    >>> seeds_of(["9301-9303", "9310"])
    [9301, 9302, 9303, 9310]
    """
    out: list[int] = []
    for text in texts:
        low, _, high = text.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


def play_one(entry: str, seed: int, seat: int, tick_cap: int) -> Game:
    """One deal with the search (``entry``) at ``seat`` and the heuristic at the other."""
    kind, options = parse_bot(entry, GAME)
    bots = [make_bot("heuristic", GAME, seed=seed * 10 + s) for s in range(2)]
    bots[seat] = make_bot(kind, GAME, seed=seed * 10 + seat, **options)
    state = find_game(GAME).new_match(players=2, options={"tick_cap": tick_cap}, seed=seed)
    started = time.perf_counter()
    result = play_match(state, bots)
    spent = time.perf_counter() - started
    wrong = [0, 0]
    for event in state.events():
        if event.kind == "wrong_card":
            wrong[event.seat or 0] += 1
    mine, theirs = result.ranks[seat], result.ranks[1 - seat]
    won = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    ticks = int(state.view(0, history=False).counters.get("tick", 0))
    return Game(seed, seat, won, ticks, result.reason, wrong[seat], wrong[1 - seat], spent)


def row(entry: str, games: Sequence[Game]) -> str:
    """A table row: the path, games, wins, ticks median and 90th percentile, long games,
    games at the cap, wrong cards the search threw a game, seconds."""
    ticks = sorted(g.ticks for g in games)
    p90 = ticks[min(len(ticks) - 1, int(0.9 * len(ticks)))]
    won = sum(g.won for g in games)
    return (
        f"| {entry} | {len(games)} | {won:g} ({100 * won / len(games):.0f}%) "
        f"| {statistics.median(ticks):g}, {p90} | {sum(t > LONG for t in ticks)} "
        f"| {sum(g.reason == 'cap' for g in games)} "
        f"| {sum(g.wrong_search for g in games) / len(games):.1f} "
        f"| {sum(g.seconds for g in games):.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", nargs="+", help="deal seeds: numbers or ranges (9301-9316)")
    parser.add_argument(
        "--paths",
        nargs="+",
        default=["ismcts:fast=0:time_ms=50", "ismcts:fast=1:time_ms=50"],
        help="the search entries to compare (each plays every seed, seats both ways)",
    )
    parser.add_argument("--tick-cap", type=int, default=5000, help="the match's tick_cap")
    parser.add_argument("--games", action="store_true", help="print a line a game")
    args = parser.parse_args()
    seeds = seeds_of(args.seeds)
    rows = []
    for entry in args.paths:
        games = []
        for seed in seeds:
            for seat in (0, 1):
                g = play_one(entry, seed, seat, args.tick_cap)
                games.append(g)
                if args.games:
                    print(
                        f"{entry} seed={g.seed} seat={g.seat} won={g.won:g} ticks={g.ticks} "
                        f"{g.reason} wrong={g.wrong_search}/{g.wrong_other} {g.seconds:.1f}s",
                        flush=True,
                    )
        rows.append(row(entry, games))
    print(
        "| path | games | won by the search | ticks: median, 90th percentile "
        f"| over {LONG:,} ticks | at the cap | wrong cards a game (search) | seconds |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for line in rows:
        print(line)


if __name__ == "__main__":
    main()
