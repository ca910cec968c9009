"""Kemps: teams of two grab cards from the table to make four of a kind, and a partner who
sees the agreed secret signal calls "Kemps!" (rules: ``docs/games/kemps.md``).

An even 4-12 players, partners opposite (seat ``i`` and ``i + N/2``, team ``i mod N/2``); one
deck up to 8 players, two from 10. Every deal opens with a **convention** step: each team gets a
fresh 128-bit ``team_secret`` that only its two members see (``facts["team_secret"]``), and each
member registers, hidden, the tokens of the alphabet ``G0..G15`` that will mean "I have a quad"
(``register kemps=<mask>``, bit ``i`` is ``Gi``): the team's kemps set is the union. Then four
cards each and four face up on the table, and the **exchange**: every tick each seat submits
``pass``, ``swap <card>@<slot>`` (give a hand card, take the slot's card), ``kemps`` (my partner
holds a quad) or ``contrakemps <team>`` (that team holds one), hidden until the tick resolves
in the rotating priority ``P_t`` (:class:`~levata.engine.family.simultaneous.Simultaneous`).

Any exchange action may carry one signal as a payload (``pass signal=G7``), never a list of
every combination: :meth:`KempsState.payload_schema` says what a choice accepts. Every signal
is public (``signal`` events, ``facts["signals"]``); what it means is the team's secret. A seat
that signals a token of its own kemps set without holding a quad at the start of the tick
breaks the rule against other meanings, and its team loses the game (``signal_violation``).

Resolution of a tick: the first call in ``P_t`` is judged on the tick-start hands (the revealed
hands are shown to all), the others and every swap are void, and the deal ends; otherwise the
swaps go in ``P_t`` order, a slot changing hands once (a later swap on it fails in public). Then
the tick's signals are broadcast and audited. A tick where every seat passed flushes the table
to the dead pile and turns four new cards; with the stock empty comes one ``last_call`` tick
(calls or ``pass``), after which the deal ends with no penalty. Sixty ticks on one table set
force a flush. A team at five penalties loses; after ``max_deals`` deals the fewest penalties
win.

Real time (``mode=realtime``, the referee's real-time path): actions apply on arrival at the
referee's clock. A swap may name ``expect=<card>`` and fails if the slot holds something else by
then; ``pass`` is the rules' "ready" (everyone ready since the last swap flushes the table); a
table unchanged for ``quiet_ms`` flushes too, the last call lasts ``quiet_ms``, and so does a
convention step (who has not registered by then registers nothing). The audit reads the hand
at the signal's arrival.

Decisions beyond the rules' own list (the rest are in the docs page):

* Deals are numbered from 1; the dealer of deal ``d`` is seat ``(d - 1) mod N``, and the deal
  gives four cards to each seat from the dealer's left, then four to the table, from the top
  of the stock. The deck order of the first deal is the match's (``deal=``), later ones are
  shuffled when the previous deal ends.
* A tick's signals are broadcast after its call or swaps; a signal violation in the same tick
  as a call decides the game (the violating team is last) whatever the call gave.
* ``register`` without a payload registers nothing (as a member who times out, [D15]);
  ``chat`` without a payload sends nothing. Signals ride only on exchange and last-call actions.
* ``known`` (a fact) lists, per seat, the cards everybody saw it take and that it still holds:
  what "watching the cards others take" tells anyone, kept so a bot need not replay the log.
* Views show no quad flag: only a seat's own hand, the public swaps and signals. Scores while
  the match runs are each seat's team penalties, negated; at the end ``players - rank``.
* A world rebuilt for search gives the other teams fresh random secrets and empty kemps sets
  (never the real ones), and the other seats' unresolved submissions become the phase's blank
  (``pass``, a plain ``register`` or ``chat``). A partner that showed one of the team's kemps
  tokens in the last tick and took no card since holds four of a kind in it (the audit says
  so).

>>> state = KempsState.from_position(4, ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C",
...                                      "JS QS KS AS"], table="2H 3H 4H 5H")
>>> for seat in (0, 1, 3):
...     state.apply(seat, PASS)
>>> state.apply(2, Action.parse("kemps"))
>>> [str(e) for e in state.events()[1:3]]
['seat 2 called call=kemps tick=0', 'seat 0 revealed 7S 7H 7D 7C quad=True']
>>> state.penalties
[0, 1]
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from levata.engine import actions, events
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
from levata.engine.deal import deal_hidden, shuffled
from levata.engine.family.simultaneous import SUBMISSIONS, Simultaneous
from levata.engine.fields import Counter as Count
from levata.engine.fields import Declared, Fact, Kept, Seats
from levata.engine.games.kemps.playout import KempsPlayout
from levata.engine.games.kemps.rules import (
    ALPHABET,
    CALL_KINDS,
    CHAT,
    CONTRAKEMPS,
    HAND_SIZE,
    KEMPS,
    REGISTER,
    SLOTS,
    SWAP,
    ChatText,
    contrakemps,
    holds_quad,
    partner,
    swap,
    swap_parts,
    team_of,
    teams,
    tokens_of,
)
from levata.engine.kemps_playouts import KempsDealer
from levata.engine.kemps_playouts import KempsPlayout as KernelPlayout
from levata.engine.position import Position, check_deck
from levata.engine.registry import register
from levata.engine.vocabulary import Vocabulary
from levata.engine.zones import FACE_DOWN, OWNER, SHOWN, Place, Zoned, described

__all__ = ["PASS", "SPEC", "KempsState", "deck_count"]

PASS = Action(actions.PASS)
CALL_KEMPS = Action(KEMPS)
PLAIN_REGISTER = Action(REGISTER)
PLAIN_CHAT = Action(CHAT)

# Phases.
CHATTING = "chat"
CONVENE = "convene"
EXCHANGE = "exchange"
LAST_CALL = "last_call"
OVER = "over"

LOSING_PENALTIES = 5
#: [D5] ticks (real time: successful swaps) on one table set before a forced flush.
SET_GUARD = 60
_MASKS = range(1, 1 << len(ALPHABET))
_CHAT_TEXT = ChatText()


def deck_count(players: int) -> int:
    """[D1] One 52-card deck up to 8 players, two from 10.

    >>> deck_count(8), deck_count(10)
    (1, 2)
    """
    return 1 if players <= 8 else 2


def _cards_shown(cards: Sequence[Sequence[Card]]) -> list[list[str]]:
    return [[str(c) for c in k] for k in cards]


def _cards_read(shown: Sequence[Sequence[str]]) -> list[list[Card]]:
    return [[Card.parse(c) for c in k] for k in shown]


def _submitted_first(counters: dict[str, Any], value: int) -> dict[str, Any]:
    """``counters`` with ``submitted`` (which depends on the seat) just after ``tick``."""
    out: dict[str, Any] = {}
    for name, v in counters.items():
        out[name] = v
        if name == "tick":
            out["submitted"] = value
    return out


class KempsState(Simultaneous, Zoned):
    """A Kemps match in progress (tick or real-time mode). ``table`` holds the four slots in
    order; ``stock[0]`` is the top card."""

    hands: list[list[Card]]
    slots: list[Card]
    stock: list[Card]
    dead: list[Card]

    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "hand",
            "the seat's four cards",
            attr="hands",
            per_seat=True,
            seen=OWNER,
            shown=False,
            counted="how many cards the seat holds",
        ),
        Place("table", "the four face-up cards, slot 0 to 3", attr="slots"),
        Place(
            "stock",
            "the face-down stock the table is refilled from",
            seen=FACE_DOWN,
            shown=False,
            counted="cards left in the stock",
        ),
        Place("dead", "the flushed table cards (face up, out of play)", counted="dead cards"),
        SHOWN,
    )

    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Count("tick", "tick mode: the tick being played, from 0 (counts every tick of the match)"),
        Count("deal", "the deal in progress, from 1", attr="deal_no"),
        Count("dealer", "the seat that deals this deal"),
        Count("set_ticks", "ticks on this table set (a flush at 60); realtime: swaps on it"),
        Count("clock_ms", "realtime: the referee's clock the state was judged at, in ms"),
        Seats(
            Count("team_penalties", "the team's penalties (five lose)", attr="penalties"),
            count="team",
        ),
        Fact("mode", "the mode option: tick or realtime", derived=True),
        Fact(
            "priority",
            "tick mode: this tick's resolution order (P_t)",
            attr="priority_shown",
            derived=True,
        ),
        Fact(
            "known",
            "per seat, the cards everyone saw it take this deal that it still holds",
            show=_cards_shown,
            read=_cards_read,
            each_seat=True,
        ),
        Fact(
            "signals",
            "the signals of the last tick as [seat, token] (realtime: of this table set)",
        ),
        Kept("phase", "the phase (convene, chat, exchange, last_call, over)"),
        Kept("secrets", "each team's secret for this deal (its two members see it)"),
        Kept("kemps_sets", "each team's registered kemps set as a mask (bit i is Gi)"),
        Kept("done", "per seat: acted in this convention step (realtime)"),
        Kept("chats", "per seat: the message it sent its partner this deal"),
        Kept("ready", "realtime: per seat, ready since the table last changed"),
        Kept("last_change_ms", "realtime: the clock when the table last changed"),
        Kept("phase_ms", "realtime: the clock when the phase began"),
        SUBMISSIONS,
        Kept("reason", "why the match ended (empty while it runs)"),
        Kept("losers", "the teams placed last (empty while the match runs)"),
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
        if deal is None:
            order = shuffled(deck, self.rng)
        else:
            order = list(deal)
            if Counter(order) != Counter(deck):
                raise BadConfig(f"the deal must be the {len(deck)}-card deck {players} players use")
        self.collect(order, into="stock")
        self._settle()
        self._convene(1)

    def _configure(self, spec: GameSpec, players: int, options: dict[str, Any], seed: int) -> None:
        super().__init__(spec, players, options, seed)
        self.mode: str = options["mode"]
        self.realtime = self.mode == "realtime"
        self.decks = deck_count(players)
        self.copies = self.decks > 1
        self.team_count = players // 2

    def deck(self) -> list[Card]:
        return list(french_deck()) * self.decks

    def _settle(self) -> None:
        """Every number at its start (the cards already lie where they do)."""
        n, t = self.players, self.team_count
        self.shown_cards: list[Card] = []
        self.phase = CONVENE
        self.deal_no = 0
        self.dealer = 0
        self.set_ticks = 0
        self.penalties = [0] * t
        self.known: list[list[Card]] = [[] for _ in range(n)]
        self.signals: list[list[Any]] = []
        self.secrets = [""] * t
        self.kemps_sets = [0] * t
        self.done = [False] * n
        self.chats = [""] * n
        self.ready = [False] * n
        self.last_change_ms = 0
        self.phase_ms = 0
        self.reason = ""
        self.losers: list[int] = []
        self.clock_ms = 0
        self._start_ticks(0)

    # -- positions set up by hand (tests, puzzles) ---------------------------------------------

    @classmethod
    def from_position(  # noqa: PLR0913  (a hand-made position: every part a keyword)
        cls,
        players: int,
        hands: Sequence[str | Iterable[Card]],
        *,
        table: str | Iterable[Card],
        stock: str | Iterable[Card] | None = None,
        dead: str | Iterable[Card] = (),
        kemps_sets: Sequence[Iterable[str]] | None = None,
        penalties: Sequence[int] | None = None,
        tick: int = 0,
        last_call: bool = False,
        options: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> KempsState:
        """An exchange in progress set up directly (cards as strings or lists); ``stock``
        defaults to every other card of the deck (in deck order)."""
        state = cls.__new__(cls)
        opts = SPEC.resolve_options(options)
        if players not in SPEC.players:
            raise BadConfig(f"kemps is played by 4, 6, 8, 10 or 12 players, not {players}")
        state._configure(SPEC, players, opts, seed)
        state.hands = [_cards(h) for h in hands]
        state.slots = _cards(table)
        state.dead = _cards(dead)
        if stock is None:
            rest = Counter(state.deck())
            for place in (*state.hands, state.slots, state.dead):
                rest.subtract(place)
            state.stock = [c for c in state.deck() if rest[c] > 0 and not rest.subtract([c])]
        else:
            state.stock = _cards(stock)
        check_deck([*state.hands, state.slots, state.stock, state.dead], state.deck())
        state._settle()
        state.deal_no = 1
        state.phase = LAST_CALL if last_call else EXCHANGE
        if kemps_sets is not None:
            state.kemps_sets = [sum(1 << ALPHABET.index(t) for t in k) for k in kemps_sets]
        if penalties is not None:
            state.penalties = list(penalties)
        state.secrets = [f"{state.rng.getrandbits(128):032x}" for _ in range(state.team_count)]
        state._start_ticks(tick)
        return state

    # -- who acts and what is legal -------------------------------------------------------------

    def seats_in_play(self) -> list[int]:
        if self.realtime and self.phase in (CONVENE, CHATTING):
            return [s for s in range(self.players) if not self.done[s]]
        return list(range(self.players))

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self._waiting:
            return []
        phase = self.phase
        if phase == CONVENE:
            return [PLAIN_REGISTER]
        if phase == CHATTING:
            return [PLAIN_CHAT]
        calls = self._calls(seat)
        if phase == LAST_CALL:
            return [PASS, *calls]
        swaps = [
            swap(c, k) for c in dict.fromkeys(self.hands[seat]) for k in range(len(self.slots))
        ]
        return [PASS, *swaps, *calls]

    def _calls(self, seat: int) -> list[Action]:
        own = team_of(seat, self.players)
        return [CALL_KEMPS, *(contrakemps(t) for t in range(self.team_count) if t != own)]

    def payload_schema(self, seat: int, choice: Action) -> Mapping[str, Collection[str | int]]:
        """``register`` takes ``kemps=<mask>`` (a non-empty kemps set, bit ``i`` is ``Gi``),
        ``chat`` takes ``text=<word>``, every exchange and last-call action ``signal=<token>``,
        and a swap in real time ``expect=<card>`` (the card it means to take).

        >>> state = KempsState.from_position(4, ["7S 7H 7D 7C", "2S 3S 4S 5S", "8S 8H 9D 9C",
        ...                                      "JS QS KS AS"], table="2H 3H 4H 5H")
        >>> sorted(state.payload_schema(0, PASS))
        ['signal']
        """
        if choice.kind == REGISTER:
            return {"kemps": _MASKS}
        if choice.kind == CHAT:
            return {"text": _CHAT_TEXT}
        if self.realtime and choice.kind == SWAP:
            return {"signal": ALPHABET, "expect": _CARD_NAMES}
        return {"signal": ALPHABET}

    # -- the convention step and the deal -------------------------------------------------------

    def _convene(self, deal_no: int) -> None:
        """Open deal ``deal_no``: fresh team secrets, kemps sets to register."""
        n = self.players
        self.deal_no = deal_no
        self.dealer = (deal_no - 1) % n
        self.secrets = [f"{self.rng.getrandbits(128):032x}" for _ in range(self.team_count)]
        self.kemps_sets = [0] * self.team_count
        self.done = [False] * n
        self.chats = [""] * n
        self.known = [[] for _ in range(n)]
        self.signals = []
        self.phase = CHATTING if self.options["convention_chat"] else CONVENE
        self.phase_ms = self.clock_ms
        self._emit("convene", deal=deal_no, dealer=self.dealer)

    def _chat(self, seat: int, action: Action) -> None:
        text = action.payload_value("text")
        self.done[seat] = True
        if text is None:
            return
        self.chats[seat] = str(text)
        mates = (seat, partner(seat, self.players))
        self._emit("chat", audience=set(mates), seat=seat, text=str(text))

    def _register(self, seat: int, action: Action) -> None:
        mask = action.payload_value("kemps")
        self.done[seat] = True
        if isinstance(mask, int):
            self.kemps_sets[team_of(seat, self.players)] |= mask

    def _close_chat(self) -> None:
        self.done = [False] * self.players
        self.phase = CONVENE
        self.phase_ms = self.clock_ms

    def _close_convention(self) -> None:
        """The kemps sets are in: each team is told its own, then the cards are dealt."""
        for t, mates in enumerate(teams(self.players)):
            self._emit(
                "registered", audience=set(mates), team=t, kemps=tokens_of(self.kemps_sets[t])
            )
        self._deal()

    def _deal(self) -> None:
        n = self.players
        for k in range(n):
            seat = (self.dealer + 1 + k) % n
            self.move(self.stock[:HAND_SIZE], "stock", f"hand:{seat}")  # each hand its own
        self._emit("dealt", deal=self.deal_no, dealer=self.dealer)
        self.phase = EXCHANGE
        self._turn_table()

    def _turn_table(self) -> None:
        self.move(self.stock[:SLOTS], "stock", "table", kind="table", **self.stamp())
        self.set_ticks = 0
        if self.realtime:  # a tick's signals outlive the flush they came with
            self.signals = []
        self._table_changed()

    def _table_changed(self) -> None:
        self.ready = [False] * self.players
        self.last_change_ms = self.clock_ms

    def _flush(self) -> None:
        """The table goes to the dead pile; four new cards, or the last call on an empty stock."""
        self.move(list(self.slots), "table", "dead", kind="flush", **self.stamp())
        if len(self.stock) >= SLOTS:
            self._turn_table()
        else:
            self.phase = LAST_CALL
            self.phase_ms = self.clock_ms
            self.ready = [False] * self.players
            self._emit("last_call", **self.stamp())

    def _end_deal(self) -> None:
        """Collect the cards, then the next deal unless the game is over."""
        self._emit("deal_end", deal=self.deal_no, penalties=list(self.penalties))
        losers = [t for t, p in enumerate(self.penalties) if p >= LOSING_PENALTIES]
        if losers:
            self._end("complete", losers)
            return
        if self.deal_no >= self.options["max_deals"]:
            self._end("cap", [])
            return
        self.collect(shuffled(self.deck(), self.rng), into="stock")
        self._convene(self.deal_no + 1)

    # -- calls -------------------------------------------------------------------------------

    def _call(self, seat: int, action: Action) -> None:
        """Judge a call on the hands as they are now (tick mode: the tick's start)."""
        n = self.players
        own = team_of(seat, n)
        if action.kind == KEMPS:
            self._emit("called", seat=seat, call=KEMPS, **self.stamp())
            mate = partner(seat, n)
            right = self._reveal(mate)
            hit = [t for t in range(self.team_count) if t != own] if right else [own]
        else:
            target: int = action.number  # type: ignore[assignment]  # contrakemps names a team
            self._emit("called", seat=seat, call=CONTRAKEMPS, team=target, **self.stamp())
            found = [self._reveal(s) for s in teams(n)[target]]
            hit = [target] if any(found) else [own]
        for t in hit:
            self.penalties[t] += 1
        self._emit("penalty", teams=hit, penalties=list(self.penalties))

    def _reveal(self, seat: int) -> bool:
        hand = tuple(self.hands[seat])
        quad = holds_quad(hand)
        with self.showing(hand, f"hand:{seat}", None):
            self._emit("revealed", seat=seat, cards=hand, quad=quad)
        return quad

    # -- swaps and signals ---------------------------------------------------------------------

    def _swap(self, seat: int, card: Card, slot: int) -> None:
        took = self.slots[slot]
        before = list(self.slots)
        self.move(took, "table", f"hand:{seat}")  # told by the swap, with both cards
        self.move(card, f"hand:{seat}", "table", at=slot)
        if self.copies:  # an equal card in another slot may have been taken first: same cards
            before[slot] = card
            self.slots[:] = before
        known = self.known[seat]
        if card in known:
            known.remove(card)
        known.append(took)
        self._emit("swapped", seat=seat, cards=(took, card), slot=slot, **self.stamp())
        self._table_changed()

    def _signal(self, seat: int, token: str, quad: bool) -> bool:
        """Broadcast one signal; whether it breaks the audit (a kemps token without a quad)."""
        self._emit("signal", seat=seat, token=token, **self.stamp())
        self.signals.append([seat, token])
        if not self.options["signal_audit"] or quad:
            return False
        mask = self.kemps_sets[team_of(seat, self.players)]
        return bool(mask >> ALPHABET.index(token) & 1)

    # -- resolving a tick --------------------------------------------------------------------------

    def _resolve(self, order: Sequence[int]) -> bool:
        self._emit("tick", tick=self.tick, priority=list(order))
        if self.phase in (CHATTING, CONVENE):
            self._resolve_convention(order)
            return True
        subs = [a or PASS for a in self.submissions]
        quads = [holds_quad(h) for h in self.hands]  # the tick-start hands [D7]
        callers = [s for s in order if subs[s].kind in CALL_KINDS]
        moved = False
        if callers:  # [D8] the first in P_t; every other call and swap is void
            self._call(callers[0], subs[callers[0]])
        elif self.phase == EXCHANGE:
            moved = self._swaps(order, subs)
        self.signals = []
        violators = set()
        for seat in order:
            token = subs[seat].payload_value("signal")
            if token is not None and self._signal(seat, str(token), quads[seat]):
                violators.add(team_of(seat, self.players))
        if violators:
            self._end("signal_violation", sorted(violators))
        elif callers or self.phase == LAST_CALL:
            self._end_deal()  # after a call; or [D12] nobody called: no penalty
        else:
            self.set_ticks += 1
            if not moved or self.set_ticks >= SET_GUARD:
                self._flush()
        return True

    def _resolve_convention(self, order: Sequence[int]) -> None:
        subs = self.submissions
        if self.phase == CHATTING:
            for seat in order:
                self._chat(seat, subs[seat] or PLAIN_CHAT)
            self._close_chat()
        else:
            for seat in order:
                self._register(seat, subs[seat] or PLAIN_REGISTER)
            self._close_convention()

    def _swaps(self, order: Sequence[int], subs: Sequence[Action]) -> bool:
        """The tick's swaps in ``P_t``: a slot changes hands once, a later swap on it fails.
        Whether any swap was tried (a tick with one is no flush)."""
        used: set[int] = set()
        tried = False
        for seat in order:
            if subs[seat].kind != SWAP:
                continue
            tried = True
            card, slot = swap_parts(subs[seat])
            if slot in used:
                self._emit("swap_failed", seat=seat, slot=slot, **self.stamp())
            else:
                used.add(slot)
                self._swap(seat, card, slot)
        return tried

    # -- real time --------------------------------------------------------------------------------

    def _act_now(self, seat: int, action: Action) -> None:
        if self.phase in (CHATTING, CONVENE):
            self._convene_now(seat, action)
            return
        token = action.payload_value("signal")
        violated = token is not None and self._signal(
            seat, str(token), holds_quad(self.hands[seat])
        )
        if violated:
            self._end("signal_violation", [team_of(seat, self.players)])
        elif action.kind in CALL_KINDS:
            self._call(seat, action)
            self._end_deal()
        elif action.kind == SWAP:
            self._swap_now(seat, action)
        elif self.phase == EXCHANGE:  # pass: ready
            self.ready[seat] = True
            if all(self.ready):
                self._flush()

    def _convene_now(self, seat: int, action: Action) -> None:
        if self.phase == CHATTING:
            self._chat(seat, action)
            if all(self.done):
                self._close_chat()
        else:
            self._register(seat, action)
            if all(self.done):
                self._close_convention()

    def _swap_now(self, seat: int, action: Action) -> None:
        """First to touch wins: a swap whose slot no longer holds the card it expected fails."""
        card, slot = swap_parts(action)
        expect = action.payload_value("expect")
        if expect is not None and str(self.slots[slot]) != expect:
            self._emit("swap_failed", seat=seat, slot=slot, **self.stamp())
            return
        self._swap(seat, card, slot)
        self.set_ticks += 1
        if self.set_ticks >= SET_GUARD:
            self._flush()

    def _next_timer(self) -> int | None:
        quiet: int = self.options["quiet_ms"]
        if self.phase == OVER:
            return None
        if self.phase == EXCHANGE:
            return self.last_change_ms + quiet
        return self.phase_ms + quiet

    def _fire_timer(self) -> None:
        phase = self.phase
        if phase == CHATTING:
            self._close_chat()
        elif phase == CONVENE:
            self._close_convention()
        elif phase == EXCHANGE:
            self._flush()
        else:
            self._end_deal()
        self._waiting = () if self.is_over() else tuple(self.seats_in_play())

    # -- the end -----------------------------------------------------------------------------

    def _end(self, reason: str, losers: Sequence[int]) -> None:
        self.losers = sorted(losers)
        self.reason = reason
        self.phase = OVER
        self._stop_ticks()
        ranks = self._ranks()
        self._emit(
            events.END,
            ranks=list(ranks),
            reason=reason,
            penalties=list(self.penalties),
            kemps_sets=[tokens_of(m) for m in self.kemps_sets],  # published at the end only
        )

    def _ranks(self) -> tuple[int, ...]:
        """Teams placed last first (five penalties or a violation, [D16]), then fewest
        penalties; tied seats share the better rank."""
        n = self.players
        keys = [(team_of(s, n) in self.losers, self.penalties[team_of(s, n)]) for s in range(n)]
        return tuple(1 + sum(1 for o in keys if o < k) for k in keys)

    def is_over(self) -> bool:
        return self.phase == OVER

    def result(self) -> Result:
        if not self.is_over():
            raise RuntimeError("the match is not over")
        ranks = self._ranks()
        return Result(
            scores=tuple(float(self.players - r) for r in ranks),
            ranks=ranks,
            winners=tuple(s for s, r in enumerate(ranks) if r == 1),
            deals=({"penalties": list(self.penalties), "losers": list(self.losers)},),
            reason=self.reason,
        )

    def estimate(self) -> tuple[float, ...]:
        """Scores as if the game stopped now (fewest penalties first): what a search that
        cuts its rollouts short scores them by."""
        if self.is_over():
            return self.result().scores
        n = self.players
        keys = [self.penalties[team_of(s, n)] for s in range(n)]
        return tuple(float(n - 1 - sum(1 for o in keys if o < k)) for k in keys)

    # -- what a seat may know -------------------------------------------------------------------

    def view(self, seat: int, history: bool = True) -> SeatView:
        n = self.players
        team = team_of(seat, n)
        facts = declared.shown_facts(self.FIELDS, self)
        if self.phase != OVER:  # the team's own secrets, to its two members only
            facts["team_secret"] = self.secrets[team]
            facts["kemps_set"] = tokens_of(self.kemps_sets[team])
            facts["chat"] = self.chats[partner(seat, n)]
        counters = _submitted_first(
            declared.shown_counters(self.FIELDS, self, n), self.submitted(seat)
        )
        return SeatView(
            game=self.game,
            seat=seat,
            players=n,
            phase=self.phase,
            to_act=self.to_act(),
            hand=tuple(self.hands[seat]),
            zones=self.view_zones(seat),
            counts=self.view_counts(),
            counters=counters,
            trump=None,
            scores=self._scores(),
            facts=facts,
            history=self.history(seat) if history else (),
            options=self.options,
        )

    def _scores(self) -> tuple[float, ...]:
        if self.is_over():
            return self.result().scores
        n = self.players
        return tuple(-float(self.penalties[team_of(s, n)]) for s in range(n))

    def secrets_of(self) -> list[tuple[Any, frozenset[int]]]:
        """Every non-card secret with the seats entitled to it (what the no-leak check holds
        views and events to): each team's secret and kemps set, each message sent."""
        out: list[tuple[Any, frozenset[int]]] = []
        for t, mates in enumerate(teams(self.players)):
            if self.phase == OVER:
                break  # the kemps sets are published at the end; the secrets die with the deal
            out.append((self.secrets[t], frozenset(mates)))
            if self.kemps_sets[t]:
                out.append((tokens_of(self.kemps_sets[t]), frozenset(mates)))
        for s, text in enumerate(self.chats):
            if text and self.phase != OVER:
                out.append((text, frozenset((s, partner(s, self.players)))))
        return out

    @property
    def priority_shown(self) -> list[int]:
        return [] if self.is_over() else self.priority()

    # -- copies, worlds, positions ----------------------------------------------------------------

    def clone(self) -> KempsState:
        other: KempsState = self._shallow_copy()
        other.hands = [list(h) for h in self.hands]
        other.slots = list(self.slots)
        other.stock = list(self.stock)
        other.dead = list(self.dead)
        other.shown_cards = []
        other.known = [list(k) for k in self.known]
        other.signals = [list(s) for s in self.signals]
        other.penalties = list(self.penalties)
        other.secrets = list(self.secrets)
        other.kemps_sets = list(self.kemps_sets)
        other.done = list(self.done)
        other.chats = list(self.chats)
        other.ready = list(self.ready)
        other.losers = list(self.losers)
        return other

    def playout_state(self, seed: int) -> KernelPlayout:
        """A copy for playouts (the search's fast path): this deal's exchange in the C kernel
        (:mod:`levata.engine.kemps_playouts`), play only, to the deal's end; its random stream
        starts from ``seed``. Tick mode, in the exchange or the last call only (``ValueError``
        else: real time reads the clock). It plays by these rules and its ``heuristic`` policy
        is the heuristic bot's (``tests/engine/test_kemps_kernel.py`` proves it against
        :meth:`python_playout_state`, which ``tests/games/test_kemps.py`` plays beside the
        state).

        >>> s = KempsState.from_position(4, ["7S 7H 7D 2C", "2S 3S 4S 5S", "8S 8H 9D 9C",
        ...                                  "JS QS KS AS"], table="7C 3H 4H 5H")
        >>> fast = s.playout_state(seed=1)
        >>> fast.legal_actions(0) == s.legal_actions(0), fast.to_act() == s.to_act()
        (True, True)
        """
        return KernelPlayout(self.playout_fields(), seed)

    def playout_dealer(self, seat: int, seed: int) -> KempsDealer:
        """The search's dealer of worlds ``seat`` cannot tell from this one, as fast copies
        (:class:`~levata.engine.kemps_playouts.KempsDealer`): :meth:`from_view`'s deal, in
        C, the partner's proven quad included. This state must itself be such a world
        (``from_view`` of ``seat``'s view, or the real match); its hidden cards and the other
        teams' secrets are dealt afresh each time. ``ValueError`` where :meth:`playout_state`
        raises it (real time, or outside the exchange and the last call)."""
        base = KernelPlayout(self.playout_fields(), 0)
        quad = _signalled_quad(self.view(seat))
        return KempsDealer(base, seat, -1 if quad is None else quad, seed)

    def python_playout_state(self, seed: int) -> KempsPlayout:
        """The same copy in Python (:mod:`.playout`): the reference the kernel is proven
        against and a readable statement of the playout rules and policy; the search runs on
        :meth:`playout_state`."""
        return KempsPlayout(self.playout_fields(), seed)

    def playout_fields(self) -> dict[str, Any]:
        """This deal's position as plain values, as the playout copies' ``fields()`` say it
        (both copy what they keep, so nothing here is copied); ``ValueError`` unless in the
        tick-mode exchange or last call."""
        if self.realtime or self.phase not in (EXCHANGE, LAST_CALL):
            raise ValueError("a Kemps playout copy is of a tick-mode exchange")
        return {
            "players": self.players,
            "hands": self.hands,
            "slots": self.slots,
            "stock": self.stock,
            "dead": self.dead,
            "known": self.known,
            "signals": self.signals,
            "shown": self._shown_before(),
            "penalties": self.penalties,
            "secrets": self.secrets,
            "kemps_sets": self.kemps_sets,
            "audit": self.options["signal_audit"],
            "copies": self.copies,
            "tick": self.tick,
            "set_ticks": self.set_ticks,
            "phase": self.phase,
            "submissions": self.submissions,
            "waiting": self._waiting,
        }

    def _shown_before(self) -> list[set[str]]:
        """Per team, the tokens its seats showed in this deal before the last tick: what the
        heuristic remembers (a token not among them is fresh)."""
        shown: list[set[str]] = [set() for _ in range(self.team_count)]
        last = self.tick - 1
        for ev in reversed(self._log):
            if ev.kind == "convene":
                break
            if ev.kind == "signal" and ev.data.get("tick", last) < last and ev.seat is not None:
                shown[team_of(ev.seat, self.players)].add(ev.data["token"])
        return shown

    def _blank(self) -> Action:
        return {CHATTING: PLAIN_CHAT, CONVENE: PLAIN_REGISTER}.get(self.phase, PASS)

    def _hide_other_teams(self, seat: int, rng: random.Random) -> None:
        """Other teams' secrets and kemps sets are unknown to ``seat``: fresh ones, none."""
        own = team_of(seat, self.players)
        for t in range(self.team_count):
            if t != own:
                self.secrets[t] = f"{rng.getrandbits(128):032x}"
                self.kemps_sets[t] = 0
        mates = (seat, partner(seat, self.players))
        self.chats = [c if s in mates else "" for s, c in enumerate(self.chats)]

    def sample_world(self, seat: int, rng: random.Random) -> KempsState:
        world = self.clone()
        others = [s for s in range(self.players) if s != seat]
        pool: list[Card] = list(self.stock)
        sizes: dict[int | str, int] = {}
        for s in others:
            hidden = Counter(self.hands[s])
            hidden.subtract(self.known[s])
            pool.extend(hidden.elements())
            sizes[s] = len(self.hands[s]) - len(self.known[s])
        sizes["stock"] = len(self.stock)
        dealt = deal_hidden(pool, sizes, rng)
        for s in others:
            world.hands[s] = list(self.known[s]) + dealt[s]
        world.stock = dealt["stock"]
        world._blank_submissions(seat, self._blank())
        world._hide_other_teams(seat, rng)
        world._reseed_for_sample(rng)
        return world

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> KempsState:
        """A state whose ``view(view.seat)`` is ``view``: the others' unseen cards and the
        stock dealt from ``rng`` around what everyone saw them take."""
        state = cls.__new__(cls)
        state._configure(spec, view.players, dict(view.options), rng.getrandbits(32))
        n, me = view.players, view.seat
        facts, counters = view.facts, view.counters
        state.restore_places(view)
        state.shown_cards = []
        known = [[Card.parse(c) for c in k] for k in facts["known"]]
        pool = Counter(state.deck())
        pool.subtract(view.hand)
        pool.subtract(state.slots)
        pool.subtract(state.dead)
        for s in range(n):
            if s != me:
                pool.subtract(known[s])
        held = {s: list(known[s]) for s in range(n) if s != me}
        quad = _signalled_quad(view)
        if quad is not None:
            _deal_quad(held[quad], pool, rng)
        cards = list(pool.elements())
        sizes: dict[int | str, int] = {
            s: view.counts[f"hand:{s}"] - len(held[s]) for s in range(n) if s != me
        }
        sizes["stock"] = view.counts["stock"]
        dealt = deal_hidden(cards, sizes, rng)
        state.hands = [list(view.hand) if s == me else held[s] + dealt[s] for s in range(n)]
        state.stock = dealt["stock"]
        state._restore_numbers(view, rng)
        state.tick = counters["tick"]
        state.submissions = [None] * n
        if state.realtime and view.phase in (CONVENE, CHATTING):
            state.done = [s not in view.to_act for s in range(n)]
        state._restore_submissions(view.to_act, state._blank())
        if not state.realtime and view.counters.get("submitted"):
            state.submissions[me] = state._blank()  # its own choice is not in the view either
        state._log = list(view.history)
        state.rng = random.Random(rng.getrandbits(64))
        return state

    def _restore_numbers(self, view: SeatView, rng: random.Random) -> None:
        """The deal's numbers and secrets a view shows; the other teams' are fresh."""
        n, me = view.players, view.seat
        facts, counters = view.facts, view.counters
        self.phase = view.phase
        self.deal_no = counters["deal"]
        self.dealer = counters["dealer"]
        self.set_ticks = counters["set_ticks"]
        self.clock_ms = counters["clock_ms"]
        self.penalties = [counters[f"team_penalties:{t}"] for t in range(self.team_count)]
        self.known = [[Card.parse(c) for c in k] for k in facts["known"]]
        self.signals = [list(s) for s in facts["signals"]]
        own, mate = team_of(me, n), partner(me, n)
        self.secrets = [f"{rng.getrandbits(128):032x}" for _ in range(self.team_count)]
        self.kemps_sets = [0] * self.team_count
        self.chats = [""] * n
        if view.phase != OVER:
            self.secrets[own] = facts["team_secret"]
            self.kemps_sets[own] = sum(1 << ALPHABET.index(t) for t in facts["kemps_set"])
            self.chats[mate] = facts["chat"]
        self.done = [False] * n
        self.ready = [False] * n
        self.last_change_ms = self.phase_ms = self.clock_ms
        self.reason = ""
        self.losers = []
        if view.phase == OVER:  # read off the end event
            end = next(e for e in reversed(view.history) if e.kind == events.END)
            self.reason = end.data["reason"]
            self.losers = _losers_of(end.data["ranks"], n)

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        places = self.place_values()
        values: dict[str, Any] = {**places}
        values.update(declared.stored(self.FIELDS, self))
        return values, set(places)

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> KempsState:
        state = cls.__new__(cls)
        state._configure(spec, pos.players, options, seed)
        state.load_places(pos.cards)
        check_deck(list(state.place_values().values()), state.deck())
        state._settle()
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        if len(state.penalties) != state.team_count or len(state.secrets) != state.team_count:
            raise BadConfig("position: one penalty count and one secret per team")
        state._resume_ticks()
        return state


def _signalled_quad(view: SeatView) -> int | None:
    """The partner, when the view proves it holds a quad: it showed a token of the team's
    kemps set in the last tick (the audit passed, so it held one as the tick began) and took
    no card since. ``None`` otherwise."""
    if view.phase not in (EXCHANGE, LAST_CALL) or not view.options.get("signal_audit"):
        return None
    mate = partner(view.seat, view.players)
    ours = set(view.facts.get("kemps_set", ()))
    if not any(s == mate and t in ours for s, t in view.facts["signals"]):
        return None
    for ev in reversed(view.history):
        if ev.kind == "tick":
            return mate
        if ev.kind == "swapped" and ev.seat == mate:
            return None
    return None


def _deal_quad(held: list[Card], pool: Counter[Card], rng: random.Random) -> None:
    """Complete ``held`` (cards seen taken, all of one rank) to four of a kind from ``pool``."""
    ranks = {c.rank for c in held}
    if len(ranks) > 1:
        return
    need = HAND_SIZE - len(held)
    counts = Counter[int]()
    for card, k in pool.items():
        counts[card.rank] += max(k, 0)
    feasible = sorted(r for r in (ranks or set(counts)) if counts[r] >= need)
    if not feasible:
        return
    rank = rng.choice(feasible)
    for card in rng.sample(sorted(c for c in pool.elements() if c.rank == rank), need):
        held.append(card)
        pool[card] -= 1


def _losers_of(ranks: Sequence[int], players: int) -> list[int]:
    worst = max(ranks)
    if worst == 1:
        return []
    return sorted({team_of(s, players) for s, r in enumerate(ranks) if r == worst})


def _cards(cards: str | Iterable[Card]) -> list[Card]:
    return parse_cards(cards) if isinstance(cards, str) else list(cards)


_CARD_NAMES = frozenset(str(c) for c in french_deck())


def _when(ev: Event) -> str:
    return f"ms {ev.data['at_ms']}" if "at_ms" in ev.data else f"tick {ev.data.get('tick')}"


_LINES = {
    "convene": lambda ev: f"-- deal {ev.data['deal']}: the teams agree their signals",
    "tick": lambda ev: f"-- tick {ev.data['tick']}: priority {ev.data['priority']}",
    "swapped": lambda ev: (
        f"seat {ev.seat} takes {ev.cards[0]} from slot {ev.data['slot']} and leaves"
        f" {ev.cards[1]} ({_when(ev)})"
    ),
    "swap_failed": lambda ev: f"   seat {ev.seat} was beaten to slot {ev.data['slot']}",
    "signal": lambda ev: f"   seat {ev.seat} signals {ev.data['token']}",
    "called": lambda ev: (
        f"seat {ev.seat} calls {'KEMPS' if ev.data['call'] == KEMPS else 'CONTRAKEMPS'}"
        + (f" on team {ev.data['team']}" if "team" in ev.data else "")
    ),
    "revealed": lambda ev: f"   seat {ev.seat} shows {' '.join(map(str, ev.cards))}",
    "penalty": lambda ev: f"   penalty to team(s) {ev.data['teams']}: now {ev.data['penalties']}",
    "flush": lambda ev: "   nobody wants the table: it is flushed",
    "last_call": lambda ev: "-- the stock is empty: last call",
    "registered": lambda ev: f"   team's kemps set: {ev.data.get('kemps')}",
    "chat": lambda ev: f"   seat {ev.seat} tells its partner {ev.data.get('text')!r}",
    "dealt": lambda ev: (
        f"-- deal {ev.data.get('deal')}: four cards each, dealer seat {ev.data.get('dealer')}"
    ),
    "table": lambda ev: f"   the table: {' '.join(map(str, ev.cards))}",
    "deal_end": lambda ev: f"== the deal is over: penalties {ev.data.get('penalties')}",
}


def narrate(ev: Event) -> str | None:
    """A line for one of Kemps' own events, ``None`` for the rest.

    >>> narrate(Event(seq=3, kind="signal", seat=1, data={"token": "G7", "tick": 5}))
    '   seat 1 signals G7'
    """
    line = _LINES.get(ev.kind)
    return None if line is None else line(ev)


_ZONES, _COUNTS = described(KempsState.PLACES)

VOCABULARY = Vocabulary(
    # a swap names the card given and the slot taken: CARD@SLOT
    choices={SWAP: tuple(f"{c}@{slot}" for c in french_deck() for slot in range(SLOTS))},
    phases={
        CHATTING: "convention_chat: each seat may send its partner one word (before the cards)",
        CONVENE: "each seat registers its team's kemps tokens (before the cards)",
        EXCHANGE: "the seats swap with the table, signal and call",
        LAST_CALL: "the stock is out: one last tick (realtime: quiet_ms) to call",
        OVER: "the match is over",
    },
    zones=_ZONES,
    counts=_COUNTS,
    counters=_submitted_first(
        declared.described(KempsState.FIELDS, "counters"),
        "tick mode: 1 once you have submitted this tick (you wait for the others)",  # type: ignore[arg-type]
    ),
    facts={
        **declared.described(KempsState.FIELDS, "facts"),
        "team_secret": "your team's secret for this deal (you and your partner only)",
        "kemps_set": "the tokens your team registered as 'I hold a quad' (you and your partner)",
        "chat": "the word your partner sent you this deal (convention_chat)",
    },
    actions={
        REGISTER: "register your team's kemps tokens: payload kemps=<mask> (bit i is Gi)",
        CHAT: "convention_chat: send your partner payload text=<word> (up to 256 bytes)",
        actions.PASS: "take nothing this tick (realtime: ready for a flush); may carry"
        " signal=<token>",
        SWAP: "swap <card>@<slot>: give your card, take the slot's (realtime: expect=<card>);"
        " may carry signal=<token>",
        KEMPS: "claim your partner holds four of a kind; may carry signal=<token>",
        CONTRAKEMPS: "contrakemps `number`: claim that team `number` holds four of a kind",
    },
    events={
        "convene": "a deal opens: `data.deal`, `data.dealer`; the teams register their tokens",
        "chat": "your partner's word (you and your partner only): `data.text`",
        "registered": "your team's kemps set (you and your partner only): `data.kemps`",
        "dealt": "four cards to each seat: `data.deal`, `data.dealer`",
        "table": "four cards turned face up into the slots: `cards`",
        "tick": "tick mode: the tick resolves, `data.tick`, in the order `data.priority`",
        "swapped": "`seat` took `cards[0]` from `data.slot` and left `cards[1]` there",
        "swap_failed": "`seat`'s swap on `data.slot` failed (beaten to it, or another card"
        " there than expected)",
        "signal": "`seat` showed `data.token` (every seat sees every signal)",
        "called": "`seat` called `data.call` (kemps, or contrakemps on `data.team`)",
        "revealed": "a called hand, shown to all: `seat`, `cards`, `data.quad`",
        "penalty": "`data.teams` take a penalty; `data.penalties` per team",
        "flush": "the table's `cards` go to the dead pile",
        "last_call": "the stock is empty: the last call",
        "deal_end": "the deal is over: `data.penalties`",
        events.END: "the match is over: `data.ranks`, `data.reason`, `data.penalties`,"
        " `data.kemps_sets` (published now)",
    },
)

SPEC = register(
    GameSpec(
        name="kemps",
        title="Kemps",
        players=(4, 6, 8, 10, 12),
        summary="Teams of two grab four of a kind and signal it in secret; catch the others'.",
        options=(
            Option(
                "mode", "tick", "tick (simultaneous, default) or realtime", ("tick", "realtime")
            ),
            Option("max_deals", 60, "deals before the game stops [D6]", minimum=1, maximum=1000),
            Option("signal_audit", True, "a kemps token without a quad loses the game [D3]"),
            Option("convention_chat", False, "one word to the partner before each deal"),
            Option("quiet_ms", 3000, "realtime: ms with no swap before a flush", minimum=1),
        ),
        factory=KempsState,
        short_options={"max_deals": 4, "quiet_ms": 1000},
        teams=teams,
        bots={
            "heuristic": "levata.bots.heuristic.kemps:HeuristicBot",
            "silent": "levata.bots.heuristic.kemps:SilentBot",
            # the search reads collectors (docs/games/kemps.md): level with the heuristic
            # on uniform worlds, 398 of 400 fresh games won with this reading
            "ismcts": "levata.bots.search.ismcts:IsmctsBot:infer=1:pool=64",
        },
        narrate=narrate,
        vocabulary=VOCABULARY,
        strategy="levata.bots.strategy.kemps:KempsStrategy",
    )
)
