"""The conformance suite: every registered game is enrolled by registering it.

The checks live in :mod:`levata.engine.testing`, where a game written elsewhere can run them.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from levata.engine import all_games, game
from levata.engine.testing import (
    ConformanceError,
    check_game,
    check_positions,
    check_replays,
    check_samples_cover_holders,
    check_terminates,
    check_worlds_from_view,
    defines_from_view,
    option_variants,
    play_checked,
)

GAMES = [spec.name for spec in all_games()]
RANDOM_MATCHES = 400
CHECKED_MATCHES = 12


@pytest.fixture(params=GAMES)
def spec(request):
    return game(request.param)


def test_option_variants_give_every_value_a_turn_and_every_pair_of_values_a_match(spec):
    """The first matches give each option every value; the 400 random matches meet every
    pair of values of every two options (before, two flags only ever met in two ways)."""
    varied = {
        o.name: list(o.choices) if o.choices else [False, True]
        for o in spec.options
        if o.choices or isinstance(o.default, bool)
    }
    turns = max((len(v) for v in varied.values()), default=1)
    first = [option_variants(spec, i) for i in range(turns)]
    for name, values in varied.items():
        assert {opts[name] for opts in first} == set(values), name
    seen = [option_variants(spec, i) for i in range(RANDOM_MATCHES)]
    for a, b in itertools.combinations(varied, 2):
        met = {(opts[a], opts[b]) for opts in seen}
        assert met == set(itertools.product(varied[a], varied[b])), (a, b)


def test_random_matches_terminate(spec):
    """400 seeded random matches end, with someone to act and an action until the end."""
    check_terminates(spec, RANDOM_MATCHES, seed=1000)


@pytest.mark.parametrize("i", range(CHECKED_MATCHES))
def test_every_step_checked(spec, i):
    """Conservation, no leak, illegal actions, clones and sampling at every step."""
    play_checked(spec, i, seed=50 + i, sample_every=5)


def test_same_seed_same_match(spec):
    """The same seed and actions give identical events and result; the seed fixes the cards."""
    check_replays(spec, seed=77)


def test_sampled_worlds_cover_every_holder(spec):
    """Over many samples every unseen card lands in the zone that truly holds it."""
    check_samples_cover_holders(spec, seed=300)


def test_positions_round_trip_and_play_on(spec):
    """Every game writes its state as a position and reads it back: the same text, the same
    views, and play on from it equals play on from the original, to the end of the match."""
    assert check_positions(spec) > 0


def test_worlds_rebuilt_from_views(spec):
    """``world_from_view`` keeps its contract at every phase and player count."""
    if not defines_from_view(spec):
        pytest.skip(f"{spec.name} does not define from_view yet")
    phases = check_worlds_from_view(spec)
    assert sum(phases.values()) > 0


def test_check_game_runs_everything_and_names_a_fault():
    """The library's one call passes an honest game and fails one that never deals alike."""
    honest = game(GAMES[0])
    report = check_game(honest, matches=10, checked=1)
    assert (report.game, report.matches, report.checked) == (honest.name, 10, 1)
    assert report.longest > 0

    calls = itertools.count(1)

    def fickle(**kwargs):  # ignores the seed it is given
        return honest.factory(**{**kwargs, "seed": next(calls)})

    broken = dataclasses.replace(honest, factory=fickle)
    with pytest.raises(ConformanceError, match="seed"):
        check_replays(broken)
