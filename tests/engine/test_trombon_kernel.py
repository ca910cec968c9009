"""Trombon's playout kernel (``levata.engine.trombon_playouts``) against the Python copy
(``levata.engine.games.trombon.playout.RankSim``): one source of truth per rule, so the C copy
must agree everywhere.

Positions come from random and heuristic matches of 3 to 6 players (one deck) and 7 and 8
(two decks), with ``count_lies`` on and off (the only option that changes a rollout: a wild
caller's call on the count), taken where a seat is to open, to follow or to be called. At
each one both copies are loaded from the game (``RankSim.of``), half of them with a model
of how each seat calls (wild, silent, on the count). Their worlds must be equal, and so must
every seat's rule-of-thumb play and call, every modelled call on the same random stream, the
world after each play and each window's close (by the rule of thumb, by the model, and with
each call forced), whole and cut rollouts on the same stream, and the scores. The kernel's
call odds must be the Python copy's floats, bit for bit. The search's worlds, dealt by ranks
from a view, are ``world_from_view``'s, and remember the cards their seat laid this round.
"""

from __future__ import annotations

import doctest
import itertools
import random
from collections.abc import Iterator

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

import levata.engine.games.trombon.playout as python_copy
import levata.engine.games.trombon.world as world_module
import levata.engine.trombon_playouts as kernel
from levata.bots.base import make_bot
from levata.engine import Action, SeatView, game
from levata.engine.cards import french_deck
from levata.engine.games.trombon import TrombonState
from levata.engine.games.trombon.playout import Caller, RankSim, lie_odds
from levata.engine.games.trombon.world import Hidden, RankDealer
from levata.engine.trombon_playouts import CALLS, TrombonPlayout
from levata.engine.trombon_playouts import lie_odds as fast_lie_odds

SPEC = game("trombon")
PLAYERS = [3, 4, 5, 6, 7, 8]
RANKS = 13


def positions(seed: int, policy: str, every: int = 3) -> Iterator[TrombonState]:
    """One in ``every`` positions (at random) of a match from ``seed`` where a seat opens,
    follows (no card put yet) or may be called, the match moved on by ``policy`` (random or
    heuristic seats)."""
    rng = random.Random(seed)
    players = PLAYERS[seed % len(PLAYERS)]
    options = {"count_lies": seed % 4 != 3, "play_cap": 120}
    state = SPEC.new_match(players, seed=seed, options=options)
    bots = [make_bot(policy, "trombon", seed=seed * 16 + s) for s in range(players)]
    pick = random.Random(-seed)  # its own stream: a fixed step would see one phase only
    while not state.is_over():
        if (state.phase == "window" or not state.staged) and pick.random() < 1 / every:
            yield state
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            action = (
                rng.choice(legal) if policy == "random" else bots[seat].act(state.view(seat), legal)
            )
            state._apply(seat, action)


def modelled(sim: RankSim, rng: random.Random) -> None:
    """Half the worlds get a model of how each seat calls (as the search sets one)."""
    if rng.random() < 0.5:
        sim.callers = [
            Caller(
                wild=rng.choice([0.0, 0.0, 0.3, 0.9]),
                silent=rng.random() < 0.2,
                carti=rng.choice([0.0, 0.5, 1.0]),
            )
            for _ in range(sim.n)
        ]


def both(state: TrombonState, seed: int) -> tuple[TrombonPlayout, RankSim]:
    slow = RankSim.of(state)
    modelled(slow, random.Random(seed))
    fast = TrombonPlayout(slow.fields(), seed)
    assert fast.fields() == slow.fields()
    return fast, slow


def same(fast: TrombonPlayout, slow: RankSim, after: str) -> None:
    assert fast.fields() == slow.fields(), after
    assert fast.over() == slow.over() and fast.scores() == slow.scores(), after


