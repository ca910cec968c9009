"""Search bots play on from a position (``levata play --position``): the view of a match read
from a position is enough to rebuild worlds in every trick game (Banking from the session's
plan it shows, 3-5-8's 8-seat in the kitty from the cards its ``hand`` event says it took), so
``pimc`` and ``ismcts`` search at once, and play such a match to its end."""

from __future__ import annotations

import logging
import random
from dataclasses import replace

import pytest
from games.test_positions_banking import MID_TOUR

from levata.bots import make_bot, play_match
from levata.engine import NoWorld, game
from levata.engine.testing import check_world_from_view, new_random_match, random_steps


def _midway(name: str, players: int, options: dict, steps: int, seed: int = 3):
    """A match of random play ``steps`` actions in, written down and read back."""
    spec = game(name)
    state = spec.new_match(players=players, options=options, seed=seed)
    for _, _ in zip(range(steps), random_steps(state, random.Random(seed)), strict=False):
        pass
    return spec.from_position(state.position(), seed=seed)


@pytest.mark.parametrize(
    "name", ["tarneeb", "whist", "eight-five-three", "three-five-eight", "banking"]
)
def test_worlds_of_a_match_read_from_a_position_keep_the_contract(name):
    spec = game(name)
    checked = 0
    for i in range(2):
        state, _ = new_random_match(spec, i, 40 + i)
        for k, _ in enumerate(random_steps(state, random.Random(i))):
            if k % 9 == 4 and not state.is_over():
                again = spec.from_position(state.position(), seed=k)
                for seat in range(again.players):
                    check_world_from_view(again, seat, random.Random(seat), 12)
                    checked += 1
            if k > 120:
                break
    assert checked > 20


def test_the_eight_seat_searches_during_the_kitty_swaps_from_a_position():
    """The 8-seat swapped a kitty card before the position: its worlds keep that card its own
    (it may not give it back), so the search bots search rather than fall back."""
    spec = game("three-five-eight")
    state = spec.new_match(players=3, options={"first": 0}, seed=5)
    state.apply(0, next(a for a in state.legal_actions(0) if a.kind == "contract"))
    state.apply(0, state.legal_actions(0)[0])  # swap the first kitty card
    again = spec.from_position(state.position(), seed=1)
    assert again.phase == "kitty" and again.from_kitty
    for k in range(5):
        world = check_world_from_view(again, 0, random.Random(k), moves=6)
        assert world.from_kitty == again.from_kitty
    ismcts = make_bot("ismcts", "three-five-eight", seed=0, iterations=10)
    legal = again.legal_actions(0)
    assert ismcts.act(again.view(0), legal) in legal
    assert ismcts.stats.decisions == 1 and ismcts.stats.iterations > 0  # searched


#: The mid-Tour Banking position of the positions tests, its Tour cut to the round in
#: progress and seat 0 a point short of ending it (the sessions after it are the same rules).
MID_TOUR_LAST_ROUND = (
    MID_TOUR.replace('"max_sessions":400', '"max_sessions":6')
    .replace("rounds=4", "rounds=2")
    .replace("round_points=[3,-1,0,-2]", "round_points=[8,-1,0,-2]")
)


def test_search_bots_decide_by_search_from_a_mid_tour_banking_position():
    spec = game("banking")
    state = spec.from_position(MID_TOUR, seed=2)
    seat = state.to_act()[0]
    view, legal = state.view(seat), state.legal_actions(seat)
    pimc = make_bot("pimc", "banking", seed=0, worlds=4, time_ms=0)
    assert pimc.act(view, legal) in legal
    assert pimc.last_worlds == 4  # the worlds were searched, not the heuristic fallback
    ismcts = make_bot("ismcts", "banking", seed=0, iterations=16)
    assert ismcts.act(view, legal) in legal
    assert ismcts.stats.decisions == 1 and ismcts.stats.iterations > 0  # (the fallback: 0)


def test_search_bots_play_a_banking_match_from_a_mid_tour_position_to_the_end():
    spec = game("banking")
    state = spec.from_position(MID_TOUR_LAST_ROUND, seed=4)
    bots = [
        make_bot("pimc", "banking", seed=0, worlds=2, time_ms=0),
        make_bot("ismcts", "banking", seed=1, iterations=8, time_ms=0),  # no clock: the same
        make_bot("pimc", "banking", seed=2, worlds=2, time_ms=0),  # match on a loaded machine
        make_bot("ismcts", "banking", seed=3, iterations=8, time_ms=0),
    ]
    result = play_match(state, bots)
    assert state.is_over() and result.reason == "complete"  # the round ended, not the cap
    # every decision searched its 8 iterations (the fallback would search none)
    assert bots[1].stats.decisions > 10 and bots[1].stats.iterations == 8 * bots[1].stats.decisions
    assert bots[0].last_worlds == 2
    assert len(result.scores) == 4 and result.deals[0]["round"] == 2


@pytest.mark.parametrize(
    ("name", "players", "options", "steps"),
    [
        ("tarneeb", 4, {"deal": 1}, 9),
        ("banking", 3, {"session": 1}, 20),
        ("eight-five-three", 3, {"deal": 1}, 12),
    ],
)
def test_pimc_plays_on_from_a_position_to_the_end(name, players, options, steps):
    state = _midway(name, players, options, steps)
    bots = [make_bot("pimc", name, seed=s, worlds=3, time_ms=0) for s in range(players)]
    result = play_match(state, bots)
    assert state.is_over() and len(result.scores) == players


def test_ismcts_plays_macao_on_from_a_position():
    state = _midway("macao", 3, {}, 15)
    bots = [make_bot("ismcts", "macao", seed=s, iterations=20) for s in range(3)]
    result = play_match(state, bots)
    assert state.is_over() and len(result.ranks) == 3


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
def test_a_view_no_world_fits_is_told_and_the_usual_move_played(kind, caplog):
    """A view whose hidden cards cannot be dealt (here a seat said to hold 40 of Whist's 52
    cards; in a match, a fault in a game's deal) fails no match: the search says so in its log
    and plays the usual move, a legal one. The world builder itself raises ``NoWorld``."""
    spec = game("whist")
    state = spec.new_match(players=4, seed=3)
    seat = state.to_act()[0]
    view = state.view(seat)
    other = (seat + 1) % 4
    impossible = replace(view, counts={**view.counts, f"hand:{other}": 40})
    with pytest.raises(NoWorld, match="no world fits the view"):
        spec.world_from_view(impossible, random.Random(1))
    legal = state.legal_actions(seat)
    bot = make_bot(kind, "whist", seed=1, time_ms=30)
    with caplog.at_level(logging.WARNING, logger="levata.bots.search"):
        assert bot.act(impossible, legal) in legal
    assert any("no world fits the view" in r.getMessage() for r in caplog.records)
