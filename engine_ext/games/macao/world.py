"""Macao worlds rebuilt from one seat's view: the hidden cards :meth:`MacaoState.from_view` deals.

A seat's history names every public card movement (plays, the discard, each reshuffle) and
its own private cards; what it cannot see is which cards the others drew. The hidden cards
are dealt into *slots*: one per card of every private ``hand`` or ``drawn`` event of another
seat, and one per stock card. The constraints the view implies:

* **Epochs.** After a reshuffle the new stock is a public set (the discard pile but its top),
  so a card drawn in epoch ``e`` comes from that set: cards are dealt epoch by epoch.
* **Who played it.** A card that entered the stock at epoch ``e`` and was later played by
  seat ``p`` at event ``t`` was drawn by ``p`` in that epoch, before ``t``. A card played
  straight after its draw (``play ... drawn=True``) is exactly the card of that draw.
* **Draws on a turn.** A seat that drew one card on its turn and kept it (``end_turn``), or is
  now holding it to play, drew a card that matched the top (and request); one whose turn
  then ended by itself drew a card that did not.

Per epoch the cards played later are placed first, earliest play first, each uniformly among
the free slots of its player before the play; then the slots of matching draws; the rest are
shuffled into what is left. Without a draw constraint this is exactly uniform (the
eligible slots of successive cards are nested); with one it retries from scratch when it gets
stuck, and after :data:`TRIES` failures it drops the draw constraints (a valid world, less
informed). The walk over the history is done once per view and kept (a
:class:`~levata.engine.worlds.ViewCache`). These constraints tie cards to single slots and to
the table a draw met, so the deal is this walk's own, not the exact sampler's (whose tables
count deals by how many cards each place gets: dozens of one-card slots would swamp them).
The search deals in C: :class:`~levata.engine.macao_playouts.MacaoDealer` restates
:func:`deal` draw for draw from the walk's :func:`plan`.

>>> from levata.engine import game
>>> from levata.engine.games.macao import MacaoState
>>> state = game("macao").new_match(players=3, seed=4)
>>> view = state.view(1)
>>> world = MacaoState.from_view(game("macao"), view, random.Random(0))
>>> world.view(1) == view, world.legal_actions(1) == state.legal_actions(1)
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from levata.engine import events
from levata.engine.cards import Card, french_deck
from levata.engine.contract import Event, SeatView
from levata.engine.worlds import ViewCache

__all__ = ["TRIES", "Dealt", "Plan", "Rules", "Skeleton", "deal", "plan", "skeleton"]


@dataclass(frozen=True)
class Rules:
    """What this module needs of Macao's rules, handed in by the game (no import cycle):
    the matching test, the penalty and request types, the phase of a drawn card."""

    matches: Callable[..., bool]
    pending: Callable[..., Any]
    request: Callable[..., Any]
    drawn_phase: str


#: Restarts of one epoch's deal before its draw constraints are dropped.
TRIES = 30
STOCK = -1  # a slot's owner when the slot is in the stock
_NEVER = 1 << 60  # the "seq" of a stock slot: no play ever comes after it


@dataclass
class _Slot:
    owner: int  # seat, or STOCK
    seq: int  # the private event that dealt it (stock: _NEVER)
    epoch: int
    must_match: bool | None = None  # an on-turn draw: matched the top or did not
    top: Card | None = None  # the table the draw was tested against
    request: Any = None  # the Request in force then


@dataclass
class _Epoch:
    cards: list[Card] = field(default_factory=list)  # hidden cards dealt in this epoch
    slots: list[int] = field(default_factory=list)  # indices into Skeleton.slots
    # card -> (seat, seq of its first play after it entered this epoch's stock)
    played: dict[Card, tuple[int, int]] = field(default_factory=dict)
    fixed: dict[Card, int] = field(default_factory=dict)  # card -> the one slot it fits


@dataclass
class Skeleton:
    """What a view fixes: the public log with gaps, the slots and their constraints."""

    view: SeatView
    log: list[Event | None]  # the whole log; None where another seat's private event goes
    private: list[tuple[int, str, int, list[int]]]  # (seq, kind, seat, slot indices)
    slots: list[_Slot]
    epochs: list[_Epoch]
    acquired: dict[Card, tuple[int, int]]  # own hand card -> (epoch, seq)
    epoch: int
    passed: set[int]
    drawn_slot: int | None  # another actor's drawn card now, if it holds one
    wild: bool
    rules: Rules
    plan: Plan | None = field(default=None, repr=False, compare=False)  # kept by plan()


#: The walks of the last few views (a search asks many worlds of one view).
_WALKS: ViewCache[Skeleton] = ViewCache(size=8)


def skeleton(view: SeatView, rules: Rules) -> Skeleton:
    """The walk over ``view``'s history, kept per view object."""
    return _WALKS.get(view, rules, lambda: _walk(view, rules))


