"""Kemps' playout kernel (``levata.engine.kemps_playouts``) against the Python copy
(``levata.engine.games.kemps.playout``) and the game: one source of truth per rule, so the C
copy must agree everywhere.

Positions come from random and heuristic matches of every table size (one deck to eight
players, two from ten) under every option that changes play (``signal_audit``,
``convention_chat``), with kemps sets registered at random so that signals break the audit
now and then. At each tick of the exchange and the last call both copies are loaded from the
game: their positions, legal actions (the game's too), successors after every legal action
(signals included), estimates, heuristic choices with their tokens (``serve`` and ``dress``
too) and whole rollouts must be equal. The kernel's random stream is splitmix64; the Python
copy is given the same stream (its decoys read ``random()`` from the top 53 bits), so random
rollouts and the heuristic's decoys must be equal token for token as well.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator
from itertools import islice
from typing import Any

import pytest
from splitmix import SplitMix  # tests/engine: pytest puts it on the path

from levata.engine import Action, Card, game, parse_cards
from levata.engine.cardmask import mask_of as mask_of_cards
from levata.engine.evidence import Clue
from levata.engine.games.kemps import KempsState, _deal_quad, _signalled_quad
from levata.engine.games.kemps.playout import KempsPlayout as PythonPlayout
from levata.engine.games.kemps.policy import DECOY_RATE, convention
from levata.engine.games.kemps.rules import ALPHABET, mask_of, team_of
from levata.engine.kemps_playouts import POLICIES, KempsDealer, KempsPlayout

SPEC = game("kemps")
OPTIONS = [
    {},
    {"signal_audit": False},
    {"convention_chat": True},
    {"signal_audit": False, "convention_chat": True, "max_deals": 3},
]
PLAY = ("exchange", "last_call")


class Stream(SplitMix):
    """The kernel's stream with ``random()`` as the kernel draws a decoy's chance."""

    def random(self) -> float:
        return (self.next() >> 11) * 2.0**-53


def register(state: KempsState, seat: int, rng: random.Random) -> Action:
    """A kemps set of one to three tokens, the team's convention token in half of them."""
    tokens = set(rng.sample(ALPHABET, rng.randint(1, 3)))
    if rng.random() < 0.5:
        tokens.add(convention(state.secrets[team_of(seat, state.players)])[0])
    return Action("register").with_payload(kemps=mask_of(tokens))


def random_move(legal: list[Action], still: bool, rng: random.Random) -> Action:
    """A uniform legal move, a call only one time in ten (so that deals reach the last
    call), a pass in a still tick; now and then with a random signal."""
    action = legal[0] if still else rng.choice(legal)
    if action.kind in ("kemps", "contrakemps") and rng.random() < 0.9:
        action = legal[0]
    if rng.random() < 0.15:
        action = action.with_payload(signal=rng.choice(ALPHABET))
    return action


def positions(seed: int, policy: str) -> Iterator[KempsState]:
    """The first deals of a match from ``seed`` at a random table and options, moved on by
    ``policy`` (:func:`random_move`, or the Python copy's heuristic): the state at each tick
    of the exchange and the last call, and between the submissions of one tick too."""
    rng = random.Random(seed)
    players = rng.choice(SPEC.players)
    state = SPEC.new_match(players, seed=seed, options=rng.choice(OPTIONS))
    mover: PythonPlayout | None = None
    deals = 12 if policy == "random" else 4  # random deals end in a few ticks
    while not state.is_over() and state.deal_no <= deals:
        if state.phase not in PLAY:
            mover = None
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                kind = legal[0].kind
                state.apply(seat, register(state, seat, rng) if kind == "register" else legal[0])
            continue
        if mover is None:
            mover = state.python_playout_state(seed)
        yield state
        seats = list(state.to_act())
        rng.shuffle(seats)
        still = rng.random() < 0.3  # a tick of passes: the table is flushed
        for i, seat in enumerate(seats):
            if i == len(seats) // 2:
                yield state  # some seats submitted, the others not yet
            if policy == "random":
                action = random_move(state.legal_actions(seat), still, rng)
            else:
                action = mover.choose(seat)
            state.apply(seat, action)
            mover._apply(seat, action)


