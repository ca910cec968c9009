"""Tabinet's playout kernel (``levata.engine.tabinet_playouts``) against the Python copy
(``levata.engine.games.tabinet.playout``) and the game: one source of truth per rule, so the
C copy must agree everywhere.

Positions come from random and heuristic matches of two, three and four players under every
option that changes play (``forced_capture``, ``most_cards_bonus``, and ``match_target`` for
rounds after the first, with totals carried). At each one both copies are loaded from the
game: their positions, legal actions (the game's too), successors after every legal action,
scores, heuristic choices (an atomic step at a time, through captures begun) and whole
rollouts (a whole move a turn) must be equal. The random policy draws from the kernel's
splitmix64 stream; the Python copy is given the same stream, so random rollouts must be
equal card for card as well.

The kernel's dealer of worlds (``TabinetDealer``, the search's determinizations) must deal the
worlds ``TabinetState.from_view`` deals: the seat's hand and everything in the open kept, the
same counts, and each hidden card in each place as often.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

from levata.engine import Action, Card, game
from levata.engine.games.tabinet import TabinetState
from levata.engine.games.tabinet.playout import TabinetPlayout as PythonPlayout
from levata.engine.tabinet_playouts import POLICIES, TabinetDealer, TabinetPlayout

SPEC = game("tabinet")
OPTIONS = [
    {},
    {"forced_capture": True},
    {"most_cards_bonus": 3},
    {"match_target": 40},
    {"forced_capture": True, "most_cards_bonus": 2, "match_target": 30},
]


def positions(seed: int, policy: str) -> Iterator[tuple[TabinetState, int, Action]]:
    """A match from ``seed`` with ``seed % 3 + 2`` players and options by seed, moved on by
    ``policy`` (random, or the Python copy's heuristic): the state before each action, the
    seat and the action."""
    rng = random.Random(seed)
    players = SPEC.players[seed % 3]
    state = SPEC.new_match(players, seed=seed, options=OPTIONS[seed % len(OPTIONS)])
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        if policy == "random":
            action = rng.choice(legal)
        else:  # the heuristic, with a random move now and then for variety
            mover = state.python_playout_state(seed)
            action = mover.choose(seat) if rng.random() < 0.9 else rng.choice(legal)
        yield state, seat, action
        state._apply(seat, action)


def both(state: TabinetState, seed: int) -> tuple[TabinetPlayout, PythonPlayout]:
    fast, slow = state.playout_state(seed), state.python_playout_state(seed)
    assert fast.fields() == slow.fields()
    return fast, slow


def same(fast: TabinetPlayout, slow: PythonPlayout, after: str) -> None:
    assert fast.fields() == slow.fields(), after
    assert fast.to_act() == slow.to_act() and fast.is_over() == slow.is_over(), after
    assert fast.estimate() == slow.estimate(), after


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_legal_actions_and_successors_agree_over_whole_matches(policy):
    """At every position: the same legal actions (the game's), and the same successor after
    the action played; at every other one, after each legal action."""
    steps = every = 0
    kinds, tablas, rounds = set(), 0, set()
    for seed in range(15):
        for i, (state, seat, action) in enumerate(positions(seed, policy)):
            fast, slow = both(state, seed)
            assert fast.estimate() == state.estimate()
            for s in range(state.players):
                assert fast.legal_actions(s) == slow.legal_actions(s) == state.legal_actions(s)
            for move in state.legal_actions(seat) if i % 2 == 0 else [action]:
                after_fast, after_slow = fast.clone(), slow.clone()
                after_fast._apply(seat, move)
                after_slow._apply(seat, move)
                same(after_fast, after_slow, f"seed {seed}: {move} by seat {seat}")
                every += 1
                kinds.add(move.kind)
            tablas += sum(fast.fields()["tablas"])
            rounds.add(state.round_no)
            steps += 1
        final, _ = both(state, 0)
        assert final.is_over() and final.estimate() == state.result().scores
    assert steps > 600 and every > 1.5 * steps  # the walk reached what it is meant to test
    kinds_all = {"trail", "capture", "take", "done", "ace", "accept", "refuse"}
    assert kinds == kinds_all and tablas > 0 and len(rounds) > 1


def test_heuristic_choices_agree_through_captures():
    """From positions of both kinds of match, the heuristic's choices for 30 actions: each
    atomic step toward its whole move, through an ace's value and the cards a capture
    takes."""
    choices, kinds = 0, set()
    for seed in range(100, 112):
        for i, (state, _, _) in enumerate(positions(seed, "random" if seed % 2 else "heuristic")):
            if i % 7:
                continue
            fast, slow = both(state, i)
            for _ in range(30):
                if slow.is_over():
                    break
                seat = slow.to_act()[0]
                mine, theirs = fast.choose(seat), slow.choose(seat)
                assert mine == theirs, f"seed {seed}, position {i}"
                assert mine in slow.legal_actions(seat)
                fast._apply(seat, mine)
                slow._apply(seat, theirs)
                same(fast, slow, f"seed {seed}, position {i}: {mine}")
                choices += 1
                kinds.add(mine.kind)
    assert choices > 1500 and {"ace", "take", "done", "trail", "capture"} <= kinds


@pytest.mark.parametrize("policy", POLICIES)
def test_whole_rollouts_agree(policy):
    """Rollouts to the end (and to a horizon), the random ones on the same stream."""
    played = 0
    for seed in range(200, 215):
        for i, (state, _, _) in enumerate(positions(seed, "random")):
            if i % 10:
                continue
            for limit in (0, 8):
                fast, slow = both(state, seed)
                slow.rng = SplitMix(seed * 7 + i)  # type: ignore[assignment]  # .choice only
                taken = fast.rollout(policy, limit, seed=seed * 7 + i)
                assert slow.rollout(policy, limit) == taken
                same(fast, slow, f"seed {seed}, position {i}, limit {limit}")
                played += taken
    assert played > 2000


def test_mid_capture_rollouts_agree():
    """A rollout begun inside a capture (an ace's value still to say, cards still to take)
    finishes it by atomic steps before whole moves."""
    state = TabinetState.from_position(2, ["AH 4C", "4D 5S"], table="AD 10C 2H 9S 5D")
    begun = ["capture AH", "ace 11", "take AD"]
    for steps in (begun[:k] for k in range(len(begun) + 1)):
        s = state.clone()
        for step in steps:
            s.apply(0, Action.parse(step))
        fast, slow = both(s, 1)
        assert fast.rollout("heuristic") == slow.rollout("heuristic")
        same(fast, slow, f"after {steps}")


def test_clone_apply_and_errors():
    state = TabinetState.from_position(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
    fast = state.playout_state(seed=1)
    copy = fast.clone()
    copy.apply(0, Action.parse("trail 4C"))
    assert copy.to_act() == (1,) and fast.to_act() == (0,)
    assert copy.fields()["layout"] != fast.fields()["layout"]
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(0, Action.parse("take AD"))
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(1, Action.parse("trail 4D"))
    with pytest.raises(ValueError, match="not to act"):
        fast.choose(1)
    with pytest.raises(ValueError, match="policy"):
        fast.rollout("greedy")
    with pytest.raises(ValueError, match="max_actions"):
        fast.rollout("random", -1)
    assert fast.rollout("heuristic") > 0 and fast.is_over() and not copy.is_over()
    assert fast.legal_actions(0) == [] and fast.to_act() == ()
    bad = state.playout_fields() | {"sides": ((0, 1),)}
    with pytest.raises(ValueError, match="sides"):
        TabinetPlayout(bad)
    with pytest.raises(ValueError, match="seats"):
        TabinetPlayout(state.playout_fields() | {"players": 5})


def hidden_places(world: dict, seat: int) -> dict[Card, str]:
    """Where each card ``seat`` cannot see lies in a world's ``fields()``: another seat's
    hand, the stock, or the stock's top."""
    places = {}
    for s, hand in enumerate(world["hands"]):
        if s != seat:
            places |= {c: f"hand:{s}" for c in hand}
    places |= {c: "stock" for c in world["stock"]}
    if world["stock"]:
        places[world["stock"][-1]] = "top"  # the next card drawn
    return places


def test_dealt_worlds_are_worlds_from_view_would_deal():
    """From positions of random and heuristic matches, the acting seat's view: every world
    its dealer deals keeps that seat's hand, the counts and everything in the open; the
    hidden cards are the same set; and the seat's legal actions are the real ones."""
    checked = 0
    for seed in range(300, 312):
        for i, (state, seat, _) in enumerate(
            positions(seed, "random" if seed % 2 else "heuristic")
        ):
            if i % 5:
                continue
            view = state.view(seat)
            base = TabinetState.from_view(SPEC, view, random.Random(i))
            dealer = base.playout_dealer(seat, seed=i)
            want = base.playout_state(0).fields()
            hidden = sorted(hidden_places(want, seat))
            for k in range(4):
                world = dealer.deal(seed=k)
                got = world.fields()
                for key in want:
                    if key not in ("hands", "stock"):
                        assert got[key] == want[key], key
                assert got["hands"][seat] == list(view.hand)
                for s, hand in enumerate(got["hands"]):
                    assert len(hand) == view.counts[f"hand:{s}"]
                assert len(got["stock"]) == view.counts["stock"]
                assert sorted(hidden_places(got, seat)) == hidden
                assert world.legal_actions(seat) == state.legal_actions(seat)
                checked += 1
    assert checked > 300


def test_each_hidden_card_lands_in_each_place_as_often_as_from_view_puts_it():
    """A three-player position with cards in the stock: 3,000 worlds from the dealer and
    3,000 from ``from_view``; each hidden card's share in each place (a hand, the stock, the
    stock's top) agrees within 0.04 (over five standard errors)."""
    for state, _, _ in positions(7, "heuristic"):
        if 10 <= len(state.stock) <= 20 and state.phase == "play":
            break
    seat = state.to_act()[0]
    view, draws = state.view(seat), 3000
    rng = random.Random(5)
    python: Counter[tuple[Card, str]] = Counter()
    for _ in range(draws):
        python.update(
            hidden_places(TabinetState.from_view(SPEC, view, rng).playout_fields(), seat).items()
        )
    dealer = TabinetState.from_view(SPEC, view, rng).playout_dealer(seat, seed=9)
    kernel: Counter[tuple[Card, str]] = Counter()
    for k in range(draws):
        kernel.update(hidden_places(dealer.deal(k).fields(), seat).items())
    assert len(python) > 20 and set(kernel) == set(python)
    for pair in set(python) | set(kernel):
        assert abs(kernel[pair] - python[pair]) / draws < 0.04, pair


def test_dealer_errors():
    state = TabinetState.from_position(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
    fast = state.playout_state(0)
    with pytest.raises(ValueError, match="not at this table"):
        TabinetDealer(fast, 2)
    dealer = TabinetDealer(fast, 1, seed=3)
    assert dealer.deal(1).fields()["hands"][1] == fast.fields()["hands"][1]
