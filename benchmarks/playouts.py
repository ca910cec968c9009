"""The game contract's speed: random play through ``legal_actions``/``apply`` and one view.

    python benchmarks/playouts.py [GAME ...] [--matches 20] [--repeat 3]
        [--against-openspiel]

For each game (every registered game by default) it plays ``--matches`` seeded random matches
of the game's short options (:func:`levata.engine.testing.new_random_match`), every action
through the contract as a bot's referee would apply it, and times them; then it times
``view(seat, history=False)`` over positions kept along the way. Figures are **CPU time** of
this process (``time.process_time``), the best of ``--repeat`` runs: on a machine shared with
other work, wall time measures the neighbours, CPU time mostly this code. Compare two trees by
running this in each, alternately, in one sitting.

``--against-openspiel`` also runs OpenSpiel's Python loop (``pip install open_spiel``) on
``oh_hell(players=4,num_tricks_fixed=8)``: random playouts from a dealt position (its first
bid) through ``clone``, ``legal_actions`` and ``apply_action``, in the same run, and prints
levata's Whist 4x8 actions per second beside it (the same loop, one deal of 8 cards, through
the state ``new_match`` gives: Whist's kernel state) as a ratio; then the Python state behind
it alone, and the same loop over a Python state whose calls do no work: what the rules may
cost an action, above Python's own calls, for levata to match OpenSpiel.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from levata.engine import GameState, all_games, game
from levata.engine.testing import new_random_match, random_steps


def play_time(name: str, matches: int) -> tuple[float, int]:
    """CPU seconds and actions for ``matches`` seeded random matches of ``name``."""
    spec = game(name)
    actions = 0
    start = time.process_time()
    for i in range(matches):
        state, _ = new_random_match(spec, i, 700 + i)
        for _ in random_steps(state, random.Random(i)):
            actions += 1
    return time.process_time() - start, actions


def view_time(name: str, repeat: int) -> float:
    """CPU seconds per ``view(seat, history=False)``, over positions of three random matches."""
    spec = game(name)
    states: list[GameState] = []
    for i in range(3):
        state, _ = new_random_match(spec, i, 50 + i)
        for k, _ in enumerate(random_steps(state, random.Random(i))):
            if k % 9 == 0:
                states.append(state.clone())
            if len(states) > 60 * (i + 1):
                break
    best = float("inf")
    for _ in range(repeat):
        n, start = 0, time.process_time()
        for state in states:
            for seat in range(state.players):
                state.view(seat, history=False)
                n += 1
        best = min(best, (time.process_time() - start) / max(n, 1))
    return best


def whist_loop(playouts: int, seed: int = 1, kernel: bool = True) -> float:
    """levata's actions per CPU second on 4-player Whist, one deal of 8 cards: random
    playouts from a dealt position through ``clone``, ``legal_actions`` and ``apply``, as a
    search plays them. ``kernel=False`` times the Python state behind the kernel state that
    ``new_match`` gives (``levata.engine.whist_table``)."""
    start = game("whist").new_match(players=4, options={"deal_size": 8}, seed=seed, kernel=kernel)
    return _random_playouts(start, playouts, seed)


def _random_playouts(start: Any, playouts: int, seed: int) -> float:
    """Actions per CPU second of random playouts from ``start``: the one loop both the game
    and :class:`_Idle` are timed in."""
    rng = random.Random(seed)
    actions, began = 0, time.process_time()
    for _ in range(playouts):
        state = start.clone()
        while not state.is_over():
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            actions += 1
    return actions / (time.process_time() - began)


class _Idle:
    """A state whose calls do no work (a counter, precomputed lists): the loop's own cost."""

    __slots__ = ("legal", "n", "seats")

    def __init__(self) -> None:
        self.n, self.legal, self.seats = 0, list(range(8)), (0,)

    def clone(self) -> _Idle:
        other = _Idle.__new__(_Idle)
        other.n, other.legal, other.seats = self.n, self.legal, self.seats
        return other

    def is_over(self) -> bool:
        return self.n >= 36  # a 4x8 deal's bids and cards

    def to_act(self) -> tuple[int, ...]:
        return self.seats

    def legal_actions(self, seat: int) -> list[int]:
        return self.legal

    def apply(self, seat: int, action: int) -> None:
        self.n += 1


def ceiling_loop(playouts: int, seed: int = 1) -> float:
    """Actions per CPU second of :func:`whist_loop`'s loop over :class:`_Idle`: what any
    contract implemented in Python methods costs before its rules do anything."""
    return _random_playouts(_Idle(), playouts, seed)


def openspiel_loop(playouts: int, seed: int = 1) -> float:
    """OpenSpiel's actions per CPU second, the same loop on ``oh_hell`` 4x8 through its
    Python API (from the first bid, after the chance nodes of the deal: players' actions)."""
    import pyspiel  # type: ignore[import-not-found]

    rng = random.Random(seed)
    start = pyspiel.load_game("oh_hell(players=4,num_tricks_fixed=8)").new_initial_state()
    while start.is_chance_node():
        start.apply_action(rng.choice(start.chance_outcomes())[0])
    actions, began = 0, time.process_time()
    for _ in range(playouts):
        state = start.clone()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    return actions / (time.process_time() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="games to time (default: every registered)")
    parser.add_argument("--matches", type=int, default=20, help="random matches a run")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is kept")
    parser.add_argument("--against-openspiel", action="store_true", help="see the module")
    args = parser.parse_args(argv)
    names = args.games or [s.name for s in all_games()]
    unknown = [n for n in names if n not in {s.name for s in all_games()}]
    if unknown:
        print(f"error: unknown game(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    print(
        f"{'game':18} {'matches':>7} {'actions':>8} {'CPU s':>8} {'actions/s':>10} {'view us':>8}"
    )
    for name in names:
        runs: list[tuple[float, int]] = [play_time(name, args.matches) for _ in range(args.repeat)]
        seconds, actions = min(runs)
        view = view_time(name, args.repeat)
        print(
            f"{name:18} {args.matches:7d} {actions:8d} {seconds:8.3f}"
            f" {actions / seconds:10.0f} {view * 1e6:8.1f}"
        )
    if args.against_openspiel:
        try:
            theirs = max(openspiel_loop(2000) for _ in range(args.repeat))
        except ImportError:
            print("error: OpenSpiel is not installed (pip install open_spiel)", file=sys.stderr)
            return 2
        ours = max(whist_loop(2000) for _ in range(args.repeat))
        python = max(whist_loop(200, kernel=False) for _ in range(args.repeat))
        idle = max(ceiling_loop(5000) for _ in range(args.repeat))
        print(
            f"\nrandom playouts, actions per CPU second: levata whist 4x8 {ours:,.0f},"
            f" OpenSpiel oh_hell 4x8 (Python API) {theirs:,.0f}: ratio {ours / theirs:.2f}"
            f"\n(the Python state alone, new_match(kernel=False): {python:,.0f},"
            f" {python / theirs:.2f}x OpenSpiel's; the kernel state {ours / python:.1f}x it)"
        )
        print(
            f"the same loop over a Python state whose calls do nothing: {idle:,.0f}"
            f" ({idle / theirs:.2f}x OpenSpiel's): at OpenSpiel's speed the rules may cost"
            f" {max(1 / theirs - 1 / idle, 0) * 1e6:.2f} us an action, they cost"
            f" {max(1 / ours - 1 / idle, 0) * 1e6:.2f} us"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
