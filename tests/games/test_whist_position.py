"""Romanian Whist written down as a position and read back (issue 27): the whole match
state, carried totals and streaks included, at every player count and option."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from levata.engine import BadConfig, game
from levata.engine.games.whist import STREAK, STREAK_POINTS, deal_points
from levata.engine.testing import check_position

SPEC = game("whist")


def field(text: str, name: str) -> str:
    """The value of field ``name`` in a position's text."""
    return next(p.partition("=")[2] for p in text.split("; ") if p.startswith(f"{name}="))


def replaced(text: str, name: str, value: str) -> str:
    """The position ``text`` with field ``name`` set to ``value``."""
    return "; ".join(f"{name}={value}" if p.startswith(f"{name}=") else p for p in text.split("; "))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize(
    "options",
    [
        {"deal_size": 1, "one_card_mode": "forehead"},
        {"deal_size": 5, "scoring": "oh_hell", "must_trump": False},
        {"deal_size": 8, "zero_wins": False},
    ],
)
def test_a_position_round_trips_and_plays_on_at_every_step(players, options):
    """At every step of a deal: the same text back, the same views and legal actions, and
    play on from the position equals play on from the match, to the end."""
    state = SPEC.new_match(players=players, options=options, seed=players)
    rng = random.Random(players)
    while not state.is_over():
        check_position(state, rng, moves=None)
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    check_position(state, rng)  # the match over


def test_a_position_mid_match_carries_the_totals_and_streaks():
    """Twelve deals into a full match: the deal, the totals and each seat's streaks come back,
    and the rest of the match plays out as it would have."""
    state = SPEC.new_match(players=4, seed=11)
    rng = random.Random(11)
    while state.view(0).counters["deal"] < 12:
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    text = state.position()
    again = SPEC.from_position(text)
    view, back = state.view(2, history=False), again.view(2, history=False)
    assert back == view and any(view.scores)
    assert field(text, "deal") == "12" and field(text, "scores") != "[0,0,0,0]"
    assert again.hits == state.hits and again.misses == state.misses
    check_position(state, rng, moves=None)


def test_a_position_starts_a_deal_at_chosen_streaks_and_scores():
    """Set up by hand: every seat one exact deal short of the streak bonus, at given scores.
    Whoever makes its bid gets the bonus on top of its points."""
    start = SPEC.new_match(players=3, options={"deal_size": 3}, seed=4).position()
    text = replaced(start, "hit", f"[{STREAK - 1},{STREAK - 1},{STREAK - 1}]")
    text = replaced(text, "scores", "[20,-3,7]")
    state = SPEC.from_position(text, seed=1)
    assert state.view(0, history=False).scores == (20.0, -3.0, 7.0)
    rng = random.Random(2)
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    (deal,) = state.result().deals  # the deals scored from the position on
    for s, (bid, took) in enumerate(zip(deal["bids"], deal["tricks"], strict=True)):
        bonus = STREAK_POINTS if bid == took else 0
        assert deal["points"][s] == deal_points(bid, took) + bonus
    assert deal["totals"] == [t + p for t, p in zip([20, -3, 7], deal["points"], strict=True)]


def test_a_position_that_loses_a_card_is_refused():
    text = SPEC.new_match(players=3, options={"deal_size": 2}, seed=4).position()
    hand = field(text, "hand:0")
    with pytest.raises(BadConfig, match="every card"):
        SPEC.from_position(replaced(text, "hand:0", hand.split()[0]))
    with pytest.raises(BadConfig, match="no field 'hit'"):
        SPEC.from_position("; ".join(p for p in text.split("; ") if not p.startswith("hit=")))


def test_the_position_on_the_games_page_reads_back():
    """The example in ``docs/games/whist.md`` is a real position: it reads back to itself."""
    page = Path(__file__).parents[2] / "docs" / "games" / "whist.md"
    (text,) = [line for line in page.read_text().splitlines() if line.startswith("whist/")]
    assert SPEC.from_position(text).position() == text
