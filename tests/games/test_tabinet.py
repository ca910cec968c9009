"""Tabinet: every scenario of the rules' section 7, then the options, the playout copy, the
bot, positions and worlds. Seats 0, 1, 2, 3 play clockwise; with four, sides are {0, 2}
and {1, 3}."""

from __future__ import annotations

import pickle
import random

import pytest

from levata.bots.heuristic.tabinet import HeuristicBot
from levata.engine import Action, IllegalAction, game, parse_cards
from levata.engine.cards import french_deck
from levata.engine.games.tabinet import TabinetState
from levata.engine.games.tabinet.rules import card_points
from levata.engine.testing import check_position, check_world_from_view

SPEC = game("tabinet")


def pos(players: int, hands: list[str], **kw) -> TabinetState:
    return TabinetState.from_position(players, hands, **kw)


def act(state: TabinetState, *moves: str) -> None:
    for move in moves:
        state.apply(state.to_act()[0], Action.parse(move))


def legal(state: TabinetState) -> list[str]:
    return [str(a) for a in state.legal_actions(state.to_act()[0])]


def illegal(state: TabinetState, move: str) -> None:
    before = pickle.dumps(state)
    with pytest.raises(IllegalAction):
        state.apply(state.to_act()[0], Action.parse(move))
    assert pickle.dumps(state) == before


def dealt(first_four: str, players: int = 2, seed: int = 5) -> TabinetState:
    """A new match whose first player is dealt ``first_four``."""
    four = parse_cards(first_four)
    order = four + [c for c in french_deck() if c not in four]
    return SPEC.new_match(players, seed=seed, deal=order)  # type: ignore[return-value]


def names(cards) -> list[str]:
    return [str(c) for c in cards]


# -- section 7 --------------------------------------------------------------------------------


def test_1_refusal_allowed_makes_the_four_the_table():
    state = dealt("3S 5D KH 8C")
    first = state.first
    assert state.to_act() == (first,) and legal(state) == ["accept", "refuse"]
    act(state, "refuse")
    assert sorted(names(state.layout)) == sorted(["3S", "5D", "KH", "8C"])
    assert [len(h) for h in state.hands] == [6, 6] and len(state.stock) == 36
    assert state.phase == "play" and state.to_act() == (first,)
    refusal = next(e for e in state.events() if e.kind == "refuse")
    assert refusal.audience is None and sorted(names(refusal.cards)) == sorted(names(state.layout))


@pytest.mark.parametrize(
    ("four", "allowed"),
    [("KH 10S 3D 4D", False), ("2C AD 5S 6S", False), ("2H 3H 5S 6S", True)],
)
def test_2_refusal_needs_at_most_one_point_card(four, allowed):
    state = dealt(four)
    assert ("refuse" in legal(state)) is allowed
    if not allowed:
        illegal(state, "refuse")


def test_accept_gives_two_more_and_turns_four_up():
    state = dealt("KH 10S 3D 4D", players=3)
    first = state.first
    act(state, "accept")
    assert [len(h) for h in state.hands] == [6, 6, 6] and len(state.layout) == 4
    assert len(state.stock) == 30 and {"KH", "10S"} <= set(names(state.hands[first]))


