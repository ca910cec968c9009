"""Speed of the trick kernel against DDS and OpenSpiel, as ratios measured in one run.

    pip install -e '.[bench]'
    python benchmarks/solver.py [--deals 100] [--seconds 3] [--seed 1]

1. Double-dummy solves: random bridge deals of 13, 8 and 4 cards per hand, one leader and
   one strain (trump or no trump) each. The same deals go to ``levata.engine.solver`` (a
   fresh :class:`~levata.engine.solver.Solver` per deal, the tricks of the side on lead) and
   to DDS through ``endplay.dds.solve_board`` (``SolveMode.OptimalOne``: the best card and its
   tricks), one after the other on each deal so that machine noise hits both alike; the
   answers must agree. Target: median solve time at 13 cards <= 2x DDS's.
2. Random playouts: the kernel deals a 4-player, 8-card Whist deal (32 cards, no trump) and
   plays it out with uniformly random legal cards, in a C loop; OpenSpiel plays
   ``oh_hell(players=4,num_tricks_fixed=8)`` with ``pyspiel.evaluate_bots`` and uniform random
   C++ bots (a 52-card deck with a trump card and a round of bids; one Python call per game).
   Target: kernel playouts/s >= 2x OpenSpiel's.

Every target is printed as met or missed with its figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rich.console import Console
from rich.table import Table

from levata.engine.cardmask import mask_of
from levata.engine.games.whist import whist_deck
from levata.engine.playouts import deal_playouts
from levata.engine.rules import TrickRules
from levata.engine.solver import Solver, tricks

RANKS = "AKQJT98765432"
SUITS = "SHDC"  # PBN order; our slots are C=0, D=1, H=2, S=3
SLOT = {"C": 0, "D": 1, "H": 2, "S": 3}
RANK = {r: 14 - i for i, r in enumerate(RANKS)}


def pbn(hands: list[list[int]]) -> str:
    """Our card indexes (slot * 16 + rank) as a PBN deal, seat 0 = North."""
    out = []
    for hand in hands:
        held = {(c >> 4, c & 15) for c in hand}
        out.append(".".join("".join(r for r in RANKS if (SLOT[s], RANK[r]) in held) for s in SUITS))
    return "N:" + " ".join(out)


def solve_times(size: int, deals: int, seed: int) -> dict[str, list[float]]:
    """Per-deal seconds for both solvers on the same random deals of ``size`` cards."""
    from endplay.dds import solve_board
    from endplay.dds.solve import SolveMode
    from endplay.types import Deal, Denom, Player

    denoms = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]
    rules = {t: TrickRules(4, t, teams=(0, 1, 0, 1)) for t in (None, 0, 1, 2, 3)}  # bridge
    rng = random.Random(seed * 1000 + size)
    deck = [16 * s + r for s in range(4) for r in range(2, 15)]
    ours, theirs = [], []
    for _ in range(deals):
        rng.shuffle(deck)
        hands = [deck[size * i : size * i + size] for i in range(4)]
        leader = rng.randrange(4)
        strain = rng.randrange(5)  # 0..3: clubs..spades (our slots), 4: no trump
        trump = None if strain == 4 else strain
        deal = Deal(pbn(hands), first=Player(leader), trump=denoms[strain])
        start = time.perf_counter()
        best = solve_board(deal, SolveMode.OptimalOne)
        theirs.append(time.perf_counter() - start)
        want = max(score for _, score in best)
        masks = [mask_of_indexes(h) for h in hands]
        start = time.perf_counter()
        got = Solver(rules[trump]).solve(
            masks, leader, objective=tricks((leader, (leader + 2) % 4))
        )
        ours.append(time.perf_counter() - start)
        if got != want:
            raise SystemExit(f"disagreement on {pbn(hands)} leader {leader}: {got} vs DDS {want}")
    return {"ours": ours, "dds": theirs}


def mask_of_indexes(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def kernel_playouts(seconds: float) -> float:
    """Random playouts per second of 4-player 8-card Whist deals, dealing included."""
    rules = TrickRules(4, None, must_trump=True)  # Romanian Whist
    deck = mask_of(whist_deck(4))
    done, chunk, seed = 0, 20_000, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        deal_playouts(rules, deck, 8, n=chunk, seed=seed)
        done += chunk
        seed += 1
    return done / (time.perf_counter() - start)


def openspiel_playouts(seconds: float) -> float:
    """Uniform random C++ bots through ``pyspiel.evaluate_bots``, one game per call."""
    import pyspiel

    game = pyspiel.load_game("oh_hell(players=4,num_tricks_fixed=8)")
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(4)]
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, done)
        done += 1
    return done / (time.perf_counter() - start)


def pimc_decision_times(deals: int, seed: int, worlds: int = 100) -> list[float]:
    """Seconds per PIMC decision (bids and plays with a choice) at 8 cards, 4 players."""
    from levata.bots import make_bot, play_match
    from levata.bots.search.pimc import PimcBot
    from levata.engine import game

    times: list[float] = []
    for d in range(deals):
        state = game("whist").new_match(players=4, options={"deal_size": 8}, seed=seed + d)
        pimc = PimcBot(seed=d, worlds=worlds)
        decide = pimc.act

        def timed(view, legal, decide=decide):
            start = time.perf_counter()
            action = decide(view, legal)
            if len(legal) > 1 and len(view.hand) == 8:
                times.append(time.perf_counter() - start)
            return action

        pimc.act = timed  # type: ignore[method-assign]
        bots = [pimc] + [make_bot("heuristic", "whist", seed=s) for s in range(1, 4)]
        play_match(state, bots)
    return times


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f}"


def verdict(ok: bool) -> str:
    return "[green]met[/green]" if ok else "[red]missed[/red]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals per size (default 100)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per playout run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="13,8,4", help="cards per hand, comma-separated")
    args = parser.parse_args()
    console = Console()

    solves = Table(title=f"double-dummy solves, {args.deals} random deals per size (ms)")
    for col in (
        "cards",
        "ours med",
        "DDS med",
        "ratio",
        "ours mean",
        "DDS mean",
        "ours p90",
        "ours max",
        "DDS max",
    ):
        solves.add_column(col, justify="right")
    ratios = {}
    for size in (int(s) for s in args.sizes.split(",")):
        t = solve_times(size, args.deals, args.seed)
        ours, dds = t["ours"], t["dds"]
        ratio = statistics.median(ours) / statistics.median(dds)
        ratios[size] = ratio
        solves.add_row(
            str(size),
            ms(statistics.median(ours)),
            ms(statistics.median(dds)),
            f"{ratio:.2f}x",
            ms(statistics.mean(ours)),
            ms(statistics.mean(dds)),
            ms(statistics.quantiles(ours, n=10)[-1]),
            ms(max(ours)),
            ms(max(dds)),
        )
    console.print(solves)

    ours = kernel_playouts(args.seconds)
    theirs = openspiel_playouts(args.seconds)
    play = Table(title=f"random playouts, 4 players x 8 cards, ~{args.seconds:g} s each")
    for col in ("engine", "playouts/s"):
        play.add_column(col, justify="right")
    play.add_row("levata kernel (Whist, deal + play in C)", f"{ours:,.0f}")
    play.add_row("OpenSpiel oh_hell evaluate_bots", f"{theirs:,.0f}")
    console.print(play)

    pimc = pimc_decision_times(max(5, args.deals // 4), args.seed)
    pimc_median = statistics.median(pimc)
    console.print(
        f"PIMC, 100 worlds, 8 cards in hand (4 players): {len(pimc)} decisions, median "
        f"{ms(pimc_median)} ms, p90 {ms(statistics.quantiles(pimc, n=10)[-1])} ms, "
        f"max {ms(max(pimc))} ms"
    )

    targets = Table(title="targets")
    for col in ("target", "figure", "verdict"):
        targets.add_column(col)
    if 13 in ratios:
        targets.add_row(
            "13-card solve: median <= 2x DDS", f"{ratios[13]:.2f}x", verdict(ratios[13] <= 2)
        )
    for size in sorted(ratios):
        if size != 13:
            targets.add_row(f"{size}-card solve vs DDS (no target)", f"{ratios[size]:.2f}x", "-")
    targets.add_row(
        "playouts: >= 2x OpenSpiel", f"{ours / theirs:.1f}x", verdict(ours >= 2 * theirs)
    )
    targets.add_row(
        "PIMC decision at 8 cards, 100 worlds: <= 50 ms (median)",
        f"{ms(pimc_median)} ms",
        verdict(pimc_median <= 0.050),
    )
    console.print(targets)


if __name__ == "__main__":
    main()
