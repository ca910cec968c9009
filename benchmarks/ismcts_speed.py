"""IS-MCTS search speed with and without the game's fast playout copy, on the same decisions.

    python benchmarks/ismcts_speed.py --game macao [--decisions 60] [--time-ms 100]
        [--players 2] [--seed 1] [-o NAME=VALUE]

The decisions are real ones: heuristic bots play matches from ``--seed`` and every position
with a choice (more than one legal action) is kept until there are ``--decisions``. On each
one an ismcts bot searches twice, through the contract (``fast=False``: ``clone``/``apply``,
the heuristic bot on a view per move) and on the game's fast copy (``fast=True``, where the
game offers ``playout_state``), the two runs interleaved so that the machine's load falls on
both alike. It prints simulations (rollouts) and worlds per second, actions per simulation,
median and p90 time per decision, and the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

from levata.bots import make_bot
from levata.bots.search.ismcts import IsmctsBot
from levata.engine import Action, SeatView, game
from levata.engine.seeds import derive


def decisions(name: str, players: int, count: int, seed: int, options: dict[str, Any]) -> list:
    """``count`` positions with a choice, from heuristic matches: (view, legal) pairs."""
    spec = game(name)
    out: list[tuple[SeatView, list[Action]]] = []
    match = 0
    while len(out) < count:
        state = spec.new_match(players=players, options=options, seed=derive(seed, match))
        bots = [make_bot("heuristic", name, seed=derive(seed, match, s)) for s in range(players)]
        while not state.is_over() and len(out) < count:
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            view = state.view(seat)
            if len(legal) > 1:
                out.append((view, legal))
            state.apply(seat, bots[seat].act(view, legal))
        match += 1
    return out


def quantile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="macao")
    p.add_argument("--decisions", type=int, default=60)
    p.add_argument("--time-ms", type=float, default=100.0)
    p.add_argument("--players", type=int, default=None, help="default: the fewest the game has")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    args = p.parse_args(argv)
    spec = game(args.game)
    players = args.players or spec.players[0]
    options = dict(item.split("=", 1) for item in args.option)
    points = decisions(spec.name, players, args.decisions, args.seed, options)
    bots = {
        fast: IsmctsBot(spec.name, seed=args.seed, time_ms=args.time_ms, fast=fast)
        for fast in (False, True)
    }
    for view, legal in points:
        for fast in (False, True):  # interleaved: load drifts fall on both
            bots[fast].act(view, legal)
    rows = {}
    for fast, bot in bots.items():
        st = bot.stats
        rows[fast] = (
            st.rollouts / st.seconds,
            st.iterations / st.seconds,
            st.actions / max(st.rollouts, 1),
            1000 * statistics.median(st.times),
            1000 * quantile(st.times, 0.9),
        )
    opts = " ".join(f"{k}={v}" for k, v in options.items())
    print(
        f"{spec.name}, {players} players{', ' + opts if opts else ''}: ismcts on "
        f"{len(points)} decisions, {args.time_ms:g} ms each, both paths interleaved"
    )
    head = ("path", "sims/s", "worlds/s", "actions/sim", "median ms", "p90 ms")
    print(f"{head[0]:10} {head[1]:>9} {head[2]:>9} {head[3]:>12} {head[4]:>10} {head[5]:>8}")
    for fast, (sims, worlds, acts, med, p90) in rows.items():
        label = "fast" if fast else "contract"
        print(f"{label:10} {sims:9.0f} {worlds:9.0f} {acts:12.1f} {med:10.1f} {p90:8.1f}")
    before, after = rows[False], rows[True]
    print(
        f"fast / contract: {after[0] / before[0]:.2f}x simulations/s, "
        f"{after[1] / before[1]:.2f}x worlds/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
