"""Toci's playout kernel (``levata.engine.toci_playouts``) against the Python copy
(``levata.engine.games.toci.TociPlayout``) and the game: one source of truth per rule, so the
C copy must agree everywhere.

Positions come from random and heuristic tick-mode matches of 2 to 10 players under every
option that changes play (``toci_mode``, ``toci_penalty``, ``decks``, ``house_by_suit``). At
each one both copies are loaded from the game: their positions, legal actions (the game's
too) of every seat to act, successors after every legal action, scores, careful choices and
whole rollouts (the careful rollout's shortcut, and random moves on the kernel's splitmix64
stream, which the Python copy is given too) must be equal.

The kernel's dealer of worlds (``TociDealer``, the search's determinizations) restates
``from_view``'s draws on splitmix64: fed the same stream (``random.shuffle`` itself on the
kernels' ``below_n``, one word a ``getrandbits``), ``from_view`` must deal the very same
worlds, several in a row, each consistent with the view.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import dealing  # tests/engine: pytest puts it on the path
import pytest
from dealing import count_worlds
from splitmix import SplitMix

from levata.engine import Action, SeatView, game
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


# -- the dealer: the search's worlds, dealt in C -----------------------------------------------


class Replayed(dealing.Replayed):
    """The shared splitmix-fed ``random.Random`` that also refuses a float: Toci's dealer
    restates only ``from_view``'s shuffle and ``getrandbits``."""

    # named here, or random.Random.__init_subclass__ would draw _randbelow from random()
    _randbelow = dealing.Replayed._randbelow

    def random(self) -> float:
        raise AssertionError("from_view drew a float, which the dealer does not restate")


def views(seeds: range, every: int) -> Iterator[tuple[int, TociState, SeatView]]:
    """Every ``every``-th position of random and heuristic matches (``seed % 9 + 2`` players,
    options by seed; mid-window positions with seats already in), with the match's seed and
    the view of a seat to act."""
    for seed in seeds:
        policy = "random" if seed % 2 else "heuristic"
        for i, (state, _, _) in enumerate(positions(seed, policy)):
            if i % every == every - 1:
                waiting = state.to_act()
                yield seed, state, state.view(waiting[i % len(waiting)])


def consistent(world: TociPlayout, real: TociState, view: SeatView) -> None:
    """What a world of ``view`` must keep, whatever its draw: every heap in the open as the
    view shows it, each stock as the real one (the history tells it) and as many cards as the
    view counts, the circle the rest of the deck; the seats to act and their legal actions."""
    got = world.fields()
    assert got["revealed"] == list(view.zones["revealed"])
    assert got["house"] == len(view.zones["house"]) == view.counts["house"]
    for s in range(view.players):
        assert got["piles"][s] == list(view.zones[f"pile:{s}"])
        assert got["stocks"][s] == real.stocks[s]
        assert len(got["stocks"][s]) == view.counts[f"stock:{s}"]
    assert len(got["circle"]) == view.counts["circle"]
    assert Counter(got["circle"]) == Counter(real.circle)
    assert [str(c) for c in got["houses"]] == list(view.facts["houses"])
    assert world.to_act() == real.to_act() == view.to_act
    for s in view.to_act:
        assert world.legal_actions(s) == real.legal_actions(s)


def test_the_dealer_deals_from_views_worlds_draw_for_draw():
    """From positions of random and heuristic matches (2 to 10 players, every option): the
    dealer's worlds are the very worlds ``from_view`` deals from the same splitmix64 stream,
    several in a row (whole positions equal, and their rollouts by either policy), each
    consistent with the view; the dealer of the real match deals the same ones."""
    worlds = windows = shuffled = 0
    tables: set[tuple[int, int]] = set()
    for seed, real, view in views(range(300, 318), 17):
        base = TociState.from_view(SPEC, view, random.Random(seed))
        dealers = [base.playout_dealer(view.seat, seed), real.playout_dealer(view.seat, seed)]
        replay = Replayed(seed)
        for k in range(3):
            want = TociState.from_view(SPEC, view, replay).playout_fields()
            world = dealers[0].deal(k)
            assert world.fields() == dealers[1].deal(k).fields() == want, (seed, worlds, k)
            consistent(world, real, view)
            policy = POLICIES[k % len(POLICIES)]
            again = TociPlayout(want, k)
            assert world.rollout(policy, 9) == again.rollout(policy, 9)
            assert world.fields() == again.fields()
            worlds += 1
            shuffled += len(want["circle"]) > 1
        windows += real.phase == "window" and len(view.to_act) < len(real.unfinished())
        tables.add((view.players, seed % len(OPTIONS)))
    assert {p for p, _ in tables} == set(range(2, 11))
    assert {o for _, o in tables} == set(range(len(OPTIONS)))
    assert worlds > 3000 and shuffled > 1000 and windows > 500, (worlds, shuffled, windows)


