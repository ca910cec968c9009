"""Where Bestia's unseen cards may lie, for worlds rebuilt from one seat's view.

The trick base walks the seat's history of the hand (``levata.engine.worlds``); Bestia says
what its places are and what the seat knows of them:

* one place from ``N`` (the seats are ``0..N-1``) for every card out of the seat's sight
  and out of play: the stock, the folded hands, the undealt pile (the whole deck before the
  deal; the cucù card until it is turned) and the discards, shared out by their counts once
  dealt;
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
    _dead_sizes: tuple[int, int, int, dict[int, int]]
    _own_out: tuple[list[Card], list[Card]]

    # One place from ``N`` for every card out of play to the seat: the stock, the folded
    # hands, the undealt pile and the discards are alike to it (none of them is ever played
    # from again but the stock, and it never sees the stock's faces), so the sampler deals
    # them as one pile and :meth:`_settle_places` shares it out by the counts.
    def _places_at_deal(self) -> list[int]:
        return [self.players]

    def _places_at_position(self, view: SeatView) -> list[int]:
        # A position does not tell the seat which cards it changed away, and the duties
        # read them: no worlds until the next hand (the search bots play their fallback).
        raise NotImplementedError("bestia: no worlds of a hand read from a position")

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        """Everything is read at once in :meth:`_plan_places` (the walk's end)."""

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        n, seat = self.players, view.seat
        dead = n
        counts = view.counts
        shown = sum(len(cs) for cs in view.zones.values())
        held = sum(counts[f"hand:{t}"] for t in range(n))
        out = {t: counts.get(f"discards:{t}", 0) for t in range(n)}
        undealt = len(self.deck) - shown - held - counts["stock"] - counts["folded"]
        undealt -= sum(out.values())
        self._dead_sizes = (counts["stock"], counts["folded"], undealt, out)
        self._own_out: tuple[list[Card], list[Card]] = ([], [])  # its discards, its folded
        if view.phase == "variant":  # before the deal: the whole deck lies undealt
            sets.where = {c: {dead} for c in self.deck}
            return {dead: len(self.deck)}
        for c in self.trump_shown:
            sets.gone(c)
        mine = _dealt(view)
        played = {e.cards[0] for e in _this_hand(view) if e.kind == events.PLAY and e.seat == seat}
        hand = set(view.hand)
        if self.declared[seat] == "fold":
            spots = {dead, *self.in_play} if self.recycled else {dead}
            for c in mine:
                if c in sets.where:
                    sets.where[c] = set(spots)
            if not self.recycled:
                self._own_out[1].extend(mine)
        else:
            for c in mine:
                if c not in hand and c not in played and c in sets.where:
                    sets.put(c, dead)  # changed away: the seat saw it go
                    self._own_out[0].append(c)
        self._narrow_duties(view, sets)
        return {dead: sum(out.values()) + counts["stock"] + counts["folded"] + undealt}

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
        """Share the pile out of play: the seat's own discards and folded hand where it saw
        them go, the rest at random by the counts."""
        n, seat = self.players, view.seat
        stock, folded, undealt, out = self._dead_sizes
        mine, my_fold = self._own_out
        known = {*mine, *my_fold}
        rest = [c for c in dealt.get(n, []) if c not in known]
        rng.shuffle(rest)
        self.discards = [[] for _ in range(n)]
        self.discards[seat] = list(mine)
        for t in range(n):
            if t != seat:
                self.discards[t], rest = rest[: out[t]], rest[out[t] :]
        self.folded = list(my_fold) + rest[: folded - len(my_fold)]
        rest = rest[folded - len(my_fold) :]
        self.stock, self.undealt = rest[:stock], rest[stock:]
        assert len(self.undealt) == undealt


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
