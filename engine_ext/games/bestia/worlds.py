"""Where Bestia's unseen cards may lie, for worlds rebuilt from one seat's view.

The trick base walks the seat's history of the hand (``levata.engine.worlds``); Bestia says
what its places are and what the seat knows of them:

* places from ``N`` (the seats are ``0..N-1``): the stock, the folded hands, the undealt
  pile (the whole deck before the deal; the cucù card until it is turned), then each seat's
  discards;
* the seat's own dealt cards: in its hand, played, or among its discards (it saw them go);
  folded, they lie in the folded hands, or once those were recycled, in the stock or in a
  participant's hand;
* the play: a seat that followed without beating the winning card of the led suit holds no
  higher card of that suit; one that trumped under a winning trump holds no higher trump
  (the overtake duty); the voids are the base's.

Every other unseen card may be anywhere the sizes allow: the other hands, the stock, the
folded hands, another seat's discards.
"""

from __future__ import annotations

import random
from typing import Any

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.family.tricks import beats, winning_card
from levata.engine.worlds import PlaceSets

__all__ = ["BestiaWorlds"]


class BestiaWorlds:
    """The narrowing hooks of :class:`~levata.engine.games.bestia.BestiaState` (a mixin)."""

    players: int
    deck: tuple[Card, ...]
    phase: str
    in_play: list[int]
    declared: list[str | None]
    recycled: bool
    trump_shown: list[Card]
    stock: list[Card]
    folded: list[Card]
    undealt: list[Card]
    discards: list[list[Card]]
    rules: Any

    # Place numbers: the stock, the folded hands, the undealt pile, each seat's discards.
    def _stock_place(self) -> int:
        return self.players

    def _places_at_deal(self) -> list[int]:
        n = self.players
        return [n, n + 1, n + 2, *(n + 3 + t for t in range(n))]

    def _places_at_position(self, view: SeatView) -> list[int]:
        # A position does not tell the seat which cards it changed away, and the duties
        # read them: no worlds until the next hand (the search bots play their fallback).
        raise NotImplementedError("bestia: no worlds of a hand read from a position")

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        """Everything is read at once in :meth:`_plan_places` (the walk's end)."""

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        n, seat = self.players, view.seat
        stock, folded, undealt = n, n + 1, n + 2
        counts = view.counts
        discards = {n + 3 + t: counts.get(f"discards:{t}", 0) for t in range(n)}
        shown = sum(len(cs) for cs in view.zones.values())
        held = sum(counts[f"hand:{t}"] for t in range(n))
        rest = len(self.deck) - shown - held - counts["stock"] - counts["folded"]
        sizes = {
            stock: counts["stock"],
            folded: counts["folded"],
            undealt: rest - sum(discards.values()),
        }
        sizes.update(discards)
        if view.phase == "variant":  # before the deal: the whole deck lies undealt
            sets.where = {c: {undealt} for c in self.deck if c not in view.hand}
            return sizes
        for c in self.trump_shown:
            sets.gone(c)
        mine = _dealt(view)
        played = {e.cards[0] for e in _this_hand(view) if e.kind == events.PLAY and e.seat == seat}
        hand = set(view.hand)
        if self.declared[seat] == "fold":
            spots = {stock, *self.in_play} if self.recycled else {folded}
            for c in mine:
                if c in sets.where:
                    sets.where[c] = set(spots)
        else:
            for c in mine:
                if c not in hand and c not in played and c in sets.where:
                    sets.put(c, n + 3 + seat)  # changed away: the seat saw it go
        self._narrow_duties(view, sets)
        return sizes

    def _narrow_duties(self, view: SeatView, sets: PlaceSets) -> None:
        """The overtake duty: what each play shows a seat did not hold."""
        if view.phase != "play":
            return
        rules, trump = self.rules, self.rules.trump
        trick: list[Card] = []
        for e in _this_hand(view):
            if e.kind == events.TRICK:
                trick = []
            elif e.kind == events.PLAY and e.seat is not None:
                card = e.cards[0]
                if trick and e.seat != view.seat:
                    best = winning_card(rules, trick)
                    led = trick[0].suit.slot
                    s = card.suit.slot
                    if not beats(rules, card, best) and s == best.suit.slot and s in (led, trump):
                        above = [c for c in sets if c.suit.slot == s and c.rank > best.rank]
                        sets.not_at(e.seat, above)
                trick.append(card)

    def _settle_places(
        self, view: SeatView, dealt: dict[int, list[Card]], rng: random.Random
    ) -> None:
        n = self.players
        self.stock = rng.sample(dealt.get(n, []), len(dealt.get(n, [])))
        self.folded = list(dealt.get(n + 1, []))
        self.undealt = rng.sample(dealt.get(n + 2, []), len(dealt.get(n + 2, [])))
        self.discards = [list(dealt.get(n + 3 + t, [])) for t in range(n)]


def _this_hand(view: SeatView) -> list[Event]:
    """The seat's events of the hand dealt last (from its ``hand`` event on)."""
    history = view.history
    for i in range(len(history) - 1, -1, -1):
        if history[i].kind == events.HAND:
            return list(history[i:])
    return []


def _dealt(view: SeatView) -> list[Card]:
    """The cards the seat was dealt this hand."""
    for e in reversed(view.history):
        if e.kind == events.HAND:
            return list(e.cards)
    return []
