"""Search bots play on from a position (``levata play --position``): where the view of a
match read from a position is enough to rebuild worlds they search as usual; where a game
needs the deal's moves to place hidden cards (Banking's exchanges, 3-5-8's kitty swaps for
the 8-seat), they play their fallback until the next deal, and never fail."""

from __future__ import annotations

import random

import pytest

from levata.bots import make_bot, play_match
from levata.engine import game
from levata.engine.testing import check_world_from_view, new_random_match, random_steps


def _midway(name: str, players: int, options: dict, steps: int, seed: int = 3):
    """A match of random play ``steps`` actions in, written down and read back."""
    spec = game(name)
    state = spec.new_match(players=players, options=options, seed=seed)
    for _, _ in zip(range(steps), random_steps(state, random.Random(seed)), strict=False):
        pass
    return spec.from_position(state.position(), seed=seed)


@pytest.mark.parametrize("name", ["tarneeb", "whist", "eight-five-three", "three-five-eight"])
def test_worlds_of_a_match_read_from_a_position_keep_the_contract(name):
    spec = game(name)
    checked = 0
    for i in range(2):
        state, _ = new_random_match(spec, i, 40 + i)
        for k, _ in enumerate(random_steps(state, random.Random(i))):
            if k % 9 == 4 and not state.is_over():
                again = spec.from_position(state.position(), seed=k)
                for seat in range(again.players):
                    try:
                        check_world_from_view(again, seat, random.Random(seat), 12)
                    except NotImplementedError:  # 3-5-8's 8-seat in the kitty: said so
                        assert name == "three-five-eight" and again.phase == "kitty"
                        continue
                    checked += 1
            if k > 120:
                break
    assert checked > 20


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
