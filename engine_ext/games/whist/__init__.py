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

from collections.abc import Sequence
from typing import Any

from levata.engine import actions, events, phases
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit, french_deck
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
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
    aim_playout,
    winning_card,
)
from levata.engine.fields import OMIT, Counter, Fact, Field, Kept, Seats
from levata.engine.playouts import aim_lines, aim_reach
from levata.engine.registry import register
from levata.engine.rules import TrickRules
from levata.engine.solver import Objective, Solver, exact
from levata.engine.solver import tricks as most_tricks

__all__ = [
    "SCORINGS",
    "WhistState",
    "counted_bid",
    "deal_points",
    "estimate_tricks",
    "schedule",
    "whist_deck",
    "whist_rules",
]

STREAK = 5  # deals in a row that earn the streak bonus or penalty
STREAK_POINTS = 10
#: Whist's own kinds: forehead mode's blind play, and what a seat sees of the others.
PLAY_OWN_KIND, FOREHEADS = "play_own", "foreheads"
PLAY_OWN = Action(PLAY_OWN_KIND)  # forehead mode: play the card you cannot see
#: The ``scoring`` option's values: Romanian Whist's, and Oh Hell's (tricks + 10 if exact).
ROMANIAN, OH_HELL = "romanian", "oh_hell"
SCORINGS = (ROMANIAN, OH_HELL)
OH_HELL_BONUS = 10


#: How much less likely a world is for each trick another seat's bid is off from what its
#: dealt hand takes when played to win (:meth:`WhistState.plausibility`).
BID_EVIDENCE = 0.5
#: How far a bid the seat can steer to in a world (against players who aim at their own
#: numbers) counts as made there, when the plain aiming playout misses it
#: (:meth:`WhistState.rate_calls`): 0 trusts the playout alone, 1 the seat's full control.
STEER = 0.75
#: The seat's own ways of steering on after a card or a bid (:meth:`WhistState.rate_lines`,
#: styles ``cheap + 2 * side + 4 * pace`` of :func:`~levata.engine.playouts.aim_lines`): the
#: aiming playout's (0) first; the cheapest winner rather than the strongest; a side-suit
#: lead rather than a trump; waiting while the tricks it needs are under half (pace 50) or
#: all (pace 100) of its cards left.
LINES = tuple(
    cheap + 2 * side + 4 * pace for pace in (0, 50, 100) for side in (0, 1) for cheap in (0, 1)
)


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


def estimate_tricks(hand: Sequence[Card], trump: Suit | None, players: int) -> float:
    """Expected tricks of a hand, counted the way a player sizes up his cards: what the
    heuristic bot bids from, and what the search reads the other seats' bids by
    (:meth:`WhistState.plausibility`, :meth:`WhistState.likely_bids`).

    >>> from levata.engine import parse_cards
    >>> round(estimate_tricks(parse_cards("AS KS AH 9C"), Suit.HEARTS, 4), 2)
    2.5
    """
    by_suit: dict[Suit, list[Card]] = {}
    for c in hand:
        by_suit.setdefault(c.suit, []).append(c)
    total = 0.0
    for suit, cards in by_suit.items():
        ranks = sorted((c.rank for c in cards), reverse=True)
        if suit == trump:
            # Every trump may take a trick; the top ones almost surely do.
            total += sum(1.0 if r >= 13 else 0.7 if r >= 11 else 0.45 for r in ranks)
            continue
        for i, r in enumerate(ranks):
            if r == 14:
                total += 0.9
            elif r == 13 and i >= 1:
                total += 0.6  # a guarded King
            elif r == 13:
                total += 0.3
            elif r == 12 and i >= 2:
                total += 0.25
    # Long side suits get ruffed when many players hold trumps.
    return total * (1.0 if players <= 4 else 0.85)


