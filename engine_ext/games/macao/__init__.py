"""Macao: shed your hand by matching suit or rank; 2, 3 and K make someone draw.

Rules (``docs/games/macao.md`` says them in full; the [D#] marks name its decisions):

* 2-6 players, one 52-card deck, 5 cards each. The dealer is drawn from the RNG, seat
  ``dealer + 1`` starts. The starter card is face up and has no effect (D1).
* On a turn, play a group of same-rank cards whose first card ``matches`` the top (same suit
  or rank; under a request the named rank or a J, the named suit or an A), or ``draw`` one
  card and play it at once if it matches (only the drawn card may start that group, D10).
  ``pass`` is legal only when nothing can be drawn, even after a reshuffle (D15, D8).
* 2, 3 and K make the target draw 2, 3 and 5 each, unless it ``stacks`` a penalty card
  (same rank; 2 and 3 of one suit; K with 2 or 3 of one colour, D3). Red K, 2 and 3 hit the
  next seat; a black K hits the previous one, who answers out of turn (D5, D19). A 4 makes the
  next seat lose a turn; 4s stack and a longer stack costs more turns (D12). Targets ignore
  skip counters (D14). A penalty larger than what can be drawn is cut short (D2).
* A J may name a rank (5-10, Q), an A a suit. The request lasts one lap (D6), or only for the
  next seat with option ``request_scope=next_player``. A J answers a rank request and an A a
  suit request (option ``wild_changers``: J and A match anything, D13).
* A seat finishes when its hand empties. With 2-4 players the last seat left loses; with 5-6
  the game stops when the third seat finishes and the rest rank by fewest cards (D7). Scores
  are ``players - rank``. Deadlock and an action cap end stuck games (D8).

Atomic actions: ``play <card>`` starts a group (only this card is tested against the table)
and the same seat adds cards with ``play <card>`` until ``done``; after a J or A group comes
``request <value>`` or ``no_request``. Other kinds: ``draw``, ``end_turn`` (keep a playable
drawn card), ``accept`` (take a penalty or the lost turns), ``pass``.

Decisions added to the spec:

* Each card of a group is public when it is played; the group's effect, and the finish of a
  seat whose hand it empties, happen at ``done``. A finishing J or A still names (D18).
* A seat is served by a request when its part ends (a finished group, a draw it does not
  play, ``end_turn``, ``accept``, ``pass``, or being skipped), not at the draw that precedes
  playing the drawn card, which must still obey the request.
* ``request_scope=next_player``: the request binds only ``nextActive(requester)``; if that
  seat is skipped the request is spent.
* ``group_same_suit`` (default on, as the seed's general rule reads): on a normal turn a group
  may be one suit instead of one rank, and only its last card's effect applies (2, 3 or 5
  cards, one skip, a request). Answers to a penalty or to a 4 are always one rank (the
  spec's 4.2 and 4.3).
* ``wild_changers``: J and A match any top and any request, never a pending penalty.
* ``action_cap`` counts atomic actions. Deadlock: every active seat has passed since the last
  play. Play stopped by the cap mid-group leaves that group on the table, unfinished.
* ``sample_world`` redeals a hidden card only among slots of its stock "epoch": after a
  reshuffle the new stock is a publicly known set, so cards drawn from it came from that set.

>>> state = MacaoState.from_position(players=2, hands=["9S 3H KC 7C", "5D 6D"], top="9H")
>>> [str(a) for a in state.legal_actions(0)]
['play 3H', 'play 9S', 'draw']
>>> state.apply(0, Action.parse("play 9S"))
>>> [str(a) for a in state.legal_actions(0)]
['done']
>>> state.apply(0, Action.parse("done"))
>>> state.to_act(), str(state.discard[-1])
((1,), '9S')
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from levata.engine import actions, events, phases
from levata.engine import fields as declared
from levata.engine.cards import FRENCH_RANKS, Card, Suit, french_deck, parse_cards
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    GameState,
    Option,
    Result,
    SeatView,
)
from levata.engine.deal import shuffled
from levata.engine.family.seen import SeatHistories
from levata.engine.family.shedding import DrawPile, ranks_by_finish
from levata.engine.fields import Counter, Declared, Fact, Kept, Seats
from levata.engine.games.macao.world import TRIES, Rules, Skeleton, plan, skeleton
from levata.engine.games.macao.world import deal as deal_world
from levata.engine.macao_playouts import MacaoDealer, MacaoPlayout
from levata.engine.position import Position, check_deck
from levata.engine.registry import register
from levata.engine.vocabulary import Vocabulary
from levata.engine.zones import Place, described

__all__ = ["SPEC", "MacaoState", "Pending", "Request", "matches", "stacks"]

HAND_SIZE = 5
FOUR, JACK, KING, ACE = 4, 11, 13, 14
PENALTY = {2: 2, 3: 3, KING: 5}  # cards to draw per penalty card
RANK_REQUESTS = ("5", "6", "7", "8", "9", "10", "Q")  # what a J may name
SUIT_REQUESTS = ("C", "D", "H", "S")  # what an A may name

#: Macao's own action kinds (``draw`` and ``pass`` are the shared ones).
DONE_KIND, REQUEST_KIND, END_TURN_KIND, ACCEPT_KIND = "done", "request", "end_turn", "accept"
NO_REQUEST_KIND = "no_request"
#: What a pending penalty makes its target do: draw cards (2, 3, K) or lose turns (4).
DRAW_PENALTY, SKIP_PENALTY = "draw", "skip"
#: Macao's phases besides the shared ``over``: a seat's turn; it drew and may play the drawn
#: card; it is putting down a group; it names a request (J, A); it answers a penalty.
TURN, DRAWN, GROUPING, REQUESTING, RESPONDING = "turn", "drawn", "group", "request", "respond"
DRAW, END_TURN, ACCEPT, PASS, DONE, NO_REQUEST = (
    Action(k)
    for k in (
        actions.DRAW,
        END_TURN_KIND,
        ACCEPT_KIND,
        actions.PASS,
        DONE_KIND,
        NO_REQUEST_KIND,
    )
)
#: A request's value as the number matching compares: the rank, or the suit's number.
_REQUEST_KEY = {v: FRENCH_RANKS[v] for v in RANK_REQUESTS} | {
    v: int(Suit.parse(v)) for v in SUIT_REQUESTS
}
_PLAY = {c: Action(actions.PLAY, card=c) for c in french_deck()}
_REQUEST_ACTIONS = {
    JACK: [Action(REQUEST_KIND, choice=v) for v in RANK_REQUESTS] + [NO_REQUEST],
    ACE: [Action(REQUEST_KIND, choice=v) for v in SUIT_REQUESTS] + [NO_REQUEST],
}


@dataclass(frozen=True, slots=True)
class Pending:
    """A penalty waiting for its target: ``draw`` cards or ``skip`` turns."""

    kind: str  # DRAW_PENALTY | SKIP_PENALTY
    amount: int
    target: int
    dir: str  # "fwd" | "back"
    last: int  # the seat that played the penalty

    def facts(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "amount": self.amount,
            "target": self.target,
            "dir": self.dir,
            "last": self.last,
        }

    @classmethod
    def read(cls, facts: dict[str, Any] | None) -> Pending | None:
        """The penalty that :meth:`facts` shows (``None``: none)."""
        return None if facts is None else cls(**facts)


@dataclass(frozen=True, slots=True)
class Request:
    """A J's rank or an A's suit, binding the ``unserved`` seats."""

    kind: str  # "rank" | "suit"
    value: str  # "8", "Q", "H"...
    requester: int
    unserved: frozenset[int]

    @property
    def key(self) -> int:
        """The requested rank number, or the requested suit's number."""
        return _REQUEST_KEY[self.value]

    def facts(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "value": self.value,
            "requester": self.requester,
            "unserved": sorted(self.unserved),
        }

    @classmethod
    def read(cls, facts: dict[str, Any] | None) -> Request | None:
        """The request that :meth:`facts` shows (``None``: none)."""
        if facts is None:
            return None
        return cls(facts["kind"], facts["value"], facts["requester"], frozenset(facts["unserved"]))


