"""Banking worlds: a full state rebuilt from one seat's view, every hidden card where it may be.

Cards move before the first lead (exchanges, the Surpriza, the Final Exchange, the Gunoi), so
a seat's knowledge is more than its hand and the voids. Replaying its own history of the
session, each card gets the set of **places** it may be in (a seat's hand, the face-down
Surpriza, the Gunoi):

* at the deal: its own cards are its own; every other card is in another hand or the Surpriza;
* an exchange it took part in: the card it gave is in the target's hand (known card in a known
  hand), the card it got is its own; case (a) tells it the target held nothing of the suit
  above the card it gave back, case (b) nothing above the offered card nor below the one
  given back, case (c) nothing of the suit (the Surpriza cards aside, which a Perechiuța
  cannot see);
* an exchange between two others: any card of either may now be with the other;
* the Surpriza is turned face up into the Declarant's hand; Perechiuțe are shown in theirs;
* the Final Exchange: the card it passed is with its receiver; the others' cards may have
  moved one step on (not into its own hand: it saw the one card it got);
* the Gunoi: any card the Declarant may hold may have been buried (the Declarant knows it);
* card play: played cards are gone, and a seat that showed out of a suit holds none of it.

Each rule only ever widens a place set by a move that may have happened, or narrows it by a
fact the seat saw, so the true place is always in the set; the trick base walks the history,
and :mod:`levata.engine.worlds` deals the hidden cards uniformly among the deals that respect
every set and every size (the exact :class:`~levata.engine.sampler.Sampler`). These are the
game's narrowing hooks; the match class inherits them.

>>> import random
>>> from levata.engine import game
>>> state = game("banking").new_match(players=4, options={"previous": "2,-1,1,-2"}, seed=2)
>>> world = game("banking").world_from_view(state.view(1), random.Random(0))
>>> world.view(1) == state.view(1)
True
"""

from __future__ import annotations

import random

from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.family.tricks import TrickGame
from levata.engine.worlds import PlaceSets

__all__ = ["BankingWorlds"]


class BankingWorlds(TrickGame):
    """The world-rebuilding half of a Banking match: its places are the seats' hands,
    ``N`` the face-down Surpriza and ``N + 1`` the Gunoi (see the module's rules)."""

    turned: list[Card]
    kitty: list[Card]
    gunoi: list[Card]
    protected: set[Card]
    committed: dict[int, Card]

    @property
    def declarant(self) -> int:
        """``K``, who takes the Surpriza (the match says who)."""
        raise NotImplementedError

    def _places_at_deal(self) -> list[int]:
        return [self.players]  # the Surpriza

    def _narrow_position(self, view: SeatView, sets: PlaceSets) -> None:
        # The exchanges, Perechiuțe and Final Exchange before the position decide where the
        # cards went; a position does not carry them.
        raise NotImplementedError(
            "banking: a match read from a position has worlds from its next deal"
        )

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        seat, k = view.seat, self.declarant
        kitty, gunoi = self.players, self.players + 1
        kind, d, by = ev.kind, ev.data, ev.seat if ev.seat is not None else -1
        if kind == "exchange" and seat not in (by, d["target"]):
            sets.swap(by, d["target"])
        elif kind == "exchanged":
            self._narrow_exchanged(ev, sets, seat)
        elif kind == "surpriza":
            sets.close(kitty)
            for c in ev.cards:
                sets.put(c, k)
        elif kind == "declare":
            for c in ev.cards:
                sets.put(c, by)
        elif kind == "final":
            people = list(d["participants"])
            to = {p: people[(i + 1) % len(people)] for i, p in enumerate(people)}
            sets.spread({a: b for a, b in to.items() if seat not in (a, b)})
        elif kind == "passed":
            sets.put(ev.cards[0], seat if d["to"] == seat else d["to"])
        elif kind == "buried" and seat != k:
            sets.spread({k: gunoi})  # the sizes say how many went
        elif kind == "discard":
            sets.put(ev.cards[0], gunoi)

    def _narrow_exchanged(self, ev: Event, sets: PlaceSets, seat: int) -> None:
        """An exchange answered: what ``seat`` learns of where its cards went (see the
        module's rules, cases a, b and c)."""
        d, r, t, k = (
            ev.data,
            ev.seat if ev.seat is not None else -1,
            ev.data["target"],
            self.declarant,
        )
        offered = ev.cards[0]
        back = ev.cards[1] if len(ev.cards) > 1 else None
        if seat != r:
            sets.put(offered, r if back is None else seat)
            if back is not None:
                sets.put(back, r)
            return
        # A Perechiuța does not see the Surpriza in K's hand: nothing learnt of it.
        blind = set(self.turned) if d["stage"] == "perechiuta" and t == k else set()
        suit = [c for c in self.deck if c.suit == offered.suit and c != offered and c not in blind]
        if back is None:
            sets.put(offered, seat)
            sets.not_at(t, suit)
            return
        sets.put(offered, t)
        sets.put(back, seat)
        if d["case"] == "a":
            sets.not_at(t, [c for c in suit if c.rank > back.rank])
        else:
            sets.not_at(t, [c for c in suit if c.rank > offered.rank or c.rank < back.rank])

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        sizes = {self.players: view.counts["surpriza"]}
        if view.seat != self.declarant:
            sizes[self.players + 1] = view.counts["gunoi"]
        return sizes

    def _settle_places(
        self, view: SeatView, dealt: dict[int, list[Card]], rng: random.Random
    ) -> None:
        n, k = self.players, self.declarant
        self.kitty = dealt.get(n, [])
        if view.seat != k:
            self.gunoi = dealt.get(n + 1, [])
            # The protection is K's to see; in a world, the Surpriza K still holds.
            self.protected = {c for c in self.turned if c in self.hands[k]}
        # Who committed a Final Exchange card is public, which card is not (its own seat is
        # no longer to act, so the card it chose does not matter to a search): one of theirs.
        for s in view.facts["committed"]:
            self.committed[s] = rng.choice(sorted(self.hands[s]))