def both(state: KempsState, seed: int) -> tuple[KempsPlayout, PythonPlayout]:
    fast, slow = state.playout_state(seed), state.python_playout_state(seed)
    slow.rng = Stream(seed)  # type: ignore[assignment]  # .random and .choice only
    assert fast.fields() == slow.fields()
    return fast, slow


def same(fast: KempsPlayout, slow: PythonPlayout, after: str) -> None:
    assert fast.fields() == slow.fields(), after
    assert fast.to_act() == slow.to_act() and fast.is_over() == slow.is_over(), after
    assert fast.estimate() == slow.estimate(), after


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_legal_actions_and_successors_agree_over_whole_deals(policy):
    """At every position: the same legal actions (the game's), and the same successor after
    each legal action of a seat to act (with a signal now and then), and after the tick
    resolved by the others' choices."""
    steps = every = 0
    kinds, ends, tables = set(), set(), set()
    for seed in range(10):
        for state in positions(seed, policy):
            fast, slow = both(state, seed)
            tables.add(state.players)
            for s in range(state.players):
                assert fast.legal_actions(s) == slow.legal_actions(s) == state.legal_actions(s)
            waiting = state.to_act()
            seat = waiting[steps % len(waiting)]
            for k, move in enumerate(state.legal_actions(seat)):
                if k % 3 == 1:
                    move = move.with_payload(signal=ALPHABET[(k + steps) % len(ALPHABET)])
                after_fast, after_slow = fast.clone(), slow.clone()
                after_fast._apply(seat, move)
                after_slow._apply(seat, move)
                for other in after_slow.to_act():  # the rest of the tick, alike
                    choice = after_slow.choose(other)
                    assert after_fast.choose(other) == choice
                    after_fast._apply(other, choice)
                    after_slow._apply(other, choice)
                same(after_fast, after_slow, f"seed {seed}: {move} by seat {seat}")
                ends.add(after_slow.phase)
                every += 1
                kinds.add(move.kind)
            steps += 1
    assert steps > 300 and every > 10 * steps  # the walk reached what it is meant to test
    assert kinds == {"pass", "swap", "kemps", "contrakemps"}
    assert ends == ({*PLAY, "over"} if policy == "random" else {"exchange", "over"})
    assert tables == set(SPEC.players)


def test_heuristic_choices_agree_with_their_tokens():
    """From positions of both kinds of match, the heuristic's choices (tokens included) for
    every seat through 30 ticks, the copies serving one seat's search (its partner leaves
    CONTRAKEMPS to it) or none; and ``dress`` dresses each legal choice alike."""
    choices = tokens = spared = 0
    for seed in range(100, 110):
        for i, state in enumerate(positions(seed, "random" if seed % 2 else "heuristic")):
            if i % 4:
                continue
            fast, slow = both(state, i)
            if i % 8 == 0:
                fast.serve(i % state.players)
                slow.serve(i % state.players)
            seat = state.to_act()[0]
            for action in state.legal_actions(seat)[:6]:
                assert fast.dress(seat, action) == slow.dress(seat, action)
            for _ in range(30):
                if slow.is_over():
                    break
                for s in slow.to_act():
                    mine, theirs = fast.choose(s), slow.choose(s)
                    assert mine == theirs, f"seed {seed}, position {i}"
                    assert mine.without_payload() in slow.legal_actions(s)
                    tokens += bool(mine.payload)
                    fast._apply(s, mine)
                    slow._apply(s, theirs)
                    choices += 1
                same(fast, slow, f"seed {seed}, position {i}")
            spared += slow.searcher is not None and fast.fields()["searcher"] is not None
    assert choices > 5000 and tokens > 100 and spared > 10


@pytest.mark.parametrize("policy", POLICIES)
def test_whole_rollouts_agree(policy):
    """Rollouts to the deal's end (and to a horizon), the random ones on the same stream."""
    played = 0
    for seed in range(200, 210):
        for i, state in enumerate(positions(seed, "heuristic" if seed % 2 else "random")):
            if i % 5:
                continue
            for limit in (0, 7):
                fast, slow = both(state, seed)
                slow.rng = Stream(seed * 7 + i)  # type: ignore[assignment]
                taken = fast.rollout(policy, limit, seed=seed * 7 + i)
                assert slow.rollout(policy, limit) == taken
                same(fast, slow, f"seed {seed}, position {i}, limit {limit}")
                played += taken
    assert played > 500


