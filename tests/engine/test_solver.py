"""The double-dummy solver against plain minimax, and against DDS on full bridge deals.

The reference below is written from the rules text, not from the kernel: it keeps cards as
``(effective suit, power)`` pairs, applies the duties one by one and searches every legal
card with no pruning, merging, bounds or table (a cache only avoids solving a repeated
position twice). Every objective must come out identical on thousands of small random deals
with random seats, teams, trumps, duties, layouts and card points, from trick starts and
from the middle of tricks.
"""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest

from levata.engine.rules import TRUMP_SUIT, TrickRules
from levata.engine.solver import Solver, best_cards, exact, points, solve, tricks

# -- the reference: plain minimax ------------------------------------------------------------


class Reference:
    """Plain minimax over the rules of a :class:`TrickRules` (paranoid for the side)."""

    def __init__(self, rules: TrickRules) -> None:
        self.n = rules.seats
        if rules.layout is None:
            self.layout = {i: (i >> 4, i & 15) for i in range(64)}
        else:
            self.layout = dict(rules.layout)
        self.trump = rules.trump
        self.follow, self.must_trump = rules.follow, rules.must_trump
        self.head, self.overtrump = rules.head, rules.overtrump
        self.points = dict(rules.points)
        self.bonus = rules.last_trick_bonus

    def suit(self, card: int) -> int:
        return self.layout[card][0]

    def beats(self, card: int, best: int) -> bool:
        (sc, pc), (sb, pb) = self.layout[card], self.layout[best]
        if sc == sb:
            return pc > pb
        return self.trump is not None and sc == self.trump

    def winner_card(self, trick: tuple[int, ...]) -> int:
        best = trick[0]
        for card in trick[1:]:
            if self.beats(card, best):
                best = card
        return best

    def legal(self, hand: frozenset[int], trick: tuple[int, ...]) -> list[int]:
        if not trick:
            return sorted(hand)
        led = self.suit(trick[0])
        win = self.winner_card(trick)
        if self.follow:
            same = [c for c in hand if self.suit(c) == led]
            if same:
                if self.head:
                    over = [c for c in same if self.beats(c, win)]
                    if over:
                        return sorted(over)
                return sorted(same)
            if self.must_trump and self.trump is not None:
                trumps = [c for c in hand if self.suit(c) == self.trump]
                if trumps:
                    if self.overtrump:
                        over = [c for c in trumps if self.beats(c, win)]
                        if over:
                            return sorted(over)
                    return sorted(trumps)
        return sorted(hand)

    def value(self, hands, leader, trick, kind, side, target=0, already=0):
        """``kind``: tricks | points | exact; ``side``: a frozenset of seats."""
        n = self.n

        @cache
        def go(hands, leader, trick, got):
            seat = (leader + len(trick)) % n
            if not hands[seat]:
                return int(got == target) if kind == "exact" else 0
            results = []
            for card in self.legal(hands[seat], trick):
                nh = list(hands)
                nh[seat] = hands[seat] - {card}
                nh = tuple(nh)
                t = (*trick, card)
                if len(t) < n:
                    results.append(go(nh, leader, t, got))
                    continue
                w = (leader + t.index(self.winner_card(t))) % n
                gain = 0
                if w in side:
                    gain = 1
                    if kind == "points":
                        gain = sum(self.points.get(c, 0) for c in t)
                        gain += self.bonus if not nh[w] else 0
                if kind == "exact":
                    results.append(go(nh, w, (), got + gain))
                else:
                    results.append(gain + go(nh, w, (), 0))
            return max(results) if seat in side else min(results)

        return go(tuple(frozenset(h) for h in hands), leader, tuple(trick), already)


def cards_of(mask: int) -> list[int]:
    return [i for i in range(64) if mask >> i & 1]


# -- random small deals ------------------------------------------------------------------------


