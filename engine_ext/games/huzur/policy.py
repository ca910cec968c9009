"""How Huzur's heuristic chooses its cards, as plain functions of the cards: shared by the
heuristic bot (``levata.bots.heuristic.huzur``, which reads them off its view) and the fast
playout copy's ``heuristic`` policy (:mod:`.playout`), which the search rolls out with.

* **worth**: what a card is worth keeping (its rank, a trump's bonus, a pair's);
* **best_beat**: the cheapest way to beat a play, card by card (an exact search);
* **should_beat**: beat, or take the table when the beat costs more than the cards;
* **best_lead**: the lead that sheds the most worth below the middle, pairs first, and
  cards nobody can beat any more once the stock is out (counted from what left the game).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence

from levata.engine.cards import Card, Suit
from levata.engine.games.huzur.rules import beats, deck, power

__all__ = ["best_beat", "best_lead", "should_beat", "worth"]

#: Worth of a middling card: spending a card above it costs, shedding one below gains.
MIDDLE = 8.0
#: Worth of each card a trump stands above the plain suits.
TRUMP_BONUS = 12.0
#: Extra worth of a card that pairs another in hand.
PAIR_BONUS = 2.0
#: The cost of one more card in hand while the stock lasts, and once it is empty.
CARD_COST, LATE_CARD_COST = 6.0, 10.0
#: A lead's bonus per card beyond the first (several cards are harder to beat).
MULTI_BONUS = 3.0
#: A lead card nobody can beat any more, once the stock is empty.
MASTER_BONUS = 4.0


def worth(card: Card, trump: Suit, hand: Sequence[Card] = (), paired: bool = False) -> float:
    """What a card is worth keeping: its rank (1 for the lowest), a trump's bonus, a pair's
    (``paired``, or another card of its rank in ``hand``).

    >>> from levata.engine.cards import parse_cards
    >>> hand = parse_cards("8H 8S AC")
    >>> [worth(c, Suit.CLUBS, hand) for c in hand]
    [6.0, 6.0, 24.0]
    """
    value = float(power(card) - 4) + (TRUMP_BONUS if card.suit == trump else 0.0)
    if paired or sum(1 for c in hand if c.rank == card.rank) >= 2:
        value += PAIR_BONUS
    return value


def best_beat(
    targets: Sequence[Card], hand: Sequence[Card], trump: Suit
) -> tuple[float, list[Card]] | None:
    """The cheapest way to beat ``targets`` (card by card, in order) from ``hand``: its total
    worth and the cards, or ``None`` when nothing beats them.

    >>> from levata.engine.cards import parse_cards
    >>> cost, cards = best_beat(parse_cards("8H 9H"), parse_cards("10H JH AC"), Suit.CLUBS)
    >>> [str(c) for c in cards]
    ['10H', 'JH']
    """
    ranks = Counter(c.rank for c in hand)
    values = {c: worth(c, trump, (), ranks[c.rank] >= 2) for c in hand}
    fits = [
        sorted((c for c in hand if beats(c, t, trump)), key=values.__getitem__) for t in targets
    ]
    if not all(fits):
        return None
    # The least the targets from k on can cost (each its cheapest card): a bound to prune by.
    floor = [0.0] * (len(targets) + 1)
    for k in range(len(targets) - 1, -1, -1):
        floor[k] = floor[k + 1] + values[fits[k][0]]
    best: list[tuple[float, list[Card]] | None] = [None]

    def walk(k: int, spent: float, used: list[Card]) -> None:
        found = best[0]
        if found is not None and spent + floor[k] >= found[0]:
            return
        if k == len(targets):
            best[0] = (spent, list(used))
            return
        for c in fits[k]:
            if c not in used:
                used.append(c)
                walk(k + 1, spent + values[c], used)
                used.pop()

    walk(0, 0.0, [])
    return best[0]


#: A lead is chosen among this many of the cards best shed (and the cards already led).
LEAD_POOL = 8


def best_lead(
    hand: Sequence[Card],
    trump: Suit,
    *,
    late: bool,
    out: Iterable[Card] = (),
    players: int = 3,
    most: int = 5,
    chosen: Sequence[Card] = (),
) -> tuple[Card, ...]:
    """The lead to play: the most worth shed below the middle, a bonus for each card beyond
    the first and, once the stock is out (``late``), for cards no unseen card can beat
    (``out``: every card this seat knows is not in another hand that could beat it).
    ``chosen``: the cards already led (the lead goes on with cards after them in the hand's
    order; its other cards come from the :data:`LEAD_POOL` of them best shed).

    >>> from levata.engine.cards import parse_cards
    >>> [str(c) for c in best_lead(parse_cards("7H 7S 9D AC KS"), Suit.CLUBS, late=False)]
    ['9D', '7H', '7S']
    """
    pool = sorted(set(hand) | set(chosen))
    ranks = Counter(c.rank for c in pool)
    middle = MIDDLE + (3.0 if late else 0.0)
    gain = {c: middle - worth(c, trump, (), ranks[c.rank] >= 2) for c in pool}
    if late:
        gone = set(out) | set(pool)
        live = [c for c in deck(players) if c not in gone]
        for c in pool:
            if not any(beats(x, c, trump) for x in live):
                gain[c] += MASTER_BONUS
    if not chosen:
        return _best_opening(pool, gain, most)
    last = chosen[-1]
    free = [c for c in pool if c not in chosen and c > last]
    free = sorted(sorted(free, key=gain.__getitem__, reverse=True)[:LEAD_POOL])
    best: tuple[float, tuple[Card, ...]] = (-1e9, tuple(chosen) or tuple(pool[:1]))
    base = sum(gain[c] for c in chosen)
    for size in (1, 3, 5):
        extra = size - len(chosen)
        if size > most or extra < 0:
            continue
        for more in itertools.combinations(free, extra):
            lead = (*chosen, *more)
            if size > 1 and _pairs(sorted(c.rank for c in lead)) < size // 2:
                continue  # three cards need a pair, five need two
            score = base + sum(gain[c] for c in more) + MULTI_BONUS * (size - 1)
            if score > best[0]:
                best = (score, lead)
    return best[1]


def _best_opening(pool: list[Card], gain: dict[Card, float], most: int) -> tuple[Card, ...]:
    """The best lead of ``pool`` by ``gain`` (exact, by structure): the best card; the best
    pair of each rank with the best other card; two ranks' best pairs with the best card
    left. Cards come out in the hand's order."""
    ranked = sorted(pool, key=gain.__getitem__, reverse=True)
    best: tuple[float, tuple[Card, ...]] = (gain[ranked[0]], (ranked[0],))
    if most < 3:
        return best[1]
    by_rank: dict[int, list[Card]] = {}
    for c in ranked:
        by_rank.setdefault(c.rank, []).append(c)
    pairs = [(gain[cs[0]] + gain[cs[1]], cs[:2]) for cs in by_rank.values() if len(cs) >= 2]

    def kicker(used: list[Card]) -> Card:
        return next(c for c in ranked if c not in used)

    for value, pair in pairs:
        if len(pool) >= 3:
            k = kicker(pair)
            score = value + gain[k] + 2 * MULTI_BONUS
            if score > best[0]:
                best = (score, (*pair, k))
    if most >= 5 and len(pool) >= 5:
        for (v1, p1), (v2, p2) in itertools.combinations(pairs, 2):
            k = kicker(p1 + p2)
            score = v1 + v2 + gain[k] + 4 * MULTI_BONUS
            if score > best[0]:
                best = (score, (*p1, *p2, k))
    return tuple(sorted(best[1]))


