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
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from dealing import Replayed, count_worlds  # tests/engine: on the path (pytest)
from splitmix import SplitMix

from levata.bots import play_match
from levata.bots.heuristic.macao import HeuristicBot
from levata.bots.search.ismcts import IsmctsBot
from levata.engine import Action, Card, SeatView, game
from levata.engine.cards import french_deck
from levata.engine.games.macao import WORLD_RULES, MacaoState
from levata.engine.games.macao import world as world_module
from levata.engine.macao_playouts import POLICIES, MacaoDealer, MacaoPlayout

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
    original = MacaoState.playout_dealer

    class Counted:
        """The game's dealer, counting the copies it deals."""

        def __init__(self, dealer: MacaoDealer) -> None:
            self.dealer = dealer

        def deal(self, seed: int = 0) -> MacaoPlayout:
            copies.append(seed)
            return self.dealer.deal(seed)

    def counted(self: MacaoState, seat: int, seed: int) -> Counted:
        return Counted(original(self, seat, seed))

    monkeypatch.setattr(MacaoState, "playout_dealer", counted)
    state = SPEC.new_match(players=players, options=options, seed=players)
    bots = [
        IsmctsBot("macao", seed=s, iterations=15, time_ms=0, others=others, rollout=rollout)
        for s in range(players)
    ]
    result = play_match(state, bots)
    assert state.is_over() and result.reason in ("complete", "cap", "deadlock")
    searched = sum(b.stats.iterations for b in bots)
    assert searched > 0 and len(copies) == searched  # every world was dealt as a fast copy


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
    def refuse(self: MacaoState, *args: int) -> MacaoPlayout:
        raise AssertionError("fast=False searched on a fast copy")

    monkeypatch.setattr(MacaoState, "playout_state", refuse)
    monkeypatch.setattr(MacaoState, "playout_dealer", refuse)
    assert _moves(False, "auto")


# -- the dealer: the search's worlds, dealt in C -----------------------------------------------


def views(seeds: range, every: int) -> Iterator[tuple[MacaoState, SeatView]]:
    """Every ``every``-th position of random and heuristic matches (each table size, each
    option), with the view of the seat to act."""
    for seed in seeds:
        policy = "random" if seed % 2 else "heuristic"
        for i, (state, seat, _) in enumerate(positions(seed, policy)):
            if i % every == every - 1:
                yield state, state.view(seat)


def consistent(world: MacaoPlayout, real: MacaoState, view: SeatView) -> None:
    """What a world of ``view`` must keep, whatever its draw: the seat's hand, every count,
    everything in the open, each card once; and the seat's legal actions."""
    got, want = world.fields(), real._fields()
    dealt = ("hands", "stock", "drawn")
    assert {k: v for k, v in got.items() if k not in dealt} == {
        k: v for k, v in want.items() if k not in dealt
    }
    assert got["hands"][view.seat] == list(view.hand)
    assert [len(h) for h in got["hands"]] == [view.counts[f"hand:{s}"] for s in range(view.players)]
    assert len(got["stock"]) == view.counts["stock"]
    assert got["discard"] == list(view.zones["discard"])
    assert got["group"] == list(view.zones["group"])
    every = [c for h in got["hands"] for c in h] + got["stock"] + got["discard"] + got["group"]
    assert sorted(every) == sorted(french_deck())
    if got["drawn"] is not None:
        assert got["drawn"] in got["hands"][got["actor"]]
    assert world.legal_actions(view.seat) == real.legal_actions(view.seat)


def dealer_of(world: MacaoState, view: SeatView, seed: int, tries: int) -> MacaoDealer:
    """The dealer ``playout_dealer`` builds, with ``tries`` strict attempts an epoch."""
    kept = world_module.plan(world_module.skeleton(view, WORLD_RULES))
    base = MacaoPlayout(world._fields())
    slots, epochs, stock, drawn = kept.slots, kept.epochs, kept.stock, kept.drawn
    return MacaoDealer(base, view.seat, slots, epochs, stock, drawn, seed, tries)


