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
game's narrowing hooks (those it shares with Banking, the deal, the requests and the burial,
are the Surpriza family's: :mod:`levata.engine.family.surpriza`); the match class inherits them.

>>> import random
>>> from levata.engine import game
>>> spec = game("eight-five-three")
>>> state = spec.new_match(players=3, options={"previous": "1,-1,0"}, seed=2)
>>> world = spec.world_from_view(state.view(1), random.Random(0))
>>> world.view(1) == state.view(1)
True
"""

from __future__ import annotations

from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.family.surpriza import SurprizaGame
from levata.engine.worlds import PlaceSets

__all__ = ["EightFiveThreeWorlds"]


class EightFiveThreeWorlds(SurprizaGame):
    """The world-rebuilding half of an 8-5-3 match: its places are the seats' hands, ``N``
    the face-down Surpriza and ``N + 1`` the discards (see the module's rules); the Surpriza
    family's hooks narrow what the two games share, the taker being F."""

    first: int
    discards: list[Card]

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
        f = self.first
        if ev.kind == "surpriza" and (ev.cards or view.seat != f):
            sets.move(self.players, f)  # taken up by F, face up or not
            for c in ev.cards:
                sets.put(c, f)
        else:  # the requests, the discards: as every Surpriza game
            super()._narrow_places(ev, sets, view)

    def _not_held(self, ev: Event, offered: Card, back: Card | None) -> list[Card]:
        """The target holds nothing of the suit above the card it gave (above the offer when
        it came back)."""
        top = back.rank if back is not None else offered.rank
        return [c for c in self.deck if c.suit == offered.suit and c.rank > top]
