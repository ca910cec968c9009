"""Kemps: a team of one bot against a team of another, in process, both seatings of each deal.

    python benchmarks/kemps_duel.py [--groups 30] [--seed 101]
        [--bot ismcts:infer=1:pool=64:time_ms=100] [--against heuristic]

Each deal group is one whole 4-player game from ``derive(seed, group)`` played twice, the
bot's team in seats 0 and 2, then in seats 1 and 3 (the same cards: what parts the kinds is
their play). It prints the games each team lost, the groups placed alike in both seatings,
the points a game (+1 a game the other team lost, -1 one the bot's lost) with a 95%
interval over groups (normal, from the groups' standard error), each kind's judged calls
right and wrong, and the time of each bot's replies (every ``act``, settled moves
included: median, 90th percentile, max) beside its searched decisions (``stats.times``).
Everything runs in one process, on one core. Behind "Reading collectors" in
docs/games/kemps.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from typing import Any

from levata.bots import make_bot
from levata.bots.base import parse_bot
from levata.engine import game
from levata.engine.games.kemps.rules import team_of
from levata.engine.seeds import derive


def play(
    entries: tuple[str, str],
    seed: int,
    side: int,
    calls: Counter[str],
    replies: dict[str, list[float]],
) -> tuple[int, ...]:
    """One whole game, ``entries[0]``'s team in the seats of team ``side``; the ranks."""
    state = game("kemps").new_match(players=4, seed=seed)
    bots: list[Any] = []
    for seat in range(4):
        kind, options = parse_bot(entries[team_of(seat, 4) != side], "kemps")
        bots.append(make_bot(kind, "kemps", seed=derive(seed, 10 + seat), **options))
    step = 0
    while not state.is_over():
        seats = state.to_act()
        seat = seats[step % len(seats)]
        view, legal = state.view(seat), state.legal_actions(seat)
        began = time.perf_counter()
        action = bots[seat].act(view, legal)
        if len(legal) > 1:
            who = "bot" if team_of(seat, 4) == side else "other"
            replies[who].append(time.perf_counter() - began)
        mark = state.event_count()
        state.apply(seat, action)
        caller = None
        for e in state.events(mark):
            if e.kind == "called":
                caller = e
            elif e.kind == "penalty" and caller is not None and caller.seat is not None:
                own = team_of(caller.seat, 4)
                who = "bot" if own == side else "other"
                verdict = "wrong" if own in e.data["teams"] else "right"
                calls[f"{who} {caller.data['call']} {verdict}"] += 1
        step += 1
    for seat, bot in enumerate(bots):
        if hasattr(bot, "stats"):
            who = "bot" if team_of(seat, 4) == side else "other"
            replies[f"{who} searched"] += bot.stats.times
    return tuple(state.result().ranks)


def spread(times: list[float]) -> str:
    """Median, 90th percentile and max of ``times`` (seconds), in ms."""
    if not times:
        return "none"
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    median = statistics.median(ordered)
    most = 1000 * ordered[-1]
    return f"{len(ordered)}: median {1000 * median:.1f}, p90 {1000 * p90:.1f}, max {most:.1f} ms"


def lost(ranks: tuple[int, ...], team: int) -> bool:
    return min(ranks) != max(ranks) and ranks[team] == max(ranks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=30, help="deal groups (30)")
    parser.add_argument("--seed", type=int, default=101, help="the series' seed (101)")
    parser.add_argument(
        "--bot", default="ismcts:infer=1:pool=64:time_ms=100", help="the bot entry tried"
    )
    parser.add_argument("--against", default="heuristic", help="the other team's bot entry")
    args = parser.parse_args(argv)
    entries = (args.bot, args.against)
    calls: Counter[str] = Counter()
    replies: dict[str, list[float]] = {
        k: [] for k in ("bot", "other", "bot searched", "other searched")
    }
    losses = Counter[str]()
    diffs: list[int] = []
    alike = 0
    for group in range(args.groups):
        seed = derive(args.seed, group)
        placed = [play(entries, seed, side, calls, replies) for side in (0, 1)]
        diff = 0
        for side, ranks in enumerate(placed):
            losses["bot"] += lost(ranks, side)
            losses["other"] += lost(ranks, 1 - side)
            diff += lost(ranks, 1 - side) - lost(ranks, side)
        diffs.append(diff)
        alike += placed[0] == placed[1]
    error = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
    print(f"{args.bot} against {args.against}, seed {args.seed}, {args.groups} groups")
    print(f"games lost: bot {losses['bot']}, other {losses['other']} of {2 * args.groups} each")
    mean = statistics.mean(diffs) / 2  # two games a group
    half = 1.96 * error / 2
    low, high = mean - half, mean + half
    print(f"points a game (other's losses less the bot's): {mean:+.3f} [{low:+.3f}, {high:+.3f}]")
    print(f"groups placed alike in both seatings: {alike}")
    for key in sorted(calls):
        print(f"  {key:40} {calls[key]:8}")
    for key, times in replies.items():
        print(f"replies, {key}: {spread(times)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
