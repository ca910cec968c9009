"""Tabinet: capture table cards whose sums equal the card you play; sweep the table for a tabla.

Rules (``docs/games/tabinet.md`` says them in full; [D#] names a decision):

* 2, 3 or 4 players; with 4, two teams, partners opposite ({0, 2} and {1, 3}). A *side* is a
  team or a player alone. One 52-card deck. The dealer is drawn from the seed; the first
  player F is the seat after it, and plays first after every packet.
* F alone gets four cards and may ``refuse`` them when they hold at most one point card
  (A K Q J 10, 2 of clubs) [D2]: they go face up as the table and every seat gets six. On
  ``accept`` F gets two more, the others six, and four stock cards are turned up.
* On a turn a seat plays one card: it trails it onto the table (always legal [D4]), or
  captures with it any choice of disjoint table sets each summing to its value (2-10 face,
  J 12, Q 13, K 14; a played A says 1 or 11 for the move, a table A counts 1 or 11 set by set
  [D7, D8, D10]). An empty table after a capture is a *tabla*: with two sides it also turns
  one of the other side's active tablas face down [D5]; with three players nothing cancels.
* When every hand is empty the stock deals again, six each or the last short packet split
  equally, F first; when the stock is empty too, the last capturer's side takes what is left
  on the table (not a tabla [D9]).
* Score: active tablas, plus A K Q J 10 one point each (10 of diamonds two) and the 2 of clubs
  two. Most points wins; equal tops share the rank. Options: ``match_target`` plays rounds
  (the dealer rotating) until a side reaches it [D6], ``most_cards_bonus`` gives points to the
  side with strictly most cards, ``forced_capture`` forbids trailing a card when some card of
  the hand can capture.

A capture is a composite move of atomic actions (:class:`~levata.engine.family.captures.Selection`):
``capture <card>`` plays the card; ``ace 1`` or ``ace 11`` when a played A could capture
either way; then ``take <card>`` takes table cards one at a time, in table order, and
``done`` ends the capture once they form disjoint sets each summing to the value (automatic
when nothing more can be taken). Which sets the cards form changes nothing, so the steps
choose cards, each capture has one path, and every step offered can be completed.

Decisions added to the spec:

* Capture piles are kept per seat; a team's pile is its two seats' piles together. Every card
  in them was face up or just played, so views show them (the spec calls them public
  history) and a world rebuilt from a view needs to deal only hands and stock.
* ``last_capturer`` is shown as the seat that captured last; its side takes the rest.
* A played card waits in ``played`` while its sets are chosen; the table cards stay on the
  table until the capture is done, then one public ``captured`` event names them all.

>>> state = TabinetState.from_position(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
>>> [str(a) for a in state.legal_actions(0)]
['trail 4C', 'capture 9H', 'trail 9H']
>>> for move in ("capture 9H", "take AD", "take 8C"):
...     state.apply(0, Action.parse(move))
>>> [str(a) for a in state.legal_actions(0)]  # {A, 8} is a capture; {2, 7} may follow
['take 2H', 'done']
>>> state.apply(0, Action.parse("take 2H")); state.apply(0, Action.parse("take 7S"))
>>> [str(c) for c in state.layout], [str(c) for c in state.piles[0]], state.to_act()
(['5D'], ['9H', 'AD', '8C', '2H', '7S'], (1,))
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from levata.engine import events, phases
from levata.engine import fields as declared
from levata.engine.cards import Card, french_deck, parse_cards
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    GameState,
    Option,
    Result,
    SeatView,
    ranks_from_scores,
)
from levata.engine.deal import shuffled
from levata.engine.family.captures import (
    FishingTable,
    Selection,
    completable,
    partition,
    sides_of,
)
from levata.engine.fields import Counter, Declared, Fact, Kept, Seats
from levata.engine.games.tabinet.playout import TabinetPlayout
from levata.engine.games.tabinet.rules import (
    card_points,
    may_refuse,
    targets,
    values,
)
from levata.engine.position import Position, check_deck
from levata.engine.registry import register
from levata.engine.tabinet_playouts import TabinetDealer
from levata.engine.tabinet_playouts import TabinetPlayout as KernelPlayout
from levata.engine.vocabulary import Vocabulary
from levata.engine.worlds import seen_log
from levata.engine.zones import Place, described

__all__ = ["SPEC", "TabinetState", "teams"]

FIRST_CARDS, PACKET, LAYOUT = 4, 6, 4
#: Tabinet's phases besides the shared ``play`` and ``over``: F decides on its first four
#: cards; a played A waits for its value; a capture's sets are being chosen.
DECIDE, ACE_VALUE, CAPTURING = "decide", "ace", "capture"
ACCEPT_KIND, REFUSE_KIND = "accept", "refuse"
TRAIL_KIND, CAPTURE_KIND, ACE_KIND = "trail", "capture", "ace"
TAKE_KIND, DONE_KIND = "take", "done"
ACCEPT, REFUSE, DONE = (Action(k) for k in (ACCEPT_KIND, REFUSE_KIND, DONE_KIND))
_DECK = french_deck()
_TRAIL = {c: Action(TRAIL_KIND, card=c) for c in _DECK}
_CAPTURE = {c: Action(CAPTURE_KIND, card=c) for c in _DECK}
_TAKE = {c: Action(TAKE_KIND, card=c) for c in _DECK}
_ACE = {v: Action(ACE_KIND, number=v) for v in (1, 11)}


def teams(players: int) -> tuple[tuple[int, ...], ...] | None:
    """Partners sit opposite at four; fewer play alone.

    >>> teams(4), teams(3)
    (((0, 2), (1, 3)), None)
    """
    return ((0, 2), (1, 3)) if players == 4 else None


def _selection_out(sel: Selection | None) -> list[Any] | None:
    return None if sel is None else [sel.target, list(sel.taken)]


def _selection_in(shown: list[Any] | None) -> Selection | None:
    return None if shown is None else Selection(shown[0], tuple(shown[1]))


class TabinetState(FishingTable, GameState):
    """A Tabinet match in progress (one round, or rounds to ``match_target``)."""

    PLACES: ClassVar[tuple[Place, ...]] = FishingTable.PLACES

    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Counter("dealer", "the seat that deals this deal"),
        Counter(
            "first",
            "the seat that acts first this deal: it decides on its first four cards and"
            " plays first after every packet",
        ),
        Counter(
            "round", "the round in progress, from 1 (match_target plays several)", attr="round_no"
        ),
        Counter(
            "last_capturer",
            "the seat that captured last (-1: nobody yet); its side takes what is left on the"
            " table at the end",
            none=-1,
        ),
        Seats(
            Counter(
                "tablas",
                "active tablas of the seat's side (partners show the same)",
                attr="seat_tablas",
                derived=True,
            ),
            Counter(
                "score",
                "the seat's total so far: its side's points in earlier rounds, plus this"
                " round's active tablas and card points captured",
                attr="seat_scores",
                derived=True,
            ),
        ),
        Fact(
            "capture",
            "the capture being built (null: none): `value` (what each set sums to), `taken`"
            " (the table cards taken so far, in table order)",
            attr="capture_fact",
            derived=True,
        ),
        Kept("actor", "the one seat to act"),
        Kept("side_tablas", "active tablas per side"),
        Kept("totals", "points per side in the rounds already scored"),
        Kept(
            "selection",
            "the capture being built: [value, the table indices taken so far]",
            show=_selection_out,
            read=_selection_in,
        ),
        Kept("reason", "why the match ended (null while it runs)"),
    )

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        self._reset()
        self.dealer = self.rng.randrange(players)
        self._start_round(list(deal) if deal is not None else None)

    def _reset(self) -> None:
        n = self.players
        self.sides = sides_of(n, teams(n))
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.stock: list[Card] = []
        self.layout: list[Card] = []
        self.played: list[Card] = []
        self.piles: list[list[Card]] = [[] for _ in range(n)]
        self.phase = DECIDE
        self.dealer = 0
        self.first = 0
        self.actor = 0
        self.round_no = 1
        self.last_capturer: int | None = None
        self.side_tablas = [0] * len(self.sides)
        self.totals = [0] * len(self.sides)
        self.selection: Selection | None = None
        self.reason: str | None = None
        self.records: list[dict[str, Any]] = []

    # -- a round ------------------------------------------------------------------------------

    def _start_round(self, order: list[Card] | None) -> None:
        n = self.players
        if order is None:
            order = shuffled(_DECK, self.rng)
        elif sorted(order) != sorted(_DECK):
            raise BadConfig("the deal must be the 52-card French deck, each card once")
        self.collect(order[::-1], into="stock")  # face down, the deal's first card on top
        self.first = self.actor = (self.dealer + 1) % n
        self.last_capturer, self.selection = None, None
        self.side_tablas = [0] * len(self.sides)
        self._emit(events.DEAL, dealer=self.dealer, first=self.first, round=self.round_no)
        self._give(self.first, FIRST_CARDS)
        self.phase = DECIDE

    def _give(self, seat: int, count: int, **data: Any) -> None:
        cards = self.stock[len(self.stock) - count :][::-1]  # the top ``count``, top first
        self.move(cards, "stock", f"hand:{seat}", kind=events.HAND, seat=seat, **data)

    def _decide(self, seat: int, refuse: bool) -> None:
        n = self.players
        others = [(seat + k) % n for k in range(1, n)]
        if refuse:  # the four go face up as the table; everyone gets six
            self.move(list(self.hands[seat]), f"hand:{seat}", "table", kind=REFUSE_KIND, seat=seat)
            self.deal_packets(seat, PACKET)
        else:
            self._emit(ACCEPT_KIND, seat=seat)
            left = len(self.stock) - (PACKET - FIRST_CARDS) - PACKET * len(others) - LAYOUT
            self._emit("packet", seat=seat, size=PACKET, seats=[seat, *others], stock=left)
            self._give(seat, PACKET - FIRST_CARDS, more=True)
            for s in others:
                self._give(s, PACKET)
            self.turn_up(LAYOUT)
        self.phase, self.actor = phases.PLAYING, seat

    # -- what is legal ------------------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == phases.OVER else (self.actor,)

    def can_capture(self, card: Card) -> tuple[int, ...]:
        """The values ``card`` could capture for on this table (empty: none)."""
        table = self.layout
        return tuple(t for t in targets(card) if completable(t, (), table, values))

    def legal_actions(self, seat: int) -> list[Action]:
        return self._offer(seat, self._legal(seat))  # kept: apply finds its action there

    def _legal(self, seat: int) -> list[Action]:
        if self.phase == phases.OVER or seat != self.actor:
            return []
        phase = self.phase
        if phase == phases.PLAYING:
            hand = self.hands[seat]
            able = [bool(self.can_capture(c)) for c in hand]
            may_trail = not (self.options["forced_capture"] and any(able))
            out = []
            for c, can in zip(hand, able, strict=True):
                if can:
                    out.append(_CAPTURE[c])
                if may_trail:
                    out.append(_TRAIL[c])
            return out
        if phase == CAPTURING:
            sel = self.selection
            assert sel is not None
            table = self.layout
            out = [_TAKE[table[i]] for i in sel.takes(table, values)]
            if sel.can_finish(table, values):
                out.append(DONE)
            return out
        if phase == ACE_VALUE:
            return [_ACE[v] for v in self.can_capture(self.played[0])]
        return [ACCEPT, REFUSE] if may_refuse(self.hands[seat]) else [ACCEPT]  # DECIDE

    # -- applying -----------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == TAKE_KIND:
            self._take(seat, action.card)  # type: ignore[arg-type]  # takes carry cards
        elif kind == DONE_KIND:
            self._finish(seat)
        elif kind == TRAIL_KIND:
            self.trail(seat, action.card)  # type: ignore[arg-type]  # trails carry cards
            self._next_turn(seat)
        elif kind == CAPTURE_KIND:
            self._start_capture(seat, action.card)  # type: ignore[arg-type]
        elif kind == ACE_KIND:
            self._emit(ACE_KIND, seat=seat, value=action.number)
            self._choose_value(action.number)  # type: ignore[arg-type]  # ace 1 or ace 11
        elif kind in (ACCEPT_KIND, REFUSE_KIND):
            self._decide(seat, kind == REFUSE_KIND)

    def _start_capture(self, seat: int, card: Card) -> None:
        self.move(card, f"hand:{seat}", "played", kind=CAPTURE_KIND, seat=seat)
        able = self.can_capture(card)
        if len(able) > 1:
            self.phase = ACE_VALUE
        else:
            self._choose_value(able[0])

    def _choose_value(self, value: int) -> None:
        self.selection, self.phase = Selection(value), CAPTURING

    def _take(self, seat: int, card: Card) -> None:
        sel = self.selection
        assert sel is not None
        self.selection = sel = sel.take(self.layout.index(card))
        if not sel.takes(self.layout, values):
            self._finish(seat)  # nothing more can be taken: the capture is whole

    def _finish(self, seat: int) -> None:
        sel = self.selection
        assert sel is not None
        table = self.layout
        mask = sum(1 << i for i in sel.taken)
        sets = [[str(table[i]) for i in s] for s in partition(sel.target, table, values, mask)]
        taken = [table[i] for i in sel.taken]
        self.selection = None
        swept = self.capture(seat, taken, value=sel.target, sets=sets)
        if swept:
            self._tabla(seat)
        self._next_turn(seat)

    def _tabla(self, seat: int) -> None:
        """A sweep: the side's tabla counts, and with two sides it lifts one of the other's."""
        side = self.side_of(seat)
        self.side_tablas[side] += 1
        lifted = None
        if len(self.sides) == 2:
            other = 1 - side
            if self.side_tablas[other] > 0:
                self.side_tablas[other] -= 1
                lifted = other
        self._emit("tabla", seat=seat, side=side, lifted=lifted, tablas=list(self.side_tablas))

    def _next_turn(self, seat: int) -> None:
        n = self.players
        self.phase = phases.PLAYING
        if not self.hands_empty():
            nxt = (seat + 1) % n
            while not self.hands[nxt]:  # only a position set up by hand holds uneven hands
                nxt = (nxt + 1) % n
            self.actor = nxt
            return
        if self.stock:  # a packet: six each, or the rest split equally
            size = min(PACKET, len(self.stock) // n)
            if size:
                self.deal_packets(self.first, size)
            else:  # only a stock set up by hand is not a multiple of the seats: one each
                self.deal_packets(
                    self.first, 1, [(self.first + k) % n for k in range(len(self.stock))]
                )
            self.actor = self.first
            return
        self._end_round()

    def _end_round(self) -> None:
        taker = self.sweep_rest()
        points = self.round_points()
        for side, p in enumerate(points):
            self.totals[side] += p
        record = {
            "round": self.round_no,
            "dealer": self.dealer,
            "points": points,
            "tablas": list(self.side_tablas),
            "cards": [len(self.side_cards(k)) for k in range(len(self.sides))],
            "rest_to": taker,
        }
        self.records.append(record)
        self.side_tablas = [0] * len(self.sides)
        self._emit(events.SCORE, points=points, totals=list(self.totals), rest_to=taker)
        target = self.options["match_target"]
        if target and max(self.totals) < target:
            self.round_no += 1
            self.dealer = (self.dealer + 1) % self.players
            self._start_round(None)
            return
        self.phase, self.reason = phases.OVER, "complete"
        res = self.result()
        self._emit(
            events.END,
            reason="complete",
            ranks=list(res.ranks),
            scores=list(res.scores),
            winners=list(res.winners),
        )

    def round_points(self) -> list[int]:
        """Each side's points this round so far: active tablas, card points, and the most
        cards bonus when that option is on and the round is over."""
        sides = range(len(self.sides))
        points = [self.side_tablas[k] + card_points(self.side_cards(k)) for k in sides]
        bonus = self.options["most_cards_bonus"]
        if bonus and not any(self.hands) and not self.stock:
            counts = [len(self.side_cards(k)) for k in sides]
            top = max(counts)
            if counts.count(top) == 1:
                points[counts.index(top)] += bonus
        return points

    # -- what views show ----------------------------------------------------------------------

    @property
    def seat_tablas(self) -> list[int]:
        return [self.side_tablas[self.side_of(s)] for s in range(self.players)]

    @property
    def seat_scores(self) -> list[int]:
        if self.phase == phases.OVER:
            per_side = list(self.totals)
        else:
            now = self.round_points()
            per_side = [t + p for t, p in zip(self.totals, now, strict=True)]
        return [per_side[self.side_of(s)] for s in range(self.players)]

    @property
    def capture_fact(self) -> dict[str, Any] | None:
        sel = self.selection
        if sel is None:
            return None
        table = self.layout
        return {"value": sel.target, "taken": [str(table[i]) for i in sel.taken]}

    def is_over(self) -> bool:
        return self.phase == phases.OVER

    def result(self) -> Result:
        if self.phase != phases.OVER:
            raise RuntimeError("the match is not over")
        scores = tuple(float(self.totals[self.side_of(s)]) for s in range(self.players))
        ranks = ranks_from_scores(scores)
        winners = tuple(s for s, r in enumerate(ranks) if r == 1)
        return Result(scores, ranks, winners, tuple(self.records), self.reason or "complete")

    def estimate(self) -> tuple[float, ...]:
        """Scores as if the round stopped now, the table going to the last capturer: what a
        search that cuts its rollouts short scores them by."""
        points = self.round_points()
        if self.last_capturer is not None:
            points[self.side_of(self.last_capturer)] += card_points(self.layout)
        return tuple(
            float(self.totals[k] + points[k]) for k in map(self.side_of, range(self.players))
        )

    def view(self, seat: int, history: bool = True) -> SeatView:
        n = self.players
        over = self.phase == phases.OVER
        return SeatView(
            game=self.game,
            seat=seat,
            players=n,
            phase=self.phase,
            to_act=self.to_act(),
            hand=tuple(self.hands[seat]),
            zones=self.view_zones(seat),
            counts=self.view_counts(),
            counters=declared.shown_counters(self.FIELDS, self, n),
            trump=None,
            scores=self.result().scores if over else tuple(float(x) for x in self.seat_scores),
            facts=declared.shown_facts(self.FIELDS, self),
            history=self.history(seat) if history else (),
            options=self.options,
        )

    # -- copies, worlds and positions ---------------------------------------------------------

    def clone(self) -> TabinetState:
        """An independent copy, without the cost of a deep copy (cards and events are frozen)."""
        new: TabinetState = self._shallow_copy()
        new.hands = [list(h) for h in self.hands]
        new.piles = [list(p) for p in self.piles]
        new.stock = list(self.stock)
        new.layout = list(self.layout)
        new.played = list(self.played)
        new.side_tablas = list(self.side_tablas)
        new.totals = list(self.totals)
        new.records = [dict(r) for r in self.records]
        return new

    def playout_state(self, seed: int) -> KernelPlayout:
        """A copy for playouts (the search's fast path): this position in the C kernel
        (:mod:`levata.engine.tabinet_playouts`), play only, no events, views or history; its
        random stream starts from ``seed``. It plays by these rules and its ``heuristic``
        policy is the heuristic bot's (``tests/games/test_tabinet.py`` plays the two side by
        side, ``tests/engine/test_tabinet_kernel.py`` the kernel and the Python copy).

        >>> s = TabinetState.from_position(2, ["9H 4C", "4D 5S"], table="AD 8C 2H 7S 5D")
        >>> fast = s.playout_state(seed=1)
        >>> fast.legal_actions(0) == s.legal_actions(0), fast.estimate() == s.estimate()
        (True, True)
        """
        return KernelPlayout(self.playout_fields(), seed)

    def playout_dealer(self, seat: int, seed: int) -> TabinetDealer:
        """The search's dealer of worlds ``seat`` cannot tell from this one, as fast copies
        (:class:`~levata.engine.tabinet_playouts.TabinetDealer`): :meth:`from_view`'s deal,
        in C. This state must itself be such a world (``from_view`` of ``seat``'s view, or
        the real match); its hidden cards are dealt afresh each time."""
        return TabinetDealer(KernelPlayout(self.playout_fields(), 0), seat, seed)

    def python_playout_state(self, seed: int) -> TabinetPlayout:
        """The same copy in Python (:mod:`.playout`): the reference the kernel is proven
        against (``tests/engine/test_tabinet_kernel.py``) and a readable statement of the
        playout policy; the search runs on :meth:`playout_state`."""
        return TabinetPlayout(self.playout_fields(), seed)

    def playout_fields(self) -> dict[str, Any]:
        """This position as plain values, as the playout copies' ``fields()`` say it (both
        copies copy them, so nothing here is copied)."""
        k = range(len(self.sides))
        return {
            "players": self.players,
            "sides": self.sides,
            "hands": self.hands,
            "stock": self.stock,
            "layout": self.layout,
            "played": self.played[0] if self.played else None,
            "points": [card_points(self.side_cards(side)) for side in k],
            "cards": [len(self.side_cards(side)) for side in k],
            "tablas": self.side_tablas,
            "totals": self.totals,
            "last_capturer": self.last_capturer,
            "phase": self.phase,
            "actor": self.actor,
            "first": self.first,
            "selection": _selection_out(self.selection),
            "forced_capture": bool(self.options["forced_capture"]),
            "most_cards_bonus": self.options["most_cards_bonus"],
        }

    def sample_world(self, seat: int, rng: random.Random) -> TabinetState:
        """Redeal every card ``seat`` cannot see: the other hands and the stock hold no
        card any event pins down, so any deal of the unseen cards to their sizes will do."""
        return TabinetState.from_view(self.spec, self.view(seat), rng)

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> TabinetState:
        """A state whose ``view(view.seat)`` is ``view``: the unseen cards (other hands and
        the stock) dealt at random to their sizes, the history's unseen events blanks."""
        n, me = view.players, view.seat
        state = cls.__new__(cls)
        GameState.__init__(state, spec, n, dict(view.options), rng.getrandbits(32))
        state._reset()
        state.rng = random.Random(rng.getrandbits(64))
        zones, counts, counters = view.zones, view.counts, view.counters
        state.layout = list(zones["table"])
        state.played = list(zones.get("played", ()))
        state.piles = [list(zones[f"pile:{s}"]) for s in range(n)]
        state.hands[me] = list(view.hand)
        seen = {*view.hand, *state.layout, *state.played, *(c for p in state.piles for c in p)}
        unseen = [c for c in _DECK if c not in seen]
        rng.shuffle(unseen)
        for s in range(n):
            if s != me:
                k = counts[f"hand:{s}"]
                state.hands[s] = sorted(unseen[:k])
                del unseen[:k]
        state.stock = unseen
        state.phase = view.phase
        state.actor = view.to_act[0] if view.to_act else 0
        state.dealer, state.first = counters["dealer"], counters["first"]
        state.round_no = counters["round"]
        last = counters["last_capturer"]
        state.last_capturer = None if last < 0 else last
        state.side_tablas = [counters[f"tablas:{side[0]}"] for side in state.sides]
        state.totals = [0] * len(state.sides)
        now = state.round_points()
        state.totals = [counters[f"score:{side[0]}"] - now[k] for k, side in enumerate(state.sides)]
        if state.phase == phases.OVER:
            state.totals = [counters[f"score:{side[0]}"] for side in state.sides]
        fact = view.facts["capture"]
        if fact is not None:
            index = {str(c): i for i, c in enumerate(state.layout)}
            state.selection = Selection(fact["value"], tuple(index[c] for c in fact["taken"]))
        state._log = seen_log(view)
        return state

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        places = self.place_values()
        values_: dict[str, Any] = {"phase": self.phase, **places}
        values_.update(declared.stored(self.FIELDS, self))
        return values_, set(places)

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> TabinetState:
        state = cls.__new__(cls)
        GameState.__init__(state, spec, pos.players, options, seed)
        state._reset()
        state.phase = pos.value("phase")
        state.load_places(pos.cards)
        for hand in state.hands:
            hand.sort()
        check_deck(list(state.place_values().values()), _DECK)
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        problem = declared.misfit(cls.FIELDS, state, pos.players)
        if problem or len(state.side_tablas) != len(state.sides):
            raise BadConfig(f"position: {problem or 'side_tablas needs one value per side'}")
        state._emit(events.POSITION, cards=tuple(state.layout), hands=[len(h) for h in state.hands])
        for s in range(pos.players):
            state._emit(events.HAND, audience={s}, seat=s, cards=state.hands[s])
        return state

    @classmethod
    def from_position(  # noqa: PLR0913  (a hand-made position: every part a keyword)
        cls,
        players: int,
        hands: Sequence[str],
        *,
        table: str = "",
        stock: str | None = None,
        piles: Sequence[str] | None = None,
        turn: int = 0,
        first: int | None = None,
        tablas: Sequence[int] | None = None,
        last_capturer: int | None = None,
        rest: str | int = "stock",
        options: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> TabinetState:
        """A position set up directly in the play phase (for tests and puzzles).

        ``stock`` lists the stock top first; cards named nowhere go under it, or with
        ``rest=SEAT`` into that seat's capture pile (out of play). ``tablas`` per side.

        >>> s = TabinetState.from_position(2, ["9D", "4C"], table="9C", stock="", rest=1)
        >>> [str(a) for a in s.legal_actions(0)], len(s.piles[1])  # scenario 11
        (['capture 9D', 'trail 9D'], 49)
        """
        state = cls.__new__(cls)
        GameState.__init__(state, SPEC, players, SPEC.resolve_options(options), seed)
        state._reset()
        state.hands = [sorted(parse_cards(h)) for h in hands]
        state.layout = parse_cards(table)
        state.piles = [parse_cards(p) for p in piles] if piles else [[] for _ in range(players)]
        pile = parse_cards(stock) if stock else []
        named = [*(c for h in state.hands for c in h), *state.layout, *pile]
        named += [c for p in state.piles for c in p]
        if len(set(named)) != len(named):
            raise BadConfig("a card is named twice in the position")
        left = [c for c in _DECK if c not in set(named)]
        if rest == "stock":
            pile += left
        else:
            state.piles[int(rest)] += left
        state.stock = pile[::-1]
        state.first = turn if first is None else first
        state.dealer = (state.first - 1) % players
        state.actor = turn
        state.phase = phases.PLAYING
        state.last_capturer = last_capturer
        if tablas is not None:
            state.side_tablas = list(tablas)
        state._emit(events.POSITION, cards=tuple(state.layout), hands=[len(h) for h in state.hands])
        for s in range(players):
            state._emit(events.HAND, audience={s}, seat=s, cards=state.hands[s])
        return state


def _said(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards))