@pytest.mark.parametrize("tries", [world_module.TRIES, 1])
def test_the_dealer_deals_from_views_worlds_draw_for_draw(tries, monkeypatch):
    """From positions of random and heuristic matches: the dealer's worlds are the very worlds
    ``from_view`` deals from the same splitmix64 stream, several in a row (whole positions
    equal, and their rollouts), each consistent with the view. Views with reshuffles (several
    epochs) and draws that met the table (or did not) are counted, and the worlds dealt by the
    fallback (an epoch stuck ``tries`` times, then dealt without its draw constraints): about
    one in fifteen with :data:`~levata.engine.games.macao.world.TRIES`, one in two with 1."""
    monkeypatch.setattr(world_module, "TRIES", tries)
    stuck = {True: 0, False: 0}
    deal_epoch = world_module._deal_epoch

    def counted(skel: Any, ep: Any, rng: random.Random, strict: bool) -> Any:
        got = deal_epoch(skel, ep, rng, strict)
        stuck[strict] += got is None
        return got

    monkeypatch.setattr(world_module, "_deal_epoch", counted)
    worlds = reshuffled = bound = fallback = 0
    for real, view in views(range(24), 11):
        seed = worlds
        base = MacaoState.from_view(SPEC, view, random.Random(seed))
        dealer = dealer_of(base, view, seed, tries)
        replay = Replayed(seed)
        for k in range(3):
            before = stuck[True]
            want = MacaoState.from_view(SPEC, view, replay)._fields()
            world = dealer.deal(k)
            assert world.fields() == want, (worlds, k)
            consistent(world, real, view)
            assert world.rollout("random") == MacaoPlayout(want, k).rollout("random")
            fallback += stuck[True] - before >= tries
            worlds += 1
        skel = world_module.skeleton(view, WORLD_RULES)
        reshuffled += len(skel.epochs) > 1
        bound += any(s.must_match is not None for s in skel.slots)
    assert not stuck[False]  # a world without draw constraints always fits
    assert worlds > 600 and reshuffled > 50 and bound > 100, (worlds, reshuffled, bound)
    assert stuck[True] > 1000 and fallback > 50, (stuck, fallback)


def test_the_dealer_deals_worlds_of_positions_read_from_text():
    """A match read from a position opens its history there (every held card counts as dealt
    then): from its views too the dealer deals ``from_view``'s worlds, draw for draw, each
    consistent with the view."""
    worlds = 0
    for seed in range(8):
        # Every other match is read mid-group (the position event names the group's cards)
        state = next(
            s
            for i, (s, _, _) in enumerate(positions(300 + seed, "heuristic"))
            if i >= 25 and bool(s.group) == (seed % 2 == 1)
        )
        read = SPEC.from_position(state.position(), seed=seed)
        assert isinstance(read, MacaoState)
        rng = random.Random(seed)
        for step in range(40):
            if read.is_over():
                break
            seat = read.to_act()[0]
            view = read.view(seat)
            base = MacaoState.from_view(SPEC, view, random.Random(step))
            consistent(base.playout_state(step), read, view)
            if step % 4 == 0:
                dealer, replay = base.playout_dealer(seat, step), Replayed(step)
                for k in range(2):
                    want = MacaoState.from_view(SPEC, view, replay)._fields()
                    world = dealer.deal(k)
                    assert world.fields() == want
                    consistent(world, read, view)
                    worlds += 1
            read._apply(seat, rng.choice(read.legal_actions(seat)))
    assert worlds > 80, worlds


def test_the_dealer_reads_the_walk_its_world_kept():
    """``playout_dealer`` on a world ``from_view`` rebuilt: the same worlds as from the view's
    walk, without walking the history again; on the real match, the same worlds; on a world
    moved on since, or sampled for another seat (this seat's hand redealt), a fresh walk."""
    moved_on = 0
    for real, view in views(range(30, 36), 13):
        base = MacaoState.from_view(SPEC, view, random.Random(1))
        kept = base._walked
        assert kept is not None and base._walk_of(view.seat) is kept
        for world in (base, real):
            dealer = world.playout_dealer(view.seat, seed=3)
            replay = Replayed(3)
            for k in range(2):
                want = MacaoState.from_view(SPEC, view, replay)._fields()
                assert dealer.deal(k).fields() == want
        other = (view.seat + 1) % view.players  # its sample redeals this seat's hand too
        sampled = base.sample_world(other, random.Random(2))
        assert sampled._walk_of(view.seat) is not kept  # a clone keeps no walk
        mine = sampled.playout_dealer(view.seat, seed=1).deal(2)
        consistent(mine, sampled, sampled.view(view.seat))
        moved = base.clone()
        moved._apply(view.seat, moved.legal_actions(view.seat)[0])
        if not moved.is_over():
            seat = moved.to_act()[0]
            assert moved._walk_of(seat) is not kept
            consistent(moved.playout_dealer(seat, seed=1).deal(2), moved, moved.view(seat))
            moved_on += 1
    assert moved_on > 20, moved_on


