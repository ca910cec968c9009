"""Toci: build the common house A..K and round again, and unload your pile before the others
(rules: ``docs/games/toci.md``; the [D#] marks name its decisions).

* 2-10 players, one 52-card deck for 2-5, two decks for 6-10 (option ``decks``). Nothing is
  dealt: every card starts face down in the **circle**, a common stock.
* **Circle phase.** On a turn the actor turns up the circle's top card (``reveal``, seen by
  all) and puts it on the house (``place_house``: an A on an empty house, else the house top's
  successor, K then A), or on another seat's pile (``place_on SEAT``: that pile top's
  successor), then turns up another; or onto its own pile (``place_own``), which ends the
  turn. When the circle runs out, every seat turns its pile over into a face-down stock (its
  first card on top), and a seat with no cards finishes.
* **Stock phase.** The same, turning up the top of one's own stock; an empty stock is
  refilled by turning the own pile over (``flipped``). A seat whose stock and pile are both
  empty finishes. Play goes on until at most one seat holds cards: that seat is the
  **tocit**, the loser.
* **Toci** (``toci_mode=call``, the default). After every ``place_own`` a call window opens:
  one simultaneous tick (:mod:`levata.engine.family.simultaneous`) among the actor and every
  other unfinished seat. The others submit ``toci`` or ``pass``; the actor ``pass`` or a late
  ``correct TARGET`` (house or a seat where the card fits). A ``toci`` on a card that fitted
  is valid: the card stays, the turn ends (option ``toci_penalty=skip_next_turn``: the actor
  also loses its next turn), and the first caller clockwise from the actor is named. Else a
  legal correction moves the card and the actor turns up again. A ``toci`` on a card that did
  not fit is logged as invalid and does nothing. ``toci_mode=strict`` has no window:
  ``place_own`` is legal only for a card that fits nowhere.
* **Real time** (``mode=realtime``, the referee's real-time path): actions in a window apply
  on arrival at the referee's clock, and the window stays open until the next seat turns up
  (``reveal``, the move only that seat has, in place of ``pass``; the referee's move clock
  bounds it). The first ``toci`` on a card that fitted wins at once; a ``correct`` that
  arrives before any toci is applied at once; either closes the window. A ``pass``, or a
  toci on a card that fitted nowhere, waits hidden (the seat leaves ``to_act``) for the
  window's end, which the ``window`` event tells as in ticks, stamped ``at_ms``.
* **One house per A** (``house_by_suit``, D3's variant): every A opens a house of its own and
  each house is built up in its A's suit (2 of that suit on the A, and so on to the K, which
  completes it); piles still take any suit, K then A. ``place_house`` and ``correct house``
  name no house: a card fits at most one top, or equal tops of two decks, the first opened
  then (``data.house`` says which). Fact ``houses``: each house's top, in the order opened.
* Stalemate and cap [D5]: ``max(200, 4 x cards held)`` stock-phase turns in a row with no card
  put on the house or another pile, or ``reveal_cap`` reveals, end the match; the seats still
  holding cards then rank by fewest cards, ties sharing.

Decisions beyond the spec:

* The window's resolution order (the simultaneous family's priority) is clockwise from the
  actor, the spec's order for naming the caller; the tick counter counts windows.
* The window opens after every ``place_own``, so its opening says nothing; whether the card
  fitted is published (``window`` event, ``data.fitted``) when it resolves.
* A view shows every pile whole: each of its cards was turned up before all. Stocks are shown
  by size only, as the spec says; a world rebuilt from a view replays the public history to
  know them (``world.py``).
* A seat that empties its stock and pile by a late correction finishes at once, as after any
  placement.
* Real time: the next seat's ``toci`` is also its reveal (it calls as it reaches for the
  circle), so its call always ends the window, valid or not. When the window's card was the
  circle's last, the next seat's reveal turns the piles over first; the next seat is the one
  that turns up after the actor (served skips included), even if it then finishes at the
  turn-over. Strict mode has no window, so real time changes nothing there.
* ``house_by_suit``: an A never goes on a house topped by a K of its suit (two decks): it
  opens its own. The ``house`` zone lists every house's cards in the order they were put
  there.
* Scores are ``players - rank``; the tocit has the last rank. A match where every card
  reached the house has no tocit.

>>> state = TociState.set_up(3, piles=["", "9S", "4H"], circle="10H 2C")
>>> state.view(0).zones["revealed"], [str(a) for a in state.legal_actions(0)]
((Card('10H'),), ['place_on 1', 'place_own'])
>>> state.apply(0, Action.parse("place_on 1"))
>>> state.view(0).zones["revealed"], state.view(0).zones["pile:1"]
((Card('2C'),), (Card('9S'), Card('10H')))
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from levata.engine import actions, events, phases
from levata.engine import fields as declared
from levata.engine.cards import Card, french_deck, parse_cards
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    Option,
    Result,
    SeatView,
)
from levata.engine.deal import deal_order
from levata.engine.family.simultaneous import SUBMISSIONS, Simultaneous
from levata.engine.fields import Counter as Count
from levata.engine.fields import Declared, Fact, Field, Kept, Seats
from levata.engine.games.toci.rules import HOUSE, careful_target, house_for, targets
from levata.engine.games.toci.world import replay
from levata.engine.position import Position, check_deck
from levata.engine.registry import register
from levata.engine.toci_playouts import TociDealer
from levata.engine.toci_playouts import TociPlayout as KernelPlayout
from levata.engine.vocabulary import Vocabulary
from levata.engine.zones import FACE_DOWN, Place, Zoned, described

__all__ = [
    "CIRCLE",
    "PASS",
    "PLACE_HOUSE",
    "PLACE_OWN",
    "REVEAL",
    "SPEC",
    "STOCK",
    "TOCI",
    "WINDOW",
    "TociState",
    "correct",
    "place_on",
]

#: The phases: turning up the circle, turning up one's own stock, the toci window.
CIRCLE, STOCK, WINDOW = "circle", "stock", "window"
PLACE_HOUSE_KIND, PLACE_ON_KIND, PLACE_OWN_KIND = "place_house", "place_on", "place_own"
TOCI_KIND, CORRECT_KIND, REVEAL_KIND = "toci", "correct", "reveal"
PLACE_HOUSE, PLACE_OWN, TOCI = Action(PLACE_HOUSE_KIND), Action(PLACE_OWN_KIND), Action(TOCI_KIND)
#: Real time: the next seat turns up its first card, which closes the window.
REVEAL = Action(REVEAL_KIND)
PASS = Action(actions.PASS)
CORRECT_HOUSE = Action(CORRECT_KIND, choice=HOUSE)
_ON = [Action(PLACE_ON_KIND, number=s) for s in range(10)]
_CORRECT_ON = [Action(CORRECT_KIND, number=s) for s in range(10)]
#: The stalemate rule (D5): this many stock-phase turns in a row with no card put on the house
#: or a pile end the match, or more where the seats hold more cards (so many per card).
STALL_FLOOR, STALL_PER_CARD = 200, 4


def place_on(seat: int) -> Action:
    """``place_on SEAT``: the revealed card onto that seat's pile.

    >>> str(place_on(2))
    'place_on 2'
    """
    return _ON[seat]


def correct(target: int | str) -> Action:
    """The late correction ``correct house`` / ``correct SEAT``.

    >>> str(correct("house")), str(correct(3))
    ('correct house', 'correct 3')
    """
    return CORRECT_HOUSE if target == HOUSE else _CORRECT_ON[int(target)]


def deck_count(players: int, decks: Any = "auto") -> int:
    """52-card decks at the table: ``auto`` is one for 2-5 players, two for 6-10 (D1).

    >>> deck_count(5), deck_count(6), deck_count(8, "1")
    (1, 2, 1)
    """
    if str(decks) == "auto":
        return 1 if players <= 5 else 2
    return int(decks)


def _cards_shown(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def _cards_read(shown: Sequence[str]) -> list[Card]:
    return [Card.parse(c) for c in shown]


def _target_of(action: Action) -> int | str:
    """Where a placement or a correction puts its card: the house, or a seat's pile."""
    return HOUSE if action.number is None else action.number