def twins(
    fast: TrombonPlayout, slow: RankSim, seed: int
) -> tuple[TrombonPlayout, RankSim, SplitMix]:
    """Clones of both, their random streams restarted from ``seed``."""
    a, b = fast.clone(), slow.clone()
    a.reseed(seed)
    return a, b, SplitMix(seed)


MATCHES = [(seed, policy) for seed in range(12) for policy in ("random", "heuristic")]


@pytest.mark.parametrize(("seed", "policy"), MATCHES[:12])
def test_choices_and_worlds_after_each_play_and_window_agree(seed, policy):
    """At every position: each seat's play and call by rule of thumb, and the world after
    the play, or after the window closes by rule of thumb, by the model, or on each call."""
    kinds = set()
    for i, state in enumerate(positions(seed, policy)):
        fast, slow = both(state, seed * 1000 + i)
        for seat in range(slow.n):
            if any(slow.hands[seat]):
                assert fast.usual_play(seat) == slow.usual_play(seat), (seed, i, seat)
        if slow.window:
            kinds.add("window")
            assert fast.in_window() == slow.in_window()
            for seat in slow.in_window():
                assert fast.usual_call(seat) == slow.usual_call(seat), (seed, i, seat)
                assert fast.call_of(seat, modelled=False) == slow.call_of(seat, None)
            a, b, luck = twins(fast, slow, i)
            for seat in slow.in_window():  # the model's calls, one stream
                assert a.call_of(seat) == b.call_of(seat, luck), (seed, i, seat)
            assert a.random() == luck.random()  # as many draws taken
            first = slow.in_window()[0]
            for forced in (None, *CALLS):
                a, b, luck = twins(fast, slow, i)
                calls = {} if forced is None else {first: forced}
                a.resolve(calls)
                b.resolve(calls, luck)
                same(a, b, f"{seed} {i} resolve {calls}")
                a, b = fast.clone(), slow.clone()
            a.resolve(modelled=False)
            b.resolve({}, None)
            same(a, b, f"{seed} {i} resolve by rule of thumb")
        else:
            kinds.add("open" if slow.rank is None else "follow")
            seat = slow.actor
            cards, declared, rank = slow.usual_play(seat)
            plays = [(cards, declared, rank), (cards, declared + 1, rank)]
            lie = [0] * RANKS
            lie[max(range(RANKS), key=lambda r: slow.hands[seat][r])] = 1
            plays.append((lie, 1, (rank + 1) % RANKS))  # another rank named when opening
            for cards, declared, rank in plays:
                a, b = fast.clone(), slow.clone()
                a.play(seat, cards, declared, rank)
                b.play(seat, cards, declared, rank)
                same(a, b, f"{seed} {i} play {cards} {declared}")
    assert {"window", "follow"} <= kinds


@pytest.mark.parametrize(("seed", "policy"), MATCHES[12:])
def test_whole_and_cut_rollouts_agree_on_the_same_stream(seed, policy):
    """Rollouts from each position: whole (to the end or 300 plays), and cut into pieces of
    a few plays, the stream going on from piece to piece, as the search's horizon cuts
    them."""
    for i, state in enumerate(positions(seed, policy, every=5)):
        fast, slow = both(state, seed * 1000 + i)
        a, b, luck = twins(fast, slow, i)
        a.rollout(i, 300)
        b.rollout(luck, 300)
        same(a, b, f"{seed} {i} whole")
        a, b, luck = twins(fast, slow, i + 1)
        for cut in (1, 2, 5, 20):
            a.rollout(None, cut)
            b.rollout(luck, cut)
            same(a, b, f"{seed} {i} cut {cut}")
        assert a.random() == luck.random()


