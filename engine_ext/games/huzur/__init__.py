"""Huzur: a Mongolian beating game. Lead one, three or five cards; each seat in turn beats
the previous seat's cards or takes the whole table; the last seat holding cards loses.

Rules (``docs/games/huzur.md`` says them in full; the [D#] marks name its decisions):

* 3 or 4 players. Three play with 40 cards (no 4, 5, 6), four with 48 (no 4). Inside a suit
  A > 2 > 3 > K > Q > J > 10 > ... A card beats a lower card of its suit, a trump beats any
  non-trump (:mod:`.rules`).
* A random dealer; the seat after it opens (D1; option ``first_opener=lowest_trump``: the
  holder of the lowest trump held). Six cards each; the next card is turned: its suit is
  trumps, and it lies face up under the stock, the last card drawn (D2).
* The opener leads 1 card, 3 cards with a pair, or 5 cards with two pairs, and refills to
  six. Each other active seat in turn, clockwise, beats the *previous* seat's cards card by
  card (D8) and refills, or takes every card of this hand (always allowed, D7) and refills
  only up to six (D16). When every responder has beaten, the table is discarded and the
  opener (or the next active seat after it) opens again; after a take, the seat after the
  taker opens.
* Four of a rank in one hand leave the game at once, and the seat refills (D12, D15). While
  the turned card is under the stock, the holder of the lowest trump (7 or 5) may swap it for
  the turned card at the start of its action (D3).
* A seat with no cards once the stock is empty finishes; the order of finishing ranks the
  seats and the last seat with cards loses. A cap of ``hand_cap`` hands ends a stuck game,
  ranking the rest by fewest cards (D4). Scores are ``players - rank``.

Atomic actions build the composite moves, pruned so that no partial choice is a dead end:

* a lead is ``play <card>`` for each card, **in the hand's order** (each card after the one
  before, so one set of cards is one sequence), then ``done``; a card is offered only if a
  legal lead can still be finished from it, and the lead ends by itself when no card can
  extend it (a card that starts no pair leads alone in one action);
* a beat is ``beat <card>`` against each card of the previous play in its order (the
  assignment: the i-th card beats the i-th), a card offered only if the cards still to cover
  can then be beaten too; the beat ends by itself with the last card. ``take`` is offered
  before the first ``beat`` only: once begun, a beat is finished (it always can be);
* ``swap`` (the lowest-trump swap) comes before a seat's first card.

Decisions added to the spec:

* The cards of a lead or a beat go to the table one at a time, face up; the refill comes
  when the move is complete.
* Cards whose place everyone saw (taken from the table, the turned card drawn or swapped in)
  are listed in the public fact ``known`` while they stay in the hand: a seat's view says
  what it may deduce of the others' hands without reading the history.
* ``cap_lead_to_min_hand`` (off by default, D10): a lead has no more cards than the smallest
  hand of another active seat.

>>> state = HuzurState.from_position(
...     3, ["8H 8S JH 9C", "10H JS 8C QD", "QH QS AC KD"], turned="10C")
>>> [str(a) for a in state.legal_actions(0)]
['play 9C', 'play 8H', 'play JH', 'play 8S']
>>> state.apply(0, Action.parse("play 8H"))
>>> [str(a) for a in state.legal_actions(0)]  # 8S comes after JH in the hand's order
['play JH', 'done']
>>> for move in ("play JH", "play 8S"):
...     state.apply(0, Action.parse(move))
>>> state.phase, state.to_act(), [str(c) for c in state.on_table]
('respond', (1,), ['8H', 'JH', '8S'])
"""

from __future__ import annotations

import random
from collections import Counter as Tally
from collections.abc import Sequence
from typing import Any, ClassVar

from levata.engine import actions, events, phases
from levata.engine import fields as declared
from levata.engine.cards import Card, Suit, parse_cards
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
from levata.engine.family.shedding import ranks_by_finish
from levata.engine.fields import Counter, Declared, Fact, Kept
from levata.engine.games.huzur.playout import HuzurPlayout
from levata.engine.games.huzur.rules import (
    HAND_SIZE,
    beats,
    can_beat,
    deck,
    extends,
    is_lead,
    lowest_trump,
    power,
)
from levata.engine.huzur_playouts import HuzurDealer
from levata.engine.huzur_playouts import HuzurPlayout as KernelPlayout
from levata.engine.position import Position, check_deck
from levata.engine.registry import register
from levata.engine.vocabulary import Vocabulary
from levata.engine.worlds import seen_log
from levata.engine.zones import FACE_DOWN, OWNER, Place, Zoned, described