#: What a fast playout copy's ``_emit`` gives back: it logs nothing.
_NOTHING = Event(seq=-1, kind="quiet")


class TociState(Simultaneous, Zoned):
    """A Toci match in progress. Stocks keep their top card last (a draw pops); piles and
    the house list their cards bottom first."""

    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "circle",
            "the common stock every card starts in, face down (top card last)",
            seen=FACE_DOWN,
            shown=False,
            counted="cards left in the circle",
        ),
        Place(
            "house",
            "the house, bottom first (its last card is the top); house_by_suit: every"
            " house's cards, in the order they were put there (fact `houses`: the tops)",
            counted="cards on the house (house_by_suit: on all the houses)",
        ),
        Place("revealed", "the card the actor has turned up and must place now"),
        Place(
            "pile",
            "the seat's face-up pile, bottom first (the last card is the top)",
            attr="piles",
            per_seat=True,
            counted="cards in the seat's pile",
        ),
        Place(
            "stock",
            "the seat's face-down stock (its pile turned over), top card last",
            attr="stocks",
            per_seat=True,
            seen=FACE_DOWN,
            shown=False,
            counted="cards in the seat's face-down stock (the turned-over pile: its first"
            " card on top)",
        ),
    )

    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Count("tick", "toci windows opened so far (the window being played, from 0)"),
        Count("clock_ms", "realtime: the referee's clock the state was judged at, in ms"),
        Count("actor", "the seat whose turn it is"),
        Count("reveals", "cards turned up so far (the reveal_cap option ends the match)"),
        Count("idle", "stock-phase turns in a row with no card put on the house or a pile"),
        Field(
            "moved",
            "1 once the actor has put a card on the house or a pile this turn",
            section="counters",
            show=int,
            read=bool,
        ),
        Seats(Count("skips", "turns the seat will lose (a valid toci with skip_next_turn)")),
        Fact("stage", "circle or stock: the phase of play (a window belongs to it)"),
        Fact(
            "houses",
            "the top card of each house, in the order opened (one house unless"
            " house_by_suit: then one per A)",
            show=_cards_shown,
            read=_cards_read,
        ),
        Fact("finished", "the seats that emptied their hands, in order (their stock and pile)"),
        Fact("places", "per seat, the rank it went out with (0: still holding cards)"),
        Fact(
            "priority",
            "in a window: the seats in play in its resolution order (clockwise from the actor;"
            " realtime: empty, the first toci to arrive wins)",
            attr="priority_shown",
            derived=True,
        ),
        Kept("fitted", "in a window: where the card put on the own pile fitted (hidden)"),
        SUBMISSIONS,
        Kept("reason", "why the match ended (empty while it runs)"),
        Kept("ranks", "the final ranks (empty while the match runs)"),
        Kept("tocit", "the loser (-1: none, or the match runs)"),
    )

    #: A fast playout copy logs nothing (see :meth:`playout_state`).
    _quiet = False
    #: Turns begun in this copy of the state (a rollout's measure of length; no rule reads it).
    turns = 0
    circle: list[Card]
    house: list[Card]
    #: The top card of each house, in the order opened (see ``rules.house_for``).
    houses: list[Card]
    revealed: list[Card]
    piles: list[list[Card]]
    stocks: list[list[Card]]

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        self._configure(spec, players, options, seed)
        deck = self.deck()
        order = deal_order(
            deck,
            self.rng,
            deal,
            f"the deal must be the {len(deck)}-card deck of {self.decks} deck(s) that"
            f" {players} players use",
        )
        self.collect(order[::-1], into="circle")  # the deal's first card on top
        self._settle()
        self._emit(events.DEAL, circle=len(order), decks=self.decks, first=0)
        self._start_turn(0)

    def _configure(self, spec: GameSpec, players: int, options: dict[str, Any], seed: int) -> None:
        super().__init__(spec, players, options, seed)
        self.decks = deck_count(players, options["decks"])
        # Two decks hold equal cards, but every move takes a heap's top card (or turns a whole
        # pile over), which ``move`` finds by identity: ``copies`` (take the first equal card)
        # would take a lower twin out of a pile instead of its top.
        self.copies = False
        self._history: tuple[Event, ...] = ()
        self.call_mode = options["toci_mode"] == "call"
        self.by_suit = bool(options["house_by_suit"])
        # Real time changes the window only: strict mode has none, so it plays as in ticks.
        self.realtime = options["mode"] == "realtime"

    def deck(self) -> list[Card]:
        """Every card of this table's deck(s), in a fixed order."""
        return list(french_deck()) * self.decks

    def _settle(self) -> None:
        """Every number at its start, once the cards lie where they do."""
        n = self.players
        self.phase = CIRCLE
        self.stage = CIRCLE
        self.actor = 0
        self.reveals = 0
        self.idle = 0
        self.skips = [0] * n
        self.finished: list[int] = []
        self.places = [0] * n
        self.fitted: list[int | str] = []
        self.moved = False
        self.reason = ""
        self.ranks: list[int] = []
        self.tocit = -1
        self.clock_ms = 0
        self.houses = []  # the cards lie where they do: a position or a view fills it in
        self._start_ticks(0)

    @classmethod
    def set_up(  # noqa: PLR0913  (a hand-made position: every part a keyword)
        cls,
        players: int,
        *,
        piles: Sequence[str | Iterable[Card]] | None = None,
        stocks: Sequence[str | Iterable[Card]] | None = None,
        house: str | Iterable[Card] = (),
        circle: str | Iterable[Card] | None = None,
        actor: int = 0,
        finished: Sequence[int] = (),
        under: str = "circle",
        options: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> TociState:
        """A position set up by hand (tests, puzzles); ``actor`` turns up next. Cards are
        lists or strings: piles and the house bottom first, stocks and the circle top first.
        Cards named nowhere go ``under`` the circle's named cards, or under the house's
        (``under="house"``, and always with ``circle=""``: the stock phase). With
        ``house_by_suit`` the houses are the named ``house`` cards put there in order (each
        A opens one); the cards put under them belong to no house.

        >>> s = TociState.set_up(2, piles=["3S", "KD"], circle="")
        >>> s.phase, s.view(0).counts["stock:0"], len(s.house)
        ('stock', 0, 50)
        """
        state = cls.__new__(cls)
        state._configure(SPEC, players, SPEC.resolve_options(options), seed)
        piles_ = [_cards(p) for p in piles] if piles else [[] for _ in range(players)]
        stocks_ = [_cards(p)[::-1] for p in stocks] if stocks else [[] for _ in range(players)]
        house_ = _cards(house)
        named = Counter(house_)
        for heap in (*piles_, *stocks_):
            named.update(heap)
        rest = Counter(state.deck())
        rest.subtract(named)
        if any(v < 0 for v in rest.values()):
            raise BadConfig("a card is named more often than the deck holds it")
        top = [] if circle is None else _cards(circle)
        stage = STOCK if circle is not None and not top else CIRCLE
        rest.subtract(top)
        if any(v < 0 for v in rest.values()):
            raise BadConfig("a circle card is also named elsewhere")
        left = list(rest.elements())
        if stage == STOCK or under == "house":
            house_, circle_ = left + house_, top[::-1]
        else:
            circle_ = left + top[::-1]
        state.circle, state.house, state.revealed = circle_, house_, []
        state.piles, state.stocks = piles_, stocks_
        state._settle()
        if state.by_suit:
            for card in _cards(house):
                state._onto_house(card, house_for(card, state.houses, True))
        elif house_:
            state.houses = [house_[-1]]
        state.stage = state.phase = stage
        for s in finished:
            state.finished.append(s)
            state.places[s] = len(state.finished)
        state._emit_position()
        state._start_turn(actor)
        return state

    # -- small helpers --------------------------------------------------------------------------

    def held(self, seat: int) -> int:
        """Cards ``seat`` holds: its stock and its pile (and the card it turned up)."""
        own = 1 if self.revealed and seat == self.actor and self.phase != WINDOW else 0
        return len(self.stocks[seat]) + len(self.piles[seat]) + own

    def tops(self) -> list[Card | None]:
        return [p[-1] if p else None for p in self.piles]

    def fitting(self, card: Card) -> list[int | str]:
        """Where ``card`` fits for the actor now."""
        return targets(card, self.houses, self.tops(), self.actor, self.finished, self.by_suit)

    def _onto_house(self, card: Card, index: int) -> None:
        """``card`` is now the top of house ``index`` (a new house at ``len(houses)``)."""
        if index < 0:
            raise BadConfig(f"{card} fits no house")
        if index == len(self.houses):
            self.houses.append(card)
        else:
            self.houses[index] = card

    def unfinished(self) -> list[int]:
        return [s for s in range(self.players) if not self.places[s]]

    def _emit(self, kind: str, /, **kw: Any) -> Event:
        if self._quiet:
            return _NOTHING
        return super()._emit(kind, **kw)

    # -- the toci window ------------------------------------------------------------------------

    def seats_in_play(self) -> list[int]:
        """The window's seats: every unfinished seat (real time: those that have not acted
        yet; the next seat's move ends the window, so it is in until then)."""
        if self.phase != WINDOW:
            return []
        subs, live = self.submissions, not self.realtime
        return [s for s in range(self.players) if not self.places[s] and (live or subs[s] is None)]

    def _clockwise(self) -> list[int]:
        """The unfinished seats clockwise from the actor, the actor last."""
        n, x = self.players, self.actor
        return sorted(self.unfinished(), key=lambda s: (s - x - 1) % n)

    def priority(self) -> list[int]:
        """The window's order: clockwise from the actor, the actor last."""
        n, x = self.players, self.actor
        return sorted(self.seats_in_play(), key=lambda s: (s - x - 1) % n)

    @property
    def priority_shown(self) -> list[int]:
        return self.priority() if self.phase == WINDOW and not self.realtime else []

    def next_up(self) -> int:
        """The seat that turns up next once the actor's turn is over: the next unfinished
        seat clockwise that loses no turn (what :meth:`_next_seat` will serve, unchanged).

        >>> state = TociState.set_up(3, piles=["", "6S", "KD"], circle="7C 2H")
        >>> state.skips[1] = 1
        >>> state.next_up()
        2
        """
        n, skips = self.players, list(self.skips)
        t = (self.actor + 1) % n
        while self.places[t] or skips[t]:
            if not self.places[t]:
                skips[t] -= 1
            t = (t + 1) % n
        return t

    def to_act(self) -> tuple[int, ...]:
        if self.phase == WINDOW:
            return self._waiting
        if self.phase == phases.OVER:
            return ()
        return (self.actor,)

    def legal_actions(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == WINDOW:
            return self._window_actions(seat) if seat in self._waiting else []
        if phase == phases.OVER or seat != self.actor:
            return []
        fitting = self.fitting(self.revealed[-1])
        out = [PLACE_HOUSE if t == HOUSE else _ON[t] for t in fitting]  # type: ignore[index]
        if self.call_mode or not fitting:
            out.append(PLACE_OWN)
        return out

    def _window_actions(self, seat: int) -> list[Action]:
        """A rival's ``toci``, the actor's corrections; ``pass`` (real time: the next seat
        has ``reveal`` instead)."""
        first = REVEAL if self.realtime and seat == self.next_up() else PASS
        if seat != self.actor:
            return [first, TOCI]
        return [first, *(correct(t) for t in self.fitted)]

    def _apply(self, seat: int, action: Action) -> None:
        if self.phase == WINDOW:
            super()._apply(seat, action)  # a tick's submission, or in real time at once
            return
        kind = action.kind
        if kind == PLACE_OWN_KIND:
            card = self.revealed[-1]
            fitted = self.fitting(card) if self.call_mode else []
            self.move(card, "revealed", f"pile:{seat}", kind=PLACE_OWN_KIND, seat=seat)
            if self.call_mode:
                self.fitted = fitted
                self.phase = WINDOW
                self._open_tick()
            else:
                self._end_turn()
            return
        self._put(seat, "revealed", _target_of(action), kind)

    def _act_now(self, seat: int, action: Action) -> None:
        """Real time: the first ``toci`` on a card that fitted wins at once; a correction
        that arrives before it is applied at once; the next seat's ``reveal`` closes the
        window with neither. A ``pass``, or a ``toci`` on a card that fitted nowhere, waits
        (hidden, as in a tick) for the window's end; the next seat calls and turns up in one
        go, so its ``toci`` always ends the window."""
        kind = action.kind
        if kind == TOCI_KIND and self.fitted:
            self._close_window([seat], None)
        elif kind == CORRECT_KIND:
            self._close_window([], action)
        else:  # a pass, a call on a card that fitted nowhere, or the next seat's move
            self.submissions[seat] = action
            if seat == self.next_up():  # it turns up (after its own call, if it called)
                subs = self.submissions
                self._close_window([s for s in self._clockwise() if subs[s] == TOCI], None)

    def _close_window(self, callers: list[int], mine: Action | None) -> None:
        """Real time: the window ends now (as a tick's would), and the next one is counted."""
        self._resolve_window(callers, mine)
        self.submissions = [None] * self.players
        self.tick += 1

    def _put(self, seat: int, src: str, target: int | str, kind: str) -> None:
        """Put the card of ``src`` on the house or another pile; the actor goes on."""
        card = self.cards_at(src)[-1]
        dst = "house" if target == HOUSE else f"pile:{target}"
        if target == HOUSE:
            index = house_for(card, self.houses, self.by_suit)
            self._onto_house(card, index)
            self.move(card, src, dst, kind=kind, seat=seat, house=index)
        else:
            self.move(card, src, dst, kind=kind, seat=seat, to=target)
        self.moved = True
        if self.stage == STOCK and not self.stocks[seat] and not self.piles[seat]:
            self._finish([seat])
            if self.phase != phases.OVER:
                self._end_turn()
            return
        self._reveal()

    def _resolve(self, order: Sequence[int]) -> bool:
        """A tick's window: the callers in ``order``, then the actor's own submission."""
        subs = self.submissions
        callers = [s for s in order if s != self.actor and subs[s] == TOCI]
        self._resolve_window(callers, subs[self.actor])
        return True

    def _resolve_window(self, callers: list[int], mine: Action | None) -> None:
        """The window's end: a valid toci ends the turn; else a legal correction moves the
        card; else the turn ends. ``callers``: who called toci, the first one named."""
        x = self.actor
        fitted = bool(self.fitted)
        valid = bool(callers) and fitted
        self._emit(
            "window",
            seat=x,
            fitted=fitted,
            callers=callers,
            caller=callers[0] if valid else -1,
            **self.stamp(),
        )
        self.phase = self.stage
        self.fitted = []
        if valid:
            if self.options["toci_penalty"] == "skip_next_turn":
                self.skips[x] += 1
            self._end_turn()
        elif mine is not None and mine.kind == CORRECT_KIND and fitted:
            self._put(x, f"pile:{x}", _target_of(mine), CORRECT_KIND)
        else:
            self._end_turn()

    # -- turns ------------------------------------------------------------------------------------

    def _start_turn(self, seat: int) -> None:
        self.turns += 1
        self.actor = seat
        self.moved = False
        self._reveal()

    def _reveal(self) -> None:
        """Turn up the actor's next card, or end its turn (the circle ran out), or finish it."""
        if self.phase == phases.OVER:
            return
        if self.reveals >= self.options["reveal_cap"]:
            self._end("cap")
            return
        x = self.actor
        if self.stage == CIRCLE:
            if not self.circle:
                self._transition()
                return
            src = "circle"
        else:
            if not self.stocks[x] and self.piles[x]:
                pile = self.piles[x]
                self.move(pile[::-1], f"pile:{x}", f"stock:{x}")  # told by `flipped`
                self._emit("flipped", seat=x, count=len(self.stocks[x]))
            if not self.stocks[x]:
                self._finish([x])
                if self.phase != phases.OVER:
                    self._end_turn()
                return
            src = f"stock:{x}"
        self.reveals += 1
        self.move(self.cards_at(src)[-1], src, "revealed", kind="reveal", seat=x, source=src)

    def _end_turn(self) -> None:
        """The actor's turn is over: the transition, or the next seat."""
        if self.stage == CIRCLE:
            if not self.circle:
                self._transition()
                return
        else:
            self.idle = 0 if self.moved else self.idle + 1
            if self.idle >= STALL_FLOOR:
                held = sum(self.held(s) for s in self.unfinished())
                if self.idle >= STALL_PER_CARD * held:
                    self._end("stalemate")
                    return
        self._start_turn(self._next_seat(self.actor))

    def _next_seat(self, seat: int) -> int:
        """The next unfinished seat clockwise, serving the turns it must lose."""
        n = self.players
        t = (seat + 1) % n
        while True:
            if not self.places[t]:
                if not self.skips[t]:
                    return t
                self.skips[t] -= 1
                self._emit("skipped", seat=t, left=self.skips[t])
            t = (t + 1) % n

    def _transition(self) -> None:
        """The circle is empty: every pile is turned over into its stock; empty seats finish."""
        last = self.actor
        self.stage = self.phase = STOCK
        for s in range(self.players):
            pile = self.piles[s]
            if pile:
                self.move(pile[::-1], f"pile:{s}", f"stock:{s}")  # told by `turned`
        self._emit("turned", stocks=[len(k) for k in self.stocks])
        empty = [s for s in range(self.players) if not self.stocks[s] and not self.places[s]]
        if empty:
            self._finish(empty)
        if self.phase != phases.OVER:
            self.moved = False
            self.idle = 0
            self._start_turn(self._next_seat(last))

    def _finish(self, seats: Sequence[int]) -> None:
        """``seats`` went out together: they share the best free rank (D12)."""
        rank = len(self.finished) + 1
        for s in seats:
            self.finished.append(s)
            self.places[s] = rank
            self._emit(events.FINISH, seat=s, rank=rank)
        if len(self.unfinished()) <= 1:
            self._end("complete")

    def _end(self, reason: str) -> None:
        rest = self.unfinished()
        ranks = list(self.places)
        base = len(self.finished) + 1
        held = [self.held(s) for s in range(self.players)]
        for s in rest:
            ranks[s] = base + sum(1 for o in rest if held[o] < held[s])
        self.ranks = ranks
        self.tocit = rest[0] if reason == "complete" and len(rest) == 1 else -1
        self.reason = reason
        self.phase = phases.OVER
        self._stop_ticks()
        self._emit(events.END, ranks=list(ranks), reason=reason, tocit=self.tocit)

    # -- what a seat may know --------------------------------------------------------------------

    def view(self, seat: int, history: bool = True) -> SeatView:
        n = self.players
        counters = declared.shown_counters(self.FIELDS, self, n)
        counters["submitted"] = self.submitted(seat)
        return SeatView(
            game=self.game,
            seat=seat,
            players=n,
            phase=self.phase,
            to_act=self.to_act(),
            hand=(),
            zones=self.view_zones(seat),
            counts=self.view_counts(),
            counters=counters,
            trump=None,
            scores=self._scores(),
            facts=declared.shown_facts(self.FIELDS, self),
            history=self.history(seat) if history else (),
            options=self.options,
        )

    def history(self, seat: int) -> tuple[Event, ...]:
        # Every Toci event is public: one tuple of the log serves every seat's view.
        if len(self._history) != len(self._log):
            self._history = tuple(self._log)
        return self._history

    # -- outcome ----------------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.phase == phases.OVER

    def estimate(self) -> tuple[float, ...]:
        """Scores as if play stopped now: seats out by their rank; the others share the ranks
        left, fewer cards better, in proportion to the cards they hold (a search that cuts
        its rollouts short scores them by it; a smooth share tells one card from another).

        >>> TociState.set_up(3, stocks=["8C 9H", "6S", "KH 2C 3C"], circle="").estimate()
        (1.0, 2.0, 0.0)
        """
        rest = self.unfinished()
        out = [float(self.players - r) if r else 0.0 for r in self.places]
        if not rest:
            return tuple(out)
        held = [self.held(s) for s in rest]
        lo, hi = min(held), max(held)
        best = float(self.players - len(self.finished) - 1)  # the best rank left, as a score
        for s, h in zip(rest, held, strict=True):
            out[s] = best * (hi - h) / (hi - lo) if hi > lo else best / 2
        return tuple(out)

    def _scores(self) -> tuple[float, ...]:
        if self.phase != phases.OVER:
            return (0.0,) * self.players
        return tuple(float(self.players - r) for r in self.ranks)

    def result(self) -> Result:
        if self.phase != phases.OVER:
            raise RuntimeError("the match is not over")
        best = min(self.ranks)
        return Result(
            scores=self._scores(),
            ranks=tuple(self.ranks),
            winners=tuple(s for s, r in enumerate(self.ranks) if r == best),
            deals=({"tocit": self.tocit, "finished": list(self.finished)},),
            reason=self.reason,
        )

    # -- copies and worlds ----------------------------------------------------------------------

    def clone(self) -> TociState:
        other: TociState = self._shallow_copy()
        other.circle = list(self.circle)
        other.house = list(self.house)
        other.houses = list(self.houses)
        other.revealed = list(self.revealed)
        other.piles = [list(p) for p in self.piles]
        other.stocks = [list(k) for k in self.stocks]
        other.skips = list(self.skips)
        other.finished = list(self.finished)
        other.places = list(self.places)
        other.fitted = list(self.fitted)
        other.ranks = list(self.ranks)
        return other

    def sample_world(self, seat: int, rng: random.Random) -> TociState:
        """The circle's order is the only thing no seat knows: shuffle it."""
        world = self.clone()
        rng.shuffle(world.circle)
        world._blank_submissions(seat, PASS)
        world._reseed_for_sample(rng)
        return world

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> TociState:
        """A state whose ``view(view.seat)`` is ``view``: the stocks replayed from the public
        history (``world.py``), the circle the rest of the deck in a random order."""
        state = cls.__new__(cls)
        state._configure(spec, view.players, dict(view.options), rng.getrandbits(32))
        stocks = replay(view)
        zones = view.zones
        state.house = list(zones["house"])
        state.revealed = list(zones["revealed"])
        state.piles = [list(zones[f"pile:{s}"]) for s in range(view.players)]
        state.stocks = [list(k) for k in stocks]
        rest = Counter(state.deck())
        for heap in (state.house, state.revealed, *state.piles, *state.stocks):
            rest.subtract(heap)
        circle = sorted(rest.elements())
        rng.shuffle(circle)
        state.circle = circle
        state._settle()
        counters, facts = view.counters, view.facts
        declared.restore(cls.FIELDS, state, counters, facts, view.players)
        state.phase = view.phase
        if view.phase == WINDOW:
            x = state.actor
            state.fitted = targets(
                state.piles[x][-1], state.houses, state.tops(), x, state.finished, state.by_suit
            )
        state._restore_submissions(view.to_act, PASS)
        if state.realtime and view.phase == WINDOW:
            # Who acted is public (they left ``to_act``), what they sent is not: a pass.
            for s in state.unfinished():
                if s not in view.to_act:
                    state.submissions[s] = PASS
        state._log = list(view.history)
        state.rng = random.Random(rng.getrandbits(64))
        return state

    # -- positions --------------------------------------------------------------------------------

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        places = self.place_values()
        values: dict[str, Any] = {"phase": self.phase, **places}
        values.update(declared.stored(self.FIELDS, self))
        return values, set(places)

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> TociState:
        state = cls.__new__(cls)
        state._configure(spec, pos.players, options, seed)
        state.load_places(pos.cards)
        check_deck(list(state.place_values().values()), state.deck())
        state._settle()
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        state.phase = pos.value("phase")
        if state.phase not in (CIRCLE, STOCK, WINDOW, phases.OVER):
            raise BadConfig(f"position: no phase {state.phase!r} in toci")
        state._resume_ticks()
        state._emit_position()
        return state

    def _emit_position(self) -> None:
        """A history read from a position starts here: the piles and stocks as they lie (every
        card in them was turned up before all, so each seat knows them)."""
        self._emit(
            events.POSITION,
            house=len(self.house),
            piles=[[str(c) for c in p] for p in self.piles],
            stocks=[[str(c) for c in k[::-1]] for k in self.stocks],
        )

    def playout_state(self, seed: int) -> KernelPlayout | TociPlayout:
        """A copy for the search's rollouts: in tick mode the C kernel
        (:mod:`levata.engine.toci_playouts`), in real time the Python copy
        (:meth:`python_playout_state`); the same rules, no events logged, its own random
        stream from ``seed`` (``tests/engine/test_toci_kernel.py`` proves the two agree).

        >>> s = TociState.set_up(2, piles=["4S", "9D"], circle="10H 5C")
        >>> fast = s.playout_state(seed=1)
        >>> fast.legal_actions(0) == s.legal_actions(0), str(fast.choose(0))
        (True, 'place_on 1')
        """
        if self.realtime:
            return self.python_playout_state(seed)
        return KernelPlayout(self.playout_fields(), seed)

    def playout_dealer(self, seat: int, seed: int) -> TociDealer:
        """The search's dealer of worlds ``seat`` cannot tell from this one, as fast copies
        (:class:`~levata.engine.toci_playouts.TociDealer`): :meth:`from_view`'s deal, in C,
        draw for draw. This state must itself be such a world (``from_view`` of ``seat``'s
        view, or the real match): every heap but the circle is public, so only the circle is
        dealt afresh, from its cards sorted as ``from_view`` sorts them; the submissions this
        tick are passes, the seats waiting are those to act, and no turn is begun yet (all
        as ``from_view``'s). Tick mode only.

        >>> s = TociState.set_up(2, piles=["4S", "9D"], circle="10H 5C")
        >>> world = s.playout_dealer(0, seed=1).deal(seed=2)
        >>> world.legal_actions(0) == s.legal_actions(0), len(world.fields()["circle"])
        (True, 49)
        """
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not at this table")
        fields = self.playout_fields()
        fields["circle"] = sorted(self.circle)
        fields["submissions"] = [None if a is None else str(PASS) for a in self.submissions]
        fields["waiting"] = list(self.to_act())
        fields["turns"] = 0
        return TociDealer(KernelPlayout(fields, 0), seed)

    def python_playout_state(self, seed: int) -> TociPlayout:
        """The copy in Python (:class:`TociPlayout`): the reference the kernel
        (:mod:`levata.engine.toci_playouts`) is proven against
        (``tests/engine/test_toci_kernel.py``), and the copy real time plays on."""
        copy = self.clone()
        copy._quiet = True
        copy._log = []
        copy._history = ()
        copy.rng = random.Random(seed)
        return TociPlayout(copy)

    def playout_fields(self) -> dict[str, Any]:
        """This position as plain values, as the playout copies' ``fields()`` say them: every
        heap (stocks and the circle top card last), the counters, the window and the options
        that change play (``house``: how many cards the houses hold)."""
        n = self.players
        return {
            "players": n,
            "decks": self.decks,
            "circle": list(self.circle),
            "house": len(self.house),
            "houses": list(self.houses),
            "revealed": list(self.revealed),
            "piles": [list(p) for p in self.piles],
            "stocks": [list(k) for k in self.stocks],
            "phase": self.phase,
            "stage": self.stage,
            "actor": self.actor,
            "reveals": self.reveals,
            "idle": self.idle,
            "moved": bool(self.moved),
            "skips": list(self.skips),
            "places": list(self.places),
            "finished": list(self.finished),
            "fitted": list(self.fitted),
            "waiting": list(self._waiting),
            "submissions": [None if a is None else str(a) for a in self.submissions],
            "tick": self.tick,
            "turns": self.turns,
            "toci_mode": self.options["toci_mode"],
            "toci_penalty": self.options["toci_penalty"],
            "house_by_suit": bool(self.by_suit),
            "reveal_cap": self.options["reveal_cap"],
            "mode": self.options["mode"],
        }

    def __getstate__(self) -> dict[str, Any]:
        # The history tuple is a cache of the log filled by queries; leave it out so that a
        # query never changes what the state pickles to.
        state = super().__getstate__()
        state["_history"] = ()
        return state


class TociPlayout:
    """A Toci match for the search's rollouts: a :class:`TociState` that logs no events,
    with the careful policy (the heuristic bot's choices, :func:`careful_choice`) or random
    moves to play on by. It plays the window's seats one after the other (``to_act()[0]``
    first), which is the same tick."""

    __slots__ = ("state",)

    def __init__(self, state: TociState) -> None:
        self.state = state

    def clone(self) -> TociPlayout:
        return TociPlayout(self.state.clone())

    def is_over(self) -> bool:
        return self.state.phase == phases.OVER

    def to_act(self) -> tuple[int, ...]:
        return self.state.to_act()

    def legal_actions(self, seat: int) -> list[Action]:
        return self.state.legal_actions(seat)

    def _apply(self, seat: int, action: Action) -> None:
        self.state._apply(seat, action)

    def estimate(self) -> tuple[float, ...]:
        return self.state.estimate()

    def fields(self) -> dict[str, Any]:
        """This copy's position as plain values (:meth:`TociState.playout_fields`)."""
        return self.state.playout_fields()

    def events(self) -> list[Event]:
        return self.state.events()

    def choose(self, seat: int, policy: str = "heuristic") -> Action:
        """The action ``policy`` picks for ``seat`` now (``heuristic`` or ``random``)."""
        state = self.state
        legal = state.legal_actions(seat)
        if policy == "random":
            return state.rng.choice(legal)
        return careful_choice(state, seat, legal)

    def rollout(
        self, policy: str = "heuristic", max_actions: int = 0, seed: int | None = None
    ) -> int:
        """Play on by ``policy`` to the end or for ``max_actions`` (0: no limit); the count.

        Toci counts a rollout in **turns**, its unit of progress: a turn (a seat's run of
        placements up to the card it keeps, and that card's window) takes one action or a
        dozen, by luck and table size, so a horizon of 30 reaches 30 turns at any table.
        A tick's window takes its submissions at once (the same tick as one by one); a
        real-time window takes them one at a time, from a seat drawn among those in it."""
        state = self.state
        if seed is not None:
            state.rng = random.Random(seed)
        if policy == "heuristic":
            return self._careful_rollout(max_actions)
        start = state.turns
        while state.phase != phases.OVER and (not max_actions or state.turns - start < max_actions):
            if state.phase == WINDOW and state.realtime:
                seat = state.rng.choice(state._waiting)
                state._apply(seat, self.choose(seat, policy))
            elif state.phase == WINDOW:
                subs = state.submissions
                for seat in state._waiting:
                    subs[seat] = self.choose(seat, policy)
                state._waiting = ()
                state._resolve_tick()
            else:
                seat = state.actor
                state._apply(seat, self.choose(seat, policy))
        return state.turns - start

    def _careful_rollout(self, max_actions: int) -> int:
        """:meth:`rollout` when every seat plays carefully, without building the actions it
        would choose: a fitting card goes where :func:`careful_target` says, any other card on
        the own pile; a window ends the turn (every rival calls a miss, which wins over any
        correction, and in real time is taken to arrive first; with no miss nothing
        happens). In ticks, the same moves as :meth:`choose` made one by one
        (``tests/games/test_toci.py`` checks it)."""
        state = self.state
        skip = state.options["toci_penalty"] == "skip_next_turn"
        start = state.turns
        while state.phase != phases.OVER and (not max_actions or state.turns - start < max_actions):
            x = state.actor
            if state.phase == WINDOW:
                if state.fitted and skip:
                    state.skips[x] += 1
                state.phase, state.fitted, state._waiting = state.stage, [], ()
                state.submissions = [None] * state.players
                state.tick += 1
                state._end_turn()
            else:
                card = state.revealed[-1]
                fitting = state.fitting(card)
                if fitting:
                    held = [state.held(s) for s in range(state.players)]
                    target = careful_target(fitting, held, x)
                    kind = PLACE_HOUSE_KIND if target == HOUSE else PLACE_ON_KIND
                    state._put(x, "revealed", target, kind)
                else:
                    state.move(card, "revealed", f"pile:{x}")
                    if state.call_mode:
                        state.tick += 1  # its window: nothing fitted, nothing happens
                    state._end_turn()
        return state.turns - start


def careful_choice(state: TociState, seat: int, legal: Sequence[Action]) -> Action:
    """What a careful player does (the heuristic bot's choice, read off the state): every
    card that fits goes on the rival nearest to going out, else on the house
    (:func:`~levata.engine.games.toci.rules.careful_target`); in a window, ``toci`` when the
    card fitted and a correction of one's own miss, else ``pass`` (real time: the next seat
    turns up)."""
    if state.phase == WINDOW:
        if not state.fitted or len(legal) == 1:
            return legal[0]  # pass, or the next seat's reveal
        if seat != state.actor:
            return TOCI
        held = [state.held(s) for s in range(state.players)]
        return correct(careful_target(state.fitted, held, seat))
    if len(legal) == 1:
        return legal[0]
    fitting = state.fitting(state.revealed[-1])
    if not fitting:
        return PLACE_OWN
    held = [state.held(s) for s in range(state.players)]
    target = careful_target(fitting, held, seat)
    return PLACE_HOUSE if target == HOUSE else _ON[target]  # type: ignore[index]


def _cards(cards: str | Iterable[Card]) -> list[Card]:
    return parse_cards(cards) if isinstance(cards, str) else list(cards)


def _said(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards))


def _where(ev: Event) -> str:
    return "the house" if "to" not in ev.data else f"seat {ev.data['to']}'s pile"


def _window_line(ev: Event) -> str:
    data = ev.data
    if data["caller"] >= 0:
        return f"   toci! seat {data['caller']} caught seat {ev.seat}'s missed card"
    if data["callers"]:
        return f"   seats {data['callers']} called toci, but the card fitted nowhere"
    return f"   no call ({'it fitted' if data['fitted'] else 'it fitted nowhere'})"


#: Lines for Toci's own event kinds (the shared ones are said by the server's narration).
_LINES = {
    "reveal": lambda ev: f"seat {ev.seat} turns up {_said(ev.cards)}",
    PLACE_HOUSE_KIND: lambda ev: f"   on the house: {_said(ev.cards)}",
    PLACE_ON_KIND: lambda ev: f"   on {_where(ev)}: {_said(ev.cards)}",
    PLACE_OWN_KIND: lambda ev: f"   on its own pile: {_said(ev.cards)}",
    CORRECT_KIND: lambda ev: f"   seat {ev.seat} corrects: {_said(ev.cards)} to {_where(ev)}",
    "window": _window_line,
    "flipped": lambda ev: f"   seat {ev.seat} turns its pile over ({ev.data['count']} cards)",
    "turned": lambda ev: f"-- the circle is empty: piles turned over {ev.data['stocks']}",
    "skipped": lambda ev: f"   seat {ev.seat} loses a turn",
    events.POSITION: lambda ev: f"-- position: house of {ev.data['house']}",
}


def narrate(ev: Event) -> str | None:
    """A line for one of Toci's own events, ``None`` for the shared ones.

    >>> narrate(Event(seq=3, kind="flipped", seat=1, data={"count": 5}))
    '   seat 1 turns its pile over (5 cards)'
    """
    line = _LINES.get(ev.kind)
    return None if line is None else line(ev)


_ZONES, _COUNTS = described(TociState.PLACES)

VOCABULARY = Vocabulary(
    choices={CORRECT_KIND: (HOUSE,)},
    phases={
        CIRCLE: "the actor turned up the circle's top card (zone `revealed`): place it",
        STOCK: "the actor turned up its own stock's top card (zone `revealed`): place it",
        WINDOW: "the toci window after a place_own: the others may call toci, the actor may"
        " correct its miss (one simultaneous tick; realtime: open until the next seat turns"
        " up, the first valid toci or a correction before it ends it at once)",
        phases.OVER: "the match is over",
    },
    zones=_ZONES,
    counts=_COUNTS,
    counters={
        **declared.described(TociState.FIELDS, "counters"),
        "submitted": "in a window: 1 once you have submitted (you wait for the others;"
        " realtime: you have passed or called)",
    },
    facts=declared.described(TociState.FIELDS, "facts"),
    actions={
        PLACE_HOUSE_KIND: "put the revealed card on the house (an A on an empty house, else"
        " the top's successor: K then A; suits do not matter; house_by_suit: an A opens a new"
        " house, any other card goes on the house of its suit whose top is the rank below),"
        " then turn up another",
        PLACE_ON_KIND: "put the revealed card on seat `number`'s pile (its top's successor),"
        " then turn up another",
        PLACE_OWN_KIND: "put the revealed card on your own pile: your turn ends (in call mode"
        " after the toci window; in strict mode only for a card that fits nowhere)",
        TOCI_KIND: "in a window: call toci, the actor missed a fit (valid only if it did)",
        CORRECT_KIND: "in a window, the actor: move the card after all, to `choice` house or"
        " seat `number`, where it fits; a valid toci wins over it",
        actions.PASS: "in a window: no call, no correction",
        REVEAL_KIND: "realtime, in a window, the next seat: turn up your first card, which"
        " closes the window (no valid call, no correction came first)",
    },
    events={
        events.DEAL: "the match starts: `data.circle` cards face down, `decks`, `first`",
        events.POSITION: "the match was read from a position: `data.piles` and `data.stocks`"
        " (top first) as they lay, `house` its size",
        "reveal": "`seat` turned up `cards` (`data.source`: circle or stock:SEAT)",
        PLACE_HOUSE_KIND: "`seat` put `cards` on the house (`data.house`: which, in the order"
        " opened; 0 unless house_by_suit)",
        PLACE_ON_KIND: "`seat` put `cards` on seat `data.to`'s pile",
        PLACE_OWN_KIND: "`seat` put `cards` on its own pile",
        "window": "a toci window resolved: `data.fitted` (the card fitted somewhere),"
        " `callers` (who called toci, in order), `caller` (the valid call's first caller, -1:"
        " none), `tick` (realtime: `at_ms`, the referee's clock)",
        CORRECT_KIND: "`seat` moved its pile's top `cards` to the house (`data.house`) or to"
        " `data.to`",
        "skipped": "`seat` lost a turn (toci_penalty=skip_next_turn); `data.left` more",
        "flipped": "`seat` turned its pile over into its empty stock: `data.count` cards",
        "turned": "the circle ran out: every pile became its seat's stock, `data.stocks` sizes",
        events.FINISH: "`seat` went out with `data.rank`",
        events.END: "the match is over: `data.ranks` (1 = best), `reason` (complete,"
        " stalemate, cap), `tocit` (the loser, -1: none)",
    },
)

SPEC = register(
    GameSpec(
        name="toci",
        title="Toci",
        players=tuple(range(2, 11)),
        summary="Build the house A..K in turn and unload your pile; call toci on a missed card.",
        options=(
            Option(
                "toci_mode",
                "call",
                "call (a missed fit may be called toci, or corrected) or strict (a fit must"
                " be placed)",
                ("call", "strict"),
            ),
            Option(
                "toci_penalty",
                "none",
                "what a valid toci costs beyond the card: none or skip_next_turn",
                ("none", "skip_next_turn"),
            ),
            Option(
                "decks",
                "auto",
                "52-card decks: auto (1 for 2-5 players, 2 for 6-10), 1 or 2",
                ("auto", "1", "2"),
            ),
            Option("reveal_cap", 20_000, "cards turned up before the match stops", minimum=1),
            Option(
                "house_by_suit",
                False,
                "one house per A, built up in the A's suit (piles still ignore suits)",
            ),
            Option(
                "mode",
                "tick",
                "tick (the toci window is one simultaneous tick) or realtime (it stays open"
                " until the next seat turns up; the first toci to arrive wins)",
                ("tick", "realtime"),
            ),
        ),
        factory=TociState,
        # Random seats place cards at random: cap random matches early.
        short_options={"reveal_cap": 80},
        bots={"heuristic": "levata.bots.heuristic.toci:HeuristicBot"},
        narrate=narrate,
        vocabulary=VOCABULARY,
    )
)
