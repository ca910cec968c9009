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

The kernel's dealer of worlds (``RepezitaDealer``, the search's determinizations) restates
``from_view``'s sampler on splitmix64: fed the same stream (shuffles and choices), ``from_view``
must deal the very same worlds, each consistent with the view; on ``random.Random`` each hidden
card must land in each hand as often.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from dealing import count_worlds  # tests/engine: on the path (pytest)
from splitmix import SplitMix

from levata.bots.heuristic.repezita import HeuristicBot, follow_ups
from levata.engine import Action, Card, SeatView, french_deck, game
from levata.engine.games.repezita import PASS, RepezitaState, lands, lead_share
from levata.engine.games.repezita import world as world_module
from levata.engine.games.repezita.world import TRIES
from levata.engine.repezita_playouts import POLICIES, RepezitaDealer, RepezitaPlayout

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


def by_rank(card: Card) -> tuple[int, int]:
    """The kernel's order of a hand: by rank, then suit."""
    return (card.rank, int(card.suit))


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


# -- the dealer: the search's worlds, dealt in C -----------------------------------------------


class Replayed(random.Random):
    """A ``random.Random`` whose shuffles and choices (all the world sampler draws a deal from)
    come from splitmix64, as the dealer's: fed to ``from_view`` one world after another, it must
    deal what the dealer deals, world for world."""

    def __init__(self, seed: int) -> None:
        super().__init__(0)
        self.mix = SplitMix(seed)

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        self.mix.shuffle(x)

    def choice(self, seq: Sequence[Any]) -> Any:
        return self.mix.choice(seq)


def views(seeds: range, every: int) -> Iterator[tuple[RepezitaState, SeatView]]:
    """Every ``every``-th position of random and heuristic matches (mid-tick worlds too), with
    the view of a seat still to act there."""
    for seed in seeds:
        for i, state in enumerate(positions(seed + 200, "random" if seed % 2 else "heuristic")):
            if i % every == every - 1:
                waiting = state.to_act()
                yield state, state.view(waiting[i % len(waiting)])


def consistent(world: RepezitaPlayout, base: RepezitaState, view: SeatView) -> None:
    """What a world of ``view`` must keep, whatever its draw: the seat's hand, the hand counts,
    each seat's known cards, everything in the open, no card more often than the decks hold;
    and the seat's legal actions."""
    got, want = world.fields(), base.playout_fields()
    assert {k: v for k, v in got.items() if k != "hands"} == {
        k: v for k, v in want.items() if k != "hands"
    }
    assert got["hands"][view.seat] == sorted(view.hand, key=by_rank)
    for s, hand in enumerate(got["hands"]):
        assert len(hand) == view.counts[f"hand:{s}"]
        assert not Counter(got["known"][s]) - Counter(hand)
    seen = Counter(got["pile"]) + Counter(got["dead"])
    for hand in got["hands"]:
        seen.update(hand)
    assert max(seen.values()) <= base.decks and sum(seen.values()) + view.counts["aside"] == len(
        base.deck()
    )
    assert world.legal_actions(view.seat) == base.legal_actions(view.seat)


@pytest.mark.parametrize("tries", [TRIES, 1])
def test_the_dealer_deals_from_views_worlds_draw_for_draw(tries, monkeypatch):
    """From positions of random and heuristic matches: the dealer's worlds are the very worlds
    ``from_view`` deals from the same splitmix64 stream, several in a row (whole positions
    equal), each consistent with the view. With ``tries=1`` most views with a bounce to
    explain take the sampler's fallback (each need first given a card of its ranks)."""
    monkeypatch.setattr(world_module, "TRIES", tries)
    worlds = needs = redealt = 0
    for _, view in views(range(6), 9):
        seed = worlds
        base = RepezitaState.from_view(SPEC, view, random.Random(seed))
        skel = world_module.skeleton(view, base.deck())
        fields = base.playout_fields()
        dealer = RepezitaDealer(
            RepezitaPlayout(fields), view.seat, skel.pool, skel.sizes, skel.needs, seed, tries
        )
        replay = Replayed(seed)
        for k in range(3):
            drawn_before = replay.mix.state
            want = RepezitaState.from_view(SPEC, view, replay).playout_fields()
            world = dealer.deal(k)
            assert world.fields() == want, (worlds, k)
            consistent(world, base, view)
            assert world.rollout("random") == RepezitaPlayout(want, k).rollout("random")
            shuffle = max(len(skel.pool) - 1, 0) * 0x9E3779B97F4A7C15
            redealt += (replay.mix.state - drawn_before) % 2**64 != shuffle % 2**64  # > 1 try
            worlds += 1
        needs += bool(skel.needs)
    assert worlds > 120 and needs > 10 and redealt > 10, (worlds, needs, redealt)


