"""Trombon's fast copy for the generic search (``levata.engine.games.trombon.fast``: the
game's atomic actions on the rank kernel) against the game itself.

Matches of 3 to 8 players (one deck to 6, two from 7), ``count_lies`` on and off, a short
play cap (so that caps end matches and rollouts too), moved on by random or heuristic
seats. A copy walked along the whole match beside it must agree at every position (the
position as plain values, whose turn, every seat's legal actions, the estimate), and so must
the copy of every position and its successor after every legal action. The copy's
``heuristic`` policy must pick what the heuristic bot picks (but where the bot is cornered or
draws among equal ranks to open), its rollouts must be its own atomic choices played one by
one (whole, cut at a horizon, random) and end as the game does on those actions, and the
dealer must deal the worlds ``from_view`` deals, draw for draw.
"""

from __future__ import annotations

import doctest
import random
from collections.abc import Iterator

import pytest

import levata.engine.games.trombon.fast as fast_module
from levata.bots.base import make_bot
from levata.bots.heuristic.trombon import HeuristicBot
from levata.bots.search.ismcts import IsmctsBot
from levata.bots.strategy.trombon import Table, cornered
from levata.engine import Action, game
from levata.engine.games.trombon import TrombonState
from levata.engine.games.trombon.fast import CardDealer, CardPlayout

SPEC = game("trombon")
PLAYERS = [3, 4, 5, 6, 7, 8]
POLICIES = ("random", "heuristic")


def match(seed: int, policy: str, cap: int = 40) -> TrombonState:
    players = PLAYERS[seed % len(PLAYERS)]
    options = {"count_lies": seed % 3 != 2, "play_cap": cap}
    return SPEC.new_match(players, seed=seed, options=options)


def moves(state: TrombonState, seed: int, policy: str) -> Iterator[tuple[int, Action]]:
    """The match's actions, one at a time (yielded before each is applied to ``state``)."""
    rng = random.Random(seed)
    bots = [make_bot(policy, "trombon", seed=seed * 16 + s) for s in range(state.players)]
    while not state.is_over():
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            if policy == "random":
                action = rng.choice(legal)
            else:
                action = bots[seat].act(state.view(seat), legal)
            yield seat, action
            state._apply(seat, action)


def agree(fast: CardPlayout, state: TrombonState, after: object) -> None:
    assert fast.fields() == state.playout_fields(), after
    assert fast.is_over() == state.is_over(), after
    assert fast.to_act() == state.to_act(), after
    for seat in range(state.players):
        assert fast.legal_actions(seat) == state.legal_actions(seat), (after, seat)
    if state.is_over():
        assert fast.estimate() == state.result().scores, after
    else:
        assert fast.estimate() == state.estimate(), after


MATCHES = [(seed, policy) for seed in range(12) for policy in POLICIES]


@pytest.mark.parametrize(("seed", "policy"), MATCHES)
def test_every_position_and_the_successor_of_every_legal_action_agree(seed, policy):
    """The walked copy checked before every action, and a fresh copy of one position in
    four checked after each legal action of each seat to act."""
    state = match(seed, policy)
    walked = state.playout_state(seed)
    pick = random.Random(-seed)
    ends = set()
    for i, (seat, action) in enumerate(moves(state, seed, policy)):
        agree(walked, state, i)
        if pick.random() < 0.25:
            fresh = state.playout_state(i)
            agree(fresh, state, (i, "fresh"))
            laid = fresh.kernel.fields()["mine_laid"]  # read from the log, the walked one kept
            assert laid == walked.kernel.fields()["mine_laid"], i
            for s in state.to_act():
                for a in state.legal_actions(s):
                    after = state.clone()
                    after._apply(s, a)
                    copy = fresh.clone()
                    copy._apply(s, a)
                    agree(copy, after, (i, s, str(a)))
                    ends.add(after.phase)
        walked._apply(seat, action)
    agree(walked, state, "end")
    assert "window" in ends


def plays_to_try(state: TrombonState) -> list[list[Action]]:
    """Whole plays for the seat to play, card by card: a claim where it opens, then one card,
    two cards declared as one, as two and as three (a count lie either way, with
    ``count_lies``), and every card it holds declared as their count."""
    from levata.engine.games.trombon import claim, declare, put

    seat = state.actor
    assert seat is not None
    hand = sorted(state.hands[seat], key=lambda c: (c.rank, int(c.suit)))
    opening = [claim(hand[0].rank)] if state.rank is None else []
    counts = [(1, 1), (len(hand), len(hand))]
    if len(hand) >= 2:
        counts += [(2, 2)] + ([(2, 1), (2, 3)] if state.count_lies else [])
    return [opening + [put(c) for c in hand[:k]] + [declare(d)] for k, d in counts]