def test_3_capture_validation():
    state = pos(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
    act(state, "capture 9H")
    assert legal(state) == ["take AD", "take 2H"]  # 5D is in no set of 9
    act(state, "take AD")
    illegal(state, "take 5D")  # {A, 8, 5}: 14 or 24
    illegal(state, "take AD")  # a card is taken once: sets never overlap
    act(state, "take 8C")
    illegal(state, "take 8C")
    assert legal(state) == ["take 2H", "done"]
    act(state, "take 2H", "take 7S")  # nothing more: the capture ends by itself
    assert names(state.layout) == ["5D"]
    assert names(state.piles[0]) == ["9H", "AD", "8C", "2H", "7S"]
    captured = state.events()[-1]
    assert captured.kind == "captured" and captured.data["sets"] == [["AD", "8C"], ["2H", "7S"]]
    assert state.to_act() == (1,) and state.last_capturer == 0


def test_fewer_sets_than_possible():
    state = pos(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
    act(state, "capture 9H", "take AD", "take 8C", "done")
    assert names(state.layout) == ["2H", "7S", "5D"]


def test_4_ace_high_sweeps():
    state = pos(2, ["AH 4C", "4D 5H"], table="5S 6C")
    act(state, "capture AH")  # only 11 captures here: no ace question
    assert legal(state) == ["take 5S"]
    act(state, "take 5S", "take 6C")
    assert state.layout == [] and state.side_tablas == [1, 0]
    assert state.events()[-1].kind == "tabla"


def test_a_played_ace_that_captures_both_ways_says_which():
    state = pos(2, ["AH 4C", "4D 2S"], table="AC 5S 6C")
    act(state, "capture AH")
    assert state.phase == "ace" and legal(state) == ["ace 1", "ace 11"]
    act(state, "ace 1")
    assert legal(state) == ["take AC"]
    state = pos(2, ["AH 4C", "4D 2S"], table="AC 5S 6C")
    act(state, "capture AH", "ace 11")
    assert legal(state) == ["take AC", "take 5S"]  # A (11) alone, or 5 + 6


def test_5_table_ace_counts_eleven():
    state = pos(2, ["KS 4C", "4D 2S"], table="AC 3D")
    act(state, "capture KS", "take AC", "take 3D")
    assert state.layout == [] and state.side_tablas == [1, 0]


@pytest.mark.parametrize("players", [2, 4])
def test_6_a_tabla_lifts_one_of_the_other_side(players):
    hands = ["9H 9S", "9C 9D"] if players == 2 else ["2H 2S", "9C 9D", "3H 3S", "3C 4S"]
    state = pos(players, hands, table="4C 5C", turn=1, tablas=[1, 0])
    act(state, "capture 9C", "take 4C", "take 5C")
    assert state.side_tablas == [0, 1]
    lifted = state.events()[-1]
    assert lifted.kind == "tabla" and lifted.data["lifted"] == 0
    if players == 2:  # side 1 sweeps again: side 0 has none left to lose
        act(state, "trail 9H", "capture 9D", "take 9H")
    else:
        act(state, "trail 3H", "capture 3C", "take 3H")
    assert state.side_tablas == [0, 2] and state.events()[-1].data["lifted"] is None
    assert state.view(0).counters["tablas:1"] == 2  # a side's count, shown on each seat


def test_7_three_players_nothing_cancels():
    state = pos(3, ["2H", "9C", "3H"], table="4C 5C", turn=1, tablas=[1, 0, 0])
    act(state, "capture 9C", "take 4C", "take 5C")
    assert state.side_tablas == [1, 1, 0]


def test_8_last_capturer_takes_the_rest_without_a_tabla():
    state = pos(2, ["4C", ""], table="9D", stock="", rest=1, last_capturer=1)
    act(state, "trail 4C")
    assert state.is_over() and state.layout == []
    assert {"4C", "9D"} <= set(names(state.piles[1])) and state.side_tablas == [0, 0]
    rest = [e for e in state.events() if e.kind == "rest"]
    assert rest and rest[0].seat == 1 and not any(e.kind == "tabla" for e in state.events())


def test_nobody_captured_leaves_the_table_unscored():
    state = pos(2, ["4C", ""], table="9D", stock="", rest=1)
    act(state, "trail 4C")
    assert names(state.layout) == ["9D", "4C"] and state.result().scores[0] == 0


def test_9_scoring():
    assert card_points(parse_cards("10D 2C AS 5H 10C")) == 6
    assert card_points(french_deck()) == 23
    state = pos(2, ["2H", ""], table="", stock="", piles=["10D 2C AS 5H 10C", ""], rest=1)
    state.side_tablas = [1, 0]
    act(state, "trail 2H")
    assert state.result().scores == (7.0, 17.0)  # 6 + a tabla; the rest hold 17 points
    assert state.result().ranks == (2, 1) and state.result().winners == (1,)


@pytest.mark.parametrize(("players", "sizes"), [(2, [6, 6, 6, 6]), (3, [6, 6, 4]), (4, [6, 6])])
def test_10_deal_sizes_and_the_first_player_after_each(players, sizes):
    state = SPEC.new_match(players, seed=players)
    bots = [HeuristicBot(seed=s) for s in range(players)]
    packets, leaders = [], []
    while not state.is_over():
        seat = state.to_act()[0]
        seen = state.event_count()
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
        for ev in state.events(seen):
            if ev.kind == "packet":
                packets.append(ev.data["size"])
                leaders.append(state.to_act()[0] if not state.is_over() else None)
    assert packets == sizes
    assert set(leaders) == {state.first}
    assert sum(len(p) for p in state.piles) + len(state.layout) == 52


def test_11_trailing_is_always_legal():
    state = pos(2, ["9D", "4C"], table="9C")
    assert legal(state) == ["capture 9D", "trail 9D"]


def test_forced_capture_option_forbids_trailing_when_a_capture_exists():
    state = pos(2, ["9D 3C", "4C"], table="9C", options={"forced_capture": True})
    assert legal(state) == ["capture 9D"]
    state = pos(2, ["8D 3C", "4C"], table="9C", options={"forced_capture": True})
    assert legal(state) == ["trail 3C", "trail 8D"]


def test_12_no_leak_of_the_first_four():
    state = dealt("3S 5D KH 8C", players=3)
    first = state.first
    four = set(state.hands[first])
    for seat in range(3):
        if seat != first:
            view = state.view(seat)
            assert view.counts[f"hand:{first}"] == 4 and not four & set(view.cards_named())
    act(state, "accept")
    bots = [HeuristicBot(seed=s) for s in range(3)]
    while not state.is_over():
        for seat in range(3):
            if seat != first:
                hidden = four & set(state.hands[first])
                assert not hidden & set(state.view(seat).cards_named())
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))


