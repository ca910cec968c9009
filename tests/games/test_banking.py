"""Banking Cards: every test scenario of the rules' section 6, visibility over whole sessions,
Tours to the end, the duplicate unit, determinism and the conformance checks."""

from __future__ import annotations

import dataclasses
import random

import pytest
from banking_positions import SPEC, act, keep_all, new, to_phase

from levata.engine import Action, BadConfig, Card, IllegalAction, Suit, game, parse_cards
from levata.engine.family.tricks import duty_cards
from levata.engine.games.banking import BankingState, practice_previous
from levata.engine.games.banking import rules as br
from levata.engine.testing import check_game, check_worlds_from_view, play_checked

FIGURE = br.FIGURES


def no_spades(c: Card) -> bool:
    return c.suit == Suit.SPADES


def figures(c: Card) -> bool:
    return c.rank in FIGURE


# -- the 18 scenarios ---------------------------------------------------------------------------


def test_scenario_01_roles_and_quotas():
    four = SPEC.new_match(players=4, options={"dealer": 3}, seed=1)
    c = four.view(0).counters
    assert (c["dealer"], c["declarant"]) == (3, 0)
    assert [c[f"quota:{s}"] for s in range(4)] == [6, 3, 2, 1]
    three = SPEC.new_match(players=3, options={"dealer": 2}, seed=1)
    assert [three.view(0).counters[f"quota:{s}"] for s in range(3)] == [8, 5, 3]
    assert [len(three.hands[s]) for s in range(3)] == [16, 16, 16]
    assert len(three.kitty) == 4


def _exchange(target_spades: str, offer: str) -> BankingState:
    state = new(previous="1,-1,0,0", hands={1: target_spades, 0: offer}, avoid={1: no_spades})
    keep_all(state)
    assert state.phase == "exchange" and state.requests == [(0, 1)]
    act(state, f"offer {offer}")
    return state


def test_scenario_02_exchange_case_a():
    state = _exchange("KS 9S 4S", "5S")
    assert Card.parse("KS") in state.hands[0]
    assert sorted(str(c) for c in state.hands[1] if c.suit == Suit.SPADES) == ["4S", "5S", "9S"]
    ev = state.events()[-1]
    assert ev.kind == "exchanged" and ev.data["case"] == "a" and ev.audience == {0, 1}


def test_scenario_03_exchange_case_b():
    state = _exchange("3S 2S", "5S")
    assert Card.parse("2S") in state.hands[0] and Card.parse("5S") in state.hands[1]
    assert Card.parse("2S") not in state.hands[1]
    assert state.events()[-1].data["case"] == "b"


def test_scenario_04_exchange_case_c():
    state = _exchange("", "5S")
    assert Card.parse("5S") in state.hands[0]
    assert state.events()[-1].data["case"] == "c"
    assert state.phase == "trump"  # the one request is used up


def test_scenario_05_allocation_only_to_the_right():
    assert br.requests([2, 0, 1, 0], [0, 1, 0, 2], declarant=0) == [(0, 1), (0, 3), (2, 3)]
    state = new(previous="2,-1,1,-2")
    assert state.view(2).facts["requests"] == [[0, 1], [0, 3], [2, 3]]
    assert (2, 1) not in state.requests  # C may not ask B


def _perechiute(hands: dict[int, str], trump: str = "C", **options) -> BankingState:
    state = new(dealer=1, hands=hands, **options)  # K = C (seat 2): quotas A 2, B 1, C 6, D 3
    assert state.quota == [2, 1, 6, 3]
    to_phase(state, "declare", trump)
    return state


def test_scenario_06_perechiuta_target():
    state = _perechiute({2: "7S 7H 7C 7D"}, round_points="5,5,-4,-6")
    act(state, "declare 7")
    while state.phase == "declare":
        act(state, "pass")
    assert state.asks == [(2, 1, 7)]  # the tied leader with the smaller quota
    pts, q = [5, 5, -4, -6], [2, 1, 6, 3]
    assert br.perechiuta_target(0, pts, q) == 1
    assert br.perechiuta_target(0, [5, 4, -4, -6], q) is None
    lone = _perechiute({0: "7S 7H 7C 7D"}, round_points="5,4,-4,-5")
    while lone.phase == "declare":
        act(lone, "declare 7" if lone.to_act() == (0,) and lone.quads(0) else "pass")
    assert lone.asks == [] and lone.view(3).facts["lapsed"] == [[0, 7]]