def random_rules(rng: random.Random, seats: int) -> TrickRules:
    duties = rng.choice(
        [
            {},
            {"follow": True},
            {"follow": True, "must_trump": True},
            {"follow": True, "head": True},
            {"follow": True, "must_trump": True, "head": True},
            {"follow": True, "must_trump": True, "overtrump": True},
            {"follow": True, "must_trump": True, "head": True, "overtrump": True},
        ]
    )
    if not duties:
        duties = {"follow": False}
    teams = None
    if rng.random() < 0.5:
        teams = [rng.randrange(2) for _ in range(seats)]
    layout = None
    trump = rng.choice([None, 0, 1, 2, 3])
    if rng.random() < 0.4:
        # a random layout: random cards, effective suits (the trump suit too), powers
        cards = rng.sample(range(64), 24)
        powers = rng.sample(range(100), 24)
        layout = {c: (rng.randrange(5), p) for c, p in zip(cards, powers, strict=True)}
        trump = rng.choice([None, 0, 1, TRUMP_SUIT, TRUMP_SUIT])
    deck = sorted(layout) if layout else [16 * s + r for s in range(4) for r in range(2, 15)]
    pts = None
    if rng.random() < 0.7:
        pts = {c: rng.choice([0, 0, 1, 2, 3, 4, 10, 11]) for c in deck}
    bonus = rng.choice([0, 0, 10])
    return TrickRules(
        seats, trump, teams=teams, layout=layout, points=pts, last_trick_bonus=bonus, **duties
    )


