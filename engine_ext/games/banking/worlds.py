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
fact the seat saw, so the true place is always in the set; the exact
:class:`~levata.engine.sampler.Sampler` then deals the hidden cards uniformly among the deals
that respect every set and every size.

>>> import random
>>> from levata.engine import game
>>> state = game("banking").new_match(players=4, options={"previous": "2,-1,1,-2"}, seed=2)
>>> world = game("banking").world_from_view(state.view(1), random.Random(0))
>>> world.view(1) == state.view(1)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from levata.engine import events, phases
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card
from levata.engine.contract import Event, GameSpec, GameState, SeatView
from levata.engine.family.places import PlacePlan, deal_places, plan_for, reseed
from levata.engine.family.tricks import TrickGame, _sampler, suit_of

#: A Banking match (``levata.engine.games.banking.BankingState``, which imports this module:
#: named loosely here so that the two do not import each other).
BankingState = Any

__all__ = ["places", "rebuild"]

HIDDEN = "hidden"  # a placeholder for an event the viewing seat never saw


@dataclass
class _Plan(PlacePlan):
    pending: list[int]  # other seats that committed a Final Exchange card (which: unknown)


def rebuild(cls: type[TrickGame], spec: GameSpec, view: SeatView, rng: random.Random) -> Any:
    """A world whose ``view(view.seat)`` is ``view``, hidden cards dealt from ``rng``."""
    plan = plan_for(cls, view, lambda: _make_plan(cls, spec, view))
    world, dealt = deal_places(plan, rng)
    n = world.players
    kitty, gunoi = n, n + 1
    world.kitty = dealt.get(kitty, [])
    if plan.seat != world.declarant:
        world.gunoi = dealt.get(gunoi, [])
    k = world.declarant
    if plan.seat != k:  # the protection is K's to see; in a world, the Surpriza K still holds
        world.protected = {c for c in world.turned if c in world.hands[k]}
    for s in plan.pending:  # committed others: some card of theirs
        world.committed[s] = rng.choice(sorted(world.hands[s]))
    return reseed(world, rng)


def _make_plan(cls: type[TrickGame], spec: GameSpec, view: SeatView) -> _Plan:
    world: BankingState = cls.__new__(cls)
    GameState.__init__(world, spec, view.players, dict(view.options), 0)
    world.phase = view.phase
    world.over = view.phase == phases.OVER
    world._restore_from_view(view)
    world._restore_card_play(view)
    world._rules_changed()
    n, seat = world.players, view.seat
    world.hands[seat] = list(view.hand)
    # Who committed a Final Exchange card is public, which card is not (its own seat is no
    # longer to act, so the card it chose does not matter to a search): one of theirs.
    pending = list(view.facts["committed"])
    where = places(world, view)
    sizes = {t: view.counts[f"hand:{t}"] for t in range(n) if t != seat}
    sizes[n] = view.counts["surpriza"]
    if seat != world.declarant:
        sizes[n + 1] = view.counts["gunoi"]
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
        raise ValueError(f"banking: {sum(want)} hidden places for {len(loose)} unknown cards")
    sampler = None
    if loose:
        unseen = mask_of(loose)
        allowed = [mask_of(c for c, o in loose.items() if p in o) for p in names]
        sampler = _sampler(unseen, tuple(want), tuple(allowed))
    world._log = _log(view)
    start = max((e.seq for e in view.history if e.kind == events.HAND), default=seat)
    world._hand_events = [start - seat + t for t in range(n)]
    return _Plan(world, seat, fixed, names, sampler, pending)


def _log(view: SeatView) -> list[Event]:
    """The seat's events at their places; the ones it never saw as empty placeholders."""
    seen = {e.seq: e for e in view.history}
    size = max(seen, default=-1) + 1
    return [seen.get(q) or Event(q, HIDDEN, frozenset()) for q in range(size)]


def places(world: BankingState, view: SeatView) -> dict[Card, set[int]]:
    """Where each card not yet played may be, for the seat of ``view``: seats ``0..N-1``,
    ``N`` the face-down Surpriza, ``N + 1`` the Gunoi (see the module's rules)."""
    n, seat = world.players, view.seat
    kitty, gunoi = n, n + 1
    k = world.declarant
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
        if kind == "exchange" and seat not in (by, d["target"]):
            r, t = by, d["target"]
            spread({r: t, t: r})
        elif kind == "exchanged":
            r, t = by, d["target"]
            offered = ev.cards[0]
            back = ev.cards[1] if len(ev.cards) > 1 else None
            if seat == r:
                # A Perechiuța does not see the Surpriza in K's hand: nothing learnt of it.
                blind = set(world.turned) if d["stage"] == "perechiuta" and t == k else set()
                suit = [
                    c
                    for c in world.deck
                    if c.suit == offered.suit and c != offered and c not in blind
                ]
                if back is None:
                    where[offered] = {seat}
                    not_at(t, suit)
                else:
                    where[offered], where[back] = {t}, {seat}
                    if d["case"] == "a":
                        not_at(t, [c for c in suit if c.rank > back.rank])
                    else:
                        not_at(t, [c for c in suit if c.rank > offered.rank or c.rank < back.rank])
            else:
                where[offered] = {r} if back is None else {seat}
                if back is not None:
                    where[back] = {r}
        elif kind == "surpriza":
            for options in where.values():
                options.discard(kitty)
            for c in ev.cards:
                where[c] = {k}
        elif kind == "declare":
            for c in ev.cards:
                where[c] = {by}
        elif kind == "final":
            people = list(d["participants"])
            to = {p: people[(i + 1) % len(people)] for i, p in enumerate(people)}
            spread({a: b for a, b in to.items() if seat not in (a, b)})
        elif kind == "passed":
            where[ev.cards[0]] = {seat} if d["to"] == seat else {d["to"]}
        elif kind == "buried" and seat != k:
            spread({k: gunoi})  # the sizes say how many went
        elif kind == "discard":
            where[ev.cards[0]] = {gunoi}
        elif kind == events.PLAY:
            where.pop(ev.cards[0], None)
    for c in view.hand:
        where[c] = {seat}
    for options_card in [c for c, o in where.items() if seat in o and c not in view.hand]:
        where[options_card].discard(seat)
    rules = world.rules
    for t in range(n):
        void = world.voids[t]
        if void:
            not_at(t, [c for c in where if suit_of(rules, c) in void])
    return where