def test_scenario_07_perechiuta_order():
    state = _perechiute({2: "3S 3H 3C 3D", 3: "6S 6H 6C 6D"})
    act(state, "declare 3")  # C (K) declares first
    act(state, "pass")
    act(state, "declare 6")
    while state.phase == "declare":
        act(state, "pass")
    assert [(h, r) for h, _, r in state.asks] == [(2, 3), (3, 6)]
    assert state.to_act() == (2,)


def test_scenario_08_trump_offer_illegal():
    state = _perechiute({3: "2S 2H 2C 2D 9H"}, trump="H", round_points="1,0,0,0")
    while state.phase == "declare":
        act(state, "declare 2" if state.to_act() == (3,) and state.quads(3) else "pass")
    assert state.phase == "perechiuta" and state.to_act() == (3,)
    with pytest.raises(IllegalAction):
        act(state, "offer 9H")
    act(state, "offer 2S")


def _protection(k_hand: str, kitty: str) -> BankingState:
    # K = A (seat 0) is the round's lone leader: B's Perechiuța of 2s asks it.
    state = new(
        hands={0: k_hand, 1: "2S 2H 2C 2D 5D"},
        kitty=kitty,
        avoid={0: lambda c: c.suit == Suit.DIAMONDS},
        round_points="3,0,0,0",
    )
    to_phase(state, "declare", "C")
    assert Card.parse("QD") in state.protected
    act(state, "pass")
    act(state, "declare 2")
    while state.phase == "declare":
        act(state, "pass")
    assert state.asks == [(1, 0, 2)]
    act(state, "offer 5D")
    return state


def test_scenario_09_protection():
    state = _protection("9D", "QD")
    assert Card.parse("9D") in state.hands[1] and Card.parse("QD") in state.hands[0]
    ev = [e for e in state.events() if e.kind == "exchanged"][-1]
    assert ev.data["case"] == "a" and ev.cards == tuple(parse_cards("5D 9D"))
    only = _protection("", "QD")
    assert Card.parse("5D") in only.hands[1] and Card.parse("QD") in only.hands[0]
    assert [e for e in only.events() if e.kind == "exchanged"][-1].data["case"] == "c"


def test_scenario_10_final_exchange_trigger():
    four = new(previous="3,-1,-1,-1")
    assert four.finals == [0]
    to_phase(four, "final")
    assert four.to_act() == (1, 2, 3)  # all at once
    given = {s: sorted(four.hands[s])[0] for s in (1, 2, 3)}
    for s in (1, 2, 3):
        act(four, f"give {given[s]}", seat=s)
    assert [given[1] in four.hands[2], given[2] in four.hands[3], given[3] in four.hands[1]] == [
        True,
        True,
        True,
    ]
    passed = [e for e in four.events() if e.kind == "passed"]
    assert [set(e.audience or ()) for e in passed] == [{1, 2}, {2, 3}, {1, 3}]
    assert four.phase == "refuse_b"
    assert br.final_exchanges([3, 0, 0], 0) == []
    three = new(players=3, dealer=2, previous="4,-2,-2")
    assert three.finals == [0]
    to_phase(three, "final")
    a, b = sorted(three.hands[1])[0], sorted(three.hands[2])[0]
    act(three, f"give {a}", seat=1)
    act(three, f"give {b}", seat=2)
    assert a in three.hands[2] and b in three.hands[1]  # the two others swap
    assert new(players=3, dealer=2, previous="3,-1,-2").finals == []


def test_scenario_11_refusal_windows():
    state = new(previous="1,0,-1,0", avoid={2: figures})
    assert state.requests == [(0, 2)]
    act(state, "keep")
    act(state, "keep")
    assert Action("refuse") in state.legal_actions(2)
    act(state, "refuse")
    assert (state.dealer, state.sessions, state.phase) == (3, 2, "refuse_a")
    assert state.requests == [(0, 2)]  # the credits are kept
    # C's one figure goes in the exchange; it refuses after: no exchange in the redone deal.
    later = new(
        previous="1,0,-1,0", hands={2: "JS 3S", 0: "2S"}, avoid={2: lambda c: c.rank in FIGURE}
    )
    keep_all(later)
    assert Action("refuse") not in later.legal_actions(later.to_act()[0])
    act(later, "offer 2S")
    assert Card.parse("JS") in later.hands[0] and br.figureless(later.hands[2])
    to_phase(later, "refuse_b")
    act(later, "keep")
    act(later, "keep")
    act(later, "refuse")
    assert later.sessions == 2 and later.requests == [] and later.finals == []
    assert later.view(0).facts["cancelled"] is True


