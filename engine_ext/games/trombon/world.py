"""Trombon worlds rebuilt from one seat's view: the hidden cards, and with ``count_lies`` the
hidden sizes, that :meth:`TrombonState.from_view` deals.

What the seat knows, replaying its history:

* its own hand, and the cards it put into the pile (its private ``laid`` events): those lie
  in the pile until a call hands the pile to someone;
* the cards a call turned up, and every card of a pile it took itself (``took``);
* who took each pile: whatever was known to be in the pile is now in the taker's hand, and
  a card known to be in a hand may be in the pile again once that seat has played.

Each such card is a *token* with the set of places it may be in (a hand, or the pile); the
true place is always in the set. With ``count_lies`` off every size is in the view. With it
on the sizes are hidden: they are estimated by replaying the plays, each taken to hold its
declared count (at least one card, and all of a hand that went out), then made to fit the
cards there are, never below what the view proves (one card per play of the round in the
pile, one card in the hand of a seat still in).

>>> from levata.engine import game
>>> state = game("trombon").new_match(players=3, seed=4)
>>> view = state.view(1)
>>> world = game("trombon").world_from_view(view, random.Random(0))
>>> world.view(1) == view, world.legal_actions(1) == state.legal_actions(1)
(True, True)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, NamedTuple

from levata.engine import events
from levata.engine import fields as declared
from levata.engine.cards import Card, french_deck
from levata.engine.contract import Event, SeatView
from levata.engine.games.trombon.playout import RankSim, laid_this_round
from levata.engine.worlds import ViewCache, seen_log

if TYPE_CHECKING:
    from levata.engine.games.trombon import TrombonState

__all__ = [
    "PILE",
    "Dealt",
    "Hidden",
    "HistoryReader",
    "Knowledge",
    "RankDealer",
    "read_history",
    "rebuild",
    "remember",
]

#: The pile's number among the places (seats are 0..N-1).
PILE = -1
STAGED = -2

#: What the last views' histories say (a search rebuilds many worlds from one view; the
#: knowledge is only read once made).
_KNOWN: ViewCache[Knowledge] = ViewCache(size=2)


@dataclass
class Knowledge:
    """What a seat's history says of the hidden cards: tokens (card, places it may be in),
    the estimated size of every place, and the last play's estimated count."""

    tokens: list[tuple[Card, set[int]]] = field(default_factory=list)
    sizes: dict[int, int] = field(default_factory=dict)
    last_count: int = 0
    last_mine: list[Card] = field(default_factory=list)  # the last play, when it was ours
    round_others: int = 0  # plays of the other seats in this round
    untaken: int = 0  # the deal's remainder, while no pile has been taken


def read_history(view: SeatView) -> Knowledge:
    """Replay ``view``'s history into :class:`Knowledge`.

    >>> from levata.engine import game
    >>> s = game("trombon").new_match(players=3, seed=1)
    >>> read_history(s.view(0)).sizes
    {0: 17, 1: 17, 2: 17, -1: 1}
    """
    replay = _Replay(view.seat, view.players)
    replay.feed(view.history)
    return replay.knowledge(copy=False)


def remember(view: SeatView, reader: HistoryReader) -> Knowledge:
    """What ``view`` says, read by ``reader`` (only the events new to it) and kept for the
    worlds rebuilt from ``view`` next: a searching bot reads each view once, not the whole
    history again at each decision."""
    return _KNOWN.get(view, "trombon", lambda: reader.read(view))


class HistoryReader:
    """:func:`read_history` for a bot that reads its views one after another: it replays only
    the events new since the last view (the whole history when it is not a continuation).

    >>> from levata.engine import game
    >>> s = game("trombon").new_match(players=3, seed=1)
    >>> reader = HistoryReader()
    >>> reader.read(s.view(0)).sizes == read_history(s.view(0)).sizes
    True
    """

    def __init__(self) -> None:
        self._replay: _Replay | None = None
        self._last: Event | None = None
        self._seen = 0

    def read(self, view: SeatView) -> Knowledge:
        history = view.history
        replay = self._replay
        if (
            replay is None
            or replay.me != view.seat
            or len(history) < self._seen
            or (self._seen and history[self._seen - 1] != self._last)
        ):
            replay = self._replay = _Replay(view.seat, view.players)
            self._seen = 0
        replay.feed(history[self._seen :])
        self._seen = len(history)
        self._last = history[-1] if history else None
        return replay.knowledge(copy=True)


