"""Sixty-six duplicate series, read from the referee's records: game points per deal and the
share of matches won, with 95% intervals.

Play the series over the referee (each bot its own process, every deal in both seatings),
then read it::

    levata tournament --game sixty-six --bots search:time_ms=100,heuristic --deals 300 \\
        --unit deal --seed 1 --db series.db
    levata tournament --game sixty-six --bots search:time_ms=100,heuristic --deals 160 \\
        --unit game --seed 3 --db games.db
    python benchmarks/sixty_six_series.py series.db games.db --bot search:time_ms=100

For each tournament in each file it prints, for ``--bot`` against the other entry: the deal
pairs (a deal or a whole match in both seatings), the bot's game points per deal minus the
other's (a pair's two matches summed, divided by their deals), the share of matches (or
deals) it won, each with a 95% interval from 2,000 bootstrap resamples of whole pairs;
a forfeited match counts as the standings count it (-3 game points a deal, lost). Then each
entry's reply times as the referee measured them (from sending the request to reading the
reply, the wire and any wait behind the entry's other matches included): median and 90th
percentile.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
from collections import defaultdict

RESAMPLES = 2000
FORFEIT = 3.0  # game points per deal a forfeit costs, as in the standings


def pairs(db: str, bot: str) -> dict[str, list[tuple[float, float, float]]]:
    """Per tournament, per deal group: (the bot's game points minus the other's, deals,
    matches won by the bot minus half the ties) summed over the group's matches."""
    out: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    con = sqlite3.connect(db)
    rows = con.execute(
        "select tournament_id, grp, seats, result from tournament_matches where status = 'finished'"
    )
    for tid, grp, seats_text, result_text in rows:
        seats = json.loads(seats_text)
        if bot not in seats:
            continue
        res = json.loads(result_text)
        me = seats.index(bot)
        scores = res["scores"]
        deals = max(1, res.get("deals", 1))
        diff = scores[me] - scores[1 - me]
        if res.get("forfeited"):  # as the standings count it: -3 a deal, the match lost
            diff = -FORFEIT * deals if me in res["forfeited"] else FORFEIT * deals
        won = 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
        row = out[tid][grp]
        row[0] += diff
        row[1] += deals
        row[2] += won
    return {t: [tuple(v) for v in groups.values()] for t, groups in out.items()}  # type: ignore[misc]


def interval(values: list[float], rng: random.Random) -> tuple[float, float]:
    means = []
    n = len(values)
    for _ in range(RESAMPLES):
        means.append(sum(values[rng.randrange(n)] for _ in range(n)) / n)
    means.sort()
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def report(db: str, bot: str) -> None:
    rng = random.Random(1)
    for tid, groups in pairs(db, bot).items():
        per_deal = [d / n for d, n, _ in groups]  # a pair's difference per deal played
        share = [w / 2 for _, _, w in groups]
        mean_pd, mean_share = sum(per_deal) / len(per_deal), sum(share) / len(share)
        lo, hi = interval(per_deal, rng)
        slo, shi = interval(share, rng)
        deals = sum(n for _, n, _ in groups)
        print(
            f"{db} {tid}: {len(groups)} pairs ({deals} deals): {bot} minus the other"
            f" {mean_pd:+.3f} game points per deal [{lo:+.3f}, {hi:+.3f}];"
            f" matches won {mean_share:.1%} [{slo:.1%}, {shi:.1%}]"
        )


def reply_times(db: str) -> dict[str, list[float]]:
    """Per entry (the tournament's name of it), the latency of every reply applied."""
    con = sqlite3.connect(db)
    seat_bots = {m: json.loads(b) for m, b in con.execute("select id, seat_bots from matches")}
    out: dict[str, list[float]] = defaultdict(list)
    rows = con.execute(
        "select match_id, seat, latency_ms from replies"
        " where outcome = 'applied' and latency_ms is not null"
    )
    for match_id, seat, ms in rows:
        out[seat_bots[match_id][seat]].append(ms)
    return out


def report_times(db: str) -> None:
    for entry, times in sorted(reply_times(db).items()):
        times.sort()
        p50, p90 = times[len(times) // 2], times[int(0.9 * (len(times) - 1))]
        print(
            f"{db} {entry}: {len(times)} replies, median {p50:.0f} ms, 90th percentile {p90:.0f} ms"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dbs", nargs="+", help="tournament database files")
    p.add_argument("--bot", required=True, help="the entry measured, as the tournament names it")
    args = p.parse_args(argv)
    for db in args.dbs:
        report(db, args.bot)
        report_times(db)
    return 0


if __name__ == "__main__":
    sys.exit(main())
