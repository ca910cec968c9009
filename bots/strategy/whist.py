"""Whist's strategy: how a hand is sized up, what the other seats' bids say, and what a bid or
a card is worth to a seat that steers for its number (``docs/games/whist.md``, "Bots").

* :func:`estimate_tricks` / :func:`counted_bid`: a player who counts his winners, what the
  heuristic bot bids and what the search takes the other seats to bid;
* :class:`WhistStrategy`: the search's view of one world. A seat that has bid plays for
  exactly its bid; the other seats' bids weigh the world (:meth:`~WhistStrategy.plausibility`);
  bids and cards are worth the deal's points when every seat steers for its number
  (:func:`~levata.bots.strategy.aim_playout`, and the kernel's ``aim_reach`` / ``aim_lines``).

>>> from levata.engine import game
>>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=1)
>>> seat = state.to_act()[0]
>>> rated = WhistStrategy().rate_calls(state, seat, state.legal_actions(seat), None)
>>> sorted(a.number for a in rated)
[0, 1, 2, 3]
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence

from levata.bots.inference import played_this_deal
from levata.bots.strategy import DealValues, Strategy, aim_playout, deal_tricks
from levata.engine import SeatView, phases
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.family.tricks import TrickGame, winning_card
from levata.engine.games.whist import WhistState, deal_points
from levata.engine.playouts import aim_lines, aim_reach
from levata.engine.solver import Objective, Solver, exact
from levata.engine.worlds import Likelihood

__all__ = [
    "BID_EVIDENCE",
    "LINES",
    "STEER",
    "TRUST",
    "WhistStrategy",
    "counted_bid",
    "estimate_tricks",
    "winner_count",
]

#: How much less likely a world is for each trick another seat's bid is off from what its
#: dealt hand takes when played to win (:meth:`WhistStrategy.plausibility`).
BID_EVIDENCE = 0.5
#: How often another seat is taken to bid as a counting bidder does (:func:`counted_bid`),
#: by the search's ``bidders`` option (:meth:`WhistStrategy.assuming`); otherwise it bids
#: any legal number alike. ``counting`` trusts the count; ``unknown`` (a table of another
#: style: the heuristic's count is a fair guess of a sound bidder, but not its rule) half;
#: ``random``, not at all.
TRUST = {"counting": 1.0, "unknown": 0.5, "random": 0.0}
#: How much a counted bid's spread (1 + 2(1/2 + 1/4 + ...) = 3 numbers' worth, at
#: ``BID_EVIDENCE`` 0.5) outweighs one number of a bidder who bids any of them alike: the
#: weight of "any number", against 1 for a bid on the count, is this over the numbers.
SPREAD = 3.0
#: How far a bid the seat can steer to in a world (against players who aim at their own
#: numbers) counts as made there, when the plain aiming playout misses it
#: (:meth:`WhistStrategy.rate_calls`): 0 trusts the playout alone, 1 the seat's full control.
STEER = 0.75
#: The seat's own ways of steering on after a card or a bid (:meth:`WhistStrategy.rate_lines`,
#: styles ``cheap + 2 * side + 4 * pace`` of :func:`~levata.engine.playouts.aim_lines`): the
#: aiming playout's (0) first; the cheapest winner rather than the strongest; a side-suit
#: lead rather than a trump; waiting while the tricks it needs are under half (pace 50) or
#: all (pace 100) of its cards left.
LINES = tuple(
    cheap + 2 * side + 4 * pace for pace in (0, 50, 100) for side in (0, 1) for cheap in (0, 1)
)


def estimate_tricks(hand: Sequence[Card], trump: Suit | None, players: int) -> float:
    """Expected tricks of a hand, counted the way a player sizes up his cards: what the
    heuristic bot bids from, and what the search reads the other seats' bids by
    (:meth:`WhistStrategy.plausibility`, :meth:`WhistStrategy.likely_bids`).

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