class _Replay:
    """The walk over one seat's history: a method per event kind."""

    def __init__(self, me: int, players: int) -> None:
        self.me, self.n = me, players
        # Sizes start at zero and are refitted when no deal is told (a position read back).
        self.know = Knowledge(sizes={**{s: 0 for s in range(players)}, PILE: 0})
        self.laid: list[Card] = []
        self.handlers: dict[str, Callable[[Event], None]] = {
            events.DEAL: self.deal,
            events.POSITION: self.deal,
            "laid": self.lay,
            events.PLAY: self.play,
            "call": self.call,
            "took": self.took,
            events.FINISH: self.finish,
        }

    def feed(self, history: Sequence[Event]) -> None:
        for ev in history:
            handler = self.handlers.get(ev.kind)
            if handler is not None:
                handler(ev)

    def knowledge(self, copy: bool) -> Knowledge:
        """What the replay knows so far (``copy``: leaving the replay free to go on)."""
        know = self.know
        if copy:
            know = Knowledge(
                [(c, set(w)) for c, w in know.tokens],
                dict(know.sizes),
                know.last_count,
                list(know.last_mine),
                know.round_others,
                know.untaken,
            )
        # Our own hand is exact; tokens that can only be ours are in it.
        know.tokens[:] = [(c, w) for c, w in know.tokens if w != {self.me}]
        for _, where in know.tokens:
            where.discard(self.me)
        return know

    def deal(self, ev: Event) -> None:
        hands = ev.data["hands"] if "hands" in ev.data else [ev.data["hand"]] * self.n
        for s in range(self.n):
            self.know.sizes[s] = hands[s]
        self.know.sizes[PILE] = self.know.untaken = ev.data["pile"]

    def lay(self, ev: Event) -> None:
        self.laid = list(ev.cards)
        for c in self.laid:  # the copy we held, if a token followed it to us, is this one
            _drop(self.know.tokens, c, self.me)
        self.know.tokens.extend((c, {PILE}) for c in self.laid)

    def play(self, ev: Event) -> None:
        know, sizes, x = self.know, self.know.sizes, ev.seat
        assert x is not None
        if x == self.me:
            k = len(self.laid)
            know.last_mine = self.laid
        else:
            if "true_count" in ev.data:
                k = ev.data["true_count"]
            elif ev.data["out"]:
                k = sizes[x]
            else:  # the declared count, but it kept a card
                k = max(1, min(ev.data["count"], sizes[x] - 1))
            know.round_others += 1
            know.last_mine = []
            for _, where in know.tokens:  # a card it held may be what it just played
                if x in where:
                    where.add(PILE)
        know.last_count = k
        sizes[x] = max(0, sizes[x] - k)
        sizes[PILE] += k

    def call(self, ev: Event) -> None:
        know, tokens, taker = self.know, self.know.tokens, ev.data["taker"]
        for c in ev.cards:  # turned up: known to go to the taker
            i = next((i for i, (d, w) in enumerate(tokens) if d == c and PILE in w), None)
            if i is None:
                tokens.append((c, {taker}))
            else:
                tokens[i] = (c, {taker})
        for _, where in tokens:
            if PILE in where:
                where.discard(PILE)
                where.add(taker)
        know.sizes[taker] += ev.data.get("pile", know.sizes[PILE])
        know.sizes[PILE] = know.untaken = 0
        know.round_others = know.last_count = 0
        know.last_mine = []

    def took(self, ev: Event) -> None:
        for c in ev.cards:  # in our hand now: known exactly, no token needed
            _drop(self.know.tokens, c, self.me)

    def finish(self, ev: Event) -> None:
        self.know.sizes[ev.seat] = 0  # type: ignore[index]