def stacks(card: Card, top: Card) -> bool:
    """Whether ``card`` may answer the draw penalty whose last card is ``top`` (D3).

    >>> [stacks(Card.parse(c), Card.parse("2S")) for c in ("2H", "3S", "3D", "KC", "KH")]
    [True, True, False, True, False]
    """
    if card.rank not in PENALTY:
        return False
    if card.rank == top.rank:
        return True
    if KING in (card.rank, top.rank):
        return card.suit.red == top.suit.red
    return card.suit == top.suit  # a 2 on a 3 or a 3 on a 2


def matches(card: Card, top: Card, request: Request | None, wild: bool = False) -> bool:
    """Whether ``card`` may start a group on a normal turn.

    >>> nine = Card.parse("9H")
    >>> [matches(Card.parse(c), nine, None) for c in ("9S", "3H", "KC")]
    [True, True, False]
    >>> eights = Request("rank", "8", 0, frozenset({1}))
    >>> [matches(Card.parse(c), nine, eights) for c in ("8C", "JD", "9S")]
    [True, True, False]
    """
    if wild and card.rank in (JACK, ACE):
        return True
    if request is None:
        return card.suit == top.suit or card.rank == top.rank
    if request.kind == "rank":
        return card.rank == request.key or card.rank == JACK
    return int(card.suit) == request.key or card.rank == ACE


def _cards(value: str | Card | Sequence[Card | str] | None) -> list[Card]:
    """Cards from notation or objects (test and position helpers)."""
    if value is None:
        return []
    if isinstance(value, Card):
        return [value]
    if isinstance(value, str):
        return parse_cards(value)
    return [c if isinstance(c, Card) else Card.parse(c) for c in value]


def _facts_of(item: Pending | Request | None) -> dict[str, Any] | None:
    return None if item is None else item.facts()


