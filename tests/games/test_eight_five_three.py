"""8-5-3 / 6-3-2-1: every test scenario of the rules' section 6, the visibility of the
requests, the Surpriza and the discards over whole matches, the options, the duplicate unit,
determinism and the conformance checks."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
from eight_five_three_positions import SPEC, act, new, to_phase

from levata.engine import Action, BadConfig, Card, IllegalAction, Suit, parse_cards
from levata.engine.family import quotas as qf
from levata.engine.family.tricks import duty_cards
from levata.engine.games import eight_five_three as e853
from levata.engine.games.eight_five_three import EightFiveThreeState
from levata.engine.testing import check_game, check_worlds_from_view, play_checked


def no_diamonds(c: Card) -> bool:
    return c.suit == Suit.DIAMONDS


def _play_random(state, seed: int) -> int:
    rng = random.Random(seed)
    steps = 0
    while not state.is_over():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1
    return steps


# -- the 9 scenarios ----------------------------------------------------------------------------


def test_scenario_1_quotas():
    four = SPEC.new_match(players=4, options={"shuffler": 0}, seed=1)
    c = four.view(2).counters
    assert (c["dealer"], c["first"]) == (0, 1)
    assert [c[f"quota:{s}"] for s in range(4)] == [1, 6, 3, 2]
    three = SPEC.new_match(players=3, options={"shuffler": 2}, seed=1)
    assert [three.view(1).counters[f"quota:{s}"] for s in range(3)] == [8, 5, 3]
    assert [len(h) for h in three.hands] == [16] * 3 and len(three.kitty) == 4
    assert [len(h) for h in four.hands] == [12] * 4 and len(four.kitty) == 4
    assert three.to_act() == (0,) and three.phase == "trump"  # F names trump


def test_scenario_2_rotation():
    state = SPEC.new_match(players=3, options={"shuffler": 2}, seed=4)
    assert (state.first, state.shuffler) == (0, 2)
    to_phase(state, "play")
    state.tricks = [6, 5, 5]
    state._score_deal()
    assert (state.deal_no, state.first, state.shuffler) == (2, 2, 1)
    assert state.quota == [5, 3, 8]
    other = SPEC.new_match(players=3, options={"shuffler": 2, "rotation": "clockwise"}, seed=4)
    to_phase(other, "play")
    other.tricks = [8, 5, 3]
    other._score_deal()
    assert (other.first, other.shuffler) == (1, 0)


def _asked(target_diamonds: str) -> EightFiveThreeState:
    # Seat 0 (F) has one credit against seat 1.
    state = new(previous="1,-1,0", hands={0: "4D", 1: target_diamonds}, avoid={1: no_diamonds})
    assert state.phase == "exchange" and state.to_act() == (0,)
    assert state.legal_actions(0) == [Action("ask", number=1), Action("stop")]
    act(state, "ask 1")
    assert state.view(2).counters["target"] == 1
    act(state, "offer 4D")
    return state


def test_scenario_3_exchange_swap():
    state = _asked("KD 2D")
    assert Card.parse("KD") in state.hands[0]
    assert sorted(str(c) for c in state.hands[1] if c.suit == Suit.DIAMONDS) == ["2D", "4D"]
    ev = state.events()[-1]
    assert ev.kind == "exchanged" and ev.data["swap"] is True and ev.audience == {0, 1}
    assert ev.cards == tuple(parse_cards("4D KD"))


@pytest.mark.parametrize("diamonds", ["2D", ""])
def test_scenario_4_exchange_return(diamonds):
    state = _asked(diamonds)
    assert Card.parse("4D") in state.hands[0] and Card.parse("4D") not in state.hands[1]
    assert (state.credit[0], state.debt[1]) == (0, 0)  # D3: the request is used up
    assert state.events()[-1].data["swap"] is False
    assert state.phase == "trump"
    assert [len(h) for h in state.hands] == [16] * 3


def test_scenario_5_free_choice():
    state = new(previous="2,-1,-1")
    assert e853.targets(state.debt) == [1, 2]
    assert {a.number for a in state.legal_actions(0) if a.kind == "ask"} == {1, 2}
    act(state, "ask 2")  # seat 2 first: the choice is free
    act(state, f"offer {sorted(state.hands[0])[0]}")
    assert [a for a in state.legal_actions(0) if a.kind == "ask"] == [Action("ask", number=1)]
    state = new(previous="2,-1,-1")
    act(state, "ask 1")
    act(state, f"offer {sorted(state.hands[0])[0]}")
    assert state.legal_actions(0) == [Action("ask", number=2), Action("stop")]  # not 1 again
    with pytest.raises(IllegalAction):
        act(state, "ask 1")


def test_scenario_6_four_discards_seen_by_f_alone():
    state = new(players=4, shuffler=3, match_deals=1)
    to_phase(state, "discard")
    f = state.first
    assert f == 0 and len(state.hands[f]) == 16
    for _ in range(3):
        act(state, f"discard {sorted(state.hands[f])[0]}")
        assert state.phase == "discard"  # three are not enough: no card may be played
        with pytest.raises(IllegalAction):
            act(state, f"play {sorted(state.hands[f])[0]}")
    act(state, f"discard {sorted(state.hands[f])[0]}")
    assert state.phase == "play" and [len(h) for h in state.hands] == [12] * 4
    with pytest.raises(IllegalAction):
        act(state, f"discard {sorted(state.hands[f])[0]}")
    buried = set(state.discards)
    assert set(state.view(f).zones["discards"]) == buried
    _play_random(state, 3)  # to the end of the deal (and the match): never shown
    assert set(state.view(f).zones["discards"]) == buried
    for s in range(1, 4):
        view = state.view(s)
        assert not set(view.cards_named()) & buried and "discards" not in view.zones


def test_scenario_7_follow_else_anything():
    state = new()
    state.set_trump(Suit.SPADES)
    hand = parse_cards("AS 3D 9C")
    assert duty_cards(state.rules, hand, parse_cards("KH")) == hand  # no duty to trump
    assert duty_cards(state.rules, parse_cards("2H AS"), parse_cards("KH")) == parse_cards("2H")


def test_scenario_8_score_and_the_next_requests():
    state = new(shuffler=2)
    to_phase(state, "play")
    state.tricks = [9, 4, 3]
    state._score_deal()
    score = [e for e in state.events() if e.kind == "score"][-1]
    assert score.data["points"] == [1, -1, 0] and state.points == [1, -1, 0]
    assert (state.credit, state.debt) == ([1, 0, 0], [0, 1, 0])
    assert state.phase == "exchange" and state.to_act() == (0,)
    assert state.legal_actions(0) == [Action("ask", number=1), Action("stop")]


@pytest.mark.parametrize("shown", [False, True])
def test_scenario_9_surpriza_seen_by_f_alone_unless_shown(shown):
    kitty = "AS AH AC AD"
    state = new(kitty=kitty, surpriza_shown=shown, match_deals=1)
    aces = set(parse_cards(kitty))
    to_phase(state, "discard")
    assert aces <= set(state.hands[0]) and aces <= set(state.view(0).cards_named())
    for s in (1, 2):
        assert (aces <= set(state.view(s).cards_named())) == shown
        assert bool(aces & set(state.view(s).cards_named())) == shown
    for _ in range(4):  # F keeps the Aces: the others may see them played, not before
        act(state, f"discard {min(c for c in state.hands[0] if c not in aces)}")
    for s in (1, 2):
        named = {c for e in state.history(s) if e.kind not in ("play", "trick") for c in e.cards}
        assert bool(named & aces) == shown


# -- visibility over whole matches ----------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_exchange_cards_reach_only_their_two_seats(players):
    """Right after a request, a third seat's view of the deal names none of its cards but
    those it already knew; the asked and the returned card reach exactly the two seats."""
    exchanges = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = SPEC.new_match(players=players, options={"match_deals": 4}, seed=seed)
        while not state.is_over():
            seat = rng.choice(state.to_act())
            legal = state.legal_actions(seat)
            stop = [a for a in legal if a.kind != "stop"]
            state.apply(seat, rng.choice(stop or legal))
            ev = state.events()[-1]
            if ev.kind != "exchanged":
                continue
            exchanges += 1
            assert ev.audience == {ev.seat, ev.data["target"]}
            for s in ev.audience:
                assert set(ev.cards) <= set(state.view(s).cards_named())
            start = max(e.seq for e in state.events() if e.kind == "deal")
            for s in set(range(players)) - set(ev.audience):
                view = state.view(s)
                named = set(view.hand) | {c for cs in view.zones.values() for c in cs}
                named |= {c for e in view.history if e.seq >= start for c in e.cards}
                known = {c for e in view.history if start <= e.seq < ev.seq for c in e.cards}
                assert not (set(ev.cards) & named) - known
    assert exchanges > 10


@pytest.mark.parametrize("players", [3, 4])
def test_surpriza_and_discards_never_reach_another_seat(players):
    rng = random.Random(players)
    state = SPEC.new_match(players=players, seed=players)
    checked = 0
    while not state.is_over():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        f = state.first
        start = max(e.seq for e in state.events() if e.kind == "deal")
        hidden = set(state.kitty) | set(state.surpriza) | set(state.discards)
        for s in range(players):
            if s == f:
                continue
            view = state.view(s)
            named = set(view.hand) | {c for cs in view.zones.values() for c in cs}
            named |= {c for e in view.history if e.seq >= start for c in e.cards}
            # It may know a card F took or discarded that it held or was shown in an exchange
            # before, or see it played; never that it went to the Surpriza or the discards.
            kinds = ("hand", "exchanged", "play")
            known = {c for e in view.history if e.seq >= start and e.kind in kinds for c in e.cards}
            assert not (named & hidden) - known - set(view.hand)
            checked += 1
    assert checked > 500


# -- the match, the options, the duplicate unit ---------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_a_whole_match_is_four_deals_a_seat(players):
    state = SPEC.new_match(players=players, seed=21)
    _play_random(state, 1)
    res = state.result()
    assert res.reason == "complete" and len(res.deals) == 4 * players
    assert sum(res.scores) == 0 and all(sum(d["points"]) == 0 for d in res.deals)
    firsts = [d["first"] for d in res.deals]
    assert sorted(firsts) == sorted(list(range(players)) * 4)
    assert all(b == (a - 1) % players for a, b in itertools.pairwise(firsts))
    best = max(res.scores)
    assert res.winners == tuple(s for s, p in enumerate(res.scores) if p == best)


def test_match_deals_option():
    state = SPEC.new_match(players=4, options={"match_deals": 2}, seed=2)
    _play_random(state, 2)
    assert len(state.result().deals) == 2


def test_win_at_12_ends_the_match():
    state = SPEC.new_match(players=3, options={"win_at_12": True, "shuffler": 2}, seed=3)
    to_phase(state, "play")
    state.tricks = [2, 12, 2]
    state._score_deal()
    res = state.result()
    assert state.is_over() and res.winners == (1,) and res.reason == "twelve"
    assert res.ranks[1] == 1
    plain = SPEC.new_match(players=3, options={"shuffler": 2}, seed=3)
    to_phase(plain, "play")
    plain.tricks = [2, 12, 2]
    plain._score_deal()
    assert not plain.is_over()


def test_stop_forfeits_the_rest():
    state = new(previous="2,-1,-1")
    act(state, "stop")
    assert state.phase == "trump" and state.credit == [0, 0, 0] and state.debt == [0, 1, 1]
    assert state.view(1).facts["stopped"] == [0]


def test_requesters_ask_in_play_order_from_f():
    state = new(players=4, shuffler=3, previous="-2,1,-1,2")  # F = 0
    assert state.order == [1, 3] == e853.requesters([0, 1, 0, 2], first=0)
    assert state.to_act() == (1,)
    act(state, "ask 0")
    act(state, f"offer {sorted(state.hands[1])[0]}")
    assert state.to_act() == (3,)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_duplicate_unit_is_one_deal(k):
    opts = {"deal": k}
    a = SPEC.new_match(players=4, options=opts, seed=8)
    b = SPEC.new_match(players=4, options=opts, seed=8)
    assert sum(a.credit) == k - 1 and a.credit == b.credit and a.hands == b.hands
    assert a.first == b.first
    _play_random(a, 1)
    res = a.result()
    assert len(res.deals) == 1 and list(res.scores) == res.deals[0]["points"]


def test_practice_previous_is_a_possible_deal():
    for seed in range(30):
        row = qf.practice_previous(3, 1, 4, random.Random(seed))
        quota = qf.quotas(3, 1)
        assert sum(row) == 0 and all(d + q >= 0 for d, q in zip(row, quota, strict=True))
        assert sum(max(0, d) for d in row) == 4


def test_options_are_checked():
    with pytest.raises(BadConfig):
        SPEC.new_match(players=3, options={"previous": "1,1,0"})
    with pytest.raises(BadConfig):
        SPEC.new_match(players=3, options={"shuffler": 3})
    with pytest.raises(BadConfig):
        SPEC.new_match(players=5)


def test_same_seed_same_log():
    logs = []
    for _ in range(2):
        state = SPEC.new_match(players=3, options={"match_deals": 3}, seed=99)
        _play_random(state, 7)
        logs.append([e.to_dict() for e in state.events()])
    assert logs[0] == logs[1]
    other = SPEC.new_match(players=3, options={"match_deals": 3}, seed=100)
    _play_random(other, 7)
    assert [e.to_dict() for e in other.events()] != logs[0]


# -- conformance and worlds ----------------------------------------------------------------------

LONGER = dataclasses.replace(SPEC, short_options={"match_deals": 5})


def test_conformance_checks_pass():
    report = check_game(SPEC, matches=40, checked=4)
    assert report.skipped == ()


@pytest.mark.parametrize("i", range(4))
def test_every_step_checked_over_many_deals(i):
    play_checked(LONGER, i, seed=900 + i, sample_every=3)


def test_worlds_keep_what_each_seat_knows():
    phases = check_worlds_from_view(LONGER, matches=4, seed=5, every=5)
    for phase in ("exchange", "trump", "discard", "play"):
        assert phases[phase] > 0


def test_worlds_put_exchanged_cards_in_known_hands():
    state = new(previous="1,-1,0", hands={0: "4D", 1: "KD 9D"}, avoid={1: no_diamonds})
    act(state, "ask 1")
    act(state, "offer 4D")
    for k in range(20):
        world = SPEC.world_from_view(state.view(0), random.Random(k))
        assert Card.parse("4D") in world.hands[1]  # the card it gave
        assert not [c for c in world.hands[1] if c.suit == Suit.DIAMONDS and c.rank > 13]
        assert (
            SPEC.world_from_view(state.view(1), random.Random(k)).hands[0].count(Card.parse("KD"))
        )
    back = new(previous="1,-1,0", hands={0: "10D", 1: "9D"}, avoid={1: no_diamonds})
    act(back, "ask 1")
    act(back, "offer 10D")
    for k in range(20):
        world = SPEC.world_from_view(back.view(0), random.Random(k))
        assert not [c for c in world.hands[1] if c.suit == Suit.DIAMONDS and c.rank > 10]


def test_worlds_of_the_surpriza():
    kitty = "KD QD JD 10D"
    shown = new(hands={0: "AS"}, kitty=kitty, surpriza_shown=True)
    to_phase(shown, "discard")
    for k in range(10):
        world = SPEC.world_from_view(shown.view(2), random.Random(k))
        assert set(parse_cards(kitty)) <= set(world.hands[0]) and world.kitty == []
    hidden = new(hands={0: "AS"}, kitty=kitty)
    to_phase(hidden, "discard")
    for _ in range(4):
        act(hidden, f"discard {sorted(hidden.hands[0])[0]}")
    worlds = [SPEC.world_from_view(hidden.view(2), random.Random(k)) for k in range(30)]
    assert all(len(w.discards) == 4 for w in worlds)
    assert len({tuple(sorted(w.discards)) for w in worlds}) > 1  # unknown to seat 2
    assert SPEC.world_from_view(hidden.view(0), random.Random(1)).discards == hidden.discards
