"""Trombon's rollouts: the Python copy (``RankSim``) against the C kernel
(``TrombonPlayout``), from the same positions in one run, and what the search gets of them.

    python benchmarks/trombon_rollouts.py [--players 3 5] [--positions 40] [--rollouts 40]
        [--horizon 20] [--decisions 30] [--time-ms 100] [--seed 1]

The positions are real ones: heuristic bots play matches from ``--seed`` and every play
decision (a seat to open or follow, no card put yet) is kept until there are
``--positions``, each with the model of how the seats call that the search would set (read
from the seat's history). From each, ``--rollouts`` rollouts of ``--horizon`` plays on each
copy, as the search plays them (a clone, the rule of thumb's play, the rollout, the
scores; the kernel loaded once a position, as the search loads it once a world), the two
interleaved position by position so that the machine's load falls on both alike. It prints
rollouts and plays per CPU second (``time.process_time``) and the ratio.

Then the search itself (``SearchBot``, ``--time-ms`` a decision) on ``--decisions`` play
decisions of seat 0 in a heuristic match, on each decision with ``kernel=True`` (its worlds
dealt by ranks, ``RankDealer``), the same with its worlds built as whole states
(``RankSim.of(world_from_view(...))``, the same worlds from the same draws, slower), and
with ``kernel=False``: rollouts and worlds per decision and the wall time per decision; and
the worlds per CPU second of each way to deal them, on those decisions' views. Figures from
a loaded machine vary from run to run: the ratios within one run are what compare.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Iterator

import levata.bots.strategy.trombon as search
from levata.bots.base import make_bot
from levata.bots.strategy.trombon import SearchBot, callers
from levata.engine import SeatView, game
from levata.engine.games.trombon import TrombonState
from levata.engine.games.trombon.playout import RankSim
from levata.engine.games.trombon.world import RankDealer
from levata.engine.trombon_playouts import TrombonPlayout

SPEC = game("trombon")


def decisions(players: int, seed: int) -> Iterator[TrombonState]:
    """Play decisions (open or follow, no card put yet) of heuristic matches from ``seed``."""
    while True:
        state = SPEC.new_match(players, seed=seed)
        bots = [make_bot("heuristic", "trombon", seed=seed * 16 + s) for s in range(players)]
        while not state.is_over():
            if state.phase != "window" and not state.staged:
                yield state
            for seat in state.to_act():
                state._apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
        seed += 1


def worlds(players: int, count: int, seed: int) -> list[RankSim]:
    """``count`` positions as the search reads them: the world and the callers' model."""
    out = []
    for state in decisions(players, seed):
        sim = RankSim.of(state)
        sim.callers = callers(state.view(sim.actor).history, players)
        out.append(sim)
        if len(out) == count:
            return out
    return out


def python_rollouts(sim: RankSim, rollouts: int, horizon: int, seed: int) -> int:
    me = sim.actor
    cards, declared, rank = sim.usual_play(me)
    plays = 0
    for r in range(rollouts):
        trial = sim.clone()
        trial.play(me, cards, declared, rank)
        trial.rollout(random.Random(seed + r), horizon)
        trial.scores()
        plays += trial.plays - sim.plays
    return plays


def kernel_rollouts(sim: RankSim, rollouts: int, horizon: int, seed: int) -> int:
    me = sim.actor
    cards, declared, rank = sim.usual_play(me)
    fast = TrombonPlayout(sim.fields(), seed)
    for r in range(rollouts):
        trial = fast.clone()
        trial.reseed(seed + r)
        trial.play(me, cards, declared, rank)
        trial.rollout(None, horizon)
        trial.scores()
    return 0  # the same plays as the Python copy's but for a wild caller's luck


