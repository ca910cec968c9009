"""How each entry of a Trombon series played and called, read from the referee's records:
where a search and the heuristic differ, measured.

Per entry, over its plays: the share told true (every card of the rank, the count true),
lies on the rank and lies on the count, and how often each kind was called and cost it the
pile; over the windows it could call: its calls per window (void calls too) and the share it
won (the player took the pile). Play a series (``levata tournament --game trombon ...
--db trombon.db``, see docs/games/trombon.md), then::

    python benchmarks/trombon_decisions.py trombon.db
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections import Counter, defaultdict


def tally(con: sqlite3.Connection) -> dict[str, Counter[str]]:
    """Per entry, the counts of each kind of play and call and their outcomes."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    rows = con.execute(
        "select m.id, m.seat_bots from matches m where m.status = 'finished' and m.game = ?",
        ("trombon",),
    )
    for match_id, bots_text in rows.fetchall():
        entries = json.loads(bots_text)
        laid: dict[int, list[str]] = {}
        last_kind = ""
        finished: set[int] = set()
        events = con.execute(
            "select kind, seat, cards, data from events where match_id = ? order by seq",
            (match_id,),
        )
        for kind, seat, cards_text, data_text in events:
            data = json.loads(data_text)
            if kind == "laid":
                laid[seat] = json.loads(cards_text)
            elif kind == "play":
                cards = laid.pop(seat, [])
                rank = str(data["rank"])
                on_rank = all(c[:-1] == rank for c in cards)
                last_kind = (
                    "truth"
                    if on_rank and len(cards) == data["count"]
                    else ("rank_lie" if not on_rank else "count_lie")
                )
                out[entries[seat]][f"play_{last_kind}"] += 1
                for s in range(len(entries)):
                    if s != seat and s not in finished:
                        out[entries[s]]["windows"] += 1
            elif kind == "call":
                accused, taker = data["accused"], data["taker"]
                out[entries[accused]][f"called_{last_kind}"] += 1
                if taker == accused:
                    out[entries[accused]][f"caught_{last_kind}"] += 1
                out[entries[seat]]["calls"] += 1
                out[entries[seat]]["resolved"] += 1
                out[entries[seat]]["calls_won"] += taker != seat
                for b in data.get("beaten", ()):
                    out[entries[b]]["calls"] += 1
            elif kind == "finish":
                finished.add(seat)
    return out


def report(db: str) -> None:
    con = sqlite3.connect(db)
    print(db)
    for entry, t in sorted(tally(con).items()):
        plays = sum(t[f"play_{k}"] for k in ("truth", "rank_lie", "count_lie")) or 1
        parts = []
        for k in ("truth", "rank_lie", "count_lie"):
            n = t[f"play_{k}"]
            parts.append(
                f"{k} {100 * n / plays:.0f}% (called {100 * t[f'called_{k}'] / max(1, n):.0f}%,"
                f" caught {100 * t[f'caught_{k}'] / max(1, n):.0f}%)"
            )
        print(f"  {entry}: {plays} plays: " + ", ".join(parts))
        print(
            f"  {' ' * len(entry)}  {t['calls'] / max(1, t['windows']):.3f} calls per window,"
            f" {100 * t['calls_won'] / max(1, t['resolved']):.0f}% of its resolved calls won"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("db", nargs="+", help="tournament databases (levata tournament --db)")
    for db in p.parse_args().db:
        report(db)


if __name__ == "__main__":
    main()
