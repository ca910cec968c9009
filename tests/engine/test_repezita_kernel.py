"""Repezita's playout kernel (``levata.engine.repezita_playouts``) against the game itself: there
is no Python copy of its playouts, so the game's :class:`RepezitaState` is the reference and the
kernel must agree with it everywhere.

Positions come from random and heuristic tick-mode matches of 2 to 8 players under every option
that changes play (``idle_ticks``, ``tick_cap``, ``decks``), and from worlds sampled for a seat
or rebuilt from its view (the others' submissions blanked to ``pass``). At each one the kernel
is loaded from the game's ``playout_fields()``: its legal actions, its position after every
legal action of a seat (the others submitting the heuristic's picks), its choices (the
heuristic bot's rule, random moves from its splitmix64 stream) and whole rollouts (replayed
through the game) must match.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

from levata.bots.heuristic.repezita import HeuristicBot, follow_ups
from levata.engine import Action, game
from levata.engine.games.repezita import PASS, RepezitaState, lands
from levata.engine.repezita_playouts import POLICIES, RepezitaPlayout

SPEC = game("repezita")
#: Every option that changes play, by seed (low caps keep random matches short and reach the
#: cap; one idle tick makes piles die and open often).
OPTIONS: list[dict[str, object]] = [
    {"tick_cap": 60},
    {"idle_ticks": 1, "tick_cap": 40},
    {"idle_ticks": 2, "tick_cap": 80, "decks": "2"},
    {"idle_ticks": 5, "tick_cap": 30},
    {"decks": "1", "tick_cap": 50},
]


def positions(seed: int, policy: str) -> Iterator[RepezitaState]:
    """A tick match from ``seed`` with ``seed % 7 + 2`` players and options by seed, moved on
    by ``policy`` (random, or the heuristic bot with a random move now and then, under a cap
    three times as high): the state
    before each tick, and every so often, half-way through a tick, a world sampled for a seat
    and one rebuilt from its view (as the search deals them)."""
    rng = random.Random(seed)
    players = 2 + seed % 7
    options = dict(OPTIONS[seed % len(OPTIONS)])
    if policy == "heuristic":  # long enough for most matches to end with seats going out
        options["tick_cap"] = 3 * int(options["tick_cap"])  # type: ignore[call-overload]
    state = SPEC.new_match(players, seed=seed, options=options)
    assert isinstance(state, RepezitaState)
    bot = HeuristicBot(seed=seed)
    while not state.is_over():
        yield state
        for i, seat in enumerate(state.to_act()):
            legal = state.legal_actions(seat)
            if policy == "random" or rng.random() < 0.005:
                action = rng.choice(legal)
            else:
                action = bot.act(state.view(seat, history=False), legal)
            state._apply(seat, action)
            if i == 0 and not state.is_over() and rng.random() < 0.15:
                seer = state.to_act()[0]
                yield state.sample_world(seer, random.Random(seed))
                world = SPEC.world_from_view(state.view(seer), random.Random(seed))
                assert isinstance(world, RepezitaState)
                yield world  # what the search deals: rebuilt from the seat's view


def kernel(state: RepezitaState, seed: int = 0) -> RepezitaPlayout:
    fast = state.playout_state(seed)
    assert isinstance(fast, RepezitaPlayout)  # tick mode: the kernel
    same(fast, state, "loaded")
    return fast


def same(fast: RepezitaPlayout, state: RepezitaState, after: str) -> None:
    assert fast.fields() == state.playout_fields(), after
    assert fast.to_act() == state.to_act() and fast.is_over() == state.is_over(), after
    assert fast.estimate() == state.estimate(), after


def tied_best(state: RepezitaState, seat: int) -> list[Action]:
    """The heuristic bot's candidates: the cards that land on the pile ``seat`` sees, with the
    most follow-ups, in legal order (empty: it passes)."""
    view = state.view(seat, history=False)
    top = state.top
    playable = [
        a
        for a in state.legal_actions(seat)
        if a.card is not None and lands(a.card, top, state.open_start)
    ]
    scores = [follow_ups(a.card, view.hand) for a in playable]  # type: ignore[arg-type]
    return [a for a, s in zip(playable, scores, strict=True) if s == max(scores)]


def drawn(ties: list[Action], seed: int) -> Action:
    """The kernel's heuristic pick among the tied best: pass with none, the one without a draw,
    else the first draw of its stream."""
    if len(ties) <= 1:
        return ties[0] if ties else PASS
    return ties[SplitMix(seed).below(len(ties))]


def heuristic_picks(state: RepezitaState, seed: int) -> dict[int, Action]:
    bot = HeuristicBot(seed=seed)
    return {
        s: bot.act(state.view(s, history=False), state.legal_actions(s)) for s in state.to_act()
    }


#: What each kind of match must reach among the successors checked (random seats rarely go out
#: or leave a pile alone long enough for it to die).
OUTCOMES_BOTH = ("landed", "bounced", "rejected", "wrong_card", "open_start", "end cap")
OUTCOMES = {
    "random": OUTCOMES_BOTH,
    "heuristic": (*OUTCOMES_BOTH, "pile_dead", "finish", "end complete"),
}


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_legal_actions_successors_and_choices_agree(policy):
    """At every position: the same legal actions (in order) for each seat; the heuristic choice
    among the bot's tied best (and exactly the tie the stream draws) and never a card that does
    not land; a random choice as the stream draws it; and for one seat, the same position after
    each of its legal actions with the others submitting the heuristic's picks."""
    seen: Counter[str] = Counter()
    for seed in range(10):
        for i, state in enumerate(positions(seed, policy)):
            fast = kernel(state, seed)
            waiting = state.to_act()
            for s in waiting:
                assert fast.legal_actions(s) == state.legal_actions(s), (seed, i, s)
                ties = tied_best(state, s)
                assert fast.clone().choose(s) == drawn(ties, seed), (seed, i, s)
                legal = state.legal_actions(s)
                assert fast.clone().choose(s, "random") == legal[SplitMix(seed).below(len(legal))]
            if i % 3:
                continue
            me = waiting[i % len(waiting)]
            others = heuristic_picks(state, seed)
            for action in state.legal_actions(me):
                slow, quick = state.clone(), fast.clone()
                before = len(slow.events())
                for s in waiting:
                    if s != me:
                        slow._apply(s, others[s])
                        quick._apply(s, others[s])
                        same(quick, slow, f"seed {seed} step {i} seat {s} {others[s]}")
                slow._apply(me, action)
                quick._apply(me, action)
                same(quick, slow, f"seed {seed} step {i} seat {me} {action}")
                seen.update(e.kind for e in slow.events()[before:])
                if slow.is_over():
                    seen[f"end {slow.reason}"] += 1
    want = OUTCOMES[policy]
    assert all(seen[k] for k in want), seen


