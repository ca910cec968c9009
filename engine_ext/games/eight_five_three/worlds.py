"""8-5-3 worlds: a full state rebuilt from one seat's view, every hidden card where it may be.

Cards move before the first lead (the requests, the Surpriza, the discards), so a seat knows
more than its hand and the voids. Replaying its own history of the deal, each card gets the
set of **places** it may be in (a seat's hand, the face-down Surpriza, the discards):

* at the deal: its own cards are its own; every other card is in another hand or the Surpriza;
* a request it made: a swap puts the card it offered in the target's hand and tells it the
  target holds nothing of the suit above the card it got; a card that came back tells it the
  target holds nothing of the suit above the offer;
* a request it answered: the card it got was the requester's, the card it gave is there now;
* a request between two others: any card of either may now be with the other;
* the Surpriza goes to the first player F: face up (``surpriza_shown``), its cards are in F's
  hand; face down, any card that may have been in it may now be in F's hand;
* the discards: any card F may hold may have been discarded (F knows which);
* card play: played cards are gone, and a seat that showed out of a suit holds none of it.

Each rule only widens a place set by a move that may have happened, or narrows it by a fact
the seat saw, so the true place is always in the set; the trick base walks the history, and
:mod:`levata.engine.worlds` deals the hidden cards uniformly among the deals that respect
every set and every size (the exact :class:`~levata.engine.sampler.Sampler`). These are the
game's narrowing hooks; the match class inherits them.

>>> import random
>>> from levata.engine import game
>>> spec = game("eight-five-three")
>>> state = spec.new_match(players=3, options={"previous": "1,-1,0"}, seed=2)
>>> world = spec.world_from_view(state.view(1), random.Random(0))
>>> world.view(1) == state.view(1)
True
"""

from __future__ import annotations

import random

from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.family.tricks import TrickGame
from levata.engine.worlds import PlaceSets

__all__ = ["EightFiveThreeWorlds"]


class EightFiveThreeWorlds(TrickGame):
    """The world-rebuilding half of an 8-5-3 match: its places are the seats' hands, ``N``
    the face-down Surpriza and ``N + 1`` the discards (see the module's rules)."""

    first: int
    kitty: list[Card]
    discards: list[Card]

    def _places_at_deal(self) -> list[int]:
        return [self.players]  # the Surpriza

    def _places_at_position(self, view: SeatView) -> list[int]:
        n = self.players
        return [n] if view.seat == self.first else [n, n + 1]  # F sees its own discards

    def _narrow_position(self, view: SeatView, sets: PlaceSets) -> None:
        n, f = self.players, self.first
        for c in view.zones.get("surpriza", ()):  # taken up by F, or discarded since
            for p in {*range(n), n} - {f}:
                sets.not_at(p, [c])
        for c in view.zones.get("discards", ()):  # F's own
            sets.put(c, n + 1)

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        seat, f = view.seat, self.first
        kitty, discards = self.players, self.players + 1
        kind, d, by = ev.kind, ev.data, ev.seat if ev.seat is not None else -1
        if kind == "ask" and seat not in (by, d["target"]):
            sets.swap(by, d["target"])
        elif kind == "exchanged":
            r, t = by, d["target"]
            offered = ev.cards[0]
            back = ev.cards[1] if len(ev.cards) > 1 else None
            if seat == r:
                top = back.rank if back is not None else offered.rank
                sets.not_at(t, [c for c in self.deck if c.suit == offered.suit and c.rank > top])
                if back is not None:
                    sets.put(offered, t)
                    sets.put(back, seat)
            else:
                sets.put(offered, r if back is None else seat)
                if back is not None:
                    sets.put(back, r)
        elif kind == "surpriza" and (ev.cards or seat != f):
            sets.move(kitty, f)  # taken up by F, face up or not
            for c in ev.cards:
                sets.put(c, f)
        elif kind == "buried" and seat != f:
            sets.spread({f: discards})  # the sizes say how many went
        elif kind == "discard":
            sets.put(ev.cards[0], discards)

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        sizes = {self.players: view.counts["surpriza"]}
        if view.seat != self.first:
            sizes[self.players + 1] = view.counts["discards"]
        return sizes

    def _settle_places(
        self, view: SeatView, dealt: dict[int, list[Card]], rng: random.Random
    ) -> None:
        self.kitty = dealt.get(self.players, [])
        if view.seat != self.first:
            self.discards = dealt.get(self.players + 1, [])