__all__ = ["SPEC", "HuzurState"]

#: Deals of the hidden cards a world draws before it keeps one that breaks a soft constraint.
TRIES = 50

#: Huzur's phases besides the shared ``over``: the opener chooses its first card; it is
#: building a lead; a responder chooses to beat or take; it is beating, card by card.
OPEN, LEAD, RESPOND, BEATING = "open", "lead", "respond", "beating"
#: Huzur's own action kinds (``play`` is the shared one).
DONE_KIND, BEAT_KIND, TAKE_KIND, SWAP_KIND = "done", "beat", "take", "swap"
#: Event kinds of its own.
QUAD, CLEAR, TRUMP_DRAWN, OPENED, BEATEN = "quad", "clear", "trump_drawn", "opened", "beaten"
DONE, TAKE, SWAP = Action(DONE_KIND), Action(TAKE_KIND), Action(SWAP_KIND)
_ALL = deck(4)
_PLAY = {c: Action(actions.PLAY, card=c) for c in _ALL}
_BEAT = {c: Action(BEAT_KIND, card=c) for c in _ALL}
#: The action objects by kind, for the fast playout copy.
_ACTIONS = {"play": _PLAY, "beat": _BEAT, "done": DONE, "take": TAKE, "swap": SWAP}


def _cards_text(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards))


def _known_shown(known: list[list[Card]]) -> list[list[str]]:
    return [[str(c) for c in hand] for hand in known]


def _known_read(shown: list[list[str]]) -> list[list[Card]]:
    return [sorted(Card.parse(c) for c in hand) for hand in shown]


def _card_read(text: str) -> Card:
    return Card.parse(text)


