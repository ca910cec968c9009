"""Sixty-six (Șaizeci și șase): two players, 20 cards, a stock that can be closed, marriages,
the trump-jack exchange and the claim of 66; the match to 7 game points
(``docs/games/sixty-six.md``; [D#] are the decisions of the rules specification).

A deal: the leader ``L`` (alternating; the first drawn from the seed) gets 3 cards, the
dealer 3, the next card is turned for trump, then 2 and 2; the other 9 cards lie face down on
the turned card: the **stock** (10 cards with it).

``play``   the leader may first ``claim`` (after winning the previous trick), ``exchange`` the
           trump jack for the turned card, ``close`` the stock; then ``play`` a card or
           ``marry`` (K or Q with its partner: 20, 40 in trumps, counted once the seat has a
           trick; the married card is then led, or the deal claimed). While the stock is open
           any card follows; once it is closed or exhausted: a higher card of the suit led,
           else one of the suit, else a trump, else any. The winner draws first, then the
           loser (the last card drawn is the turned trump).
``claim``  after the last trick its winner may ``claim`` or ``pass``.

Completed tricks are face down: a view shows the trick in progress and, until the next card
is led, the last trick; running points only with ``running_points``. Option ``schnapsen``:
no last-trick 10, the last trick wins a deal nobody claimed, closing awards counted at the
close, and closing or exchanging needs more than two cards in the stock.

>>> from levata.engine import game
>>> state = game("sixty-six").new_match(players=2, options={"first": 0}, seed=3)
>>> view = state.view(0)
>>> view.phase, state.to_act(), len(view.hand), view.counts["stock"], "trump" in view.zones
('play', (0,), 5, 10, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from levata.engine import actions, events, phases
from levata.engine.cards import Card
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    Option,
    Result,
    SeatView,
)
from levata.engine.deal import shuffled
from levata.engine.family.tricks import CARD_ORDER, PLAY, TRICK_ZONES, TrickGame
from levata.engine.fields import Counter, Fact, Kept, Seats
from levata.engine.games.sixty_six.rules import (
    DECK,
    LAST_TRICK,
    MARRIAGE,
    PLAYERS,
    TARGET,
    TO_CLAIM,
    TRUMP_MARRIAGE,
    card_points,
    claim_award,
    closing_award,
    false_claim_award,
    play_rules,
)
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.worlds import PlaceSets
from levata.engine.zones import FACE_DOWN, SHOWN, Place, without

__all__ = ["CLAIMING", "SPEC", "SixtySixState", "narrate"]

#: After the last trick: its winner claims 66 or passes.
CLAIMING = "claim"
#: Actions (and the events they write).
MARRY, EXCHANGE, CLOSE, CLAIM = "marry", "exchange", "close", "claim"
MARRIAGE_EVENT = "marriage"
#: The place of the stock among a world's places (the seats are 0 and 1).
STOCK = PLAYERS


def _cards(shown: Any) -> list[Card]:
    return [c if isinstance(c, Card) else Card.parse(c) for c in shown]


def _card_or_none(shown: Any) -> Card | None:
    return None if shown is None else (shown if isinstance(shown, Card) else Card.parse(shown))


class SixtySixState(TrickGame):
    """A match of Sixty-six (to 7 game points, or one deal): the card play is the trick
    base's; the stock, the calls and the claims are here."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        if players != PLAYERS:
            raise BadConfig("Sixty-six is played by exactly 2 players")
        self._settle()
        if deal is not None and sorted(deal) != sorted(self.deck):
            raise BadConfig("the deal must be the 20 cards from the tens up")
        chosen = options["first"]
        self.first = chosen if chosen >= 0 else self.rng.randrange(PLAYERS)
        self.max_deals = 1 if self.single else options["max_deals"]
        self.scores = [0, 0]
        self.deal_no = 0
        self._start_deal(list(deal) if deal is not None else None)

    def _settle(self) -> None:
        o = self.options
        self.deck = DECK
        self.schnapsen = bool(o["schnapsen"])
        self.single = o["deal"] > 0
        self.deal_log: list[dict[str, Any]] = []
        self.strict_from = 0
        self.shown_cards: list[Card] = []  # cards laid face up for one event (a marriage)

    # -- cards in places ---------------------------------------------------------------------

    PLACES = (
        *without(TrickGame.PLACES, "played", "trump", "undealt"),
        Place("played", "the cards of finished tricks, face down", seen=FACE_DOWN, shown=False),
        Place(
            "trump",
            TRICK_ZONES["trump"] + ", face up under the stock until it is closed or drawn",
            attr="trump_shown",
            seen="_turned_seen_by",
            shown="nonempty",
        ),
        Place("stock", "the face-down stock, top first", seen=FACE_DOWN, shown=False),
        Place("undealt", "cards nobody sees this deal", seen=FACE_DOWN, shown=False),
        SHOWN,
    )

    def _turned_seen_by(self, _: int | None) -> frozenset[int] | None:
        """The turned trump is face up until the stock is closed (then face down on it)."""
        return None if self.closed_by is None else frozenset()

    # -- the deal ---------------------------------------------------------------------------

    def _start_deal(self, order: list[Card] | None) -> None:
        self.deal_no += 1
        if self.deal_no > 1:
            self.first = 1 - self.first  # L alternates
        deck = order if order is not None else shuffled(self.deck, self.rng)
        lead, dealer = self.first, 1 - self.first
        self.closed_by: int | None = None
        self.close_tricks: int | None = None  # the other seat's tricks at the close
        self.marriages: list[list[Any]] = []  # [seat, suit letter, points] in order
        self.married: list[list[Card]] = [[], []]  # married cards still held, face up
        self.marrying: Card | None = None  # the married card its seat must lead now
        self.strict_from = 0
        self.stock: list[Card] = []
        self._clear_deal(lead, deck)
        turned = deck[6]
        for seat, cards in ((lead, deck[0:3]), (dealer, deck[3:6]), (lead, deck[7:9])):
            self.move(cards, "undealt", f"hand:{seat}")  # 3 each, the trump turned, 2 each
        self.move(deck[9:11], "undealt", f"hand:{dealer}")
        self.move(deck[11:], "undealt", "stock")
        self.set_trump(turned.suit, turned)
        self.phase = PLAY
        self._emit(
            events.DEAL,
            cards=(turned,),
            deal=self.deal_no,
            first=lead,
            dealer=dealer,
            trump=turned.suit.letter,
        )
        self.show_hands()

    @property
    def dealer(self) -> int:
        """The seat that dealt: the one that does not lead the first trick."""
        return 1 - self.first

    @property
    def strain(self) -> str | None:
        return self.trump.letter if self.trump is not None else None

    @property
    def stock_count(self) -> int:
        """Cards in the stock, the turned trump under it included."""
        return len(self.stock) + (self.trump_card is not None)

    @property
    def strict(self) -> bool:
        """Follow, head and trump: the stock is closed or exhausted."""
        return self.closed_by is not None or self.stock_count == 0

    def card_rules(self) -> TrickRules:
        return self.rules_of_trick(len(self.played))

    def rules_of_trick(self, played: int) -> TrickRules:
        """Any card while the stock is open; follow, head and trump in the tricks that start
        once it is closed or exhausted (after ``strict_from`` cards were played)."""
        assert self.trump is not None
        strict = self.strict and played >= self.strict_from
        return play_rules(self.trump, strict, last_trick=not self.schnapsen)

    def _go_strict(self) -> None:
        self.strict_from = len(self.played)  # closing and the last draw fall between tricks
        self._rules_changed()

    # -- points -----------------------------------------------------------------------------

    def points(self, seat: int) -> int:
        """``pts(seat)``: its card points, its marriages once it has a trick, and the last
        trick's 10 (not in Schnapsen)."""
        got = sum(card_points(c) for c in self.taken[seat])
        if self.tricks[seat]:
            got += sum(p for s, _, p in self.marriages if s == seat)
        if not self.schnapsen and self.last_taker == seat and not any(self.hands):
            got += LAST_TRICK
        return got

    # -- whose turn and what is legal -------------------------------------------------------

    def seats_to_call(self) -> tuple[int, ...]:
        if self.phase == CLAIMING and self.last_taker is not None:
            return (self.last_taker,)
        return ()

    def narrow_play(self, seat: int, cards: list[Card]) -> list[Card]:
        if self.marrying is not None:  # the married card is the lead
            return [c for c in cards if c == self.marrying]
        return cards

    def calls(self, seat: int) -> list[Action]:
        if self.phase == CLAIMING:
            return [Action(CLAIM), Action(actions.PASS)]
        if self.phase != PLAY or self.current:
            return []
        out = [Action(CLAIM)] if self.last_taker == seat else []
        if self.marrying is not None:
            return out
        jack = Card(self.trump, 11) if self.trump is not None else None
        if self._may_exchange(seat) and jack is not None:
            out.append(Action(EXCHANGE, card=jack))
        if not self.strict and self.stock_count >= self._least_stock():
            out.append(Action(CLOSE))
        if not self.strict:
            hand = self.hands[seat]
            for c in sorted(hand, key=CARD_ORDER):
                if c.rank in (12, 13) and Card(c.suit, 25 - c.rank) in hand:
                    out.append(Action(MARRY, card=c))
        return out

    def _least_stock(self) -> int:
        """Cards the stock must hold to close or exchange: Schnapsen wants more than two."""
        return 4 if self.schnapsen else 1

    def _may_exchange(self, seat: int) -> bool:
        """The trump jack for the turned card: on lead after winning the previous trick,
        the stock open with the turned card under it [D1]."""
        if self.strict or self.trump_card is None or self.last_taker != seat:
            return False
        if self.stock_count < self._least_stock():
            return False
        return Card(self.trump_card.suit, 11) in self.hands[seat]

    # -- applying ---------------------------------------------------------------------------

    def _make_call(self, seat: int, action: Action) -> None:
        kind = action.kind
        if kind == CLAIM:
            self._end_deal(seat)
        elif kind == actions.PASS:
            self._end_deal(None)
        elif kind == EXCHANGE:
            self._exchange(seat)
        elif kind == CLOSE:
            self.closed_by, self.close_tricks = seat, self.tricks[1 - seat]
            self._emit(CLOSE, seat=seat, tricks=self.close_tricks)
            self._go_strict()
        elif kind == MARRY and action.card is not None:
            self._marry(seat, action.card)

    def _exchange(self, seat: int) -> None:
        old = self.trump_card
        assert old is not None
        jack = Card(old.suit, 11)
        self.move(old, "trump", f"hand:{seat}")
        self.move(jack, f"hand:{seat}", "trump")
        self._emit(EXCHANGE, seat=seat, cards=(jack, old))  # both were face up

    def _marry(self, seat: int, card: Card) -> None:
        partner = Card(card.suit, 25 - card.rank)
        value = TRUMP_MARRIAGE if card.suit == self.trump else MARRIAGE
        self.marriages.append([seat, card.suit.letter, value])
        self.married[seat] += [card, partner]
        self.marrying = card
        with self.showing([card, partner], f"hand:{seat}", None):  # both face up for a moment
            self._emit(MARRIAGE_EVENT, seat=seat, cards=(card, partner), points=value)

    def play_card(self, seat: int, card: Card) -> None:
        if card in self.married[seat]:
            self.married[seat].remove(card)
        self.marrying = None
        super().play_card(seat, card)

    def _after_trick(self, winner: int) -> None:
        if self.strict:
            return
        for seat in (winner, 1 - winner):  # the winner draws first
            if self.stock:
                self.move(self.stock[0], "stock", f"hand:{seat}", kind=events.DRAW, seat=seat)
            elif self.trump_card is not None:  # the turned trump: the last card, face up
                self.move(
                    self.trump_card,
                    "trump",
                    f"hand:{seat}",
                    kind=events.DRAW,
                    seat=seat,
                    seen_by=None,
                )
        if self.stock_count == 0:
            self._go_strict()

    def _score_deal(self) -> None:
        """The hands are empty: the last trick's winner may still claim (or pass)."""
        self.phase = CLAIMING

    # -- the end of a deal ------------------------------------------------------------------

    def _closing_tricks(self, seat: int) -> int:
        """The non-closer's tricks for the closing award: at the end of the deal [D8], in
        Schnapsen at the close."""
        if self.schnapsen and self.close_tricks is not None:
            return self.close_tricks
        return self.tricks[seat]

    def deal_award(self, claimer: int | None) -> tuple[int | None, int, str]:
        """Who wins the deal, its game points and why, when ``claimer`` claims (``None``:
        nobody claimed, the hands are empty)."""
        pts = [self.points(s) for s in range(PLAYERS)]
        if claimer is not None:
            other = 1 - claimer
            if pts[claimer] < TO_CLAIM:
                return other, false_claim_award(self.tricks[other]), "false claim"
            award = claim_award(pts[claimer], pts[other], self.tricks[other])
            if self.closed_by == other:
                award = max(award, closing_award(self._closing_tricks(claimer)))
            return claimer, award, "claim"
        if self.closed_by is not None:
            other = 1 - self.closed_by
            return other, closing_award(self._closing_tricks(other)), "closer failed"
        if self.schnapsen:
            return self.last_taker, 1, "last trick"
        if pts[0] == pts[1]:
            return None, 0, "tie"
        return (0 if pts[0] > pts[1] else 1), 1, "more points"

    def _end_deal(self, claimer: int | None) -> None:
        winner, award, why = self.deal_award(claimer)
        if winner is not None:
            self.scores[winner] += award
        points = [award if s == winner else 0 for s in range(PLAYERS)]
        record: dict[str, Any] = {
            "deal": self.deal_no,
            "first": self.first,
            "claimer": claimer,
            "winner": winner,
            "reason": why,
            "pts": [self.points(s) for s in range(PLAYERS)],
            "tricks": list(self.tricks),
            "closed_by": self.closed_by,
            "points": points,
            "totals": list(self.scores),
        }
        self.deal_log.append(record)
        if claimer is not None:
            self._emit(CLAIM, seat=claimer, correct=why == "claim")
        self._emit(events.SCORE, **record)
        if max(self.scores) >= TARGET or self.deal_no >= self.max_deals:
            self.over, self.phase = True, phases.OVER
            res = self.result()
            self._emit(
                events.END, scores=list(res.scores), winners=list(res.winners), reason=res.reason
            )
            return
        self._start_deal(None)

    def _view_scores(self) -> tuple[float, ...]:
        if self.single and self.deal_log:
            return tuple(float(p) for p in self.deal_log[-1]["points"])
        return tuple(float(s) for s in self.scores)

    def result(self) -> Result:
        if not self.over:
            raise RuntimeError("the match is not over")
        scores = self._view_scores()
        a, b = scores
        winners = (0, 1) if a == b else ((0,) if a > b else (1,))
        reached = self.single or max(self.scores) >= TARGET
        return Result(
            scores=scores,
            ranks=tuple(1 + (scores[1 - s] > scores[s]) for s in range(PLAYERS)),
            winners=winners,
            deals=tuple(self.deal_log),
            reason="complete" if reached else "max_deals",
        )

    # -- what a seat may know ---------------------------------------------------------------

    FIELDS = (
        *TrickGame.FIELDS,
        Counter("deal", "the deal in progress, from 1", attr="deal_no"),
        Counter("max_deals", "deals after which the match ends at the latest"),
        Counter("dealer", "the seat that deals this deal (it does not lead first)", derived=True),
        Counter("first", "the seat that acts first this deal: it leads the first trick"),
        Seats(Counter("score", "the seat's total so far: its game points", attr="scores")),
        Fact(
            "strain",
            "the trump named: C, D, H or S, or NT for no trump; null before it is named (here:"
            " the suit of the card turned at the deal)",
            derived=True,
        ),
        Fact(
            "closed_by", "the seat that closed the stock this deal (null: not closed)", seats=True
        ),
        Fact(
            "close_tricks",
            "the tricks of the seat that did not close, at the close (null: not closed)",
        ),
        Fact("strict", "the stock is closed or exhausted: follow, head, else trump", derived=True),
        Fact(
            "marriages",
            "the marriages announced this deal, in order: [seat, suit letter, points]; they"
            " count once the seat has a trick",
        ),
        Fact(
            "marrying",
            "the married card its seat must lead now (null: none)",
            show=lambda c: None if c is None else str(c),
            read=_card_or_none,
        ),
        Kept(
            "married",
            "per seat, the married cards it still holds (face up)",
            show=lambda hands: [[str(c) for c in h] for h in hands],
            read=lambda hands: [_cards(h) for h in hands],
        ),
    )

    def _view_counters(self, seat: int) -> dict[str, int]:
        out = super()._view_counters(seat)
        if self.options["running_points"]:
            for s in range(PLAYERS):
                out[f"deal_points:{s}"] = self.points(s)
        return out

    def _view_zones(self, seat: int) -> dict[str, tuple[Card, ...]]:
        zones = self.view_zones(seat)  # the trick, and the turned trump while face up
        if self.played and not self.trick:
            zones["last"] = tuple(self.played[-PLAYERS:])
        for s in range(PLAYERS):
            if self.married[s]:
                zones[f"married:{s}"] = tuple(self.married[s])
        return zones

    def view(self, seat: int, history: bool = True) -> SeatView:
        view = super().view(seat, history)
        return replace(view, counts={**view.counts, "stock": self.stock_count})

    # -- a world rebuilt from a view --------------------------------------------------------

    def _after_restore(self, view: SeatView) -> None:
        if self.strict_in(view):  # the cards of the tricks before the close or last draw
            deal = _this_deal(view)
            mark = max((ev.seq for ev in deal if ev.kind in (CLOSE, events.DRAW)), default=-1)
            before = (ev for ev in deal if ev.kind == events.TRICK and ev.seq < mark)
            self.strict_from = sum(len(ev.cards) for ev in before)

    @staticmethod
    def strict_in(view: SeatView) -> bool:
        return bool(view.facts["strict"])

    def _restore_card_play(self, view: SeatView) -> None:
        deal = _this_deal(view)
        played: list[Card] = []
        if deal and deal[0].kind == events.POSITION:
            for cards in deal[0].data["taken"]:
                played += _cards(cards)
        for ev in deal:
            if ev.kind == events.TRICK:
                played.extend(ev.cards)
        last = list(view.zones.get("last", ()))
        if last and played[-PLAYERS:] != last:  # a position keeps only the last trick's order
            played = [c for c in played if c not in last] + last
        super()._restore_card_play(view)
        self.played = played  # face down: the seat's memory of the tricks, not the view's zones
        self.trump_card = _turned_card(view, deal)
        self.stock = []
        self.married = [list(view.zones.get(f"married:{s}", ())) for s in range(PLAYERS)]

    def _places_at_deal(self) -> list[int]:
        return [STOCK]

    def _narrow_position(self, view: SeatView, sets: PlaceSets) -> None:
        opened = _this_deal(view)[0]
        for cards in opened.data["taken"]:
            for c in _cards(cards):
                sets.gone(c)
        if self.closed_by is not None and self.trump_card is None and view.counts["stock"]:
            raise NotImplementedError("sixty-six: the closed trump card of a position is unknown")

    def _narrow_places(self, ev: Event, sets: PlaceSets, view: SeatView) -> None:
        seat, by = view.seat, ev.seat
        if by is None or by == seat:
            return  # the seat's own draws and cards are its hand (the walk ends with it)
        if ev.kind == MARRIAGE_EVENT:
            for c in ev.cards:
                sets.put(c, by)
        elif ev.kind == EXCHANGE:
            sets.put(ev.cards[1], by)  # the old trump went to its hand
        elif ev.kind == events.DRAW and ev.cards:  # the face-up trump, drawn last
            sets.put(ev.cards[0], by)

    def _plan_places(self, view: SeatView, sets: PlaceSets) -> dict[int, int]:
        turned = self.trump_card
        if turned is not None:
            sets.gone(turned)  # it lies under the stock, known
        for s in range(PLAYERS):
            if s != view.seat:
                for c in self.married[s]:
                    sets.put(c, s)
        return {STOCK: view.counts["stock"] - (turned is not None)}

    def _settle_places(self, view: SeatView, dealt: dict[int, list[Card]], rng: Any) -> None:
        left = dealt.get(STOCK, [])
        self.stock = rng.sample(left, len(left))
        self._rules_changed()  # the prototype had no stock yet: strict or not, from it now