def exchange() -> KempsState:
    return KempsState.from_position(
        4, ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C", "JS QS KS AS"], table="2H 3H 4H 5H"
    )


def test_clone_apply_and_errors():
    state = exchange()
    fast = state.playout_state(seed=1)
    copy = fast.clone()
    copy.apply(1, Action.parse("swap 2S@0"))
    assert copy.to_act() == (0, 2, 3) and fast.to_act() == (0, 1, 2, 3)
    assert copy.fields()["submissions"] != fast.fields()["submissions"]
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(1, Action.parse("swap 7S@0"))  # not in seat 1's hand
    with pytest.raises(ValueError, match="not legal"):
        copy.apply(1, Action("pass"))  # seat 1 already submitted
    with pytest.raises(ValueError, match="not legal"):
        fast.apply(0, Action("contrakemps", number=0))  # its own team
    with pytest.raises(ValueError, match="signal"):
        fast.apply(0, Action("pass").with_payload(signal="G99"))
    with pytest.raises(ValueError, match="only payload"):
        fast.apply(0, Action("pass").with_payload(expect="2H"))
    with pytest.raises(ValueError, match="not to act"):
        copy.choose(1)
    with pytest.raises(ValueError, match="policy"):
        fast.rollout("greedy")
    with pytest.raises(ValueError, match="max_actions"):
        fast.rollout("random", -1)
    assert fast.rollout("heuristic") > 0 and fast.is_over() and not copy.is_over()
    assert fast.to_act() == () and fast.legal_actions(0) == []
    good = state.playout_fields()
    with pytest.raises(ValueError, match="seats"):
        KempsPlayout(good | {"players": 5})
    with pytest.raises(ValueError, match="each of the 4 seats"):
        KempsPlayout(good | {"hands": good["hands"][:3]})
    with pytest.raises(ValueError, match="waiting"):
        KempsPlayout(good | {"waiting": (0, 0)})
    with pytest.raises(ValueError, match="exchange"):
        KempsPlayout(good | {"phase": "convene"})
    with pytest.raises(ValueError, match="French deck"):
        KempsPlayout(good | {"slots": ["2H"]})


@pytest.mark.parametrize(
    ("known", "cases"),
    [
        (
            "7S",
            {
                "swap 2D@0": False,  # 7S and 7C seen: collecting
                "swap 3C@0": False,
                "swap 7S@0": True,  # gives the 7S it was seen taking: 7C alone
                "swap 2D@1": True,  # 7S and 3H
                "pass": True,
            },
        ),
        ("7S 7H", {"swap 7S@1": False, "pass": False}),  # seen collecting before the swap
        ("", {"swap 2D@0": True}),
    ],
)
def test_no_decoy_beside_a_swap_that_shows_a_collector(known, cases):
    """policy.token's rule in C: a seat shows no decoy while seen collecting, before its
    choice or after it (a swap gives its card, takes the slot's in sight of all), and draws
    only when it may show one. Seat 1 was seen taking ``known``; the stream's first draw
    shows a decoy."""
    state = KempsState.from_position(
        4, ["2S 3S 4S 5S", "7S 7H 2D 3C", "8S 8H 9D 9C", "JS QS KS AS"], table="7C 3H 4H 5H"
    )
    state.known[1] = parse_cards(known)
    seed = next(s for s in range(100) if Stream(s).random() < DECOY_RATE)
    pass_ = Action("pass")
    for choice, shows in cases.items():
        fast, slow = both(state, seed)
        mine = fast.dress(1, Action.parse(choice))
        assert mine == slow.dress(1, Action.parse(choice)) and bool(mine.payload) == shows, choice
        then = fast.dress(1, pass_)  # the same next draw: none made, the first one
        assert then == slow.dress(1, pass_), choice
        if not shows:
            assert bool(then.payload) == (known != "7S 7H"), choice
    fast, slow = both(state, seed)
    chosen = fast.choose(1)  # the heuristic's own choice, its token decided after it
    assert chosen == slow.choose(1) and chosen.without_payload() == Action.parse("swap 2D@0")
    assert bool(chosen.payload) == (not known)


