"""3-5-8: every test scenario of the rules' section 6, the visibility of the kitty and the
draws, whole matches, the duplicate unit and worlds rebuilt from a view."""

from __future__ import annotations

import random

import pytest
from three_five_eight_positions import SPEC, act, keep_kitty, new, play_deal, to_phase

from levata.engine import Action, Card, IllegalAction, Suit, parse_cards
from levata.engine.card_orders import trick_rules
from levata.engine.family import quotas as quota_family
from levata.engine.games.three_five_eight import rules as tr
from levata.engine.testing import LeakWatch, check_world_from_view, random_steps


def no_hearts(c: Card) -> bool:
    return c.suit == Suit.HEARTS


def no_spades(c: Card) -> bool:
    return c.suit == Suit.SPADES


def no_clubs(c: Card) -> bool:
    return c.suit == Suit.CLUBS


def targets_of(state) -> list[int]:
    return [state.view(0).counters[f"target:{s}"] for s in range(3)]


# -- the 9 scenarios ----------------------------------------------------------------------------


def test_scenario_1_targets_and_rotation():
    state = new(eight=1)
    assert state.view(0).counters["eight"] == 1
    assert targets_of(state) == [3, 8, 5]  # seat 2 plays for 5, seat 0 for 3
    assert state.to_act() == (1,)
    play_deal(state)
    assert state.view(0).counters["eight"] == 2
    assert targets_of(state) == [5, 3, 8]  # old 5 -> 8, old 3 -> 5, old 8 -> 3


def test_scenario_2_contract_list_and_forced():
    state = new(eight=0)
    play_deal(state, "C")  # seat 0 uses clubs
    play_deal(state)
    play_deal(state)
    assert state.eight == 0
    act(state, "pas")  # seat 0 uses its Pas
    play_deal(state, "D")  # then diamonds
    play_deal(state)
    play_deal(state)
    legal = state.legal_actions(0)
    assert {a.choice for a in legal} == {"H", "S", "NT"} and Action("pas") not in legal
    for contract in ("H", "S"):
        play_deal(state, contract)
        play_deal(state)
        play_deal(state)
    assert state.legal_actions(0) == [Action("contract", choice="NT")]  # forced


def test_scenario_3_pas_redeals_with_the_same_targets_and_credits():
    state = new(eight=2, previous="2,-1,-1")
    before = state.view(0).counters
    hand = list(state.hands[2])
    act(state, "pas")
    after = state.view(0).counters
    assert state.phase == "announce" and state.to_act() == (2,)
    assert after["dealt"] == before["dealt"] + 1 and after["deal"] == before["deal"]
    for key in ("target", "credit", "debt"):
        assert [after[f"{key}:{s}"] for s in range(3)] == [before[f"{key}:{s}"] for s in range(3)]
    assert state.hands[2] != hand  # a fresh deal
    assert after["pas_left:2"] == 0
    with pytest.raises(IllegalAction):
        act(state, "pas")  # a second Pas by the same seat
    play_deal(state)
    assert state.counted == 1  # the Pas deal was not counted


def test_scenario_4_kitty_swap_is_the_8_seats_alone():
    state = new(eight=0, kitty="AS AH AD AC")
    act(state, "contract S")
    kitty = list(state.kitty)
    give = sorted(state.hands[0])[:2]
    seen_before = [set(state.view(s).cards_named()) for s in (1, 2)]
    act(state, f"swap {give[0]}")
    act(state, f"swap {give[1]}")
    act(state, "keep")
    act(state, "keep")
    assert len(state.hands[0]) == 16 and len(state.kitty) == 4
    assert set(kitty[:2]) <= set(state.hands[0]) and set(give) <= set(state.kitty)
    assert state.view(0).zones["kitty"] == tuple(state.kitty)
    for s, before in zip((1, 2), seen_before, strict=True):
        view = state.view(s)
        assert "kitty" not in view.zones
        named = set(view.cards_named()) - before
        assert not named & (set(kitty) | set(give))
        assert not [e for e in view.history if e.kind in ("swap", "keep")]