@pytest.mark.parametrize(("seed", "policy"), MATCHES[:8])
def test_every_call_on_true_and_false_plays_agrees(seed, policy):
    """At one turn in three: plays true and false in their rank and count, then each seat
    of the window calling each call (the others passing), and all passing."""
    state = match(seed, policy)
    pick = random.Random(seed)
    outcomes = set()
    for i, _ in enumerate(moves(state, seed, policy)):
        if state.phase == "window" or state.staged or pick.random() > 1 / 3:
            continue
        for play in plays_to_try(state):
            game_copy, fast = state.clone(), state.playout_state(i)
            seat = state.actor
            for action in play:
                game_copy._apply(seat, action)
                fast._apply(seat, action)
            agree(fast, game_copy, (i, "play"))
            window = game_copy.to_act()
            calls = [(s, a.kind) for s in window for a in game_copy.legal_actions(s)[1:]]
            for caller, kind in [(None, "pass"), *calls]:
                after, copy = game_copy.clone(), fast.clone()
                for s in window:
                    call = Action(kind) if s == caller else Action("pass")
                    after._apply(s, call)
                    copy._apply(s, call)
                agree(copy, after, (i, caller, kind))
                if caller is not None:
                    told = next(e for e in reversed(after.events()) if e.kind == "call")
                    outcomes.add((kind, told.data["taker"] == caller))  # the call was right
                else:
                    outcomes.add(("pass", False))
    if state.count_lies:
        assert {("trombon_de_carti", True), ("trombon_de_carti", False)} <= outcomes
    assert {("trombon", True), ("trombon", False), ("pass", False)} <= outcomes


@pytest.mark.parametrize("seed", range(12))
def test_the_heuristic_policy_picks_what_the_heuristic_bot_picks(seed):
    """Through heuristic matches, a copy walked along: its ``heuristic`` choice for every
    seat to act is the bot's, but for a cornered caller (the bot reads who holds what from
    its history) and an opener with equal ranks to choose from (the bot draws one)."""
    state = match(seed, "heuristic", cap=120)
    walked = state.playout_state(seed)
    compared = {"claim": 0, "put": 0, "declare": 0, "window": 0}
    for i, (seat, action) in enumerate(moves(state, seed, "heuristic")):
        view = state.view(seat)
        table = Table.from_view(view)
        legal = state.legal_actions(seat)
        bot = HeuristicBot("trombon", seed=seed)
        if i % 4 == 0:  # a world of the seat's view picks for it as the match's copy does
            assert state.playout_dealer(seat, i).deal().choose(seat) == walked.choose(seat)
        if state.phase == "window":
            if not cornered(table, seat):
                compared["window"] += 1
                assert walked.choose(seat) == bot.act(view, legal), (seat, str(action))
        elif legal[0].kind == "claim":
            held = table.hand
            rest = [r for r in range(13) if 0 < held[r] < 4 * table.decks] or range(13)
            if sum(held[r] == max(held[q] for q in rest) for r in rest) == 1:
                compared["claim"] += 1
                assert walked.choose(seat) == bot.act(view, legal)
        else:
            pick = bot.act(view, legal)
            compared[pick.kind] += 1
            assert walked.choose(seat) == pick, (seat, str(pick))
        walked._apply(seat, action)
    assert all(compared.values()), compared


def stepped(fast: CardPlayout, state: TrombonState, policy: str, steps: int) -> int:
    """Play ``fast`` on by its own choices one action at a time, the game beside it (at most
    ``steps``, 0: to the end); the actions taken."""
    done = 0
    while not fast.is_over() and (not steps or done < steps):
        seat = fast.to_act()[0]
        action = fast.choose(seat, policy)
        assert action in state.legal_actions(seat)
        fast._apply(seat, action)
        state._apply(seat, action)
        done += 1
    return done


@pytest.mark.parametrize(("seed", "policy"), MATCHES[::2] + MATCHES[1::4])
def test_rollouts_are_the_policy_played_action_by_action(seed, policy):
    """From positions of a match: a ``heuristic`` rollout (the kernel's whole plays) ends
    where its own choices played one by one end, after as many actions, whole and cut at a
    horizon; and the game, fed the same actions, ends with the copy's estimate as its
    result. A ``random`` rollout is its own random choices from the same stream."""
    state = match(seed, policy, cap=30 + seed)
    pick = random.Random(seed)
    checked = 0
    for i, _ in enumerate(moves(state, seed, policy)):
        if pick.random() > 0.1:
            continue
        checked += 1
        for kind, cut in (("heuristic", 0), ("heuristic", 7), ("heuristic", 30), ("random", 0)):
            fast = state.playout_state(i)
            rolled = fast.clone()
            taken = rolled.rollout(kind, cut, seed=i)
            one, game_copy = fast.clone(), state.clone()
            one.kernel.reseed(i)
            done = stepped(one, game_copy, kind, taken)
            assert done == taken, (i, kind, cut)
            assert rolled.kernel.fields() == one.kernel.fields(), (i, kind, cut)
            assert rolled.is_over() == one.is_over() == game_copy.is_over(), (i, kind, cut)
            assert rolled.estimate() == one.estimate() == game_copy.estimate(), (i, kind, cut)
            if cut:
                assert taken >= min(cut, taken) and (taken < cut + 120 or kind == "random")
            else:
                assert game_copy.is_over()
                assert rolled.estimate() == game_copy.result().scores
    assert checked


