"""Repezita worlds rebuilt from one seat's view: the hidden cards :meth:`RepezitaState.from_view`
deals.

Every Repezita event is public; hidden are the others' hands (less the cards they picked up
face up, ``facts["known"]``) and the cards set aside. Those are dealt at random under the
hand counts and under what a *bounce* implies: a seat whose play bounced held, at that
moment, a card that landed on the pile it saw (one rank from the tick-start top, an Ace on an
empty pile; in real time, on some pile state of the race window). When no card the seat is
publicly known to have held then (a card it picked up, or one it played later) explains the
bounce, a card of those ranks is still among its hidden cards. A ``rejected`` play (tick
mode) likewise means it held a card other than an Ace. Bounces after a wrong card in the
same tick, and plays on an open start, imply nothing.

The deal is uniform over the deals that meet those constraints (whole-deal rejection); if
:data:`TRIES` shuffles all miss, each unmet constraint is first given one card of its ranks,
chosen at random, and the rest is dealt uniformly (valid, not exactly uniform). "Holds some
card of these ranks" is a constraint on a whole hand, not a set of places per card, so the
deal is this rejection, not the exact sampler's; the walk is kept per view object (a
:class:`~levata.engine.worlds.ViewCache`).

>>> from levata.engine import game
>>> from levata.engine.games.repezita import RepezitaState
>>> state = game("repezita").new_match(players=3, seed=2)
>>> view = state.view(0)
>>> world = RepezitaState.from_view(game("repezita"), view, random.Random(1))
>>> world.view(0) == view, world.legal_actions(0) == state.legal_actions(0)
(True, True)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from levata.engine import events
from levata.engine.cards import Card
from levata.engine.contract import SeatView
from levata.engine.worlds import ViewCache

__all__ = ["TRIES", "Dealt", "Skeleton", "deal", "skeleton"]

TRIES = 200
ACE = 14
ALL_RANKS = frozenset(range(2, 15))
NOT_ACE = ALL_RANKS - {ACE}


def neighbours(rank: int) -> frozenset[int]:
    """The ranks one step from ``rank`` in the cycle A-2-...-K-A.

    >>> sorted(neighbours(14)), sorted(neighbours(7))
    ([2, 13], [6, 8])
    """
    return frozenset(r for r in ALL_RANKS if (r - rank) % 13 in (1, 12))


@dataclass
class Skeleton:
    """What a view fixes, walked once: the hidden pool, its slots and the bounce needs."""

    view: SeatView
    pool: list[Card]
    sizes: dict[int | str, int]  # seat (or "aside") -> hidden cards dealt there
    needs: dict[int, list[frozenset[int]]]  # seat -> rank sets its hidden cards must each meet
    known: list[list[Card]]
    pile_states: list[tuple[int, Card | None, bool]]


#: The walks of the last few views (a search asks many worlds of one view).
_WALKS: ViewCache[Skeleton] = ViewCache(size=8)


def skeleton(view: SeatView, deck: Sequence[Card]) -> Skeleton:
    """The walk over ``view``, kept per view object (its options fix the deck)."""
    return _WALKS.get(view, None, lambda: _walk(view, deck))


def _walk(view: SeatView, deck: Sequence[Card]) -> Skeleton:  # noqa: C901, PLR0915  (see below)
    # One pass over the history as a state machine on the event kinds (as Macao's walk):
    # split, its state would travel through every helper.
    me, n = view.seat, view.players
    known = [[Card.parse(c) for c in k] for k in view.facts["known"]]
    pool = Counter(deck)
    pool.subtract(view.hand)
    pool.subtract(view.zones["pile"])
    pool.subtract(view.zones["dead"])
    for s in range(n):
        if s != me:
            pool.subtract(known[s])
    if any(v < 0 for v in pool.values()):
        raise ValueError("the view names more copies of a card than the deck holds")
    sizes: dict[int | str, int] = {
        s: view.counts[f"hand:{s}"] - len(known[s]) for s in range(n) if s != me
    }
    sizes["aside"] = view.counts["aside"]
    cards = list(pool.elements())
    if sum(sizes.values()) != len(cards):
        raise ValueError(f"{len(cards)} hidden cards for {sum(sizes.values())} hidden places")
    realtime = view.facts["mode"] == "realtime"
    race_ms = int(view.options.get("race_ms", 300))
    # Replay the pile, the open start, the race window and each seat's publicly known cards.
    pile, open_start = _start_of(view)
    states: list[tuple[int, Card | None, bool]] = [(0, None, False)]
    held: list[Counter[Card]] = [Counter() for _ in range(n)]
    top0: Card | None = None
    open0 = wrong = False
    pending: list[tuple[int, int, frozenset[int], Counter[Card]]] = []  # seat, seq, ranks, held
    plays: list[tuple[int, int, Card]] = []  # seq, seat, card

    def record(at: int) -> None:
        states.append((at, pile[-1] if pile else None, open_start))
        while len(states) > 1 and states[1][0] <= at - race_ms:
            states.pop(0)

    def window_ranks(at: int) -> frozenset[int] | None:
        opens = at - race_ms
        seen = [
            (top, flag)
            for i, (_, top, flag) in enumerate(states)
            if i + 1 == len(states) or states[i + 1][0] > opens
        ]
        out: set[int] = set()
        for top, flag in seen:
            if top is None:
                if flag:
                    return None
                out.add(ACE)
            else:
                out |= neighbours(top.rank)
        return frozenset(out)

    for ev in view.history:
        kind, seat, at = ev.kind, ev.seat, int(ev.data.get("at_ms", 0))
        if kind == "tick":
            top0, open0, wrong = (pile[-1] if pile else None), open_start, False
        elif kind == "landed" and seat is not None:
            card = ev.cards[0]
            pile.append(card)
            open_start = False
            if held[seat][card]:
                held[seat][card] -= 1
            plays.append((ev.seq, seat, card))
            if realtime:
                record(at)
        elif kind == "wrong_card" and seat is not None:
            card = ev.cards[-1]
            if held[seat][card]:
                held[seat][card] -= 1
            held[seat].update(ev.cards)
            plays.append((ev.seq, seat, card))
            pile.clear()
            wrong = True
            if realtime:
                record(at)
        elif kind == "pile_dead":
            pile.clear()
            if realtime:
                record(at)
        elif kind == "open_start":
            open_start = True
            if realtime:
                record(at)
        elif kind in ("bounced", "rejected") and seat is not None and seat != me:
            ranks: frozenset[int] | None
            if realtime:
                ranks = window_ranks(at) if kind == "bounced" else None
            elif wrong:
                ranks = None  # after a wrong card every play bounces
            elif kind == "rejected":
                ranks = NOT_ACE
            elif top0 is None:
                ranks = None if open0 else frozenset({ACE})
            else:
                ranks = neighbours(top0.rank)
            if ranks is not None:
                pending.append((seat, ev.seq, ranks, +held[seat]))
    needs: dict[int, list[frozenset[int]]] = {}
    for seat, seq, ranks, had in pending:
        if any(c.rank in ranks for c in had):
            continue
        if any(s == seat and q > seq and c.rank in ranks for q, s, c in plays):
            continue
        needs.setdefault(seat, []).append(ranks)
    if not (realtime and view.history and view.history[0].kind == events.DEAL):
        clock = view.counters["clock_ms"]
        top = view.zones["pile"][-1] if view.zones["pile"] else None
        opened = bool(view.counters["open_start"])
        states = [(clock - view.counters["idle"] if realtime else 0, top, opened)]
        if not realtime and view.history and view.history[0].kind == events.DEAL:
            states = [(0, None, False)]
    return Skeleton(view, cards, sizes, needs, known, states)


def _start_of(view: SeatView) -> tuple[list[Card], bool]:
    """The pile and the open start before the first event of the history, walked back from
    now (a position set up directly has no event that shows them)."""
    pile = list(view.zones["pile"])
    opened = bool(view.counters["open_start"])
    for ev in reversed(view.history):
        if ev.kind == "landed":
            pile.pop()
            opened = False
        elif ev.kind == "wrong_card":
            pile = list(ev.cards[:-1])
        elif ev.kind == "pile_dead":
            pile = list(ev.cards)
        elif ev.kind == "open_start":
            opened = False
    return pile, opened


def _meets(hand: Sequence[Card], needs: list[frozenset[int]]) -> bool:
    return all(any(c.rank in ranks for c in hand) for ranks in needs)


def _deal(skel: Skeleton, rng: random.Random) -> dict[int | str, list[Card]]:
    keys = list(skel.sizes)
    for attempt in range(TRIES + 1):
        cards = list(skel.pool)
        out: dict[int | str, list[Card]] = {}
        if attempt == TRIES:  # the fallback: one card for each unmet need first
            for seat, needs in skel.needs.items():
                got: list[Card] = []
                for ranks in needs:
                    if len(got) < skel.sizes[seat] and not _meets(got, [ranks]):
                        fit = [i for i, c in enumerate(cards) if c.rank in ranks]
                        if fit:
                            got.append(cards.pop(rng.choice(fit)))
                out[seat] = got
        rng.shuffle(cards)
        for k in keys:
            have = out.setdefault(k, [])
            take = skel.sizes[k] - len(have)
            have.extend(cards[:take])
            del cards[:take]
        if attempt == TRIES or all(_meets(out[s], ns) for s, ns in skel.needs.items()):
            return out
    raise AssertionError("unreachable")


@dataclass
class Dealt:
    """The hidden part of one world: every seat's hand and the cards set aside; the game
    restores the rest of its state from the view."""

    hands: list[list[Card]]
    aside: list[Card]
    known: list[list[Card]]  # per seat, the cards it is publicly known to hold
    pile_states: list[tuple[int, Card | None, bool]]  # the race window's pile states


def deal(view: SeatView, deck: Sequence[Card], rng: random.Random) -> Dealt:
    """The hidden cards of a Repezita world that ``view.seat`` cannot tell from the real one
    (see the module), dealt from ``rng``; ``deck``: the match's cards."""
    skel = skeleton(view, deck)
    dealt = _deal(skel, rng)
    me, n = view.seat, view.players
    hands = [list(view.hand) if s == me else [*skel.known[s], *dealt[s]] for s in range(n)]
    return Dealt(hands, dealt["aside"], skel.known, list(skel.pile_states))