def _drop(tokens: list[tuple[Card, set[int]]], card: Card, me: int) -> None:
    """Forget one token of ``card``: the one that may be with us, else the oldest."""
    found = [i for i, (c, _) in enumerate(tokens) if c == card]
    if found:
        ours = [i for i in found if me in tokens[i][1]]
        del tokens[(ours or found)[0]]


def rebuild(state: TrombonState, view: SeatView, rng: random.Random) -> None:
    """Set every part of ``state`` (configured, nothing else) to a world of ``view``."""
    from levata.engine.games.trombon import PASS, WINDOW

    n = view.players
    dealt = Hidden.of(view, state.deck(), state.count_lies).deal(rng)
    state.hands = dealt.hands
    state.pile = dealt.pile
    state.staged = dealt.staged
    state.shown_cards = []
    state._settle()
    declared.restore(state.FIELDS, state, view.counters, view.facts, n)
    state.phase = view.phase
    state.last_cards = dealt.last
    state.submissions = [None] * n
    if view.phase == WINDOW:
        state._restore_submissions(view.to_act, PASS)
    else:
        state._waiting = ()
    state._log = seen_log(view)
    state.rng = random.Random(rng.getrandbits(64))


class Dealt(NamedTuple):
    """The cards of one world: every hand, the pile (bottom first), the last play's cards on
    its top and the cards staged by the seat to play."""

    hands: list[list[Card]]
    pile: list[Card]
    last: list[Card]
    staged: list[Card]


@dataclass
class _Pins:
    """The hidden cards a token pins to a place (``fixed``), and the rest to deal: those
    with a set of places (``loose``: the card and the places, sorted) and the others
    (``free``), each in the order the deal draws them in."""

    fixed: dict[int, list[Card]]
    loose: list[tuple[Card, tuple[int, ...]]]
    free: list[Card]
    below: list[Card]  # the pile's known cards under the last play, when it was ours