def test_scenario_12_declarant_judged_on_full_hand():
    state = new(avoid={0: figures}, kitty="JH")
    assert Action("refuse") in state.legal_actions(0)  # figure-less after the deal
    to_phase(state, "refuse_b")
    assert state.to_act() == (0,) and Card.parse("JH") in state.hands[0]
    assert state.legal_actions(0) == [Action("keep")]


def test_scenario_13_follow_then_trump():
    state = new()
    state.set_trump(Suit.CLUBS)
    hand = parse_cards("7C 2C AS")
    assert sorted(map(str, duty_cards(state.rules, hand, parse_cards("9H")))) == ["2C", "7C"]
    other = parse_cards("AS 3D")
    assert duty_cards(state.rules, other, parse_cards("9H")) == other


def test_scenario_14_gunoi_of_exactly_four():
    state = new()
    to_phase(state, "gunoi")
    assert len(state.hands[0]) == 16
    for _ in range(3):
        act(state, f"discard {sorted(state.hands[0])[0]}")
        assert state.phase == "gunoi"
        with pytest.raises(IllegalAction):
            act(state, f"play {sorted(state.hands[0])[0]}")
    act(state, f"discard {sorted(state.hands[0])[0]}")
    assert state.phase == "play" and [len(h) for h in state.hands] == [12] * 4
    with pytest.raises(IllegalAction):
        act(state, f"discard {sorted(state.hands[0])[0]}")
    k_view = state.view(0)
    assert len(k_view.zones["gunoi"]) == 4
    assert "gunoi" not in state.view(1).zones


def _score_with(state: BankingState, tricks: list[int]) -> None:
    to_phase(state, "play")
    state.tricks = list(tricks)
    state._score_deal()


def test_scenario_15_scoring():
    state = new()
    _score_with(state, [7, 2, 2, 1])
    score = [e for e in state.events() if e.kind == "score"][-1]
    assert score.data["points"] == [1, -1, 0, 0] and sum(score.data["points"]) == 0
    assert (state.credit, state.debt) == ([1, 0, 0, 0], [0, 1, 0, 0])


def test_scenario_16_round_end():
    state = new(round_points="8,-3,-2,-3")
    ko = state.kickoff
    _score_with(state, [7, 3, 2, 0])
    assert [e for e in state.events() if e.kind == "round"][-1].data["round_points"] == [
        9,
        -3,
        -2,
        -4,
    ]
    assert state.round_no == 2 and state.kickoff == (ko + 1) % 4
    assert state.dealer == (state.kickoff - 1) % 4 and state.round_pts == [0] * 4
    assert state.tops == [1, 0, 0, 0]
    # D3: the credits cross the round's end: A's over-trick asks D's under-trick.
    assert (state.credit, state.debt) == ([1, 0, 0, 0], [0, 0, 0, 1])
    assert state.requests == br.requests([1, 0, 0, 0], [0, 0, 0, 1], state.declarant) == [(0, 3)]


def test_rounds_option_shortens_the_tour():
    state = SPEC.new_match(players=4, options={"rounds": 1}, seed=6)
    _play_random(state, 4)
    assert state.result().reason == "complete"
    assert [e.kind for e in state.events()].count("round") == 1


def test_scenario_17_mal_hook():
    state = new(previous="1,-1,0,0", mal_on_forfeit=True)
    assert state.forfeit_scores([1]) == (2.0, -6.0, 2.0, 2.0)
    assert state.round_pts == [0] * 4  # asking changes nothing
    state.mal(1)
    assert state.round_pts == [2, -6, 2, 2] and state.threshold() == 11
    assert (state.dealer, state.sessions, state.requests) == (3, 2, [(0, 1)])
    assert br.mal_points(3, 0) == [-4, 2, 2]
    off = new()
    assert off.forfeit_scores([1]) == (0.0, 0.0, 0.0, 0.0)


def test_scenario_18_no_leak():
    state = new(previous="1,-1,0,0", hands={0: "5S", 1: "KS"})
    keep_all(state)
    act(state, "offer 5S")
    moved = set(parse_cards("5S KS"))
    for seat in (2, 3):
        seen = state.view(seat).cards_named()
        assert not moved & set(seen)
    assert moved <= set(state.view(0).cards_named())
    assert moved <= set(state.view(1).cards_named())


