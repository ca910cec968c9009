"""Kemps: how often the bots' calls are right, in whole games played in process.

    python benchmarks/kemps_calls.py [--games 20] [--players 4] [--seed 1] [--bot heuristic]
        [-o NAME=VALUE]
    python benchmarks/kemps_calls.py --db kemps.db

Every seat is played by ``--bot`` (teams of one kind), ``--games`` whole games from ``--seed``
(``-o mode=realtime``: in real time, the clock moved on as ``play_match`` moves it). Each call
judged (tick mode: the first in the tick's priority; the others are void) is counted right or
wrong by the penalty it gave, and each CONTRAKEMPS by what the caller read, as ``policy.call``
reads it: a seat of the team everybody saw take four of a kind (``seen four``), else a token
its team had not shown before in the deal from a seat seen collecting two or more of a rank
(``fresh token``). Beside them, the decoys read as a kemps token: tokens outside the team's
kemps set shown by a seat that, once its swap is in, is seen collecting (what the readers'
CONTRAKEMPS on a fresh token reads).

``--db FILE`` reads a series played over the referee instead (``levata tournament --db
FILE``): each kind's calls submitted and judged right or wrong, and for each deal two kinds
played in both seatings, whether the seats placed alike (then the kinds made no difference).

Run it on two checkouts to compare policies (the other checkout's ``python`` imports its own
``levata``): the games are the same until the policies part.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from levata.bots import make_bot
from levata.bots.heuristic.kemps import seen_by
from levata.bots.play import CLOCK_STEP_MS
from levata.engine import Card, Event, game
from levata.engine.games.kemps.policy import BELIEVED_AFTER
from levata.engine.games.kemps.rules import ALPHABET, team_of
from levata.engine.seeds import derive


def most(cards: Sequence[Card]) -> int:
    """The most cards of one rank among ``cards`` (the policy's ``_most``)."""
    return max(Counter(c.rank for c in cards).values(), default=0)


def reason(view: Any, team: int) -> str:
    """Why a seat calls CONTRAKEMPS on ``team``: one of its seats was seen taking four of a
    kind, else a fresh token from a collector."""
    seen = seen_by(view)
    n = view.players
    fours = [s for s in range(n) if team_of(s, n) == team and most(seen.known[s]) >= 4]
    return "seen four" if fours else "fresh token"


def play(spec: Any, players: int, seed: int, options: dict[str, Any], bot: str) -> Counter[str]:
    """One whole game, the seats asked in rotation as ``play_match`` asks them (real time: the
    clock moved on as it moves it); its counts."""
    state = spec.new_match(players=players, options=options, seed=seed)
    bots = [make_bot(bot, "kemps", seed=derive(seed, s)) for s in range(players)]
    counts: Counter[str] = Counter()
    why: dict[int, str] = {}  # what each seat's standing CONTRAKEMPS read
    step = 0
    while not state.is_over():
        if state.realtime:
            state.advance_clock(step * CLOCK_STEP_MS)
            if state.is_over():
                break
        seats = state.to_act()
        seat = seats[step % len(seats)]
        view = state.view(seat, history=False)
        action = bots[seat].act(view, state.legal_actions(seat))
        if action.kind == "contrakemps":
            why[seat] = reason(view, action.number)
        mark = state.event_count()
        state.apply(seat, action)
        count(state, state.events(mark), why, counts)
        step += 1
    counts["games"] += 1
    counts["deals"] += state.deal_no
    return counts


def count(state: Any, tick: list[Event], why: dict[int, str], counts: Counter[str]) -> None:
    """The tick's judged call and its signals."""
    n = state.players
    caller: Event | None = None
    for e in tick:
        if e.kind == "called":
            caller = e
        elif e.kind == "penalty" and caller is not None:
            seat = caller.seat if caller.seat is not None else -1
            own = team_of(seat, n)
            verdict = "wrong" if own in e.data["teams"] else "right"
            kind = caller.data["call"]
            label = f"{kind} ({why.get(seat, '?')})" if kind == "contrakemps" else kind
            counts[f"{label}: {verdict}"] += 1
        elif e.kind == "signal" and e.seat is not None:
            mask = state.kemps_sets[team_of(e.seat, n)]
            if not mask >> ALPHABET.index(e.data["token"]) & 1:
                counts["decoys"] += 1
                if most(state.known[e.seat]) >= BELIEVED_AFTER:
                    counts["decoys read as a kemps token"] += 1
        elif e.kind == "end" and e.data.get("reason") == "signal_violation":
            counts["games lost to the audit"] += 1


def recorded(db: str) -> Counter[str]:
    """The calls of a series over the referee (``levata tournament --db``), by the kind of the
    caller's team: submitted, and judged right or wrong; and of each deal played by two kinds
    in both seatings, whether the seats placed alike (the kinds made no difference there)."""
    counts: Counter[str] = Counter()
    con = sqlite3.connect(db)
    ranks: dict[tuple[int, frozenset[str]], list[list[int]]] = {}
    query = "select id, seed, seat_bots, result from matches where status = 'finished'"
    for match, seed, seat_bots, result in con.execute(query):
        kinds = [name.split("/")[-1].split(":")[0].split(".")[0] for name in json.loads(seat_bots)]
        ranks.setdefault((seed, frozenset(kinds)), []).append(json.loads(result)["ranks"])
        rows = "select action from actions where match_id = ? and seat = ?"
        for seat, kind in enumerate(kinds):
            for (action,) in con.execute(rows, (match, seat)):
                if action and action.split()[0] in ("kemps", "contrakemps"):
                    counts[f"{kind} {action.split()[0]}: submitted"] += 1
        caller = None
        rows = "select kind, seat, data from events where match_id = ? order by seq"
        for kind, seat, data in con.execute(rows, (match,)):
            if kind == "called":
                caller = (seat, json.loads(data)["call"])
            elif kind == "penalty" and caller is not None:
                seat, call = caller
                wrong = team_of(seat, len(kinds)) in json.loads(data)["teams"]
                counts[f"{kinds[seat]} {call}: {'wrong' if wrong else 'right'}"] += 1
                caller = None
    for (_, pair), placed in ranks.items():
        if len(pair) == 2 and len(placed) == 2:
            counts[f"{' and '.join(sorted(pair))}: deals placed alike in both seatings"] += (
                placed[0] == placed[1]
            )
            counts[f"{' and '.join(sorted(pair))}: deals"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="whole games to play (20)")
    parser.add_argument("--players", type=int, default=4, help="seats, even, 4 to 12 (4)")
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed (1)")
    parser.add_argument("--bot", default="heuristic", help="the bot of every seat (heuristic)")
    parser.add_argument(
        "-o", dest="options", action="append", default=[], help="a game option, NAME=VALUE"
    )
    parser.add_argument(
        "--db", help="read a series over the referee from this SQLite file instead of playing"
    )
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    for item in args.options:
        name, _, value = item.partition("=")
        options[name] = int(value) if value.isdigit() else value
    spec = game("kemps")
    total: Counter[str] = Counter()
    if args.db:
        total = recorded(args.db)
    for g in range(0 if args.db else args.games):
        total += play(spec, args.players, derive(args.seed, g), options, args.bot)
    for key in sorted(total):
        print(f"{key:56} {total[key]:6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
