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
game's narrowing hooks (those it shares with 8-5-3, the deal, the requests and the burial,
are the Surpriza family's: :mod:`levata.engine.family.surpriza`); the match class inherits them.

**A match read from a position** has no history of the session before it, only the view: the
seat's hand, the Surpriza cards turned up, its counts, and the session's public plan with how
far it has gone (``requests``, ``perechiute``, ``finals``, ``step``, ``declared``). What
went before the position is then replayed from that plan, each move as one the seat did not
see (it does not remember its own part either):

* before the Surpriza is turned up, every unseen card is in another hand or the Surpriza (the
  penalty exchanges move cards between hands nobody knew);
* once it is, its cards went to the Declarant, and each Perechiuța shown was in its holder's
  hand;
* each Perechiuța request made: a card of the offered suit may have gone either way between
  holder and target, never a trump (no offer in trump, and the answer is of the offered
  suit), nor a Surpriza card that has never had a chance to leave the Declarant when the
  Declarant is asked (it is protected);
* each Final Exchange made: any card may have moved one participant on;
* the Gunoi begun: any card the Declarant may hold may be buried (the Declarant sees it).

The events since the position then narrow as above. The one thing no view says, with a
history or without, is which card another seat committed to a Final Exchange in progress:
a world picks one of its cards.

>>> import random
>>> from levata.engine import game
>>> state = game("banking").new_match(players=4, options={"previous": "2,-1,1,-2"}, seed=2)
>>> world = game("banking").world_from_view(state.view(1), random.Random(0))
>>> world.view(1) == state.view(1)
True
>>> again = game("banking").from_position(state.position())  # no history: the plan's moves
>>> game("banking").world_from_view(again.view(1), random.Random(0)).view(1) == again.view(1)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.family.surpriza import SurprizaGame
from levata.engine.games.banking import rules as br
from levata.engine.worlds import PlaceSets

__all__ = ["BankingWorlds"]


class BankingWorlds(SurprizaGame):
    """The world-rebuilding half of a Banking match: its places are the seats' hands,
    ``N`` the face-down Surpriza and ``N + 1`` the Gunoi (see the module's rules); the
    Surpriza family's hooks narrow what the two games share, the taker being ``K``."""

    turned: list[Card]
    gunoi: list[Card]
    protected: set[Card]
    committed: dict[int, Card]
    step: int
    declared: list[tuple[int, int]]
    asks: list[tuple[int, int, int]]
    finals: list[int]

    def _places_at_position(self, view: SeatView) -> list[int]:
        # The Surpriza is a place while it lay face down when the position was written.
        return [] if _before_position(self, view).turned else [self.players]

    def _narrow_position(self, view: SeatView, sets: PlaceSets) -> None:
        n, k = self.players, self.taker
        before = _before_position(self, view)
        if not before.turned:  # every unseen card is in another hand or the Surpriza
            return
        for c in self.turned:
            if sets.options(c):  # not played yet
                sets.put(c, k)
        for holder, rank in before.declared:
            for c in self.deck:
                if c.rank == rank and sets.options(c):
                    sets.put(c, holder)
        for holder, target, _ in before.asks:
            self._asked_unseen(sets, holder, target)
        for q in before.finals:
            sets.spread(br.receivers([(q + i) % n for i in range(1, n)]))
        if view.seat == k:  # its own Gunoi
            for c in view.zones.get("gunoi", ()):
                sets.put(c, n + 1)
        elif before.burying:
            sets.spread({k: n + 1})  # the sizes say how many went

    def _asked_unseen(self, sets: PlaceSets, holder: int, target: int) -> None:
        """A Perechiuța request made before the position: cards of one suit, never trump, may
        have changed hands between ``holder`` and ``target``; when the Declarant is asked, a
        Surpriza card that can only be with it has never left it: it is protected."""
        k, turned, trump = self.taker, set(self.turned), self.trump
        pair = {holder, target}
        for c, o in sets.items():
            if c.suit == trump or (target == k and c in turned and o == {k}):
                continue
            if not pair.isdisjoint(o):
                o.update(pair)

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        seat, k = view.seat, self.taker
        kind, d, by = ev.kind, ev.data, ev.seat if ev.seat is not None else -1
        if kind == "surpriza":
            sets.close(self.players)
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
        else:  # the requests, the Gunoi: as every Surpriza game
            super()._narrow_places(ev, sets, view)

    def _not_held(self, ev: Event, offered: Card, back: Card | None) -> list[Card]:
        """What the target's answer tells its requester (see the module's rules, cases a, b
        and c)."""
        t, k = ev.data["target"], self.taker
        # A Perechiuța does not see the Surpriza in K's hand: nothing learnt of it.
        blind = set(self.turned) if ev.data["stage"] == "perechiuta" and t == k else set()
        suit = [c for c in self.deck if c.suit == offered.suit and c != offered and c not in blind]
        if back is None:
            return suit
        if ev.data["case"] == "a":
            return [c for c in suit if c.rank > back.rank]
        return [c for c in suit if c.rank > offered.rank or c.rank < back.rank]

    def _settle_places(
        self, view: SeatView, dealt: dict[int, list[Card]], rng: random.Random
    ) -> None:
        super()._settle_places(view, dealt, rng)
        k = self.taker
        if view.seat != k:
            # The protection is K's to see; in a world, the Surpriza K still holds.
            self.protected = {c for c in self.turned if c in self.hands[k]}
        # Who committed a Final Exchange card is public, which card is not (its own seat is
        # no longer to act, so the card it chose does not matter to a search): one of theirs.
        for s in view.facts["committed"]:
            self.committed[s] = rng.choice(sorted(self.hands[s]))


#: The phases after the Final Exchange (the session's order: :data:`SESSION` of the match).
_AFTER_FINAL = ("refuse_b", "gunoi", "play")


@dataclass(frozen=True)
class _Before:
    """What of the session went before a match was read from a position (the view shows how
    far the session is now; the events since the position say what came after it)."""

    turned: bool  # the Surpriza had been turned up into the Declarant's hand
    declared: list[tuple[int, int]]  # the Perechiuțe shown: (holder, rank)
    asks: list[tuple[int, int, int]]  # the Perechiuța requests made or waived
    finals: list[int]  # the Final Exchanges made (by qualifier)
    burying: bool  # the Declarant had begun its Gunoi


def _before_position(world: BankingWorlds, view: SeatView) -> _Before:
    """The session's plan up to the position, from the view and the events since it.

    >>> from levata.engine import game
    >>> state = game("banking").new_match(players=3, seed=1)
    >>> _before_position(state, state.view(0))
    _Before(turned=False, declared=[], asks=[], finals=[], burying=False)
    """
    start = max((i for i, e in enumerate(view.history) if e.kind == events.HAND), default=0)
    since = view.history[start + 1 :]

    def made(kinds: tuple[str, ...], stage: str | None = None) -> int:
        return sum(1 for e in since if e.kind in kinds and e.data.get("stage", stage) == stage)

    phase, step = view.phase, world.step
    asks = step if phase == "perechiuta" else len(world.asks)  # planned when they begin
    finals = step if phase == "final" else len(world.finals) if phase in _AFTER_FINAL else 0
    buried = view.counts["gunoi"] - made(("buried",))
    return _Before(
        turned=bool(world.turned) and not made(("surpriza",)),
        declared=world.declared[: len(world.declared) - made(("declare",))],
        asks=world.asks[: asks - made(("exchange", "waive"), "perechiuta")],
        finals=world.finals[: finals - made(("final",))],
        burying=buried > 0,
    )