@pytest.mark.parametrize("policy", POLICIES)
def test_whole_rollouts_replay_through_the_game(policy):
    """From positions of heuristic matches: the kernel's rollout (to the end, and cut short)
    is its choices one by one, and those choices replayed through the game end in the same
    position and scores."""
    rollouts = ended = 0
    for seed in range(10):
        for i, state in enumerate(positions(seed + 100, "heuristic")):
            if i % 10:
                continue
            for horizon in (0, 5):
                fast = kernel(state, seed + i)
                stepped, slow = fast.clone(), state.clone()
                taken = fast.rollout(policy, horizon)
                steps = 0
                while not stepped.is_over() and (not horizon or steps < horizon):
                    seat = stepped.to_act()[0]
                    action = stepped.choose(seat, policy)
                    stepped._apply(seat, action)
                    slow.apply(seat, action)
                    steps += 1
                assert taken == steps, (seed, i, horizon)
                assert fast.fields() == stepped.fields()
                same(stepped, slow, f"seed {seed} step {i} {policy} horizon {horizon}")
                if slow.is_over():
                    assert fast.estimate() == slow.result().scores
                    ended += 1
                rollouts += 1
    assert rollouts > 150 and ended > 80, (rollouts, ended)


def test_clone_apply_and_errors():
    state = RepezitaState.from_position(3, ["AC 2D", "KH", "5S 6S"], options={"tick_cap": 9})
    fast = RepezitaPlayout(state.playout_fields(), seed=1)
    assert fast.players == 3
    copy = fast.clone()
    copy.apply(0, Action.parse("play AC"))
    assert copy.to_act() == (1, 2) and fast.to_act() == (0, 1, 2)
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(0, Action.parse("play KH"))
    with pytest.raises(ValueError, match="not legal"):
        copy.apply(0, PASS)  # already in this tick
    with pytest.raises(ValueError, match="not to act"):
        copy.choose(0)
    with pytest.raises(ValueError, match="policy"):
        fast.rollout("greedy")
    with pytest.raises(ValueError, match="max_actions"):
        fast.rollout("random", -1)
    assert fast.rollout("random", seed=5) > 0 and fast.is_over()
    assert fast.fields()["reason"] in ("cap", "complete") and not copy.is_over()


def test_real_time_keeps_the_contract():
    """The kernel plays ticks only: a real-time match's copy is a plain clone."""
    state = SPEC.new_match(3, seed=2, options={"mode": "realtime"})
    assert isinstance(state, RepezitaState)
    assert isinstance(state.playout_state(1), RepezitaState)
    with pytest.raises(ValueError, match="tick mode"):
        RepezitaPlayout(state.playout_fields())