def random_position(rng: random.Random, rules: TrickRules, ref: Reference, size: int):
    n = rules.seats
    deck = (
        sorted(rules.layout)
        if rules.layout
        else [16 * s + r for s in range(4) for r in range(2, 15)]
    )
    if rules.layout is None and rng.random() < 0.5:
        # few suits: more following, ruffing and equivalent cards
        suits = rng.sample(range(4), rng.choice([1, 2]))
        few = [c for c in deck if c >> 4 in suits or rng.random() < 0.1]
        deck = few if len(few) >= n * size else deck
    deal = rng.sample(deck, n * size)
    hands = [set(deal[i::n]) for i in range(n)]
    leader = rng.randrange(n)
    trick: list[int] = []
    # walk a few random legal plays so roots sit mid-trick and after finished tricks
    for _ in range(rng.randrange(n * size // 2 + 1)):
        seat = (leader + len(trick)) % n
        if not hands[seat]:
            break
        card = rng.choice(ref.legal(frozenset(hands[seat]), tuple(trick)))
        hands[seat].discard(card)
        trick.append(card)
        if len(trick) == n:
            leader = (leader + trick.index(ref.winner_card(tuple(trick)))) % n
            trick = []
    seat = (leader + len(trick)) % n
    if not hands[seat]:
        return None
    masks = [sum(1 << c for c in h) for h in hands]
    return masks, leader, trick


def random_objective(rng: random.Random, rules: TrickRules, left: int):
    n = rules.seats
    if rng.random() < 0.2:
        team = rng.choice(rules.teams)
        side = frozenset(s for s in range(n) if rules.teams[s] == team)
        by = {"team": team}
    else:
        side = frozenset(rng.sample(range(n), rng.randrange(1, n)))
        by = {"side": sorted(side) if len(side) > 1 else next(iter(side))}
    kind = rng.choice(["tricks", "points", "exact", "exact"])
    if kind == "tricks":
        return kind, side, tricks(**by), {}
    if kind == "points":
        return kind, side, points(**by), {}
    already = rng.randrange(3)
    target = already + rng.randrange(-1, left + 2)
    return (
        kind,
        side,
        exact(**by, target=target, already=already),
        {
            "target": target,
            "already": already,
        },
    )


def random_cases(rng: random.Random, seat_counts: list[int], sizes: list[int]):
    """Random positions with an objective, endlessly: ``(rules, ref, hands, leader, trick,
    kind, side, objective, extra)`` as :func:`random_position` and :func:`random_objective`
    make them."""
    while True:
        rules = random_rules(rng, rng.choice(seat_counts))
        ref = Reference(rules)
        pos = random_position(rng, rules, ref, rng.choice(sizes))
        if pos is None:
            continue
        hands, leader, trick = pos
        left = max(bin(h).count("1") for h in hands)
        yield (rules, ref, hands, leader, trick, *random_objective(rng, rules, left))


def test_random_small_deals_match_plain_minimax():
    """Thousands of deals, 2-6 seats, 1-4 cards each: every objective, every feature mix."""
    rng = random.Random(20240604)
    checked = {"tricks": 0, "points": 0, "exact": 0}
    for i in range(4000):
        seats = rng.choice([2, 3, 3, 4, 4, 5, 6])
        size = rng.choice([1, 2, 3, 3, 4] if seats <= 4 else [1, 2, 2, 3])
        rules = random_rules(rng, seats)
        ref = Reference(rules)
        pos = random_position(rng, rules, ref, size)
        if pos is None:
            continue
        hands, leader, trick = pos
        left = max(bin(h).count("1") for h in hands)
        kind, side, objective, extra = random_objective(rng, rules, left)
        want = ref.value([cards_of(h) for h in hands], leader, trick, kind, side, **extra)
        # every search feature on (the default), and a random subset switched off
        options = {}
        if i % 3 == 0:
            options = {
                k: rng.random() < 0.5
                for k in ("merge", "quick_tricks", "transposition", "relative_keys")
            }
        got = solve(rules, hands, leader, trick, objective, **options)
        assert got == want, (i, rules, hands, leader, trick, objective, options, got, want)
        checked[kind] += 1
    assert min(checked.values()) > 500, checked


def test_exact_targets_of_a_partnership_with_the_top_trumps():
    """A side of two hands holding the top trumps between them takes a trick with each only
    if it wants to: for an exact target it may drop one on the other's. Here A-3 opposite
    K-4 of trumps against Q and 2 can make exactly one trick (the king falls on the ace, and
    the queen takes a low trump); the top-trump bound once said two at least."""
    from levata.engine.cardmask import mask_of
    from levata.engine.cards import parse_cards

    rules = TrickRules(4, 2, teams=(0, 1, 0, 1))  # hearts trumps, bridge duties
    hands = [mask_of(parse_cards(h)) for h in ("AH 3H", "QH 5C", "KH 4H", "2H 6C")]
    ref = Reference(rules)
    got = [solve(rules, hands, 0, objective=exact(side=[0, 2], target=t)) for t in range(3)]
    want = [
        ref.value([cards_of(h) for h in hands], 0, [], "exact", frozenset({0, 2}), target=t)
        for t in range(3)
    ]
    assert got == want == [0, 1, 1]
    # and on random endings of two or three tricks, trump games with and without the duty
    # to trump, both partnerships' exact targets
    rng = random.Random(31)
    checked = 0
    for must in (False, True):
        rules = TrickRules(4, 2, teams=(0, 1, 0, 1), must_trump=must)
        ref = Reference(rules)
        for _ in range(300):
            pos = random_position(rng, rules, ref, rng.choice([2, 3]))
            if pos is None:
                continue
            hands, leader, trick = pos
            side = rng.choice([(0, 2), (1, 3)])
            for target in range(4):
                want = ref.value(
                    [cards_of(h) for h in hands],
                    leader,
                    trick,
                    "exact",
                    frozenset(side),
                    target=target,
                    already=0,
                )
                got = solve(rules, hands, leader, trick, exact(side=list(side), target=target))
                assert got == want, (must, hands, leader, trick, side, target, got, want)
                checked += 1
    assert checked > 1500, checked


def test_no_trump_endings_match_plain_minimax():
    """The later-tricks bound (a side that needs every trick left leads only suits it holds
    the top card of) on deals built for it: no trump (or no trump left), few ranks per suit so
    that top cards, stoppers and squeezes abound, whole hands for the side on lead, follow
    duty on or off. Small deals go to plain minimax, larger ones to the solver without its
    bounds (``quick_tricks=False``, checked against minimax above)."""
    rng = random.Random(4242)
    cut = 0
    for i in range(1000):
        size = rng.choice([2, 3, 3, 4]) if i % 4 == 0 else rng.choice([4, 5, 6, 7])
        ranks = rng.randrange(size, size + 3)
        follow = rng.random() < 0.8
        trump = rng.choice([None, None, None, 0]) if follow else None
        rules = TrickRules(4, trump, teams=(0, 1, 0, 1), follow=follow)
        deck = [16 * s + r for s in range(4) for r in range(15 - ranks, 15)]
        if trump is not None:  # a trump suit with no trump dealt: the rule holds again
            deck = [c for c in deck if c >> 4 != trump]
        if len(deck) < 4 * size:
            continue
        deal = rng.sample(deck, 4 * size)
        hands = [sum(1 << c for c in deal[k::4]) for k in range(4)]
        leader = rng.randrange(4)
        side = (leader, (leader + 2) % 4)
        if rng.random() < 0.5:
            side = ((leader + 1) % 4, (leader + 3) % 4)
        objective = tricks(side)
        got = solve(rules, hands, leader, (), objective)
        if i % 4 == 0:
            ref = Reference(rules)
            want = ref.value([cards_of(h) for h in hands], leader, [], "tricks", frozenset(side))
        else:
            want = solve(rules, hands, leader, (), objective, quick_tricks=False)
        assert got == want, (i, rules, hands, leader, side, got, want)
        cut += got in (0, size)
    assert cut > 100  # values where the rule can decide: no trick or every trick


def test_no_trump_quick_tricks_cross_to_partner():
    """No trump: the leader cashes the spade ace and king (its partner, void, throws clubs),
    crosses to the partner's heart ace, and the partner cashes the top three diamonds: all
    six tricks, read off the cards at the first trick (each null window ends at the root)."""
    from levata.engine.cardmask import mask_of
    from levata.engine.cards import parse_cards

    deal = ("AS KS 2H 2C 3C 4C", "QS JS KH QH AC KC", "AH AD KD QD 5C 6C", "10S 9S JH JD 10D QC")
    s = Solver(TrickRules(4, None, teams=(0, 1, 0, 1)))
    assert s.solve([mask_of(parse_cards(h)) for h in deal], 0, objective=tricks(team=0)) == 6
    assert s.nodes == s.stats["windows"]


def test_second_hand_positions_match_plain_minimax():
    """Roots at second hand, where the side to play counts the trick it makes sure of plus
    its winner's quick tricks after it: partnership deals with or without trumps, duties to
    follow and to trump, few ranks per suit (so that sure tricks and cashing runs abound)."""
    rng = random.Random(515)
    for i in range(1500):
        size = rng.choice([2, 3, 3, 4])
        ranks = rng.randrange(size + 1, size + 5)
        duties = rng.choice([{}, {"must_trump": True}, {"follow": False}])
        rules = TrickRules(4, rng.choice([None, 0, 1, 2, 3]), teams=(0, 1, 0, 1), **duties)
        deck = [16 * s + r for s in range(4) for r in range(15 - ranks, 15)]
        deal = rng.sample(deck, 4 * size)
        hands = [set(deal[k::4]) for k in range(4)]
        leader = rng.randrange(4)
        lead = rng.choice(sorted(hands[leader]))
        hands[leader].discard(lead)
        masks = [sum(1 << c for c in h) for h in hands]
        side = {leader, (leader + 2) % 4} if i % 2 else {(leader + 1) % 4, (leader + 3) % 4}
        want = Reference(rules).value(
            [sorted(h) for h in hands], leader, [lead], "tricks", frozenset(side)
        )
        got = solve(rules, masks, leader, [lead], tricks(sorted(side)))
        assert got == want, (i, rules, masks, leader, lead, side, got, want)


def test_best_cards_match_plain_minimax():
    """The value of every legal card, for whichever seat is to play."""
    rng = random.Random(7)
    for case in itertools.islice(random_cases(rng, [2, 3, 4], [2, 3]), 600):
        rules, ref, hands, leader, trick, kind, side, objective, extra = case
        seats = rules.seats
        seat = (leader + len(trick)) % seats
        got = best_cards(rules, hands, leader, trick, seat=seat, objective=objective)
        legal = ref.legal(frozenset(cards_of(hands[seat])), tuple(trick))
        assert sorted(got) == legal
        for card in legal:
            after = list(hands)
            after[seat] &= ~(1 << card)
            t = [*trick, card]
            lead, base = leader, 0
            if len(t) == seats:
                w = (leader + t.index(ref.winner_card(tuple(t)))) % seats
                lead, t = w, []
                if w in side:
                    if kind == "points":
                        base = sum(rules.points.get(c, 0) for c in [*trick, card])
                        base += rules.last_trick_bonus if not after[w] else 0
                    else:
                        base = 1
            if kind == "exact":
                sub = dict(extra, already=extra["already"] + base)
                want = ref.value([cards_of(h) for h in after], lead, t, kind, side, **sub)
            else:
                want = base + ref.value([cards_of(h) for h in after], lead, t, kind, side)
            assert got[card] == want, (rules, hands, leader, trick, objective, card)


def test_guesses_never_change_a_value():
    """A guess only moves where the null windows start: any guess, near, wild or missing for
    some cards, gives the values of no guess, for every objective."""
    rng = random.Random(31)
    for case in itertools.islice(random_cases(rng, [3, 4], [3, 4]), 300):
        rules, _, hands, leader, trick, _, _, objective, _ = case
        seat = (leader + len(trick)) % rules.seats
        plain = best_cards(rules, hands, leader, trick, seat=seat, objective=objective)
        for _ in range(3):
            guess = {c: v + rng.choice([-3, -1, 0, 1, 2, 40]) for c, v in plain.items()}
            guess.pop(rng.choice(list(guess)))
            solver = Solver(rules)
            got = solver.best_cards(hands, leader, trick, seat, objective, guess=guess)
            assert got == plain, (rules, hands, leader, trick, objective, guess)
            value = solve(rules, hands, leader, trick, objective)
            wild = rng.choice([0, 1, 5, 99])
            assert Solver(rules).solve(hands, leader, trick, objective, guess=wild) == value


def test_one_solver_reused_across_objectives_and_deals():
    """A warm table must never leak values between sides, kinds or deals."""
    rng = random.Random(99)
    rules = TrickRules(4, 2, teams=(0, 1, 0, 1), must_trump=True)
    solver = Solver(rules, tt_bits=12)  # small: forces replacements
    ref = Reference(rules)
    for _ in range(300):
        pos = random_position(rng, rules, ref, 4)
        if pos is None:
            continue
        hands, leader, trick = pos
        kind, side, objective, extra = random_objective(rng, rules, 4)
        want = ref.value([cards_of(h) for h in hands], leader, trick, kind, side, **extra)
        assert solver.solve(hands, leader, trick, objective) == want


def test_solvers_one_after_another_inherit_no_values():
    """A dropped solver's table block is the next one's (a spare of its size): emptied for
    each search, whatever side, kind or table the last one searched with."""
    rng = random.Random(7)
    rules = TrickRules(4, 2, teams=(0, 1, 0, 1), must_trump=True)
    ref = Reference(rules)
    kinds = set()
    for _ in range(150):
        pos = random_position(rng, rules, ref, 4)
        if pos is None:
            continue
        hands, leader, trick = pos
        for _ in range(4):  # the same position for other sides and kinds: the same keys
            kind, side, objective, extra = random_objective(rng, rules, 4)
            want = ref.value([cards_of(h) for h in hands], leader, trick, kind, side, **extra)
            assert Solver(rules, tt_bits=12).solve(hands, leader, trick, objective) == want
            kinds.add(kind)
    assert kinds == {"tricks", "points", "exact"}


def test_whist_position_from_python():
    """The call a Whist bot makes: tricks, exact bids, tricks already won, card values."""
    from levata.engine.cardmask import mask_of
    from levata.engine.cards import Suit, parse_cards

    rules = TrickRules(3, Suit.HEARTS, must_trump=True)  # Romanian Whist
    hands = [mask_of(parse_cards(h)) for h in ("AS KS 2H", "QS JS 3D", "10S 4H 5D")]
    # A♠ wins; on K♠ seat 2 must ruff; its 5♦ lead then forces seat 0 to ruff with 2♥
    assert solve(rules, hands, 0, objective=tricks(0)) == 2
    assert solve(rules, hands, 0, objective=exact(0, target=2)) == 1
    # one trick: cash A♠, then lead 2♥ into seat 2's 4♥ and throw K♠ under its 5♦
    assert solve(rules, hands, 0, objective=exact(0, target=1)) == 1
    # no trick is impossible (A♠ wins whenever it is played), so are three
    assert solve(rules, hands, 0, objective=exact(0, target=0)) == 0
    assert solve(rules, hands, 0, objective=exact(0, target=3)) == 0
    # bid 3 with one trick won before this position: needs two of the three left
    assert solve(rules, hands, 0, objective=exact(0, target=3, already=1)) == 1
    ace, king, two = (c.index for c in parse_cards("AS KS 2H"))
    assert best_cards(rules, hands, 0, seat=0, objective=tricks(0)) == {two: 1, king: 2, ace: 2}
    want = Reference(rules).value([cards_of(h) for h in hands], 0, [], "tricks", frozenset({0}))
    assert want == 2


def test_rejects_bad_positions():
    rules = TrickRules(3)
    with pytest.raises(ValueError, match="hands"):
        solve(rules, [0b100, 0b1000], 0)
    with pytest.raises(ValueError, match="shares"):
        solve(rules, [0b100, 0b100, 0b1000], 0)
    with pytest.raises(ValueError, match="sizes"):
        solve(rules, [0b100, 0b11000, 0b100000], 0)
    with pytest.raises(ValueError, match="not to play"):
        best_cards(rules, [0b100, 0b1000, 0b10000], 0, seat=1)
    with pytest.raises(ValueError, match="target"):
        exact(0)


# -- DDS agreement on full deals ---------------------------------------------------------------

SUITS = "SHDC"  # PBN order
RANKS = "AKQJT98765432"
SLOT = {"C": 0, "D": 1, "H": 2, "S": 3}
RANK = {r: 14 - i for i, r in enumerate(RANKS)}


def _pbn(hands: list[list[int]]) -> str:
    out = []
    for h in hands:
        held = {(c >> 4, c & 15) for c in h}
        out.append(".".join("".join(r for r in RANKS if (SLOT[s], RANK[r]) in held) for s in SUITS))
    return "N:" + " ".join(out)


def test_agrees_with_dds_on_full_bridge_deals():
    """200 random 13-card deals, one leader and one strain each: DDS's tricks for the side
    on lead equal ours (bridge card play = Tarnib's: follow suit, no duty to trump)."""
    endplay = pytest.importorskip("endplay", reason="endplay (DDS) is not installed")
    from endplay.dds import solve_board
    from endplay.types import Deal, Denom, Player

    rng = random.Random(13)
    denoms = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]
    solvers = {}
    deck = [16 * s + r for s in range(4) for r in range(2, 15)]
    searched = 0  # nodes, all deals together
    for _ in range(200):
        rng.shuffle(deck)
        hands = [deck[13 * i : 13 * i + 13] for i in range(4)]
        leader = rng.randrange(4)
        strain = rng.randrange(5)  # 0..3 = clubs..spades (our slots), 4 = no trump
        trump = None if strain == 4 else strain
        deal = Deal(_pbn(hands), first=Player(leader), trump=denoms[strain])
        theirs = max(score for _, score in solve_board(deal))
        if trump not in solvers:
            solvers[trump] = Solver(TrickRules(4, trump, teams=(0, 1, 0, 1)))  # bridge
        masks = [sum(1 << c for c in h) for h in hands]
        ours = solvers[trump].solve(masks, leader, objective=tricks((leader, (leader + 2) % 4)))
        assert ours == theirs, (_pbn(hands), leader, strain)
        searched += solvers[trump].nodes  # the last solve's nodes
    del endplay
    # A search that blew up would still answer right, only slowly: bound the work done
    # (65.5 million nodes today), never the wall clock, which a loaded machine stretches.
    assert searched < 200_000_000, searched


def test_medium_deals_match_the_solver_without_its_abstractions():
    """Deals of 5-8 cards, where the winning-ranks table and the bounds decide most nodes:
    the full solver against one with neither (a table keyed by exact relative ranks, checked
    against minimax above). Partnerships and three-hand deals, trumps or none, duties to
    follow or to trump, few ranks per suit on half of them (runs, stoppers and cashing
    suits), roots at trick starts and mid-trick."""
    rng = random.Random(9090)
    checked = 0
    for i in range(1500):
        seats = 4 if i % 3 else 3
        size = rng.choice([5, 6, 7, 8, 9] if seats == 4 else [5, 6, 7, 8, 9, 10])
        duties = rng.choice([{}, {}, {"must_trump": True}])
        trump = rng.choice([None, 0, 1, 2, 3])
        teams = (0, 1, 0, 1) if seats == 4 else None
        rules = TrickRules(seats, trump, teams=teams, **duties)
        ranks = rng.randrange(size + 1, 14) if i % 2 else 13
        deck = [16 * s + r for s in range(4) for r in range(15 - ranks, 15)]
        deal = rng.sample(deck, seats * size)
        hands = [set(deal[k::seats]) for k in range(seats)]
        leader = rng.randrange(seats)
        trick: list[int] = []
        ref = Reference(rules)
        for _ in range(rng.choice([0, 0, 1, 2, 3][: seats + 1])):
            seat = (leader + len(trick)) % seats
            card = rng.choice(ref.legal(frozenset(hands[seat]), tuple(trick)))
            hands[seat].discard(card)
            trick.append(card)
        to_play = (leader + len(trick)) % seats
        masks = [sum(1 << c for c in h) for h in hands]
        side = [to_play, (to_play + 2) % 4] if seats == 4 else [to_play]
        if rng.random() < 0.5:
            side = [s for s in range(seats) if s not in side]
        got = solve(rules, masks, leader, trick, tricks(side))
        want = solve(
            rules, masks, leader, trick, tricks(side), winning_ranks=False, quick_tricks=False
        )
        assert got == want, (i, rules, masks, leader, trick, side, got, want)
        checked += 1
    assert checked == 1500