class HuzurState(Zoned):
    """A Huzur match in progress (one deal, played until one seat is left with cards)."""

    #: Where cards lie (:mod:`levata.engine.zones`).
    PLACES: ClassVar[tuple[Place, ...]] = (
        Place(
            "hand",
            "the seat's cards, kept sorted",
            attr="hands",
            per_seat=True,
            seen=OWNER,
            shown=False,
            counted="how many cards the seat holds",
            sorted=True,
        ),
        Place(
            "stock",
            "the face-down stock, top card last",
            seen=FACE_DOWN,
            shown=False,
            counted="face-down cards left to draw (the turned card, if still there, comes"
            " after them)",
        ),
        Place(
            "trump",
            "the turned card, face up under the stock and drawn last (after a swap, the"
            " lowest trump); empty once drawn",
            attr="turned_pile",
            shown="nonempty",
        ),
        Place(
            "table",
            attr="on_table",
            help="the cards played in this hand, in order: each play beats the one before it,"
            " card by card",
        ),
        Place(
            "discard",
            "cards out of play: beaten hands and four-of-a-kind",
            counted="cards out of play",
        ),
    )

    #: The state beyond the cards (:mod:`levata.engine.fields`).
    FIELDS: ClassVar[tuple[Declared, ...]] = (
        Counter("hand_no", "hands opened so far (the hand_cap option ends the match)"),
        Fact(
            "turned", "the card turned at the deal: its suit is trumps", show=str, read=_card_read
        ),
        Fact("opener", "the seat that opened this hand"),
        Fact(
            "responders",
            "the seats still to answer this hand, in order (the first is to act)",
            seats=True,
        ),
        Fact(
            "plays",
            "the plays on the table, in order: [seat, cards] each (the table's cards in runs)",
        ),
        Fact("finished", "the seats that emptied their hands, in order", seats=True),
        Fact(
            "known",
            "per seat, the cards everyone saw it take (from the table, the turned card,"
            " a swap) that it still holds",
            show=_known_shown,
            read=_known_read,
            each_seat=True,
        ),
        Fact("trump_holder", "the seat that drew the turned card (null: still there)"),
        Fact("dealer", "the dealer (the seat after it opened first, by default)"),
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
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.stock: list[Card] = []  # face down, top card LAST
        self.turned_pile: list[Card] = []  # the face-up card under the stock
        self.on_table: list[Card] = []
        self.discard: list[Card] = []
        self.plays: list[list[int]] = []  # [seat, cards] per play on the table
        self.known: list[list[Card]] = [[] for _ in range(n)]
        self.finished: list[int] = []
        self.active = [True] * n
        self.responders: list[int] = []
        self.opener = 0
        self.dealer = 0
        self.hand_no = 0
        self.turned: Card = Card(Suit.CLUBS, 7)
        self.trump_holder: int | None = None
        self.phase = OPEN
        self.reason: str | None = None

    @property
    def trump(self) -> Suit:
        return self.turned.suit

    # -- setting up ---------------------------------------------------------------------------

    def _deal(self, order: list[Card] | None) -> None:
        n = self.players
        cards = deck(n)
        self.dealer = self.rng.randrange(n)
        if order is None:
            order = shuffled(list(cards), self.rng)
        elif sorted(order) != sorted(cards):
            raise BadConfig(f"the deal must be the {len(cards)}-card Huzur deck, each card once")
        first = (self.dealer + 1) % n
        self.collect(order[::-1], into="stock")  # the order's first card on top
        for i in range(HAND_SIZE * n):  # one card at a time, from the dealer's left
            self.move(self.stock[-1], "stock", f"hand:{(first + i) % n}")  # told by `hand`
        self.turned = self.stock[-1]
        self.move(
            self.turned,
            "stock",
            "trump",
            kind=events.DEAL,
            dealer=self.dealer,
            hands=[HAND_SIZE] * n,
            stock=len(self.stock),
            trump=self.turned.suit.letter,
        )
        for s in range(n):
            self._emit(events.HAND, audience={s}, seat=s, cards=self.hands[s])
        for k in range(n):  # four of a kind leave at once, the seats refill in turn order
            self._settle((first + k) % n)
        self._start_hand(self._first_opener(first))

    def _first_opener(self, after_dealer: int) -> int:
        """The seat after the dealer; with ``first_opener=lowest_trump``, the holder of the
        lowest trump held (the seat after the dealer when nobody holds a trump)."""
        if self.options["first_opener"] == "lowest_trump":
            held = [
                (power(c), s)
                for s in range(self.players)
                for c in self.hands[s]
                if c.suit == self.trump
            ]
            if held:
                return min(held)[1]
        return after_dealer

    @classmethod
    def from_position(  # noqa: PLR0913  (a hand-made position: every part a keyword)
        cls,
        players: int,
        hands: Sequence[str | Sequence[Card | str]],
        turned: str | Card,
        *,
        stock: str | Sequence[Card | str] | None = None,
        turned_drawn: bool = False,
        opener: int = 0,
        finished: Sequence[int] = (),
        options: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> HuzurState:
        """A position set up directly (tests and puzzles): a fresh hand opened by ``opener``.

        ``stock`` lists the stock top first; cards named nowhere go out of play (the
        discard) unless ``stock`` is ``None``, when they are the stock (shuffled by
        ``seed``). ``turned`` is the turned card: under the stock, or (``turned_drawn``)
        already out of play.

        >>> s = HuzurState.from_position(3, ["7H", "8H", "9H"], "10C", stock="")
        >>> len(s.stock), len(s.discard), s.to_act()
        (0, 36, (0,))
        """
        state = cls.__new__(cls)
        GameState.__init__(state, SPEC, players, SPEC.resolve_options(options), seed)
        state._reset()
        placed = [sorted(_cards(h)) for h in hands]
        top = _cards(turned)[0]
        pile = _cards(stock) if stock is not None else []
        named = [c for h in placed for c in h] + [top] + pile
        if len(set(named)) != len(named) or not set(named) <= set(deck(players)):
            raise BadConfig("a card is named twice, or is not in the deck, in the position")
        left = [c for c in deck(players) if c not in set(named)]
        if stock is None:
            pile = shuffled(left, state.rng)
            left = []
        state.hands = placed
        state.turned = top
        state.stock = pile[::-1]
        state.discard = left
        if turned_drawn:
            state.discard.append(top)
        else:
            state.turned_pile = [top]
        for s in finished:
            state.finished.append(s)
            state.active[s] = False
        state._emit(events.POSITION, cards=(top,), hands=[len(h) for h in state.hands])
        for s in range(players):
            state._emit(events.HAND, audience={s}, seat=s, cards=state.hands[s])
        state._start_hand(opener)
        return state

    # -- seats --------------------------------------------------------------------------------

    def next_active(self, s: int) -> int:
        """The nearest active seat clockwise from ``s``, not counting ``s``."""
        n = self.players
        t = (s + 1) % n
        while not self.active[t]:
            t = (t + 1) % n
        return t

    def _left(self) -> int:
        """Cards still to draw: the stock and the turned card."""
        return len(self.stock) + len(self.turned_pile)

    def to_act(self) -> tuple[int, ...]:
        if self.phase == phases.OVER:
            return ()
        if self.phase in (OPEN, LEAD):
            return (self.opener,)
        return (self.responders[0],)

    # -- what is legal ------------------------------------------------------------------------

    def _play_cards(self, i: int) -> list[Card]:
        """The cards of play ``i`` (``-1``: the last) on the table."""
        i %= len(self.plays)
        start = sum(p[1] for p in self.plays[:i])
        return self.on_table[start : start + self.plays[i][1]]

    def _targets(self) -> tuple[list[Card], int]:
        """The cards the responder must beat, and how many it has covered."""
        if self.phase == BEATING:
            return self._play_cards(-2), self.plays[-1][1]
        return self._play_cards(-1), 0

    def _most(self) -> int:
        """The most cards a lead may have (five; fewer under ``cap_lead_to_min_hand``)."""
        if not self.options["cap_lead_to_min_hand"]:
            return 5
        others = [
            len(self.hands[s]) for s in range(self.players) if self.active[s] and s != self.opener
        ]
        return max(1, min([5, *others]))

    def can_swap(self, seat: int) -> bool:
        """Whether ``seat`` may swap the lowest trump for the turned card now (D3)."""
        if self.phase not in (OPEN, RESPOND) or not self.turned_pile:
            return False
        low = lowest_trump(self.players, self.trump)
        return self.turned_pile[0] != low and low in self.hands[seat]

    def legal_actions(self, seat: int) -> list[Action]:
        return self._offer(seat, self._legal(seat))  # kept: apply finds its action there

    def _legal(self, seat: int) -> list[Action]:
        if self.phase == phases.OVER or seat not in self.to_act():
            return []
        hand = self.hands[seat]
        phase = self.phase
        out: list[Action] = []
        if phase in (OPEN, RESPOND) and self.can_swap(seat):
            out.append(SWAP)
        if phase == OPEN:
            out += [_PLAY[c] for c in hand]
        elif phase == LEAD:
            chosen = self._play_cards(-1)
            most = self._most()
            last = chosen[-1]
            for i, c in enumerate(hand):
                if c > last and extends(chosen, c, hand[i + 1 :], most):
                    out.append(_PLAY[c])
            if is_lead(chosen):
                out.append(DONE)
        else:
            targets, k = self._targets()
            trump = self.trump
            if len(targets) - k <= len(hand):
                rest = targets[k + 1 :]
                for i, c in enumerate(hand):
                    if beats(c, targets[k], trump) and can_beat(
                        rest, hand[:i] + hand[i + 1 :], trump
                    ):
                        out.append(_BEAT[c])
            if phase == RESPOND:
                out.append(TAKE)
        return out

    # -- applying -----------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == actions.PLAY:
            self._lead_card(seat, action.card)  # type: ignore[arg-type]  # plays carry cards
        elif kind == DONE_KIND:
            self._lead_done(seat)
        elif kind == BEAT_KIND:
            self._beat_card(seat, action.card)  # type: ignore[arg-type]
        elif kind == TAKE_KIND:
            self._take(seat)
        elif kind == SWAP_KIND:
            self._swap(seat)

    def _leave_hand(
        self, seat: int, cards: Sequence[Card], dst: str, kind: str, **data: Any
    ) -> None:
        known = self.known[seat]
        for c in cards:
            if c in known:
                known.remove(c)
        self.move(cards, f"hand:{seat}", dst, kind=kind, seat=seat, **data)

    def _lead_card(self, seat: int, card: Card) -> None:
        if self.phase == OPEN:
            self.plays.append([seat, 0])
            self.phase = LEAD
        self.plays[-1][1] += 1
        self._leave_hand(seat, [card], "table", actions.PLAY)
        chosen = self._play_cards(-1)
        hand, most = self.hands[seat], self._most()
        if not any(
            c > card and extends(chosen, c, hand[i + 1 :], most) for i, c in enumerate(hand)
        ):
            self._lead_done(seat)  # nothing can extend it: the lead is complete

    def _lead_done(self, seat: int) -> None:
        self._emit(OPENED, seat=seat, cards=self._play_cards(-1))
        self._refill(seat)
        self._check_finished()
        if self.phase == phases.OVER:
            return
        order, t = [], self.next_active(seat)
        while t != seat and t not in order:  # the others, clockwise from the opener
            order.append(t)
            t = self.next_active(t)
        self.responders = order
        self.phase = RESPOND

    def _beat_card(self, seat: int, card: Card) -> None:
        targets, k = self._targets()
        if self.phase == RESPOND:
            self.plays.append([seat, 0])
            self.phase = BEATING
        self.plays[-1][1] += 1
        self._leave_hand(seat, [card], "table", BEAT_KIND, target=str(targets[k]))
        if k + 1 < len(targets):
            return
        self._emit(BEATEN, seat=seat, cards=self._play_cards(-1))
        self._refill(seat)
        self._check_finished()
        if self.phase == phases.OVER:
            return
        self.responders = [s for s in self.responders[1:] if self.active[s]]
        if self.responders:
            self.phase = RESPOND
            return
        self.move(list(self.on_table), "table", "discard", kind=CLEAR)
        self.plays = []
        opener = self.opener if self.active[self.opener] else self.next_active(self.opener)
        self._start_hand(opener)

    def _take(self, seat: int) -> None:
        cards = list(self.on_table)
        self.move(cards, "table", f"hand:{seat}", kind=TAKE_KIND, seen_by=None, seat=seat)
        self.known[seat] = sorted(self.known[seat] + cards)
        self.plays = []
        self._settle(seat, refill=True)
        self._check_finished()
        if self.phase != phases.OVER:
            self._start_hand(self.next_active(seat))

    def _swap(self, seat: int) -> None:
        low, old = lowest_trump(self.players, self.trump), self.turned_pile[0]
        self.move(low, f"hand:{seat}", "trump")  # told by the swap event below
        self.move(old, "trump", f"hand:{seat}")
        known = self.known[seat]
        if low in known:
            known.remove(low)
        known.append(old)
        known.sort()
        self._emit(SWAP_KIND, seat=seat, cards=(low, old))
        self._settle(seat)
        self._check_finished()

    # -- drawing, quads, finishing ------------------------------------------------------------

    def _draw(self, seat: int, n: int) -> None:
        batch = self.stock[: -1 - min(n, len(self.stock)) : -1]  # from the top
        if batch:
            self._emit(events.DRAW, seat=seat, count=len(batch))
            self.move(batch, "stock", f"hand:{seat}", kind="drawn", seat=seat)
        if len(batch) < n and self.turned_pile:
            card = self.turned_pile[0]
            self.move(card, "trump", f"hand:{seat}", kind=TRUMP_DRAWN, seen_by=None, seat=seat)
            self.trump_holder = seat
            self.known[seat] = sorted([*self.known[seat], card])

    def _refill(self, seat: int) -> None:
        """Draw up to six while cards are left; four of a kind drawn leave, and it draws again."""
        while len(self.hands[seat]) < HAND_SIZE and self._left():
            self._draw(seat, HAND_SIZE - len(self.hands[seat]))
            if not self._quads(seat):
                break

    def _settle(self, seat: int, refill: bool = False) -> None:
        """After cards came in other than by a draw (the deal, a take, a swap): four of a
        kind leave, and then the seat refills (D15); a taker refills in any case (D16)."""
        if self._quads(seat) or refill:
            self._refill(seat)

    def _quads(self, seat: int) -> bool:
        hand = self.hands[seat]
        counts = Tally(c.rank for c in hand)
        found = False
        for rank, k in sorted(counts.items()):
            if k == 4:
                four = [c for c in hand if c.rank == rank]
                self._leave_hand(seat, four, "discard", QUAD, seen_by=None)
                found = True
        return found

    def _check_finished(self) -> None:
        if self._left():
            return
        for s in range(self.players):
            if self.active[s] and not self.hands[s] and self.phase != phases.OVER:
                self.active[s] = False
                self.finished.append(s)
                self._emit(events.FINISH, seat=s, place=len(self.finished))
                if sum(self.active) <= 1:
                    self._end("complete")

    def _start_hand(self, opener: int) -> None:
        if self.hand_no >= self.options["hand_cap"]:
            self._end("cap")
            return
        self.hand_no += 1
        self.opener = opener
        self.responders = []
        self.plays = []
        self.phase = OPEN

    def _end(self, reason: str) -> None:
        self.phase, self.reason = phases.OVER, reason
        self.responders = []
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
        """Finishers by finish order, then the rest by fewest cards, ties sharing (D4)."""
        rest = [s for s in range(self.players) if self.active[s]]
        return ranks_by_finish(self.finished, rest, [len(h) for h in self.hands])

    def is_over(self) -> bool:
        return self.phase == phases.OVER

    def estimate(self) -> tuple[float, ...]:
        """Scores as if play stopped now: finishers, then fewest cards (what a search that
        cuts its rollouts short scores them by).

        >>> HuzurState.from_position(3, ["7H", "8H 9H", "10H"], "10C", stock="").estimate()
        (2.0, 0.0, 2.0)
        """
        return tuple(float(self.players - r) for r in self.ranks())

    def result(self) -> Result:
        if self.phase != phases.OVER:
            raise RuntimeError("the match is not over")
        ranks = self.ranks()
        scores = tuple(float(self.players - r) for r in ranks)
        worst = max(ranks)
        record = {
            "dealer": self.dealer,
            "finished": list(self.finished),
            "losers": [s for s, r in enumerate(ranks) if r == worst],
            "hands": [len(h) for h in self.hands],
            "hands_played": self.hand_no,
        }
        winners = tuple(s for s, r in enumerate(ranks) if r == 1)
        return Result(scores, ranks, winners, (record,), self.reason or "complete")

    # -- what a seat may know -----------------------------------------------------------------

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
            trump=self.trump.letter,
            scores=self.result().scores if over else (0.0,) * n,
            facts=declared.shown_facts(self.FIELDS, self),
            history=self.history(seat) if history else (),
            options=self.options,
        )

    # -- copies, positions, worlds ------------------------------------------------------------

    def clone(self) -> HuzurState:
        """An independent copy, without the cost of a deep copy (cards and events are frozen)."""
        new: HuzurState = self._shallow_copy()
        new.hands = [list(h) for h in self.hands]
        new.known = [list(h) for h in self.known]
        new.stock = list(self.stock)
        new.turned_pile = list(self.turned_pile)
        new.on_table = list(self.on_table)
        new.discard = list(self.discard)
        new.plays = [list(p) for p in self.plays]
        new.finished = list(self.finished)
        new.active = list(self.active)
        new.responders = list(self.responders)
        new.options = dict(self.options)
        return new

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        """Every place (each hand, the stock bottom first, the turned card, the table, the
        discard), then every declared field."""
        places = self.place_values()
        values: dict[str, Any] = {"phase": self.phase, **places}
        values.update(declared.stored(self.FIELDS, self))
        return values, set(places)

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: Position, options: dict[str, Any], seed: int
    ) -> HuzurState:
        state = cls.__new__(cls)
        GameState.__init__(state, spec, pos.players, options, seed)
        state._reset()
        state.phase = pos.value("phase")
        state.load_places(pos.cards)
        for hand in state.hands:
            hand.sort()
        check_deck(list(state.place_values().values()), deck(pos.players))
        declared.load(cls.FIELDS, state, pos.values(declared.names(cls.FIELDS)))
        problem = declared.misfit(cls.FIELDS, state, pos.players)
        if problem:
            raise BadConfig(f"position: {problem}")
        state.active = [s not in state.finished for s in range(pos.players)]
        if sum(p[1] for p in state.plays) != len(state.on_table):
            raise BadConfig("position: the plays do not add up to the table's cards")
        state._emit(
            events.POSITION, cards=tuple(state.turned_pile), hands=[len(h) for h in state.hands]
        )
        for s in range(pos.players):
            state._emit(events.HAND, audience={s}, seat=s, cards=state.hands[s])
        return state

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> HuzurState:
        """A state whose ``view(view.seat)`` is ``view``: the cards ``view.seat`` cannot
        place (the stock and what the others drew unseen) dealt uniformly from ``rng`` into
        the stock and the others' unknown cards. Nothing narrows them: every such card came
        from the one shuffled stock, and no rule forced a seat to reveal anything. Only a
        hand holding four of a rank is redealt (the rule would have discarded them)."""
        n, me = view.players, view.seat
        state = cls.__new__(cls)
        GameState.__init__(state, spec, n, dict(view.options), rng.getrandbits(32))
        state._reset()
        state.restore_places(view)
        facts = view.facts
        state.phase = view.phase
        state.hand_no = view.counters["hand_no"]
        state.turned = Card.parse(facts["turned"])
        state.opener, state.dealer = facts["opener"], facts["dealer"]
        state.responders = list(facts["responders"])
        state.plays = [list(p) for p in facts["plays"]]
        state.finished = list(facts["finished"])
        state.active = [s not in state.finished for s in range(n)]
        state.known = _known_read(facts["known"])
        state.trump_holder = facts["trump_holder"]
        seen = set(view.hand) | set(state.turned_pile) | set(state.on_table) | set(state.discard)
        for s in range(n):
            if s != me:
                seen.update(state.known[s])
        hidden = [c for c in deck(n) if c not in seen]
        gaps = [view.counts[f"hand:{s}"] - len(state.known[s]) if s != me else 0 for s in range(n)]
        if sum(gaps) + view.counts["stock"] != len(hidden):
            raise ValueError("the view's counts do not fit the hidden cards")
        actor = view.to_act[0] if view.to_act else me
        for _attempt in range(TRIES):
            rng.shuffle(hidden)
            hands, at = [], 0
            for s in range(n):
                got = hidden[at : at + gaps[s]]
                at += gaps[s]
                hands.append(sorted(got + state.known[s]) if s != me else list(view.hand))
            state.hands = hands
            state.stock = hidden[at:]
            if state._plausible(actor):
                break
        state._log = seen_log(view)
        state.rng = random.Random(rng.getrandbits(64))
        return state

    def _plausible(self, actor: int) -> bool:
        """No hand holds four of a rank, and the seat to act has a legal action."""
        if any(4 in Tally(c.rank for c in h).values() for h in self.hands):
            return False
        return self.phase not in (LEAD, BEATING) or bool(self.legal_actions(actor))

    def playout_state(self, seed: int) -> KernelPlayout:
        """A copy for playouts (the search's fast path): this position in the C kernel
        (:mod:`levata.engine.huzur_playouts`), play only, with no events, views or history;
        its random stream starts from ``seed``."""
        return KernelPlayout(self.playout_fields(), seed)

    def playout_dealer(self, seat: int, seed: int) -> HuzurDealer:
        """The search's dealer of worlds ``seat`` cannot tell from this one, as fast copies
        (:class:`~levata.engine.huzur_playouts.HuzurDealer`): :meth:`from_view`'s deal,
        in C. This state must itself be such a world (``from_view`` of ``seat``'s view, or
        the real match); its hidden cards are dealt afresh each time."""
        fixed = [self.hands[s] if s == seat else self.known[s] for s in range(self.players)]
        return HuzurDealer(KernelPlayout(self.playout_fields(), 0), seat, fixed, seed, TRIES)

    def python_playout_state(self, seed: int) -> HuzurPlayout:
        """The same copy in Python (:mod:`.playout`): the reference the kernel is proven
        against (``tests/engine/test_huzur_kernel.py``) and a readable statement of the
        playout policy; the search runs on :meth:`playout_state`."""
        return HuzurPlayout.of(self, seed, _ACTIONS)

    def playout_fields(self) -> dict[str, Any]:
        """This position as plain values, as the playout copies' ``fields()`` say it (the
        kernel copies them, so nothing here is copied)."""
        return {
            "players": self.players,
            "trump": self.trump.slot,
            "hands": self.hands,
            "stock": self.stock,
            "turned": self.turned_pile,
            "table": self.on_table,
            "discard": self.discard,
            "plays": self.plays,
            "opener": self.opener,
            "responders": self.responders,
            "finished": self.finished,
            "active": self.active,
            "hand_no": self.hand_no,
            "hand_cap": self.options["hand_cap"],
            "cap_lead_to_min_hand": bool(self.options["cap_lead_to_min_hand"]),
            "phase": self.phase,
            "plan": None,
        }

    def sample_world(self, seat: int, rng: random.Random) -> HuzurState:
        """Redeal every card ``seat`` cannot place (see :meth:`from_view`)."""
        return type(self).from_view(self.spec, self.view(seat), rng)


