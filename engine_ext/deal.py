"""Dealing: shuffling a deck, and re-dealing hidden cards for a determinized world.

>>> import random
>>> from levata.engine.cards import parse_cards
>>> hands = deal_hidden(parse_cards("AS KS QS JS"), {"w": 2, "e": 2}, random.Random(1))
>>> sorted(len(v) for v in hands.values())
[2, 2]
>>> hands = deal_hidden(
...     parse_cards("AS KS 2H 3H"), {"w": 2, "e": 2}, random.Random(1),
...     allowed=lambda card, slot: not (slot == "w" and card.suit.name == "SPADES"),
... )
>>> sorted(str(c) for c in hands["w"])  # west showed out of spades: it gets the hearts
['2H', '3H']
>>> deal_hidden(parse_cards("AS KS QS 2H"), {"w": 2, "e": 2}, random.Random(1),
...             allowed=lambda card, slot: not (slot == "w" and card.suit.name == "SPADES"))
Traceback (most recent call last):
...
ValueError: no deal satisfies the constraints
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

from levata.engine.cards import Card
from levata.engine.contract import BadConfig

__all__ = ["deal_hidden", "shuffled"]

K = TypeVar("K", bound=Hashable)

#: Whole-deal shuffles tried before the constrained fallback.
REJECTION_TRIES = 200


def shuffled(cards: Sequence[Card], rng: random.Random) -> list[Card]:
    """A shuffled copy of ``cards`` drawn from ``rng`` (the deck's order, top card first)."""
    out = list(cards)
    rng.shuffle(out)
    return out


def deal_order(
    deck: Sequence[Card], rng: random.Random, deal: Sequence[Card] | None, refusal: str
) -> list[Card]:
    """The order a new deal takes its cards in: ``deck`` shuffled from ``rng``, or the
    ``deal`` a caller gives, refused with ``refusal`` (a
    :class:`~levata.engine.contract.BadConfig`) unless it is exactly ``deck``'s cards.

    >>> from levata.engine.cards import parse_cards
    >>> deck = parse_cards("AS KS QS")
    >>> [str(c) for c in deal_order(deck, random.Random(1), parse_cards("QS AS KS"), "no")]
    ['QS', 'AS', 'KS']
    >>> deal_order(deck, random.Random(1), parse_cards("QS AS"), "not that deck")
    Traceback (most recent call last):
    ...
    levata.engine.contract.BadConfig: not that deck
    """
    if deal is None:
        return shuffled(deck, rng)
    order = list(deal)
    if Counter(order) != Counter(deck):
        raise BadConfig(refusal)
    return order


def deal_hidden(
    cards: Sequence[Card],
    sizes: Mapping[K, int],
    rng: random.Random,
    allowed: Callable[[Card, K], bool] | None = None,
) -> dict[K, list[Card]]:
    """Deal ``cards`` into slots of the given ``sizes`` so that ``allowed(card, slot)`` holds.

    Cards a seat is known to hold are not passed here: the caller keeps them in place and only
    deals the rest. Without constraints the deal is uniform. With constraints it first tries
    :data:`REJECTION_TRIES` uniform shuffles and keeps the first that fits (uniform over the
    fitting deals); if none fits it falls back to a randomized backtracking deal, which always
    finds a fitting deal when one exists but is not exactly uniform (most constrained cards are
    placed first). Raises ``ValueError`` when no deal fits.
    """
    if sum(sizes.values()) != len(cards):
        raise ValueError(f"{len(cards)} cards do not fill slots of sizes {dict(sizes)}")
    slots = list(sizes)
    for _ in range(REJECTION_TRIES if allowed is not None else 1):
        deck = shuffled(cards, rng)
        out: dict[K, list[Card]] = {}
        pos = 0
        for slot in slots:
            out[slot] = deck[pos : pos + sizes[slot]]
            pos += sizes[slot]
        if allowed is None or all(allowed(c, s) for s in slots for c in out[s]):
            return out
    return _backtrack(cards, sizes, rng, allowed)  # type: ignore[arg-type]  # set when rejection gives up


def _backtrack(
    cards: Sequence[Card],
    sizes: Mapping[K, int],
    rng: random.Random,
    allowed: Callable[[Card, K], bool],
) -> dict[K, list[Card]]:
    slots = list(sizes)
    options = [[s for s in slots if allowed(c, s)] for c in cards]
    order = sorted(range(len(cards)), key=lambda i: (len(options[i]), rng.random()))
    room = dict(sizes)
    placed: dict[int, K] = {}

    def place(k: int) -> bool:
        if k == len(order):
            return True
        i = order[k]
        choices = [s for s in options[i] if room[s] > 0]
        rng.shuffle(choices)
        for s in choices:
            room[s] -= 1
            placed[i] = s
            if place(k + 1):
                return True
            room[s] += 1
        return False

    if not place(0):
        raise ValueError("no deal satisfies the constraints")
    out: dict[K, list[Card]] = {s: [] for s in slots}
    for i, s in placed.items():
        out[s].append(cards[i])
    for s in slots:
        rng.shuffle(out[s])
    return out
