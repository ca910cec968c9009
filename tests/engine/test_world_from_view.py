"""Worlds rebuilt from a view (``GameSpec.world_from_view``) on the trick base: the check of
``levata.engine.testing`` passes honest worlds at every phase and player count, and catches
a world whose view differs and a world that ignores a void."""

from __future__ import annotations

import dataclasses
import random

import pytest

from levata.engine import game
from levata.engine.cards import Card
from levata.engine.games.whist import WhistState
from levata.engine.testing import (
    ConformanceError,
    check_game,
    check_world_from_view,
    check_worlds_from_view,
    defines_from_view,
    random_steps,
)

WHIST = game("whist")


def positions(players: int, options: dict, seed: int):
    """Every position of one random match (the state is yielded, then played on)."""
    state = WHIST.new_match(players=players, options=options, seed=seed)
    rng = random.Random(seed)
    yield state
    for _ in random_steps(state, rng):
        if not state.is_over():
            yield state


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_phase_of_a_full_match(players):
    """Bidding, leading, mid-trick, the last trick, later deals, at every player count, for
    every seat (including seats not to act)."""
    seen = set()
    rng = random.Random(players)
    for k, state in enumerate(positions(players, {"one_card_mode": "forehead"}, players)):
        if k % 7:  # 7: prime to every table size, so every trick position comes up
            continue
        deal_no = state.deal_index
        trick = len(state.current)
        last = len(state.hands[state.player_to_play()]) == 1 if state.phase == "play" else False
        seen.add((state.phase, trick > 0, last, deal_no > 0, state.forehead))
        for seat in {state.to_act()[0], k % players}:  # the seat to act, and another
            check_world_from_view(state, seat, rng, moves=None if k % 49 == 0 else 12)
    phases = {p for p, *_ in seen}
    assert phases == {"bid", "play"}
    assert any(mid for _, mid, *_ in seen) and any(last for _, _, last, *_ in seen)
    assert any(later for *_, later, _ in seen) and any(fh for *_, fh in seen)


@pytest.mark.parametrize("options", [{"deal_size": 8}, {"deal_size": 5, "must_trump": False}])
def test_single_deals_and_no_trump_duty(options):
    rng = random.Random(3)
    for players in (3, 6):
        for state in positions(players, options, 10 + players):
            check_world_from_view(state, state.to_act()[0], rng, moves=6)


def test_the_conformance_run_covers_bidding_and_play():
    phases = check_worlds_from_view(WHIST, matches=4, every=29)
    assert phases["bid"] > 0 and phases["play"] > 0


def test_same_random_state_same_world_and_hidden_cards_vary():
    state = WHIST.new_match(players=4, options={"deal_size": 6}, seed=1)
    view = state.view(2)
    a = WHIST.world_from_view(view, random.Random(7))
    b = WHIST.world_from_view(view, random.Random(7))
    assert a.table() == b.table() and a.events() == b.events()
    hands = {tuple(WHIST.world_from_view(view, random.Random(k)).hands[0]) for k in range(20)}
    assert len(hands) > 10
    assert sorted(a.hands[2]) == sorted(state.hands[2])


def test_sample_world_is_the_same_redeal():
    state = WHIST.new_match(players=3, options={"deal_size": 4}, seed=2)
    world = state.sample_world(1, random.Random(5))
    again = WHIST.world_from_view(state.view(1), random.Random(5))
    assert world.table() == again.table()


class _WrongScores(WhistState):
    def _restore_from_view(self, view):
        super()._restore_from_view(view)
        self.totals[0] += 1  # a world whose view differs


class _IgnoresVoids(WhistState):
    def _deal_hidden(self, plan, rng):
        super()._deal_hidden(plan, rng)
        # Swap a card of a suit some seat showed out of into that seat's hand.
        for t in plan.hidden:
            for u in plan.hidden:
                banned = [c for c in self.hands[u] if c.suit.slot in self.voids[t]]
                if u != t and banned and self.hands[t]:
                    c = banned[0]
                    self.hands[u].remove(c)
                    self.hands[u].append(self.hands[t].pop())
                    self.hands[t].append(c)
                    return


def _void_position() -> WhistState:
    """A position where seat 1 has shown out of a suit and seats 0 and 1 both hide cards."""
    for seed in range(200):
        for state in positions(4, {"deal_size": 7}, seed):
            if state.phase == "play" and state.voids[1] and len(state.hands[1]) >= 2:
                return state
    raise AssertionError("no position with a void")


def test_the_check_catches_a_world_whose_view_differs():
    state = WHIST.new_match(players=4, options={"deal_size": 3}, seed=4)
    broken = dataclasses.replace(WHIST, factory=_WrongScores)
    twin = broken.new_match(players=4, options={"deal_size": 3}, seed=4)
    assert twin.view(0) == state.view(0)
    with pytest.raises(ConformanceError, match="shows another scores"):
        check_world_from_view(twin, 0, random.Random(1))


def test_the_check_catches_a_world_that_ignores_a_void():
    state = _void_position()
    broken = dataclasses.replace(WHIST, factory=_IgnoresVoids)
    state.spec = broken
    check = lambda k: check_world_from_view(state, 3, random.Random(k), moves=0)  # noqa: E731
    with pytest.raises(ConformanceError, match="it had to play instead"):
        for k in range(50):
            check(k)
    state.spec = WHIST
    for k in range(50):
        check(k)


def test_check_game_skips_games_without_from_view_and_says_why():
    def plain(**kwargs):  # a factory with no from_view: the game cannot rebuild worlds
        return WhistState(**kwargs)

    no_hook = dataclasses.replace(WHIST, factory=plain)
    assert not defines_from_view(no_hook) and defines_from_view(WHIST)
    report = check_game(no_hook, matches=2, checked=0)
    assert report.skipped == (
        "world_from_view: whist does not define from_view yet",
        "positions: whist does not read positions yet",  # nor positions, with a bare factory
    )
    assert check_game(WHIST, matches=2, checked=1).skipped == ()


def test_a_card_is_never_in_two_places():
    for state in positions(5, {"deal_size": 6}, 9):
        world = WHIST.world_from_view(state.view(0), random.Random(0))
        cards: list[Card] = [c for z in world.table() for c in z.cards]
        assert len(cards) == len(set(cards)) == 40
