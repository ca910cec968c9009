"""Toci: every scenario of the rules (the numbered tests follow the spec's list), the options,
positions, worlds rebuilt from views, and the heuristic bot. The generic conformance suite
(``tests/engine/test_conformance.py``) enrolls Toci by its registration."""

from __future__ import annotations

import dataclasses
import random

import pytest

from levata.bots.heuristic.toci import HeuristicBot
from levata.bots.search.ismcts import IsmctsBot
from levata.engine import Action, BadConfig, Card, GameSpec, IllegalAction, game, parse_cards
from levata.engine.games.toci import (
    PASS,
    PLACE_HOUSE,
    PLACE_OWN,
    REVEAL,
    SPEC,
    STOCK,
    TOCI,
    WINDOW,
    TociState,
    correct,
    place_on,
)
from levata.engine.games.toci.world import replay
from levata.engine.testing import (
    check_position,
    check_positions,
    check_world_from_view,
    new_random_match,
    play_checked,
    random_steps,
)
from levata.server.match.replay import replay_match
from levata.v1 import admin_pb2, arena_pb2, game_pb2

from live import RawBot, bot_process

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


@pytest.mark.parametrize(
    ("players", "options"), [(2, {}), (4, {}), (7, {}), (3, {"house_by_suit": True})]
)
def test_fast_playout_copy_plays_as_the_heuristic_bot(players, options):
    """The search's rollout policy (``choose``) and the heuristic bot agree at every step, and
    the copy logs nothing."""
    state = SPEC.new_match(players=players, seed=players, options=options)
    bots = [HeuristicBot(seed=s) for s in range(players)]
    fast, slow = state.playout_state(seed=1), state.python_playout_state(seed=1)
    steps = 0
    while not state.is_over() and steps < 1500:
        seat = state.to_act()[0]
        action = bots[seat].act(state.view(seat), state.legal_actions(seat))
        assert fast.choose(seat) == slow.choose(seat) == action
        assert fast.to_act() == slow.to_act() == state.to_act()
        state.apply(seat, action)
        fast._apply(seat, action)
        slow._apply(seat, action)
        steps += 1
    assert slow.events() == [] and fast.estimate() == slow.estimate() == state.estimate()


@pytest.mark.parametrize(
    ("players", "options"),
    [(3, {}), (6, {"toci_penalty": "skip_next_turn"}), (4, {"house_by_suit": True})],
)
def test_careful_rollout_is_the_careful_moves_one_by_one(players, options):
    """The rollout's shortcut (no actions built, a window in one step) ends where choosing
    each move with ``choose`` and applying it does."""
    state = SPEC.new_match(players=players, seed=11, options=options)
    bots = [HeuristicBot(seed=s) for s in range(players)]
    for _ in range(150):  # a window open, a kept card on a pile: the shortcut starts anywhere
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    for limit in (5, 0):  # five turns, then to the end
        fast, slow = state.python_playout_state(seed=2), state.python_playout_state(seed=2)
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


# -- house_by_suit: one house per A, suits must match there (D3) ---------------------------------

BY_SUIT = {"house_by_suit": True}


def test_by_suit_every_ace_opens_a_house_of_its_own():
    state = TociState.set_up(3, circle="AD AC 2C", options=BY_SUIT)
    assert state.legal_actions(0) == [PLACE_HOUSE, PLACE_OWN]
    state.apply(0, PLACE_HOUSE)
    state.apply(0, PLACE_HOUSE)  # AC: a second house, not on AD
    assert state.houses == parse_cards("AD AC") and state.view(1).facts["houses"] == ["AD", "AC"]
    state.apply(0, PLACE_HOUSE)  # 2C goes on the clubs
    assert state.houses == parse_cards("AD 2C") and _last(state, "place_house").data["house"] == 1


def test_by_suit_a_card_fits_only_the_house_of_its_suit():
    """Scenario 2 with the variant: house top 4D, 5C does not fit the house; 5D does."""
    state = TociState.set_up(3, house="AD 2D 3D 4D", circle="5C 5D", options=BY_SUIT)
    assert state.legal_actions(0) == [PLACE_OWN]
    state.apply(0, PLACE_OWN)
    _window(state, {1: TOCI})  # 5C fitted nowhere: the call is invalid
    assert not _last(state, "window").data["fitted"] and state.skips == [0, 0, 0]
    assert PLACE_HOUSE in state.legal_actions(1)  # 5D on 4D
    default = TociState.set_up(3, house="AD 2D 3D 4D", circle="5C")
    assert PLACE_HOUSE in default.legal_actions(0)  # one house ignores suits


