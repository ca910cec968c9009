"""Macao's playout kernel (``levata.engine.macao_playouts``) against the Python rules and the
Python heuristic bot: one source of truth per rule, so the C copy must agree everywhere.

The differential tests walk thousands of positions of random and heuristic matches (every
player count, every option): at each one the kernel is loaded from the Python state, and
its legal actions, its successor after each chosen action, its scores and the heuristic's
choices must equal the Python ones. A reshuffle draws from a random stream, so the Python
state is given a stream that shuffles as the kernel does (splitmix64, the same Fisher-Yates):
then even the reshuffled stock must be equal, card for card.
"""

from __future__ import annotations

import random

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

from levata.bots import play_match
from levata.bots.heuristic.macao import HeuristicBot
from levata.bots.search.ismcts import IsmctsBot
from levata.engine import Action, game
from levata.engine.games.macao import MacaoState
from levata.engine.macao_playouts import POLICIES, MacaoPlayout

SPEC = game("macao")
OPTIONS = [
    {},
    {"wild_changers": True},
    {"request_scope": "next_player"},
    {"group_same_suit": False},
    {"action_cap": 80},
    {"wild_changers": True, "request_scope": "next_player", "group_same_suit": False},
]


class Favour:
    """A tie-break stream for the Python bot that favours its ``k``-th draw: run for every
    ``k``, the bot's picks are exactly the actions it rates best (its own stream picks one
    of them at random)."""

    def __init__(self, k: int) -> None:
        self.k, self.calls = k, 0

    def random(self) -> float:
        self.calls += 1
        return 1.0 if self.calls - 1 == self.k else 0.0


def python_best(state: MacaoState, seat: int) -> set[Action]:
    legal = state.legal_actions(seat)
    view = state.view(seat, history=False)
    picks = set()
    for k in range(len(legal)):
        bot = HeuristicBot()
        bot.rng = Favour(k)  # type: ignore[assignment]  # only .random() is read
        picks.add(bot.act(view, legal))
    return picks


def positions(seed: int, policy: str):
    """A match of ``policy`` moves from ``seed`` at a random table and options: yields the
    state before each action and the action (the state moves on after the yield)."""
    rng = random.Random(seed)
    players = rng.choice(SPEC.players)
    state = SPEC.new_match(players=players, options=rng.choice(OPTIONS), seed=seed)
    bots = [HeuristicBot(seed=seed * 10 + s) for s in range(players)]
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        if policy == "random":
            action = rng.choice(legal)
        else:
            action = bots[seat].act(state.view(seat, history=False), legal)
        yield state, seat, action
        state._apply(seat, action)


def step_both(state: MacaoState, seat: int, action: Action, seed: int) -> MacaoState:
    """Apply ``action`` to a copy of the Python state and to a kernel loaded from it; their
    fields, scores and turn must then be equal (the reshuffle included). The copy returns."""
    state = state.clone()
    fast = state.playout_state(seed)
    assert fast.fields() == state._fields()
    saved = state.rng
    state.rng = SplitMix(seed)  # type: ignore[assignment]  # only .shuffle() is used here
    state._apply(seat, action)
    state.rng = saved
    fast._apply(seat, action)
    assert fast.fields() == state._fields(), f"after {action} by seat {seat}"
    assert fast.estimate() == state.estimate()
    assert fast.to_act() == state.to_act() and fast.is_over() == state.is_over()
    return state


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_legal_actions_and_successors_agree_over_whole_matches(policy):
    steps = reshuffles = 0
    for seed in range(60 if policy == "random" else 40):
        for state, seat, action in positions(seed, policy):
            fast = state.playout_state(seed)
            for s in range(state.players):
                assert fast.legal_actions(s) == state.legal_actions(s)
            after = step_both(state, seat, action, seed * 1000 + steps)
            reshuffles += after.epoch != state.epoch
            steps += 1
        assert state.is_over()
        final = state.playout_state(0)
        assert final.is_over() and final.estimate() == state.result().scores
    assert steps > 5000 and reshuffles > 20  # the walk reached what it is meant to test


def test_every_action_from_random_positions_agrees():
    """Every legal action, not only the one played, from positions of random matches."""
    checked = 0
    for seed in range(100, 130):
        for i, (state, seat, _) in enumerate(positions(seed, "random")):
            if i % 7:
                continue
            assert state.playout_state(i).legal_actions(seat) == state.legal_actions(seat)
            for action in state.legal_actions(seat):
                step_both(state, seat, action, seed + i)
                checked += 1
    assert checked > 1500


def test_the_kernel_picks_what_the_heuristic_bot_would():
    compared = ties = 0
    for seed in range(200, 240):
        for state, seat, _ in positions(seed, "heuristic"):
            fast = state.playout_state(seed)
            best = fast.best_actions(seat)
            assert set(best) == python_best(state, seat), str(state._fields())
            assert fast.clone().choose(seat, "heuristic") in best
            compared += 1
            ties += len(best) > 1
    assert compared > 3000 and ties > 50


