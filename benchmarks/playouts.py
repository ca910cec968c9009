"""Random-playout speed of every registered game through the Python API.

    python benchmarks/playouts.py [--seconds 3] [--players N]

For each game: whole matches of uniformly random legal actions, counted for about
``--seconds`` of wall time; prints matches/s and actions/s as a table. Every match starts
from its own seed, so two runs play the same matches.
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.table import Table

from levata.engine import all_games

DEFAULT_PLAYERS = {"whist": 4, "macao": 4, "repezita": 4}


def bench(spec, players: int, seconds: float) -> tuple[int, int, float]:
    """Play random matches for ``seconds``; returns (matches, actions, elapsed)."""
    matches = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = spec.new_match(players=players, seed=matches)
        rng = random.Random(matches)
        step = 0
        while not state.is_over():
            if state.realtime:
                state.advance_clock(step * 100)
                if state.is_over():
                    break
            seats = state.to_act()
            seat = seats[step % len(seats)]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            step += 1
        matches += 1
        actions += step
    return matches, actions, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game (default 3)")
    parser.add_argument("--players", type=int, help="players per match (default per game)")
    args = parser.parse_args()
    table = Table(title=f"random playouts, Python API, ~{args.seconds:g} s per game")
    for col in ("game", "players", "matches", "matches/s", "actions/match", "actions/s"):
        table.add_column(col, justify="right")
    for spec in all_games():
        players = args.players or DEFAULT_PLAYERS.get(spec.name, spec.players[0])
        matches, actions, elapsed = bench(spec, players, args.seconds)
        table.add_row(
            spec.name,
            str(players),
            str(matches),
            f"{matches / elapsed:,.1f}",
            f"{actions / matches:,.0f}",
            f"{actions / elapsed:,.0f}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
