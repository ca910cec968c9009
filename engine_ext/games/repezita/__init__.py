"""Repezita: a speed game. Be the first to shed your hand onto one shared pile (rules:
``docs/games/repezita.md``).

There is no turn order. The pile starts with an Ace; after that any card one rank above or below
the top lands (ranks wrap: ``K-A-2``, suits do not matter). A card that is wrong on the pile its
player saw costs the whole pile. The first seat to empty its hand wins, and the last seat still
holding cards loses.

Two timing models:

* **tick** (default, tournament play): every unfinished seat submits ``pass`` or ``play <card>``
  once per tick, hidden from the others. When the last one is in, the tick resolves in the
  rotating priority ``P_t`` (seats sorted by ``(seat - t) mod N``): the ticks, their buffer and
  ``P_t`` are :class:`~levata.engine.family.simultaneous.Simultaneous`'s. Each play in turn lands
  (valid on the current pile), bounces (valid on the tick-start pile ``T0`` but beaten to it),
  is rejected (non-Ace on an empty ``T0``) or is a wrong card (the seat takes the pile plus the
  card, and every later play of the tick bounces).
* **realtime**: any unfinished seat may act at any moment. A play is judged at the clock set by
  :meth:`RepezitaState.advance_clock`; ``T0`` becomes the *race window*, i.e. every pile state
  that existed in the last ``race_ms``. ``pass`` is accepted and does nothing (so one bot plays
  both modes); it emits nothing.

Stall rules: after ``idle_ticks`` ticks (``idle_ms`` in realtime) without a pile change, a
non-empty pile dies (moves face up to the dead area), and an empty pile opens (any card may
start it until one lands). Hard cap: ``tick_cap`` ticks (``time_cap_ms``), after which unfinished
seats rank by fewest cards, ties sharing. Scores are ``players - rank``.

Choices made here beyond the spec:

* The deal gives card ``i`` of the deck order to seat ``i mod N``; the last ``cards mod N`` cards
  are set aside unseen.
* ``P_t`` lists the unfinished seats only (finished seats never play).
* A submission emits no event at all, not even a private acknowledgement: the seat's own view
  (``counters["submitted"]``) and ``to_act`` say it is in, and nothing names the card.
* ``sample_world`` keeps the cards a seat publicly picked up (``facts["known"]``) in that seat's
  hand and redeals every other unseen card. Other seats' unresolved submissions of the current
  tick become ``pass`` (they stay submitted, so ``to_act`` and the view are unchanged): the real
  card must not survive into a sampled world, and inventing one would be a policy, not a rule.
* Soft inferences (a bounce means the seat held a card adjacent to ``T0``) are not used when
  sampling.

>>> state = RepezitaState.from_position(players=2, hands=["AD 2C", "KH 5S"])
>>> state.apply(0, Action.parse("play AD"))
>>> state.apply(1, Action.parse("play KH"))
>>> [str(e) for e in state.events()]
['tick tick=0 priority=[0, 1]', 'seat 0 landed AD tick=0', 'seat 1 landed KH tick=0']
>>> state.view(0).zones["pile"]
(Card('AD'), Card('KH'))
"""

from __future__ import annotations

import math
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
from levata.engine.deal import deal_hidden, deal_order
from levata.engine.family.shedding import ranks_by_finish
from levata.engine.family.simultaneous import SUBMISSIONS, Simultaneous
from levata.engine.fields import Counter as Count
from levata.engine.fields import Declared, Fact, Field, Kept
from levata.engine.games.repezita.world import TRIES, Skeleton, skeleton
from levata.engine.games.repezita.world import deal as deal_world
from levata.engine.position import Position, check_deck
from levata.engine.registry import register
from levata.engine.repezita_playouts import RepezitaDealer, RepezitaPlayout
from levata.engine.vocabulary import Vocabulary
from levata.engine.zones import FACE_DOWN, OWNER, Place, Zoned, described

__all__ = [
    "LEAD_SLOPE",
    "PASS",
    "SPEC",
    "RepezitaState",
    "adjacent",
    "deck_count",
    "lands",
    "lead_share",
    "play",
]

ACE = 14  # French ranks run 2..14, so the cycle A-2 wraps 14 -> 2
RANKS_IN_CYCLE = 13

PASS = Action(actions.PASS)
#: Repezita's one phase while the match runs: every seat races to play.
RACING = "race"
_PLAYS: dict[Card, Action] = {}


def play(card: Card) -> Action:
    """The (shared, immutable) ``play <card>`` action.

    >>> str(play(Card.parse("10S")))
    'play 10S'
    """
    action = _PLAYS.get(card)
    if action is None:
        action = _PLAYS[card] = Action(actions.PLAY, card=card)
    return action


