"""The worlds module (``levata.engine.worlds``): place sets and their narrowing, exact deals
that respect every set and size, the plan kept per view object, and the sampler used from
the engine's core only."""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from levata.engine import game
from levata.engine.cards import Card, parse_cards
from levata.engine.family import tricks
from levata.engine.worlds import PlaceSets, ViewCache, plan_deal, sampler

ROOT = Path(__file__).resolve().parents[2]
CARDS = parse_cards("AS KS QS JS AH KH QH")


def _sets() -> PlaceSets:
    sets = PlaceSets(CARDS, places=(0, 1, 2))
    sets.put(Card.parse("AS"), 2)  # passed to seat 2
    sets.not_at(0, parse_cards("KS QS JS"))  # seat 0 showed out of spades
    sets.not_at(1, parse_cards("AH KH"))  # seat 1 holds no heart above the queen
    return sets


def test_narrowing_keeps_a_last_place_and_spreading_adds_reachable_ones() -> None:
    sets = PlaceSets(parse_cards("AS KS"), places=(0, 1))
    sets.not_at(0, parse_cards("AS"))
    sets.not_at(1, parse_cards("AS"))  # would leave the ace nowhere: not about it
    assert sets.options(Card.parse("AS")) == {1}
    sets.put(Card.parse("KS"), 0)
    sets.spread({0: 3})
    assert sets.options(Card.parse("KS")) == {0, 3} and sets.options(Card.parse("AS")) == {1}
    sets.swap(1, 2)
    assert sets.options(Card.parse("AS")) == {1, 2}
    sets.move(3, 4)
    sets.close(2)
    assert sets.options(Card.parse("KS")) == {0, 4} and sets.options(Card.parse("AS")) == {1}
    sets.hand(1, parse_cards("KS"))
    assert sets.options(Card.parse("KS")) == {1} and sets.options(Card.parse("AS")) == set()
    sets.gone(Card.parse("KS"))
    assert Card.parse("KS") not in set(sets)


@pytest.mark.parametrize("pin", [True, False])
def test_every_deal_that_fits_comes_up_about_equally_often(pin: bool) -> None:
    sets = _sets()
    sizes = {0: 2, 1: 3, 2: 2}
    plan = plan_deal(sets, sizes, pin=pin)
    fits = set()
    for order in itertools.permutations(CARDS):
        cut = {0: order[:2], 1: order[2:5], 2: order[5:]}
        if all(p in sets.options(c) for p, cs in cut.items() for c in cs):
            fits.add(tuple(frozenset(cut[p]) for p in (0, 1, 2)))
    rng = random.Random(4)
    seen: Counter[tuple[frozenset[Card], ...]] = Counter()
    draws = 200 * len(fits)
    for _ in range(draws):
        dealt = plan.deal(rng)
        assert {p: len(cs) for p, cs in dealt.items()} == sizes
        seen[tuple(frozenset(dealt[p]) for p in (0, 1, 2))] += 1
    assert set(seen) == fits
    assert max(seen.values()) < 1.5 * min(seen.values())


def test_a_known_card_is_pinned_and_the_viewing_seats_own_cards_are_not_dealt() -> None:
    sets = _sets()
    sets.hand(0, parse_cards("AH"))
    plan = plan_deal(sets, {1: 3, 2: 3}, mine=0)
    assert plan.fixed[2][0] == Card.parse("AS")
    assert all(Card.parse("AH") not in cs for cs in plan.deal(random.Random(1)).values())
    with pytest.raises(ValueError, match="hidden places"):
        plan_deal(sets, {1: 3, 2: 2}, mine=0)


def test_the_sampler_of_one_set_of_constraints_is_built_once() -> None:
    assert sampler(0b1111, (2, 2), (0b1111, 0b1111)) is sampler(0b1111, (2, 2), (0b1111, 0b1111))


def test_a_plan_is_kept_per_view_object() -> None:
    cache: ViewCache[list[int]] = ViewCache(size=2)
    state = game("whist").new_match(players=3, seed=1)
    a, b, c = state.view(0), state.view(1), state.view(2)
    made: list[int] = []

    def make(k: int) -> list[int]:
        made.append(k)
        return [k]

    assert cache.get(a, "x", lambda: make(1)) == [1]
    assert cache.get(a, "x", lambda: make(2)) == [1]  # kept
    assert cache.get(a, "y", lambda: make(3)) == [3]  # another key
    assert cache.get(state.view(0), "x", lambda: make(4)) == [4]  # an equal view, not this one
    cache.get(b, "x", lambda: make(5))
    cache.get(c, "x", lambda: make(6))
    assert cache.get(a, "x", lambda: make(7)) == [7]  # fell out: two kept
    assert made == [1, 3, 4, 5, 6, 7]


