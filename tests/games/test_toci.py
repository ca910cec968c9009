"""Toci: every scenario of the rules (the numbered tests follow the spec's list), the options,
positions, worlds rebuilt from views, and the heuristic bot. The generic conformance suite
(``tests/engine/test_conformance.py``) enrolls Toci by its registration."""

from __future__ import annotations

import random

import pytest

from levata.bots.heuristic.toci import HeuristicBot
from levata.bots.search.ismcts import IsmctsBot
from levata.engine import Action, BadConfig, Card, IllegalAction, game, parse_cards
from levata.engine.games.toci import (
    PASS,
    PLACE_HOUSE,
    PLACE_OWN,
    SPEC,
    STOCK,
    TOCI,
    WINDOW,
    TociState,
    correct,
    place_on,
)
from levata.engine.games.toci.world import replay
from levata.engine.testing import check_position, check_world_from_view

C = Card.parse


def _window(state: TociState, calls: dict[int, Action]) -> None:
    """Submit the window: ``calls`` per seat, ``pass`` for the rest."""
    assert state.phase == WINDOW
    for seat in state.to_act():
        state.apply(seat, calls.get(seat, PASS))


def _last(state: TociState, kind: str):
    return [e for e in state.events() if e.kind == kind][-1]


def test_1_empty_house_takes_only_an_ace():
    state = TociState.set_up(3, circle="5H 9C")
    assert state.legal_actions(0) == [PLACE_OWN]
    with pytest.raises(IllegalAction):
        state.apply(0, PLACE_HOUSE)
    state.apply(0, PLACE_OWN)
    _window(state, {})
    assert state.piles[0] == [C("5H")] and state.actor == 1


def test_2_house_fit_ignores_suits_and_the_turn_goes_on():
    state = TociState.set_up(3, house="AD 2D 3D 4D", circle="5C 9S")
    assert PLACE_HOUSE in state.legal_actions(0)
    state.apply(0, PLACE_HOUSE)
    assert state.house[-1] == C("5C") and state.actor == 0 and state.revealed == [C("9S")]


def test_3_another_pile_fits_and_strict_mode_refuses_to_keep_it():
    state = TociState.set_up(3, piles=["", "9S", ""], circle="10H")
    assert state.legal_actions(0) == [place_on(1), PLACE_OWN]
    strict = TociState.set_up(
        3, piles=["", "9S", ""], circle="10H", options={"toci_mode": "strict"}
    )
    assert strict.legal_actions(0) == [place_on(1)]
    with pytest.raises(IllegalAction):
        strict.apply(0, PLACE_OWN)


def test_4_the_cycle_goes_from_k_to_a_on_the_house_and_on_piles():
    state = TociState.set_up(2, house="KC", circle="AD")
    assert state.legal_actions(0) == [PLACE_HOUSE, PLACE_OWN]
    state = TociState.set_up(2, piles=["", "KH"], house="AC", circle="AS")
    assert state.legal_actions(0) == [place_on(1), PLACE_OWN]


def test_5_the_own_pile_is_never_a_fit():
    state = TociState.set_up(3, piles=["6C", "", ""], circle="7D")
    assert state.legal_actions(0) == [PLACE_OWN]


def test_6_the_transition_turns_each_pile_over():
    state = TociState.set_up(3, piles=["3S 9D", "2C", "4C"], circle="QH", under="house")
    state.apply(0, PLACE_OWN)  # the last circle card: A's pile is 3S 9D QH, bottom first
    _window(state, {})
    assert state.view(0).facts["stage"] == STOCK
    assert state.piles[0] == [] and state.stocks[0][-1] == C("3S") and len(state.stocks[0]) == 3
    assert state.actor == 1 and state.revealed == [C("2C")]  # the seat after the last actor


def test_6b_seats_with_no_cards_at_the_transition_share_the_best_rank():
    state = TociState.set_up(4, piles=["3S", "", "", "4C"], circle="QH", under="house")
    state.apply(0, PLACE_OWN)
    _window(state, {})
    assert state.places == [0, 1, 1, 0] and state.finished == [1, 2]


def test_7_an_empty_stock_is_refilled_by_turning_the_pile_over():
    state = TociState.set_up(2, piles=["JS 2D", "5C"], circle="")
    flipped = _last(state, "flipped")
    assert (flipped.seat, flipped.data["count"]) == (0, 2)
    assert state.revealed == [C("JS")] and state.stocks[0] == [C("2D")]


def test_8_placing_the_last_card_finishes_the_seat():
    state = TociState.set_up(3, stocks=["4H", "9S 8S", "7D"], house="2C 3C", circle="")
    state.apply(0, PLACE_HOUSE)
    assert state.places[0] == 1 and state.finished == [0] and not state.is_over()
    assert state.actor == 1