class Hidden:
    """What every world of one view shares (the cards not seen and what the history says of
    them), and :meth:`deal`, the cards of one world drawn from ``rng``. Kept per view: a
    search deals many worlds of one view, and the tokens' pins are worked out once for every
    set of sizes that can change them.

    >>> from levata.engine import game
    >>> state = game("trombon").new_match(players=3, seed=4)
    >>> dealt = Hidden.of(state.view(1), state.deck(), True).deal(random.Random(0))
    >>> [len(h) for h in dealt.hands], len(dealt.pile)
    ([17, 17, 17], 1)
    """

    def __init__(self, view: SeatView, deck: list[Card], count_lies: bool) -> None:
        self.me, self.n = view.seat, view.players
        self.know = _KNOWN.get(view, "trombon", lambda: read_history(view))  # read once
        self.mine = list(view.hand)
        self.staged_mine = list(view.zones.get("staged", ()))
        pool = Counter(deck)
        pool.subtract(self.mine)
        pool.subtract(self.staged_mine)
        self.hidden = list(pool.elements())
        finished = set(view.facts["finished"])
        pending = view.facts["pending_out"]
        self.actor = view.counters["actor"]
        self.others = [
            s for s in range(self.n) if s != self.me and s not in finished and s != pending
        ]
        self.places = [*self.others, PILE]
        self.in_round = bool(view.facts["round_plays"])
        self.sizes: dict[int, int] | None = None  # None: estimated world by world
        if not count_lies:
            self.sizes = {s: view.counts[f"hand:{s}"] for s in self.others}
            self.sizes[PILE] = view.counts["pile"]
            if self.actor != self.me and self.actor >= 0 and view.counts.get("staged", 0):
                self.sizes[STAGED] = view.counts["staged"]
                self.places.append(STAGED)
        # A place's size changes its pins only up to the tokens that name it alone.
        named = [w & set(self.places) for _, w in self.know.tokens]
        alone = Counter(next(iter(w)) for w in named if len(w) == 1)
        self._alone = {p: alone[p] for p in self.places}
        self._pins: dict[tuple[int, ...], _Pins] = {}

    @classmethod
    def of(cls, view: SeatView, deck: list[Card], count_lies: bool) -> Hidden:
        """The one kept for ``view`` (made on first use)."""
        return _HIDDEN.get(view, (len(deck), count_lies), lambda: cls(view, deck, count_lies))

    def deal(self, rng: random.Random) -> Dealt:
        """The cards of one world: the sizes (estimated with ``count_lies``), the tokens'
        pins, the rest dealt."""
        if self.sizes is None:
            sizes = _fit_sizes(self.know, self.others, len(self.hidden), rng)
        else:
            sizes = self.sizes
        pins = self.pins(sizes)
        room = {p: sizes[p] - len(pins.fixed[p]) for p in self.places}
        dealt = _deal(pins.loose, pins.free, room, rng)
        hands: list[list[Card]] = [[] for _ in range(self.n)]
        hands[self.me] = list(self.mine)
        for s in self.others:
            hands[s] = pins.fixed[s] + dealt[s]
        last_mine = self.know.last_mine
        known = pins.below if last_mine else pins.fixed[PILE]
        pile, last = _pile(known, dealt[PILE], last_mine, self.know.last_count, self.in_round, rng)
        if self.actor == self.me:
            staged = list(self.staged_mine)
        else:
            staged = pins.fixed.get(STAGED, []) + dealt.get(STAGED, [])
        return Dealt(hands, pile, last, staged)

    def pins(self, sizes: dict[int, int]) -> _Pins:
        """The pins under ``sizes`` (worked out once for each set of sizes that changes
        them)."""
        key = tuple(min(sizes[p], self._alone[p]) for p in self.places)
        pins = self._pins.get(key)
        if pins is None:
            pins = self._pins[key] = _pin(self.know, self.hidden, sizes)
        return pins


#: The hidden cards of the last views (a search deals many worlds of one view in a row).
_HIDDEN: ViewCache[Hidden] = ViewCache(size=2)


class RankDealer:
    """The search's worlds of one view by counts of ranks: ``deal(rng)`` is
    ``RankSim.of(world_from_view(view, rng))``, the same cards from the same draws (``rng``
    left where that leaves it), without building the state (its events, views and fields).

    >>> from levata.engine import game
    >>> state = game("trombon").new_match(players=3, seed=4)
    >>> view = state.view(1)
    >>> a, b = random.Random(7), random.Random(7)
    >>> sim = RankDealer(view).deal(a)
    >>> sim.fields() == RankSim.of(game("trombon").world_from_view(view, b)).fields()
    True
    >>> a.random() == b.random()
    True
    """

    def __init__(self, view: SeatView) -> None:
        from levata.engine.games.trombon import TrombonState, deck_count

        decks = deck_count(view.players)
        count_lies = bool(view.options["count_lies"])
        self.hidden = Hidden.of(view, list(french_deck()) * decks, count_lies)
        # What the view tells of the table (all but the cards), read as a world reads it.
        self.table = SimpleNamespace(
            players=view.players, decks=decks, phase=view.phase, count_lies=count_lies
        )
        declared.restore(TrombonState.FIELDS, self.table, view.counters, view.facts, view.players)
        # Our cards in the pile this round, as a world's log tells them: read once per view.
        self.laid = laid_this_round(view.history, view.players)

    def deal(self, rng: random.Random) -> RankSim:
        """One world, drawn as :meth:`TrombonState.from_view` draws it."""
        rng.getrandbits(32)  # the world's seed there: the draws after it stay in step
        dealt = self.hidden.deal(rng)
        rng.getrandbits(64)  # and the world's own random source
        table = self.table
        table.hands, table.pile, table.staged = dealt.hands, dealt.pile, dealt.staged
        table.last_cards = dealt.last
        return RankSim.of(table, self.laid)