def _this_deal(view: SeatView) -> list[Event]:
    """The seat's events of the deal in progress, from the one before its hand (the deal, or
    the position the match was read from)."""
    start = max((i for i, ev in enumerate(view.history) if ev.kind == events.HAND), default=0)
    return list(view.history[max(0, start - 1) :])


def _turned_card(view: SeatView, deal: list[Event]) -> Card | None:
    """The card under the stock, as the seat saw it turned, exchanged and not yet drawn
    (it stays known when the stock is closed and the card lies face down)."""
    turned = view.zones.get("trump", ())
    if turned:
        return turned[0]
    if not view.counts["stock"]:
        return None
    card: Card | None = None
    for ev in deal:
        if ev.kind in (events.DEAL, EXCHANGE):  # the card turned, or the jack put under
            card = ev.cards[0]
    return card


def narrate(ev: Event) -> str | None:
    """Lines for Sixty-six's own events.

    >>> narrate(Event(seq=1, kind="close", seat=1, data={"tricks": 0}))
    'seat 1 closes the stock (the other seat has 0 tricks)'
    """
    d = ev.data
    cards = " ".join(str(c) for c in ev.cards)
    if ev.kind == events.DEAL:
        return (
            f"-- deal {d['deal']}: seat {d['first']} leads, seat {d['dealer']} deals; trump {cards}"
        )
    if ev.kind == MARRIAGE_EVENT:
        return f"seat {ev.seat} marries {cards} for {d['points']}"
    if ev.kind == EXCHANGE:
        return f"seat {ev.seat} exchanges the trump jack for {ev.cards[1]}"
    if ev.kind == CLOSE:
        return f"seat {ev.seat} closes the stock (the other seat has {d['tricks']} tricks)"
    if ev.kind == CLAIM:
        return f"seat {ev.seat} claims 66: {'correct' if d['correct'] else 'wrong'}"
    if ev.kind == events.DRAW:
        return f"seat {ev.seat} draws {cards or 'a card'}"
    if ev.kind == events.SCORE:
        return (
            f"   score: {d['reason']}, pts {d['pts']}, tricks {d['tricks']}, game points"
            f" {d['points']}, totals {d['totals']}"
        )
    return None


