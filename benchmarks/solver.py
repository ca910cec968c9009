"""Speed of the trick kernel against DDS and OpenSpiel, as ratios measured in one run.

    pip install -e '.[bench]'
    python benchmarks/solver.py [--deals 100] [--seconds 3] [--seed 1]

1. Double-dummy solves: random bridge deals of 13, 8 and 4 cards per hand, one leader and
   one strain (trump or no trump) each. The same deals go to ``levata.engine.solver`` (a
   fresh :class:`~levata.engine.solver.Solver` per deal, the tricks of the side on lead) and
   to DDS through ``endplay.dds.solve_board`` (``SolveMode.OptimalOne``: the best card and its
   tricks), one after the other on each deal, timed in CPU seconds so that a loaded machine
   hits both alike; the answers must agree. By default 900 deals per size (seeds 1, 5, 7 x
   300: ``--dds-seeds``, ``--dds-deals``); 13-card deals are also shown by strain. Targets at
   13 cards (issue 30): median solve time <= 1.3x DDS's, p90 <= 2x DDS's p90.
2. Random playouts: the kernel deals a 4-player, 8-card Whist deal (32 cards, no trump) and
   plays it out with uniformly random legal cards, in a C loop; OpenSpiel plays
   ``oh_hell(players=4,num_tricks_fixed=8)`` with ``pyspiel.evaluate_bots`` and uniform random
   C++ bots (a 52-card deck with a trump card and a round of bids; one Python call per game).
   Target: kernel playouts/s >= 2x OpenSpiel's.

3. Three hands (issue 13: 3-player Banking and 8-5-3 deal 16 cards to each of three hands
   from 52): random deals of 8, 12, 14 and 16 cards per hand, a random trump suit, follow
   suit and, on every other deal, must trump (Banking; else any card, 8-5-3), a random
   leader, the leader's tricks against the other two. Each deal goes to the solver as it is
   and as it was before the three-hand work (``BEFORE``: the switches that turn the new
   means off), one after the other on each deal (order alternating), so one run gives both
   columns and their ratio; the answers must agree. ``--means`` adds a row per means, the
   solver with only that means off.
4. PIMC on 16-card three-hand deals (``ThreeHands``, a game registered for the run: the
   deals above, played out, most tricks wins): the first-card decision of a deal, old
   defaults (``OLD_PIMC``) against the current ones on the same deals, and the decision
   time and worlds per trick number when three PIMC bots of each kind play a deal out.
   Target: first card <= 1 s with >= 50 worlds.

Every target is printed as met or missed with its figure. ``--sections`` picks the parts
(``dds,playouts,pimc,three,pimc3``; the first needs DDS, the second OpenSpiel).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rich.console import Console
from rich.table import Table

from levata.engine import events, phases
from levata.engine.cardmask import mask_of
from levata.engine.cards import french_deck
from levata.engine.contract import GameSpec, Option, Result, ranks_from_scores
from levata.engine.deal import shuffled
from levata.engine.family.tricks import PLAY, TrickGame
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


def solve_times(size: int, deals: int, seed: int) -> dict[str, list]:
    """Per deal, CPU seconds of both solvers on the same random deals of ``size`` cards, our
    node count and whether the deal is played in no trump. CPU time, not wall time: the
    figures stay comparable on a loaded machine (both solvers run in this thread)."""
    from endplay.dds import solve_board
    from endplay.dds.solve import SolveMode
    from endplay.types import Deal, Denom, Player

    denoms = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]
    rules = {t: TrickRules(4, t, teams=(0, 1, 0, 1)) for t in (None, 0, 1, 2, 3)}  # bridge
    rng = random.Random(seed * 1000 + size)
    deck = [16 * s + r for s in range(4) for r in range(2, 15)]
    out: dict[str, list] = {"ours": [], "dds": [], "nodes": [], "nt": []}
    for _ in range(deals):
        rng.shuffle(deck)
        hands = [deck[size * i : size * i + size] for i in range(4)]
        leader = rng.randrange(4)
        strain = rng.randrange(5)  # 0..3: clubs..spades (our slots), 4: no trump
        trump = None if strain == 4 else strain
        deal = Deal(pbn(hands), first=Player(leader), trump=denoms[strain])
        start = time.process_time()
        best = solve_board(deal, SolveMode.OptimalOne)
        out["dds"].append(time.process_time() - start)
        want = max(score for _, score in best)
        masks = [mask_of_indexes(h) for h in hands]
        start = time.process_time()
        solver = Solver(rules[trump])
        got = solver.solve(masks, leader, objective=tricks((leader, (leader + 2) % 4)))
        out["ours"].append(time.process_time() - start)
        out["nodes"].append(solver.nodes)
        out["nt"].append(trump is None)
        if got != want:
            raise SystemExit(f"disagreement on {pbn(hands)} leader {leader}: {got} vs DDS {want}")
    return out


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


# -- three hands -----------------------------------------------------------------------------

#: Solver switches that turn off every means added for three hands: the search as it was
#: before (issue 13), the "before" column of the three-hand table.
BEFORE: dict[str, bool] = {"fast_probe": False, "suit_buckets": False}
#: The means one by one (``--means``): the switch that turns each off.
MEANS: dict[str, str] = {"fast probe": "fast_probe", "suit buckets": "suit_buckets"}
#: PIMC's defaults before the three-hand work, for the "old" column of the PIMC figures.
OLD_PIMC: dict[str, int | float] = {
    "worlds": 100,
    "time_ms": 500,
    "solve_cards": 32,
    "try_cards": 0,  # no tries: rollouts above solve_cards
}
THREE_SIZES = (8, 12, 14, 16)


def three_hand_deal(rng: random.Random, size: int) -> tuple[TrickRules, list[int], int]:
    """A random deal of ``size`` cards to each of three hands from 52 (the rest out of play),
    a random trump, must trump on every other deal (by coin), a random leader."""
    deck = [16 * s + r for s in range(4) for r in range(2, 15)]
    rng.shuffle(deck)
    hands = [mask_of_indexes(deck[size * i : size * i + size]) for i in range(3)]
    rules = TrickRules(3, rng.randrange(4), must_trump=rng.random() < 0.5)
    return rules, hands, rng.randrange(3)


def percentile90(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=10, method="inclusive")[-1] if len(xs) > 1 else xs[0]


def three_hand_times(
    size: int, deals: int, seed: int, variants: dict[str, dict[str, bool]]
) -> dict[str, dict[str, list[float]]]:
    """Per variant (solver options), per deal: seconds and nodes of one solve, a fresh
    solver per deal; the variants take turns going first. Every answer must agree."""
    rng = random.Random(seed * 1000 + size + 300)
    out: dict[str, dict[str, list[float]]] = {v: {"s": [], "nodes": []} for v in variants}
    names = list(variants)
    for d in range(deals):
        rules, hands, leader = three_hand_deal(rng, size)
        values = {}
        order = names if d % 2 == 0 else names[::-1]
        for name in order:
            solver = Solver(rules, **variants[name])
            start = time.perf_counter()
            values[name] = solver.solve(hands, leader, objective=tricks(leader))
            out[name]["s"].append(time.perf_counter() - start)
            out[name]["nodes"].append(float(solver.nodes))
        if len(set(values.values())) != 1:
            raise SystemExit(f"three hands, {size} cards, deal {d}: variants disagree {values}")
    return out


class ThreeHands(TrickGame):
    """16 cards to each of three hands from 52, four out of play; the dealer's last card
    names trump; most tricks wins. Option ``must_trump`` (Banking) or not (8-5-3)."""

    def __init__(self, spec, players, options, seed, deal=None):
        super().__init__(spec, players, options, seed)
        self.deck = french_deck()
        order = list(deal) if deal is not None else shuffled(self.deck, self.rng)
        rest = self.deal_round_robin(order, first=0, each=16)
        self.set_trump(order[3 * 16 - 1].suit, None)
        self.undealt = rest
        self.phase = PLAY
        self._emit(events.DEAL, trump=self.trump.letter if self.trump else None)
        self.show_hands()

    def card_rules(self):
        return TrickRules(self.players, self.trump, must_trump=self.options["must_trump"])

    def _restore_from_view(self, view):
        self.deck = french_deck()

    def _score_deal(self):
        self.over, self.phase = True, phases.OVER
        self._emit(events.END, scores=list(self.tricks))

    def _view_scores(self):
        return tuple(float(t) for t in self.tricks)

    def result(self):
        best = max(self.tricks)
        return Result(
            scores=self._view_scores(),
            ranks=ranks_from_scores(self.tricks),
            winners=tuple(s for s, t in enumerate(self.tricks) if t == best),
        )


def three_hands_spec() -> GameSpec:
    """The game, registered under ``three-hands`` for this run."""
    from levata.engine import registry

    if "three-hands" not in registry._REGISTRY:
        registry.register(
            GameSpec(
                "three-hands",
                "Three hands of sixteen",
                (3,),
                (Option("must_trump", True, "void in the led suit: trump if able"),),
                ThreeHands,
            )
        )
    return registry.game("three-hands")


def pimc_bot(config: dict[str, int | float], seed: int):
    from levata.bots.search.pimc import PimcBot

    return PimcBot("three-hands", seed=seed, **config)  # type: ignore[arg-type]


def pimc_first_cards(
    deals: int, seed: int, configs: dict[str, dict[str, int | float]]
) -> dict[str, dict[str, list[float]]]:
    """The first card of each deal: seconds and worlds per configuration (taking turns)."""
    spec = three_hands_spec()
    out: dict[str, dict[str, list[float]]] = {
        c: {"s": [], "worlds": [], "solved": []} for c in configs
    }
    names = list(configs)
    for d in range(deals):
        state = spec.new_match(players=3, options={"must_trump": d % 2 == 0}, seed=seed + d)
        seat = state.to_act()[0]
        view, legal = state.view(seat), state.legal_actions(seat)
        for name in names if d % 2 == 0 else names[::-1]:
            bot = pimc_bot(configs[name], seed + d)
            start = time.perf_counter()
            bot.act(view, legal)
            out[name]["s"].append(time.perf_counter() - start)
            out[name]["worlds"].append(float(bot.last_worlds))
            out[name]["solved"].append(float(bot.last_solved))
    return out


def pimc_by_trick(
    deals: int, seed: int, config: dict[str, int | float]
) -> dict[int, list[tuple[float, int, int]]]:
    """Three PIMC bots of one configuration play each deal out: (seconds, worlds) of every
    decision with a choice, by trick number."""
    from levata.bots import play_match

    spec = three_hands_spec()
    got: dict[int, list[tuple[float, int, int]]] = {}
    for d in range(deals):
        state = spec.new_match(players=3, options={"must_trump": d % 2 == 0}, seed=seed + d)
        bots = [pimc_bot(config, seed + 10 * d + s) for s in range(3)]
        for bot in bots:
            decide = bot.act

            def timed(view, legal, decide=decide, bot=bot):
                start = time.perf_counter()
                action = decide(view, legal)
                if len(legal) > 1:
                    trick = 1 + len(view.zones["played"]) // 3
                    got.setdefault(trick, []).append(
                        (time.perf_counter() - start, bot.last_worlds, bot.last_solved)
                    )
                return action

            bot.act = timed  # type: ignore[method-assign]
        play_match(state, bots)
    return got


def pimc_strength(deals: int, seed: int, new: dict, old: dict) -> list[float]:
    """Duplicate deals of ``ThreeHands``: per deal, the tricks of the new PIMC at each seat in
    turn among two old ones, minus what the old one took at that seat with three old ones;
    the mean over the three seats, one number per deal."""
    from levata.bots import play_match

    spec = three_hands_spec()
    out = []
    for d in range(deals):
        options = {"must_trump": d % 2 == 0}

        def tricks_with(seat: int | None, d: int = d, options: dict = options) -> list[float]:
            state = spec.new_match(players=3, options=options, seed=seed + 7919 * d)
            bots = [pimc_bot(new if s == seat else old, seed + 31 * d + s) for s in range(3)]
            return list(play_match(state, bots).scores)

        base = tricks_with(None)
        out.append(statistics.fmean(tricks_with(s)[s] - base[s] for s in range(3)))
    return out


def strength_section(args, console: Console, targets: list[tuple[str, str, bool | None]]):
    start = time.perf_counter()
    diffs = pimc_strength(args.strength_deals, args.seed, {}, OLD_PIMC)
    m = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("inf")
    console.print(
        f"PIMC strength on {len(diffs)} duplicate 16-card three-hand deals (new defaults at "
        f"each seat among old ones, minus old): {m:+.3f} tricks per seat and deal, 95% "
        f"interval [{m - half:+.3f}, {m + half:+.3f}] ({time.perf_counter() - start:.0f} s)"
    )
    targets.append(
        ("PIMC new - old defaults, tricks/deal (>= 0)", f"{m:+.3f} +- {half:.3f}", m + half >= 0)
    )


def three_hand_section(args, console: Console, targets: list[tuple[str, str, bool | None]]):
    variants: dict[str, dict[str, bool]] = {"before": BEFORE, "after": {}}
    if args.means:
        for means, switch in MEANS.items():
            variants[f"no {means}"] = {switch: False}
    table = Table(
        title=f"three hands (52 cards, one trump, follow suit), {args.deals3} random deals "
        "per size: one solve, the leader's tricks (ms; nodes in thousands)"
    )
    for col in ("cards", "variant", "median", "p90", "max", "mean", "nodes med", "med ratio"):
        table.add_column(col, justify="right")
    for size in (int(s) for s in args.sizes3.split(",")):
        deals = args.deals3 if size < 16 else max(4, args.deals3 // 2)
        t = three_hand_times(size, deals, args.seed, variants)
        base = statistics.median(t["before"]["s"])
        for name, row in t.items():
            xs = row["s"]
            table.add_row(
                f"{size} ({deals})" if name == "before" else "",
                name,
                ms(statistics.median(xs)),
                ms(percentile90(xs)),
                ms(max(xs)),
                ms(statistics.mean(xs)),
                f"{statistics.median(row['nodes']) / 1e3:,.1f}",
                f"{base / statistics.median(xs):.2f}x" if name != "before" else "",
            )
        if size == 16:
            med = statistics.median(t["after"]["s"])
            targets.append(("16-card three-hand solve: median (no target)", f"{ms(med)} ms", None))
    console.print(table)


def pimc3_section(args, console: Console, targets: list[tuple[str, str, bool | None]]):
    configs: dict[str, dict[str, int | float]] = {"old": OLD_PIMC, "new": {}}
    first = pimc_first_cards(args.pimc_deals, args.seed, configs)
    table = Table(title=f"PIMC first card of a 16-card three-hand deal, {args.pimc_deals} deals")
    for col in ("defaults", "median ms", "p90 ms", "max ms", "worlds median", "worlds min"):
        table.add_column(col, justify="right")
    for name, row in first.items():
        table.add_row(
            name,
            ms(statistics.median(row["s"])),
            ms(percentile90(row["s"])),
            ms(max(row["s"])),
            f"{statistics.median(row['worlds']):.0f}",
            f"{min(row['worlds']):.0f}",
        )
    console.print(table)
    new = first["new"]
    targets.append(
        (
            "PIMC first card, 16 cards x 3: <= 1 s (max) with >= 50 worlds (min)",
            f"{ms(max(new['s']))} ms, {min(new['worlds']):.0f} worlds",
            max(new["s"]) <= 1.0 and min(new["worlds"]) >= 50,
        )
    )
    if args.trick_deals <= 0:
        return
    by = {name: pimc_by_trick(args.trick_deals, args.seed, cfg) for name, cfg in configs.items()}
    table = Table(
        title=f"PIMC decisions by trick, 16-card three-hand deals played out by three PIMC "
        f"bots, {args.trick_deals} deals each (decisions with a choice)"
    )
    table.add_column("trick", justify="right")
    for name in configs:
        for col in ("n", "med ms", "max ms", "worlds", "solved"):
            table.add_column(f"{name} {col}", justify="right")
    for trick in range(1, 17):
        cells = [str(trick)]
        for name in configs:
            rows = by[name].get(trick, [])
            if not rows:
                cells += ["0", "-", "-", "-", "-"]
                continue
            secs = [s for s, _, _ in rows]
            cells += [
                str(len(rows)),
                ms(statistics.median(secs)),
                ms(max(secs)),
                f"{statistics.median([w for _, w, _ in rows]):.0f}",
                f"{sum(k for _, _, k in rows) / sum(w for _, w, _ in rows):.0%}",
            ]
        table.add_row(*cells)
    console.print(table)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f}" if seconds < 0.1 else f"{seconds * 1e3:,.0f}"


def verdict(ok: bool) -> str:
    return "[green]met[/green]" if ok else "[red]missed[/red]"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals per size (default 100)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per playout run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="13,8,4", help="cards per hand, comma-separated")
    parser.add_argument(
        "--dds-seeds", default="1,5,7", help="seeds of the DDS section's deals (default 1,5,7)"
    )
    parser.add_argument("--dds-deals", type=int, default=300, help="DDS deals per seed and size")
    parser.add_argument(
        "--sections",
        default="dds,playouts,pimc,three,pimc3",
        help="comma-separated: dds, playouts, pimc, three, pimc3, strength3 (default: all "
        "but strength3)",
    )
    parser.add_argument("--deals3", type=int, default=40, help="three-hand deals per size")
    parser.add_argument("--sizes3", default=",".join(map(str, THREE_SIZES)))
    parser.add_argument("--means", action="store_true", help="a row per means, that one off")
    parser.add_argument("--pimc-deals", type=int, default=10, help="first-card decisions")
    parser.add_argument("--trick-deals", type=int, default=2, help="deals played out per kind")
    parser.add_argument("--strength-deals", type=int, default=60, help="duplicate deals")
    return parser


def dds_section(
    args: argparse.Namespace, console: Console, targets: list[tuple[str, str, bool | None]]
) -> None:
    """Double-dummy solve times against DDS (CPU time), per hand size; at 13 cards also by
    strain. Ratios: of the medians, of the p90s, and the per-deal ratio's median, p90 and
    worst (a deal slow for both solvers is not held against ours)."""
    seeds = [int(x) for x in args.dds_seeds.split(",")]
    solves = Table(
        title=f"double-dummy solves, seeds {args.dds_seeds} x {args.dds_deals} random deals "
        "per size (CPU ms; per deal: ours / DDS)"
    )
    for col in (
        "cards",
        "deals",
        "ours med",
        "DDS med",
        "ratio",
        "ours p90",
        "DDS p90",
        "p90 ratio",
        "per-deal med",
        "per-deal p90",
        "worst",
        "nodes med",
        "nodes p90",
    ):
        solves.add_column(col, justify="right")
    ratios, tails = {}, {}
    for size in (int(s) for s in args.sizes.split(",")):
        t: dict[str, list] = {"ours": [], "dds": [], "nodes": [], "nt": []}
        for seed in seeds:
            for key, xs in solve_times(size, args.dds_deals, seed).items():
                t[key].extend(xs)
        groups = [("", [True] * len(t["ours"]))]
        if size == 13:
            groups += [(" trump", [not x for x in t["nt"]]), (" no trump", t["nt"])]
        for label, keep in groups:
            ours = [x for x, k in zip(t["ours"], keep, strict=True) if k]
            dds = [x for x, k in zip(t["dds"], keep, strict=True) if k]
            nodes = [x for x, k in zip(t["nodes"], keep, strict=True) if k]
            if not ours:
                continue
            per = [a / max(b, 1e-6) for a, b in zip(ours, dds, strict=True)]
            ratio = statistics.median(ours) / statistics.median(dds)
            tail = percentile90(ours) / percentile90(dds)
            if not label:
                ratios[size], tails[size] = ratio, tail
            solves.add_row(
                f"{size}{label}",
                str(len(ours)),
                ms(statistics.median(ours)),
                ms(statistics.median(dds)),
                f"{ratio:.2f}x",
                ms(percentile90(ours)),
                ms(percentile90(dds)),
                f"{tail:.2f}x",
                f"{statistics.median(per):.2f}x",
                f"{percentile90(per):.2f}x",
                f"{max(per):.1f}x",
                f"{statistics.median(nodes):,.0f}",
                f"{percentile90(nodes):,.0f}",
            )
    console.print(solves)
    if 13 in ratios:
        targets.append(
            ("13-card solve: median <= 1.3x DDS", f"{ratios[13]:.2f}x", ratios[13] <= 1.3)
        )
        targets.append(("13-card solve: p90 <= 2x DDS's p90", f"{tails[13]:.2f}x", tails[13] <= 2))
    for size in sorted(ratios):
        if size != 13:
            targets.append((f"{size}-card solve vs DDS (no target)", f"{ratios[size]:.2f}x", None))


def playouts_section(
    args: argparse.Namespace, console: Console, targets: list[tuple[str, str, bool | None]]
) -> None:
    """Random playouts per second against OpenSpiel's."""
    ours = kernel_playouts(args.seconds)
    theirs = openspiel_playouts(args.seconds)
    play = Table(title=f"random playouts, 4 players x 8 cards, ~{args.seconds:g} s each")
    for col in ("engine", "playouts/s"):
        play.add_column(col, justify="right")
    play.add_row("levata kernel (Whist, deal + play in C)", f"{ours:,.0f}")
    play.add_row("OpenSpiel oh_hell evaluate_bots", f"{theirs:,.0f}")
    console.print(play)
    targets.append(("playouts: >= 2x OpenSpiel", f"{ours / theirs:.1f}x", ours >= 2 * theirs))