def test_sixty_ticks_of_swaps_flush_the_table_then_the_last_call():
    """Seat 0 swaps at every tick: the table set is flushed at its sixtieth tick (the guard),
    whatever moves; without swaps each tick flushes, until the stock runs out and the last
    call comes, three cards left in the stock. Both copies and the game agree at every
    tick."""
    rest = exchange().stock
    state = KempsState.from_position(
        4,
        ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C", "JS QS KS AS"],
        table="2H 3H 4H 5H",
        stock=rest[:7],
        dead=rest[7:],
    )
    fast, slow = both(state, 5)
    flushed = []
    for t in range(75):
        swapping = t < 65
        for seat in state.to_act():
            action = state.legal_actions(seat)[1 if swapping and seat == 0 else 0]
            state.apply(seat, action)
            fast._apply(seat, action)
            slow._apply(seat, action)
        same(fast, slow, f"tick {t}")
        got = fast.fields()
        assert (got["slots"], got["dead"], got["phase"]) == (state.slots, state.dead, state.phase)
        flushed.append(len(got["dead"]))
        if state.phase != "exchange":
            break
    assert flushed[58] == len(rest) - 7 and flushed[59] == len(rest) - 3  # the sixtieth
    assert len(got["stock"]) == 3
    assert got["phase"] == "last_call" and fast.legal_actions(0)[0] == Action("pass")
    assert fast.legal_actions(0) == state.legal_actions(0) == slow.legal_actions(0)


# -- the dealer of worlds -----------------------------------------------------------------------


def hidden_places(fields: dict[str, Any], seat: int) -> Counter[tuple[Card, str]]:
    """Where each card ``seat`` cannot see lies: in another hand (at its place after the cards
    seen taken: a hand's order matters), in the stock (at its place, from the top)."""
    out: Counter[tuple[Card, str]] = Counter()
    for s, hand in enumerate(fields["hands"]):
        if s != seat:
            seen = len(fields["known"][s])
            out.update((c, f"hand {s} at {i + seen}") for i, c in enumerate(hand[seen:]))
    stock = fields["stock"]
    out.update((c, f"stock at {i}") for i, c in enumerate(stock))
    return out


def views(seeds: range, every: int) -> Iterator[tuple[KempsState, int]]:
    """Every ``every``-th position of random and heuristic matches, and each where a seat to
    act has a view that proves its partner's quad; with a seat to act (such a one first)."""
    for seed in seeds:
        for i, state in enumerate(positions(seed, "random" if seed % 2 else "heuristic")):
            proving = [s for s in state.to_act() if _signalled_quad(state.view(s)) is not None]
            if (i % every == 0 or proving) and state.to_act():
                yield state, (proving or state.to_act())[0]


def rank_clues(state: KempsState, seat: int, factor: float = 50.0) -> list[Clue]:
    """A clue on each other seat: the faces of the rank of its first card (a test's clues,
    met by some worlds and not by others)."""
    return [
        Clue(s, mask_of_cards({c for c in state.deck() if c.rank == hand[0].rank}), factor)
        for s, hand in enumerate(state.hands)
        if s != seat and hand
    ]


@pytest.mark.parametrize("weighed", [False, True], ids=["uniform", "weighed"])
def test_dealt_worlds_are_worlds_from_view_would_deal(weighed):
    """From positions of random and heuristic matches (4 to 12 seats: two decks repeat
    cards), the acting seat's view: every world its dealer deals keeps that seat's hand, the
    cards each seat was seen to take (first in its hand), the counts and everything in the
    open, its own team's secret; the hidden cards are the same multiset; the partner holds a
    quad where the view proves one; and the seat's legal actions are the real ones. So does
    every world a dealer weighing clues picks (``weigh``: among 8 draws)."""
    checked, quads, tables = 0, 0, set()
    for i, (state, seat) in enumerate(views(range(400, 420), 4)):
        view = state.view(seat)
        base = KempsState.from_view(SPEC, view, random.Random(i))
        dealer = base.playout_dealer(seat, seed=i)
        if weighed:
            dealer.weigh(rank_clues(state, seat), pool=8)
        want = base.playout_state(0).fields()
        hidden = sorted(Counter(c for c, _ in hidden_places(want, seat).elements()).items())
        quad = _signalled_quad(view)
        quads += quad is not None
        tables.add(state.players)
        own = team_of(seat, state.players)
        for k in range(3):
            world = dealer.deal(seed=k)
            got = world.fields()
            for key in want:
                if key not in ("hands", "stock", "secrets"):
                    assert got[key] == want[key], key
            assert got["secrets"][own] == want["secrets"][own]
            assert all(len(x) == 32 for x in got["secrets"])
            assert got["hands"][seat] == list(view.hand)
            for s, hand in enumerate(got["hands"]):
                assert len(hand) == view.counts[f"hand:{s}"]
                if s != seat:
                    assert hand[: len(got["known"][s])] == got["known"][s]
            assert len(got["stock"]) == view.counts["stock"]
            dealt = Counter(c for c, _ in hidden_places(got, seat).elements())
            assert sorted(dealt.items()) == hidden
            if quad is not None:
                assert len({c.rank for c in got["hands"][quad]}) == 1
            assert world.legal_actions(seat) == state.legal_actions(seat)
            checked += 1
    assert checked > 300 and quads > 0 and 4 in tables and max(tables) >= 10