def _pairs(ranks: list[int]) -> int:
    """Disjoint pairs in sorted ``ranks`` (a quick count: leads are tried by the hundred).

    >>> _pairs([8, 8, 8, 11, 11]), _pairs([8, 9, 11])
    (2, 0)
    """
    pairs, i = 0, 0
    while i < len(ranks) - 1:
        if ranks[i] == ranks[i + 1]:
            pairs, i = pairs + 1, i + 2
        else:
            i += 1
    return pairs


def should_beat(
    cost: float, targets: Sequence[Card], table: Sequence[Card], trump: Suit, late: bool
) -> bool:
    """Beat (spending ``cost`` of worth on ``targets``) rather than take the ``table``: the
    cards a take brings in are worth their worth less a cost per card.

    >>> from levata.engine.cards import parse_cards
    >>> should_beat(15.0, parse_cards("8H"), parse_cards("8H"), Suit.CLUBS, late=False)
    True
    >>> should_beat(24.0, parse_cards("8H"), parse_cards("8H"), Suit.CLUBS, late=False)
    False
    """
    if late:
        return True  # with the stock out every card taken must be shed again: beat
    per_card = CARD_COST
    spend = cost - MIDDLE * len(targets)
    take = sum(worth(c, trump) - MIDDLE for c in table) - per_card * len(table)
    return -spend >= take
