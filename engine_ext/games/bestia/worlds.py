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
  (the overtake duty); one that had three tricks played its strongest allowed card, so it
  holds nothing stronger (the secured pot); the voids are the base's;
* the sure pot: whether a seat had to lead a master, or play a card certain to win, hangs
  on its hand then *and* on what it had seen (its own discards, unseen to this seat), so it
  is no set of places: a world is drawn again until every play of the hand by another seat
  was legal under that duty in it (:meth:`BestiaWorlds._duties_kept`): the worlds are
  uniform among the deals that fit every duty.

Every other unseen card may be anywhere the sizes allow: the other hands, the stock, the
folded hands, another seat's discards.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import Event, SeatView
from levata.engine.family.tricks import beats, duty_cards, winning_card
from levata.engine.games.bestia.rules import POT_TRICKS, secured_cards, sure_pot_cards
from levata.engine.worlds import PlaceSets

__all__ = ["MAX_DRAWS", "BestiaWorlds"]

#: Draws of one world at most until its deal fits the sure-pot duty of every play seen (a
#: world that fits none of them is kept as drawn last: never met in the tests' samples).
MAX_DRAWS = 200


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
    hands: list[list[Card]]

    if TYPE_CHECKING:  # the game's own (BestiaState)

        def unseen_by(self, seat: int) -> set[Card]: ...

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
        """The overtake duty and the secured pot: what each play shows a seat did not hold."""
        if view.phase != "play":
            return
        rules, trump = self.rules, self.rules.trump
        trick: list[Card] = []
        won = [0] * self.players
        for e in _this_hand(view):
            if e.kind == events.TRICK:
                trick = []
                if e.seat is not None:
                    won[e.seat] += 1
            elif e.kind == events.PLAY and e.seat is not None:
                card = e.cards[0]
                if trick and e.seat != view.seat:
                    best = winning_card(rules, trick)
                    led = trick[0].suit.slot
                    s = card.suit.slot
                    if not beats(rules, card, best) and s == best.suit.slot and s in (led, trump):
                        above = [c for c in sets if c.suit.slot == s and c.rank > best.rank]
                        sets.not_at(e.seat, above)
                if e.seat != view.seat and won[e.seat] >= POT_TRICKS:
                    sets.not_at(e.seat, _stronger(card, trick, trump, list(sets)))
                trick.append(card)

    def _deal_places(
        self, plan: Any, view: SeatView, rng: random.Random, evidence: Any = None
    ) -> None:
        """Deal the places (the base's draw, weighed by ``evidence`` if any) again until the
        deal fits the sure-pot duty of every play this seat saw (:data:`MAX_DRAWS` at most)."""
        deal = super()._deal_places  # type: ignore[misc]  # TrickGame's, after this mixin
        for _ in range(MAX_DRAWS):
            deal(plan, view, rng, evidence)
            if view.phase != "play" or self._duties_kept(view):
                return

    def _duties_kept(self, view: SeatView) -> bool:
        """Was every card another seat played this hand legal in this world, the sure and
        secured pots included? Each play is judged by what that seat held and had seen
        then: its hand now and the cards it played since, the cards played before, the
        turned card and its own discards."""
        rules = self.rules
        plays: list[tuple[int, Card, list[Card], int, int]] = []  # seat, card, trick, k, won
        played: list[Card] = []  # every card played this hand, in order
        trick: list[Card] = []
        won = [0] * self.players
        for e in _this_hand(view):
            if e.kind == events.TRICK:
                trick = []
                if e.seat is not None:
                    won[e.seat] += 1
            elif e.kind == events.PLAY and e.seat is not None:
                card = e.cards[0]
                if e.seat != view.seat:
                    plays.append((e.seat, card, list(trick), len(played), won[e.seat]))
                trick.append(card)
                played.append(card)
        later: dict[int, list[Card]] = {}  # per seat, the cards it played from the one judged
        unseen_now: dict[int, set[Card]] = {}
        for seat, card, on_trick, k, tricks in reversed(plays):
            mine = later.setdefault(seat, [])
            mine.append(card)
            hand = self.hands[seat] + mine
            if tricks < POT_TRICKS and tricks + len(hand) < POT_TRICKS:
                continue  # too few cards to make the pot: no duty beyond the trick's
            allowed = duty_cards(rules, hand, on_trick)
            if tricks >= POT_TRICKS:
                allowed = secured_cards(rules, allowed, tricks)
            else:
                if seat not in unseen_now:
                    unseen_now[seat] = self.unseen_by(seat)
                # unseen then: unseen now, and the cards others played since
                unseen = unseen_now[seat].union(played[k:]).difference(mine)
                allowed = sure_pot_cards(rules, hand, allowed, on_trick, tricks, unseen)
            if card not in allowed:
                return False
        return True

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


def _stronger(card: Card, trick: list[Card], trump: int | None, cards: list[Card]) -> list[Card]:
    """The cards of ``cards`` a seat with the secured pot would have played before ``card``
    (rule 4): a higher one of the suit it followed or trumped with; discarding or leading a
    plain card, every trump (it held none, or it would have played one: the voids say so
    for a discard) and every card of a higher rank.

    >>> from levata.engine.cards import parse_cards
    >>> lead = parse_cards("4b")
    >>> [str(c) for c in _stronger(parse_cards("Jb")[0], lead, 1, parse_cards("Kb 2b Kd 7s"))]
    ['Kb']
    >>> [str(c) for c in _stronger(parse_cards("7s")[0], [], 1, parse_cards("Kb 2b Kd 6s"))]
    ['Kb', 'Kd']
    """
    s = card.suit.slot
    if (trick and s == trick[0].suit.slot) or s == trump:
        return [c for c in cards if c.suit.slot == s and c.rank > card.rank]
    return [c for c in cards if c.suit.slot == trump or c.rank > card.rank]


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
