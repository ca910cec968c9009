"""``apply`` finds an action in the legal list the state last offered the seat (``_offer``)
instead of building that list again. The list is a cache: these tests hold it to never accept
what a fresh list would refuse, and to change nothing a state is compared by (its pickle, its
clone)."""

from __future__ import annotations

import pickle
import random

import pytest

from levata.engine import Action, IllegalAction, game
from levata.engine.testing import new_random_match, random_steps

#: The games whose legal lists are kept: the trick family, and the turn-based games with the
#: costliest lists.
KEPT = ["whist", "tarneeb", "eight-five-three", "macao", "huzur", "tabinet"]


def _midway(name: str, steps: int = 9):
    # The Python state's cache: Whist's kernel state keeps its own (test_whist_table.py)
    state, _ = new_random_match(game(name), 0, seed=5, kernel=False)
    for _ in zip(range(steps), random_steps(state, random.Random(3)), strict=False):
        pass
    return state


@pytest.mark.parametrize("name", KEPT)
def test_the_list_is_kept_for_the_seat_and_used_by_apply(name):
    state = _midway(name)
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    kept = state._legal_kept
    assert kept is not None and kept[0] == seat and list(kept[3]) == legal
    state.apply(seat, legal[-1])
    assert state._legal_kept is None  # an applied action spends it


@pytest.mark.parametrize("name", KEPT)
def test_a_caller_that_changes_its_list_changes_nothing_apply_accepts(name):
    """The state keeps a tuple of its own: a foreign action appended to the list a caller got
    is judged against a fresh list, and refused, leaving the state as it was."""
    state = _midway(name)
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    foreign = Action("no_such_move")
    legal.append(foreign)
    before = pickle.dumps(state)
    with pytest.raises(IllegalAction):
        state.apply(seat, foreign)
    assert pickle.dumps(state) == before


@pytest.mark.parametrize("name", KEPT)
def test_a_list_from_an_earlier_position_is_not_trusted(name):
    """A list offered before an action was applied (here: by another state of the same match,
    a clone, and by this state before it moved on) says nothing of the position now: an
    action legal then and not now is refused, whichever way the list came."""
    for start in range(4, 40, 3):
        state = _midway(name, start)
        if state.is_over():
            continue
        seat = state.to_act()[0]
        old = state.legal_actions(seat)
        twin = state.clone()
        assert twin._legal_kept is None  # a copy offers its own lists
        state.apply(seat, old[0])
        if state.is_over() or seat not in state.to_act():
            continue
        now = state.clone().legal_actions(seat)  # asked of a copy: this state is asked nothing
        gone = [a for a in old if a not in now]
        for action in gone:
            with pytest.raises(IllegalAction):
                state.apply(seat, action)
        twin.apply(seat, old[0])  # the twin, offered nothing, judges afresh and agrees
        assert twin.position() == state.position()


@pytest.mark.parametrize("name", KEPT)
def test_asking_changes_nothing_a_state_is_compared_by(name):
    state = _midway(name)
    before = pickle.dumps(state)
    for seat in range(state.players):
        state.legal_actions(seat)
    assert pickle.dumps(state) == before
    assert pickle.loads(pickle.dumps(state))._legal_kept is None


def test_a_world_builder_that_writes_its_own_log_starts_afresh():
    """The list is kept with the log it was offered under: a state given another log (as a
    world built from a view is) judges the next action afresh."""
    state = _midway("whist")
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    state._log = list(state._log)
    assert state._legal_kept is not None and state._legal_kept[1] is not state._log
    state.apply(seat, legal[0])  # judged against a fresh list: still legal
    assert state.event_count() > 0