def test_by_suit_piles_still_ignore_suits_and_cycle():
    """Scenario 4 with the variant: the piles take any suit, K then A; an A on the house opens
    a house whatever is on the others."""
    state = TociState.set_up(2, piles=["", "KH"], house="AC", circle="AS", options=BY_SUIT)
    assert state.legal_actions(0) == [PLACE_HOUSE, place_on(1), PLACE_OWN]
    state = TociState.set_up(2, piles=["", "9H"], house="AC 2C", circle="10S", options=BY_SUIT)
    assert state.legal_actions(0) == [place_on(1), PLACE_OWN]


def test_by_suit_a_house_topped_by_its_k_is_complete():
    clubs = "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"
    options = {**BY_SUIT, "decks": "2"}
    state = TociState.set_up(2, house=clubs, circle="AC 2C 4C", options=options)
    state.apply(0, PLACE_HOUSE)  # the second deck's AC opens a house, it does not go on KC
    assert state.houses == parse_cards("KC AC")
    state.apply(0, PLACE_HOUSE)
    assert state.houses == parse_cards("KC 2C")
    assert state.legal_actions(0) == [PLACE_OWN]  # 4C: no house of clubs topped by a 3


def test_by_suit_two_houses_with_equal_tops_take_a_card_on_the_first():
    options = {**BY_SUIT, "decks": "2"}
    state = TociState.set_up(2, house="AH AH 2H 2H", circle="3H", options=options)
    state.apply(0, PLACE_HOUSE)
    assert state.houses == parse_cards("3H 2H")


def test_by_suit_strict_mode_and_corrections_follow_the_suits():
    strict = TociState.set_up(
        3,
        piles=["", "4S", ""],
        house="AD 2D 3D",
        circle="4C",
        options={**BY_SUIT, "toci_mode": "strict"},
    )
    assert strict.legal_actions(0) == [PLACE_OWN]  # 4C fits neither 3D nor 4S
    state = TociState.set_up(3, house="AD 2D 3D", circle="4D 9S", options=BY_SUIT)
    state.apply(0, PLACE_OWN)
    assert state.legal_actions(0) == [PASS, correct("house")]
    _window(state, {0: correct("house")})
    assert state.houses == parse_cards("4D") and state.revealed == [C("9S")]


def test_by_suit_set_up_refuses_houses_that_cannot_be():
    with pytest.raises(BadConfig):
        TociState.set_up(2, house="AC 3C", options=BY_SUIT)


def test_by_suit_the_heuristic_calls_only_what_fitted_by_suit():
    state = TociState.set_up(3, house="AD 2D 3D 4D", circle="5C 2H", options=BY_SUIT)
    state.apply(0, PLACE_OWN)
    bot = HeuristicBot(seed=0)
    assert bot.act(state.view(1), state.legal_actions(1)) == PASS
    missed = TociState.set_up(3, house="AD 2D 3D 4D", circle="5D 2H", options=BY_SUIT)
    missed.apply(0, PLACE_OWN)
    assert bot.act(missed.view(1), missed.legal_actions(1)) == TOCI
    assert bot.act(missed.view(0), missed.legal_actions(0)) == correct("house")


# -- real time: the window stays open until the next seat turns up --------------------------------

REALTIME = {"mode": "realtime"}


def _missed_seven_now(**options) -> TociState:
    state = _missed_seven(**REALTIME, **options)
    state.advance_clock(40)
    return state


def test_realtime_the_window_offers_each_seat_its_moves():
    state = _missed_seven_now()
    assert state.to_act() == (0, 1, 2) and state.next_up() == 1
    assert state.legal_actions(0) == [PASS, correct(1)]
    assert state.legal_actions(1) == [REVEAL, TOCI]  # the next seat: it closes the window
    assert state.legal_actions(2) == [PASS, TOCI]


def test_realtime_the_first_toci_to_arrive_wins_at_once():
    state = _missed_seven_now()
    state.apply(2, TOCI)
    window = _last(state, "window")
    assert window.data["caller"] == 2 and window.data["at_ms"] == 40
    assert state.phase != WINDOW and state.piles[0] == [C("7C")]
    assert state.actor == 1 and state.revealed == [C("2H")]  # the next seat's turn
    with pytest.raises(IllegalAction):
        state.apply(0, correct(1))  # too late