def rollout_speed(players: int, args: argparse.Namespace) -> None:
    sims = worlds(players, args.positions, args.seed)
    cpu = {"python": 0.0, "kernel": 0.0}
    plays = {"python": 0, "kernel": 0}
    for i, sim in enumerate(sims):
        for name, run in (("python", python_rollouts), ("kernel", kernel_rollouts)):
            t = time.process_time()
            done = run(sim, args.rollouts, args.horizon, args.seed * 1000 + i)
            cpu[name] += time.process_time() - t
            plays[name] += done
    n = len(sims) * args.rollouts
    print(
        f"{players} players, {len(sims)} positions x {args.rollouts} rollouts of "
        f"{args.horizon} plays:"
    )
    for name in cpu:
        per = n / cpu[name]
        extra = f", {plays[name] / cpu[name]:,.0f} plays/s" if name == "python" else ""
        print(f"  {name:7} {per:10,.0f} rollouts/s (CPU){extra}")
    print(f"  kernel / python: {cpu['python'] / cpu['kernel']:.1f}x")


class StateDealer:
    """The search's worlds built as whole states (how it dealt them before ``RankDealer``)."""

    def __init__(self, view: SeatView) -> None:
        self.view = view

    def deal(self, rng: random.Random) -> RankSim:
        return RankSim.of(SPEC.world_from_view(self.view, rng))


DEALERS = {"kernel": RankDealer, "states": StateDealer, "python": RankDealer}


def search_speed(players: int, args: argparse.Namespace) -> None:
    bots = {
        name: SearchBot("trombon", seed=args.seed, time_ms=args.time_ms, kernel=name != "python")
        for name in DEALERS
    }
    rollouts: dict[str, list[int]] = {name: [] for name in bots}
    worlds: dict[str, list[int]] = {name: [] for name in bots}
    walls: dict[str, list[float]] = {name: [] for name in bots}
    views = []
    for state in decisions(players, args.seed):
        if state.to_act() != (0,):
            continue
        legal = state.legal_actions(0)
        if len(legal) < 2:
            continue
        views.append(state.view(0))
        for name, bot in bots.items():
            search.RankDealer = DEALERS[name]  # type: ignore[misc]
            before, searched = bot.rollouts, bot.searched
            t = time.perf_counter()
            bot.act(views[-1], legal)
            walls[name].append(time.perf_counter() - t)
            bot.plan = []
            rollouts[name].append(bot.rollouts - before)
            worlds[name].append(bot.searched - searched)
        search.RankDealer = RankDealer  # type: ignore[misc]
        if len(walls["kernel"]) >= args.decisions:
            break
    print(f"  search at {args.time_ms:.0f} ms, {len(walls['kernel'])} play decisions of seat 0:")
    for name in bots:
        med = statistics.median(rollouts[name])
        wall = sorted(walls[name])
        p90 = wall[int(0.9 * (len(wall) - 1))]
        print(
            f"    {name:7} rollouts/decision median {med:6.0f}, mean "
            f"{statistics.mean(rollouts[name]):6.0f}; worlds/decision median "
            f"{statistics.median(worlds[name]):4.0f}; wall median "
            f"{statistics.median(wall) * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms"
        )
    deal_speed(views, args.seed)


def deal_speed(views: list[SeatView], seed: int, each: int = 40) -> None:
    """Worlds per CPU second of both dealers on the search's views (the same worlds)."""
    cpu = {"ranks": 0.0, "states": 0.0}
    for i, view in enumerate(views):
        for name, dealer in (("ranks", RankDealer), ("states", StateDealer)):
            rng = random.Random(seed * 1000 + i)
            t = time.process_time()
            deal = dealer(view).deal
            for _ in range(each):
                deal(rng)
            cpu[name] += time.process_time() - t
    n = len(views) * each
    print(
        f"  worlds by ranks (RankDealer) {n / cpu['ranks']:8,.0f}/s (CPU), as states "
        f"{n / cpu['states']:8,.0f}/s: {cpu['states'] / cpu['ranks']:.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rollouts", type=int, default=40)
    parser.add_argument("--horizon", type=int, default=20)
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--time-ms", type=float, default=100.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for players in args.players:
        rollout_speed(players, args)
        if args.decisions:
            search_speed(players, args)


if __name__ == "__main__":
    main()
