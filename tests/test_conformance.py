"""The conformance suite: every registered game is enrolled by registering it."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from levata.engine import all_games

from conformance import (
    CLOCK_STEP_MS,
    check_sample,
    hidden_cards,
    new_random_match,
    play_checked,
    random_steps,
)

GAMES = [spec.name for spec in all_games()]
RANDOM_MATCHES = 1000
CHECKED_MATCHES = 12


@pytest.fixture(params=GAMES)
def spec(request):
    from levata.engine import game

    return game(request.param)


def test_random_matches_terminate(spec):
    """1,000 seeded random matches end, with someone to act and an action until the end."""
    lengths = []
    for i in range(RANDOM_MATCHES):
        state, _ = new_random_match(spec, i, seed=1000 + i)
        steps = sum(1 for _ in random_steps(state, random.Random(i)))
        res = state.result()
        assert len(res.scores) == len(res.ranks) == state.players
        assert res.winners and all(0 <= w < state.players for w in res.winners)
        assert all(1 <= r <= state.players for r in res.ranks)
        assert state.to_act() == ()
        lengths.append(steps)
    assert min(lengths) > 0


@pytest.mark.parametrize("i", range(CHECKED_MATCHES))
def test_every_step_checked(spec, i):
    """Conservation, no leak, illegal actions, clones and sampling at every step."""
    play_checked(spec, i, seed=50 + i, sample_every=5)


def test_same_seed_same_match(spec):
    """The same seed and actions give identical events and result."""
    for i in range(5):
        a, _ = new_random_match(spec, i, seed=77 + i)
        actions = list(random_steps(a, random.Random(i)))
        b, _ = new_random_match(spec, i, seed=77 + i)
        for step, (seat, action) in enumerate(actions):
            b.advance_clock(step * CLOCK_STEP_MS)  # the clock the first run saw (if real-time)
            b.apply(seat, action)
        b.advance_clock(len(actions) * CLOCK_STEP_MS)
        assert [e.to_dict() for e in a.events()] == [e.to_dict() for e in b.events()]
        assert a.result() == b.result()


def test_seed_alone_replays(spec):
    """Without an explicit deal, the seed alone fixes the cards."""
    players = spec.players[0]
    a = spec.new_match(players=players, seed=5)
    b = spec.new_match(players=players, seed=5)
    c = spec.new_match(players=players, seed=6)
    assert [z.cards for z in a.table()] == [z.cards for z in b.table()]
    assert [z.cards for z in a.table()] != [z.cards for z in c.table()]


def test_sampled_worlds_cover_every_holder(spec):
    """Over many samples every unseen card lands in the zone that truly holds it."""
    for i in range(3):
        state, _ = new_random_match(spec, i, seed=300 + i)
        rng = random.Random(i)
        for _ in zip(range(3 + 5 * i), random_steps(state, rng), strict=False):
            pass
        if state.is_over():
            continue
        seat = state.to_act()[0]
        hidden = hidden_cards(state, seat)
        if not hidden:
            continue
        sizes = Counter(z.name for z in state.table() for _ in z.cards)
        smallest = min(sizes[z] for zs in hidden.values() for z in zs)
        # Enough samples that a uniform sampler misses a true holder with odds below e^-25.
        samples = math.ceil(25 * len(hidden) / smallest)
        seen: dict[tuple, int] = Counter()
        for k in range(min(samples, 4000)):
            world = state.sample_world(seat, random.Random(k))
            for zone in world.table():
                for c in zone.cards:
                    seen[(c, zone.name)] += 1
        missed = [(str(c), z) for c, zones in hidden.items() for z in zones if not seen[(c, z)]]
        assert not missed, f"cards never sampled into their true zone: {missed[:5]}"


def test_sample_keeps_view_at_start(spec):
    for players in spec.players:
        state = spec.new_match(players=players, seed=players)
        for seat in range(players):
            check_sample(state, seat, random.Random(seat))