def _card_or_none(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _read_card(text: str | None) -> Card | None:
    return None if text is None else Card.parse(text)


class MacaoState(DrawPile, SeatHistories):
    """A Macao match in progress (one deal)."""

    #: A world rebuilt from a view keeps that view's walk (:mod:`.world`): the search's
    #: dealer reads it instead of walking the whole history again.
    _walked: Skeleton | None = None

    #: Where cards lie (:mod:`levata.engine.zones`): the hands, the stock and the discard
    #: pile of :class:`DrawPile`, and the group being put down.
    PLACES: ClassVar[tuple[Place, ...]] = (
        *DrawPile.PLACES,
        Place("group", "the cards of the group being put down, in order", owner="actor"),
    )

    #: The state beyond the cards, declared once (:mod:`levata.engine.fields`): the view's
    #: counters and facts in the order views show them, then what only a position writes
    #: down. The drawn card is shown to the seat that drew it alone (see :meth:`view`).
    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Seats(Counter("skips", "turns the seat still has to lose (from 4s it accepted)")),
        Counter(
            "pending_amount",
            "cards to draw, or turns to lose, of the pending penalty (0: none)",
            derived=True,
        ),
        Counter(
            "actions",
            "atomic actions taken so far in the match (the action_cap option ends it)",
            attr="actions_taken",
        ),
        Fact(
            "pending",
            "the penalty waiting (null: none): `kind` (draw or skip), `amount`, `target` (the"
            " seat it hits), `dir` (fwd: the next seat, back: the previous, for a black K),"
            " `last` (the seat that played its last card)",
            show=_facts_of,
            read=Pending.read,
        ),
        Fact(
            "request",
            "the J's or A's request in force (null: none): `kind` (rank or suit), `value`"
            " (5-10, Q; or C, D, H, S), `requester`, `unserved` (the seats it still binds)",
            show=_facts_of,
            read=Request.read,
        ),
        Fact("finished", "the seats that emptied their hands, in order"),
        Fact("turn", "the seat whose normal turn it is (a penalty's target may act out of turn)"),
        Fact("cursor", "the seat that most recently acted in turn (penalties count from it)"),
        Fact("dealer", "the dealer (the seat after it played first)"),
        Kept("actor", "the one seat to act (a penalty's target may act out of turn)"),
        Kept(
            "drawn",
            "the playable card just drawn, awaiting play or end_turn (null: none)",
            show=_card_or_none,
            read=_read_card,
        ),
        Kept("passed", "the seats that passed since the last play", read=set),
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
        self._deal(list(deal) if deal is not None else None)

    def _reset(self) -> None:
        n = self.players
        self.hands: list[list[Card]] = [[] for _ in range(n)]  # each kept sorted
        self.stock: list[Card] = []  # face down, top card LAST (pop)
        self.discard: list[Card] = []  # face up, top card last
        self.group: list[Card] = []  # the group being played, face up
        self.finished: list[int] = []
        self.active = [True] * n
        self.skips = [0] * n
        self.pending: Pending | None = None
        self.request: Request | None = None
        self.phase = TURN
        self.actor = 0  # the one seat to act
        self.turn = 0
        self.cursor = 0  # the seat that most recently acted in turn
        self.dealer = 0
        self.drawn: Card | None = None  # a playable drawn card awaiting play or end_turn
        self.actions_taken = 0
        self.passed: set[int] = set()  # seats that passed since the last play
        self.epoch = 0  # reshuffles so far
        # card in a hand -> (epoch it was drawn in, seq of the private event naming it):
        # what sample_world needs to redeal hidden cards consistently with public history.
        self._acq: dict[Card, tuple[int, int]] = {}
        self._start_histories()
        self.reason: str | None = None

    # -- setting up ---------------------------------------------------------------------------

    def _deal(self, order: list[Card] | None) -> None:
        n = self.players
        self.dealer = self.rng.randrange(n)
        if order is None:
            order = shuffled(french_deck(), self.rng)
        elif sorted(order) != sorted(french_deck()):
            raise BadConfig("the deal must be the 52-card French deck, each card once")
        first = (self.dealer + 1) % n
        self.collect(order[::-1], into="stock")  # face down, the deal's first card on top
        for i in range(HAND_SIZE * n):  # one card at a time, from the dealer's left
            self.move(self.stock[-1], "stock", f"hand:{(first + i) % n}")  # told by `hand`
        self.move(
            self.stock[-1],
            "stock",
            "discard",
            kind=events.DEAL,  # the starter, face up
            dealer=self.dealer,
            first=first,
            hands=[HAND_SIZE] * n,
            stock=len(self.stock) - 1,
        )
        self._emit_hands()
        self._start_turn(first)

    def _emit_hands(self) -> None:
        for s in range(self.players):
            ev = self._emit(events.HAND, audience={s}, seat=s, cards=self.hands[s])
            for c in self.hands[s]:
                self._acq[c] = (0, ev.seq)

    @classmethod
    def from_position(  # noqa: PLR0913  (a hand-made position: every part a keyword)
        cls,
        players: int,
        hands: Sequence[str | Sequence[Card | str]],
        top: str | Card,
        *,
        discard: str | Sequence[Card | str] = (),
        stock: str | Sequence[Card | str] | None = None,
        rest: str | int = "stock",
        turn: int = 0,
        skips: Sequence[int] | None = None,
        pending: dict[str, Any] | None = None,
        request: dict[str, Any] | None = None,
        finished: Sequence[int] = (),
        cursor: int | None = None,
        options: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> MacaoState:
        """A position set up directly (for tests and puzzles).

        A different thing from :meth:`GameSpec.from_position`, which reads back the whole
        position's text that :meth:`position` writes.

        ``discard`` lists the cards under ``top`` (bottom first), ``stock`` the stock (top
        first). Cards named nowhere go to ``rest``: the bottom of the ``stock``, under the
        ``discard``, or into the hand of the seat numbered ``rest``. ``pending`` and
        ``request`` take the keys of :meth:`Pending.facts` and :meth:`Request.facts`.

        >>> s = MacaoState.from_position(3, ["7D", "8D", "9D"], "2D", stock="5C", rest="discard")
        >>> len(s.stock), len(s.discard), s.to_act()
        (1, 48, (0,))
        """
        state = cls.__new__(cls)
        GameState.__init__(state, SPEC, players, SPEC.resolve_options(options), seed)
        state._reset()
        placed = [_cards(h) for h in hands]
        under, top_card = _cards(discard), _cards(top)[0]
        pile = _cards(stock)
        named = [c for h in placed for c in h] + under + [top_card] + pile
        if len(set(named)) != len(named):
            raise BadConfig("a card is named twice in the position")
        left = [c for c in french_deck() if c not in set(named)]
        if rest == "stock":
            pile += left
        elif rest == "discard":
            under = left + under
        else:
            placed[int(rest)] += left
        state.hands = [sorted(h) for h in placed]
        state.discard = [*under, top_card]
        state.stock = pile[::-1]
        state.skips = list(skips) if skips is not None else [0] * players
        for s in finished:
            state.finished.append(s)
            state.active[s] = False
        state._emit("position", cards=tuple(state.discard), hands=[len(h) for h in state.hands])
        state._emit_hands()
        state._start_turn(turn)
        if cursor is not None:
            state.cursor = cursor
        if request is not None:
            unserved = frozenset(request.get("unserved", set(state._active_seats()) - {turn}))
            state.request = Request(
                request["kind"], str(request["value"]), request.get("requester", turn), unserved
            )
        if pending is not None:
            state.pending = Pending(**{"dir": "fwd", "last": turn, **pending})
            state.phase, state.actor = RESPONDING, state.pending.target
        return state

    # -- seats and turns ----------------------------------------------------------------------

    def _active_seats(self) -> list[int]:
        return [s for s in range(self.players) if self.active[s]]

    def next_active(self, s: int) -> int:
        """The nearest active seat clockwise from ``s``, not counting ``s``."""
        n = self.players
        t = (s + 1) % n
        while not self.active[t]:
            t = (t + 1) % n
        return t

    def prev_active(self, s: int) -> int:
        """The nearest active seat counter-clockwise from ``s``, not counting ``s``."""
        n = self.players
        t = (s - 1) % n
        while not self.active[t]:
            t = (t - 1) % n
        return t

    def advance(self, s: int) -> int:
        """The seat whose normal turn follows ``s``, serving any skips on the way."""
        t = self.next_active(s)
        while self.skips[t] > 0:
            self.skips[t] -= 1
            self._emit("skipped", seat=t, left=self.skips[t])
            self._serve(t)
            t = self.next_active(t)
        return t

    def _turn_over(self, seat: int) -> None:
        """``seat`` ends its normal turn: it is served, and the turn moves on."""
        self._serve(seat)
        self._start_turn(self.advance(seat))

    def _start_turn(self, seat: int) -> None:
        self.phase = TURN
        self.turn = self.actor = self.cursor = seat
        self.drawn = None

    def _serve(self, seat: int) -> None:
        """``seat`` has had its go under the current request; end the request once all have."""
        req = self.request
        if req is not None and seat in req.unserved:
            unserved = req.unserved - {seat}
            self.request = replace(req, unserved=unserved) if unserved else None
            if not unserved:
                self._emit("request_over", seat=req.requester, reason="served")

    # -- what is legal ------------------------------------------------------------------------

    @property
    def top(self) -> Card:
        return self.discard[-1]

    @property
    def pending_amount(self) -> int:
        """Cards to draw, or turns to lose, of the pending penalty (0: none)."""
        return self.pending.amount if self.pending else 0

    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == phases.OVER else (self.actor,)

    def legal_actions(self, seat: int) -> list[Action]:
        return self._offer(seat, self._legal(seat))  # kept: apply finds its action there

    def _legal(self, seat: int) -> list[Action]:
        if self.phase == phases.OVER or seat != self.actor:
            return []
        hand = self.hands[seat]
        phase = self.phase
        if phase == TURN:
            top, req, wild = self.top, self.request, self.options["wild_changers"]
            out = [_PLAY[c] for c in hand if matches(c, top, req, wild)]
            out.append(DRAW if self.available() > 0 else PASS)
            return out
        if phase == GROUPING:
            rank, suit = self._group_extends()
            out = [_PLAY[c] for c in hand if c.rank == rank or c.suit is suit]
            out.append(DONE)
            return out
        if phase == RESPONDING:
            if self.pending.kind == DRAW_PENALTY:  # type: ignore[union-attr]  # respond: a penalty is pending
                top = self.top
                out = [_PLAY[c] for c in hand if stacks(c, top)]
            else:
                out = [_PLAY[c] for c in hand if c.rank == FOUR]
            out.append(ACCEPT)
            return out
        if phase == DRAWN:
            return [_PLAY[self.drawn], END_TURN]  # type: ignore[index]  # drawn: a card was drawn
        return list(_REQUEST_ACTIONS[self.top.rank])  # phase REQUESTING

    def _group_extends(self) -> tuple[int | None, Suit | None]:
        """The rank, and the suit, a card may share to join the group in progress (D4).

        A group is one rank; with ``group_same_suit`` a normal turn's group may instead be one
        suit. Its first two cards tell which. Answers to a penalty always stay one rank.
        """
        first = self.group[0]
        if len(self.group) == 1:
            by_suit = self.options["group_same_suit"] and self.pending is None
            return first.rank, first.suit if by_suit else None
        if self.group[1].rank == first.rank:
            return first.rank, None
        return None, first.suit

    # -- applying -----------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        self.actions_taken += 1
        kind = action.kind
        if kind == actions.PLAY:
            self._play(seat, action.card)  # type: ignore[arg-type]  # plays carry cards
        elif kind == DONE_KIND:
            self._done(seat)
        elif kind == REQUEST_KIND:
            self._name(seat, action.choice)
        elif kind == NO_REQUEST_KIND:
            self._name(seat, None)
        elif kind == actions.DRAW:
            self._draw_on_turn(seat)
        elif kind == END_TURN_KIND:
            self._emit(END_TURN_KIND, seat=seat)
            self._turn_over(seat)
        elif kind == ACCEPT_KIND:
            self._accept(seat)
        elif kind == actions.PASS:
            self._pass(seat)
        if self.phase != phases.OVER and self.actions_taken >= self.options["action_cap"]:
            self._end("cap")

    def _responds_in_turn(self) -> bool:
        """A draw penalty is answered in turn only if it came from the seat holding the turn."""
        p = self.pending
        return p.kind == SKIP_PENALTY or (p.dir == "fwd" and p.last == self.cursor)  # type: ignore[union-attr]  # only asked with a penalty pending

    def _play(self, seat: int, card: Card) -> None:
        data: dict[str, Any] = {}
        if self.phase != GROUPING:  # the group starts: the drawn card, if any, is public now
            if self.phase == RESPONDING and self._responds_in_turn():
                self.cursor = seat
            data = {"first": True, "drawn": self.phase == DRAWN}
            self.phase, self.drawn = GROUPING, None
            self.passed.clear()
        del self._acq[card]
        self.move(card, f"hand:{seat}", "group", kind=events.PLAY, seat=seat, **data)

    def _done(self, seat: int) -> None:
        group = list(self.group)
        self.move(group, "group", "discard", kind=DONE_KIND, seat=seat)
        if not self.hands[seat]:
            self._finish(seat)
            if self.phase == phases.OVER:
                return
        by_rank = len(group) == 1 or group[1].rank == group[0].rank
        effective = group if by_rank else group[-1:]  # a suit group: only the last card acts
        rank = group[-1].rank
        if rank in PENALTY:
            self._set_pending(DRAW_PENALTY, sum(PENALTY[c.rank] for c in effective), seat)
        elif rank == FOUR:
            self._set_pending(SKIP_PENALTY, len(effective), seat)
        elif rank in (JACK, ACE):
            self.phase = REQUESTING
        else:
            self._turn_over(seat)

    def _set_pending(self, kind: str, amount: int, seat: int) -> None:
        old = self.pending
        if old is not None and old.kind == kind:
            amount += old.amount  # a stack adds to what is pending
        target, direction = self.next_active(seat), "fwd"
        last = self.top  # the group's last card decides the direction
        if (
            kind == DRAW_PENALTY
            and last.rank == KING
            and not last.red
            and self.prev_active(seat) != target
        ):
            target, direction = self.prev_active(seat), "back"
        self.pending = Pending(kind, amount, target, direction, seat)
        facts = self.pending.facts()
        facts["penalty"] = facts.pop("kind")  # "kind" is the event's own
        self._emit("penalty", seat=seat, **facts)
        self._serve(seat)
        self.phase, self.actor = RESPONDING, target

    def _name(self, seat: int, value: str | None) -> None:
        """The request (or none) after a J or A group; any earlier request ends here."""
        old = self.request
        if value is None:
            self.request = None
            if old is not None:
                self._emit("request_over", seat=old.requester, reason="changed")
        else:
            kind = "rank" if self.top.rank == JACK else "suit"
            if self.options["request_scope"] == "lap":
                unserved = frozenset(self._active_seats()) - {seat}
            else:
                unserved = frozenset({self.next_active(seat)})
            self.request = Request(kind, value, seat, unserved)
            facts = self.request.facts()
            facts["request"] = facts.pop("kind")  # "kind" is the event's own
            self._emit(REQUEST_KIND, seat=seat, **facts)
        self._turn_over(seat)

    def _draw_on_turn(self, seat: int) -> None:
        card = self.draw(seat, 1)[0]
        if matches(card, self.top, self.request, self.options["wild_changers"]):
            self.phase, self.drawn = DRAWN, card
        else:  # the turn ends by itself
            self._turn_over(seat)

    def _accept(self, seat: int) -> None:
        p = self.pending
        assert p is not None
        if self._responds_in_turn():
            self.cursor = seat
        self._emit(ACCEPT_KIND, seat=seat, penalty=p.kind, amount=p.amount)
        self.pending = None
        if p.kind == DRAW_PENALTY:
            got = len(self.draw(seat, p.amount))
            if got < p.amount:
                self._emit("short", seat=seat, missing=p.amount - got)
        else:
            self.skips[seat] += p.amount - 1  # this turn is the first one lost
        self._serve(seat)
        # In turn the cursor is this seat; out of turn play resumes after the last in-turn seat.
        self._start_turn(self.advance(self.cursor))

    def _pass(self, seat: int) -> None:
        self._emit(events.PASS, seat=seat)
        self.passed.add(seat)
        if all(s in self.passed for s in self._active_seats()):
            self._end("deadlock")
        else:
            self._turn_over(seat)

    def _finish(self, seat: int) -> None:
        self.active[seat] = False
        self.finished.append(seat)
        self._emit(events.FINISH, seat=seat, place=len(self.finished))
        req = self.request
        if req is not None and seat in req.unserved:
            self._serve(seat)
        active = self.players - len(self.finished)
        if (self.players <= 4 and active == 1) or (self.players >= 5 and len(self.finished) == 3):
            self._end("complete")

    def _end(self, reason: str) -> None:
        self.pending = None  # any effect still waiting is cancelled
        self.phase, self.reason = phases.OVER, reason
        res = self.result()
        self._emit(
            events.END,
            reason=reason,
            ranks=list(res.ranks),
            scores=list(res.scores),
            winners=list(res.winners),
        )

    # -- outcome ------------------------------------------------------------------------------

    def ranks(self) -> tuple[int, ...]:
        """Finishers by finish order, then the rest by fewest cards, ties sharing (D7)."""
        return ranks_by_finish(self.finished, self._active_seats(), [len(h) for h in self.hands])

    def is_over(self) -> bool:
        return self.phase == phases.OVER

    def estimate(self) -> tuple[float, ...]:
        """Scores as if play stopped now (finishers, then fewest cards): what a search that
        cuts its rollouts short scores them by.

        >>> MacaoState.from_position(3, ["9S 3H", "5D", "6D 7D 8D"], top="9H").estimate()
        (1.0, 2.0, 0.0)
        """
        return tuple(float(self.players - r) for r in self.ranks())

    def result(self) -> Result:
        if self.phase != phases.OVER:
            raise RuntimeError("the match is not over")
        ranks = self.ranks()
        scores = tuple(float(self.players - r) for r in ranks)
        record = {
            "dealer": self.dealer,
            "finished": list(self.finished),
            "hands": [len(h) for h in self.hands],
            "actions": self.actions_taken,
        }
        winners = tuple(s for s, r in enumerate(ranks) if r == 1)
        return Result(scores, ranks, winners, (record,), self.reason or "complete")

    # -- what a seat may know -----------------------------------------------------------------

    def view(self, seat: int, history: bool = True) -> SeatView:
        n = self.players
        facts = declared.shown_facts(self.FIELDS, self)
        if self.drawn is not None and seat == self.actor:
            facts["drawn"] = str(self.drawn)
        over = self.phase == phases.OVER
        return SeatView(
            game=self.game,
            seat=seat,
            players=n,
            phase=self.phase,
            to_act=self.to_act(),
            hand=tuple(self.hands[seat]),
            # The top card is no place of its own: the view names it first, for bots.
            zones={"discard_top": (self.discard[-1],), **self.view_zones(seat)},
            counts=self.view_counts(),
            counters=declared.shown_counters(self.FIELDS, self, n),
            trump=None,
            scores=self.result().scores if over else (0.0,) * n,
            facts=facts,
            history=(tuple(self._seen[seat])) if history else (),
            options=self.options,
        )

    # -- copies and determinization -----------------------------------------------------------

    def clone(self) -> MacaoState:
        """An independent copy, without the cost of a deep copy (cards and events are frozen)."""
        new: MacaoState = self._shallow_copy()
        new.hands = [list(h) for h in self.hands]
        new.stock = list(self.stock)
        new.discard = list(self.discard)
        new.group = list(self.group)
        new.finished = list(self.finished)
        new.active = list(self.active)
        new.skips = list(self.skips)
        new.passed = set(self.passed)
        new._acq = dict(self._acq)
        new._seen = [list(h) for h in self._seen]
        new.options = dict(self.options)
        return new

    def _fields(self) -> dict[str, Any]:
        """What play needs of this position and nothing of its history (no events, no
        private marks): what :class:`~levata.engine.macao_playouts.MacaoPlayout` is built from
        and gives back, so the differential test compares the two directly.

        >>> s = MacaoState.from_position(2, ["9S", "5D"], top="9H")
        >>> s._fields()["hands"], s._fields()["phase"]
        ([[Card('9S')], [Card('5D')]], 'turn')
        """
        p, r = self.pending, self.request
        return {  # copies, so that a caller may keep them while this state plays on
            "players": self.players,
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "discard": list(self.discard),
            "group": list(self.group),
            "finished": list(self.finished),
            "active": list(self.active),
            "skips": list(self.skips),
            "pending": None if p is None else (p.kind, p.amount, p.target, p.dir, p.last),
            "request": None if r is None else (r.kind, r.value, r.requester, r.unserved),
            "phase": self.phase,
            "actor": self.actor,
            "turn": self.turn,
            "cursor": self.cursor,
            "drawn": self.drawn,
            "actions": self.actions_taken,
            "passed": frozenset(self.passed),
            "options": {o.name: self.options[o.name] for o in SPEC.options},
        }

    # -- positions: the whole state as text ----------------------------------------------------

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        """Every place (each hand, the stock bottom first, the discard pile, the group), then
        every declared field: all that play reads, and the dealer."""
        places = self.place_values()
        values: dict[str, Any] = {"phase": self.phase, **places}
        values.update(declared.stored(self.FIELDS, self))
        return values, set(places)

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> MacaoState:
        state = cls.__new__(cls)
        GameState.__init__(state, spec, pos.players, options, seed)
        state._reset()
        n = pos.players
        state.phase = pos.value("phase")
        state.load_places(pos.cards)
        for hand in state.hands:
            hand.sort()  # a hand written by hand may be in any order
        check_deck(list(state.place_values().values()), french_deck())
        if not state.discard:
            raise BadConfig("position: the discard pile needs its top card")
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        state.active = [s not in state.finished for s in range(n)]
        # A position has no history: it opens one as a deal does (the pile, each hand, and a
        # group read mid-way, after the pile: ``group`` says how many), so a seat's view of it
        # is enough to rebuild worlds.
        state._acq = {}
        hands = [len(h) for h in state.hands]
        table = (*state.discard, *state.group)
        state._emit(events.POSITION, cards=table, hands=hands, group=len(state.group))
        state._emit_hands()
        return state

    def playout_state(self, seed: int) -> MacaoPlayout:
        """A copy for playouts (the search's fast path): this position in C, play only, with
        no events, views or history; its random stream (reshuffles, ties, random moves)
        starts from ``seed``. Its rules and its ``heuristic`` policy are this module's and
        the heuristic bot's (``tests/engine/test_macao_kernel.py`` proves it).

        >>> s = MacaoState.from_position(2, ["9S 3H", "5D 6D"], top="9H")
        >>> fast = s.playout_state(seed=1)
        >>> fast.legal_actions(0) == s.legal_actions(0), fast.estimate() == s.estimate()
        (True, True)
        """
        return MacaoPlayout(self._fields(), seed)

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> MacaoState:
        """A state whose ``view(view.seat)`` is ``view``, hidden cards dealt from ``rng`` under
        what the history implies (see :mod:`levata.engine.games.macao.world`)."""
        hidden = deal_world(view, rng, WORLD_RULES)
        n = view.players
        state = cls.__new__(cls)
        GameState.__init__(state, spec, n, dict(view.options), rng.getrandbits(32))
        state._reset()
        state.rng = random.Random(rng.getrandbits(64))
        state.hands, state.stock = hidden.hands, hidden.stock
        state.discard = list(view.zones["discard"])
        state.group = list(view.zones["group"])
        facts = view.facts
        state.finished = list(facts["finished"])
        state.active = [s not in state.finished for s in range(n)]
        state.skips = [view.counters[f"skips:{s}"] for s in range(n)]
        pend = facts["pending"]
        state.pending = Pending(**pend) if pend else None
        req = facts["request"]
        if req:
            state.request = Request(
                req["kind"], req["value"], req["requester"], frozenset(req["unserved"])
            )
        state.phase = view.phase
        state.actor = view.to_act[0] if view.to_act else 0
        state.turn, state.cursor, state.dealer = facts["turn"], facts["cursor"], facts["dealer"]
        state.drawn = Card.parse(facts["drawn"]) if "drawn" in facts else hidden.drawn
        state.actions_taken = view.counters["actions"]
        state.passed = hidden.passed
        state.epoch = hidden.epoch
        state._acq = hidden.acquired
        log = state._log = hidden.log
        me = view.seat
        state._seen = [
            list(view.history) if s == me else [e for e in log if e.visible_to(s)] for s in range(n)
        ]
        state._walked = skeleton(view, WORLD_RULES)  # kept by deal_world: no second walk
        return state

    def playout_dealer(self, seat: int, seed: int) -> MacaoDealer:
        """The search's dealer of worlds ``seat`` cannot tell from this one, as fast copies
        (:class:`~levata.engine.macao_playouts.MacaoDealer`): :meth:`from_view`'s deal, in C,
        draw for draw. This state must itself be such a world (``from_view`` of ``seat``'s
        view, or the real match); the other seats' hands, the stock and another actor's
        drawn card are dealt afresh each time.

        >>> s = MacaoState.from_position(3, ["9S 3H", "5D 6D", "KC"], top="9H")
        >>> world = s.playout_dealer(0, seed=1).deal(seed=2)
        >>> [len(h) for h in world.fields()["hands"]], world.legal_actions(0) == s.legal_actions(0)
        ([2, 2, 1], True)
        """
        walk = self._walk_of(seat)
        fields = self._fields()
        fields["passed"] = frozenset(walk.passed)  # as from_view's worlds (the history's)
        kept = plan(walk)
        base = MacaoPlayout(fields, 0)
        return MacaoDealer(base, seat, kept.slots, kept.epochs, kept.stock, kept.drawn, seed, TRIES)

    def _walk_of(self, seat: int) -> Skeleton:
        """The walk over ``seat``'s view: the one :meth:`from_view` kept while this state is
        still at that view (what the walk reads: the log, the seat's hand, the phase and who
        acts; a ``no_request`` logs no event), else a fresh one. A clone keeps no walk."""
        kept = self._walked
        if (
            kept is None
            or kept.view.seat != seat
            or len(kept.log) != len(self._log)
            or kept.view.hand != tuple(self.hands[seat])
            or (kept.view.phase, kept.view.to_act) != (self.phase, self.to_act())
        ):
            return skeleton(self.view(seat), WORLD_RULES)
        return kept

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_walked", None)  # the view's walk: a cache, not part of the position
        return state

    def sample_world(self, seat: int, rng: random.Random) -> MacaoState:
        """Redeal every card ``seat`` cannot see, keeping what public history fixes.

        Hidden cards are exchangeable only within one stock "epoch": after a reshuffle the new
        stock is a publicly known set, so a card drawn from it came from that set. Cards are
        shuffled among the hidden slots of their own epoch (other hands' cards by the epoch
        they were drawn in, the stock in the current one), and the private events that named
        the moved cards are rewritten to match.
        """
        world = self.clone()
        world._reseed_for_sample(rng)
        slots: dict[int, list[tuple[int, int]]] = {}  # epoch -> (seat or -1 for stock, index)
        for s, hand in enumerate(self.hands):
            if s != seat:
                for i, c in enumerate(hand):
                    slots.setdefault(self._acq[c][0], []).append((s, i))
        slots.setdefault(self.epoch, []).extend((-1, i) for i in range(len(self.stock)))
        moved: dict[Card, Card] = {}
        for places in slots.values():
            old = [self.stock[i] if s < 0 else self.hands[s][i] for s, i in places]
            new = list(old)
            rng.shuffle(new)
            for (s, i), a, b in zip(places, old, new, strict=True):
                (world.stock if s < 0 else world.hands[s])[i] = b
                moved[a] = b
        world._relabel(seat, moved)
        return world

    def _relabel(self, seat: int, moved: dict[Card, Card]) -> None:
        """After hidden cards moved (old -> new): re-sort hands, fix private events and marks."""
        for s, hand in enumerate(self.hands):
            if s != seat:
                hand.sort()
        acq = self._acq
        swaps: dict[int, dict[Card, Card]] = {}  # event seq -> the cards it now names instead
        new_acq = {c: v for c, v in acq.items() if c not in moved}
        for old, new in moved.items():
            if old in acq:  # a hand card (not a stock card): the event that gave it changes
                new_acq[new] = acq[old]
                if acq[old][1] >= 0:  # -1: held since a position was read, named by no event
                    swaps.setdefault(acq[old][1], {})[old] = new
        self._acq = new_acq
        owners: set[int] = set()
        for seq, swap in swaps.items():
            ev = self._log[seq]
            self._log[seq] = replace(ev, cards=tuple(swap.get(c, c) for c in ev.cards))
            owners |= ev.audience or set()
        self._refresh_histories(owners)
        if self.drawn in moved:
            self.drawn = moved[self.drawn]


#: What rebuilding a world from a view needs of these rules (:mod:`.world`).
WORLD_RULES = Rules(matches=matches, pending=Pending, request=Request, drawn_phase=DRAWN)


def _said(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards))


#: Lines for Macao's own event kinds (the shared ones are said by the server's narration).
_LINES = {
    DONE_KIND: lambda ev: f"seat {ev.seat} is done ({_said(ev.cards)})",
    END_TURN_KIND: lambda ev: f"seat {ev.seat} ends its turn",
    "penalty": lambda ev: (
        f"   seat {ev.data['target']} must {ev.data['penalty']} {ev.data['amount']} or stack"
    ),
    ACCEPT_KIND: lambda ev: f"seat {ev.seat} accepts {ev.data['penalty']} {ev.data['amount']}",
    "short": lambda ev: f"   seat {ev.seat} is {ev.data['missing']} card(s) short: no stock left",
    REQUEST_KIND: lambda ev: f"seat {ev.seat} asks for {ev.data['request']} {ev.data['value']}",
    "request_over": lambda ev: f"   seat {ev.seat}'s request is over ({ev.data['reason']})",
    "skipped": lambda ev: f"   seat {ev.seat} is skipped ({ev.data['left']} turn(s) left)",
    "drawn": lambda ev: f"   seat {ev.seat} drew {_said(ev.cards)}",
    "reshuffle": lambda ev: f"   the discard pile becomes the stock ({ev.data['count']} cards)",
    "position": lambda ev: f"-- position: discard {_said(ev.cards)}, hands {ev.data['hands']}",
}


def narrate(ev: Event) -> str | None:
    """A line for one of Macao's own events, ``None`` for the shared ones.

    >>> narrate(Event(seq=9, kind="end_turn", seat=1))
    'seat 1 ends its turn'
    """
    line = _LINES.get(ev.kind)
    return None if line is None else line(ev)


_ZONES, _COUNTS = described(MacaoState.PLACES)

VOCABULARY = Vocabulary(
    choices={REQUEST_KIND: (*RANK_REQUESTS, *SUIT_REQUESTS)},
    phases={
        TURN: "a seat's normal turn: play a matching card, or draw (pass when nothing can be"
        " drawn)",
        DRAWN: "the seat drew a playable card: play it now, or end_turn to keep it",
        GROUPING: "the seat is putting down a group: more cards of the group, or done",
        REQUESTING: "a group ended on a J or an A: name a rank (J) or a suit (A), or not",
        RESPONDING: "a penalty waits for this seat (the target, out of turn): stack a card"
        " on it or accept it",
        phases.OVER: "the match is over",
    },
    zones={
        "discard_top": "the top card of the discard pile, the one a play must match",
        **_ZONES,
    },
    counts=_COUNTS,
    counters=declared.described(MacaoState.FIELDS, "counters"),
    facts={
        **declared.described(MacaoState.FIELDS, "facts"),
        "drawn": "only for the seat that just drew, in the drawn phase: the drawn card",
    },
    actions={
        actions.PLAY: "play `card`: to start a group it must match the top (same suit or"
        " rank, or what a request names); to add to a group, the same rank (or suit);"
        " answering a penalty, a card that stacks on it",
        DONE_KIND: "end the group: its effect (penalty, skip, request) happens now",
        REQUEST_KIND: "after a J, name a rank (`choice`: 5-10, Q); after an A, a suit (C, D, H, S)",
        NO_REQUEST_KIND: "after a J or an A, name nothing",
        actions.DRAW: "draw one card (then play it at once if it matches, or end_turn)",
        END_TURN_KIND: "keep the playable card just drawn and end the turn",
        ACCEPT_KIND: "take the pending penalty: draw its cards, or lose its turns",
        actions.PASS: "nothing can be drawn, even after a reshuffle: pass the turn",
    },
    events={
        events.DEAL: "the deal: `cards` is the starter (face up, no effect); `data.dealer`,"
        " `first`, `hands` (cards each), `stock`",
        events.HAND: "your five cards (seen by you alone); after a `position`, the cards you hold",
        events.POSITION: "the match was read from a position: `cards` is the discard pile"
        " (bottom first), `data.hands` the cards each seat holds; each `hand` follows",
        events.PLAY: "`seat` played `cards` (`data.first`: it started a group; `data.drawn`:"
        " the card it had just drawn)",
        DONE_KIND: "`seat` ended its group `cards`",
        "penalty": "a penalty now waits: `data.penalty` (draw or skip), `amount`, `target`,"
        " `dir`, `last`",
        REQUEST_KIND: "`seat` named `data.value` (`data.request`: rank or suit), binding"
        " `data.unserved`",
        "request_over": "the request of `seat` ended (`data.reason`: served or changed)",
        ACCEPT_KIND: "`seat` accepted `data.penalty` of `data.amount`",
        "short": "`seat` could draw `data.missing` fewer cards than its penalty said",
        "skipped": "`seat` lost a turn; `data.left` more to lose",
        events.DRAW: "`seat` drew `data.count` cards (public)",
        "drawn": "the cards you drew (seen by you alone)",
        "reshuffle": "the discard pile, but its top, became the stock: `data.count` cards",
        END_TURN_KIND: "`seat` kept the card it drew and ended its turn",
        events.PASS: "`seat` passed",
        events.FINISH: "`seat` emptied its hand: `data.place` among those finished",
        events.END: "the match is over: `data.reason` (complete, deadlock, cap), `ranks`,"
        " `scores`, `winners`",
    },
)

SPEC = register(
    GameSpec(
        name="macao",
        title="Macao",
        players=(2, 3, 4, 5, 6),
        summary="Shed your cards by suit or rank; 2, 3 and K make others draw, 4 skips.",
        options=(
            Option(
                "request_scope",
                "lap",
                "how long a J/A request binds: lap (every other seat once) or next_player",
                choices=("lap", "next_player"),
            ),
            Option("group_same_suit", True, "a group may also be cards of one suit (D4)"),
            Option("wild_changers", False, "J and A may be played on any card (D13)"),
            Option("action_cap", 1000, "the match stops after this many actions (D8)", minimum=1),
        ),
        factory=MacaoState,
        bots={"heuristic": "levata.bots.heuristic.macao:HeuristicBot"},
        narrate=narrate,
        vocabulary=VOCABULARY,
    )
)