def spread(state: KempsState, seat: int, draws: int = 3000) -> None:
    """``draws`` worlds from the dealer and as many from ``from_view``: each hidden card's
    share in each place agrees within 0.04 (over five standard errors)."""
    view, rng = state.view(seat), random.Random(5)
    python: Counter[tuple[Card, str]] = Counter()
    for _ in range(draws):
        python.update(hidden_places(KempsState.from_view(SPEC, view, rng).playout_fields(), seat))
    dealer = KempsState.from_view(SPEC, view, rng).playout_dealer(seat, seed=9)
    kernel: Counter[tuple[Card, str]] = Counter()
    for k in range(draws):
        kernel.update(hidden_places(dealer.deal(k).fields(), seat))
    assert len(python) > 20 and set(kernel) == set(python)
    for pair in set(python) | set(kernel):
        assert abs(kernel[pair] - python[pair]) / draws < 0.04, pair


def test_each_hidden_card_lands_in_each_place_as_often_as_from_view_puts_it():
    """A position where the view proves the partner's quad (its rank and cards drawn
    first), and one at ten seats or more (two decks: a card in two places at once)."""
    found = {}
    for state, seat in views(range(400, 440), 1):
        if _signalled_quad(state.view(seat)) is not None:
            found.setdefault("quad", (state.clone(), seat))
        if state.players >= 10 and len(state.stock) >= 10:
            found.setdefault("two decks", (state.clone(), seat))
        if len(found) == 2:
            break
    assert set(found) == {"quad", "two decks"}
    for state, seat in found.values():
        spread(state, seat)


def test_a_quad_of_no_card_seen_is_of_each_rank_as_often_as_from_view_deals_it():
    """The partner took no card anyone saw: its quad's rank is any the hidden cards can
    complete (here eight of them), each as often as ``from_view``'s ``_deal_quad`` draws it."""
    state = exchange()
    fast = state.playout_state(0)
    hidden = Counter(c for c, _ in hidden_places(fast.fields(), 0).elements())
    dealer = KempsDealer(fast, 0, quad=2, seed=6)
    rng, draws = random.Random(3), 3000
    python: Counter[int] = Counter()
    kernel: Counter[int] = Counter()
    for k in range(draws):
        held: list[Card] = []
        _deal_quad(held, Counter(hidden), rng)
        python[held[0].rank] += 1
        hand = dealer.deal(k).fields()["hands"][2]
        assert len({c.rank for c in hand}) == 1
        kernel[hand[0].rank] += 1
    assert len(python) == 8 and set(kernel) == set(python)
    for rank in python:
        assert abs(kernel[rank] - python[rank]) / draws < 0.04, rank


