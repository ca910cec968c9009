"""Tarneeb: every test scenario of the rules' section 6, the forced bid, the options, the
duplicate unit, visibility, conformance and worlds."""

from __future__ import annotations

import random

import pytest

from levata.bots.strategy import strategy_for
from levata.engine import Action, BadConfig, IllegalAction, Suit, game, parse_cards
from levata.engine.card_orders import trick_rules
from levata.engine.family.tricks import duty_cards, trick_taker
from levata.engine.games.tarneeb import TarneebState
from levata.engine.testing import check_game, check_worlds_from_view, play_checked

SPEC = game("tarneeb")


def new(shuffler: int = 0, seed: int = 11, **options) -> TarneebState:
    state = SPEC.new_match(players=4, options={"shuffler": shuffler, **options}, seed=seed)
    assert isinstance(state, TarneebState)
    return state


def act(state: TarneebState, text: str) -> None:
    state.apply(state.to_act()[0], Action.parse(text))


def to_play(state: TarneebState, bidder_calls: str = "bid 7,pass,pass,pass", trump="S"):
    for call in bidder_calls.split(","):
        act(state, call)
    act(state, f"trump {trump}")
    assert state.phase == "play"


def finish_deal(state: TarneebState, declarer_tricks: int) -> None:
    """Score the deal in progress as if the declaring team took ``declarer_tricks``."""
    team = state.declaring_team
    state.tricks = [0] * 4
    state.tricks[state.declarer] = declarer_tricks
    state.tricks[(state.declarer + 1) % 4] = 13 - declarer_tricks
    assert state.team_tricks(team) == declarer_tricks
    state._score_deal()


def score(state: TarneebState) -> dict:
    return [e for e in state.events() if e.kind == "score"][-1].data


# -- the 11 scenarios -----------------------------------------------------------------------


def test_scenario_1_auction():
    state = new(shuffler=0)  # F = 1
    asked = []
    for call in ("bid 7", "bid 8", "pass", "pass", "bid 9", "pass"):
        asked.append(state.to_act()[0])
        act(state, call)
    assert asked == [1, 2, 3, 0, 1, 2]  # seat 3 passed and is never asked again
    assert (state.phase, state.declarer, state.high) == ("trump", 1, 9)
    assert state.to_act() == (1,)


def test_scenario_2_minimum():
    state = new()
    act(state, "bid 8")
    with pytest.raises(IllegalAction):
        act(state, "bid 8")
    with pytest.raises(IllegalAction):
        act(state, "bid 6")
    assert min(a.number for a in state.legal_actions(2) if a.kind == "bid") == 9
    fresh = new()
    assert Action("bid", number=6) not in fresh.legal_actions(1)
    assert min(a.number for a in fresh.legal_actions(1) if a.kind == "bid") == 7


def test_scenario_3_forced():
    state = new(shuffler=0)
    for _ in range(3):
        act(state, "pass")
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == [Action("bid", number=7)]
    with pytest.raises(IllegalAction):
        act(state, "pass")
    act(state, "bid 7")
    assert (state.phase, state.declarer, state.high) == ("trump", 0, 7)


def test_bid_13_ends_the_auction_at_once():
    state = new(shuffler=0)
    act(state, "bid 7")
    act(state, "bid 13")
    assert (state.phase, state.declarer, state.high) == ("trump", 2, 13)
    act(state, "trump NT")
    assert state.to_act() == (2,) and state.leader == 2  # the declarer leads


def test_scenario_4_scoring_made():
    state = new(shuffler=0)
    to_play(state, "bid 8,pass,pass,pass")  # seat 1 declares 8
    finish_deal(state, 9)
    assert score(state)["points"] == [4, 14]
    assert state.scores == [4, 14]


def test_scenario_5_scoring_failed():
    state = new(shuffler=0)
    to_play(state, "bid 8,pass,pass,pass")
    finish_deal(state, 7)
    assert score(state)["points"] == [11, -8]


def test_scenario_6_idle_penalty_twice():
    state = new(shuffler=3)  # F = 0: seat 0 (team {0,2}) declares every deal
    penalties = []
    for _ in range(6):
        # Seat 0 bids 7 when its turn comes, the others pass (seat 0 bids before the third
        # pass, so the forced bid never applies): team {1,3} is never the declarer.
        while state.phase == "bid":
            act(state, "bid 7" if state.to_act()[0] == 0 else "pass")
        act(state, "trump S")
        finish_deal(state, 7)
        penalties.append(score(state)["penalties"])
    assert penalties == [[0, 0], [0, 0], [0, -10], [0, 0], [0, 0], [0, -10]]
    assert state.scores == [6 * 12, 6 * 6 - 20]


def test_scenario_7_follow_else_any_card():
    state = new()
    state.set_trump(Suit.SPADES)
    hand = parse_cards("AS 3C 9H")
    assert duty_cards(state.rules, hand, parse_cards("KD")) == hand  # no duty to trump
    assert duty_cards(state.rules, parse_cards("2D AS"), parse_cards("KD")) == parse_cards("2D")


def test_scenario_8_no_trump():
    state = new()
    state.set_trump(None)
    plays = list(zip((0, 1, 2, 3), parse_cards("2H AS KS QS"), strict=True))
    assert trick_taker(state.rules, plays) == 0  # a spade on a heart lead never wins
    state.set_trump(Suit.SPADES)
    assert trick_taker(state.rules, plays) == 1


@pytest.mark.parametrize(
    "rotation, shufflers", [("seed", [0, 3, 2, 1]), ("clockwise", [0, 1, 2, 3])]
)
def test_scenario_9_rotation(rotation, shufflers):
    state = new(shuffler=0, rotation=rotation)
    seen = []
    for _ in range(4):
        seen.append((state.shuffler, state.first))
        to_play(state)
        finish_deal(state, 7)
    assert seen == [(s, (s + 1) % 4) for s in shufflers]