def _walk(view: SeatView, rules: Rules) -> Skeleton:  # noqa: C901, PLR0915  (see below)
    # One pass over the history as a state machine on the event kinds: its dozen pieces of
    # state (slots, epochs, the request, the penalty seat...) would travel through every
    # helper if it were split.
    me, n = view.seat, view.players
    history = view.history
    if not history or history[0].kind not in (events.DEAL, events.POSITION):
        raise ValueError("a Macao world needs the view's history from the deal")
    wild = bool(view.options.get("wild_changers", False))
    length = max(history[-1].seq + 1, n + 1)  # the hand events follow the deal
    slots: list[_Slot] = []
    private: list[tuple[int, str, int, list[int]]] = []
    epochs = [_Epoch()]
    acquired: dict[Card, tuple[int, int]] = {}
    mine_by_epoch: list[list[Card]] = [[]]
    reshuffle_seq = [0]
    start = history[0]
    # The cards in the open at the start: the pile, then (a position read mid-group) the
    # group on the table, whose cards join the pile when it ends.
    table = list(start.cards)
    discard = table[: len(table) - int(start.data.get("group", 0))]
    stock_sets: list[list[Card]] = [[c for c in french_deck() if c not in set(table)]]
    request: Any = None  # the Request in force then
    penalty_seat: int | None = None  # a seat drawing a penalty it accepted
    penalty_left = 0  # cards of that penalty still to come
    on_turn: dict[int, int] = {}  # another seat's on-turn draw slot awaiting its outcome
    plays: dict[Card, list[tuple[int, int, bool]]] = {}
    last_drawn_slot: dict[int, int] = {}
    passed: set[int] = set()

    def add_private(seq: int, kind: str, seat: int, count: int) -> list[int]:
        epoch = len(epochs) - 1
        idx = list(range(len(slots), len(slots) + count))
        for _ in range(count):
            slots.append(_Slot(seat, seq, epoch))
        epochs[epoch].slots.extend(idx)
        private.append((seq, kind, seat, idx))
        return idx

    hands0 = start.data.get("hands") or []
    for s in range(n):
        if s != me:
            add_private(1 + s, events.HAND, s, hands0[s])
    expected = set(range(length))
    covered = {1 + s for s in range(n) if s != me}
    for ev in history:
        covered.add(ev.seq)
        kind, seat = ev.kind, ev.seat
        if kind not in (events.DRAW, "drawn", "reshuffle", "short"):
            penalty_seat = None
        if seat is not None and seat in on_turn and kind != "drawn":
            slot = slots[on_turn.pop(seat)]
            if kind == "end_turn" and ev.seat == seat:
                slot.must_match = True
            elif kind == events.PLAY and ev.data.get("drawn"):
                slot.must_match = None  # the play names it: a fixed card
            elif kind != events.END:
                slot.must_match = False
        elif on_turn and kind not in ("drawn",):
            for s in list(on_turn):  # another seat's event: those turns ended by themselves
                if kind != events.END:
                    slots[on_turn[s]].must_match = False
                del on_turn[s]
        if kind in (events.HAND, "drawn") and seat == me:
            for c in ev.cards:
                acquired[c] = (len(epochs) - 1, ev.seq)
                mine_by_epoch[-1].append(c)
        elif kind == events.DRAW and seat != me:
            assert seat is not None
            count = int(ev.data["count"])
            idx = add_private(ev.seq + 1, "drawn", seat, count)
            covered.add(ev.seq + 1)
            length = max(length, ev.seq + 2)
            penalty = penalty_seat == seat and penalty_left > 0
            if penalty:
                penalty_left -= count
            elif count == 1:
                on_turn[seat] = idx[0]
                slots[idx[0]].top, slots[idx[0]].request = discard[-1], request
            last_drawn_slot[seat] = idx[-1]
        elif kind == events.PLAY:
            assert seat is not None and ev.cards
            card = ev.cards[0]
            plays.setdefault(card, []).append((ev.seq, seat, bool(ev.data.get("drawn"))))
            passed.clear()
            if ev.data.get("drawn") and seat != me:
                epochs[-1].fixed[card] = last_drawn_slot[seat]
        elif kind == "done":
            discard.extend(ev.cards)
        elif kind == "reshuffle":
            stock_sets.append(discard[:-1])
            discard = discard[-1:]
            epochs.append(_Epoch())
            mine_by_epoch.append([])
            reshuffle_seq.append(ev.seq)
        elif kind == "accept":
            penalty_seat = seat
            penalty_left = int(ev.data["amount"]) if ev.data.get("penalty") == "draw" else 0
        elif kind == "request":
            request = rules.request(ev.data["request"], ev.data["value"], seat or 0, frozenset())
        elif kind == "request_over":
            request = None
        elif kind == events.PASS:
            assert seat is not None
            passed.add(seat)
    drawn_slot = None
    for s, i in on_turn.items():  # a draw with nothing after it: that seat holds it now
        if view.phase == rules.drawn_phase and view.to_act == (s,):
            slots[i].must_match = True
            drawn_slot = i
    if covered != set(range(length)) or expected - covered:
        raise ValueError("the view's history has gaps a Macao match cannot have")
    # The stock now: slots of the current epoch.
    epoch = len(epochs) - 1
    stock_idx = list(range(len(slots), len(slots) + view.counts["stock"]))
    slots.extend(_Slot(STOCK, _NEVER, epoch) for _ in stock_idx)
    epochs[epoch].slots.extend(stock_idx)
    for e, ep in enumerate(epochs):
        mine = set(mine_by_epoch[e])
        ep.cards = [c for c in stock_sets[e] if c not in mine]
        if len(ep.cards) != len(ep.slots):
            raise ValueError(f"epoch {e}: {len(ep.cards)} hidden cards for {len(ep.slots)} slots")
        fixed = {c: i for c, i in ep.fixed.items() if c in set(ep.cards)}
        ep.fixed = fixed
        for c in ep.cards:
            later = [p for p in plays.get(c, ()) if p[0] > reshuffle_seq[e]]
            if later and c not in fixed:
                ep.played[c] = (later[0][1], later[0][0])
    log: list[Event | None] = [None] * length
    for ev in history:
        log[ev.seq] = ev
    return Skeleton(
        view=view,
        log=log,
        private=private,
        slots=slots,
        epochs=epochs,
        acquired=acquired,
        epoch=epoch,
        passed=passed,
        drawn_slot=drawn_slot,
        wild=wild,
        rules=rules,
    )


