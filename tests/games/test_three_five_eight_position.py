"""3-5-8 written down as a position and read back (issue 27): the kitty, the swaps and the
draws of the deal in progress, and what a match carries (contracts used, Pas left,
credits and debts, totals)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from three_five_eight_positions import SPEC, act, new, play_deal, to_phase

from levata.engine import Action, BadConfig
from levata.engine.testing import check_position


def field(text: str, name: str) -> str:
    """The value of field ``name`` in a position's text."""
    return next(p.partition("=")[2] for p in text.split("; ") if p.startswith(f"{name}="))


def replaced(text: str, name: str, value: str) -> str:
    """The position ``text`` with field ``name`` set to ``value``."""
    return "; ".join(f"{name}={value}" if p.startswith(f"{name}=") else p for p in text.split("; "))


@pytest.mark.parametrize(
    "options",
    [
        {"previous": "2,-1,-1", "deals": 2},
        {"deal": 7, "max_pas": 2, "previous": "-3,1,2"},
        {"deals": 3, "first": 1, "max_pas": 0},
    ],
)
def test_a_position_round_trips_and_plays_on_at_every_step(options):
    """At every step (announcement, each kitty card, each draw, each card): the same text
    back, the same views and legal actions, and the same play on from it."""
    state = SPEC.new_match(players=3, options=options, seed=5)
    rng = random.Random(5)
    step = 0
    while not state.is_over():
        check_position(state, rng, moves=None if step % 10 == 0 else 30)
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        step += 1
    check_position(state, rng)  # the match over


def test_a_position_in_the_kitty_keeps_the_swaps_made():
    """Halfway through the kitty: the kitty in its order, and the cards the 8-seat took from
    it (which it may not give back) come back with the position."""
    state = new(eight=0, kitty="AS AH AD AC")
    act(state, "contract S")
    took = state.kitty[0]
    act(state, f"swap {sorted(state.hands[0])[0]}")
    text = state.position()
    assert field(text, "from_kitty") == f'["{took}"]'
    again = SPEC.from_position(text)
    assert again.kitty == state.kitty and again.from_kitty == {took}
    assert again.legal_actions(0) == state.legal_actions(0)
    assert Action("swap", card=took) not in again.legal_actions(0)


def test_a_position_carries_contracts_used_pas_and_credits():
    """After two counted deals: the contracts each seat used, the Pas it has left, the
    credits and debts to draw and the totals all come back, and the match plays on."""
    state = new(eight=0, max_pas=1, deals=4)
    play_deal(state, "C")
    act(state, "pas")
    play_deal(state, "D")
    text = state.position()
    again = SPEC.from_position(text, seed=3)
    assert again.view(1, history=False) == state.view(1, history=False)
    assert field(text, "used") == '[["C"],["D"],[]]'
    assert field(text, "pas_left") == "[1,0,1]"
    assert (again.credit, again.debt, again.scores) == (state.credit, state.debt, state.scores)
    check_position(state, random.Random(1), moves=None)


def test_a_position_starts_with_chosen_contracts_used():
    """Set up by hand: the 8-seat has used every trump and has no Pas left, so its one
    announcement is no-trump."""
    text = SPEC.new_match(players=3, options={"first": 0}, seed=2).position()
    text = replaced(text, "used", '[["C","D","H","S"],[],[]]')
    text = replaced(text, "pas_left", "[0,1,1]")
    state = SPEC.from_position(text)
    assert state.legal_actions(0) == [Action("contract", choice="NT")]
    to_phase(state, "play", contract="NT")
    assert state.contract == "NT" and state.trump is None


def test_a_position_that_hides_a_card_is_refused():
    text = SPEC.new_match(players=3, seed=2).position()
    kitty = field(text, "kitty")
    with pytest.raises(BadConfig, match="every card"):
        SPEC.from_position(replaced(text, "kitty", kitty.split()[0]))
    with pytest.raises(BadConfig, match="no field 'kitty'"):
        SPEC.from_position("; ".join(p for p in text.split("; ") if not p.startswith("kitty=")))


def test_the_position_on_the_games_page_reads_back():
    """The example in ``docs/games/three-five-eight.md`` is a real position: it reads back
    to itself."""
    page = Path(__file__).parents[2] / "docs" / "games" / "three-five-eight.md"
    lines = page.read_text().splitlines()
    (text,) = [line for line in lines if line.startswith("three-five-eight/")]
    assert SPEC.from_position(text).position() == text