def test_call_odds_are_the_python_floats():
    """``lie_odds`` over every argument a table of one or two decks can give (the held
    counts sampled), beyond its clamps too."""
    rng = random.Random(5)
    for claimed in range(9):
        for left in range(9):
            for unknown in range(105):
                for held in {-1, 0, 1, unknown, unknown + 3, *rng.sample(range(1, 105), 12)}:
                    want = lie_odds(claimed, left, unknown, held)
                    assert fast_lie_odds(claimed, left, unknown, held) == want, (
                        claimed,
                        left,
                        unknown,
                        held,
                    )


def test_the_search_rollouts_agree_with_the_python_copy_without_wild_callers():
    """The search's two rollout paths give the same values where no seat draws luck (the
    kernel's stream and ``random.Random`` differ only in a wild caller's draws)."""
    from levata.bots.strategy.trombon import Candidate, SearchBot

    bot = SearchBot("trombon", seed=1, iterations=1)
    state = next(s for s in positions(2, "heuristic") if s.phase != "window" and s.rank)
    sim = RankSim.of(state)
    me = sim.actor
    cards, declared, rank = sim.usual_play(me)
    lie = [0] * RANKS
    lie[max(range(RANKS), key=lambda r: sim.hands[me][r])] = 1
    cands = [Candidate([], cards, declared, rank), Candidate([], lie, 1, rank)]
    fast = bot._rollouts(sim, cands, 7, me, window=False)
    assert fast == bot._python_rollouts(sim, cands, 7, me, window=False)


def test_errors_and_independent_clones():
    fast = TrombonPlayout({"players": 3, "decks": 1})
    with pytest.raises(ValueError, match="no card"):
        fast.usual_play(0)
    with pytest.raises(ValueError, match="no rank"):
        fast.usual_call(1)
    for bad in (
        {"players": 13},
        {"players": 3, "decks": 3},
        {"players": 3, "hands": [[1] * 12]},
        {"players": 3, "finished": [1, 1]},
        {"players": 3, "window": True},
        {"players": 3, "rank": 13},
        {"players": 3, "callers": [(0.0, False, 0.0)]},
    ):
        with pytest.raises(ValueError):
            TrombonPlayout(bad)
    fast = TrombonPlayout(
        {"players": 3, "hands": [[2] + [0] * 12, [0, 1] + [0] * 11, [0, 1] + [0] * 11]}
    )
    trial = fast.clone()
    trial.play(0, [2] + [0] * 12, 2, 0)
    assert trial.fields()["pending"] == 0 and fast.fields()["pending"] is None


# -- the search's worlds, dealt by ranks ------------------------------------------------------


#: Views read per match by the dealer's tests: a long match (a heuristic table of eight can
#: run to the play cap) has thousands, and each world compared is two deals.
VIEWS = 40


def views(seed: int, policy: str) -> Iterator[SeatView]:
    """Every seat's view at one in four positions of a match (the seat to act and the others:
    a world of any seat, in any phase)."""
    for state in positions(seed, policy, every=4):
        for seat in range(state.players):
            yield state.view(seat)


@pytest.mark.parametrize(("seed", "policy"), MATCHES)
def test_the_rank_dealer_deals_the_worlds_of_world_from_view_draw_for_draw(seed, policy):
    """``RankDealer(view).deal(rng)`` is ``RankSim.of(world_from_view(view, rng))``: the same
    world from the same draws, several in a row, ``rng`` left in the same place; each world
    holds the whole deck, our own hand (and the cards we staged) and the last play we made."""
    for i, view in enumerate(itertools.islice(views(seed, policy), VIEWS)):
        dealer = RankDealer(view)
        ours, theirs = random.Random(i), random.Random(i)
        mine = [0] * RANKS
        for c in (*view.hand, *view.zones.get("staged", ())):
            mine[c.rank - 2] += 1
        for k in range(3):
            sim = dealer.deal(ours)
            want = RankSim.of(SPEC.world_from_view(view, theirs)).fields()
            assert sim.fields() == want, (seed, i, k)
            assert ours.getstate() == theirs.getstate(), (seed, i, k)
            decks = sim.decks
            total = [sum(h[r] for h in sim.hands) + sim.pile[r] for r in range(RANKS)]
            assert total == [4 * decks] * RANKS
            assert sim.hands[view.seat] == mine


