"""The generic search bots on Banking: pimc (through ``search_goal`` and ``rate_calls``) and
ismcts (through ``from_view``) finish whole sessions within their budget, and a small
duplicate comparison against the heuristic."""

from __future__ import annotations

import random
import statistics
import time

import pytest

from levata.bots.base import make_bot
from levata.bots.strategy import strategy_for
from levata.engine import Action, game
from levata.engine.solver import Solver

SPEC = game("banking")
STRATEGY = strategy_for(SPEC)  # what the search knows of the game, named by its spec
BUDGET_MS = 60


def _session(players: int, seed: int, kinds: list[str], **opts):
    state = SPEC.new_match(players=players, options={"session": 3, **opts}, seed=seed)
    bots = [
        make_bot(
            k, "banking", seed=seed * 7 + s, **({"time_ms": BUDGET_MS} if k != "heuristic" else {})
        )
        for s, k in enumerate(kinds)
    ]
    slowest = 0.0
    while not state.is_over():
        seat = state.to_act()[0]
        view, legal = state.view(seat), state.legal_actions(seat)
        t = time.thread_time()  # CPU of this thread: robust to a loaded machine
        action = bots[seat].act(view, legal)
        if kinds[seat] != "heuristic":
            slowest = max(slowest, time.thread_time() - t)
        state.apply(seat, action)
    return state, slowest


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
@pytest.mark.parametrize("players", [3, 4])
def test_search_bots_finish_whole_sessions_within_their_budget(kind, players):
    for seed in range(2):
        kinds = [kind] + ["heuristic"] * (players - 1)
        state, slowest = _session(players, seed, kinds, dealer=players - 1)  # seat 0 is K
        res = state.result()
        assert res.reason == "complete" and sum(res.scores) == 0
        # The budget, plus one world or iteration that may finish past it, plus the view.
        assert slowest < 4 * BUDGET_MS / 1000 + 0.25


def test_pimc_rates_trump_and_gunoi_and_leaves_the_rest():
    state = SPEC.new_match(players=4, options={"dealer": 3}, seed=2)
    while state.phase != "trump":
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])
    world = state.sample_world(0, random.Random(1))
    solver = Solver(world.rules)
    calls = world.legal_actions(0)
    rated = STRATEGY.rate_calls(world, 0, calls, solver)
    assert set(rated) == set(calls) and all(0 <= v <= 12 for v in rated.values())
    assert STRATEGY.rate_calls(world, 0, [Action("keep")], solver) == {}
    assert STRATEGY.rate_calls(world, 1, calls, solver) == {}  # only the Declarant names trump


def test_a_small_duplicate_comparison_with_the_heuristic():
    """The same session (one seed) with pimc in each seat in turn and the heuristic in the
    others, against the heuristic everywhere: the deals are the same in every seating, and
    pimc is not worse than the heuristic by more than a trick a session."""
    gain = []
    for seed in range(3):
        base, _ = _session(4, 40 + seed, ["heuristic"] * 4)
        for seat in range(4):
            kinds = ["heuristic"] * 4
            kinds[seat] = "pimc"
            state, _ = _session(4, 40 + seed, kinds)
            first = [e for e in state.events() if e.kind == "hand"][:4]
            assert first == [e for e in base.events() if e.kind == "hand"][:4]  # one board
            gain.append(state.result().scores[seat] - base.result().scores[seat])
    assert statistics.mean(gain) > -1.0
