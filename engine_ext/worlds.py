"""Worlds rebuilt from one seat's view: where each unseen card may be, and exact deals of them.

A search bot plays many *worlds* of one view: full states the seat cannot tell from the real
one. Every game builds them the same way:

1. **Places.** Each place a hidden card can lie in gets a number: the seats' hands are
   ``0..N-1``, the game's own places (a kitty or Surpriza, the discards, the undealt rest,
   the stock) follow from ``N``. Each place has a size (the view's counts).
2. **Place sets.** Replaying the seat's history, each unseen card gets the set of places it
   may be in (:class:`PlaceSets`): the deal puts it anywhere the seat does not see; a game's
   *narrowing hooks* then cut or widen the sets by what the seat saw: a void (a suit a seat
   showed out of), "holds nothing of the suit above X" (an exchange's answer), a card known
   to have gone to a place (a pass, a face-up kitty), a move that may have happened (any
   card of A may now be with B). A rule only ever drops a place the card cannot be in, or
   adds one it may have reached, so the true place is always in the set.
3. **The deal.** :func:`plan_deal` turns the sets and sizes into a :class:`DealPlan` with the
   exact :class:`~levata.engine.sampler.Sampler` (built once per set of constraints: it
   counts every deal, :func:`sampler` keeps the last few), which deals the unknown cards
   uniformly among all the deals that respect every set and every size.

What does not depend on the random draws is worked out once per view object and kept in a
:class:`ViewCache` (a search draws many worlds from one view, and a view is never changed).

A constraint that is not a set of places per card (Repezita's "held some card of these
ranks", Macao's "the card drawn matched the top") is a game's own acceptance test over
whole deals, on the same caches.

**Evidence** (the one hook for inference): the deal above is uniform among the deals the
view allows, but what the other seats did (their bids, calls and plays) makes some deals
likelier than others under a model of how they play. The engine knows no policy: a bot
passes an :class:`Evidence`, a :data:`Likelihood` of the seats' hands and a ``pool`` size,
and each world is then picked among ``pool`` exact draws in proportion to its likelihood
(importance resampling: :func:`pick_weighed`). :meth:`DealPlan.deal` weighs the sampler's
draws before any world is built (a draw is microseconds, a world hundreds of them).

>>> from levata.engine.cards import parse_cards
>>> sets = PlaceSets(parse_cards("AS KS QS AH KH QH"), places=(1, 2))
>>> sets.put(Card.parse("AS"), 2)           # seat 2 was passed the ace of spades
>>> sets.not_at(1, parse_cards("KS"))       # seat 1 said it held no spade above the queen
>>> plan = plan_deal(sets, {1: 3, 2: 3})
>>> [str(c) for c in plan.fixed[2]], plan.sampler.count()  # 4 ways to give seat 2 one more
(['AS', 'KS'], 4)
>>> dealt = plan.deal(random.Random(0))
>>> sorted(map(str, dealt[1])), sorted(map(str, dealt[2]))
(['AH', 'QH', 'QS'], ['AS', 'KH', 'KS'])
"""

from __future__ import annotations

import copy
import functools
import random
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from levata.engine.cardmask import cards_of, mask_of
from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.evidence import Evidence, Likelihood, pick_weighed
from levata.engine.sampler import Sampler

__all__ = [
    "HIDDEN",
    "DealPlan",
    "Evidence",
    "Likelihood",
    "PlaceSets",
    "Reseeded",
    "ViewCache",
    "copy_state",
    "pick_weighed",
    "plan_deal",
    "reseed",
    "sampler",
    "seen_log",
]

#: The kind of a placeholder event at a seq the viewing seat never saw.
HIDDEN = "hidden"


@functools.lru_cache(maxsize=8)
def sampler(unseen: int, sizes: tuple[int, ...], allowed: tuple[int, ...]) -> Sampler:
    """The exact sampler of one set of constraints, kept: building it counts every deal.

    >>> sampler(0b111, (2, 1), (0b111, 0b100)) is sampler(0b111, (2, 1), (0b111, 0b100))
    True
    """
    return Sampler(unseen, sizes, allowed)