def test_realtime_a_correction_before_any_toci_is_applied_at_once():
    state = _missed_seven_now()
    state.apply(0, correct(1))
    assert _last(state, "window").data["caller"] == -1
    assert state.piles[1] == [C("6S"), C("7C")] and state.actor == 0
    assert state.revealed == [C("2H")]
    with pytest.raises(IllegalAction):
        state.apply(2, TOCI)


def test_realtime_the_window_stays_open_until_the_next_seat_turns_up():
    state = _missed_seven_now()
    state.apply(0, PASS)
    state.apply(2, PASS)
    assert state.phase == WINDOW and state.to_act() == (1,)
    assert not any(e.kind == "window" for e in state.events())  # nothing said yet
    state.apply(1, REVEAL)
    window = _last(state, "window")
    assert window.data["fitted"] and window.data["callers"] == []
    assert state.actor == 1 and state.revealed == [C("2H")] and state.piles[0] == [C("7C")]


def test_realtime_a_call_on_a_card_that_fitted_nowhere_waits_and_does_nothing():
    state = TociState.set_up(3, piles=["", "6S", "KD"], circle="9C 2H", options=REALTIME)
    state.apply(0, PLACE_OWN)
    before = len(state.events())
    state.apply(2, TOCI)
    assert len(state.events()) == before and state.phase == WINDOW  # nothing said yet
    assert state.to_act() == (0, 1) and state.view(2).counters["submitted"] == 1
    state.apply(1, TOCI)  # the next seat calls and turns up in one go
    window = _last(state, "window")
    assert not window.data["fitted"] and window.data["callers"] == [1, 2]
    assert window.data["caller"] == -1 and state.actor == 1


def test_realtime_skip_next_turn_and_the_next_seat():
    state = _missed_seven_now(toci_penalty="skip_next_turn")
    state.apply(1, TOCI)
    assert state.skips[0] == 1 and state.actor == 1
    state.apply(1, PLACE_OWN)  # 2H fits nowhere; seat 0 will lose its turn
    assert state.next_up() == 2
    state.apply(2, TOCI)  # invalid, and the next seat turns up with it
    assert state.actor == 2
    state.apply(2, PLACE_OWN)
    assert state.next_up() == 1 and state.legal_actions(1)[0] == REVEAL


def test_realtime_the_last_circle_card_turns_the_piles_over_when_the_next_seat_turns_up():
    state = TociState.set_up(3, piles=["3S 9D", "2C", "4C"], circle="QH", under="house",
                             options=REALTIME)  # fmt: skip
    state.apply(0, PLACE_OWN)
    assert state.phase == WINDOW and state.view(0).facts["stage"] == "circle"
    state.apply(1, REVEAL)
    assert state.view(0).facts["stage"] == STOCK and state.stocks[0][-1] == C("3S")
    assert state.actor == 1 and state.revealed == [C("2C")]


def test_realtime_the_bots_call_correct_or_turn_up_at_once():
    bot = HeuristicBot(seed=0)
    search = IsmctsBot("toci", seed=1, iterations=5, time_ms=0)
    missed = _missed_seven_now()
    assert bot.act(missed.view(1), missed.legal_actions(1)) == TOCI  # the next seat calls
    assert bot.act(missed.view(0), missed.legal_actions(0)) == correct(1)
    fine = TociState.set_up(3, piles=["", "6S", "KD"], circle="9C 2H", options=REALTIME)
    fine.apply(0, PLACE_OWN)
    fast = fine.playout_state(seed=1)
    for seat, move in ((1, REVEAL), (2, PASS), (0, PASS)):
        assert bot.act(fine.view(seat), fine.legal_actions(seat)) == move
        assert search.act(fine.view(seat), fine.legal_actions(seat)) == move
        assert fast.choose(seat) == move
    assert search.stats.decisions == 0  # settled: no search


def test_realtime_positions_and_worlds_keep_who_is_still_in():
    rng = random.Random(4)
    state = _missed_seven_now()
    check_position(state, rng)
    state.apply(2, PASS)
    check_position(state, rng)
    nothing = TociState.set_up(3, piles=["", "6S", "KD"], circle="9C 2H", options=REALTIME)
    nothing.apply(0, PLACE_OWN)
    nothing.apply(2, TOCI)
    check_position(nothing, rng)
    for seat in (0, 1, 2):
        world = check_world_from_view(nothing, seat, rng, moves=20)
        assert world.to_act() == (0, 1) and world.legal_actions(1) == [REVEAL, TOCI]
    again = SPEC.from_position(nothing.position())
    assert again.to_act() == (0, 1) and again.submissions[2] == TOCI
    again.apply(1, REVEAL)
    assert _last(again, "window").data["callers"] == [2]


