"""3-5-8 worlds: a full state rebuilt from one seat's view, every hidden card where it may be.

Cards move before the first lead (the kitty swap, the draws), so a seat knows more than its
hand and the voids. Replaying its own history of the deal, each card gets the set of
**places** it may be in (a seat's hand, the face-down kitty):

* at the deal: its own cards are its own; every other card is in another hand or the kitty;
* the kitty swap: the 8-seat knows every card it swapped and the kitty it left; to the others
  any card of the 8-seat's hand may have gone to the kitty and any kitty card into its hand;
* a draw it made: the card it gave is in the opponent's hand, the card it got its own, and
  the opponent held nothing of the suit above that card (nothing of the suit at all when
  nothing moved);
* a draw it answered: the card it got is its own, the card it gave the drawer's, and the
  drawer held nothing of the suit below the card it gave;
* a draw between the two others: any card of either may now be with the other;
* card play: played cards are gone, and a seat that showed out of a suit holds none of it.

A match read from a position has no history of the deal before it. The kitty the 8-seat sees
says where its cards lie, but not which of its own cards it took from the kitty (those it may
not give back): a position written during the swaps tells the 8-seat in its ``hand`` event
(``data.from_kitty``), as its own ``swap`` events would have.

Each rule only widens a place set by a move that may have happened, or narrows it by a fact
the seat saw, so the true place is always in the set; the trick base walks the history, and
:mod:`levata.engine.worlds` deals the hidden cards uniformly among the deals that respect
every set and every size (the exact :class:`~levata.engine.sampler.Sampler`). These are the
game's narrowing hooks; the match class inherits them.

>>> import random
>>> from levata.engine import game
>>> spec = game("three-five-eight")
>>> state = spec.new_match(players=3, options={"previous": "2,-1,-1"}, seed=2)
>>> spec.world_from_view(state.view(1), random.Random(0)).view(1) == state.view(1)
True
>>> state.apply(0, state.legal_actions(0)[0])  # the 8-seat names a contract
>>> state.apply(0, state.legal_actions(0)[0])  # and swaps the first kitty card
>>> again = spec.from_position(state.position())
>>> world = spec.world_from_view(again.view(0), random.Random(0))
>>> world.legal_actions(0) == again.legal_actions(0)  # the card it took stays its own
True
"""

from __future__ import annotations

import random

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.family.tricks import TrickGame
from levata.engine.worlds import PlaceSets

__all__ = ["ThreeFiveEightWorlds"]


class ThreeFiveEightWorlds(TrickGame):
    """The world-rebuilding half of a 3-5-8 match: its places are the seats' hands and ``3``
    the face-down kitty (see the module's rules)."""

    eight: int
    kitty: list[Card]
    from_kitty: set[Card]

    def _places_at_deal(self) -> list[int]:
        return [self.players]  # the kitty

    def _show_hand(self, seat: int) -> Event:
        # A deal starts with nothing taken from the kitty: only a match read from a position
        # during the swaps opens with cards taken, which the 8-seat knows (it took them).
        if seat != self.eight or self.phase != "kitty" or not self.from_kitty:
            return super()._show_hand(seat)
        taken = [str(c) for c in sorted(self.from_kitty)]
        return self._emit(
            events.HAND, audience={seat}, seat=seat, cards=self.hands[seat], from_kitty=taken
        )

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        seat, k, kitty = view.seat, self.eight, self.players
        kind, d, by = ev.kind, ev.data, ev.seat if ev.seat is not None else -1
        if kind in ("swap", "keep") and seat == k:
            if kind == "swap":
                sets.put(ev.cards[0], seat)
                sets.put(ev.cards[1], kitty)
            else:
                sets.put(ev.cards[0], kitty)
        elif kind == "kitty_done" and seat != k:
            sets.swap(k, kitty)  # the kitty and the 8-seat's hand may have traded
        elif kind == "draw" and seat not in (by, d["opponent"]):
            sets.swap(by, d["opponent"])
        elif kind == "drawn":
            x, o = by, d["opponent"]
            if ev.cards:
                given, got = ev.cards
                sets.put(given, o)
                sets.put(got, x)
                if seat == x:
                    sets.not_at(
                        o, [c for c in self.deck if c.suit == got.suit and c.rank > got.rank]
                    )
                else:
                    sets.not_at(
                        x, [c for c in self.deck if c.suit == given.suit and c.rank < given.rank]
                    )
            elif seat == x:  # nothing moved: the opponent held none of the suit
                sets.not_at(o, [c for c in self.deck if c.suit.letter == d["suit"]])

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        # The kitty cards the 8-seat took this deal, which it may not give back: its own swaps
        # (to another seat the 8-seat's swaps are unknown, and its legal actions are not asked).
        self.from_kitty = _taken(view) if view.seat == self.eight else set()
        shown = view.zones.get("kitty")
        if shown is not None:
            for c in shown:
                sets.put(c, self.players)
            return {}
        return {self.players: view.counts["kitty"]}

    def _settle_places(
        self, view: SeatView, dealt: dict[int, list[Card]], rng: random.Random
    ) -> None:
        if "kitty" not in view.zones:
            self.kitty = sorted(dealt.get(self.players, []))


def _taken(view: SeatView) -> set[Card]:
    """The kitty cards the 8-seat has taken this deal: its own ``swap`` events, and those
    its ``hand`` event names when the match was read from a position during the swaps."""
    start = max((i for i, e in enumerate(view.history) if e.kind == events.HAND), default=0)
    since = view.history[start:]
    taken = {Card.parse(c) for c in since[0].data.get("from_kitty", ())} if since else set()
    return taken | {e.cards[0] for e in since if e.kind == "swap" and e.seat == view.seat}
