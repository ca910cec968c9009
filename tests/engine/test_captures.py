"""The capture family: the atomic steps reach every capture, and only captures, with no dead
end on the way (random tables, values as Tabinet's, an ace counting 1 or 11)."""

from __future__ import annotations

import random

import pytest

from levata.engine.cards import french_deck
from levata.engine.family.captures import Selection, capture_choices, capture_sets, captures


def face(card):
    return (1, 11) if card.rank == 14 else (card.rank,)


def walk(sel, table, found):
    """Every capture the steps can end on from ``sel``; asserts no step is a dead end."""
    takes = sel.takes(table, face)
    done = sel.can_finish(table, face)
    assert takes or done, f"dead end after {sel.taken}"
    if done:
        found.add(sum(1 << i for i in sel.taken))
    for i in takes:
        walk(sel.take(i), table, found)


@pytest.mark.parametrize("seed", range(40))
def test_steps_reach_exactly_the_captures(seed):
    rng = random.Random(seed)
    table = rng.sample(list(french_deck()), rng.randint(1, 8))
    target = rng.randint(1, 14)
    found: set[int] = set()
    sel = Selection(target)
    if sel.takes(table, face):
        walk(sel, table, found)
    every = {
        sum(1 << i for s in choice for i in s)
        for choice in capture_choices(capture_sets(target, table, face))
    }
    assert found == every == set(captures(target, table, face))
    for mask in every:  # each capture is disjoint sets of the target's sum
        assert mask