def test_each_card_tops_the_circle_as_often_as_from_view_puts_it_there():
    """``from_view`` on ``random.Random`` against the dealer on splitmix64, 3,000 worlds each:
    each card's share of the circle's top (the next card turned up) and of its bottom agrees
    within 0.02 (about five standard errors)."""
    state = SPEC.new_match(3, seed=8, options=options(0))
    for _ in range(12):
        seat = state.to_act()[0]
        state._apply(seat, state.legal_actions(seat)[-1])
    view, draws, rng = state.view(1), 3000, random.Random(5)
    python: Counter[tuple[int, Any]] = Counter()
    for _ in range(draws):
        circle = TociState.from_view(SPEC, view, rng).circle
        python.update([(-1, circle[-1]), (0, circle[0])])
    dealer = TociState.from_view(SPEC, view, rng).playout_dealer(1, seed=9)
    kernel: Counter[tuple[int, Any]] = Counter()
    for k in range(draws):
        circle = dealer.deal(k).fields()["circle"]
        kernel.update([(-1, circle[-1]), (0, circle[0])])
    assert len(state.circle) > 30 and set(kernel) == set(python)
    for pair in set(python) | set(kernel):
        assert abs(kernel[pair] - python[pair]) / draws < 0.02, pair


def searched(match: Iterator[tuple[TociState, int, Action]]) -> tuple[SeatView, list[Action]]:
    """The first decision of ``match`` that ismcts searches (the careful player settles most
    moves): the view and the legal actions."""
    from levata.bots.search.ismcts import IsmctsBot

    probe = IsmctsBot("toci", seed=1, iterations=1, time_ms=0)
    for state, seat, _ in match:
        view, legal = state.view(seat), state.legal_actions(seat)
        probe.act(view, legal)
        if probe.stats.decisions:
            return view, legal
    raise AssertionError("no decision searched")


def real_time(seed: int) -> Iterator[tuple[TociState, int, Action]]:
    """A real-time match moved on by the careful player: the state before each action."""
    state = SPEC.new_match(3, seed=seed, options={"mode": "realtime"})
    while not state.is_over():
        seat = state.to_act()[0]
        action = state.python_playout_state(seed).choose(seat)
        yield state, seat, action
        state._apply(seat, action)


@pytest.mark.parametrize("mode", ["tick", "realtime"])
def test_the_search_deals_its_worlds_in_the_kernel_and_replays_from_its_seed(mode, monkeypatch):
    """ismcts rebuilds one world from the view in Python and asks it for its dealer: the rest
    come from the dealer (one ``from_view`` and one dealer a decision); the same seed makes
    the same decision. Real time has no kernel: every world from ``from_view``, no dealer."""
    from levata.bots.search.ismcts import IsmctsBot

    view, legal = searched(positions(4, "heuristic") if mode == "tick" else real_time(4))
    calls = count_worlds(monkeypatch, TociState)
    picks = []
    for _ in range(2):
        bot = IsmctsBot("toci", seed=5, iterations=60, time_ms=0)
        picks.append(bot.act(view, legal))
        assert bot.stats.iterations == 60
    if mode == "tick":
        assert calls == {"from_view": 2, "playout_dealer": 2}  # once a decision each
    else:
        assert calls == {"from_view": 120, "playout_dealer": 0}  # once a world
    assert picks[0] == picks[1] and picks[0] in legal


def test_dealer_errors():
    """A seat off the table; real time, which has no kernel (the search deals its worlds in
    Python there: it asks for no fast copy)."""
    state = TociState.set_up(3, piles=["", "9S", "4H"], circle="10H 2C")
    with pytest.raises(ValueError, match="not at this table"):
        state.playout_dealer(3, seed=1)
    realtime = SPEC.new_match(3, seed=2, options={"mode": "realtime"})
    with pytest.raises(ValueError, match="tick mode"):
        realtime.playout_dealer(0, seed=1)