def _cards(value: str | Card | Sequence[Card | str] | None) -> list[Card]:
    if value is None:
        return []
    if isinstance(value, Card):
        return [value]
    if isinstance(value, str):
        return parse_cards(value)
    return [c if isinstance(c, Card) else Card.parse(c) for c in value]


#: Lines for Huzur's own event kinds (the shared ones are said by the server's narration).
_LINES = {
    OPENED: lambda ev: f"seat {ev.seat} opens with {_cards_text(ev.cards)}",
    BEAT_KIND: lambda ev: f"seat {ev.seat} beats {ev.data['target']} with {_cards_text(ev.cards)}",
    BEATEN: lambda ev: f"seat {ev.seat} has beaten the play ({_cards_text(ev.cards)})",
    TAKE_KIND: lambda ev: f"seat {ev.seat} takes {_cards_text(ev.cards)}",
    CLEAR: lambda ev: f"   every seat beat: {_cards_text(ev.cards)} leave the game",
    QUAD: lambda ev: (
        f"   seat {ev.seat} holds four of a kind: {_cards_text(ev.cards)} leave the game"
    ),
    SWAP_KIND: lambda ev: f"seat {ev.seat} swaps {ev.cards[0]} for the turned {ev.cards[1]}",
    TRUMP_DRAWN: lambda ev: f"   seat {ev.seat} draws the turned {_cards_text(ev.cards)}",
    "drawn": lambda ev: f"   seat {ev.seat} drew {_cards_text(ev.cards)}",
    events.POSITION: lambda ev: (
        f"-- position: turned {_cards_text(ev.cards)}, hands {ev.data['hands']}"
    ),
}