def test_ties_are_broken_at_random_and_by_the_seed():
    state = MacaoState.from_position(2, ["5C 6C 7D 8D", "9S 10S 2H"], top="5D")
    fast = state.playout_state(1)
    best = fast.best_actions(0)
    # 5C, 7D and 8D each start a one-card group with one suit-mate left: the bot rates them
    # alike (6C does not match the 5D).
    assert [str(a) for a in best] == ["play 5C", "play 7D", "play 8D"]
    assert set(best) == python_best(state, 0)
    picks = {MacaoPlayout(state._fields(), seed).choose(0) for seed in range(40)}
    assert picks == set(best)
    again = [MacaoPlayout(state._fields(), 9).choose(0) for _ in range(3)]
    assert len(set(again)) == 1


@pytest.mark.parametrize("policy", POLICIES)
def test_a_rollout_is_choose_then_apply_and_repeats_from_its_seed(policy):
    """The C loop plays exactly what ``choose`` and ``apply`` would, from the same stream."""
    for seed in range(30):
        state = SPEC.new_match(players=2 + seed % 5, options=OPTIONS[seed % 6], seed=seed)
        fast = state.playout_state(seed)
        looped = fast.clone()
        taken = looped.rollout(policy, 0, seed=77 + seed)
        stepped = fast.clone()
        stepped.rollout(policy, 1, seed=77 + seed)  # reseeds the stream, plays one action
        steps = 1
        while not stepped.is_over():
            seat = stepped.to_act()[0]
            stepped.apply(seat, stepped.choose(seat, policy))
            steps += 1
        assert looped.is_over() and taken == steps
        assert looped.fields() == stepped.fields()
        twice = fast.clone()
        assert twice.rollout(policy, 0, seed=77 + seed) == taken
        assert twice.fields() == looped.fields()
        assert not fast.is_over()  # the original is untouched by its clones


def test_a_rollout_stops_at_its_action_limit():
    state = SPEC.new_match(players=4, seed=3)
    fast = state.playout_state(5)
    assert fast.rollout("heuristic", 7, seed=1) == 7
    assert fast.fields()["actions"] == state.actions_taken + 7


def test_bad_input_is_refused():
    state = SPEC.new_match(players=2, seed=1)
    fast = state.playout_state(1)
    with pytest.raises(ValueError, match="policy"):
        fast.rollout("greedy")
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(1 - state.to_act()[0], Action("draw"))
    fields = state._fields()
    fields["hands"][0].append("9H")
    with pytest.raises(ValueError, match="not a card"):
        MacaoPlayout(fields)


@pytest.mark.parametrize(
    ("players", "options", "others", "rollout"),
    [
        (2, {}, "policy", "auto"),
        (3, {"wild_changers": True}, "tree", "auto"),
        (5, {"action_cap": 300}, "policy", "random"),
    ],
)
def test_ismcts_searches_on_the_fast_copy_and_plays_full_matches(
    monkeypatch, players, options, others, rollout
):
    copies = []
    original = MacaoState.playout_state

    def counted(self: MacaoState, seed: int) -> MacaoPlayout:
        copies.append(seed)
        return original(self, seed)

    monkeypatch.setattr(MacaoState, "playout_state", counted)
    state = SPEC.new_match(players=players, options=options, seed=players)
    bots = [
        IsmctsBot("macao", seed=s, iterations=15, time_ms=0, others=others, rollout=rollout)
        for s in range(players)
    ]
    result = play_match(state, bots)
    assert state.is_over() and result.reason in ("complete", "cap", "deadlock")
    searched = sum(b.stats.iterations for b in bots)
    assert searched > 0 and len(copies) == searched  # every world was searched on its copy


def _moves(fast: bool, root: str) -> list[str]:
    state = SPEC.new_match(players=3, seed=11)
    bots = [
        IsmctsBot("macao", seed=s, iterations=10, time_ms=0, fast=fast, root=root) for s in range(3)
    ]
    moves: list[str] = []
    play_match(state, bots, on_action=lambda seat, a: moves.append(f"{seat}:{a}"))
    return moves


@pytest.mark.parametrize("root", ["paired", "ucb"])
def test_ismcts_on_the_fast_copy_repeats_from_its_seed(root):
    assert _moves(True, root) == _moves(True, root)


def test_ismcts_with_fast_off_never_builds_a_copy(monkeypatch):
    def refuse(self: MacaoState, seed: int) -> MacaoPlayout:
        raise AssertionError("fast=False searched on a fast copy")

    monkeypatch.setattr(MacaoState, "playout_state", refuse)
    assert _moves(False, "auto")