def test_the_dealer_reads_the_walk_its_world_kept():
    """``playout_dealer`` on a world ``from_view`` rebuilt: the same worlds as from the view's
    walk, without walking the history again; on the real match (mid-tick: another seat's
    card in), the others' submissions become passes; on a world moved on since, a fresh walk
    of the new view."""
    cards_in = 0
    for real, _ in views(range(3), 9):
        state, waiting = real.clone(), real.to_act()
        if len(waiting) > 2:  # another seat submits its last card, a seat is still to act
            state._apply(waiting[-1], state.legal_actions(waiting[-1])[-1])
            cards_in += 1
        view = state.view(waiting[0])
        base = RepezitaState.from_view(SPEC, view, random.Random(1))
        kept = base._walked
        assert kept is not None and base._walk_of(view.seat) is kept
        for world in (base, state):  # a world of the view, the real match
            dealer = world.playout_dealer(view.seat, seed=3)
            replay = Replayed(3)
            for k in range(2):
                want = RepezitaState.from_view(SPEC, view, replay).playout_fields()
                assert dealer.deal(k).fields() == want
        moved = base.clone()
        moved._apply(view.seat, PASS)
        if not moved.is_over() and moved.to_act():
            seat = moved.to_act()[0]
            assert moved._walk_of(seat) is not kept
            consistent(moved.playout_dealer(seat, seed=1).deal(2), moved, moved.view(seat))
    assert cards_in > 5, cards_in


def test_each_hidden_card_lands_in_each_place_as_often_as_from_view_puts_it():
    """``from_view`` on ``random.Random`` against the dealer on splitmix64, 3,000 worlds each,
    at a view with a bounce to explain: each hidden card's share in each hand agrees within
    0.04 (about five standard errors), and every world meets the bounce."""
    state = RepezitaState.from_position(3, ["9C 8C 2S", "6D 6S KH", "QD JC"], pile="AD 6C 7D")
    state.apply(0, Action.parse("play 8C"))  # first in P_0: it lands on the 7D ...
    state.apply(1, Action.parse("play 6S"))  # ... so the 6S, good on the 7D, bounces
    state.apply(2, PASS)
    view = state.view(0)
    skel = world_module.skeleton(view, state.deck())
    draws, rng = 3000, random.Random(5)
    python: Counter[tuple[int, Card]] = Counter()
    for _ in range(draws):
        fields = RepezitaState.from_view(SPEC, view, rng).playout_fields()
        python.update((s, c) for s in (1, 2) for c in fields["hands"][s])
    dealer = RepezitaState.from_view(SPEC, view, rng).playout_dealer(0, seed=9)
    kernel: Counter[tuple[int, Card]] = Counter()
    for k in range(draws):
        fields = dealer.deal(k).fields()
        kernel.update((s, c) for s in (1, 2) for c in fields["hands"][s])
    assert skel.needs and len(python) > 40 and set(kernel) == set(python)
    for pair in set(python) | set(kernel):
        assert abs(kernel[pair] - python[pair]) / draws < 0.04, pair


def test_the_search_deals_its_worlds_in_the_kernel_and_replays_from_its_seed(monkeypatch):
    """ismcts rebuilds one world from the view in Python and asks it for its dealer: the rest
    come from the dealer (one ``from_view`` and one dealer a decision); the same seed makes
    the same decision."""
    from levata.bots.search.ismcts import IsmctsBot

    state = next(s for i, s in enumerate(positions(3, "heuristic")) if i == 20)
    seat = state.to_act()[0]
    view, legal = state.view(seat), state.legal_actions(seat)
    calls = count_worlds(monkeypatch, RepezitaState)
    picks = []
    for _ in range(2):
        bot = IsmctsBot("repezita", seed=5, iterations=60, time_ms=0)
        picks.append(bot.act(view, legal))
        assert bot.stats.iterations == 60
    assert calls == {"from_view": 2, "playout_dealer": 2}  # once a decision each
    assert picks[0] == picks[1] and picks[0] in legal


def test_dealer_errors():
    state = RepezitaState.from_position(3, ["AC 2D", "KH 3S", "5S 6S"])
    base = RepezitaPlayout(state.playout_fields())
    skel = world_module.skeleton(state.view(0), state.deck())
    with pytest.raises(ValueError, match="not at this table"):
        RepezitaDealer(base, 3, skel.pool, skel.sizes, skel.needs)
    with pytest.raises(ValueError, match="tries"):
        RepezitaDealer(base, 0, skel.pool, skel.sizes, skel.needs, tries=0)
    with pytest.raises(ValueError, match="hidden cards for"):
        RepezitaDealer(base, 0, skel.pool[1:], skel.sizes, skel.needs)
    with pytest.raises(ValueError, match="hides nothing"):
        RepezitaDealer(base, 0, skel.pool, {0: 2, "aside": len(skel.pool) - 2}, {})
    with pytest.raises(ValueError, match="holds 2 cards, not 3"):
        RepezitaDealer(base, 0, skel.pool, {1: 3, 2: 1, "aside": len(skel.pool) - 4}, {})
    with pytest.raises(ValueError, match="no hidden cards"):
        RepezitaDealer(base, 0, skel.pool, skel.sizes, {0: [{14}]})


def test_the_kernel_weighs_a_lead_as_the_game_does() -> None:
    """The estimate's chance of a lead (``lead_share``) restated in C: the same double for
    every pair of hand sizes two seats may hold (seat 0 the clubs and diamonds, seat 1 the
    hearts and spades)."""
    halves = [[c for c in french_deck() if int(c.suit) // 2 == half] for half in (0, 1)]
    for mine in range(1, 27):
        for theirs in range(1, 27):
            state = RepezitaState.from_position(2, [halves[0][:mine], halves[1][:theirs]])
            assert kernel(state).estimate() == state.estimate(), (mine, theirs)
            assert state.estimate() == (lead_share(mine, theirs), lead_share(theirs, mine))
