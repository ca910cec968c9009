"""8-5-3's bots: the heuristic's requests, trump, discards and play; pimc and ismcts finish
single deals within their budget through the game's search hooks; the hooks themselves."""

from __future__ import annotations

import random
import time

import pytest
from eight_five_three_positions import SPEC, act, new, to_phase

from levata.bots.base import make_bot
from levata.bots.heuristic.eight_five_three import HeuristicBot
from levata.bots.strategy import strategy_for
from levata.engine import Action, Card, Suit
from levata.engine.solver import Solver

STRATEGY = strategy_for(SPEC)  # what the search knows of the game, named by its spec
BUDGET_MS = 60


def _decide(state, bot=None) -> Action:
    seat = state.to_act()[0]
    return (bot or HeuristicBot()).act(state.view(seat), state.legal_actions(seat))


def test_the_heuristic_asks_with_a_low_card_where_the_target_holds_high_ones():
    # Seat 0 holds every spade, heart and club but a few: the diamonds lie out, and its
    # lowest diamond is the offer most likely to draw a high card.
    mine = "2D AS KS QS JS 10S 9S 8S AH KH QH JH AC KC QC JC"
    state = new(previous="1,-1,0", hands={0: mine})
    ask = _decide(state)
    assert ask.kind == "ask" and ask.number == 1
    act(state, "ask 1")
    assert _decide(state) == Action("offer", card=Card.parse("2D"))


def test_the_heuristic_keeps_figures_back_and_reads_the_targets_answers():
    # Seat 1 has no diamond above the 4: the 4D comes back. The next offer avoids diamonds.
    state = new(
        previous="2,-2,0",
        hands={0: "4D 3H", 1: "2D"},
        avoid={1: lambda c: c.suit == Suit.DIAMONDS},
    )
    act(state, "ask 1")
    act(state, "offer 4D")
    assert state.events()[-1].data["swap"] is False
    act(state, "ask 1")
    offer = _decide(state)
    assert offer.card is not None and offer.card.suit != Suit.DIAMONDS
    assert offer.card.rank not in (11, 12, 13, 14)


def test_the_heuristic_stops_when_no_offer_can_gain():
    # Every card of seat 0 is the top of its suit: nothing in any hand is higher.
    top = "AS KS QS JS AH KH QH JH AC KC QC JC AD KD QD JD"
    state = new(previous="1,-1,0", hands={0: top})
    assert _decide(state) == Action("stop")


def test_the_heuristic_names_its_longest_strongest_suit_and_discards_losers():
    state = new(hands={0: "AH KH QH JH 10H 9H 8H 7H 2C 3C 4D 5D 2S 3S 7S 8S"}, kitty="6D 4S 5S 6S")
    to_phase(state, "trump")
    assert _decide(state) == Action("trump", choice="H")
    act(state, "trump H")
    first = _decide(state)
    assert first.kind == "discard" and first.card is not None
    assert first.card.suit != Suit.HEARTS and first.card.rank < 14


def test_the_heuristic_plays_to_win_even_past_its_quota():
    state = new(hands={1: "AS 2S"}, kitty="", match_deals=1)
    to_phase(state, "play", trump="H")
    state.tricks = [0, 9, 0]  # far past its quota of 5: every trick is still a point
    state.hands[0] = [c for c in state.hands[0] if c.suit != Suit.SPADES] + [Card.parse("KS")]
    state.leader, state.trick = 0, [Card.parse("KS")]  # seat 0 led the king
    state.hands[0].remove(Card.parse("KS"))
    seat = state.to_act()[0]
    assert seat == 1
    assert HeuristicBot().act(state.view(1), state.legal_actions(1)).card == Card.parse("AS")


def test_rate_calls_rates_the_trump_and_each_discard_for_f_alone():
    state = SPEC.new_match(players=4, options={"shuffler": 3}, seed=2)
    assert state.phase == "trump"
    world = state.sample_world(0, random.Random(1))
    solver = Solver(world.rules)
    calls = world.legal_actions(0)
    rated = STRATEGY.rate_calls(world, 0, calls, solver)
    assert set(rated) == set(calls) and all(0 <= v <= 12 for v in rated.values())
    assert STRATEGY.rate_calls(world, 1, calls, solver) == {}  # only F names trump
    act(state, "trump S")
    world = state.sample_world(0, random.Random(2))
    discards = world.legal_actions(0)
    assert set(STRATEGY.rate_calls(world, 0, discards, solver)) == set(discards)
    asks = new(previous="1,-1,0")
    w = asks.sample_world(0, random.Random(3))
    assert STRATEGY.rate_calls(w, 0, w.legal_actions(0), Solver(w.rules)) == {}  # heuristic's


def _deal(players: int, seed: int, kinds: list[str]):
    state = SPEC.new_match(players=players, options={"deal": 3, "shuffler": 2}, seed=seed)
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
        t = time.thread_time()  # CPU of this thread: robust to a loaded machine
        action = bots[seat].act(view, legal)
        if kinds[seat] != "heuristic":
            slowest = max(slowest, time.thread_time() - t)
        state.apply(seat, action)
    return state, slowest


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
@pytest.mark.parametrize("players", [3, 4])
def test_search_bots_finish_single_deals_within_their_budget(kind, players):
    kinds = ["heuristic"] * players
    kinds[(2 + 1) % players] = kind  # F: it names trump and discards
    state, slowest = _deal(players, 1, kinds)
    res = state.result()
    assert res.reason == "complete" and sum(res.scores) == 0
    # The budget, plus one world or iteration that may finish past it, plus the view.
    assert slowest < 4 * BUDGET_MS / 1000 + 0.25


def test_the_heuristic_and_pimc_play_whole_matches():
    state = SPEC.new_match(players=3, options={"match_deals": 2}, seed=5)
    bots = [
        make_bot("heuristic", SPEC.name, seed=1),
        make_bot("pimc", SPEC.name, seed=2, time_ms=20),
    ]
    bots.append(make_bot("random", SPEC.name, seed=3))
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    assert len(state.result().deals) == 2