def _deal_epoch(
    skel: Skeleton, ep: _Epoch, rng: random.Random, strict: bool
) -> dict[int, Card] | None:
    """One epoch's cards into its slots, or None when this attempt got stuck."""
    matches = skel.rules.matches
    slots = skel.slots
    out: dict[int, Card] = {}

    def fits(c: Card, i: int) -> bool:
        slot = slots[i]
        if not strict or slot.must_match is None or slot.top is None:
            return True
        return matches(c, slot.top, slot.request, skel.wild) == slot.must_match

    for c, i in ep.fixed.items():
        out[i] = c
    placed = set(ep.fixed)
    for c, (seat, seq) in sorted(ep.played.items(), key=lambda kv: kv[1][1]):
        free = [
            i for i in ep.slots if i not in out and slots[i].owner == seat and slots[i].seq < seq
        ]
        free = [i for i in free if fits(c, i)]
        if not free:
            return None
        out[rng.choice(free)] = c
        placed.add(c)
    rest = [c for c in ep.cards if c not in placed]
    rng.shuffle(rest)
    bound = [i for i in ep.slots if i not in out and strict and slots[i].must_match is not None]
    rng.shuffle(bound)
    for i in bound:
        options = [k for k, c in enumerate(rest) if fits(c, i)]
        if not options:
            return None
        out[i] = rest.pop(rng.choice(options))
    for i in ep.slots:
        if i not in out:
            out[i] = rest.pop()
    return out


@dataclass(frozen=True)
class Plan:
    """A walk as plain lists, for the C dealer that restates :func:`deal` draw for draw
    (:class:`~levata.engine.macao_playouts.MacaoDealer`).

    ``slots``: per slot, its owner (a seat, or :data:`STOCK`), the seq of the private event
    that dealt it, and for an on-turn draw with an outcome the cards of its epoch that meet
    that outcome (``None``: no draw constraint). ``epochs``: per epoch, its slots in
    :func:`_deal_epoch`'s order, the cards fixed to one slot, the cards played later in the
    order it places them (card, seat, seq of the play), and the rest in the order it
    shuffles them. ``stock``: the stock's slots, its top card's last. ``drawn``: the slot of
    the card another actor holds to play now (-1: none)."""

    slots: list[tuple[int, int, frozenset[Card] | None]]
    epochs: list[tuple[list[int], list[tuple[Card, int]], list[tuple[Card, int, int]], list[Card]]]
    stock: list[int]
    drawn: int


