"""Toci's playout kernel (``levata.engine.toci_playouts``) against the Python copy
(``levata.engine.games.toci.TociPlayout``) and the game: one source of truth per rule, so the
C copy must agree everywhere.

Positions come from random and heuristic tick-mode matches of 2 to 10 players under every
option that changes play (``toci_mode``, ``toci_penalty``, ``decks``, ``house_by_suit``). At
each one both copies are loaded from the game: their positions, legal actions (the game's
too) of every seat to act, successors after every legal action, scores, careful choices and
whole rollouts (the careful rollout's shortcut, and random moves on the kernel's splitmix64
stream, which the Python copy is given too) must be equal.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

from levata.engine import Action, game
from levata.engine.games.toci import TociPlayout as PythonPlayout
from levata.engine.games.toci import TociState
from levata.engine.toci_playouts import POLICIES, TociPlayout

SPEC = game("toci")
#: Every option that changes play, in combinations (a low cap keeps random matches short).
OPTIONS = [
    {},
    {"toci_mode": "strict"},
    {"toci_penalty": "skip_next_turn"},
    {"house_by_suit": True},
    {"decks": "2", "house_by_suit": True, "toci_penalty": "skip_next_turn"},
    {"decks": "1", "toci_mode": "strict", "house_by_suit": True},
    {"decks": "2"},
]


def options(seed: int) -> dict[str, object]:
    return {"reveal_cap": 600, **OPTIONS[seed % len(OPTIONS)]}


def positions(seed: int, policy: str) -> Iterator[tuple[TociState, int, Action]]:
    """A tick-mode match from ``seed`` with ``seed % 9 + 2`` players and options by seed,
    moved on by ``policy`` (random, or the careful player with a random move now and then):
    the state before each action, the seat and the action."""
    rng = random.Random(seed)
    players = 2 + seed % 9
    state = SPEC.new_match(players, seed=seed, options=options(seed))
    assert isinstance(state, TociState)
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        if policy == "random" or rng.random() < 0.1:
            action = rng.choice(legal)
        else:
            action = state.python_playout_state(seed).choose(seat)
        yield state, seat, action
        state._apply(seat, action)


def both(state: TociState, seed: int) -> tuple[TociPlayout, PythonPlayout]:
    fast, slow = state.playout_state(seed), state.python_playout_state(seed)
    assert isinstance(fast, TociPlayout)  # tick mode: the kernel
    assert fast.fields() == slow.fields()
    return fast, slow


def same(fast: TociPlayout, slow: PythonPlayout, after: str) -> None:
    assert fast.fields() == slow.fields(), after
    assert fast.to_act() == slow.to_act() and fast.is_over() == slow.is_over(), after
    assert fast.estimate() == slow.estimate(), after


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_legal_actions_successors_and_choices_agree_over_whole_matches(policy):
    """At every few positions: the same legal actions (the game's) for each seat to act, the
    same successor after each of them, the same careful choice; and after the action
    played, the same position."""
    steps = windows = 0
    for seed in range(18):
        for i, (state, seat, action) in enumerate(positions(seed, policy)):
            fast, slow = both(state, seed)
            assert fast.to_act() == state.to_act()
            if i % 3 == 0:
                windows += state.phase == "window"
                for s in state.to_act():
                    legal = state.legal_actions(s)
                    assert fast.legal_actions(s) == slow.legal_actions(s) == legal
                    assert fast.choose(s) == slow.choose(s), (seed, i, s)
                    for a in legal:
                        f, p = fast.clone(), slow.clone()
                        f._apply(s, a)
                        p._apply(s, a)
                        same(f, p, f"seed {seed} step {i} seat {s} {a}")
            fast._apply(seat, action)
            slow._apply(seat, action)
            same(fast, slow, f"seed {seed} step {i} {action}")
            steps += 1
    assert steps > 2000 and windows > 50


@pytest.mark.parametrize("policy", POLICIES)
def test_whole_rollouts_agree(policy):
    """From positions of heuristic matches: rollouts to the end and cut short play the same
    cards (random ones drawn from the same stream) and count the same turns."""
    rollouts = 0
    for seed in range(18):
        for i, (state, _, _) in enumerate(positions(seed + 100, "heuristic")):
            if i % 23:
                continue
            for horizon in (0, 5):
                fast, slow = both(state, seed + i)
                slow.state.rng = SplitMix(seed + i)  # type: ignore[assignment]  # the kernel's
                assert fast.rollout(policy, horizon) == slow.rollout(policy, horizon)
                same(fast, slow, f"seed {seed} step {i} {policy} horizon {horizon}")
                rollouts += 1
    assert rollouts > 100


def test_clone_apply_and_errors():
    state = TociState.set_up(3, piles=["", "9S", "4H"], circle="10H 2C")
    fast = TociPlayout(state.playout_fields(), seed=1)
    assert fast.players == 3
    copy = fast.clone()
    copy.apply(0, Action.parse("place_on 1"))
    assert fast.fields() == state.playout_fields()
    assert [str(c) for c in copy.fields()["piles"][1]] == ["9S", "10H"]
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(0, Action.parse("place_house"))
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(1, Action.parse("place_own"))
    with pytest.raises(ValueError, match="not to act"):
        fast.choose(2)
    with pytest.raises(ValueError, match="policy"):
        fast.rollout("greedy")
    with pytest.raises(ValueError, match="max_actions"):
        fast.rollout("random", -1)
    assert fast.rollout("random", seed=5) > 0 and fast.is_over()
    assert not copy.is_over()


def test_real_time_keeps_the_python_copy():
    """The kernel plays ticks only: a real-time match's copy is the Python one."""
    state = SPEC.new_match(3, seed=2, options={"mode": "realtime"})
    assert isinstance(state.playout_state(1), PythonPlayout)
    with pytest.raises(ValueError, match="tick mode"):
        TociPlayout(state.playout_fields())


def test_random_choices_draw_the_same_stream():
    """``choose(seat, "random")`` picks what the Python copy picks from the same stream, a
    window's seats included."""
    chosen = 0
    for seed in range(6):
        for i, (state, _, _) in enumerate(positions(seed + 200, "random")):
            if i % 7:
                continue
            fast, slow = both(state, seed)
            slow.state.rng = SplitMix(seed)  # type: ignore[assignment]  # the kernel's stream
            for s in state.to_act():
                assert fast.choose(s, "random") == slow.choose(s, "random"), (seed, i, s)
                chosen += 1
    assert chosen > 100