# -- visibility over whole sessions -------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_visibility_over_whole_sessions(players):
    """For every seat: no card of an exchange it was not part of in its events or view, no
    Surpriza face before the trump, the Gunoi in nobody's view but the Declarant's."""
    rng = random.Random(players)
    state = SPEC.new_match(players=players, options={"max_sessions": 12}, seed=players)
    assert isinstance(state, BankingState)
    checked = 0
    while not state.is_over():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        start = max(e.seq for e in state.events() if e.kind == "deal")
        for s in range(players):
            view = state.view(s)
            named = set(view.hand) | {c for cs in view.zones.values() for c in cs}
            named |= {c for e in view.history if e.seq >= start for c in e.cards}
            if state.kitty and not state.kitty_up:
                assert not named & set(state.kitty), "a Surpriza face before the trump"
            if s != state.declarant and state.gunoi:
                # It may know a buried card it held or saw turned, never that it was buried.
                first = min(e.seq for e in state.events() if e.kind == "discard" and e.seq >= start)
                before = {c for e in view.history if e.seq < first for c in e.cards}
                assert "gunoi" not in view.zones
                assert not (named & set(state.gunoi)) - before, "the Gunoi seen by another seat"
            for ev in state.events():
                if ev.kind in ("exchanged", "passed") and not ev.visible_to(s):
                    assert ev not in view.history
            checked += 1
    assert checked > 1000
    for ev in state.events():
        if ev.kind == "exchanged":
            assert ev.audience == {ev.seat, ev.data["target"]}
        if ev.kind == "passed":
            assert ev.audience == {ev.seat, ev.data["to"]}
        if ev.kind == "discard":
            assert ev.audience is not None and len(ev.audience) == 1


@pytest.mark.parametrize("players", [3, 4])
def test_exchange_cards_reach_only_their_two_seats(players):
    """Right after an exchange, a third seat's view of the session names none of its cards
    but those it already knew (its own, or the Surpriza turned face up)."""
    exchanges = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = SPEC.new_match(players=players, options={"max_sessions": 6}, seed=seed)
        while not state.is_over():
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            ev = state.events()[-1]
            if ev.kind != "exchanged":
                continue
            exchanges += 1
            start = max(e.seq for e in state.events() if e.kind == "deal")
            for s in set(range(players)) - set(ev.audience or ()):
                view = state.view(s)
                named = set(view.hand) | {c for cs in view.zones.values() for c in cs}
                named |= {c for e in view.history if e.seq >= start for c in e.cards}
                known = {c for e in view.history if start <= e.seq < ev.seq for c in e.cards}
                assert not (set(ev.cards) & named) - known - set(state.turned)
    assert exchanges > 5


# -- Tours, the cap, the duplicate unit, determinism --------------------------------------------


def _play_random(state, seed: int) -> int:
    rng = random.Random(seed)
    steps = 0
    while not state.is_over():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1
    return steps


@pytest.mark.parametrize("players", [3, 4])
def test_a_whole_tour_with_random_bots(players):
    state = SPEC.new_match(players=players, seed=21)
    _play_random(state, 1)
    res = state.result()
    assert res.reason == "complete" and state.round_no == players
    assert sum(state.tops) >= players  # every round has a top (shared tops count for each)
    assert sum(res.scores) == 0
    for deal in res.deals:
        assert sum(deal["points"]) == 0
    rounds = [e for e in state.events() if e.kind == "round"]
    assert len(rounds) == players
    kickoffs = {e.data["first"] for e in state.events() if e.kind == "deal"}
    assert kickoffs <= set(range(players))
    assert res.winners == br.winners(list(state.tour_pts), state.tops, state.last_round)


def test_each_seat_kicks_off_one_round():
    state = SPEC.new_match(players=4, seed=5)
    firsts = []
    rng = random.Random(2)
    round_no = 0
    while not state.is_over():
        if state.round_no != round_no:
            round_no = state.round_no
            firsts.append(state.declarant)
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert sorted(firsts) == [0, 1, 2, 3]


def test_max_sessions_ends_the_tour():
    state = SPEC.new_match(players=4, options={"max_sessions": 5}, seed=3)
    _play_random(state, 3)
    res = state.result()
    assert res.reason == "cap" and state.sessions == 5
    assert state.events()[-1].data["reason"] == "cap"


@pytest.mark.parametrize("k", [1, 3, 5])
def test_duplicate_unit_is_one_session(k):
    opts = {"session": k}
    a = SPEC.new_match(players=4, options=opts, seed=8)
    b = SPEC.new_match(players=4, options=opts, seed=8)
    assert isinstance(a, BankingState) and isinstance(b, BankingState)
    assert sum(a.credit) == k - 1 and a.credit == b.credit and a.hands == b.hands
    assert a.round_pts == b.round_pts and a.dealer == b.dealer
    _play_random(a, 1)
    res = a.result()
    assert len(res.deals) == 1 and list(res.scores) == res.deals[0]["points"]