def narrate(ev: Event) -> str | None:
    """A line for one of Huzur's own events, ``None`` for the shared ones.

    >>> narrate(Event(seq=4, kind="take", seat=2, cards=(Card.parse("8H"),)))
    'seat 2 takes 8H'
    """
    line = _LINES.get(ev.kind)
    return None if line is None else line(ev)


_ZONES, _COUNTS = described(HuzurState.PLACES)

VOCABULARY = Vocabulary(
    phases={
        OPEN: "the opener starts a lead (or first swaps the lowest trump)",
        LEAD: "the opener is building a lead: another card, or done",
        RESPOND: "the responder beats the previous play, or takes the table (or first swaps)",
        BEATING: "the responder is beating the previous play, card by card",
        phases.OVER: "the match is over",
    },
    zones=_ZONES,
    counts=_COUNTS,
    counters=declared.described(HuzurState.FIELDS, "counters"),
    facts=declared.described(HuzurState.FIELDS, "facts"),
    actions={
        actions.PLAY: "put `card` in the lead (one card, three with a pair, five with two"
        " pairs); cards go in the hand's order, and the lead ends by itself when nothing"
        " can extend it",
        DONE_KIND: "end the lead as it stands (one card, or three or five that are legal)",
        BEAT_KIND: "beat the previous play's next uncovered card with `card` (same suit and"
        " higher, or a trump on a non-trump); the beat ends by itself with the last card",
        TAKE_KIND: "take every card of this hand from the table into the hand",
        SWAP_KIND: "swap the lowest trump in hand for the turned card under the stock",
    },
    events={
        events.DEAL: "the deal: `cards` is the turned card (face up, under the stock; its"
        " suit is trumps); `data.dealer`, `hands` (cards each), `stock` (cards to draw, the"
        " turned one included), `trump` (the trump suit's letter)",
        events.POSITION: "the match was read from a position: `cards` is the turned card"
        " still under the stock; `data.hands` the cards each seat holds; each `hand` follows",
        events.HAND: "your six cards (seen by you alone); after a `position`, the cards you hold",
        events.PLAY: "`seat` put `cards` in its lead",
        OPENED: "`seat`'s lead is complete: `cards`",
        BEAT_KIND: "`seat` beat `data.target` with `cards`",
        BEATEN: "`seat` has beaten the previous play with `cards`",
        TAKE_KIND: "`seat` took `cards`, the whole table",
        CLEAR: "every responder beat: the table's `cards` leave the game",
        QUAD: "`seat` held four of a rank: `cards` leave the game",
        SWAP_KIND: "`seat` swapped `cards[0]` (the lowest trump) for the turned `cards[1]`",
        events.DRAW: "`seat` drew `data.count` cards from the stock (public)",
        "drawn": "the cards you drew (seen by you alone)",
        TRUMP_DRAWN: "`seat` drew the turned card `cards` (public: it was face up)",
        events.FINISH: "`seat` has no cards and the stock is empty: `data.place` among those"
        " finished",
        events.END: "the match is over: `data.reason` (complete, cap), `ranks`, `scores`,"
        " `winners`",
    },
)

SPEC = register(
    GameSpec(
        name="huzur",
        title="Huzur",
        players=(3, 4),
        summary="Beat the previous play card by card or take the table; do not be left last.",
        options=(
            Option(
                "first_opener",
                "after_dealer",
                "who opens the first hand: the seat after the dealer, or the holder of the"
                " lowest trump (D1)",
                choices=("after_dealer", "lowest_trump"),
            ),
            Option(
                "cap_lead_to_min_hand",
                False,
                "a lead has no more cards than the smallest other hand (D10)",
            ),
            Option("hand_cap", 400, "the match stops after this many hands (D4)", minimum=1),
        ),
        short_options={"hand_cap": 80},
        factory=HuzurState,
        bots={
            "heuristic": "levata.bots.heuristic.huzur:HeuristicBot",
            # rollouts to the end (the finishing order itself, not the cards held after 30
            # actions), and the heuristic's move kept unless a rival beats it by 2 standard
            # errors: each did better than the plain search (docs/games/huzur.md, "Strength")
            "ismcts": "levata.bots.search.ismcts:IsmctsBot:horizon=0:guard=2",
        },
        narrate=narrate,
        vocabulary=VOCABULARY,
    )
)
