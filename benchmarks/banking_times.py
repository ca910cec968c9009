"""Banking: the search bots' time per decision at the first card (the Declarant's Atac), with
12 cards a hand (4 players) and 16 (3 players), the solver's hard case.

    python benchmarks/banking_times.py [--positions 20] [--pimc-ms 500] [--ismcts-ms 100]
                                       [--solve-cards 32]

Each position is one session (``session=1..4``, seeds 0..N-1) played by the heuristic to the
first lead; then the Declarant's first card is chosen by each search bot under its default
budget, from the same view. Printed: per player count and bot, the median and p90 time, and
pimc's median worlds. While more than ``solve_cards`` cards are left (48 here, at both player
counts) pimc values each card by greedy rollouts in C; with ``--solve-cards 48`` it solves
every world double-dummy instead: fast with four players, seconds a world with three (the
16-card deal), which is why the default rolls out above 32 cards.
"""

from __future__ import annotations

import argparse
import statistics
import time

from levata.bots.base import make_bot
from levata.bots.search.ismcts import IsmctsBot
from levata.bots.search.pimc import PimcBot
from levata.engine import game


def first_leads(players: int, count: int) -> list:
    """``count`` positions at the first card of a session, the Declarant to lead."""
    spec = game("banking")
    out = []
    for seed in range(count):
        state = spec.new_match(players=players, options={"session": 1 + seed % 4}, seed=seed)
        bots = [make_bot("heuristic", "banking", seed=s) for s in range(players)]
        while state.phase != "play":
            seat = state.to_act()[0]
            state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
        out.append(state)
    return out


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--pimc-ms", type=int, default=500)
    parser.add_argument("--ismcts-ms", type=int, default=100)
    parser.add_argument("--solve-cards", type=int, default=32)
    args = parser.parse_args()
    head = ("players", "cards", "bot", "budget", "median", "p90", "worlds")
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, (7, 5, 7, 7, 8, 8, 6), strict=True)))
    for players in (4, 3):
        states = first_leads(players, args.positions)
        size = len(states[0].hands[(states[0].declarant + 1) % players])
        for kind, budget in (("pimc", args.pimc_ms), ("ismcts", args.ismcts_ms)):
            times, worlds = [], []
            for i, state in enumerate(states):
                seat = state.to_act()[0]
                view, legal = state.view(seat), state.legal_actions(seat)
                bot: PimcBot | IsmctsBot
                if kind == "pimc":
                    bot = PimcBot("banking", seed=i, time_ms=budget, solve_cards=args.solve_cards)
                else:
                    bot = IsmctsBot("banking", seed=i, time_ms=budget)
                start = time.perf_counter()
                bot.act(view, legal)
                times.append(time.perf_counter() - start)
                worlds.append(bot.last_worlds if isinstance(bot, PimcBot) else bot.stats.iterations)
            print(
                f"{players:>7} {size:>5} {kind:>7} {budget:>5}ms"
                f" {1000 * statistics.median(times):>6.0f}ms {1000 * p90(times):>6.0f}ms"
                f" {statistics.median(worlds):>6.0f}"
            )


if __name__ == "__main__":
    main()