def winner_count(deck: Sequence[Card], trump: Suit | None, players: int) -> Callable[[int], float]:
    """:func:`estimate_tricks` of a hand given as a card mask, for the cards of ``deck``: a
    few bit counts (what reading every candidate deal's bids needs).

    >>> from levata.engine import parse_cards
    >>> from levata.engine.games.whist import whist_deck
    >>> count = winner_count(whist_deck(4), Suit.HEARTS, 4)
    >>> round(count(mask_of(parse_cards("AS KS AH 9C"))), 2)
    2.5
    """

    def cards(rule: Callable[[Card], bool]) -> int:
        return mask_of(c for c in deck if rule(c))

    trumps = cards(lambda c: c.suit == trump)
    top, middle = (
        trumps & cards(lambda c: c.rank >= 13),
        trumps & cards(lambda c: c.rank in (11, 12)),
    )
    low = trumps & ~top & ~middle
    sides = [cards(lambda c, x=x: c.suit == x) for x in Suit if x != trump]  # type: ignore[misc]
    aces, kings, queens = (cards(lambda c, r=r: c.rank == r) for r in (14, 13, 12))  # type: ignore[misc]
    scale = 1.0 if players <= 4 else 0.85

    def count(hand: int) -> float:
        total = 1.0 * (hand & top).bit_count() + 0.7 * (hand & middle).bit_count()
        total += 0.45 * (hand & low).bit_count()
        for side in sides:
            held = hand & side
            if held:
                ace, king = bool(held & aces), bool(held & kings)
                total += 0.9 * ace + (0.6 if ace else 0.3) * king
                total += 0.25 * (ace and king and bool(held & queens))
        return total * scale

    return count


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


