"""A clone is the same match: played on alike, it deals and ends alike, and it shares nothing
that either side changes (``GameState.clone``: immutable cards, actions, events and the spec
are shared, the random stream is copied by its state)."""

from __future__ import annotations

import random

import pytest

from levata.engine import all_games
from levata.engine.testing import new_random_match, random_steps

GAMES = [spec.name for spec in all_games()]


@pytest.mark.parametrize("name", GAMES)
def test_a_clone_plays_on_exactly_as_the_original(name):
    from levata.engine import game

    state, _ = new_random_match(game(name), 0, seed=31)
    for _ in zip(range(25), random_steps(state, random.Random(1)), strict=False):
        pass
    twin = state.clone()
    assert twin.rng is not state.rng and twin.rng.getstate() == state.rng.getstate()
    for s in (state, twin):  # the same choices from here: the same deals (its own stream)
        for _ in zip(range(400), random_steps(s, random.Random(2)), strict=False):
            pass
    assert twin.position() == state.position()
    assert [str(e) for e in twin.events()] == [str(e) for e in state.events()]
    assert twin.events() is not state.events()