def test_scenario_10_end_and_play_on():
    state = new(shuffler=3)  # F = 0
    state.scores = [96, 90]
    to_play(state)  # seat 0 bids 7, the others pass
    finish_deal(state, 7)
    assert state.scores == [108, 96] and state.is_over()
    res = state.result()
    assert res.winners == (0, 2) and res.ranks == (1, 2, 1, 2) and res.reason == "complete"
    assert res.scores == (108.0, 96.0, 108.0, 96.0)
    tie = new(shuffler=3)
    tie.scores = [92, 98]
    to_play(tie)
    finish_deal(tie, 7)  # +12 / +6: 104 / 104
    assert tie.scores == [104, 104] and not tie.is_over() and tie.phase == "bid"


def test_scenario_11_no_leak_between_partners():
    for seed in range(3):
        rng = random.Random(seed)
        state = new(seed=seed, max_deals=2)
        while not state.is_over():
            view = state.view(0)
            start = max(e.seq for e in view.history if e.kind == "deal")
            named = set(view.hand) | {c for cs in view.zones.values() for c in cs}
            named |= {c for e in view.history if e.seq >= start for c in e.cards}
            assert not set(state.hands[2]) & named  # what it holds, never shown to seat 0
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))


# -- the match, the options, the duplicate unit ---------------------------------------------


def test_max_deals_ends_the_match_and_equal_totals_draw():
    state = new(max_deals=1)
    to_play(state, "pass,pass,pass,bid 7")  # the forced 7 of seat 0
    state.scores = [-6, -12]  # after the deal: 6 / 6 (12 and 6 points)
    finish_deal(state, 7)
    res = state.result()
    assert state.scores == [6, -6] and res.winners == (0, 2) and res.reason == "max_deals"
    draw = new(max_deals=1)
    to_play(draw, "pass,pass,pass,bid 7")
    draw.scores = [-12, -6]
    finish_deal(draw, 7)
    assert draw.scores == [0, 0] and draw.result().winners == (0, 1, 2, 3)
    assert draw.result().ranks == (1, 1, 1, 1)


def test_a_whole_random_match_ends_and_adds_up():
    state = new(seed=5, shuffler=-1)
    rng = random.Random(5)
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    res = state.result()
    totals = [sum(d["points"][t] for d in res.deals) for t in (0, 1)]
    assert list(res.scores) == [totals[0], totals[1], totals[0], totals[1]]
    assert res.reason == "max_deals" or max(totals) >= 100


@pytest.mark.parametrize("k", [1, 2, 3])
def test_duplicate_unit_is_one_deal(k):
    a, b = (SPEC.new_match(players=4, options={"deal": k}, seed=8) for _ in range(2))
    assert a.hands == b.hands and a.shuffler == b.shuffler and a.idle == b.idle
    assert min(a.idle) == 0 and max(a.idle) == (0 if k == 1 else max(a.idle))
    assert (max(a.idle) >= 1) == (k > 1) and max(a.idle) <= k - 1
    rng = random.Random(k)
    while not a.is_over():
        seat = a.to_act()[0]
        a.apply(seat, rng.choice(a.legal_actions(seat)))
    res = a.result()
    assert len(res.deals) == 1 and res.reason == "complete"
    assert res.scores[0] == res.deals[0]["points"][0] and res.scores[1] == res.deals[0]["points"][1]


def test_options_are_checked():
    with pytest.raises(BadConfig):
        SPEC.new_match(players=4, options={"shuffler": 4})
    with pytest.raises(BadConfig):
        SPEC.new_match(players=4, options={"rotation": "anticlockwise"})
    with pytest.raises(BadConfig):
        SPEC.new_match(players=3)


def test_the_shuffler_comes_from_the_seed():
    firsts = {SPEC.new_match(players=4, seed=s).shuffler for s in range(20)}
    assert firsts == {0, 1, 2, 3}


def test_card_rules_are_card_orders_entry():
    for trump in (None, Suit.CLUBS, Suit.SPADES):
        state = new()
        state.set_trump(trump)
        assert repr(state.rules) == repr(trick_rules("tarneeb", trump))


def test_team_pools_tricks_and_the_goal_is_the_team():
    state = new()
    assert [state.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert strategy_for(SPEC).goal(state, 2).team == 0 and SPEC.teams(4) == ((0, 2), (1, 3))


# -- conformance and worlds -----------------------------------------------------------------


def test_conformance_checks_pass():
    report = check_game(SPEC, matches=30, checked=3)
    assert report.skipped == ()


@pytest.mark.parametrize("i", range(2))
def test_every_step_checked(i):
    play_checked(SPEC, i, seed=700 + i, sample_every=4)


def test_worlds_keep_what_each_seat_knows():
    phases = check_worlds_from_view(SPEC, matches=4, seed=5, every=7)
    for phase in ("bid", "trump", "play"):
        assert phases[phase] > 0


def test_worlds_from_a_view_keep_the_auction_and_hide_the_partner():
    state = new(shuffler=0)
    act(state, "bid 8")
    act(state, "pass")
    view = state.view(0)
    worlds = [SPEC.world_from_view(view, random.Random(k)) for k in range(20)]
    for w in worlds:
        assert w.view(0) == view and w.high == 8 and w.declarer == 1 and w.passed == [2]
        assert set(w.hands[0]) == set(state.hands[0])
    assert len({tuple(sorted(w.hands[2])) for w in worlds}) > 1  # seat 2's hand unknown
