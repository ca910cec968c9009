"""Filcău's bots: the heuristic binds and frises from its hand's strength and plays for the
points; the search hooks rate calls by modelled deals; pimc plays a deal within its budget."""

from __future__ import annotations

import random
import time

from levata.bots.base import make_bot
from levata.bots.heuristic.filcau import HeuristicBot
from levata.bots.strategy import filcau as strat
from levata.bots.strategy import strategy_for
from levata.engine import Action, Card, game, parse_cards
from levata.engine.games.filcau import FilcauState
from levata.engine.games.filcau.rules import EGAL

SPEC = game("filcau")
STRATEGY = strategy_for(SPEC)


def dealt(hands: dict[int, str], dealer: int = 3) -> FilcauState:
    order: list[Card] = []
    for k in range(4):
        order += parse_cards(hands[(dealer + 1 + k) % 4])
    state = SPEC.new_match(players=4, options={"dealer": dealer}, seed=5, deal=order)
    assert isinstance(state, FilcauState)
    return state


#: Seat 0 holds four hearts with two filcăi; seat 2 (its partner) could challenge in ♦.
DEAL = {0: "QS QC AH KH JC", 1: "10C JD AS JH QH", 2: "AD 10D 10S QD KD", 3: "AC 10H KC KS JS"}


def test_wants_bind_and_fris_read_the_strength():
    assert strat.wants_bind(parse_cards("QS QC AH KH JC"), parse_cards("AH")[0].suit)
    weak = parse_cards("QD KH JH KS 10C")
    assert not strat.wants_bind(weak, weak[1].suit)  # trei J with the lowest filcău
    assert strat.wants_fris(parse_cards("QS QC 10D")) == Card.parse("QS")
    assert strat.wants_fris(parse_cards("QD KH JH")) is None


def test_heuristic_binds_its_four_and_never_over_its_partner():
    state = dealt(DEAL)
    state.apply(2, Action("knock"))
    bot = HeuristicBot()
    assert bot.act(state.view(0), state.legal_actions(0)) == Action("bind", choice="H")
    state.apply(0, Action("bind", choice="H"))
    state.apply(1, Action("pass"))
    assert Action("bind", choice="D") in state.legal_actions(2)
    assert bot.act(state.view(2), state.legal_actions(2)) == Action("pass")


def test_heuristic_throws_cheaply_and_takes_last_with_the_cheapest_winner():
    state = dealt(DEAL)
    for seat, text in ((2, "knock"), (0, "bind H"), (1, "pass"), (2, "pass"), (3, "pass")):
        state.apply(seat, Action.parse(text))
    for seat, text in ((0, "trump H"), (0, "play QS"), (1, "play JH"), (2, "play QD")):
        state.apply(seat, Action.parse(text))
    state.apply(3, Action.parse("play 10H"))
    state.apply(0, Action.parse("play JC"))  # trick 2: a plain lead
    state.apply(1, Action.parse("play 10C"))
    bot = HeuristicBot()
    assert bot.act(state.view(2), state.legal_actions(2)) == Action.parse("play KD")
    state.apply(2, Action.parse("play KD"))
    assert bot.act(state.view(3), state.legal_actions(3)) == Action.parse("play AC")


def test_the_strategy_rates_a_strong_binding_above_passing():
    state = dealt(DEAL)
    state.apply(2, Action("knock"))
    rated = STRATEGY.rate_calls(state, 0, state.legal_actions(0), None)
    assert rated[Action("bind", choice="H")] > rated[Action("pass")]


def test_outcome_follows_the_rules_score():
    assert strat.outcome([5, 3], [3, 2], 0, 0, [EGAL, EGAL]) == 0  # nothing moves
    # back to equal: no point either way, and half the status lost
    assert strat.outcome([2, 6], [2, 3], 0, 0, ["sef", "sluga"]) == -0.5


def test_pimc_plays_a_deal_within_its_budget():
    state = SPEC.new_match(players=4, options={"deal": 1}, seed=7)
    bots = [make_bot("pimc", "filcau", seed=s, worlds=12, time_ms=80) for s in range(2)]
    bots += [HeuristicBot(), HeuristicBot()]
    seats = [bots[0], bots[2], bots[1], bots[3]]  # pimc at 0 and 2
    slowest = 0.0
    rng = random.Random(1)
    while not state.is_over():
        seat = rng.choice(state.to_act())
        legal = state.legal_actions(seat)
        start = time.perf_counter()
        action = seats[seat].act(state.view(seat), legal)
        slowest = max(slowest, time.perf_counter() - start)
        assert action in legal
        state.apply(seat, action)
    assert slowest < 2.0  # a loaded machine's margin over 80 ms


def test_trick_1_after_a_fris_is_rated_by_its_own_rules():
    state = dealt(
        {0: "10H JH KD AD 10D", 1: "QC 10C JD KC AC", 2: "QH KS JS AS 10S", 3: "QS AH KH QD JC"}
    )
    for seat, text in ((2, "cut"), (0, "pass"), (1, "pass"), (2, "fris QH")):
        state.apply(seat, Action.parse(text))
    rated = STRATEGY.rate_cards(state, 3)
    assert sorted(rated) == sorted(c.index for c in state.playable(3))
    assert all(0 <= v <= 8 for v in rated.values())
    state.apply(3, Action.parse("play QS"))
    state.apply(0, Action.parse("play 10H"))
    state.apply(1, Action.parse("play AC"))
    assert STRATEGY.rate_cards(state, 3) == {}  # trick 2: the solver's rules are right
