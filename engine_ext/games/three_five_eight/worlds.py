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

Each rule only widens a place set by a move that may have happened, or narrows it by a fact
the seat saw, so the true place is always in the set; the exact
:class:`~levata.engine.sampler.Sampler` then deals the hidden cards uniformly among the deals
that respect every set and every size.

>>> import random
>>> from levata.engine import game
>>> spec = game("three-five-eight")
>>> state = spec.new_match(players=3, options={"previous": "2,-1,-1"}, seed=2)
>>> spec.world_from_view(state.view(1), random.Random(0)).view(1) == state.view(1)
True
"""

from __future__ import annotations

import random
from typing import Any

from levata.engine import events, phases
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card
from levata.engine.contract import Event, GameSpec, GameState, SeatView
from levata.engine.family.places import PlacePlan, deal_places, plan_for, reseed
from levata.engine.family.tricks import TrickGame, _sampler, suit_of

#: A 3-5-8 match (``levata.engine.games.three_five_eight.ThreeFiveEightState``, which
#: imports this module: named loosely here so that the two do not import each other).
Match = Any

__all__ = ["places", "rebuild"]

HIDDEN = "hidden"  # a placeholder for an event the viewing seat never saw


def rebuild(cls: type[TrickGame], spec: GameSpec, view: SeatView, rng: random.Random) -> Any:
    """A world whose ``view(view.seat)`` is ``view``, hidden cards dealt from ``rng``."""
    plan = plan_for(cls, view, lambda: _make_plan(cls, spec, view))
    world, dealt = deal_places(plan, rng)
    n = world.players
    if "kitty" not in view.zones:
        world.kitty = sorted(dealt.get(n, []))
    return reseed(world, rng)


def _make_plan(cls: type[TrickGame], spec: GameSpec, view: SeatView) -> PlacePlan:
    world: Match = cls.__new__(cls)
    GameState.__init__(world, spec, view.players, dict(view.options), 0)
    world.phase = view.phase
    world.over = view.phase == phases.OVER
    world._restore_from_view(view)
    world._restore_card_play(view)
    world._rules_changed()
    n, seat = world.players, view.seat
    world.hands[seat] = list(view.hand)
    where = places(world, view)
    # The kitty cards the 8-seat took this deal, which it may not give back: its own swaps
    # (to another seat the 8-seat's swaps are unknown, and its legal actions are not asked).
    world.from_kitty = _taken(view) if seat == world.eight else set()
    sizes = {t: view.counts[f"hand:{t}"] for t in range(n) if t != seat}
    if "kitty" not in view.zones:
        sizes[n] = view.counts["kitty"]
    fixed: dict[int, list[Card]] = {}
    loose: dict[Card, set[int]] = {}
    for card, options in where.items():
        if seat in options:
            continue
        if len(options) == 1:
            fixed.setdefault(next(iter(options)), []).append(card)
        else:
            loose[card] = options
    names = [p for p in sizes if sizes[p] - len(fixed.get(p, [])) > 0]
    want = [sizes[p] - len(fixed.get(p, [])) for p in names]
    if sum(want) != len(loose):
        raise ValueError(f"3-5-8: {sum(want)} hidden places for {len(loose)} unknown cards")
    sampler = None
    if loose:
        unseen = mask_of(loose)
        allowed = [mask_of(c for c, o in loose.items() if p in o) for p in names]
        sampler = _sampler(unseen, tuple(want), tuple(allowed))
    world._log = _log(view)
    start = max((e.seq for e in view.history if e.kind == events.HAND), default=seat)
    world._hand_events = [start - seat + t for t in range(n)]
    return PlacePlan(world, seat, fixed, names, sampler)


def _log(view: SeatView) -> list[Event]:
    """The seat's events at their places; the ones it never saw as empty placeholders."""
    seen = {e.seq: e for e in view.history}
    size = max(seen, default=-1) + 1
    return [seen.get(q) or Event(q, HIDDEN, frozenset()) for q in range(size)]


def _this_deal(view: SeatView) -> tuple[Event, ...]:
    start = max((i for i, e in enumerate(view.history) if e.kind == events.HAND), default=0)
    return view.history[start:]


def _taken(view: SeatView) -> set[Card]:
    """The kitty cards the 8-seat has taken this deal (its own ``swap`` events)."""
    return {e.cards[0] for e in _this_deal(view) if e.kind == "swap" and e.seat == view.seat}


def places(world: Match, view: SeatView) -> dict[Card, set[int]]:
    """Where each card not yet played may be, for the seat of ``view``: seats ``0..2``, and
    ``3`` the face-down kitty (see the module's rules)."""
    n, seat = world.players, view.seat
    kitty, k = n, world.eight
    history = _this_deal(view)
    own = list(history[0].cards) if history and history[0].kind == events.HAND else []
    others = {t for t in range(n) if t != seat} | {kitty}
    where: dict[Card, set[int]] = {c: set(others) for c in world.deck}
    for c in own:
        where[c] = {seat}

    def not_at(t: int, cards: list[Card]) -> None:
        for c in cards:
            o = where.get(c)
            if o is not None and t in o and len(o) > 1:
                o.discard(t)

    def suit_cards(card: Card) -> list[Card]:
        return [c for c in world.deck if c.suit == card.suit]

    for ev in history[1:]:
        kind, d, by = ev.kind, ev.data, ev.seat if ev.seat is not None else -1
        if kind in ("swap", "keep") and seat == k:
            if kind == "swap":
                where[ev.cards[0]], where[ev.cards[1]] = {seat}, {kitty}
            else:
                where[ev.cards[0]] = {kitty}
        elif kind == "kitty_done" and seat != k:
            for options in where.values():  # kitty and the 8-seat's hand may have traded
                if k in options or kitty in options:
                    options.update((k, kitty))
        elif kind == "draw" and seat not in (by, d["opponent"]):
            x, o = by, d["opponent"]
            for options in where.values():
                if x in options or o in options:
                    options.update((x, o))
        elif kind == "drawn":
            x, o = by, d["opponent"]
            if ev.cards:
                given, got = ev.cards
                where[given], where[got] = {o}, {x}
                if seat == x:
                    not_at(o, [c for c in suit_cards(got) if c.rank > got.rank])
                else:
                    not_at(x, [c for c in suit_cards(given) if c.rank < given.rank])
            elif seat == x:  # nothing moved: the opponent held none of the suit
                not_at(o, [c for c in world.deck if c.suit.letter == d["suit"]])
        elif kind == events.PLAY:
            where.pop(ev.cards[0], None)
    for c in view.hand:
        where[c] = {seat}
    for c in view.zones.get("kitty", ()):
        where[c] = {kitty}
    for card in [c for c, o in where.items() if seat in o and c not in view.hand]:
        where[card].discard(seat)
    rules = world.rules
    for t in range(n):
        void = world.voids[t]
        if void:
            not_at(t, [c for c in where if suit_of(rules, c) in void])
    return where