def adjacent(a: Card, b: Card) -> bool:
    """Whether two cards are neighbours in the rank cycle ``A,2,...,K,A`` (suits ignored).

    >>> [adjacent(Card.parse("AD"), Card.parse(c)) for c in ("KS", "2H", "QC", "AC")]
    [True, True, False, False]
    """
    return (a.rank - b.rank) % RANKS_IN_CYCLE in (1, RANKS_IN_CYCLE - 1)


def lands(card: Card, top: Card | None, open_start: bool = False) -> bool:
    """Whether ``card`` is a valid placement on a pile whose top is ``top`` (None: empty).

    >>> lands(Card.parse("AC"), None), lands(Card.parse("9C"), None)
    (True, False)
    >>> lands(Card.parse("9C"), None, open_start=True), lands(Card.parse("8D"), Card.parse("7H"))
    (True, True)
    """
    if top is None:
        return open_start or card.rank == ACE
    return adjacent(card, top)


#: How sure a lead in cards is, counted against the cards the two seats hold: a seat holding
#: ``mine`` cards ends ahead of one holding ``theirs`` with odds ``exp(LEAD_SLOPE * (theirs -
#: mine) / (mine + theirs))`` (a logistic fit, on 2,134 positions of 400 two-player heuristic
#: matches, of who finished first). The kernel restates it (``repezita_playouts.pyx``).
LEAD_SLOPE = 9.5


def lead_share(mine: int, theirs: int) -> float:
    """The chance that a seat holding ``mine`` cards ends ahead of one holding ``theirs``
    (both still holding some): even at equal hands, surer as the lead grows against the
    cards left. A rollout cut short is scored by it: by the hands' sizes alone a lead of one
    card was a sure win and a tie a win for both, so a search could not tell a small lead
    from a large one and threw cards into wrong-card locks (docs/games/repezita.md).

    >>> lead_share(5, 5), round(lead_share(4, 6), 2), round(lead_share(20, 22), 2)
    (0.5, 0.87, 0.61)
    """
    return 1.0 / (1.0 + math.exp(-(LEAD_SLOPE * (theirs - mine)) / (mine + theirs)))


def deck_count(players: int, decks: Any = "auto") -> int:
    """How many 52-card decks a table uses: ``auto`` is one for 2-6 players, two for 7-12.

    >>> deck_count(6), deck_count(7), deck_count(12, "1")
    (1, 2, 1)
    """
    if str(decks) == "auto":
        return 1 if players <= 6 else 2
    return int(decks)


def _cards_shown(cards: Sequence[Sequence[Card]]) -> list[list[str]]:
    return [[str(c) for c in k] for k in cards]


def _cards_read(shown: Sequence[Sequence[str]]) -> list[list[Card]]:
    return [[Card.parse(c) for c in k] for k in shown]


def _pile_states_shown(states: Sequence[tuple[int, Card | None, bool]]) -> list[list[Any]]:
    return [[ms, None if top is None else str(top), opened] for ms, top, opened in states]


def _pile_states_read(shown: Sequence[Sequence[Any]]) -> list[tuple[int, Card | None, bool]]:
    return [(ms, None if top is None else Card.parse(top), opened) for ms, top, opened in shown]


#: ``submitted`` depends on the seat, so the declaration leaves it out: views show it just
#: before ``clock_ms``, where they always have.
_BEFORE_SUBMITTED = "clock_ms"
_SUBMITTED_HELP = "tick mode: 1 once you have submitted this tick (you wait for the others)"


def _with_submitted(counters: dict[str, Any], value: Any) -> dict[str, Any]:
    """``counters`` with ``submitted`` (which depends on the seat) in its place."""
    out: dict[str, Any] = {}
    for name, v in counters.items():
        if name == _BEFORE_SUBMITTED:
            out["submitted"] = value
        out[name] = v
    return out


