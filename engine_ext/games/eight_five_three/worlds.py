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
the seat saw, so the true place is always in the set; the exact
:class:`~levata.engine.sampler.Sampler` then deals the hidden cards uniformly among the deals
that respect every set and every size.

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
from typing import Any

from levata.engine import events, phases
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card
from levata.engine.contract import Event, GameSpec, GameState, SeatView
from levata.engine.family.places import PlacePlan, deal_places, plan_for, reseed
from levata.engine.family.tricks import TrickGame, _sampler, suit_of

#: An 8-5-3 match (``eight_five_three.EightFiveThreeState``, which imports this module:
#: named loosely here so that the two do not import each other).
State = Any

__all__ = ["places", "rebuild"]

HIDDEN = "hidden"  # a placeholder for an event the viewing seat never saw


def rebuild(cls: type[TrickGame], spec: GameSpec, view: SeatView, rng: random.Random) -> Any:
    """A world whose ``view(view.seat)`` is ``view``, hidden cards dealt from ``rng``."""
    plan = plan_for(cls, view, lambda: _make_plan(cls, spec, view))
    world, dealt = deal_places(plan, rng)
    n = world.players
    kitty, discards = n, n + 1
    world.kitty = dealt.get(kitty, [])
    if plan.seat != world.first:
        world.discards = dealt.get(discards, [])
    return reseed(world, rng)


def _make_plan(cls: type[TrickGame], spec: GameSpec, view: SeatView) -> PlacePlan:
    world: State = cls.__new__(cls)
    GameState.__init__(world, spec, view.players, dict(view.options), 0)
    world.phase = view.phase
    world.over = view.phase == phases.OVER
    world._restore_from_view(view)
    world._restore_card_play(view)
    world._rules_changed()
    n, seat = world.players, view.seat
    world.hands[seat] = list(view.hand)
    where = places(world, view)
    sizes = {t: view.counts[f"hand:{t}"] for t in range(n) if t != seat}
    sizes[n] = view.counts["surpriza"]
    if seat != world.first:
        sizes[n + 1] = view.counts["discards"]
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
        raise ValueError(f"8-5-3: {sum(want)} hidden places for {len(loose)} unknown cards")
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


def places(world: State, view: SeatView) -> dict[Card, set[int]]:
    """Where each card not yet played may be, for the seat of ``view``: seats ``0..N-1``,
    ``N`` the face-down Surpriza, ``N + 1`` the discards (see the module's rules)."""
    n, seat = world.players, view.seat
    kitty, discards = n, n + 1
    f = world.first
    start = max((i for i, e in enumerate(view.history) if e.kind == events.HAND), default=0)
    history = view.history[start:]
    own = list(history[0].cards) if history and history[0].kind == events.HAND else []
    others = {t for t in range(n) if t != seat} | {kitty}
    where: dict[Card, set[int]] = {c: set(others) for c in world.deck}
    for c in own:
        where[c] = {seat}

    def spread(moves: dict[int, int]) -> None:
        """Any card at ``a`` may now be at ``moves[a]``."""
        for options in where.values():
            options.update([moves[a] for a in list(options) if a in moves])

    def not_at(t: int, cards: list[Card]) -> None:
        for c in cards:
            o = where.get(c)
            if o is not None and t in o and len(o) > 1:
                o.discard(t)

    for ev in history[1:]:
        kind, d, by = ev.kind, ev.data, ev.seat if ev.seat is not None else -1
        if kind == "ask" and seat not in (by, d["target"]):
            r, t = by, d["target"]
            spread({r: t, t: r})
        elif kind == "exchanged":
            r, t = by, d["target"]
            offered = ev.cards[0]
            back = ev.cards[1] if len(ev.cards) > 1 else None
            if seat == r:
                top = back.rank if back is not None else offered.rank
                above = [c for c in world.deck if c.suit == offered.suit and c.rank > top]
                not_at(t, above)
                if back is not None:
                    where[offered], where[back] = {t}, {seat}
            else:
                where[offered] = {r} if back is None else {seat}
                if back is not None:
                    where[back] = {r}
        elif kind == "surpriza" and (ev.cards or seat != f):
            for options in where.values():
                if kitty in options:
                    options.discard(kitty)
                    options.add(f)
            for c in ev.cards:
                where[c] = {f}
        elif kind == "buried" and seat != f:
            spread({f: discards})  # the sizes say how many went
        elif kind == "discard":
            where[ev.cards[0]] = {discards}
        elif kind == events.PLAY:
            where.pop(ev.cards[0], None)
    for c in view.hand:
        where[c] = {seat}
    for card in [c for c, o in where.items() if seat in o and c not in view.hand]:
        where[card].discard(seat)
    rules = world.rules
    for t in range(n):
        void = world.voids[t]
        if void:
            not_at(t, [c for c in where if suit_of(rules, c) in void])
    return where