class PlaceSets:
    """Where each unseen card may be: card -> the set of places it may lie in.

    The cards keep the order they were given in (a deck's), so the cards known to be in a
    place come out in that order. Narrowing never empties a set: a fact that would rule out
    a card's last place is taken as not about that card.
    """

    def __init__(self, cards: Iterable[Card], places: Iterable[int]) -> None:
        start = frozenset(places)
        self.where: dict[Card, set[int]] = {c: set(start) for c in cards}

    def __iter__(self) -> Iterator[Card]:
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)

    def items(self) -> Iterable[tuple[Card, set[int]]]:
        return self.where.items()

    def options(self, card: Card) -> set[int]:
        """The places ``card`` may be in (empty once it is gone)."""
        return self.where.get(card, set())

    def put(self, card: Card, place: int) -> None:
        """``card`` is known to be in ``place`` (dealt, passed, shown, swapped there)."""
        self.where[card] = {place}

    def gone(self, card: Card) -> None:
        """``card`` left every hidden place (played face up)."""
        self.where.pop(card, None)

    def not_at(self, place: int, cards: Iterable[Card]) -> None:
        """``place`` holds none of ``cards`` (a void, "nothing above X")."""
        where = self.where
        for c in cards:
            o = where.get(c)
            if o is not None and place in o and len(o) > 1:
                o.discard(place)

    def spread(self, moves: Mapping[int, int]) -> None:
        """Any card at ``a`` may now be at ``moves[a]`` (a move the seat did not see)."""
        for o in self.where.values():
            o.update([moves[a] for a in list(o) if a in moves])

    def swap(self, a: int, b: int) -> None:
        """Cards of ``a`` and ``b`` may have changed hands both ways (an unseen exchange)."""
        for o in self.where.values():
            if a in o or b in o:
                o.update((a, b))

    def close(self, place: int) -> None:
        """Nothing is in ``place`` any more (a kitty taken up): drop it from every set."""
        for o in self.where.values():
            o.discard(place)

    def move(self, src: int, dst: int) -> None:
        """Whatever may be in ``src`` may now be in ``dst`` instead (face-down cards taken)."""
        for o in self.where.values():
            if src in o:
                o.discard(src)
                o.add(dst)

    def hand(self, seat: int, cards: Iterable[Card]) -> None:
        """``seat`` holds exactly ``cards`` (the viewing seat's own hand)."""
        mine = set(cards)
        for c in mine:
            self.where[c] = {seat}
        for c, o in self.where.items():
            if seat in o and c not in mine:
                o.discard(seat)


@dataclass
class DealPlan:
    """How to deal the unknown cards of one view: the cards known to be in each place, and
    the exact sampler of the rest over the places dealt at random (``names``, in the
    sampler's order)."""

    fixed: dict[int, list[Card]]
    names: list[int]
    sampler: Sampler | None  # None when no card is left to chance
    _kept_classes: list[tuple[list[int], int]] | None = field(
        default=None, repr=False, compare=False
    )

    def deal(
        self,
        rng: random.Random,
        italian: bool = False,
        evidence: Evidence | None = None,
        seats: int = 0,
    ) -> dict[int, list[Card]]:
        """Each place's cards: the known ones, then those dealt (one draw of ``rng``). With
        ``evidence``, the deal is picked among ``evidence.pool`` draws by the likelihood of
        the hands of places ``0..seats-1`` (the seats; a place not dealt here is empty)."""
        dealt = {p: list(cs) for p, cs in self.fixed.items()}
        if self.sampler is not None:
            masks: Sequence[int] = self.sampler.sample(rng.getrandbits(64))
            if evidence is not None and evidence.pool > 1:
                masks = self._weighed(masks, rng, evidence, seats)
            for place, m in zip(self.names, masks, strict=True):
                dealt.setdefault(place, []).extend(cards_of(m, italian))
        return dealt

    def _weighed(
        self, first: Sequence[int], rng: random.Random, evidence: Evidence, seats: int
    ) -> Sequence[int]:
        """One of ``evidence.pool`` deals (``first`` and more), picked by likelihood. The
        others keep ``first``'s count of each *class* of cards (those allowed in the same
        places) in each place and shuffle which cards of the class go where: each is a
        uniform deal as ``first`` is, at a few microseconds where a sampler draw costs a
        hundred (the likelihood then reweighs which cards a seat holds, not how many of a
        class: with no void or exchange read, one class, the whole deal)."""
        known = [mask_of(self.fixed.get(t, ())) for t in range(seats)]
        slot = {p: i for i, p in enumerate(self.names) if p < seats}
        draws = [first]
        draws += [self._shuffled(first, rng) for _ in range(evidence.pool - 1)]
        weights = []
        for masks in draws:
            hands = [known[t] | (masks[slot[t]] if t in slot else 0) for t in range(seats)]
            weights.append(evidence.likelihood(hands))
        return draws[pick_weighed(weights, rng)]

    def _shuffled(self, masks: Sequence[int], rng: random.Random) -> list[int]:
        """``masks`` with the cards of each class shuffled among the places they lie in."""
        out = [0] * len(masks)
        for cards, held in self._classes():
            places = [i for i, m in enumerate(masks) for _ in range((m & held).bit_count())]
            rng.shuffle(places)
            for c, i in zip(cards, places, strict=True):
                out[i] |= 1 << c
        return out

    def _classes(self) -> list[tuple[list[int], int]]:
        """The dealt cards (bit indexes, and as a mask) grouped by the places they may lie
        in."""
        if self._kept_classes is None:
            assert self.sampler is not None
            allowed = self.sampler.allowed
            by_places: dict[tuple[int, ...], list[int]] = {}
            unseen = 0
            for m in allowed:
                unseen |= m
            for c in range(unseen.bit_length()):
                if unseen >> c & 1:
                    key = tuple(i for i, m in enumerate(allowed) if m >> c & 1)
                    by_places.setdefault(key, []).append(c)
            self._kept_classes = [(cs, sum(1 << c for c in cs)) for cs in by_places.values()]
        return self._kept_classes