_LINES = {
    events.HAND: lambda ev: (
        f"   seat {ev.seat} gets {_said(ev.cards)} more" if ev.data.get("more") else None
    ),
    ACCEPT_KIND: lambda ev: f"seat {ev.seat} keeps its first four cards",
    REFUSE_KIND: lambda ev: f"seat {ev.seat} refuses {_said(ev.cards)}: they are the table",
    "layout": lambda ev: f"   the table: {_said(ev.cards)}",
    "packet": lambda ev: f"   {ev.data['size']} cards each ({ev.data['stock']} left)",
    TRAIL_KIND: lambda ev: f"seat {ev.seat} lays {_said(ev.cards)}",
    CAPTURE_KIND: lambda ev: f"seat {ev.seat} captures with {_said(ev.cards)}",
    ACE_KIND: lambda ev: f"   the ace counts {ev.data['value']}",
    "captured": lambda ev: f"   and takes {' + '.join(' '.join(s) for s in ev.data['sets'])}",
    "tabla": lambda ev: (
        f"   TABLA for seat {ev.seat}"
        + (f" (side {ev.data['lifted']} loses one)" if ev.data["lifted"] is not None else "")
    ),
    "rest": lambda ev: f"   seat {ev.seat} takes the rest: {_said(ev.cards)}",
    events.SCORE: lambda ev: f"-- points {ev.data['points']}, totals {ev.data['totals']}",
    events.POSITION: lambda ev: f"-- position: table {_said(ev.cards)}, hands {ev.data['hands']}",
}


