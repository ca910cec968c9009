"""The PIMC Whist bot: sampled worlds agree with its view; it plays legally and well."""

from __future__ import annotations

import random

import pytest

from levata.bots import make_bot, play_match
from levata.bots.pimc import PimcBot, sample_hands
from levata.engine import BadConfig, game
from levata.engine.cardmask import mask_of


def test_worlds_agree_with_the_view():
    spec = game("whist")
    rng = random.Random(1)
    for seed in range(20):
        state = spec.new_match(players=4, options={"deal_size": 6}, seed=seed)
        for _ in range(rng.randrange(1, 20)):
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        seat = state.to_act()[0]
        view = state.view(seat)
        for hands in sample_hands(view, 30, rng):
            assert hands[seat] == mask_of(state.hands[seat])
            for t in range(4):
                assert bin(hands[t]).count("1") == len(state.hands[t])
                void = state.voids[t]
                assert all(c.suit not in void for c in _cards(hands[t]))
            everyone = 0
            for h in hands:
                assert everyone & h == 0
                everyone |= h


def _cards(mask):
    from levata.engine.cardmask import cards_of

    return cards_of(mask)


def test_forehead_worlds_deal_the_unseen_own_card():
    state = game("whist").new_match(players=4, options={"one_card_mode": "forehead"}, seed=2)
    seat = state.to_act()[0]
    view = state.view(seat)
    own = {tuple(_cards(h[seat])) for h in sample_hands(view, 200, random.Random(0))}
    assert len(own) > 1  # its own card is unknown to it
    action = PimcBot(seed=1, worlds=20).act(view, state.legal_actions(seat))
    assert action in state.legal_actions(seat)


@pytest.mark.parametrize(("players", "size"), [(3, 0), (4, 0), (5, 5), (6, 4)])
def test_plays_whole_matches_legally(players, size):
    # Full schedules for 3-4 players; one deal for 5-6 (8-card no-trump deals at 6 players
    # take the solver seconds per world: see the closing note of issue 4).
    state = game("whist").new_match(players=players, options={"deal_size": size}, seed=players)
    bots = [PimcBot(seed=s, worlds=8) for s in range(players)]
    assert play_match(state, bots).reason == "complete"


def test_beats_the_heuristic_and_random_on_duplicate_deals():
    """A small duplicate check (the full measurement is benchmarks/strength.py)."""
    spec = game("whist")
    totals = {"pimc": 0.0, "heuristic": 0.0, "random": 0.0}
    for deal in range(24):
        for rot in range(3):
            names = ["pimc", "heuristic", "random"]
            names = names[rot:] + names[:rot]
            state = spec.new_match(players=3, options={"deal_size": 3 + deal % 6}, seed=deal)
            bots = [
                PimcBot(seed=deal, worlds=40) if n == "pimc" else make_bot(n, "whist", deal)
                for n in names
            ]
            result = play_match(state, bots)
            for s, n in enumerate(names):
                totals[n] += result.scores[s]
    assert totals["pimc"] > totals["random"]
    assert totals["pimc"] >= totals["heuristic"] - 10  # at least on par on this small sample


def test_pimc_is_for_whist():
    with pytest.raises(BadConfig, match="no pimc bot"):
        make_bot("pimc", "macao")
