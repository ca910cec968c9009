"""Tarneeb's bots: the heuristic's bids, trump and play; the search hooks (bids, pass and
trump rated by playouts); pimc finishes a deal within its budget; the heuristic beats random."""

from __future__ import annotations

import random
import time

import pytest

from levata.bots.base import make_bot
from levata.bots.heuristic import tarneeb as heur
from levata.bots.strategy import strategy_for
from levata.bots.strategy import tarneeb as search
from levata.engine import Action, game, parse_cards
from levata.engine.cards import french_deck
from levata.engine.solver import Solver

SPEC = game("tarneeb")
STRATEGY = strategy_for(SPEC)  # what the search knows of the game, named by its spec
BUDGET_MS = 60


def dealt(hands: dict[int, str], shuffler: int = 0, seed: int = 3):
    """A match whose first deal gives ``hands`` (13 cards each named; the rest filled)."""
    held = {s: parse_cards(h) for s, h in hands.items()}
    rest = [c for c in french_deck() if all(c not in h for h in held.values())]
    for s in range(4):
        while len(held.setdefault(s, [])) < 13:
            held[s].append(rest.pop(0))
    first = (shuffler + 1) % 4
    order = [held[(first + i) % 4][i // 4] for i in range(52)]
    return SPEC.new_match(players=4, options={"shuffler": shuffler}, seed=seed, deal=order)


STRONG = "AS KS QS JS 10S 9S AH KH QH AD KD 2C 3C"  # 7 spades, 26 points
WEAK = "2S 3S 4H 5H 6H 7D 8D 9D 2C 3C 4C 5C 6C"


def test_heuristic_bids_its_strength_and_passes_weakness():
    state = dealt({1: STRONG})
    bid = heur.HeuristicBot().act(state.view(1), state.legal_actions(1))
    assert bid.kind == "bid" and 7 <= bid.number <= heur.estimate(state.hands[1])
    weak = dealt({1: WEAK})
    assert heur.HeuristicBot().act(weak.view(1), weak.legal_actions(1)) == Action("pass")


def test_a_partners_bid_raises_the_estimate():
    hand = parse_cards("AS KS 5S 4S 3S AH 2H 3D 4D 5D 2C 3C 4C")
    assert heur.estimate(hand) < 7 <= heur.estimate(hand, 9)  # alone it would pass


def test_heuristic_names_its_longest_suit_or_nt():
    assert heur.strain_for(parse_cards(STRONG)) == "S"
    assert heur.strain_for(parse_cards("AS KS 2S AH KH 3H AD 4D 5D 6D KC 7C 8C")) == "NT"


def test_heuristic_plays_low_under_its_partner_and_wins_cheaply_otherwise():
    bot = heur.HeuristicBot()
    state = dealt({0: "AH 2H 9H " + WEAK.split(" ", 3)[-1], 2: "KH"}, shuffler=3)
    state.apply(0, Action("bid", number=7))
    for s in (1, 2, 3):
        state.apply(s, Action("pass"))
    state.apply(0, Action("trump", choice="S"))
    lead = bot.act(state.view(0), state.legal_actions(0))
    assert lead.kind == "play"
    state.apply(0, lead)
    seat = state.to_act()[0]
    pick = bot.act(state.view(seat), state.legal_actions(seat))
    assert pick in state.legal_actions(seat)


def test_rate_calls_bids_and_pass_by_score_difference():
    state = dealt({1: STRONG})
    world = state.sample_world(1, random.Random(1))
    calls = world.legal_actions(1)
    rated = STRATEGY.rate_calls(world, 1, calls, Solver(world.rules))
    assert set(rated) == set(calls)
    seed = world.seed & 0xFFFFFFFF
    best = max(search.strain_tricks(world, 1, seed).values(), key=sum)
    for a in calls:
        if a.kind == "bid":
            want = sum(search.diff(a.number, m, 1, world.idle) for m in best) / len(best)
            assert rated[a] == pytest.approx(want)
    assert rated[Action("bid", number=7)] > rated[Action("pass")]
    assert rated[Action("bid", number=7)] > rated[Action("bid", number=13)]


def test_rate_calls_names_the_strain_with_most_tricks():
    state = dealt({1: "AS KS QS 9S 8S 7S 6S 5S 4H 3H 2H 2D 3D"})  # no clubs: ruff them
    state.apply(1, Action("bid", number=9))
    for s in (2, 3, 0):
        state.apply(s, Action("pass"))
    world = state.sample_world(1, random.Random(2))
    rated = STRATEGY.rate_calls(world, 1, world.legal_actions(1), Solver(world.rules))
    assert len(rated) == 5 and max(rated, key=rated.__getitem__) == Action("trump", choice="S")
    assert STRATEGY.rate_calls(world, 1, [], Solver(world.rules)) == {}


def test_pimc_finishes_a_deal_within_its_budget():
    state = SPEC.new_match(players=4, options={"deal": 1}, seed=4)
    kinds = ["pimc", "heuristic", "pimc", "heuristic"]
    bots = [
        make_bot(k, SPEC.name, seed=s, **({"time_ms": BUDGET_MS} if k == "pimc" else {}))
        for s, k in enumerate(kinds)
    ]
    slowest = 0.0
    while not state.is_over():
        seat = state.to_act()[0]
        t = time.thread_time()  # CPU of this thread: robust to a loaded machine
        action = bots[seat].act(state.view(seat), state.legal_actions(seat))
        if kinds[seat] == "pimc":
            slowest = max(slowest, time.thread_time() - t)
        state.apply(seat, action)
    assert len(state.result().deals) == 1
    assert slowest < 4 * BUDGET_MS / 1000 + 0.25


def test_the_heuristic_beats_random_on_duplicate_deals():
    margin = 0.0
    for seed in range(20):
        for heuristic_team in (0, 1):
            state = SPEC.new_match(players=4, options={"deal": 1}, seed=seed)
            bots = [
                make_bot("heuristic" if s % 2 == heuristic_team else "random", SPEC.name, seed=s)
                for s in range(4)
            ]
            while not state.is_over():
                seat = state.to_act()[0]
                state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
            scores = state.result().scores
            margin += scores[heuristic_team] - scores[1 - heuristic_team]
    assert margin / 40 > 2