def narrate(ev: Event) -> str | None:
    """A line for one of Tabinet's own events, ``None`` for the shared ones.

    >>> narrate(Event(seq=3, kind="trail", seat=1, cards=(Card.parse("5D"),)))
    'seat 1 lays 5D'
    """
    line = _LINES.get(ev.kind)
    return None if line is None else line(ev)


_ZONES, _COUNTS = described(TabinetState.PLACES)

VOCABULARY = Vocabulary(
    phases={
        DECIDE: "the first player looks at its first four cards: accept them, or refuse them"
        " (at most one point card) to make them the table",
        phases.PLAYING: "a seat's turn: capture with a card, or trail it onto the table",
        ACE_VALUE: "a played ace could capture as 1 or as 11: say which",
        CAPTURING: "the played card's sets are being chosen: take a table card, or be done",
        phases.OVER: "the match is over",
    },
    zones=_ZONES,
    counts=_COUNTS,
    counters=declared.described(TabinetState.FIELDS, "counters"),
    facts=declared.described(TabinetState.FIELDS, "facts"),
    actions={
        ACCEPT_KIND: "keep the first four cards (two more follow; four stock cards become the"
        " table)",
        REFUSE_KIND: "turn the first four cards face up as the table (at most one point card"
        " among them); everyone then gets six",
        TRAIL_KIND: "lay `card` face up on the table",
        CAPTURE_KIND: "play `card` to capture with it (its sets are chosen next)",
        ACE_KIND: "the played ace counts `number` (1 or 11) for this capture",
        TAKE_KIND: "take the table card `card` (cards are taken in table order; what is"
        " taken must end as disjoint sets each summing to the played card's value)",
        DONE_KIND: "end the capture with the cards taken so far (they form whole sets)",
    },
    events={
        events.DEAL: "a round starts: `data.dealer`, `first` (who decides on four cards and"
        " plays first), `round`",
        events.HAND: "cards dealt to you (seen by you alone; `data.more`: the first player's two"
        " more after it accepted); after a `position`, your hand",
        ACCEPT_KIND: "`seat` kept its first four cards",
        REFUSE_KIND: "`seat` refused its first four `cards`: they are now the table",
        "packet": "cards are dealt: `data.size` to each of `data.seats`, `data.stock` left",
        "layout": "`cards` were turned face up from the stock as the table",
        TRAIL_KIND: "`seat` laid `cards` on the table",
        CAPTURE_KIND: "`seat` played `cards` to capture with it",
        ACE_KIND: "the ace `seat` played counts `data.value`",
        "captured": "`seat` captured: `cards` is the played card then the table cards;"
        " `data.sets` each set, `data.value` the sum, `data.sweep` the table is now empty",
        "tabla": "`seat` swept the table: its side `data.side` scores a tabla; `data.lifted`"
        " the side that lost one (null: none); `data.tablas` active tablas per side",
        "rest": "the table's last `cards` go to `seat`, the last capturer (no tabla)",
        events.SCORE: "a round is scored: `data.points` and `data.totals` per side (sides:"
        " the teams at four, else the seats), `data.rest_to` who took the rest",
        events.POSITION: "the match was read from a position: `cards` is the table,"
        " `data.hands` the cards each seat holds; each `hand` follows",
        events.END: "the match is over: `data.reason`, `ranks`, `scores`, `winners`",
    },
)

SPEC = register(
    GameSpec(
        name="tabinet",
        title="Tabinet",
        players=(2, 3, 4),
        summary="Capture table cards summing to the card you play; sweep the table for a tabla.",
        options=(
            Option(
                "match_target",
                0,
                "play rounds, the dealer rotating, until a side has this many points (0: one"
                " round) (D6)",
                minimum=0,
                maximum=1000,
            ),
            Option(
                "most_cards_bonus",
                0,
                "points for the side with strictly the most cards captured in a round (0: off)",
                minimum=0,
                maximum=10,
            ),
            Option(
                "forced_capture",
                False,
                "a seat that can capture with some card may not trail (D4's strict reading)",
            ),
        ),
        factory=TabinetState,
        teams=teams,
        bots={"heuristic": "levata.bots.heuristic.tabinet:HeuristicBot"},
        narrate=narrate,
        vocabulary=VOCABULARY,
    )
)