def test_a_weighed_pick_meets_the_clue_as_often_as_importance_resampling_says():
    """Seat 0 was seen taking three sevens; in seat 1's view its fourth card is hidden among
    ``H`` cards, so a uniform world gives it the seven of clubs with chance ``p = 1/H``. A
    dealer weighing the clue "seat 0 holds 7C" (factor ``F``) among ``P`` draws picks such a
    world with chance ``E[k F / (k F + P - k)]`` over ``k ~ Binomial(P, p)``, the draws
    holding it: over 4000 deals within four standard errors of it, for each pool and factor
    (the uniform share at pool 1)."""
    state = exchange()  # seat 0 holds the four sevens
    state.known[0] = parse_cards("7S 7H 7D")
    seven = Card.parse("7C")
    p = 1 / sum(hidden_places(state.playout_state(0).fields(), 1).values())
    draws = 4000
    for pool, factor in ((1, 200.0), (4, 200.0), (64, 200.0), (64, 50.0), (16, 1000.0)):
        dealer = state.playout_dealer(1, seed=pool)
        dealer.weigh([Clue(0, 1 << seven.index, factor)], pool=pool)
        share = sum(seven in dealer.deal(k).fields()["hands"][0] for k in range(draws)) / draws
        want = sum(
            math.comb(pool, k) * p**k * (1 - p) ** (pool - k) * k * factor / (k * factor + pool - k)
            for k in range(1, pool + 1)
        )
        assert abs(share - want) < 4 * math.sqrt(want * (1 - want) / draws), (pool, factor, share)
    assert 0.01 < p < 0.05  # the uniform share the weighing lifts


def test_a_dealer_with_no_clues_or_a_pool_of_one_deals_as_before():
    """``weigh`` with no clues, or with a pool of 1, leaves the deals exactly those of a
    dealer never weighed (the same worlds from the same seeds); a weighing that changes
    the pool changes them."""
    for state, seat in islice(views(range(400, 403), 5), 6):
        base = KempsState.from_view(SPEC, state.view(seat), random.Random(1))

        def worlds(
            clues: list[Clue] | None, pool: int, base: KempsState = base, seat: int = seat
        ) -> list[dict[str, Any]]:
            dealer = base.playout_dealer(seat, seed=7)
            if clues is not None:
                dealer.weigh(clues, pool)
            return [dealer.deal(k).fields() for k in range(5)]

        plain = worlds(None, 1)
        assert worlds([], 64) == plain
        assert worlds(rank_clues(state, seat), 1) == plain
        assert worlds(rank_clues(state, seat), 4) != plain


def test_weigh_refuses_what_it_cannot_deal_by():
    dealer = exchange().playout_dealer(0, seed=1)
    for clues, pool in (
        ([], 0),
        ([], 100_000),
        ([Clue(4, 1, 2.0)], 4),
        ([Clue(0, 1, 2.0)] * 65, 4),
    ):
        with pytest.raises(ValueError):
            dealer.weigh(clues, pool)
    dealer.weigh([Clue(1, 1, 0.0)], 4)  # no world the clue explains: uniform among the draws
    assert len(dealer.deal(1).fields()["hands"][1]) == 4


def test_dealt_secrets_are_conventions_from_view_would_give():
    """The other teams' conventions (their kemps token and decoys) are those of fresh
    secrets, a new one each world: as often each token as ``from_view``'s."""
    state = exchange()
    dealer = state.playout_dealer(0, seed=4)
    rng = random.Random(2)
    python: Counter[str] = Counter()
    kernel: Counter[str] = Counter()
    draws = 3000
    for k in range(draws):
        world = KempsState.from_view(SPEC, state.view(0), rng)
        python[convention(world.secrets[1])[0]] += 1
        kernel[convention(dealer.deal(k).fields()["secrets"][1])[0]] += 1
    for token in ALPHABET:
        assert abs(kernel[token] - python[token]) / draws < 0.04, token
    assert dealer.deal(1).fields()["secrets"][0] == state.secrets[0]


def test_dealer_errors():
    state = exchange()
    fast = state.playout_state(0)
    with pytest.raises(ValueError, match="not at this table"):
        KempsDealer(fast, 4)
    with pytest.raises(ValueError, match="not the partner"):
        KempsDealer(fast, 0, quad=1)
    dealer = KempsDealer(fast, 1, seed=3)
    assert dealer.deal(1).fields()["hands"][1] == fast.fields()["hands"][1]
    real = SPEC.new_match(4, seed=1, options={"mode": "realtime"})
    with pytest.raises(ValueError, match="tick-mode"):
        real.playout_dealer(0, seed=1)
    convening = SPEC.new_match(4, seed=1)
    with pytest.raises(ValueError, match="tick-mode"):
        convening.playout_dealer(0, seed=1)