def test_practice_previous_is_a_possible_session():
    for seed in range(30):
        row = practice_previous(3, 1, 4, random.Random(seed))
        quota = br.quotas(3, 1)
        assert sum(row) == 0 and all(d + q >= 0 for d, q in zip(row, quota, strict=True))
        assert sum(max(0, d) for d in row) == 4


def test_options_are_checked():
    with pytest.raises(BadConfig):
        SPEC.new_match(players=4, options={"previous": "1,1,0,0"})
    with pytest.raises(BadConfig):
        SPEC.new_match(players=4, options={"round_points": "1,2"})
    with pytest.raises(BadConfig):
        SPEC.new_match(players=2)


def test_same_seed_same_log():
    logs = []
    for _ in range(2):
        state = SPEC.new_match(players=3, options={"max_sessions": 4}, seed=99)
        _play_random(state, 7)
        logs.append([e.to_dict() for e in state.events()])
    assert logs[0] == logs[1]
    other = SPEC.new_match(players=3, options={"max_sessions": 4}, seed=100)
    _play_random(other, 7)
    assert [e.to_dict() for e in other.events()] != logs[0]


# -- conformance, with the exchanges in play ----------------------------------------------------

LONGER = dataclasses.replace(SPEC, short_options={"max_sessions": 8})


def test_conformance_checks_pass():
    report = check_game(SPEC, matches=40, checked=4)
    assert report.skipped == ()


@pytest.mark.parametrize("i", range(4))
def test_every_step_checked_over_many_sessions(i):
    play_checked(LONGER, i, seed=900 + i, sample_every=3)


def test_worlds_keep_what_each_seat_knows():
    phases = check_worlds_from_view(LONGER, matches=4, seed=5, every=5)
    for phase in ("exchange", "final", "gunoi", "play", "declare"):
        assert phases[phase] > 0


def test_worlds_put_exchanged_cards_in_known_hands():
    state = new(previous="1,-1,0,0", hands={0: "5S", 1: "KS 9S"}, avoid={1: no_spades})
    keep_all(state)
    act(state, "offer 5S")
    for k in range(20):
        world = SPEC.world_from_view(state.view(0), random.Random(k))
        assert Card.parse("5S") in world.hands[1]  # the card it gave
        assert not [c for c in world.hands[1] if c.suit == Suit.SPADES and c.rank > 13]
        world_b = SPEC.world_from_view(state.view(1), random.Random(k))
        assert Card.parse("KS") in world_b.hands[0]
    state2 = new(hands={0: "AS"}, kitty="KD QD JD 10D")
    to_phase(state2, "gunoi")
    for k in range(10):
        world = SPEC.world_from_view(state2.view(2), random.Random(k))
        assert set(parse_cards("KD QD JD 10D")) <= set(world.hands[0])
        assert world.kitty == []
    for _ in range(4):
        act(state2, f"discard {sorted(state2.hands[0])[0]}")
    worlds = [SPEC.world_from_view(state2.view(2), random.Random(k)) for k in range(30)]
    assert all(len(w.gunoi) == 4 for w in worlds)
    assert len({tuple(sorted(w.gunoi)) for w in worlds}) > 1  # unknown to seat 2
    assert SPEC.world_from_view(state2.view(0), random.Random(1)).gunoi == state2.gunoi


def test_the_surpriza_may_complete_the_declarants_perechiuta():
    """D17: K holds three 7s, the Surpriza the fourth."""
    state = new(hands={0: "7S 7H 7C"}, kitty="7D", round_points="0,3,0,0")
    to_phase(state, "declare")
    assert state.to_act() == (0,) and Action("declare", number=7) in state.legal_actions(0)
    act(state, "declare 7")
    ev = state.events()[-1]
    assert ev.kind == "declare" and ev.audience is None and len(ev.cards) == 4


def test_a_world_after_a_mal_keeps_only_the_scored_sessions():
    """A MAL is told as a ``score`` event but scores no session: a world rebuilt from a view
    keeps the match's own record of scored sessions (``result().deals``)."""
    state = game("banking").new_match(players=4, options={"mal_on_forfeit": True}, seed=5)
    state.mal(2)
    view = state.view(0)
    assert any(ev.kind == "score" and "mal" in ev.data for ev in view.history)
    world = game("banking").world_from_view(view, random.Random(1))
    assert world.deal_log == state.deal_log == []