class WhistStrategy(Strategy):
    """Whist for the search bots: exact bids, bids read as evidence, steering playouts.

    ``bidders`` (one of ``BIDDERS``): what the other seats' bids are taken to be, both
    those made (:meth:`plausibility`) and those to come (:meth:`likely_bids`): a counting
    bidder's (``counting``, the default), one's half the time and any legal number else
    (``unknown``), or any legal number (``random``); ``TRUST``.

    >>> WhistStrategy().assuming("unknown").trust
    0.5
    """

    def __init__(self, bidders: str = "counting") -> None:
        self.bidders = bidders
        self.trust = TRUST[bidders]

    def assuming(self, bidders: str) -> Strategy:
        super().assuming(bidders)  # a known assumption
        return self if bidders == self.bidders else _assuming(bidders)

    def goal(self, world: TrickGame, seat: int) -> Objective:
        """Once it has bid, a seat plays to end with exactly its bid."""
        assert isinstance(world, WhistState)
        bid = world.bids[seat]
        if bid is None:
            return super().goal(world, seat)
        return exact(seat, bid, already=world.tricks[seat])

    def deal_values(self, world: TrickGame) -> DealValues:
        """Each seat's deal points by the tricks it ends with: the bid-based score of the
        match's ``scoring`` (streaks aside: they span deals).

        >>> from levata.engine import Action, game
        >>> w = game("whist").new_match(players=3, options={"deal_size": 3}, seed=1)
        >>> for bid in (0, 2, 0):
        ...     w.apply(w.to_act()[0], Action("bid", number=bid))
        >>> WhistStrategy().deal_values(w).by_tricks[w.bids.index(2)]
        [-2.0, -1.0, 7.0, -1.0]
        """
        assert isinstance(world, WhistState)
        size = deal_tricks(world)
        scoring = world.options["scoring"]
        rows = [
            [float(deal_points(bid, k, scoring)) for k in range(size + 1)]
            for bid in (b if b is not None else 0 for b in world.bids)
        ]
        return DealValues(rows, [0.0] * world.players)

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        """A bid is worth the deal's points it is expected to score in this world, from the
        tricks the seat really takes when it steers for a number, not the fewest it can
        guarantee against everyone.

        Every other seat aims at its bid (or, still to bid, at what it bids counting its
        winners, :meth:`likely_bids`, the dealer off the total the seat's bid leaves). The
        deal played out with ``seat`` aiming at the bid too
        (:func:`~levata.bots.strategy.aim_playout`) ends with some number of tricks; where
        that misses the bid but the bid is still within the seat's reach, some other line of
        its own ending there against the same players
        (:func:`~levata.engine.playouts.aim_reach`), the bid counts as made with weight
        ``STEER``: a searching player finds such lines, though not always without seeing
        the cards. The first of :meth:`rate_call_lines`.
        """
        return {a: v[0] for a, v in self.rate_call_lines(world, seat, calls, solver).items()}

    def rate_call_lines(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, list[float]]:
        """Each bid rated as in :meth:`rate_calls` once for each of the seat's own ways of
        steering for it (``LINES``, :func:`~levata.engine.playouts.aim_lines`; the first is
        the aiming playout's): a search sums each over worlds and takes a bid's best line."""
        assert isinstance(world, WhistState)
        if world.phase != phases.BIDDING:
            return {}
        scoring = world.options["scoring"]
        hands = [mask_of(h) for h in world.hands]
        reaches: dict[tuple[int, ...], int] = {}  # by the others' targets
        out: dict[Action, list[float]] = {}
        for a in calls:
            if a.number is None:
                continue
            bids = list(world.bids)
            bids[seat] = a.number  # the dealer, still to bid, may not have the bid it counts
            targets = self.likely_bids(world, bids)
            others = tuple(t if s != seat else 0 for s, t in enumerate(targets))
            if others not in reaches:
                reaches[others] = aim_reach(world.rules, hands, world.leader, (), others, seat)
            made = float(deal_points(a.number, a.number, scoring))
            values = []
            for took in aim_lines(world.rules, hands, world.leader, (), targets, seat, None, LINES):
                missed = float(deal_points(a.number, took, scoring))
                if took != a.number and reaches[others] >> a.number & 1:
                    missed = STEER * made + (1 - STEER) * missed
                values.append(missed)
            out[a] = values
        return out

    def plausibility(self, world: TrickGame, seat: int) -> float:
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
        >>> all(0 < WhistStrategy().plausibility(w, seat) <= 1 for w in worlds)
        True
        """
        assert isinstance(world, WhistState)
        dealt = world.dealt_hands
        if dealt is None or world.forehead or all(b is None for b in world.bids):
            return 1.0
        return _bid_weight(world, seat, dealt, self.trust)

    def call_likelihood(self, view: SeatView, world: TrickGame) -> Likelihood | None:
        """The bids read as :meth:`plausibility` reads them, from the hands of a draw: each
        seat was dealt its hand now and the cards it played this deal."""
        assert isinstance(world, WhistState)
        if world.forehead or all(b is None for b in world.bids):
            return None
        played = played_this_deal(view)
        count = winner_count(world.deck, world.trump, world.players)
        order = [(world.first + k) % world.players for k in range(world.players)]
        bids = [(s, b) for s, b in ((s, world.bids[s]) for s in order) if b is not None]
        seat, c = view.seat, world.cards
        # What each seat's counted bid is measured against (the dealer's forbidden one aside).
        made = [sum(b for _, b in bids[:k]) for k in range(len(bids))]

        legal = [
            [x for x in range(c + 1) if k < world.players - 1 or made[k] + x != c]
            for k in range(len(bids))
        ]
        read = [(s, b, legal[k]) for k, (s, b) in enumerate(bids) if s != seat]
        trust = self.trust

        def likelihood(hands: Sequence[int]) -> float:
            if trust == 1.0:
                off = 0
                for s, b, allowed in read:
                    want = count(hands[s] | played[s])
                    off += abs(b - min(allowed, key=lambda x: (abs(x - want), x)))
                return float(BID_EVIDENCE**off)
            weight = 1.0
            for s, b, allowed in read:
                want = count(hands[s] | played[s])
                counted = min(allowed, key=lambda x: (abs(x - want), x))
                weight *= _bid_read(abs(b - counted), trust, len(allowed))
            return weight

        return likelihood

    def wants_trick(
        self, world: TrickGame, seat: int, taken: list[int], winner: int | None
    ) -> bool | None:
        """A seat short of its bid wants the trick, one that has made it does not (the
        heuristic's and ``aim_playout``'s rule); before its bid, no word."""
        assert isinstance(world, WhistState)
        bid = world.bids[seat]
        if bid is None or world.forehead:
            return None
        return taken[seat] < bid

    def rate_cards(self, world: TrickGame, seat: int) -> dict[int, float]:
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
        >>> rated = WhistStrategy().rate_cards(state, seat)
        >>> sorted(rated) == sorted(c.index for c in state.playable(seat))
        True
        """
        assert isinstance(world, WhistState)
        if world.phase != phases.PLAYING or any(b is None for b in world.bids):
            return {}
        targets = [b if b is not None else 0 for b in world.bids]
        bid, scoring = targets[seat], world.options["scoring"]
        trick = [c for _, c in world.current]
        out: dict[int, float] = {}
        for card in world.playable(seat):
            hands = [list(h) for h in world.hands]
            hands[seat].remove(card)
            now = [*trick, card]
            took = aim_playout(world.rules, hands, world.leader, now, targets, world.tricks)[seat]
            missed = float(deal_points(bid, took, scoring))
            out[card.index] = missed
            if took != bid and hands[seat]:  # another line of its own may still make it
                lead, got = world.leader, list(world.tricks)
                if len(now) == world.players:  # the card ends the trick: on from its taker
                    lead = (lead + now.index(winning_card(world.rules, now))) % world.players
                    got[lead] += 1
                    now = []
                masks = [mask_of(h) for h in hands]
                if aim_reach(world.rules, masks, lead, now, targets, seat, got) >> bid & 1:
                    out[card.index] = STEER * deal_points(bid, bid, scoring) + (1 - STEER) * missed
        return out

    def rate_lines(self, world: TrickGame, seat: int) -> dict[int, list[float]]:
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
        >>> lines = WhistStrategy().rate_lines(state, seat)
        >>> sorted(lines) == sorted(c.index for c in state.playable(seat))
        True
        >>> all(len(v) == len(LINES) for v in lines.values())
        True
        """
        assert isinstance(world, WhistState)
        if world.phase != phases.PLAYING or any(b is None for b in world.bids):
            return {}
        targets = [b if b is not None else 0 for b in world.bids]
        bid, scoring = targets[seat], world.options["scoring"]
        made = float(deal_points(bid, bid, scoring))
        trick = [c for _, c in world.current]
        out: dict[int, list[float]] = {}
        for card in world.playable(seat):
            masks = [mask_of(h) for h in world.hands]
            masks[seat] &= ~(1 << card.index)
            now, lead, got = [*trick, card], world.leader, list(world.tricks)
            if len(now) == world.players:  # the card ends the trick: on from its taker
                lead = (lead + now.index(winning_card(world.rules, now))) % world.players
                got[lead] += 1
                now = []
            took = aim_lines(world.rules, masks, lead, now, targets, seat, got, LINES)
            reach = -1  # not yet read
            values = []
            for t in took:
                missed = float(deal_points(bid, t, scoring))
                if t != bid and masks[seat]:  # another line of its own may still make it
                    if reach < 0:
                        reach = aim_reach(world.rules, masks, lead, now, targets, seat, got)
                    if reach >> bid & 1:
                        missed = STEER * made + (1 - STEER) * missed
                values.append(missed)
            out[card.index] = values
        return out

    def likely_bids(self, world: WhistState, bids: Sequence[int | None] | None = None) -> list[int]:
        """The bids made (``bids``, by default the deal's), and for the seats still to bid
        what they bid in ``world`` counting their winners (:func:`counted_bid`), in bidding
        order: the dealer, last, may not make them add up to the cards.

        Under a ``TRUST`` below 1 a seat still to bid bids its count with that chance and
        otherwise, under ``random``, any legal number alike, under ``unknown`` one off the
        count either way (a sound bidder of another style sizes a hand about as the count
        does; any number would raise the bids to come towards half the cards, above what
        tables bid). The draws come from the world's own cards: in one world every bid of
        the searching seat meets the same bids to come (the dealer's answer aside), and
        the search's many worlds spread them.

        >>> from levata.engine import game
        >>> w = game("whist").new_match(players=4, options={"deal_size": 7}, seed=3)
        >>> WhistStrategy().likely_bids(w)
        [2, 2, 2, 3]
        >>> WhistStrategy("random").likely_bids(w) == WhistStrategy("random").likely_bids(w)
        True
        """
        bids = list(world.bids if bids is None else bids)
        draw = None if self.trust == 1.0 else random.Random(_cards_seed(world))
        made: list[int] = []
        for k in range(world.players):
            s = (world.first + k) % world.players
            b = bids[s]
            if b is None:
                b = bids[s] = _counted(world, world.hands[s], made)
                if draw is not None:  # the two draws are made whatever they decide
                    counts, pick = draw.random() < self.trust, draw.random()
                    if not counts:
                        b = bids[s] = _off_count(b, _legal(world, made), pick, self.trust)
            made.append(b)
        return [int(b) for b in bids if b is not None]


@functools.cache
def _assuming(bidders: str) -> WhistStrategy:
    """One strategy per assumption: it holds no state of its own."""
    return WhistStrategy(bidders)


def _cards_seed(world: WhistState) -> int:
    """A seed from the world's hands and its first bidder (hashes of ints are the same in
    every process): the same world draws the same bids to come."""
    return hash((world.first, *(mask_of(h) for h in world.hands))) & 0xFFFF_FFFF


def _off_count(counted: int, legal: Sequence[int], pick: float, trust: float) -> int:
    """A bid to come off the ``counted`` one (:meth:`WhistStrategy.likely_bids`) by a
    uniform ``pick``: any ``legal`` number for a bidder who trusts no count (``trust`` 0),
    else one below or above it (the count itself where neither is legal).

    >>> _off_count(2, range(8), 0.1, 0.5), _off_count(2, range(8), 0.9, 0.5)
    (1, 3)
    >>> _off_count(0, range(8), 0.1, 0.5), _off_count(2, range(8), 0.1, 0.0)
    (1, 0)
    """
    if trust == 0.0:
        return legal[int(pick * len(legal))]
    near = [b for b in (counted - 1, counted + 1) if b in legal]
    return near[int(pick * len(near))] if near else counted


def _bid_read(off: int, trust: float, numbers: int) -> float:
    """How likely a bid ``off`` tricks from the counted one is, relative to one on it, from a
    seat that counts with chance ``trust`` and bids any of its ``numbers`` legal numbers
    alike otherwise (``SPREAD``).

    >>> _bid_read(2, 1.0, 8), _bid_read(2, 0.0, 8), _bid_read(0, 0.5, 8) > _bid_read(3, 0.5, 8)
    (0.25, 0.375, True)
    """
    return trust * BID_EVIDENCE**off + (1 - trust) * SPREAD / numbers


def _bid_weight(
    world: WhistState, seat: int, dealt: Sequence[Sequence[Card]], trust: float = 1.0
) -> float:
    """``BID_EVIDENCE`` to the number of tricks the other seats' bids are off their counted
    bids from ``dealt`` (:meth:`WhistStrategy.plausibility`); under a ``trust`` below 1,
    each bid read as :func:`_bid_read` reads it."""
    if trust == 0.0:
        return 1.0  # any bid from any hand alike
    off, weight = 0, 1.0
    made: list[int] = []  # the bids before, in bidding order
    for k in range(world.players):
        s = (world.first + k) % world.players
        b = world.bids[s]
        if b is None:
            break
        if s != seat:
            miss = abs(b - _counted(world, dealt[s], made))
            off += miss
            if trust != 1.0:
                weight *= _bid_read(miss, trust, len(_legal(world, made)))
        made.append(b)
    return float(BID_EVIDENCE**off) if trust == 1.0 else weight


def _legal(world: WhistState, made: Sequence[int]) -> Sequence[int]:
    """The numbers a seat may bid after the bids ``made`` (the last bidder may not make them
    add up to the cards)."""
    c = world.cards
    if len(made) == world.players - 1:
        return [b for b in range(c + 1) if sum(made) + b != c]
    return range(c + 1)


def _counted(world: WhistState, hand: Sequence[Card], made: Sequence[int]) -> int:
    """What a seat bids from ``hand`` counting its winners, after the bids ``made`` (the
    last bidder may not make them add up to the cards)."""
    return counted_bid(hand, world.trump, world.players, _legal(world, made))