# -- conformance with the options pinned ------------------------------------------------------


def _pinned(**values) -> GameSpec:
    """Toci with some options fixed. The conformance suite's variants flip every two-valued
    option together: it plays call windows in real time with one house, and strict mode in
    ticks with one house per A, never a tick window (with either kind of house)."""
    options = tuple(
        dataclasses.replace(o, choices=(values[o.name],)) if o.name in values else o
        for o in SPEC.options
    )
    return dataclasses.replace(SPEC, options=options)


PINNED = [  # (options, the conformance suite's match number: 0 plays 2 seats, 1 plays 3)
    ({"toci_mode": "call", "mode": "tick", "house_by_suit": True}, 1),
    ({"toci_mode": "call", "mode": "tick", "house_by_suit": False}, 0),
]


@pytest.mark.parametrize(("pins", "i"), PINNED, ids=["tick-by-suit", "tick"])
def test_conformance_checks_with_the_options_pinned(pins, i):
    """The suite's checks on one short match each (leaks, conservation, illegal actions,
    clones, samples), positions, and worlds rebuilt from views along another."""
    spec = _pinned(**pins)
    state = play_checked(spec, i, seed=70 + i, sample_every=5)
    assert all(state.options[k] == v for k, v in pins.items())
    assert check_positions(spec, matches=1, every=40) > 0
    state, _ = new_random_match(spec, 2, seed=5)
    rng = random.Random(5)
    for step, _ in enumerate(random_steps(state, rng)):
        if step % 40 == 0 and not state.is_over():
            check_world_from_view(state, step % state.players, rng, moves=30)


def test_realtime_match_of_bot_processes_over_the_referee_runs_to_the_end(server, tmp_path):
    """Real time on the referee's path: the search and a random seat, each its own process,
    one house per A too. Every window ends by the first call, a correction or the next
    seat's reveal; the record replays. (Bots this quick race through windows faster than
    the referee's allowance of refused replies, the losers of each race: a seat past it has
    replies dropped and waits out its move clock, kept short here.)"""
    kinds = ["ismcts", "random"]
    names = [f"rt-{k}" for k in kinds]
    procs = [
        bot_process(k, "toci", server, server.add_bot(n), seed=i, log=tmp_path / f"{n}.log")
        for i, (k, n) in enumerate(zip(kinds, names, strict=True))
    ]
    options = {"mode": "realtime", "house_by_suit": "true"}
    match_id = server.create(
        "toci", names, seed=4, options=options, move_ms=250, bank_ms=0, max_strikes=100
    )
    info = server.wait(match_id, timeout=120)
    for p in procs:
        assert p.wait(timeout=30) == 0, (tmp_path / f"{names[0]}.log").read_text()
    assert info.status == admin_pb2.MATCH_STATUS_FINISHED and not info.result.forfeited
    assert info.result.reason == "complete"
    events = server.store.events(match_id)
    windows = [e["data"] for e in events if e["kind"] == "window"]
    assert windows and all("at_ms" in w for w in windows)
    assert any(e["kind"] == "place_house" and e["data"]["house"] > 0 for e in events)
    clocks = [a["clock_ms"] for a in server.store.actions(match_id)]
    assert clocks == sorted(clocks) and clocks[-1] > 0
    ok, why = replay_match(server.store, match_id)
    assert ok, why


def test_realtime_a_window_closed_before_a_seat_answered_settles_its_request(server):
    """The next seat's reveal closes the window while the actor's request in it is still
    unanswered: the referee settles that request (no strike later on its clock), so the
    actor's late reply is stale, not an illegal move."""
    raw = RawBot(server, server.add_bot("rt-raw"))
    raw.next("welcome")
    server.create("toci", ["rt-raw"] * 2, seed=1, options={"mode": "realtime"})
    first = raw.next("request")
    assert (first.seat, first.view.phase) == (0, "circle")
    raw.reply(first, index=None, action=game_pb2.Action(notation="place_own"))
    window: dict[int, arena_pb2.DecisionRequest] = {}
    while len(window) < 2:
        req = raw.next("request")
        if req.view.phase == "window":
            window[req.seat] = req
    raw.reply(window[1], index=None, action=game_pb2.Action(notation="reveal"))
    assert raw.next("applied").seat == 1
    raw.reply(window[0], index=None, action=game_pb2.Action(notation="pass"))
    error = raw.next("error")
    assert error.code == arena_pb2.REPLY_ERROR_CODE_STALE_VERSION, error.message
    raw.close()