@pytest.mark.parametrize(("seed", "policy"), MATCHES)
def test_the_dealer_deals_the_worlds_of_from_view_draw_for_draw(seed, policy):
    """For the seat to act at one position in six: each world the dealer deals is the fast
    copy of ``from_view``'s world from the same seed, it offers the seat the legal actions
    the match does, and the dealer's own stream goes on as the seeds' would."""
    state = match(seed, policy)
    pick = random.Random(seed)
    dealt = 0
    for i, (seat, _) in enumerate(moves(state, seed, policy)):
        if pick.random() > 1 / 6 or state.is_over():
            continue
        view = state.view(seat)
        dealer = state.playout_dealer(seat, i)
        for s in range(3):
            world = TrombonState.from_view(SPEC, view, random.Random(i * 10 + s))
            fast = dealer.deal(i * 10 + s)
            assert fast.fields() == world.playout_fields(), (i, s)
            assert fast.legal_actions(seat) == state.legal_actions(seat)
            assert fast.to_act() == state.to_act()
            dealt += 1
        mine = fast.fields()["hands"][seat]
        assert mine == [str(c) for c in sorted(view.hand, key=lambda c: (c.rank, int(c.suit)))]
        streamed = CardDealer(view, seed=5).deal()
        assert streamed.fields() == world_of(view, random.Random(5)).playout_fields()
    assert dealt


def world_of(view, rng: random.Random) -> TrombonState:
    return TrombonState.from_view(SPEC, view, rng)


def test_clones_are_independent_and_a_rolled_copy_only_estimates():
    state = match(3, "heuristic")
    fast = state.playout_state(1)
    twin = fast.clone()
    seat = fast.to_act()[0]
    fast._apply(seat, fast.legal_actions(seat)[0])
    assert twin.fields() == state.playout_fields() != fast.fields()
    twin.rollout("heuristic", 0, seed=2)
    assert twin.is_over() and len(twin.estimate()) == state.players
    with pytest.raises(RuntimeError, match="no longer follows"):
        twin.legal_actions(seat)
    with pytest.raises(ValueError, match="policy must be one of heuristic, random"):
        fast.choose(seat, "greedy")
    with pytest.raises(ValueError, match="policy must be one of heuristic, random"):
        fast.rollout("greedy")


def test_a_seat_off_the_table_or_an_action_not_legal_is_refused_and_changes_nothing():
    """The kernels' face (``levata.engine.playout_base``), as the other games' copies."""
    state = match(5, "heuristic")
    fast = state.playout_state(1)
    assert fast.players == state.players
    before = fast.fields()
    legal = fast.legal_actions(fast.to_act()[0])
    for seat in (-1, state.players, 63):
        assert fast.legal_actions(seat) == []
        with pytest.raises(ValueError, match="not legal"):
            fast.apply(seat, legal[0])
        with pytest.raises(ValueError, match="not to act"):
            fast.choose(seat)
    for action in (Action("no_such_action"), Action("declare", number=1), Action("trombon")):
        with pytest.raises(ValueError, match="not legal"):
            fast.apply(fast.to_act()[0], action)
    assert fast.fields() == before
    fast.apply(fast.to_act()[0], legal[0])
    assert fast.fields() != before


def test_ismcts_searches_on_the_fast_copy():
    """The generic search deals fast copies and plays a match with them."""
    state = match(4, "heuristic", cap=30)
    bots = [IsmctsBot("trombon", seed=s, iterations=8, time_ms=0) for s in range(state.players)]
    seat = state.to_act()[0]
    kept = {}
    real_deal = CardDealer.deal

    def spy(self, seed=None):
        copy = real_deal(self, seed)
        kept["copy"] = copy
        return copy

    CardDealer.deal = spy  # type: ignore[method-assign]
    try:
        while not state.is_over():
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                state._apply(seat, bots[seat].act(state.view(seat), legal))
    finally:
        CardDealer.deal = real_deal  # type: ignore[method-assign]
    assert isinstance(kept["copy"], CardPlayout)


def test_doctests():
    assert doctest.testmod(fast_module).failed == 0