def _missed_seven(**options) -> TociState:
    state = TociState.set_up(3, piles=["", "6S", "KD"], circle="7C 2H", options=options)
    state.apply(0, PLACE_OWN)  # 7C fitted on seat 1's 6S
    return state


def test_9_a_valid_toci_keeps_the_card_and_ends_the_turn():
    state = _missed_seven()
    _window(state, {2: TOCI, 0: correct(1)})
    window = _last(state, "window")
    assert window.data["fitted"] and window.data["caller"] == 2
    assert state.piles[0] == [C("7C")] and state.piles[1] == [C("6S")] and state.actor == 1


def test_9b_the_first_caller_clockwise_from_the_actor_is_named():
    state = _missed_seven()
    assert state.priority() == [1, 2, 0]
    _window(state, {1: TOCI, 2: TOCI})
    assert _last(state, "window").data["caller"] == 1


def test_9c_skip_next_turn_costs_the_missing_seat_its_next_turn():
    state = _missed_seven(toci_penalty="skip_next_turn")
    _window(state, {1: TOCI})
    assert state.skips[0] == 1
    state.apply(1, PLACE_OWN)  # 2H fits nowhere
    _window(state, {})
    state.apply(2, PLACE_OWN)
    _window(state, {})
    assert state.actor == 1 and _last(state, "skipped").seat == 0


def test_10_a_late_correction_moves_the_card_and_the_turn_goes_on():
    state = _missed_seven()
    _window(state, {0: correct(1)})
    assert state.piles[1] == [C("6S"), C("7C")] and state.piles[0] == []
    assert state.actor == 0 and state.revealed == [C("2H")]


def test_11_a_call_on_a_card_that_fitted_nowhere_is_invalid_and_does_nothing():
    state = TociState.set_up(3, piles=["", "6S", "KD"], circle="9C 2H")
    state.apply(0, PLACE_OWN)
    assert state.legal_actions(0) == [PASS]  # nothing to correct
    _window(state, {2: TOCI})
    window = _last(state, "window")
    assert not window.data["fitted"] and window.data["callers"] == [2]
    assert window.data["caller"] == -1 and state.actor == 1 and state.skips == [0, 0, 0]


def test_12_the_last_seat_holding_cards_is_the_tocit():
    state = TociState.set_up(3, stocks=["4H", "5H", "9S 9D"], house="2C 3C", circle="")
    state.apply(0, PLACE_HOUSE)
    state.apply(1, PLACE_HOUSE)
    result = state.result()
    assert result.ranks == (1, 2, 3) and result.deals[0]["tocit"] == 2
    assert result.scores == (2.0, 1.0, 0.0) and _last(state, "end").data["tocit"] == 2


@pytest.mark.parametrize("players", [2, 4])
def test_13_no_view_names_a_circle_card_before_it_is_turned_up(players):
    state = game("toci").new_match(players=players, seed=players)
    rng = random.Random(players)
    while not state.is_over() and state.view(0).facts["stage"] == "circle":
        hidden = set(state.circle)
        for seat in range(players):
            assert not set(state.view(seat).cards_named()) & hidden
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_submissions_in_a_window_stay_hidden_until_it_resolves():
    state = _missed_seven()
    before = len(state.events())
    state.apply(2, TOCI)
    assert len(state.events()) == before and state.view(1).counters["submitted"] == 0
    assert state.view(2).counters["submitted"] == 1 and 2 not in state.to_act()


def test_stalemate_ends_the_match_ranked_by_fewest_cards():
    # Nothing can ever go anywhere: each seat turns up its own cards and keeps them.
    state = TociState.set_up(2, stocks=["5S 5D", "9C"], house="AC 2C", circle="")
    for _ in range(1000):
        if state.is_over():
            break
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[-1])
    result = state.result()
    assert result.reason == "stalemate" and result.ranks == (2, 1)


def test_reveal_cap_ends_the_match():
    state = SPEC.new_match(players=3, seed=1, options={"reveal_cap": 10})
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[-1])
    assert state.result().reason == "cap" and state.reveals == 10


@pytest.mark.parametrize(
    ("players", "decks", "cards"), [(5, "auto", 52), (6, "auto", 104), (8, "1", 52)]
)
def test_decks(players, decks, cards):
    state = SPEC.new_match(players=players, seed=1, options={"decks": decks})
    assert len(state.circle) + len(state.revealed) == cards


def test_options_and_deals_are_checked():
    with pytest.raises(BadConfig):
        SPEC.new_match(players=11)
    with pytest.raises(BadConfig):
        SPEC.new_match(players=3, options={"toci_mode": "loose"})
    with pytest.raises(BadConfig):
        SPEC.new_match(players=3, deal=parse_cards("AS KS"))


