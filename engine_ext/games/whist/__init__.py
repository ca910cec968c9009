"""Romanian Whist: 3-6 players, every deal a bid of exact tricks (``docs/games/whist.md``).

A match follows the schedule 1..8..1 (N one-card deals, 2..7, N eight-card deals, 7..2,
N one-card deals). Each deal: cards are dealt from the first player ``F``; below eight cards
the next card is turned for trump. Everyone bids once from ``F``; the last bidder (the
physical dealer) may not make the bids add up to the number of cards. Follow suit, else
trump if you can (no over-trump duty). Exact bid: ``5 + bid``; otherwise ``-|tricks - bid|``.
Five exact (or missed) deals in a row on deals of two cards or more: ``+10`` (``-10``).

The wider Oh Hell family plays on the same engine through two options: ``must_trump``
(default on, the Romanian rule; off, a seat void in the led suit may discard instead) and
``scoring`` (``romanian``, as above; ``oh_hell``: the tricks taken, plus 10 for an exact bid,
with no streaks).

Options: ``one_card_mode`` (``normal`` | ``forehead``: on one-card deals each seat sees the
other cards and not its own), ``zero_wins`` (a final total of exactly 0 also wins),
``deal_size`` (0 plays the whole schedule; 1..8 plays a single deal of that many cards, the
duplicate-tournament unit), ``must_trump``, ``scoring``.

>>> from levata.engine import game, Action
>>> state = game("whist").new_match(players=3, options={"deal_size": 2}, seed=3)
>>> state.view(state.to_act()[0]).counters["size"]
2
>>> while not state.is_over():
...     seat = state.to_act()[0]
...     state.apply(seat, state.legal_actions(seat)[0])
>>> len(state.result().scores)
3
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, cast

from levata.engine import actions, events, phases
from levata.engine.cards import Card, Suit, french_deck
from levata.engine.contract import (
    Action,
    Event,
    GameSpec,
    GameState,
    Option,
    Result,
    SeatView,
    ranks_from_scores,
)
from levata.engine.deal import shuffled
from levata.engine.family.tricks import (
    PLAY,
    TRICK_COUNTERS,
    TRICK_ZONES,
    TrickGame,
    play_action,
)
from levata.engine.fields import OMIT, Counter, Fact, Field, Kept, Seats
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.whist_table import WhistTable

__all__ = [
    "SCORINGS",
    "WhistState",
    "deal_points",
    "schedule",
    "whist_deck",
    "whist_rules",
]

STREAK = 5  # deals in a row that earn the streak bonus or penalty
STREAK_POINTS = 10
#: Whist's own kinds: forehead mode's blind play, and what a seat sees of the others.
PLAY_OWN_KIND, FOREHEADS = "play_own", "foreheads"
PLAY_OWN = Action(PLAY_OWN_KIND)  # forehead mode: play the card you cannot see
_ONLY = tuple(frozenset({s}) for s in range(8))  # who sees a hand, asked at every view
#: ``bid 0`` .. ``bid 8``: every bid of a deal (eight cards at most), made once.
_BIDS = tuple(Action(actions.BID, number=b) for b in range(9))
#: The ``scoring`` option's values: Romanian Whist's, and Oh Hell's (tricks + 10 if exact).
ROMANIAN, OH_HELL = "romanian", "oh_hell"
SCORINGS = (ROMANIAN, OH_HELL)
OH_HELL_BONUS = 10


def whist_deck(players: int) -> tuple[Card, ...]:
    """The top ``8 * players`` cards, Ace downwards (N=4: 7..A).

    >>> len(whist_deck(5)), min(c.rank for c in whist_deck(5))
    (40, 5)
    """
    return french_deck(lowest=15 - 2 * players)


def schedule(players: int) -> list[int]:
    """Cards per player in each deal of a full match.

    >>> schedule(3)
    [1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1]
    """
    ones = [1] * players
    return ones + list(range(2, 8)) + [8] * players + list(range(7, 1, -1)) + ones


def whist_rules(players: int, trump: Suit | None, must_trump: bool = True) -> TrickRules:
    """Whist's card play: follow suit, else trump if you can (unless the match's
    ``must_trump`` is off); no duty to beat anyone.

    The one declaration the engine, the kernel and the bots read.

    >>> whist_rules(4, Suit.HEARTS)
    TrickRules(seats=4, trump=2, follow=True, must_trump=True)
    >>> whist_rules(4, Suit.HEARTS, must_trump=False).must_trump
    False
    """
    return TrickRules(players, trump, must_trump=must_trump)


def deal_points(bid: int, tricks: int, scoring: str = ROMANIAN) -> int:
    """Points for one deal. Romanian: exact ``5 + bid``, else minus the distance. Oh Hell:
    the tricks taken, plus 10 when exact.

    >>> [deal_points(2, 2), deal_points(0, 0), deal_points(4, 1), deal_points(1, 3)]
    [7, 5, -3, -2]
    >>> [deal_points(2, 2, "oh_hell"), deal_points(0, 0, "oh_hell"), deal_points(4, 1, "oh_hell")]
    [12, 10, 1]
    """
    if scoring == OH_HELL:
        return tricks + (OH_HELL_BONUS if bid == tricks else 0)
    return 5 + bid if bid == tricks else -abs(tricks - bid)


def _option_fact(name: str, help: str) -> Field:
    """A fact that shows one of the match's options (the options give it back)."""
    return Fact(name, help, attr="options", derived=True, show=lambda o: o[name])