# -- options and results ----------------------------------------------------------------------


def test_teams_share_their_score():
    state = SPEC.new_match(4, seed=9)
    bots = [HeuristicBot(seed=s) for s in range(4)]
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    s = state.result().scores
    assert s[0] == s[2] and s[1] == s[3] and sum(s) >= 46  # 23 points each side's seats


def test_match_target_plays_rounds_with_the_dealer_rotating():
    state = SPEC.new_match(2, {"match_target": 40, "most_cards_bonus": 3}, seed=4)
    bots = [HeuristicBot(seed=s) for s in range(2)]
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].act(state.view(seat), state.legal_actions(seat)))
    rounds = state.result().deals
    assert len(rounds) >= 2 and max(state.totals) >= 40
    assert [r["dealer"] for r in rounds[:2]] == [rounds[0]["dealer"], 1 - rounds[0]["dealer"]]
    for r in rounds:  # 23 points, tablas, and the bonus when one side has more cards
        bonus = 3 if r["cards"][0] != r["cards"][1] else 0
        assert sum(r["points"]) == 23 + sum(r["tablas"]) + bonus


# -- the fast copy, the bot, positions, worlds ------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_copy_plays_by_the_rules_and_the_bots_policy(players):
    rng = random.Random(players)
    state = SPEC.new_match(players, {"forced_capture": players == 3}, seed=20 + players)
    bots = [HeuristicBot(seed=s) for s in range(players)]
    fast = state.playout_state(seed=1)
    while not state.is_over():
        seat = state.to_act()[0]
        legal_now = state.legal_actions(seat)
        assert fast.to_act() == state.to_act() and fast.legal_actions(seat) == legal_now
        assert fast.estimate() == state.estimate()
        mine = bots[seat].act(state.view(seat), legal_now)
        assert fast.choose(seat, "heuristic") == mine
        action = mine if rng.random() < 0.5 else rng.choice(legal_now)
        state.apply(seat, action)
        fast._apply(seat, action)
    assert fast.is_over() and fast.estimate() == state.result().scores


def test_playout_rollout_ends_the_round():
    state = SPEC.new_match(3, seed=2)
    fast = state.playout_state(seed=3)
    assert fast.rollout("heuristic") > 20 and fast.is_over()
    assert sum(fast.estimate()) >= 23
    assert state.playout_state(seed=3).rollout("random", max_actions=5) == 5


def test_heuristic_takes_the_sweep_and_keeps_points_in_hand():
    state = pos(2, ["KS 4C 10D", "4D 2S"], table="AC 3D")
    bot = HeuristicBot()
    assert str(bot.act(state.view(0), state.legal_actions(0))) == "capture KS"
    state = pos(2, ["AS 4C 10D", "4D 2S"], table="KH 9C")
    assert str(bot.act(state.view(0), state.legal_actions(0))) == "trail 4C"


def test_heuristic_beats_random():
    wins = 0
    for i in range(10):
        state = SPEC.new_match(2, seed=i)
        bots = [HeuristicBot(seed=i), None]
        rng = random.Random(i)
        while not state.is_over():
            seat = state.to_act()[0]
            legal_now = state.legal_actions(seat)
            bot = bots[seat]
            state.apply(
                seat, bot.act(state.view(seat), legal_now) if bot else rng.choice(legal_now)
            )
        wins += state.result().winners == (0,)
    assert wins >= 8


@pytest.mark.parametrize("moves", [0, 1, 2, 3, 5])
def test_positions_round_trip_in_every_phase(moves):
    """Mid-decision, mid-capture (the ace question, cards taken) and plain turns."""
    states = [dealt("3S 5D KH 8C", players=3)]
    capture = pos(2, ["AH 4C", "4D 2S"], table="AC 5S 6C 9D 2C")
    for move in ("capture AH", "ace 11", "take 5S")[:moves]:
        act(capture, move)
    states.append(capture)
    for state in states:
        text = state.position()
        assert SPEC.from_position(text).position() == text
        check_position(state, random.Random(moves), moves=None)


def test_worlds_from_views_mid_capture():
    state = pos(3, ["AH 4C", "4D 2S", "7C 8C"], table="AC 5S 6C 9D 2C")
    act(state, "capture AH", "ace 11")
    for seat in range(3):
        check_world_from_view(state, seat, random.Random(seat), moves=None)