class RepezitaState(Simultaneous, Zoned):
    """A Repezita match in progress (tick or real-time mode).

    Hands are lists (two decks mean duplicate cards). ``known[s]`` is the part of seat ``s``'s
    hand everybody knows: cards it picked up face up with a wrong card and has not played since.
    """

    #: A world rebuilt from a view keeps that view's walk (:mod:`.world`): the search's
    #: dealer reads it instead of walking the whole history again.
    _walked: Skeleton | None = None

    #: Where cards lie (:mod:`levata.engine.zones`), in the order tables, views and positions
    #: list them.
    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "hand",
            "the seat's cards, in the order it took them",
            attr="hands",
            per_seat=True,
            seen=OWNER,
            shown=False,  # a seat's own hand is view.hand; nobody sees another's
            counted="how many cards the seat holds",
        ),
        Place(
            "pile",
            "the shared pile, bottom first (its last card is the top)",
            counted="cards on the pile",
        ),
        Place(
            "dead",
            "cards of piles that died (face up, out of play)",
            counted="cards in the dead area",
        ),
        Place(
            "aside",
            "cards set aside unseen at the deal",
            seen=FACE_DOWN,
            shown=False,
            counted="cards set aside unseen at the deal (the deck does not divide evenly)",
        ),
    )

    #: The state beyond the cards, declared once (:mod:`levata.engine.fields`): the view's
    #: counters and facts in the order views show them (``submitted``, the seat's own, is
    #: added by :meth:`view`), then what only a position writes down: the tick buffer and the
    #: real-time clock state the rules read later.
    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Count("tick", "tick mode: the tick being played, from 0"),
        Count(
            "idle",
            "ticks (tick mode) or ms (realtime) since the pile last changed",
            attr="idle_shown",
            derived=True,
        ),
        Field(
            "open_start",
            "1 while the pile is open: any card may start it until one lands",
            section="counters",
            show=int,
            read=bool,
        ),
        Count("clock_ms", "realtime: the referee's clock the state was judged at, in ms"),
        Fact("mode", "the mode option: tick or realtime", derived=True),
        Fact(
            "priority",
            "tick mode: the unfinished seats in this tick's resolution order",
            attr="priority_shown",
            derived=True,
        ),
        Fact("finished", "the seats that emptied their hands, in order"),
        Fact(
            "known",
            "per seat, the cards it picked up with a pile in public (still in its hand)",
            show=_cards_shown,
            read=_cards_read,
        ),
        # The raw stall counter (tick mode); the view's ``idle`` is worked out from it, or in
        # real time from ``last_change_ms``.
        Kept("idle", "tick mode: ticks since the pile last changed (realtime: 0)"),
        Kept("last_change_ms", "realtime: the clock when the pile last changed"),
        Kept(
            "pile_states",
            "realtime: the race window, each pile state [start_ms, top (null: empty), open]",
            show=_pile_states_shown,
            read=_pile_states_read,
        ),
        SUBMISSIONS,
        Kept("reason", "why the match ended (empty while it runs)"),
        Kept("ranks", "the final ranks (empty while the match runs)"),
    )

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
        per_seat = len(order) // players
        dealt = per_seat * players
        self.collect(order, into="aside")  # face down; what is not dealt stays aside
        for s in range(players):
            self.move(order[s:dealt:players], "aside", f"hand:{s}")  # told by no event
        self._settle()
        self._emit(events.DEAL, hand=per_seat, aside=len(order) - dealt, decks=self.decks)

    def _configure(self, spec: GameSpec, players: int, options: dict[str, Any], seed: int) -> None:
        super().__init__(spec, players, options, seed)
        self.mode: str = options["mode"]
        self.realtime = self.mode == "realtime"
        self.decks = deck_count(players, options["decks"])
        self.copies = self.decks > 1  # a hand may hold both copies: the first one is played

    def deck(self) -> list[Card]:
        """Every card of this table's deck(s), in a fixed order."""
        return list(french_deck()) * self.decks

    def _lay(
        self,
        hands: Sequence[Sequence[Card]],
        aside: Sequence[Card],
        pile: Sequence[Card] = (),
        dead: Sequence[Card] = (),
        **settled: Any,
    ) -> None:
        """Lay out a position's cards (set up by hand, or rebuilt from a view), then
        :meth:`_settle` the rest."""
        self.hands: list[list[Card]] = [list(h) for h in hands]
        self.aside: list[Card] = list(aside)
        self.pile: list[Card] = list(pile)
        self.dead: list[Card] = list(dead)
        self._settle(**settled)

    def _settle(
        self,
        known: Sequence[Sequence[Card]] | None = None,
        finished: Sequence[int] = (),
        tick: int = 0,
        idle: int = 0,
        open_start: bool = False,
        clock_ms: int = 0,
    ) -> None:
        """Everything but the cards' places, once they lie where they do."""
        n = self.players
        self.known: list[list[Card]] = [list(k) for k in known] if known else [[] for _ in range(n)]
        self.finished: list[int] = list(finished)
        self.idle = idle
        self.open_start = open_start
        self.over = False
        self.reason = ""
        self.ranks: list[int] = []
        # Realtime: the referee's clock, when the pile last changed, and the pile states
        # (start_ms, top, open_start) still inside the race window, oldest first.
        self.clock_ms = clock_ms
        self.last_change_ms = clock_ms
        self.pile_states: list[tuple[int, Card | None, bool]] = [
            (clock_ms, self.pile[-1] if self.pile else None, open_start)
        ]
        # Caches kept current on every change (never filled lazily by a query, so a query
        # leaves the state byte-for-byte as it was).
        self._plays: list[list[Action]] = [self._plays_of(s) for s in range(n)]
        self._history: tuple[Event, ...] = ()
        self._start_ticks(tick)

    @classmethod
    def from_position(  # noqa: PLR0913  (a hand-made position: every part a keyword)
        cls,
        players: int,
        hands: Sequence[str | Iterable[Card]],
        *,
        pile: str | Iterable[Card] = (),
        dead: str | Iterable[Card] = (),
        aside: str | Iterable[Card] | None = None,
        known: Sequence[str | Iterable[Card]] | None = None,
        finished: Sequence[int] = (),
        tick: int = 0,
        idle: int = 0,
        open_start: bool = False,
        clock_ms: int = 0,
        options: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> RepezitaState:
        """Set up a position directly (tests, puzzles). Cards are lists or strings.

        A different thing from :meth:`GameSpec.from_position`, which reads back the whole
        position's text that :meth:`position` writes.

        ``aside`` defaults to every card of the deck not placed elsewhere, so the table still
        holds exactly the deck. ``finished`` lists finished seats in finish order (their hands
        must be empty). In realtime mode the pile is taken to have last changed at ``clock_ms``.

        >>> s = RepezitaState.from_position(3, ["8C", "6S", "KH"], pile="AD 2C 7D")
        >>> s.counts_of("pile"), s.counts_of("aside")
        (3, 46)
        """
        if players not in SPEC.players:
            raise BadConfig(f"repezita is played by 2-12 players, not {players}")
        if len(hands) != players:
            raise ValueError(f"{len(hands)} hands for {players} players")
        state = cls.__new__(cls)
        state._configure(SPEC, players, SPEC.resolve_options(options), seed)
        hand_cards = [_cards(h) for h in hands]
        pile_cards, dead_cards = _cards(pile), _cards(dead)
        placed = Counter(pile_cards) + Counter(dead_cards)
        for h in hand_cards:
            placed.update(h)
        if aside is None:
            rest = Counter(state.deck())
            rest.subtract(placed)
            if any(v < 0 for v in rest.values()):
                extra = sorted(str(c) for c, v in rest.items() if v < 0)
                raise ValueError(f"more copies than the deck holds: {extra}")
            aside_cards = list(rest.elements())
        else:
            aside_cards = _cards(aside)
        known_cards = [_cards(k) for k in known] if known else None
        if known_cards and any(
            Counter(k) - Counter(h) for k, h in zip(known_cards, hand_cards, strict=True)
        ):
            raise ValueError("a seat's known cards must be in its hand")
        empty = {s for s in range(players) if not hand_cards[s]}
        if empty != set(finished):
            raise ValueError("the finished seats must be exactly those with empty hands")
        if players - len(empty) < 2:
            raise ValueError("a position needs two seats still holding cards")
        state._lay(
            hands=hand_cards,
            aside=aside_cards,
            pile=pile_cards,
            dead=dead_cards,
            known=known_cards,
            finished=finished,
            tick=tick,
            idle=idle,
            open_start=open_start,
            clock_ms=clock_ms,
        )
        return state

    # -- small helpers --------------------------------------------------------------------------

    @property
    def top(self) -> Card | None:
        """The pile's top card, or None on an empty pile."""
        return self.pile[-1] if self.pile else None

    def counts_of(self, zone: str) -> int:
        """Cards in a named zone: ``pile``, ``dead``, ``aside`` or ``hand:<seat>``."""
        return len(self.cards_at(zone))

    def _plays_of(self, seat: int) -> list[Action]:
        return [play(c) for c in sorted(set(self.hands[seat]), key=_by_rank)]

    def _hand_changed(self, seat: int) -> None:
        self._plays[seat] = self._plays_of(seat)

    def unfinished(self) -> list[int]:
        """Seats still holding cards, in seat order."""
        return [s for s in range(self.players) if self.hands[s]]

    seats_in_play = unfinished  # ``P_t`` lists the unfinished seats only

    # -- whose turn and what is legal ----------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self._waiting:
            return []
        # A card that is wrong on the pile is still legal: the rules penalise it.
        return [PASS, *self._plays[seat]]

    # -- resolving a tick (the base buffers the submissions) -----------------------------------

    def _resolve(self, order: Sequence[int]) -> bool:
        top0, open0 = self.top, self.open_start  # what every seat saw when it chose
        self._emit("tick", tick=self.tick, priority=order)
        changed = wrong = False
        for seat in order:
            action = self.submissions[seat]
            if action is None or action.kind != actions.PLAY:
                continue
            card: Card = action.card  # type: ignore[assignment]  # plays carry cards
            if wrong:  # [D5] after a wrong card the rest of the tick bounces
                self._emit("bounced", seat=seat, **self.stamp())
            elif lands(card, self.top, self.open_start):
                self._land(seat, card)
                changed = True
            elif lands(card, top0, open0):  # [D4] right on what it saw, beaten to it
                self._emit("bounced", seat=seat, **self.stamp())
            elif top0 is None:  # [D6] no pile to take
                self._emit("rejected", seat=seat, **self.stamp())
            else:
                self._wrong_card(seat, card)
                changed = wrong = True
        return changed

    def _after_tick(self, order: Sequence[int], changed: bool) -> None:
        self._finish_empty_hands(order)
        if not self.over:
            self._count_idle(changed)

    def _cap_reached(self) -> None:
        self._end("cap")

    def _land(self, seat: int, card: Card) -> None:
        self.move(card, f"hand:{seat}", "pile", kind="landed", seat=seat, **self.stamp())
        if card in self.known[seat]:
            self.known[seat].remove(card)
        self._hand_changed(seat)
        self.open_start = False
        self._pile_changed()

    def _wrong_card(self, seat: int, card: Card) -> None:
        # The card is laid face up on the pile first (the event shows it there), then the seat
        # picks the whole pile up: every one of those cards is now known to be in its hand.
        self.move(card, f"hand:{seat}", "pile")  # told by wrong_card, with the whole pile
        taken = tuple(self.pile)
        self._emit("wrong_card", seat=seat, cards=taken, card=str(card), **self.stamp())
        if card in self.known[seat]:
            self.known[seat].remove(card)
        self.move(taken, "pile", f"hand:{seat}")  # everyone saw them go
        self.known[seat].extend(taken)
        self._hand_changed(seat)
        self._pile_changed()

    def _kill_pile(self) -> None:
        self.move(self.pile, "pile", "dead", kind="pile_dead", **self.stamp())
        self._pile_changed()

    def _start_open(self) -> None:
        self.open_start = True
        if self.realtime:
            self._record_pile_state()
        self._emit("open_start", **self.stamp())

    def _pile_changed(self) -> None:
        self.idle = 0
        if self.realtime:
            self.last_change_ms = self.clock_ms
            self._record_pile_state()

    def _record_pile_state(self) -> None:
        self.pile_states.append((self.clock_ms, self.top, self.open_start))
        # A state that ended before the window opened can never matter again (clocks only
        # move forward), so keep the list short.
        window_opens = self.clock_ms - self.options["race_ms"]
        while len(self.pile_states) > 1 and self.pile_states[1][0] <= window_opens:
            self.pile_states.pop(0)

    def _count_idle(self, changed: bool) -> None:
        """[D7] The idle counter, the blocked pile and the open start, after each tick."""
        if changed:
            return  # every change already reset the counter
        self.idle += 1
        if self.idle >= self.options["idle_ticks"]:
            if self.pile:
                self._kill_pile()
            elif not self.open_start:
                self._start_open()

    def _finish_empty_hands(self, order: Sequence[int]) -> None:
        for seat in order:
            if not self.hands[seat] and seat not in self.finished:
                self.finished.append(seat)
                self._emit(events.FINISH, seat=seat, rank=len(self.finished))
        if sum(1 for h in self.hands if h) <= 1:
            self._end("complete")

    def _end(self, reason: str) -> None:
        holding = self.unfinished()  # fewest cards ranks best; ties share the better rank
        self.ranks = list(ranks_by_finish(self.finished, holding, [len(h) for h in self.hands]))
        self.reason = reason
        self.over = True
        self._stop_ticks()
        self._emit(events.END, ranks=list(self.ranks), reason=reason)

    # -- realtime --------------------------------------------------------------------------------

    def _act_now(self, seat: int, action: Action) -> None:
        """Judge one play at the current clock against the pile and the race window (§4.2);
        a pass does nothing."""
        card = action.card
        if card is None:
            return
        if lands(card, self.top, self.open_start):
            self._land(seat, card)
        else:
            window_opens = self.clock_ms - self.options["race_ms"]
            seen = [
                (top, flag)
                for i, (_, top, flag) in enumerate(self.pile_states)
                if i + 1 == len(self.pile_states) or self.pile_states[i + 1][0] > window_opens
            ]
            if any(lands(card, top, flag) for top, flag in seen):
                self._emit("bounced", seat=seat, **self.stamp())
            elif any(top is None for top, _ in seen):
                self._emit("rejected", seat=seat, **self.stamp())
            else:
                self._wrong_card(seat, card)
        self._finish_empty_hands([seat])

    def _next_timer(self) -> int | None:
        """The stall timer (the base's :meth:`advance_clock` fires it): a pile that has not
        changed for ``idle_ms`` dies; an empty pile unchanged for ``idle_ms`` opens."""
        if self.pile or not self.open_start:
            return self.last_change_ms + self.options["idle_ms"]
        return None

    def _fire_timer(self) -> None:
        if self.pile:
            self._kill_pile()
        else:
            self._start_open()

    # -- what a seat may know ----------------------------------------------------------------

    def history(self, seat: int) -> tuple[Event, ...]:
        # Every Repezita event is public, so each seat's history is the whole log; keep one
        # tuple of it instead of filtering the log for every view.
        if len(self._history) != len(self._log):
            self._history = tuple(self._log)
        return self._history

    def view(self, seat: int, history: bool = True) -> SeatView:
        n = self.players
        return SeatView(
            game=self.game,
            seat=seat,
            players=n,
            phase=phases.OVER if self.over else RACING,
            to_act=self.to_act(),
            hand=tuple(sorted(self.hands[seat], key=_by_rank)),
            zones=self.view_zones(seat),
            counts=self.view_counts(),
            counters=_with_submitted(
                declared.shown_counters(self.FIELDS, self, n), self.submitted(seat)
            ),
            trump=None,
            scores=self._scores(),
            facts=declared.shown_facts(self.FIELDS, self),
            history=(self.history(seat)) if history else (),
            options=self.options,
        )

    @property
    def idle_shown(self) -> int:
        """What a view's ``idle`` says: ticks since the pile last changed, or in real time (no
        ticks) the ms since then."""
        return self.clock_ms - self.last_change_ms if self.realtime else self.idle

    @property
    def priority_shown(self) -> list[int]:
        """``P_t`` while the match runs (none once it is over)."""
        return [] if self.over else self.priority()

    # -- outcome ----------------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.over

    def estimate(self) -> tuple[float, ...]:
        """What a search that cuts its rollouts short scores them by: the final scores once
        over; before, each seat's expected score, ``players - rank`` on average: a finisher
        its place's, a seat still holding cards its chance (:func:`lead_share`) to end
        ahead of each other seat still holding some.

        >>> state = RepezitaState.from_position(3, ["8C 9H", "6S", "KH 2C 3C"])
        >>> [round(x, 2) for x in state.estimate()]
        [0.91, 1.95, 0.14]
        """
        if self.over:
            return self._scores()
        held = [len(h) for h in self.hands]
        out = [0.0] * self.players
        for place, seat in enumerate(self.finished, start=1):
            out[seat] = float(self.players - place)
        holding = self.unfinished()
        for seat in holding:
            out[seat] = sum(lead_share(held[seat], held[o]) for o in holding if o != seat)
        return tuple(out)

    def _scores(self) -> tuple[float, ...]:
        if not self.over:
            return (0.0,) * self.players
        return tuple(float(self.players - r) for r in self.ranks)

    def result(self) -> Result:
        if not self.over:
            raise RuntimeError("the match is not over")
        best = min(self.ranks)
        return Result(
            scores=self._scores(),
            ranks=tuple(self.ranks),
            winners=tuple(s for s, r in enumerate(self.ranks) if r == best),
            reason=self.reason,
        )

    # -- copies and determinization ---------------------------------------------------------------

    def clone(self) -> RepezitaState:
        """An independent copy, without deepcopy (cards, actions and events are immutable)."""
        other: RepezitaState = self._shallow_copy()
        other.hands = [list(h) for h in self.hands]
        other.known = [list(k) for k in self.known]
        other.aside = list(self.aside)
        other.pile = list(self.pile)
        other.dead = list(self.dead)
        other.finished = list(self.finished)
        other.ranks = list(self.ranks)
        other.pile_states = list(self.pile_states)
        other._plays = list(self._plays)  # the inner lists are replaced, never mutated
        return other

    # -- positions: the whole state as text ----------------------------------------------------

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        """Each hand (in the order it is held), the pile, the dead area and the cards set
        aside, then every declared field: the tick buffer and the clock state included."""
        places = self.place_values()
        values: dict[str, Any] = {"phase": phases.OVER if self.over else RACING, **places}
        values.update(declared.stored(self.FIELDS, self))
        return values, set(places)

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> RepezitaState:
        state = cls.__new__(cls)
        state._configure(spec, pos.players, options, seed)
        state.load_places(pos.cards)
        check_deck(list(state.place_values().values()), state.deck())
        state._settle()
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        if any(Counter(k) - Counter(h) for k, h in zip(state.known, state.hands, strict=True)):
            raise BadConfig("position: a seat's known cards must be in its hand")
        state.over = pos.value("phase") == phases.OVER
        state._resume_ticks()
        return state

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> RepezitaState:
        """A state whose ``view(view.seat)`` is ``view``, hidden cards dealt from ``rng`` under
        what the history implies (see :mod:`levata.engine.games.repezita.world`)."""
        state = cls.__new__(cls)
        state._configure(spec, view.players, dict(view.options), rng.getrandbits(32))
        hidden = deal_world(view, state.deck(), rng)
        counters = view.counters
        realtime = view.facts["mode"] == "realtime"
        state._lay(
            hands=hidden.hands,
            aside=hidden.aside,
            pile=view.zones["pile"],
            dead=view.zones["dead"],
            known=hidden.known,
            finished=view.facts["finished"],
            tick=counters["tick"],
            idle=0 if realtime else counters["idle"],
            open_start=bool(counters["open_start"]),
            clock_ms=counters["clock_ms"],
        )
        if realtime:
            state.last_change_ms = counters["clock_ms"] - counters["idle"]
        state.pile_states = hidden.pile_states
        # Seats already in this tick: what they chose is hidden, so a pass.
        state._restore_submissions(view.to_act, Action(actions.PASS))
        state._log = list(view.history)
        state.rng = random.Random(rng.getrandbits(64))
        state._walked = skeleton(view, state.deck())  # kept by deal_world: no second walk
        return state

    def sample_world(self, seat: int, rng: random.Random) -> RepezitaState:
        world = self.clone()
        others = [s for s in range(self.players) if s != seat]
        pool: list[Card] = list(self.aside)
        sizes: dict[int | str, int] = {}
        for s in others:
            hidden = Counter(self.hands[s])
            hidden.subtract(self.known[s])
            pool.extend(hidden.elements())
            sizes[s] = len(self.hands[s]) - len(self.known[s])
        sizes["aside"] = len(self.aside)
        dealt = deal_hidden(pool, sizes, rng)
        for s in others:
            world.hands[s] = list(self.known[s]) + dealt[s]
            world._hand_changed(s)
        world._blank_submissions(seat, PASS)  # the real card must not leak into the sample
        world.aside = dealt["aside"]
        world._reseed_for_sample(rng)
        return world

    # -- the search's fast copy -------------------------------------------------------------------

    def playout_state(self, seed: int) -> RepezitaPlayout | RepezitaState:
        """A copy for the search's rollouts: in tick mode the C kernel
        (:mod:`levata.engine.repezita_playouts`: the same rules, no events logged, its own
        random stream from ``seed``; ``tests/engine/test_repezita_kernel.py`` proves it against
        this class). Real time has no kernel: a plain :meth:`clone`, played through the
        contract (the search does not ask for a fast copy in real time anyway).

        >>> s = RepezitaState.from_position(2, ["8C 9H 3S", "KD 5D"], pile="AD 6C 7D")
        >>> fast = s.playout_state(seed=1)
        >>> fast.legal_actions(0) == s.legal_actions(0), str(fast.choose(0))
        (True, 'play 8C')
        """
        if self.realtime:
            return self.clone()
        return RepezitaPlayout(self.playout_fields(), seed)

    def playout_dealer(self, seat: int, seed: int) -> RepezitaDealer:
        """The search's dealer of worlds ``seat`` cannot tell from this one, as fast copies
        (:class:`~levata.engine.repezita_playouts.RepezitaDealer`): :meth:`from_view`'s deal,
        in C, draw for draw. This state must itself be such a world (``from_view`` of
        ``seat``'s view, or the real match); its hidden cards are dealt afresh each time, and
        the others' submissions this tick are passes (as ``from_view``'s). Tick mode only.

        >>> s = RepezitaState.from_position(3, ["8C 9H", "KD 5D", "2S"], pile="AD 6C 7D")
        >>> world = s.playout_dealer(0, seed=1).deal(seed=2)
        >>> [len(h) for h in world.fields()["hands"]], str(world.choose(0))
        ([2, 2, 1], 'play 8C')
        """
        skel = self._walk_of(seat)
        fields = self.playout_fields()
        fields["submissions"] = [None if a is None else str(PASS) for a in self.submissions]
        base = RepezitaPlayout(fields, 0)
        return RepezitaDealer(base, seat, skel.pool, skel.sizes, skel.needs, seed, TRIES)

    def _walk_of(self, seat: int) -> Skeleton:
        """The walk over ``seat``'s view: the one :meth:`from_view` kept while this state's log
        is still that view's (the walk reads what only events change: a submission alone
        changes none of it), else a fresh one."""
        kept = self._walked
        if kept is not None and kept.view.seat == seat and len(kept.view.history) == len(self._log):
            return kept
        return skeleton(self.view(seat), self.deck())

    def playout_fields(self) -> dict[str, Any]:
        """This position as plain values, as the kernel's ``fields()`` says them: hands and
        known cards by rank then suit, the pile and the dead area as they lie, the tick buffer
        (who is still to submit, what the others submitted), the counters, the end and the
        options that change play."""
        return {
            "players": self.players,
            "decks": self.decks,
            "hands": [sorted(h, key=_by_rank) for h in self.hands],
            "known": [sorted(k, key=_by_rank) for k in self.known],
            "pile": list(self.pile),
            "dead": list(self.dead),
            "finished": list(self.finished),
            "waiting": list(self._waiting),
            "submissions": [None if a is None else str(a) for a in self.submissions],
            "tick": self.tick,
            "idle": self.idle,
            "open_start": bool(self.open_start),
            "over": self.over,
            "reason": self.reason,
            "ranks": list(self.ranks),
            "idle_ticks": self.options["idle_ticks"],
            "tick_cap": self.options["tick_cap"],
            "mode": self.mode,
        }

    def __getstate__(self) -> dict[str, Any]:
        # The history tuple is a cache of the log filled by queries; leave it out so that a
        # query never changes what the state pickles to.
        state = super().__getstate__()
        state["_history"] = ()
        state.pop("_walked", None)  # the view's walk, a cache as well
        return state


def _cards(cards: str | Iterable[Card]) -> list[Card]:
    return parse_cards(cards) if isinstance(cards, str) else list(cards)


def _by_rank(card: Card) -> tuple[int, int]:
    return (card.rank, int(card.suit))


def _when(ev: Event) -> str:
    return f"ms {ev.data['at_ms']}" if "at_ms" in ev.data else f"tick {ev.data.get('tick')}"


#: Lines for Repezita's own event kinds (the shared ones are said by the server's narration).
_LINES = {
    "tick": lambda ev: f"-- tick {ev.data['tick']}: priority {ev.data['priority']}",
    "landed": lambda ev: f"seat {ev.seat} lands {ev.cards[0]} ({_when(ev)})",
    "bounced": lambda ev: f"   seat {ev.seat} bounces: another card landed first ({_when(ev)})",
    "rejected": lambda ev: f"   seat {ev.seat}'s card has no pile to land on ({_when(ev)})",
    "wrong_card": lambda ev: (
        f"seat {ev.seat} throws a wrong {ev.data['card']} and takes the pile ({_when(ev)})"
    ),
    "pile_dead": lambda ev: f"   the pile is dead ({_when(ev)})",
    "open_start": lambda ev: f"-- anyone may start a pile ({_when(ev)})",
}


def narrate(ev: Event) -> str | None:
    """A line for one of Repezita's own events, ``None`` for the shared ones.

    >>> narrate(Event(seq=4, kind="pile_dead", data={"tick": 7}))
    '   the pile is dead (tick 7)'
    """
    line = _LINES.get(ev.kind)
    return None if line is None else line(ev)


_ZONES, _COUNTS = described(RepezitaState.PLACES)

VOCABULARY = Vocabulary(
    phases={
        RACING: "every unfinished seat races to shed its cards",
        phases.OVER: "the match is over",
    },
    zones=_ZONES,
    counts=_COUNTS,
    counters=_with_submitted(declared.described(RepezitaState.FIELDS, "counters"), _SUBMITTED_HELP),
    facts=declared.described(RepezitaState.FIELDS, "facts"),
    actions={
        actions.PLAY: "play `card` on the pile: it lands if one rank above or below the top"
        " (A-2 and K-A wrap; suits do not matter), or an A on an empty pile",
        actions.PASS: "do nothing this tick (realtime: accepted, does nothing)",
    },
    events={
        events.DEAL: "the deal: `data.hand` (cards each), `aside`, `decks`",
        "tick": "tick mode: the tick resolves, `data.tick`, in the order `data.priority`",
        "landed": "`seat` put `cards` on the pile (`data.tick` or `data.at_ms`)",
        "bounced": "`seat`'s card was good on the pile it saw, but another card got there"
        " first: it stays in the hand",
        "rejected": "`seat` played a card that is not an A on an empty pile: it stays",
        "wrong_card": "`seat` played `data.card`, wrong on the pile it saw: it takes the pile"
        " and the card (`cards`)",
        "pile_dead": "the pile did not change for idle_ticks (idle_ms): its `cards` are dead",
        "open_start": "the empty pile did not change for idle_ticks (idle_ms): any card may"
        " start it now",
        events.FINISH: "`seat` emptied its hand: `data.rank`",
        events.END: "the match is over: `data.ranks` (1 = best), `data.reason`",
    },
)

SPEC = register(
    GameSpec(
        name="repezita",
        title="Repezita",
        players=tuple(range(2, 13)),
        summary="Race to shed your hand on one pile, one rank up or down; a wrong card costs it.",
        options=(
            Option(
                "mode", "tick", "tick (simultaneous, default) or realtime", ("tick", "realtime")
            ),
            Option("race_ms", 300, "realtime: race window for a bounce, in ms", minimum=0),
            Option("idle_ticks", 3, "idle ticks before a pile dies or opens", minimum=1),
            Option("idle_ms", 3000, "realtime: idle ms before a pile dies or opens", minimum=1),
            Option("tick_cap", 5000, "ticks before the match stops", minimum=1),
            Option("time_cap_ms", 900_000, "realtime: ms before the match stops", minimum=1),
            Option(
                "decks",
                "auto",
                "52-card decks: auto (1 for 2-6, 2 for 7-12), 1 or 2",
                ("auto", "1", "2"),
            ),
        ),
        factory=RepezitaState,
        # Random seats rarely finish (a wrong card takes the pile): cap random matches early.
        short_options={"tick_cap": 150, "time_cap_ms": 15_000},
        bots={
            "heuristic": "levata.bots.heuristic.repezita:HeuristicBot",
            # the kernel, rollouts played to the end and the guard counting the moves it
            # weighs: cut rollouts and a plain guard let it throw wrong-card locks and stall
            # (docs/games/repezita.md, "Wrong-card locks"); fast=0 is the contract
            "ismcts": "levata.bots.search.ismcts:IsmctsBot:horizon=0:corrected=1",
        },
        narrate=narrate,
        vocabulary=VOCABULARY,
    )
)