VOCABULARY = SixtySixState.vocabulary(
    phases={
        PLAY: "the cards are played to tricks; on lead a seat may first claim, exchange the"
        " trump jack, close the stock or marry",
        CLAIMING: "the hands are empty: the last trick's winner claims 66 or passes",
        phases.OVER: "the match is over",
    },
    zones={
        "trick": TRICK_ZONES["trick"],
        "last": "the last completed trick, until a card is led to the next (older tricks lie"
        " face down)",
        "trump": TRICK_ZONES["trump"] + ", face up under the stock until it is closed or drawn",
        "married:SEAT": "the married cards the seat has shown and still holds",
    },
    counts={
        "hand:SEAT": "how many cards the seat holds",
        "stock": "cards in the stock, the turned trump under it included",
    },
    counters={
        "deal_points:SEAT": "the seat's points this deal: cards taken, marriages once it has a"
        " trick, the last trick's 10 (shown only with option running_points)",
    },
    actions={
        actions.PLAY: "play `card` to the trick (once the stock is closed or exhausted: a higher"
        " card of the suit led, else one of it, else a trump, else any)",
        MARRY: "on lead, with the stock open: show `card` (K or Q) and its partner, then lead"
        " `card`; 20 points, 40 in trumps, once you have a trick",
        EXCHANGE: "on lead after winning the previous trick: give the trump jack `card` for the"
        " turned trump",
        CLOSE: "on lead, with cards in the stock: close it; no more draws, strict play",
        CLAIM: "claim 66 (on lead after winning the previous trick, or after the last trick):"
        " the deal ends; wrong, the other seat scores",
        actions.PASS: "after the last trick: do not claim",
    },
    events={
        events.DEAL: "a deal begins: `data.deal`, `first` (leads), `dealer`, `trump`; `cards`:"
        " the turned trump",
        events.DRAW: "`seat` drew a card from the stock (`cards`: seen by it alone, or by"
        " everyone for the turned trump)",
        MARRIAGE_EVENT: "`seat` shows the marriage `cards` (the first is led) for `data.points`",
        EXCHANGE: "`seat` put the trump jack (first of `cards`) under the stock and took the"
        " turned card (second)",
        CLOSE: "`seat` closed the stock; `data.tricks`: the other seat's tricks then",
        CLAIM: "`seat` claimed 66; `data.correct` says whether it had 66",
        events.SCORE: "a deal is scored: `data.deal`, `first`, `claimer`, `winner`, `reason`,"
        " per seat `pts`, `tricks`, `points` (game points), `totals`, `closed_by`",
        events.END: "the match is over: `data.scores`, `winners`, `reason` (complete, or"
        " max_deals)",
    },
)

SPEC = register(
    GameSpec(
        name="sixty-six",
        title="Sixty-six",
        players=(PLAYERS,),
        summary="Two players, 20 cards: draw from the stock or close it, marry, claim 66;"
        " first to 7 game points.",
        options=(
            Option("max_deals", 200, "deals after which more game points win", minimum=1),
            Option(
                "first",
                -1,
                "the seat that leads the first deal (-1: from the seed)",
                minimum=-1,
                maximum=1,
            ),
            Option(
                "schnapsen",
                False,
                "Austrian rules: no last-trick 10, the last trick wins"
                " an unclaimed deal, closing awards counted at the close, closing and the"
                " jack exchange need more than two cards in the stock",
            ),
            Option("running_points", False, "show each seat's points of the deal in progress"),
            Option(
                "deal",
                0,
                "0 plays the match; 1 plays one deal (the duplicate unit)",
                minimum=0,
                maximum=1,
            ),
        ),
        factory=SixtySixState,
        short_options={"max_deals": 3},
        duplicate_unit="deal",
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.sixty_six:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
            "search": "levata.bots.strategy.sixty_six:SearchBot",
        },
        strategy="levata.bots.strategy.sixty_six:SixtySixStrategy",
    )
)
