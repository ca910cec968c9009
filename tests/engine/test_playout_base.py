"""The playout kernels' shared Python face (``levata.engine.playout_base``): every kernel
that subclasses it checks a seat, refuses an illegal action and names a policy alike, and the
face plays what the game allows (each kernel's own differential test proves its rules).
Kemps keeps its own ``apply`` and ``choose`` (its actions carry a signal)."""

from __future__ import annotations

import pytest

from levata.engine import game
from levata.engine.contract import Action
from levata.engine.playout_base import POLICIES, Playout

#: The games whose kernel is a :class:`Playout`, at a table each kernel takes.
GAMES = [("huzur", 3), ("macao", 4), ("tabinet", 2), ("toci", 3), ("repezita", 2), ("kemps", 4)]


def first_position(name: str, players: int):
    """The match of ``seed=5`` at the first decision a kernel copy is made of (Kemps' after
    the partners convene: each seat takes its first legal action till then), and that copy."""
    state = game(name).new_match(players=players, seed=5)
    for _ in range(20):
        try:
            return state, state.playout_state(seed=9)
        except ValueError:
            for seat in state.to_act():
                state.apply(seat, state.legal_actions(seat)[0])
    raise AssertionError(f"{name}: no kernel copy after 20 steps")


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_the_face_is_the_game_s_at_the_first_decision(name, players):
    state, fast = first_position(name, players)
    assert isinstance(fast, Playout)
    assert fast.players == players
    for seat in range(players):
        assert fast.legal_actions(seat) == state.legal_actions(seat)
    assert fast.to_act() == state.to_act()


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_a_seat_off_the_table_has_nothing_and_is_refused(name, players):
    _, fast = first_position(name, players)
    before = fast.fields()
    legal = fast.legal_actions(fast.to_act()[0])
    for seat in (-1, players, 63, 10**6):
        assert fast.legal_actions(seat) == []
        with pytest.raises(ValueError, match="not legal"):
            fast.apply(seat, legal[0])
        with pytest.raises(ValueError, match="not to act"):
            fast.choose(seat)
    assert fast.fields() == before


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_an_action_not_legal_changes_nothing(name, players):
    _, fast = first_position(name, players)
    before = fast.fields()
    seat = fast.to_act()[0]
    for action in (Action("no_such_action"), Action("play", number=99)):
        with pytest.raises(ValueError, match=r"not legal|is not a Kemps action"):
            fast.apply(seat, action)
    assert fast.fields() == before


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_policies_and_limits_are_checked_alike(name, players):
    _, fast = first_position(name, players)
    seat = fast.to_act()[0]
    with pytest.raises(ValueError, match="policy must be one of heuristic, random"):
        fast.choose(seat, "greedy")
    with pytest.raises(ValueError, match="policy must be one of"):
        fast.rollout("greedy")
    with pytest.raises(ValueError, match="max_actions must be 0"):
        fast.rollout("random", -1)
    for policy in POLICIES:
        assert fast.choose(seat, policy) in fast.legal_actions(seat)


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_a_seeded_rollout_replays_and_leaves_the_original_alone(name, players):
    _, fast = first_position(name, players)
    before = fast.fields()
    a, b = fast.clone(), fast.clone()
    assert a.rollout("random", seed=3) == b.rollout("random", seed=3) > 0
    assert a.fields() == b.fields() and a.is_over() and b.is_over()
    assert fast.fields() == before and not fast.is_over()