def counted_bid(
    hand: Sequence[Card], trump: Suit | None, players: int, legal: Sequence[int]
) -> int:
    """The bid of a player who counts his winners (:func:`estimate_tricks`): the legal
    number closest to the count, the lower of two as close.

    >>> from levata.engine import parse_cards
    >>> counted_bid(parse_cards("AS KS AH 9C"), Suit.HEARTS, 4, [0, 1, 2, 3, 4])
    2
    >>> counted_bid(parse_cards("AS KS AH 9C"), Suit.HEARTS, 4, [0, 1, 3, 4])  # 2.5 counted
    3
    """
    want = estimate_tricks(hand, trump, players)
    return min(legal, key=lambda b: (abs(b - want), b))


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
        if deal is not None and sorted(deal) != sorted(self.deck):
            raise BadConfig(f"the deal must be the {len(self.deck)}-card deck 'whist' uses")
        self.deal_index = -1
        self.first = self.rng.randrange(players)  # F of deal 1; F moves on each deal
        self.totals = [0] * players
        self.hits = [0] * players
        self.misses = [0] * players
        self.deal_log: list[dict[str, Any]] = []
        self._start_deal(list(deal) if deal is not None else None)

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
        self.set_trump(turned.suit if turned else None, turned)
        self.undealt = rest[1:] if turned else rest
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
        others = [t for t in range(self.players) if t != seat]  # seat sees all but its own
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
        return [Action(actions.BID, number=b) for b in self.legal_bids()]

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
        return [PLAY_OWN] if self.forehead else super()._play_actions(seat)

    def _card_of(self, seat: int, action: Action) -> Card | None:
        return self.hands[seat][0] if action == PLAY_OWN else super()._card_of(seat, action)

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
        self.deal_log.append(record)
        self._emit(events.SCORE, **record)
        if self.deal_index + 1 == len(self.schedule):
            self.over = True
            self.phase = phases.OVER
            res = self.result()
            self._emit(events.END, scores=list(res.scores), winners=list(res.winners))
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

    def result(self) -> Result:
        if not self.over:
            raise RuntimeError("the match is not over")
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

    def _hand_seen_by(self, seat: int) -> frozenset[int]:
        # A forehead card is seen by everyone but its owner.
        everyone = frozenset(range(self.players))
        return everyone - {seat} if self.forehead else frozenset({seat})

    def _view_hand(self, seat: int) -> tuple[Card, ...]:
        return () if self.forehead else super()._view_hand(seat)

    def _view_zones(self, seat: int) -> dict[str, tuple[Card, ...]]:
        zones = super()._view_zones(seat)
        if self.forehead:
            for t in range(self.players):
                if t != seat and self.hands[t]:
                    zones[f"hand:{t}"] = tuple(self.hands[t])
        return zones

    # In the order views show them: the deal's numbers (the base's ``leader`` after the
    # dealer), then each seat's bid, tricks and streaks together, seat by seat.
    FIELDS = (
        Counter("deal", "which deal of the match this is, from 1", attr="deal_no"),
        Counter(
            "deals",
            "how many deals the match has (21 for 3 players in the full schedule)",
            attr="deal_count",
            derived=True,
        ),
        Counter("size", "cards each seat was dealt this deal", attr="cards", derived=True),
        Counter("first", "the seat that bids first and leads the first trick this deal"),
        Counter("dealer", "the dealer, who bids last: the seat before `first`", derived=True),
        Counter("leader", TRICK_COUNTERS["leader"]),
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
        Kept("scores", "each seat's total so far (what a view's `scores` shows)", attr="totals"),
    )

    def _view_scores(self) -> tuple[float, ...]:
        return tuple(float(t) for t in self.totals)

    # -- what a seat plays for (read by search) ------------------------------------------------

    def search_goal(self, seat: int) -> Objective:
        """Once it has bid, a seat plays to end with exactly its bid."""
        bid = self.bids[seat]
        if bid is None:
            return super().search_goal(seat)
        return exact(seat, bid, already=self.tricks[seat])

    def rate_calls(self, seat: int, calls: Sequence[Action], solver: Solver) -> dict[Action, float]:
        """A bid is worth the deal's points it is expected to score in this world, from the
        tricks the seat really takes when it steers for a number, not the fewest it can
        guarantee against everyone.

        Every other seat aims at its bid (or, still to bid, at what it bids counting its
        winners, :meth:`likely_bids`, the dealer off the total the seat's bid leaves). The
        deal played out with ``seat`` aiming at the bid too
        (:func:`~levata.engine.family.tricks.aim_playout`) ends with some number of
        tricks; where that misses the bid but the bid is still within the seat's reach,
        some other line of its own ending there against the same players
        (:func:`~levata.engine.playouts.aim_reach`), the bid counts as made with weight
        ``STEER``: a searching player finds such lines, though not always without seeing
        the cards. The first of :meth:`rate_call_lines`.
        """
        return {a: v[0] for a, v in self.rate_call_lines(seat, calls, solver).items()}

    def rate_call_lines(
        self, seat: int, calls: Sequence[Action], solver: Solver
    ) -> dict[Action, list[float]]:
        """Each bid rated as in :meth:`rate_calls` once for each of the seat's own ways of
        steering for it (``LINES``, :func:`~levata.engine.playouts.aim_lines`; the first is
        the aiming playout's): a search sums each over worlds and takes a bid's best line."""
        if self.phase != phases.BIDDING:
            return {}
        scoring = self.options["scoring"]
        hands = [mask_of(h) for h in self.hands]
        reaches: dict[tuple[int, ...], int] = {}  # by the others' targets
        out: dict[Action, list[float]] = {}
        for a in calls:
            if a.number is None:
                continue
            bids = list(self.bids)
            bids[seat] = a.number  # the dealer, still to bid, may not have the bid it counts
            targets = self.likely_bids(bids)
            others = tuple(t if s != seat else 0 for s, t in enumerate(targets))
            if others not in reaches:
                reaches[others] = aim_reach(self.rules, hands, self.leader, (), others, seat)
            made = float(deal_points(a.number, a.number, scoring))
            values = []
            for took in aim_lines(self.rules, hands, self.leader, (), targets, seat, None, LINES):
                missed = float(deal_points(a.number, took, scoring))
                if took != a.number and reaches[others] >> a.number & 1:
                    missed = STEER * made + (1 - STEER) * missed
                values.append(missed)
            out[a] = values
        return out

    def plausibility(self, seat: int) -> float:
        """The other seats' bids read as evidence: each one that made its bid is taken to
        have bid about what its dealt hand takes when every seat plays to win (what a hand
        that counts its winners bids, :meth:`likely_bids`), and a world loses a factor
        ``BID_EVIDENCE`` for every trick a bid is off from that. A bid of 5 from a hand that
        takes 1 makes a world unlikely, not impossible: bidders misjudge, and bluff.

        >>> from levata.engine import game
        >>> import random
        >>> state = game("whist").new_match(players=3, options={"deal_size": 4}, seed=1)
        >>> state.apply(state.to_act()[0], Action("bid", number=4))
        >>> seat = state.to_act()[0]
        >>> worlds = [state.sample_world(seat, random.Random(k)) for k in range(6)]
        >>> all(0 < w.plausibility(seat) <= 1 for w in worlds)
        True
        """
        dealt = self.dealt_hands
        if dealt is None or self.forehead or all(b is None for b in self.bids):
            return 1.0
        off = 0
        made: list[int] = []  # the bids before, in bidding order
        for k in range(self.players):
            s = (self.first + k) % self.players
            b = self.bids[s]
            if b is None:
                break
            if s != seat:
                off += abs(b - self._counted(s, dealt[s], made))
            made.append(b)
        return float(BID_EVIDENCE**off)

    def _counted(self, seat: int, hand: Sequence[Card], made: Sequence[int]) -> int:
        """What ``seat`` bids from ``hand`` counting its winners, after the bids ``made``
        (the last bidder may not make them add up to the cards)."""
        c = self.cards
        legal: Sequence[int] = range(c + 1)
        if len(made) == self.players - 1:
            legal = [b for b in legal if sum(made) + b != c]
        return counted_bid(hand, self.trump, self.players, legal)

    def rate_cards(self, seat: int) -> dict[int, float]:
        """Each playable card worth the deal's points ``seat`` scores when, after it, the
        deal is played out with every seat aiming at its bid (:func:`aim_playout`); where
        that misses the bid but the bid stays within the seat's reach after the card
        (:func:`~levata.engine.playouts.aim_reach`), it counts as made with weight ``STEER``
        (as in :meth:`rate_calls`).

        >>> from levata.engine import game
        >>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=1)
        >>> for bid in (1, 0, 1):
        ...     state.apply(state.to_act()[0], Action("bid", number=bid))
        >>> seat = state.to_act()[0]
        >>> sorted(state.rate_cards(seat)) == sorted(c.index for c in state.playable(seat))
        True
        """
        if self.phase != phases.PLAYING or any(b is None for b in self.bids):
            return {}
        targets = [b if b is not None else 0 for b in self.bids]
        bid, scoring = targets[seat], self.options["scoring"]
        trick = [c for _, c in self.current]
        out: dict[int, float] = {}
        for card in self.playable(seat):
            hands = [list(h) for h in self.hands]
            hands[seat].remove(card)
            now = [*trick, card]
            took = aim_playout(self.rules, hands, self.leader, now, targets, self.tricks)[seat]
            missed = float(deal_points(bid, took, scoring))
            out[card.index] = missed
            if took != bid and hands[seat]:  # another line of its own may still make it
                lead, got = self.leader, list(self.tricks)
                if len(now) == self.players:  # the card ends the trick: on from its taker
                    lead = (lead + now.index(winning_card(self.rules, now))) % self.players
                    got[lead] += 1
                    now = []
                masks = [mask_of(h) for h in hands]
                if aim_reach(self.rules, masks, lead, now, targets, seat, got) >> bid & 1:
                    out[card.index] = STEER * deal_points(bid, bid, scoring) + (1 - STEER) * missed
        return out

    def rate_lines(self, seat: int) -> dict[int, list[float]]:
        """Each playable card valued as in :meth:`rate_cards`, once for each of the seat's
        own ways of steering on after it (``LINES``, :func:`~levata.engine.playouts.aim_lines`:
        the aiming playout's, the cheapest winner instead of the strongest, waiting while
        the tricks needed are under half or all of the cards left), every other seat aiming
        at its bid. The search values a card by its best line summed over worlds.

        >>> from levata.engine import game
        >>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=1)
        >>> for bid in (1, 0, 1):
        ...     state.apply(state.to_act()[0], Action("bid", number=bid))
        >>> seat = state.to_act()[0]
        >>> lines = state.rate_lines(seat)
        >>> sorted(lines) == sorted(c.index for c in state.playable(seat))
        True
        >>> all(len(v) == len(LINES) for v in lines.values())
        True
        """
        if self.phase != phases.PLAYING or any(b is None for b in self.bids):
            return {}
        targets = [b if b is not None else 0 for b in self.bids]
        bid, scoring = targets[seat], self.options["scoring"]
        made = float(deal_points(bid, bid, scoring))
        trick = [c for _, c in self.current]
        out: dict[int, list[float]] = {}
        for card in self.playable(seat):
            masks = [mask_of(h) for h in self.hands]
            masks[seat] &= ~(1 << card.index)
            now, lead, got = [*trick, card], self.leader, list(self.tricks)
            if len(now) == self.players:  # the card ends the trick: on from its taker
                lead = (lead + now.index(winning_card(self.rules, now))) % self.players
                got[lead] += 1
                now = []
            took = aim_lines(self.rules, masks, lead, now, targets, seat, got, LINES)
            reach = -1  # not yet read
            values = []
            for t in took:
                missed = float(deal_points(bid, t, scoring))
                if t != bid and masks[seat]:  # another line of its own may still make it
                    if reach < 0:
                        reach = aim_reach(self.rules, masks, lead, now, targets, seat, got)
                    if reach >> bid & 1:
                        missed = STEER * made + (1 - STEER) * missed
                values.append(missed)
            out[card.index] = values
        return out

    def likely_bids(self, bids: Sequence[int | None] | None = None) -> list[int]:
        """The bids made (``bids``, by default the deal's), and for the seats still to bid
        what they bid in this world counting their winners (:func:`counted_bid`), in
        bidding order: the dealer, last, may not make them add up to the cards."""
        bids = list(self.bids if bids is None else bids)
        made: list[int] = []
        for k in range(self.players):
            s = (self.first + k) % self.players
            b = bids[s]
            if b is None:
                b = bids[s] = self._counted(s, self.hands[s], made)
            made.append(b)
        return [int(b) for b in bids if b is not None]

    def likely_tricks(self, seat: int, solver: Solver) -> int:
        """The most tricks ``seat`` can be sure of in this world against everyone else (the
        paranoid double-dummy value: a lower bound, what the first PIMC bid from)."""
        hands = [mask_of(h) for h in self.hands]
        return solver.solve(hands, self.leader, (), most_tricks(seat))

    # -- a world rebuilt from a view (the trick base deals the cards) ------------------------

    def _settle(self) -> None:
        size = self.options["deal_size"]
        self.schedule = [size] if size else schedule(self.players)
        self.deck = whist_deck(self.players)
        self.deal_log = []  # a position carries no history: the deals scored from it on

    def _after_restore(self, view: SeatView) -> None:
        self.totals = [int(t) for t in view.scores]  # a view shows them as its scores
        self.deal_log = [dict(ev.data) for ev in view.history if ev.kind == events.SCORE]

    def _is_hand_event(self, event: Event) -> bool:
        return event.kind == FOREHEADS or super()._is_hand_event(event)

    def _hidden_hand_event(self, seq: int, seat: int, own: Event, dealt: list[list[Card]]) -> Event:
        if own.kind != FOREHEADS:
            return super()._hidden_hand_event(seq, seat, own, dealt)
        others = [t for t in range(self.players) if t != seat]
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
    )
)