def pimc_section(
    args: argparse.Namespace, console: Console, targets: list[tuple[str, str, bool | None]]
) -> None:
    """PIMC's decision time at 8 cards, 100 worlds."""
    pimc = pimc_decision_times(max(5, args.deals // 4), args.seed)
    pimc_median = statistics.median(pimc)
    console.print(
        f"PIMC, 100 worlds, 8 cards in hand (4 players): {len(pimc)} decisions, median "
        f"{ms(pimc_median)} ms, p90 {ms(percentile90(pimc))} ms, "
        f"max {ms(max(pimc))} ms"
    )
    targets.append(
        (
            "PIMC decision at 8 cards, 100 worlds: <= 50 ms (median)",
            f"{ms(pimc_median)} ms",
            pimc_median <= 0.050,
        )
    )


def main() -> None:
    args = _parser().parse_args()
    sections = set(args.sections.split(","))
    console = Console(width=150)
    targets: list[tuple[str, str, bool | None]] = []

    if "dds" in sections:
        dds_section(args, console, targets)
    if "playouts" in sections:
        playouts_section(args, console, targets)
    if "pimc" in sections:
        pimc_section(args, console, targets)
    if "three" in sections:
        three_hand_section(args, console, targets)
    if "pimc3" in sections:
        pimc3_section(args, console, targets)
    if "strength3" in sections:
        strength_section(args, console, targets)

    table = Table(title="targets")
    for col in ("target", "figure", "verdict"):
        table.add_column(col)
    for name, figure, ok in targets:
        table.add_row(name, figure, "-" if ok is None else verdict(ok))
    console.print(table)


if __name__ == "__main__":
    main()