def test_many_worlds_of_one_view_plan_once(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = game("banking")
    state = spec.new_match(players=4, options={"previous": "2,-1,1,-2"}, seed=2)
    calls = []
    real = tricks._make_plan
    monkeypatch.setattr(tricks, "_make_plan", lambda *a: calls.append(a) or real(*a))
    view = state.view(1)
    worlds = [spec.world_from_view(view, random.Random(k)) for k in range(5)]
    assert len(calls) == 1
    assert all(w.view(1) == view for w in worlds)
    assert len({tuple(map(tuple, w.hands)) for w in worlds}) > 1


def test_no_module_outside_the_engines_core_deals_with_a_private_sampler() -> None:
    """The games and families narrow place sets; only the core builds samplers."""
    outside = [
        *(ROOT / "engine_ext" / "games").rglob("*.py"),
        *(ROOT / "engine_ext" / "family").rglob("*.py"),
        *(ROOT / "bots").rglob("*.py"),
        *(ROOT / "server").rglob("*.py"),
    ]
    assert outside
    for path in outside:
        text = path.read_text()
        assert "_sampler" not in text, path
        assert not re.search(r"levata\.engine\.sampler import|import sampler", text), path


def test_evidence_picks_each_deal_among_a_pool_by_its_likelihood() -> None:
    """Seat 1 holding the ace of spades is 9 times likelier than not: with the evidence the
    ace lies there in about 9 deals out of 10 once the pool is large, a third without."""
    from levata.engine.cardmask import mask_of
    from levata.engine.worlds import Evidence

    sets = PlaceSets(parse_cards("AS KS QS JS AH KH"), places=(0, 1, 2))
    plan = plan_deal(sets, {0: 2, 1: 2, 2: 2})
    ace = mask_of(parse_cards("AS"))
    evidence = Evidence(lambda hands: 9.0 if hands[1] & ace else 1.0, pool=16)
    plain, weighed = random.Random(3), random.Random(3)
    seen = [Card.parse("AS") in plan.deal(plain)[1] for _ in range(400)]
    picked = [
        Card.parse("AS") in plan.deal(weighed, evidence=evidence, seats=3)[1] for _ in range(400)
    ]
    assert 0.25 < sum(seen) / 400 < 0.42
    assert sum(picked) / 400 > 0.75
    again = random.Random(3)
    assert picked == [
        Card.parse("AS") in plan.deal(again, evidence=evidence, seats=3)[1] for _ in range(400)
    ]


def _pool_law(fits: list[tuple[int, ...]], group: dict, like, pool: int) -> dict:
    """The exact law of a deal picked among ``pool`` candidates by ``like``: the first
    uniform among ``fits``, the others uniform among the deals with its count of each class
    in each place (``group``), picked in proportion to ``like`` (importance resampling)."""
    out = {}
    for x in fits:
        mates = [y for y in fits if group[y] == group[x]]
        mean = 0.0
        for others in itertools.product(mates, repeat=pool - 1):
            mean += like(x) / (like(x) + sum(like(y) for y in others))
        out[x] = pool * mean / len(mates) ** (pool - 1) / len(fits)
    return out


@pytest.mark.parametrize("pool", [2, 3])
def test_a_pool_picks_deals_by_the_exact_law_of_importance_resampling(pool: int) -> None:
    """Every deal of a tiny view, counted over many draws with evidence, comes up as often as
    the exact law of the pool says (chi-square, generous): the candidates are uniform deals
    of the view with the first one's class counts, picked by likelihood, not inverted, not
    twice. Seat 0 showed out of spades (two classes: spades, hearts); the clues of the
    likelihood are those of a seat that let tricks go (seat 1: no ace; seat 2: no king of
    hearts)."""
    from levata.engine.cardmask import mask_of
    from levata.engine.evidence import Clue, Evidence, read_clues

    cards = parse_cards("AS KS QS AH KH QH")
    sets = PlaceSets(cards, places=(0, 1, 2))
    sets.not_at(0, parse_cards("AS KS QS"))
    sizes = {0: 2, 1: 2, 2: 2}
    plan = plan_deal(sets, sizes)
    like = read_clues(
        [
            Clue(1, mask_of(parse_cards("AS AH")), 0.2),
            Clue(2, mask_of(parse_cards("KH")), 0.5),
        ]
    )
    spades = mask_of(parse_cards("AS KS QS"))
    fits: list[tuple[int, ...]] = []
    for order in itertools.permutations(cards):
        hands = tuple(mask_of(order[2 * p : 2 * p + 2]) for p in range(3))
        if not hands[0] & spades and hands not in fits:
            fits.append(hands)
    group = {x: tuple((h & spades).bit_count() for h in x) for x in fits}
    law = _pool_law(fits, group, like, pool)
    assert abs(sum(law.values()) - 1) < 1e-9
    rng = random.Random(11)
    draws = 400 * len(fits)
    seen: Counter[tuple[int, ...]] = Counter()
    evidence = Evidence.of(like, pool=pool)
    for _ in range(draws):
        dealt = plan.deal(rng, evidence=evidence, seats=3)
        seen[tuple(mask_of(dealt[p]) for p in range(3))] += 1
    assert set(seen) <= set(fits)
    chi2 = sum((seen[x] - draws * p) ** 2 / (draws * p) for x, p in law.items())
    df = len(fits) - 1
    assert chi2 < df + 6 * (2 * df) ** 0.5, (chi2, df)
    # the class counts are the sampler's, whatever the likelihood says
    by_group = Counter(group[x] for x in seen.elements())
    for g, n in by_group.items():
        share = sum(1 for x in fits if group[x] == g) / len(fits)
        assert abs(n / draws - share) < 0.03, (g, n / draws, share)