def own_laid(view: SeatView) -> list[int]:
    """The seat's own cards put into the pile since the last call, by rank, read straight
    off its history."""
    since = max((i for i, e in enumerate(view.history) if e.kind == "call"), default=-1)
    laid = [0] * RANKS
    for ev in view.history[since + 1 :]:
        if ev.kind == "laid" and ev.seat == view.seat:
            for c in ev.cards:
                laid[c.rank - 2] += 1
    return laid


def test_a_dealt_world_remembers_the_cards_its_seat_laid_this_round():
    """A world dealt from a view (by ranks, and as a whole state) holds in ``mine_laid`` the
    cards the seat put into the pile this round, and nothing for the other seats (their cards
    are hidden from it): the rule of thumb's calls count them when they weigh what is left."""
    laid_some = 0
    for seed, policy in MATCHES[::3]:
        for i, view in enumerate(itertools.islice(views(seed, policy), VIEWS)):
            me, mine = view.seat, own_laid(view)
            none = [0] * RANKS
            want = [mine if s == me else none for s in range(view.players)]
            for sim in (
                RankDealer(view).deal(random.Random(i)),
                RankSim.of(SPEC.world_from_view(view, random.Random(i))),
            ):
                assert sim.mine_laid == want, (seed, i)
                assert all(p >= m for p, m in zip(sim.pile, mine, strict=True)), (seed, i)
            laid_some += any(mine)
    assert laid_some > 20


def test_the_pins_kept_per_view_are_those_of_each_set_of_sizes():
    """The tokens' pins are worked out once per key (each size cut at the tokens that name
    that place alone): under any sizes, the pins kept are those worked out afresh (sizes
    below the tokens too, where some cannot be pinned)."""
    rng = random.Random(3)
    checked = 0
    for seed, policy in MATCHES[::4]:
        for view in itertools.islice(views(seed, policy), VIEWS):
            decks = 1 if view.players < 7 else 2
            hidden = Hidden(view, list(french_deck()) * decks, view.options["count_lies"])
            for _ in range(4):
                sizes = {p: rng.randrange(0, 2 * hidden._alone[p] + 2) for p in hidden.places}
                fresh = world_module._pin(hidden.know, hidden.hidden, sizes)
                assert hidden.pins(sizes) == fresh, (seed, view.seat, sizes)
                checked += 1
    assert checked > 500


def test_the_search_plays_and_calls_as_on_world_from_view_worlds(monkeypatch):
    """The search dealing its worlds by ranks makes the choices it made on whole states'
    worlds, with the same random draws (plays, and the model's calls over weighted worlds)."""
    import levata.bots.strategy.trombon as search

    class ByState:
        def __init__(self, view: SeatView) -> None:
            self.view = view

        def deal(self, rng: random.Random) -> RankSim:
            return RankSim.of(SPEC.world_from_view(self.view, rng))

    def choices(dealer: type) -> tuple[list[Action], object]:
        monkeypatch.setattr(search, "RankDealer", dealer)
        bot = search.SearchBot("trombon", seed=5, time_ms=0, iterations=4)
        out = []
        for seed in (1, 6):
            taken = 0
            for state in positions(seed, "heuristic", every=6):
                seat = state.to_act()[0]
                legal = state.legal_actions(seat)
                if len(legal) > 1:
                    out.append(bot.act(state.view(seat), legal))
                    bot.plan = []
                    taken += 1
                    if taken == 12:  # enough of each table (3 and 4 players)
                        break
        return out, bot.rng.getstate()

    by_ranks = choices(RankDealer)
    assert len(by_ranks[0]) > 20
    assert by_ranks == choices(ByState)


@pytest.mark.parametrize("module", [kernel, python_copy, world_module])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0