def plan(skel: Skeleton) -> Plan:
    """The walk's :class:`Plan`, made once per walk (the matching tests are the costly part)."""
    if skel.plan is None:
        skel.plan = _plan(skel)
    return skel.plan


def _plan(skel: Skeleton) -> Plan:
    matches, wild = skel.rules.matches, skel.wild
    slots: list[tuple[int, int, frozenset[Card] | None]] = []
    for slot in skel.slots:
        fits = None
        if slot.must_match is not None:  # what _deal_epoch's fits() lets into this slot
            cards = skel.epochs[slot.epoch].cards
            fits = frozenset(
                c
                for c in cards
                if slot.top is None or matches(c, slot.top, slot.request, wild) == slot.must_match
            )
        slots.append((slot.owner, slot.seq, fits))
    epochs = []
    for ep in skel.epochs:
        played = sorted(ep.played.items(), key=lambda kv: kv[1][1])
        placed = set(ep.fixed) | set(ep.played)
        epochs.append(
            (
                list(ep.slots),
                list(ep.fixed.items()),
                [(c, seat, seq) for c, (seat, seq) in played],
                [c for c in ep.cards if c not in placed],
            )
        )
    stock = [i for i in skel.epochs[skel.epoch].slots if skel.slots[i].owner == STOCK]
    drawn = -1 if skel.drawn_slot is None else skel.drawn_slot
    return Plan(slots=slots, epochs=epochs, stock=stock, drawn=drawn)


@dataclass
class Dealt:
    """The hidden part of one world: what each seat holds, the stock, and the log with every
    other seat's private event naming this world's cards; the game restores the rest of its
    state from the view."""

    hands: list[list[Card]]
    stock: list[Card]  # top card last
    log: list[Event]
    acquired: dict[Card, tuple[int, int]]  # every held card -> (epoch, seq) it was dealt
    drawn: Card | None  # the card another actor holds to play now, if any
    passed: set[int]
    epoch: int


def deal(view: SeatView, rng: random.Random, rules: Rules) -> Dealt:
    """The hidden cards of a Macao world that ``view.seat`` cannot tell from the real one
    (see the module), dealt from ``rng``."""
    skel = skeleton(view, rules)
    me, n = view.seat, view.players
    dealt: dict[int, Card] = {}
    for ep in skel.epochs:
        got = None
        for attempt in range(2 * TRIES):
            got = _deal_epoch(skel, ep, rng, strict=attempt < TRIES)
            if got is not None:
                break
        if got is None:
            raise ValueError("no deal of the hidden cards fits the view")
        dealt.update(got)
    log = list(skel.log)
    hands: list[list[Card]] = [[] for _ in range(n)]
    acq: dict[Card, tuple[int, int]] = {c: skel.acquired[c] for c in view.hand}
    for seq, kind, seat, idx in skel.private:
        cards = [dealt[i] for i in idx]
        if kind == events.HAND:
            cards.sort()
        log[seq] = Event(
            seq=seq, kind=kind, audience=frozenset({seat}), seat=seat, cards=tuple(cards)
        )
        for i in idx:
            c, ep = dealt[i], skel.epochs[skel.slots[i].epoch]
            if c not in ep.played and c not in ep.fixed:  # still held: nothing played it since
                hands[seat].append(c)
                acq[c] = (skel.slots[i].epoch, seq)
    hands[me] = list(view.hand)
    for s in range(n):
        hands[s].sort()
        if len(hands[s]) != view.counts[f"hand:{s}"]:
            raise ValueError(
                f"seat {s} would hold {len(hands[s])} cards, not {view.counts[f'hand:{s}']}"
            )
    stock_slots = [i for i in skel.epochs[skel.epoch].slots if skel.slots[i].owner == STOCK]
    drawn = dealt[skel.drawn_slot] if skel.drawn_slot is not None else None
    full: list[Event] = log  # type: ignore[assignment]  # every gap is filled above
    return Dealt(
        hands=hands,
        stock=[dealt[i] for i in stock_slots],
        log=full,
        acquired={c: acq[c] for h in hands for c in h},
        drawn=drawn,
        passed=set(skel.passed),
        epoch=skel.epoch,
    )