class WhistState(TrickGame):
    """A Romanian Whist match in progress: the trick play is :class:`TrickGame`'s."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        deal: Sequence[Card] | None = None,
    ) -> None:
        super().__init__(spec, players, options, seed)
        size = options["deal_size"]
        self.schedule = [size] if size else schedule(players)
        self.deck = whist_deck(players)
        order = self._check_order(deal)
        self.deal_index = -1
        self.first = self.rng.randrange(players)  # F of deal 1; F moves on each deal
        self.totals = [0] * players
        self.hits = [0] * players
        self.misses = [0] * players
        self._start_deal(order)

    def card_rules(self) -> TrickRules:
        return whist_rules(self.players, self.trump, self.options["must_trump"])

    # -- the deal ---------------------------------------------------------------------------

    @property
    def cards(self) -> int:
        """Cards per player in the current deal."""
        return self.schedule[self.deal_index]

    @property
    def deal_no(self) -> int:
        """The deal in progress, from 1 (what views and positions call ``deal``)."""
        return self.deal_index + 1

    @deal_no.setter
    def deal_no(self, value: int) -> None:
        self.deal_index = value - 1

    @property
    def deal_count(self) -> int:
        """How many deals the match has."""
        return len(self.schedule)

    @property
    def forehead(self) -> bool:
        return self.cards == 1 and self.options["one_card_mode"] == "forehead"

    @property
    def dealer(self) -> int:
        """The physical dealer, who bids last: the seat before ``F``."""
        return (self.first - 1) % self.players

    def _start_deal(self, order: list[Card] | None) -> None:
        if self.deal_index >= 0:
            self.first = (self.first + 1) % self.players
        self.deal_index += 1
        n, c = self.players, self.cards
        deck = order if order is not None else shuffled(self.deck, self.rng)
        rest = self.deal_round_robin(deck, self.first, c)
        turned = rest[0] if c < 8 else None  # below eight cards the next card is trump
        self.set_trump(turned.suit if turned else None, turned)  # turned: face up from undealt
        self.bids: list[int | None] = [None] * n
        self.phase = phases.BIDDING
        self._emit(
            events.DEAL,
            cards=(turned,) if turned else (),
            deal=self.deal_index + 1,
            size=c,
            first=self.first,
            dealer=self.dealer,
            trump=turned.suit.letter if turned else None,
        )
        self.show_hands()

    def _show_hand(self, seat: int) -> Event:
        if not self.forehead:
            return super()._show_hand(seat)
        # The seat sees all cards but its own (read from a position mid-trick, those still held)
        others = [t for t in range(self.players) if t != seat and self.hands[t]]
        cards = [self.hands[t][0] for t in others]
        return self._emit(FOREHEADS, audience={seat}, cards=cards, seats=others)

    # -- bidding ------------------------------------------------------------------------------

    def _bidder(self) -> int:
        made = sum(b is not None for b in self.bids)
        return (self.first + made) % self.players

    def seats_to_call(self) -> tuple[int, ...]:
        return (self._bidder(),)

    def calls(self, seat: int) -> list[Action]:
        if self.phase != phases.BIDDING:
            return []
        made = _BIDS  # the actions, made once: a search builds this list at every bid
        return [
            made[b] if b < len(made) else Action(actions.BID, number=b) for b in self.legal_bids()
        ]

    def legal_bids(self) -> list[int]:
        """Bids open to the seat bidding now: the last may not make the total equal the cards."""
        c = self.cards
        made = [b for b in self.bids if b is not None]
        if len(made) == self.players - 1:
            return [b for b in range(c + 1) if sum(made) + b != c]
        return list(range(c + 1))

    def _make_call(self, seat: int, action: Action) -> None:
        self._bid(seat, action.number)  # type: ignore[arg-type]  # bids carry numbers

    def _bid(self, seat: int, bid: int) -> None:
        self.bids[seat] = bid
        self._emit(events.BID, seat=seat, number=bid)
        if all(b is not None for b in self.bids):
            self.phase = PLAY

    # -- forehead play: the one card you cannot see -------------------------------------------

    def _play_actions(self, seat: int) -> list[Action]:
        return [PLAY_OWN] if self.forehead else TrickGame._play_actions(self, seat)

    def _card_of(self, seat: int, action: Action) -> Card | None:
        if action.kind == PLAY_OWN_KIND and action == PLAY_OWN:  # the kind first: no __eq__
            return self.hands[seat][0]
        return TrickGame._card_of(self, seat, action)  # not super(): at every card played

    # -- scoring ------------------------------------------------------------------------------

    def _score_deal(self) -> None:
        points = []
        for s in range(self.players):
            bid, got = self.bids[s], self.tricks[s]
            scoring = self.options["scoring"]
            p = deal_points(bid, got, scoring)  # type: ignore[arg-type]  # every seat has bid
            if self.cards >= 2 and scoring == ROMANIAN:  # one-card deals: no streak either way
                p += self._streak(s, bid == got)
            self.totals[s] += p
            points.append(p)
        record: dict[str, Any] = {
            "deal": self.deal_index + 1,
            "size": self.cards,
            "first": self.first,
            "trump": self.trump_card and str(self.trump_card),
            "bids": list(self.bids),
            "tricks": list(self.tricks),
            "points": points,
            "totals": list(self.totals),
        }
        self._scored(record)
        if self.deal_index + 1 == len(self.schedule):
            self._end()
        else:
            self._start_deal(None)

    def _streak(self, seat: int, exact: bool) -> int:
        if exact:
            self.hits[seat], self.misses[seat] = self.hits[seat] + 1, 0
            if self.hits[seat] == STREAK:
                self.hits[seat] = 0
                return STREAK_POINTS
        else:
            self.misses[seat], self.hits[seat] = self.misses[seat] + 1, 0
            if self.misses[seat] == STREAK:
                self.misses[seat] = 0
                return -STREAK_POINTS
        return 0

    def _result(self) -> Result:
        best = max(self.totals)
        winners = [
            s
            for s, t in enumerate(self.totals)
            if t == best or (self.options["zero_wins"] and t == 0)
        ]
        return Result(
            scores=tuple(float(t) for t in self.totals),
            ranks=ranks_from_scores(self.totals),
            winners=tuple(winners),
            deals=tuple(self.deal_log),
        )

    # -- what a seat may know -----------------------------------------------------------------

    # The forehead card is seen by the others: the hand's audience is the state's to say.
    PLACES = (
        dataclasses.replace(TrickGame.PLACES[0], seen="_hand_seen_by"),
        *TrickGame.PLACES[1:],
    )

    def _hand_seen_by(self, seat: int) -> frozenset[int]:
        if not self.forehead:
            return _ONLY[seat]
        return frozenset(range(self.players)) - {seat}  # a forehead card: all but its owner

    def _view_hand(self, seat: int) -> tuple[Card, ...]:
        return () if self.forehead else super()._view_hand(seat)

    # In the order views show them: the deal's numbers (the base's ``leader`` after the
    # dealer), then each seat's bid, tricks and streaks together, seat by seat.
    FIELDS = (
        Counter("deal", "the deal in progress, from 1", attr="deal_no"),
        Counter(
            "deals",
            "deals in the match (21 for 3 players in the full schedule)",
            attr="deal_count",
            derived=True,
        ),
        Counter("size", "cards each seat was dealt this deal", attr="cards", derived=True),
        Counter(
            "first", "the seat that acts first this deal: it bids first and leads the first trick"
        ),
        Counter(
            "dealer",
            "the seat that deals this deal: it bids last (the seat before `first`)",
            derived=True,
        ),
        Counter("leader", TRICK_COUNTERS["leader"], seat=True),
        Seats(
            Counter(
                "bid", "the seat's bid this deal (present once it has bid)", attr="bids", none=OMIT
            ),
            Counter("tricks", TRICK_COUNTERS["tricks:SEAT"]),
            Counter(
                "hit",
                f"exact deals in a row (two cards or more) toward the {STREAK}-deal"
                f" +{STREAK_POINTS} bonus",
                attr="hits",
            ),
            Counter(
                "miss",
                f"missed deals in a row (two cards or more) toward the {STREAK}-deal"
                f" -{STREAK_POINTS} penalty",
                attr="misses",
            ),
        ),
        _option_fact("one_card_mode", "the one_card_mode option: normal or forehead"),
        _option_fact(
            "must_trump", "the must_trump option: true when a seat void in the led suit must trump"
        ),
        _option_fact(
            "scoring", "the scoring option: romanian, or oh_hell (tricks taken + 10 if exact)"
        ),
        Fact(
            "strain",
            "the trump named: C, D, H or S, or NT for no trump; null before it is named (the"
            " turned card's suit, NT when no card is turned)",
            attr="trump",
            derived=True,
            show=lambda trump: "NT" if trump is None else trump.letter,
        ),
        Kept("scores", "each seat's total so far (what a view's `scores` shows)", attr="totals"),
    )

    def _view_scores(self) -> tuple[float, ...]:
        return tuple(float(t) for t in self.totals)

    # -- a world rebuilt from a view (the trick base deals the cards) ------------------------

    def _settle(self) -> None:
        size = self.options["deal_size"]
        self.schedule = [size] if size else schedule(self.players)
        self.deck = whist_deck(self.players)

    def _after_restore(self, view: SeatView) -> None:
        self.totals = [int(t) for t in view.scores]  # a view shows them as its scores

    def _is_hand_event(self, event: Event) -> bool:
        return event.kind == FOREHEADS or super()._is_hand_event(event)

    def _hidden_hand_event(self, seq: int, seat: int, own: Event, dealt: list[list[Card]]) -> Event:
        if own.kind != FOREHEADS:
            return super()._hidden_hand_event(seq, seat, own, dealt)
        others = [t for t in range(self.players) if t != seat and dealt[t]]
        cards = tuple(dealt[t][0] for t in others)
        return Event(seq, FOREHEADS, frozenset({seat}), None, cards, {"seats": others})


def narrate(ev: Event) -> str | None:
    """Whist's own event kind: ``foreheads``, what a seat sees in a forehead deal.

    >>> from levata.engine import Card
    >>> narrate(Event(seq=1, kind="foreheads", audience=frozenset({2}), cards=(Card.parse("QH"),)))
    '   seat 2 sees QH (not its own)'
    """
    if ev.kind == FOREHEADS:
        seat = min(ev.audience or [0])
        return f"   seat {seat} sees {' '.join(map(str, ev.cards))} (not its own)"
    return None


VOCABULARY = WhistState.vocabulary(
    phases={
        phases.BIDDING: "every seat bids once, from `first`; the dealer bids last",
        PLAY: "the cards are played to tricks, `leader` leading",
        phases.OVER: "the match is over",
    },
    zones={
        **TRICK_ZONES,
        "hand:SEAT": "forehead mode, one-card deals: the card of another seat, which you see"
        " (your own `hand` is then empty)",
    },
    actions={
        actions.BID: "bid `number` tricks (0 up to the deal's size; the dealer may not make"
        " the bids add up to the size)",
        actions.PLAY: "play `card` to the trick: follow suit if you can, else trump if you can",
        PLAY_OWN_KIND: "forehead mode: play the one card you hold and cannot see",
    },
    events={
        events.DEAL: "a deal begins: `data.deal`, `size`, `first`, `dealer`, `trump` (a suit"
        " letter, null without trump); `cards` is the turned trump card",
        events.BID: "`seat` bid `data.number`",
        FOREHEADS: "forehead mode: the other seats' cards, which you see (`data.seats` says"
        " whose, in order)",
        events.SCORE: "a deal is scored: per seat `data.bids`, `tricks`, `points`, `totals`",
        events.END: "the match is over: `data.scores`, `winners`",
    },
)

#: ``play CARD`` by card index (``None`` where no French card has it): the table offers
#: and finds the very actions the Python state does.
_PLAYS_BY_INDEX = tuple(
    play_action(Card.from_index(i)) if 2 <= i % 16 <= 14 else None for i in range(64)
)


def at_the_table(state: GameState) -> GameState:
    """``state`` with its hot calls in C (:class:`~levata.engine.whist_table.WhistTable`):
    what :meth:`~levata.engine.contract.GameSpec.new_match` gives.

    >>> from levata.engine import game
    >>> plain = game("whist").new_match(players=4, seed=1, kernel=False)
    >>> fast = at_the_table(plain.clone())
    >>> fast.legal_actions(fast.to_act()[0]) == plain.legal_actions(plain.to_act()[0])
    True
    """
    if type(state) is not WhistState:
        return state  # a subclass may change a rule: the table plays WhistState's own
    return cast(GameState, WhistTable(state, _PLAYS_BY_INDEX, _BIDS))


SPEC = register(
    GameSpec(
        name="whist",
        title="Romanian Whist",
        players=(3, 4, 5, 6),
        summary="Bid exact tricks on every deal of the 1..8..1 schedule.",
        options=(
            Option(
                "one_card_mode",
                "normal",
                "one-card deals: normal, or forehead (see the others' cards, not your own)",
                choices=("normal", "forehead"),
            ),
            Option("zero_wins", True, "a final total of exactly 0 also wins"),
            Option(
                "must_trump",
                True,
                "a seat void in the led suit must trump if it can (off: it may discard)",
            ),
            Option(
                "scoring",
                ROMANIAN,
                "romanian (5 + bid if exact, else minus the miss; streaks) or oh_hell "
                "(tricks taken, plus 10 if exact)",
                choices=SCORINGS,
            ),
            Option(
                "deal_size",
                0,
                "0 plays the full schedule; 1-8 plays one deal of that many cards",
                minimum=0,
                maximum=8,
            ),
        ),
        factory=WhistState,
        duplicate_unit="deal_size",  # one deal of n cards: a duplicate board
        narrate=narrate,
        vocabulary=VOCABULARY,
        bots={
            "heuristic": "levata.bots.heuristic.whist:HeuristicBot",
            "pimc": "levata.bots.search.pimc:PimcBot",
        },
        strategy="levata.bots.strategy.whist:WhistStrategy",
        kernel_state=at_the_table,
    )
)