def plan_deal(
    sets: PlaceSets, sizes: Mapping[int, int], mine: int | None = None, pin: bool = True
) -> DealPlan:
    """The plan that deals ``sets`` into places of ``sizes`` (place -> cards it holds).

    Cards that may be in ``mine`` (the viewing seat's own hand) are not dealt. With ``pin`` a
    card with one possible place is put there before the draw (a known card); without, it
    goes through the sampler as a class of its own (both exact; the trick base deals that
    way, and keeps doing so that the same seeds give the same worlds).

    >>> from levata.engine.cards import parse_cards
    >>> sets = PlaceSets(parse_cards("AS KS"), places=(0, 1))
    >>> sets.put(Card.parse("AS"), 0)
    >>> plan = plan_deal(sets, {0: 1, 1: 1})
    >>> {p: [str(c) for c in cs] for p, cs in plan.fixed.items()}, plan.names
    ({0: ['AS']}, [1])
    """
    fixed: dict[int, list[Card]] = {}
    loose: dict[Card, set[int]] = {}
    for card, options in sets.items():
        if mine is not None and mine in options:
            continue
        if pin and len(options) == 1:
            fixed.setdefault(next(iter(options)), []).append(card)
        else:
            loose[card] = options
    names = [p for p in sizes if sizes[p] - len(fixed.get(p, [])) > 0]
    want = [sizes[p] - len(fixed.get(p, [])) for p in names]
    if sum(want) != len(loose):
        raise ValueError(f"{sum(want)} hidden places for {len(loose)} unknown cards")
    if not loose:
        return DealPlan(fixed, names, None)
    allowed = tuple(mask_of(c for c, o in loose.items() if p in o) for p in names)
    return DealPlan(fixed, names, sampler(mask_of(loose), tuple(want), allowed))


P = TypeVar("P")


class ViewCache(Generic[P]):
    """Plans kept per view object (and a key: the game class, its spec...), the last
    ``size`` of them: a search draws many worlds of one view in a row, and a view is never
    changed once made. A view that is gone is never matched (its entry is a weak reference).
    """

    def __init__(self, size: int = 1) -> None:
        self.size = size
        self._kept: list[tuple[weakref.ref[SeatView], Hashable, P]] = []

    def get(self, view: SeatView, key: Hashable, make: Callable[[], P]) -> P:
        """The plan kept for ``view`` and ``key``, else ``make()`` (then kept)."""
        for i, (ref, known, plan) in enumerate(self._kept):
            if ref() is view and known == key:
                if i:
                    self._kept.insert(0, self._kept.pop(i))
                return plan
        plan = make()
        self._kept.insert(0, (weakref.ref(view), key, plan))
        del self._kept[self.size :]
        return plan


def seen_log(view: SeatView) -> list[Event]:
    """The seat's events at their seqs; those it never saw as empty :data:`HIDDEN` events."""
    seen = {e.seq: e for e in view.history}
    size = max(seen, default=-1) + 1
    return [seen.get(q) or Event(q, HIDDEN, frozenset()) for q in range(size)]


class Reseeded(Protocol):
    """A world with a random source of its own (every game state)."""

    seed: int
    rng: random.Random


W = TypeVar("W", bound=Reseeded)


def reseed(world: W, rng: random.Random) -> W:
    """The world with a seed of its own from ``rng`` (its future deals differ per world)."""
    world.seed = rng.getrandbits(63)
    world.rng = random.Random(world.seed)
    return world


S = TypeVar("S")


def copy_state(state: S) -> S:
    """A copy whose containers, and the containers in them, are its own (events, cards and
    rules are immutable and shared): what each world of one prototype needs, far cheaper
    than a deep copy."""
    other = copy.copy(state)
    for name, value in vars(state).items():
        if isinstance(value, list):
            nested = value and isinstance(value[0], (list, dict, set))  # hands, not the log
            setattr(other, name, [_copy_one(v) for v in value] if nested else list(value))
        elif isinstance(value, (dict, set)):
            setattr(other, name, _copy_one(value))
    return other


def _copy_one(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, set):
        return set(value)
    return value