def test_scenario_5_draws():
    # X = seat 0 (credit 1) holds 3 and 9 of hearts; O = seat 1 (debt 1) the Queen and 5.
    state = new(
        eight=0,
        previous="1,-1,0",
        hands={0: "3H 9H", 1: "QH 5H"},
        kitty="2C 3C 4C 5C",
        avoid={0: lambda c: c.suit in (Suit.HEARTS, Suit.SPADES), 1: no_hearts},
    )
    act(state, "contract C")
    keep_kitty(state)
    assert state.phase == "draw" and state.to_act() == (0,)
    assert Action("draw", choice="1:S") not in state.legal_actions(0)  # X holds no spade
    with pytest.raises(IllegalAction):
        act(state, "draw 1:S")
    act(state, "draw 1:H")
    assert Card.parse("QH") in state.hands[0] and Card.parse("3H") in state.hands[1]
    assert Card.parse("9H") in state.hands[0] and Card.parse("5H") in state.hands[1]
    assert state.credit[0] == 0 and state.debt[1] == 0 and state.phase == "play"
    drawn = next(e for e in state.events() if e.kind == "drawn")
    assert drawn.audience == {0, 1} and drawn.data["suit"] == "H"
    assert drawn.cards == tuple(parse_cards("3H QH"))


def test_scenario_5_opponent_void_moves_nothing():
    state = new(
        eight=0,
        previous="1,-1,0",
        hands={0: "3H 9H"},
        kitty="2C 3C 4C 5C",
        avoid={1: no_hearts},
    )
    act(state, "contract C")
    keep_kitty(state)
    hands = [sorted(h) for h in state.hands]
    act(state, "draw 1:H")
    assert [sorted(h) for h in state.hands] == hands
    assert state.credit[0] == 0 and state.debt[1] == 0  # one credit used
    drawn = next(e for e in state.events() if e.kind == "drawn")
    assert drawn.cards == () and drawn.audience == {0, 1}


def test_scenario_6_no_trump_skips_the_draws():
    state = new(eight=0, previous="2,-1,-1")
    act(state, "contract NT")
    keep_kitty(state)
    assert state.phase == "play" and state.trump is None
    assert [state.view(0).counters[f"credit:{s}"] for s in range(3)] == [0, 0, 0]
    play_deal(state)
    row = state.deal_log[-1]["points"]
    credits = [state.view(0).counters[f"credit:{s}"] for s in range(3)]
    assert credits == [max(0, p) for p in row]  # only this deal's over-tricks carry on


def test_scenario_7_follow_suit_else_any_card():
    state = new(
        eight=0,
        hands={0: "KC", 1: "9D 8H", 2: "4C 10D"},
        kitty="2S 3S 4S 5S",
        avoid={1: no_clubs},
    )
    to_phase(state, "play", contract="D")
    act(state, "play KC")
    assert {a.card for a in state.legal_actions(1)} == set(state.hands[1])  # void: any card
    act(state, f"play {sorted(state.hands[1])[0]}")
    clubs = {c for c in state.hands[2] if c.suit == Suit.CLUBS}
    assert clubs and {a.card for a in state.legal_actions(2)} == clubs
    assert repr(state.rules) == repr(trick_rules("three-five-eight", trump=Suit.DIAMONDS))


def test_scenario_8_score():
    assert quota_family.results([6, 3, 7], [8, 5, 3]) == [-2, -2, 4]
    state = new(eight=0)
    play_deal(state)
    record = state.deal_log[0]
    assert record["points"] == [t - q for t, q in zip(record["tricks"], [8, 5, 3], strict=True)]
    assert state.view(1).scores == tuple(float(p) for p in record["points"])


def test_scenario_9_end_after_15_counted_deals():
    state = new(eight=0)
    act(state, "pas")
    for _ in range(14):
        play_deal(state)
    assert not state.is_over() and state.counted == 14
    play_deal(state)
    assert state.is_over() and state.counted == 15 and state.dealt == 16
    assert sum(1 for e in state.events() if e.kind == "score") == 15
    assert all(sorted(u) == sorted(tr.CONTRACTS) for u in state.used)
    res = state.result()
    assert res.scores == tuple(float(p) for p in state.scores) and len(res.deals) == 15


# -- visibility ---------------------------------------------------------------------------------


def _random_match(seed: int, **options):
    state = SPEC.new_match(players=3, options={"previous": "2,-1,-1", **options}, seed=seed)
    return state


