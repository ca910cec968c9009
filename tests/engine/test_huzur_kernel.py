"""Huzur's playout kernel (``levata.engine.huzur_playouts``) against the Python copy
(``levata.engine.games.huzur.playout``) and the game: one source of truth per rule, so the C
copy must agree everywhere.

Positions come from random and heuristic matches of three and four players under every
option that changes play (``hand_cap``, ``cap_lead_to_min_hand``, ``first_opener``). At each
one both copies are loaded from the game: their positions, legal actions (the game's too),
successors after every legal action, scores, heuristic choices (the plan kept across a
move's cards) and whole rollouts must be equal. The random policy draws from the kernel's
splitmix64 stream; the Python copy is given the same stream, so random rollouts must be
equal card for card as well.

The kernel's dealer of worlds (``HuzurDealer``, the search's determinizations) must deal the
worlds ``HuzurState.from_view`` deals: the same cards fixed, the same counts, no hand of four
of a rank, and each hidden card in each place as often.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

from levata.engine import Action, Card, game
from levata.engine.games.huzur import HuzurState
from levata.engine.games.huzur.playout import HuzurPlayout as PythonPlayout
from levata.engine.huzur_playouts import POLICIES, HuzurDealer, HuzurPlayout

SPEC = game("huzur")
OPTIONS = [
    {},
    {"cap_lead_to_min_hand": True},
    {"hand_cap": 12},
    {"first_opener": "lowest_trump"},
    {"cap_lead_to_min_hand": True, "hand_cap": 25, "first_opener": "lowest_trump"},
]


def positions(seed: int, policy: str) -> Iterator[tuple[HuzurState, int, Action]]:
    """A match from ``seed`` at a random table and options, moved on by ``policy`` (random,
    or the Python copy's heuristic): the state before each action, the seat and the action."""
    rng = random.Random(seed)
    players = rng.choice(SPEC.players)
    state = SPEC.new_match(players, seed=seed, options=rng.choice(OPTIONS))
    mover = state.python_playout_state(seed)
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        action = rng.choice(legal) if policy == "random" else mover.choose(seat)
        yield state, seat, action
        state._apply(seat, action)
        mover._apply(seat, action)


def both(state: HuzurState, seed: int) -> tuple[HuzurPlayout, PythonPlayout]:
    fast, slow = state.playout_state(seed), state.python_playout_state(seed)
    assert fast.fields() == slow.fields()
    return fast, slow


def same(fast: HuzurPlayout, slow: PythonPlayout, after: str) -> None:
    assert fast.fields() == slow.fields(), after
    assert fast.to_act() == slow.to_act() and fast.is_over() == slow.is_over(), after
    assert fast.estimate() == slow.estimate(), after


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_legal_actions_and_successors_agree_over_whole_matches(policy):
    """At every position: the same legal actions (the game's), and the same successor after
    the action played; at every fifth, after each legal action."""
    steps = every = 0
    kinds, ends = set(), set()
    for seed in range(16):
        for i, (state, seat, action) in enumerate(positions(seed, policy)):
            fast, slow = both(state, seed)
            for s in range(state.players):
                assert fast.legal_actions(s) == slow.legal_actions(s) == state.legal_actions(s)
            for move in state.legal_actions(seat) if i % 5 == 0 else [action]:
                after_fast, after_slow = fast.clone(), slow.clone()
                after_fast._apply(seat, move)
                after_slow._apply(seat, move)
                same(after_fast, after_slow, f"seed {seed}: {move} by seat {seat}")
                every += 1
                kinds.add(move.kind)
            steps += 1
        final, _ = both(state, 0)
        assert final.is_over() and final.estimate() == state.result().scores
        ends.add(state.reason)
    assert steps > 1000 and every > 1.5 * steps  # the walk reached what it is meant to test
    assert kinds == {"play", "done", "beat", "take", "swap"} and ends == {"cap", "complete"}


def test_heuristic_choices_agree_through_each_move():
    """From positions of both kinds of match, the heuristic's choices for 40 actions, the
    plan kept across a move's cards included (``fields`` holds it)."""
    choices = 0
    for seed in range(100, 110):
        for i, (state, _, _) in enumerate(positions(seed, "random" if seed % 2 else "heuristic")):
            if i % 6:
                continue
            fast, slow = both(state, i)
            for _ in range(40):
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
    assert choices > 2000


@pytest.mark.parametrize("policy", POLICIES)
def test_whole_rollouts_agree(policy):
    """Rollouts to the end (and to a horizon), the random ones on the same stream."""
    played = 0
    for seed in range(200, 208):
        for i, (state, _, _) in enumerate(positions(seed, "random")):
            if i % 30:
                continue
            for limit in (0, 30):
                fast, slow = both(state, seed)
                slow.rng = SplitMix(seed * 7 + i)  # type: ignore[assignment]  # .choice only
                taken = fast.rollout(policy, limit, seed=seed * 7 + i)
                assert slow.rollout(policy, limit) == taken
                same(fast, slow, f"seed {seed}, position {i}, limit {limit}")
                played += taken
    assert played > 3000


def test_clone_apply_and_errors():
    state = HuzurState.from_position(3, ["8H 9H AC", "10H 2C 7S", "QS"], "10C")
    fast = state.playout_state(seed=1)
    copy = fast.clone()
    copy.apply(0, Action.parse("play 8H"))
    assert copy.to_act() == (1,) and fast.to_act() == (0,)
    assert copy.fields()["table"] != fast.fields()["table"]
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(1, Action.parse("take"))
    with pytest.raises(ValueError, match="not to act"):
        fast.choose(2)
    with pytest.raises(ValueError, match="policy"):
        fast.rollout("greedy")
    assert fast.rollout("heuristic") > 0 and fast.is_over() and not copy.is_over()
    bad = state.playout_fields() | {"responders": [1, 2, 0, 1]}
    with pytest.raises(ValueError, match="seats"):
        HuzurPlayout(bad)


def hidden_places(world: dict, seat: int, fixed: list[list[Card]]) -> dict[Card, str]:
    """Where each card ``seat`` cannot place lies in a world's ``fields()``: another seat's
    hand (outside the cards it is known to hold), the stock, or the stock's top."""
    places = {}
    for s, hand in enumerate(world["hands"]):
        if s != seat:
            places |= {c: f"hand:{s}" for c in hand if c not in fixed[s]}
    places |= {c: "stock" for c in world["stock"]}
    if world["stock"]:
        places[world["stock"][-1]] = "top"  # the next card drawn
    return places


def test_dealt_worlds_are_worlds_from_view_would_deal():
    """From positions of random and heuristic matches, the acting seat's view: every world
    its dealer deals keeps that seat's hand, the cards the others are known to hold, the
    counts and everything in the open; the hidden cards are the same set; no hand holds
    four of a rank; and the seat's legal actions are the real ones."""
    checked = with_known = 0
    for seed in range(300, 312):
        for i, (state, seat, _) in enumerate(
            positions(seed, "random" if seed % 2 else "heuristic")
        ):
            if i % 9:
                continue
            view = state.view(seat)
            base = HuzurState.from_view(SPEC, view, random.Random(i))
            fixed = [base.hands[s] if s == seat else base.known[s] for s in range(state.players)]
            with_known += any(fixed[s] for s in range(state.players) if s != seat)
            dealer = base.playout_dealer(seat, seed=i)
            want = base.playout_state(0).fields()
            hidden = sorted(hidden_places(want, seat, fixed))
            for k in range(5):
                world = dealer.deal(seed=k)
                got = world.fields()
                for key in want:
                    if key not in ("hands", "stock"):
                        assert got[key] == want[key], key
                assert got["hands"][seat] == list(view.hand)
                for s, hand in enumerate(got["hands"]):
                    assert set(fixed[s]) <= set(hand)
                    assert len(hand) == view.counts[f"hand:{s}"]
                    assert max(Counter(c.rank for c in hand).values(), default=0) < 4
                assert len(got["stock"]) == view.counts["stock"]
                assert sorted(hidden_places(got, seat, fixed)) == hidden
                assert world.legal_actions(seat) == state.legal_actions(seat)
                checked += 1
    assert checked > 300 and with_known > 10  # known cards were there to keep


def test_each_hidden_card_lands_in_each_place_as_often_as_from_view_puts_it():
    """A position with known cards in another hand and cards in the stock: 4,000 worlds
    from the dealer and 4,000 from ``from_view``; each hidden card's share in each place
    (a hand, the stock, the stock's top) agrees within 0.04 (five standard errors)."""
    for state, seat, _ in positions(7, "heuristic"):
        fixed = [state.hands[s] if s == seat else state.known[s] for s in range(state.players)]
        if len(state.stock) >= 6 and any(fixed[s] for s in range(state.players) if s != seat):
            break
    view, draws = state.view(seat), 4000
    rng = random.Random(5)
    python: Counter[tuple[Card, str]] = Counter()
    for _ in range(draws):
        python.update(
            hidden_places(
                HuzurState.from_view(SPEC, view, rng).playout_fields(), seat, fixed
            ).items()
        )
    dealer = HuzurState.from_view(SPEC, view, rng).playout_dealer(seat, seed=9)
    kernel: Counter[tuple[Card, str]] = Counter()
    for k in range(draws):
        kernel.update(hidden_places(dealer.deal(k).fields(), seat, fixed).items())
    assert len(python) > 20 and set(kernel) == set(python)
    for pair in set(python) | set(kernel):
        assert abs(kernel[pair] - python[pair]) / draws < 0.04, pair


def test_the_dealer_deals_again_a_hand_of_four_of_a_rank():
    """Six hidden cards, three jacks and two tens in one hand, the last jack in another: the
    jack that would make four in seat 1's hand always goes to seat 2 (from_view's rule)."""
    state = HuzurState.from_position(3, ["8H 9H", "JS JH JD 10S 10H", "JC"], "7C", stock="")
    dealer = state.playout_dealer(0, seed=4)
    alone = Counter(dealer.deal(k).fields()["hands"][2][0] for k in range(800))
    assert set(alone) == {Card.parse(c) for c in ("JS", "JH", "JD", "JC")}
    assert all(150 < n < 250 for n in alone.values()), alone


def test_dealer_errors():
    state = HuzurState.from_position(3, ["8H 9H", "JS JH", "JC"], "7C", stock="")
    fast = state.playout_state(0)
    with pytest.raises(ValueError, match="not at this table"):
        HuzurDealer(fast, 3, [[], [], []])
    with pytest.raises(ValueError, match="each seat"):
        HuzurDealer(fast, 0, [[], []])
    with pytest.raises(ValueError, match="tries"):
        HuzurDealer(fast, 0, [[], [], []], tries=0)