def test_hand_made_positions_round_trip_in_every_phase():
    rng = random.Random(3)
    for state in (
        TociState.set_up(3, piles=["", "9S", ""], circle="10H"),
        _missed_seven(),
        TociState.set_up(3, stocks=["4H", "9S 8S", "7D"], house="2C 3C", circle=""),
    ):
        check_position(state, rng)
    window = _missed_seven()
    window.apply(2, TOCI)  # one submission in: the position keeps it
    again = SPEC.from_position(window.position())
    again.apply(1, PASS)
    again.apply(0, correct(1))
    assert _last(again, "window").data["caller"] == 2


def test_worlds_rebuilt_from_views_know_the_stocks_from_the_history():
    state = SPEC.new_match(players=3, seed=9)
    rng = random.Random(9)
    bot = HeuristicBot(seed=1)
    for _ in range(400):
        seat = state.to_act()[0]
        state.apply(seat, bot.act(state.view(seat), state.legal_actions(seat)))
    assert state.view(0).facts["stage"] == STOCK and not state.is_over()
    assert replay(state.view(1)) == state.stocks
    world = check_world_from_view(state, 1, rng, moves=50)
    assert world.stocks == state.stocks and sorted(world.circle) == sorted(state.circle)


def test_heuristic_places_on_the_rival_nearest_to_going_out_and_calls_toci():
    bot = HeuristicBot(seed=0)
    state = TociState.set_up(
        3,
        piles=["", "9S", "3D 9D"],
        stocks=["10H KS", "4D 5D 6D", ""],
        house="AC 2C 3C 4C 5C 6C 7C 8C 9C",
        circle="",
    )
    assert state.revealed == [C("10H")]
    assert set(state.legal_actions(0)) == {PLACE_HOUSE, place_on(1), place_on(2), PLACE_OWN}
    assert bot.act(state.view(0), state.legal_actions(0)) == place_on(2)  # 2 cards < 4
    missed = _missed_seven()
    assert bot.act(missed.view(2), missed.legal_actions(2)) == TOCI
    assert bot.act(missed.view(0), missed.legal_actions(0)) == correct(1)
    fine = TociState.set_up(3, piles=["", "6S", "KD"], circle="9C 2H")
    fine.apply(0, PLACE_OWN)
    assert bot.act(fine.view(2), fine.legal_actions(2)) == PASS


@pytest.mark.parametrize("players", [2, 4, 7])
def test_fast_playout_copy_plays_as_the_heuristic_bot(players):
    """The search's rollout policy (``choose``) and the heuristic bot agree at every step, and
    the copy logs nothing."""
    state = SPEC.new_match(players=players, seed=players)
    bots = [HeuristicBot(seed=s) for s in range(players)]
    fast = state.playout_state(seed=1)
    steps = 0
    while not state.is_over() and steps < 1500:
        seat = state.to_act()[0]
        action = bots[seat].act(state.view(seat), state.legal_actions(seat))
        assert fast.choose(seat) == action and fast.to_act() == state.to_act()
        state.apply(seat, action)
        fast._apply(seat, action)
        steps += 1
    assert fast.events() == [] and fast.estimate() == state.estimate()


@pytest.mark.parametrize(("players", "options"), [(3, {}), (6, {"toci_penalty": "skip_next_turn"})])
def test_careful_rollout_is_the_careful_moves_one_by_one(players, options):
    """The rollout's shortcut (no actions built, a window in one step) ends where choosing
    each move with ``choose`` and applying it does."""
    state = SPEC.new_match(players=players, seed=11, options=options)
    bots = [HeuristicBot(seed=s) for s in range(players)]
    for _ in range(150):  # a window open, a kept card on a pile: the shortcut starts anywhere
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    for limit in (5, 0):  # five turns, then to the end
        fast, slow = state.playout_state(seed=2), state.playout_state(seed=2)
        assert fast.rollout("heuristic", limit) == (limit or fast.state.turns - state.turns)
        start = slow.state.turns
        while not slow.is_over() and (not limit or slow.state.turns - start < limit):
            for seat in slow.to_act() if slow.state.phase == WINDOW else slow.to_act()[:1]:
                slow._apply(seat, slow.choose(seat))
        assert fast.state.position() == slow.state.position()


def test_the_search_plays_the_windows_settled_moves_at_once():
    missed = _missed_seven()
    bot = IsmctsBot("toci", seed=1, iterations=5, time_ms=0)
    assert bot.act(missed.view(2), missed.legal_actions(2)) == TOCI
    assert bot.act(missed.view(0), missed.legal_actions(0)) == correct(1)
    assert bot.stats.decisions == 0  # no search was run for them
    placing = TociState.set_up(3, piles=["", "9S", ""], circle="10H")
    assert bot.act(placing.view(0), placing.legal_actions(0)) in placing.legal_actions(0)
    assert bot.stats.decisions == 1