def test_draws_are_seen_by_their_two_seats_only():
    for seed in range(20):
        state = _random_match(seed, deal=2)
        watch = LeakWatch(state)
        for _ in random_steps(state, random.Random(seed)):
            watch.observe()
        watch.close()
        for e in state.events():
            if e.kind == "drawn":
                assert e.audience == {e.seat, e.data["opponent"]}
                third = ({0, 1, 2} - e.audience).pop()
                assert e.seq not in {x.seq for x in state.view(third).history}


def test_the_kitty_and_the_swap_are_the_8_seats_and_the_final_kitty_never_shown():
    for seed in range(20):
        state = _random_match(seed, deals=2)
        rng = random.Random(seed)
        finals: list[tuple[int, set[Card], int]] = []  # (first seq of the deal, kitty, 8-seat)
        start = 0
        while not state.is_over():
            if state.phase == "announce":
                start = max(e.seq for e in state.events() if e.kind == "deal")
            elif state.phase == "play" and (not finals or finals[-1][0] != start):
                finals.append((start, set(state.kitty), state.eight))
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        for e in state.events():
            if e.kind in ("swap", "keep"):
                assert e.audience == {e.seat}
        starts = [e.seq for e in state.events() if e.kind == "deal"] + [state.event_count()]
        for first, kitty, eight in finals:
            end = min(q for q in starts if q > first)  # the deal's events, up to the next deal
            for s in set(range(3)) - {eight}:
                for e in state.view(s).history:
                    if first <= e.seq < end:
                        assert not set(e.cards) & kitty, (seed, s, e)
            last = state.view((state.eight + 1) % 3)  # the match is over: still face down
            assert "kitty" not in last.zones and "kitty" in state.view(state.eight).zones


def test_how_many_cards_were_swapped_is_private():
    def after(swaps: int):
        state = new(eight=0, kitty="AS AH AD AC")
        act(state, "contract S")
        low = sorted(state.hands[0])
        for i in range(4):
            act(state, f"swap {low[i]}" if i < swaps else "keep")
        return state

    views = [after(k).view(1) for k in (0, 2, 4)]
    assert views[0].to_act == views[1].to_act == views[2].to_act
    shape = [[(e.seq, e.kind, e.seat, e.data) for e in v.history] for v in views]
    assert shape[0] == shape[1] == shape[2]


# -- the duplicate unit, worlds -----------------------------------------------------------------


def test_one_deal_match_is_counted_deal_k_with_its_history():
    state = SPEC.new_match(players=3, options={"deal": 7, "first": 1}, seed=5)
    c = state.view(0).counters
    assert c["deal"] == 7 and c["eight"] == (1 + 6) % 3
    assert [len(u) for u in state.used] == [2, 2, 2]
    twin = SPEC.new_match(players=3, options={"deal": 7, "first": 1}, seed=5)
    assert state.hands == twin.hands and state.used == twin.used
    play_deal(state)
    assert state.is_over() and len(state.result().deals) == 1
    assert state.result().scores == tuple(float(p) for p in state.deal_log[0]["points"])


def test_a_world_puts_the_drawn_cards_where_the_drawer_knows_them():
    state = new(
        eight=0,
        previous="1,-1,0",
        hands={0: "3H 9H", 1: "QH 5H"},
        kitty="2C 3C 4C 5C",
        avoid={0: lambda c: c.suit in (Suit.HEARTS, Suit.SPADES), 1: no_hearts},
    )
    act(state, "contract C")
    keep_kitty(state)
    act(state, "draw 1:H")
    rng = random.Random(3)
    for _ in range(30):
        world = SPEC.world_from_view(state.view(0), rng)
        assert Card.parse("3H") in world.hands[1]
        assert not any(c.suit == Suit.HEARTS and c.rank > 12 for c in world.hands[1])
        other = SPEC.world_from_view(state.view(1), rng)
        assert Card.parse("QH") in other.hands[0]
        assert not any(c.suit == Suit.HEARTS and c.rank < 3 for c in other.hands[0])
    for seat in range(3):
        check_world_from_view(state, seat, rng)


def test_worlds_of_the_8_seat_keep_its_kitty():
    state = new(eight=0, kitty="AS AH AD AC")
    act(state, "contract S")
    act(state, f"swap {sorted(state.hands[0])[0]}")
    rng = random.Random(1)
    for _ in range(10):
        world = SPEC.world_from_view(state.view(0), rng)
        assert world.kitty == state.kitty and world.from_kitty == state.from_kitty
        assert world.legal_actions(0) == state.legal_actions(0)
