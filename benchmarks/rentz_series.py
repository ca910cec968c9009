"""Rentz duplicate series, read from the referee's records: points per board for each pair of
bots with 95% intervals, per sub-game, and the search bot's reply times.

Play the series over the referee (each bot its own process, every deal in each rotation of
the seats; a deal is one sub-game, the eight in turn), then read it::

    levata tournament --game rentz --bots pimc:time_ms=200,heuristic,random -n 3 \\
        --unit deal --deals 72 --seating rotate --parallel 1 --seed 1 --db rentz.db
    python benchmarks/rentz_series.py rentz.db --budget-ms 200

For each board (a deal; with ``--unit game`` a whole match) it takes each bot's mean points
over the seats it held in that board's matches; a pair's difference is paired by board, with
a 95% interval (normal approximation over boards), over all boards and per sub-game (whole
matches: each bot's points in the deals of each sub-game, from the ``score`` events). Reply
times are the referee's (request sent to reply received, the transport included), every
reply counted: the records do not say which had a single legal action.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import statistics
import sys
from collections import defaultdict
from itertools import combinations

SUBGAMES = ("king", "queens", "diamonds", "tricks", "totals", "ten", "whist", "rentz")
Z95 = 1.96


def deal_means(db: str) -> tuple[dict[int, str], dict[int, dict[str, float]]]:
    """Per board (a deal, or a whole match with ``--unit game``): its sub-game, and each
    bot's mean points over the seats it held."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "select grp, seats, options, result from tournament_matches where status = 'finished'"
    )
    sums: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    games: dict[int, str] = {}
    for grp, seats_text, options_text, result_text in rows:
        seats, options, result = (json.loads(t) for t in (seats_text, options_text, result_text))
        k = int(options.get("deal", 0))
        games[grp] = SUBGAMES[k - 1] if k else "match"
        for seat, bot in enumerate(seats):
            cell = sums[grp][bot]
            cell[0] += result["scores"][seat]
            cell[1] += 1
    means = {g: {b: s / n for b, (s, n) in bots.items()} for g, bots in sums.items()}
    return games, means


def match_sub_games(db: str) -> dict[str, dict[int, dict[str, float]]]:
    """Whole matches: per sub-game, per board, each bot's mean points over the seats it held
    in the deals of that sub-game (read from the matches' ``score`` events): where a bot's
    picks and play gain."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "select m.grp, m.match_id, m.seats, e.data from tournament_matches m join events e"
        " on e.match_id = m.match_id where m.status = 'finished' and e.kind = 'score'"
    )
    sums: dict[str, dict[int, dict[str, float]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(float))
    )
    matches: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for grp, match_id, seats_text, data_text in rows:
        seats, data = json.loads(seats_text), json.loads(data_text)
        for seat, bot in enumerate(seats):
            sums[data["game"]][grp][bot] += data["points"][seat]
            matches[grp][bot].add(match_id)
    # A bot's mean over the matches of the board (the seats it held in them).
    return {
        sub: {g: {b: s / len(matches[g][b]) for b, s in bots.items()} for g, bots in groups.items()}
        for sub, groups in sums.items()
    }


def interval(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval."""
    m = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return m, half


def reply_times(db: str) -> dict[str, list[float]]:
    """Reply latencies (ms) per bot, from the referee's records."""
    con = sqlite3.connect(db)
    bots = {mid: json.loads(s) for mid, s in con.execute("select id, seat_bots from matches")}
    out: dict[str, list[float]] = defaultdict(list)
    for mid, seat, ms in con.execute(
        "select match_id, seat, latency_ms from replies where latency_ms is not null"
    ):
        if mid in bots and seat is not None:
            out[bots[mid][seat]].append(ms)
    return out


def entries(db: str) -> list[str]:
    """The tournament's entries in the order its command named them (the search first)."""
    con = sqlite3.connect(db)
    out: list[str] = []
    for (spec,) in con.execute("select spec from tournaments"):
        out.extend(e["name"] for e in json.loads(spec)["entries"] if e["name"] not in out)
    return out


def report(db: str, budget_ms: float | None) -> None:
    games, means = deal_means(db)
    seen = {b for m in means.values() for b in m}
    bots = [b for b in entries(db) if b in seen] + sorted(seen - set(entries(db)))
    print(f"{db}: {len(means)} boards")
    for a, b in combinations(bots, 2):
        paired = {g: m[a] - m[b] for g, m in means.items() if a in m and b in m}
        if not paired:
            continue
        m, h = interval(list(paired.values()))
        unit = "match" if "match" in games.values() else "deal"
        print(f"\n{a} - {b}: {m:+.1f} ± {h:.1f} points a {unit} ({len(paired)} boards)")
        for sub in SUBGAMES:
            xs = [d for g, d in paired.items() if games[g] == sub]
            if xs:
                m, h = interval(xs)
                print(f"  {sub:9} {m:+8.1f} ± {h:6.1f}  ({len(xs)} deals)")
        if unit == "match":
            per_sub = match_sub_games(db)
            for sub in SUBGAMES:
                groups = per_sub.get(sub, {})
                xs = [bots[a] - bots[b] for bots in groups.values() if a in bots and b in bots]
                if xs:
                    m, h = interval(xs)
                    print(f"  {sub:9} {m:+8.1f} ± {h:6.1f}  a match ({len(xs)} boards)")
    print(
        "\nmean points a board:",
        ", ".join(
            f"{b} {statistics.fmean(m[b] for m in means.values() if b in m):+.1f}" for b in bots
        ),
    )
    times = reply_times(db)
    for bot, ts in sorted(times.items()):
        ts = sorted(ts)
        p50, p90 = ts[len(ts) // 2], ts[min(len(ts) - 1, int(0.9 * len(ts)))]
        line = f"reply ms {bot}: n={len(ts)} median {p50:.0f} p90 {p90:.0f} max {ts[-1]:.0f}"
        print(line)
    if budget_ms:
        print(f"(budget {budget_ms:.0f} ms; the bar: p90 <= {1.1 * budget_ms:.0f} ms)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", nargs="+", help="referee records (levata tournament --db)")
    parser.add_argument("--budget-ms", type=float, default=None, help="the search's budget")
    args = parser.parse_args(argv)
    for db in args.db:
        try:
            report(db, args.budget_ms)
        except sqlite3.Error as e:
            print(f"error: {db}: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
