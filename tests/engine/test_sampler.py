"""The world sampler deals exactly uniformly: chi-square against exact enumeration."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from scipy.stats import chisquare

from levata.engine.cardmask import cards_of, mask_of
from levata.engine.cards import french_deck, parse_cards
from levata.engine.sampler import Sampler


def enumerate_deals(cards, sizes, allowed):
    """Every deal of ``cards`` into places of ``sizes`` within ``allowed`` (brute force)."""
    out = []

    def place(i, rest, acc):
        if i == len(sizes):
            if not rest:
                out.append(tuple(acc))
            return
        for combo in itertools.combinations(rest, sizes[i]):
            if all((allowed[i] >> c) & 1 for c in combo):
                left = [c for c in rest if c not in combo]
                place(i + 1, left, [*acc, sum(1 << c for c in combo)])

    place(0, [c.index for c in cards], [])
    return out


def random_case(rng: random.Random):
    n = rng.randint(4, 8)
    cards = rng.sample(french_deck(), n)
    places = rng.randint(2, 4)
    cuts = sorted(rng.sample(range(1, n), places - 1))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    allowed = []
    for _ in range(places):
        void = {rng.choice(cards).suit} if rng.random() < 0.5 else set()
        banned = set(rng.sample(cards, 1)) if rng.random() < 0.3 else set()
        allowed.append(mask_of(c for c in cards if c.suit not in void and c not in banned))
    return cards, sizes, allowed


@pytest.mark.parametrize("case", range(12))
def test_uniform_against_exact_enumeration(case):
    rng = random.Random(case)
    while True:
        cards, sizes, allowed = random_case(rng)
        deals = enumerate_deals(cards, sizes, allowed)
        if len(deals) >= 2:
            break
    sampler = Sampler(mask_of(cards), sizes, allowed)
    assert sampler.count() == len(deals)
    draws = max(3000, 40 * len(deals))
    seen = Counter(tuple(sampler.sample(case * 1_000_003 + k)) for k in range(draws))
    assert set(seen) <= set(deals), "a sampled deal breaks the constraints"
    observed = [seen[d] for d in deals]
    p = chisquare(observed).pvalue
    assert p > 1e-4, f"not uniform: p={p:.2e} over {len(deals)} deals"


def test_known_void_and_sizes():
    unseen = mask_of(parse_cards("AS KS QS 2H 3H 4H"))
    hearts = mask_of(parse_cards("2H 3H 4H"))
    s = Sampler(unseen, [3, 3], [hearts, unseen])
    for k in range(50):
        west, east = s.sample(k)
        assert west == hearts and east == unseen & ~hearts


def test_impossible_constraints_are_an_error():
    unseen = mask_of(parse_cards("AS KS QS 2H"))
    with pytest.raises(ValueError, match="no deal"):
        Sampler(unseen, [2, 2], [mask_of(parse_cards("2H")), unseen])
    with pytest.raises(ValueError, match="do not fill"):
        Sampler(unseen, [2, 1], [unseen, unseen])


def test_full_bridge_sized_deal_is_fast_and_valid():
    deck = french_deck()
    unseen = mask_of(deck[:39])
    spades = mask_of(c for c in deck[:39] if c.suit.letter == "S")
    s = Sampler(unseen, [13, 13, 13], [unseen & ~spades, unseen, unseen])
    for k in range(200):
        hands = s.sample(k)
        assert sum(len(cards_of(h)) for h in hands) == 39
        assert hands[0] & spades == 0
        assert hands[0] | hands[1] | hands[2] == unseen