def _pile(
    known: list[Card],
    rest: list[Card],
    mine: Sequence[Card],
    last_count: int,
    in_round: bool,
    rng: random.Random,
) -> tuple[list[Card], list[Card]]:
    """The pile, bottom first, and the last play's cards on its top: ours (``mine``, then
    ``known`` holds the pile's other known cards), or as many of the unknown cards
    (``rest``) as the play is estimated to hold (``last_count``)."""
    rng.shuffle(rest)
    if mine:
        return known + rest + list(mine), list(mine)
    pile = known + rest
    k = max(1, min(last_count, len(rest) or len(pile)))
    return pile, (pile[len(pile) - k :] if in_round else [])


def _pin(know: Knowledge, hidden: list[Card], sizes: dict[int, int]) -> _Pins:
    """The hidden cards by place: those a token pins (``fixed``), and the rest to deal."""
    # Tokens: cards known to be somewhere (the true place is always in the set).
    left = Counter(hidden)
    fixed: dict[int, list[Card]] = {p: [] for p in sizes}
    loose: dict[Card, set[int]] = {}
    for card, where in reversed(know.tokens):  # the latest news of a card first
        where = {p for p in where if p in sizes}
        if not where or left[card] <= 0:
            continue
        if len(where) == 1:
            p = next(iter(where))
            if len(fixed[p]) < sizes[p]:
                fixed[p].append(card)
                left[card] -= 1
        else:
            loose.setdefault(card, set()).update(where)
    below = Counter(fixed[PILE])
    below.subtract(know.last_mine)
    return _Pins(
        fixed,
        [(c, tuple(sorted(loose[c]))) for c in left.elements() if c in loose],
        [c for c in left.elements() if c not in loose],
        list(below.elements()),
    )


def _fit_sizes(
    know: Knowledge, others: list[int], total: int, rng: random.Random
) -> dict[int, int]:
    """The estimated sizes made to hold exactly ``total`` cards, each at least what the view
    proves: a card in the hand of each seat still in, one per play of the round (and the
    untaken remainder) in the pile, and every card pinned there by a token."""
    pinned = Counter(next(iter(w)) for _, w in know.tokens if len(w) == 1)
    least = {s: max(1, pinned[s]) for s in others}
    least[PILE] = know.round_others + know.untaken + pinned[PILE]
    sizes = {p: max(know.sizes.get(p, 0), least[p]) for p in least}
    diff = total - sum(sizes.values())
    places = list(sizes)
    while diff > 0:  # more cards than the estimate: spread them by the sizes
        p = rng.choices(places, weights=[sizes[q] + 1 for q in places])[0]
        sizes[p] += 1
        diff -= 1
    while diff < 0:  # fewer: take from those furthest above what is proven
        p = max(places, key=lambda q: (sizes[q] - least[q], rng.random()))
        if sizes[p] <= least[p]:
            break
        sizes[p] -= 1
        diff += 1
    return sizes


def _deal(
    loose: list[tuple[Card, tuple[int, ...]]],
    free: list[Card],
    room: dict[int, int],
    rng: random.Random,
) -> dict[int, list[Card]]:
    """Deal the cards into places with ``room``: a card with a known set of places
    (``loose``) to one of them with room left, chosen at random (anywhere when none has
    room: the sizes are estimates), then the rest (``free``) shuffled into what is left.
    Greedy, so quick at every size; not exactly uniform where sets overlap."""
    out: dict[int, list[Card]] = {p: [] for p in room}
    left = dict(room)
    rest: list[Card] = []
    constrained = list(loose)
    rng.shuffle(constrained)
    for card, where in constrained:
        fits = [p for p in where if left.get(p, 0) > 0]
        if not fits:
            rest.append(card)
            continue
        p = rng.choice(fits)
        out[p].append(card)
        left[p] -= 1
    rest += free
    rng.shuffle(rest)
    at = 0
    for p in room:
        out[p] += rest[at : at + left[p]]
        at += left[p]
    return out
