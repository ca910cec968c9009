"""The generic search bots on 3-5-8: pimc (through ``search_goal`` and ``rate_calls``) and
ismcts (through ``from_view``) finish one-deal matches within their budget; the contract, Pas
and kitty ratings; the average results the contract choice is measured against."""

from __future__ import annotations

import random
import time

import pytest
from three_five_eight_positions import SPEC, act, new

from levata.bots.base import make_bot
from levata.bots.strategy import strategy_for
from levata.bots.strategy import three_five_eight as search
from levata.engine import Action
from levata.engine.solver import Solver

STRATEGY = strategy_for(SPEC)  # what the search knows of the game, named by its spec
BUDGET_MS = 60


def _deal(seed: int, kinds: list[str], **opts):
    state = SPEC.new_match(players=3, options={"deal": 4, "first": 0, **opts}, seed=seed)
    bots = [
        make_bot(
            k, SPEC.name, seed=seed * 7 + s, **({"time_ms": BUDGET_MS} if k != "heuristic" else {})
        )
        for s, k in enumerate(kinds)
    ]
    slowest = 0.0
    while not state.is_over():
        seat = state.to_act()[0]
        view, legal = state.view(seat), state.legal_actions(seat)
        # CPU time of this thread: what the bot spent, not what other processes on a shared
        # machine took from it (the bot stops by the wall clock, which is never less).
        t = time.thread_time()
        action = bots[seat].act(view, legal)
        if kinds[seat] != "heuristic":
            slowest = max(slowest, time.thread_time() - t)
        state.apply(seat, action)
    return state, slowest


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
def test_search_bots_finish_a_deal_within_their_budget(kind):
    for seed in range(2):
        # deal 4 from first 0: seat 0 plays for 8 with credits from a made-up deal before.
        state, slowest = _deal(seed, [kind, "heuristic", "heuristic"], previous="2,-1,-1")
        res = state.result()
        assert sum(res.scores) == 0 and len(res.deals) == 1
        # The budget, plus one world or iteration that may finish past it, plus the view.
        assert slowest < 4 * BUDGET_MS / 1000 + 0.25


def test_pimc_rates_contracts_pas_and_the_kitty_and_leaves_the_draws():
    state = new(eight=0, previous="2,-1,-1")
    world = state.sample_world(0, random.Random(1))
    solver = Solver(world.rules)
    calls = world.legal_actions(0)
    rated = STRATEGY.rate_calls(world, 0, calls, solver)
    assert set(rated) == set(calls) and rated[Action("pas")] == search.PAS_VALUE
    for a in calls:
        if a.kind == "contract":
            raw = search.contract_tricks(
                world.hands,
                world.kitty,
                0,
                a.choice,
                world.credit,
                world.debt,
                world.seed & 0xFFFFFFFF,
            )
            assert rated[a] == pytest.approx(raw - 8 - search.typical(a.choice))
    assert STRATEGY.rate_calls(world, 1, calls, solver) == {}  # only the 8-seat announces
    act(state, "contract H")
    world = state.sample_world(0, random.Random(2))
    kitty = world.legal_actions(0)
    rated = STRATEGY.rate_calls(world, 0, kitty, solver)
    assert set(rated) == set(kitty) and all(0 <= v <= 16 for v in rated.values())
    while state.phase == "kitty":
        act(state, "keep")
    assert state.phase == "draw"
    world = state.sample_world(0, random.Random(3))
    assert STRATEGY.rate_calls(world, 0, world.legal_actions(0), solver) == {}


def test_long_trumps_are_rated_above_their_average_and_a_hand_strong_anywhere_saves_them():
    def ratings(hand: str) -> dict[Action, float]:
        state = new(eight=0, hands={0: hand})
        world = state.sample_world(0, random.Random(4))
        return STRATEGY.rate_calls(world, 0, world.legal_actions(0), Solver(world.rules))

    rated = ratings("AS KS QS JS 10S 9S 8S 7S 2H 3H 4H 2D 3D 4D 2C 3C")
    best = max(rated, key=rated.__getitem__)
    assert best == Action("contract", choice="S") and rated[best] > 2
    assert rated[Action("contract", choice="NT")] < rated[best] - 2  # no-trump: they run
    # Top cards everywhere take as many tricks at no-trump as with spades: the contract
    # whose average is lower is the one to use up now (spades stay for a weaker hand).
    rated = ratings("AS KS QS JS 10S 9S 8S 7S AH KH AD KD AC KC 2H 2D")
    assert max(rated, key=rated.__getitem__) == Action("contract", choice="NT")


def test_the_averages_are_what_typical_results_measures():
    assert search.typical_results(4000, seed=1) == search.TYPICAL