def test_each_hidden_card_lands_in_each_place_as_often_as_from_view_puts_it():
    """``from_view`` on ``random.Random`` against the dealer on splitmix64, 2,000 worlds each, at
    a view with a reshuffle and draws that met the table (or did not): each hidden card's share
    of each hand and of the stock's top agrees within 0.05 (three standard errors of the
    difference at the worst share, a half)."""

    def walk(view: SeatView) -> world_module.Skeleton:
        return world_module.skeleton(view, WORLD_RULES)

    view = next(
        view
        for _, view in views(range(40, 60), 7)
        if len(walk(view).epochs) > 1
        and sum(s.must_match is not None for s in walk(view).slots) > 2
    )
    draws, rng = 2000, random.Random(5)
    python: Counter[tuple[int, Card]] = Counter()
    kernel: Counter[tuple[int, Card]] = Counter()
    dealer = MacaoState.from_view(SPEC, view, rng).playout_dealer(view.seat, seed=9)
    for k in range(draws):
        for fields, counts in (
            (MacaoState.from_view(SPEC, view, rng)._fields(), python),
            (dealer.deal(k).fields(), kernel),
        ):
            counts.update((s, c) for s, h in enumerate(fields["hands"]) for c in h)
            counts.update((-1, c) for c in fields["stock"][-1:])
    assert len(python) > 40 and set(kernel) == set(python)
    gaps = {pair: abs(kernel[pair] - python[pair]) / draws for pair in set(python) | set(kernel)}
    for pair, gap in gaps.items():
        assert gap < 0.05, pair


def test_the_search_deals_its_worlds_in_the_kernel_and_replays_from_its_seed(monkeypatch):
    """ismcts rebuilds one world from the view in Python and asks it for its dealer: the rest
    come from the dealer (one ``from_view`` and one dealer a decision); the same seed makes
    the same decision."""
    real, view = next(views(range(3, 4), 25))
    legal = real.legal_actions(view.seat)
    calls = count_worlds(monkeypatch, MacaoState)
    picks = []
    for root in ("paired", "ucb", "paired"):
        bot = IsmctsBot("macao", seed=5, iterations=40, time_ms=0, root=root)
        picks.append(bot.act(view, legal))
        assert bot.stats.iterations == 40
    assert calls == {"from_view": 3, "playout_dealer": 3}  # once a decision each
    assert picks[0] == picks[2] and set(picks) <= set(legal)


def test_dealer_errors():
    state = MacaoState.from_position(3, ["9S 3H", "5D 6D", "KC"], top="9H")
    view = state.view(0)
    kept = world_module.plan(world_module.skeleton(view, WORLD_RULES))
    base = MacaoPlayout(state._fields())
    slots, epochs, stock = kept.slots, kept.epochs, kept.stock
    with pytest.raises(ValueError, match="not at this table"):
        MacaoDealer(base, 3, slots, epochs, stock)
    with pytest.raises(ValueError, match="tries"):
        MacaoDealer(base, 0, slots, epochs, stock, tries=0)
    with pytest.raises(ValueError, match="hides nothing"):
        MacaoDealer(base, 1, slots, epochs, stock)
    with pytest.raises(ValueError, match="stock slots"):
        MacaoDealer(base, 0, slots, epochs, stock[1:])
    with pytest.raises(ValueError, match="in no epoch"):
        MacaoDealer(base, 0, [*slots, (1, 5, None)], epochs, stock)
    with pytest.raises(ValueError, match="slots for its cards"):
        MacaoDealer(base, 0, slots, [(ep[0], ep[1], ep[2], ep[3][1:]) for ep in epochs], stock)
    with pytest.raises(ValueError, match="drawn card"):
        MacaoDealer(base, 0, slots, epochs, stock, drawn=stock[0])
    short = state.clone()
    short.hands[1].pop()
    with pytest.raises(ValueError, match="holds 1 cards, not 2"):
        MacaoDealer(MacaoPlayout(short._fields()), 0, slots, epochs, stock)
    # A draw that met the table and no card left to meet it: no deal fits.
    first = slots[0]
    hopeless = [(first[0], first[1], frozenset()), *slots[1:]]
    dealer = MacaoDealer(base, 0, hopeless, epochs, stock, tries=1)
    assert dealer.deal(1).fields()["hands"][0] == state.hands[0]  # the fallback drops it
    played = [(ep[0], ep[1], [(ep[3][0], 0, 1)], ep[3][1:]) for ep in epochs]
    with pytest.raises(ValueError, match="no deal of the hidden cards"):
        MacaoDealer(base, 0, slots, played, stock).deal(1)
