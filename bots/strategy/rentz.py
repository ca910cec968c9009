"""Rentz's strategy: how a hand is sized up for each sub-game, how a card player plays each
one, and what the search bots ask of a world (``docs/games/rentz.md``, "Bots").

* :func:`pick_values`: what a hand is worth in each sub-game against an average hand; the
  heuristic bot picks the best of its open sub-games;
* :func:`trick_card` / :func:`lay_card`: a card player's card in a trick sub-game (duck under
  the winning card when avoiding, dump the dangerous cards when void, win cheaply when taking)
  and in the domino (aces for the extra turn, cards that free its own next cards, keep the
  ones that block others);
* :func:`play_out`: a world played to the end of its deal by that policy, each seat's points;
* :class:`RentzStrategy`: the search's view of one world. In Whist and Ten of Clubs the seat
  plays against the rest for the sub-game's points (the solver's objective); the sub-games it
  avoids, the domino's cards and the pick of a sub-game are rated by playing the world out
  (:func:`play_out`) after each: the two-sided solver maximises what a side takes, and
  "take the least against everyone" is not such an objective.

>>> from levata.engine import game
>>> state = game("rentz").new_match(players=4, options={"deal": 8}, seed=2)
>>> seat = state.to_act()[0]
>>> state.apply(seat, state.legal_actions(seat)[0])  # rentz, the domino
>>> seat = state.to_act()[0]
>>> rated = RentzStrategy().rate_calls(state, seat, state.legal_actions(seat), None)
>>> set(rated) == set(state.legal_actions(seat))
True
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from levata.bots.strategy import Strategy
from levata.engine import phases
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.family.tricks import TrickGame, duty_cards, winning_card
from levata.engine.games.rentz import CHOOSE, DOMINO, LAY, RentzState
from levata.engine.games.rentz.domino import ACE, JACK, Rows, next_holder, rows_of, valid_cards
from levata.engine.games.rentz.subgames import (
    DIAMONDS,
    ENDS_WITH,
    KING_OF_HEARTS,
    QUEENS,
    RENTZ,
    TAKING,
    TEN_OF_CLUBS,
    TOTALS,
    TRICKS,
    WHIST,
    PointTable,
    card_values,
    per_trick,
)
from levata.engine.solver import Objective, Solver, points

__all__ = [
    "PLAYOUTS",
    "RentzStrategy",
    "lay_card",
    "pick_values",
    "play_out",
    "trick_card",
    "trick_strength",
]

#: Playouts per call and world when the search rates a pick or a domino card.
PLAYOUTS = 4
KING_HEARTS, TEN_CLUBS = ENDS_WITH[KING_OF_HEARTS], ENDS_WITH[TEN_OF_CLUBS]


# -- sizing up a hand --------------------------------------------------------------------------


def trick_strength(hand: Sequence[Card], players: int, low: int) -> float:
    """Tricks a hand is likely to take with no trump, the way a player counts winners:
    an ace almost always, a king or queen with guards, a long suit's last cards.

    >>> from levata.engine import parse_cards
    >>> trick_strength(parse_cards("AS KS QS 7H 8H 9H 7D 8D"), 4, 7) > 2.5
    True
    """
    total = 0.0
    for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES):
        ranks = sorted((c.rank for c in hand if c.suit == suit), reverse=True)
        for i, r in enumerate(ranks):
            gap = ACE - r  # higher cards of the suit out against it
            if gap <= i:  # as many guards as higher cards: a sure winner
                total += 0.95
            elif gap == i + 1:
                total += 0.5
            elif gap == i + 2:
                total += 0.2
        total += 0.15 * max(0, len(ranks) - 3)  # long suits run
        total += 0.02 * sum(r - low for r in ranks)  # high cards win the odd trick
    return total


def _risk_of(card: Card, hand: Sequence[Card]) -> float:
    """How likely a card given to avoid ends in its holder's tricks (few low cards of its
    suit to duck with: likely)."""
    lower = sum(1 for c in hand if c.suit == card.suit and c.rank < card.rank)
    return {0: 0.75, 1: 0.45, 2: 0.25}.get(lower, 0.12) * (0.6 + 0.4 * (card.rank / ACE))


def pick_values(
    hand: Sequence[Card], games: Sequence[str], players: int, low: int, table: PointTable
) -> dict[str, float]:
    """Each of ``games`` valued for ``hand``: the points it is expected to score with this
    hand minus what an average hand scores there. The pick is the best of them: play each
    sub-game with the hand that suits it.

    >>> from levata.engine import parse_cards
    >>> strong = parse_cards("AS KS QS AH KH AD KD AC")
    >>> v = pick_values(strong, [WHIST, TRICKS], 4, 7, PointTable())
    >>> v[WHIST] > 0 > v[TRICKS]
    True
    """
    n = players
    share = 8 / n  # tricks of an average hand
    took = trick_strength(hand, n, low) / _average_hand(n, low)[0]  # of an average hand's
    out: dict[str, float] = {}
    for g in games:
        if g == RENTZ:
            out[g] = _rentz_value(hand, n, low, table)
            continue
        if g in (WHIST, TRICKS):
            out[g] = per_trick(g, table) * share * (took - 1)
            continue
        if g == TEN_OF_CLUBS:
            out[g] = table.ten_clubs * (_ten_chance(hand, n) - 1 / n)
            continue
        values = card_values(g, table)
        v = 0.0
        for card, pts in values.items():
            if card.rank < low:  # cut from the deck at this table
                continue
            mine = card in hand
            p = _risk_of(card, hand) if mine else min(0.9, took / n)
            v += pts * (p - 1 / n)
        if g == TOTALS:
            v += -table.trick * share * (took - 1)
        out[g] = v
    return out


@functools.cache
def _average_hand(players: int, low: int) -> tuple[float, float]:
    """An average hand's :func:`trick_strength` and Rentz ease (over fixed random deals)."""
    deck = [Card(s, r) for s in Suit if not s.italian for r in range(low, ACE + 1)]
    rng = random.Random(players)
    strength = ease = 0.0
    for _ in range(200):
        hand = rng.sample(deck, 8)
        strength += trick_strength(hand, players, low)
        ease += _ease(hand)
    return strength / 200, ease / 200


def _ten_chance(hand: Sequence[Card], players: int) -> float:
    clubs = sorted((c.rank for c in hand if c.suit == Suit.CLUBS), reverse=True)
    if TEN_CLUBS in hand:
        above = sum(1 for r in clubs if r > 10)
        return min(0.9, 0.35 + 0.15 * above + 0.05 * len(clubs))
    high = sum(1 for r in clubs if r > 10)
    return min(0.7, (1 + 1.5 * high) / (players + 1.5))


def _rentz_value(hand: Sequence[Card], players: int, low: int, table: PointTable) -> float:
    """Jacks and the cards next to them shed early; cards far from the jacks wait; aces
    play twice."""
    mean = sum(table.place_points(k, players) for k in range(1, players + 1)) / players
    return mean * 0.25 * (_ease(hand) - _average_hand(players, low)[1])


def _ease(hand: Sequence[Card]) -> float:
    ease = 0.0
    for c in hand:
        dist = abs(c.rank - JACK)
        ease += {0: 2.0, 1: 1.0, 2: 0.3}.get(dist, -0.3 * (dist - 2))
        if c.rank == ACE:
            ease += 0.8
    return ease


# -- playing a card ----------------------------------------------------------------------------


def _danger(card: Card, game: str) -> float:
    """What giving ``card`` away costs a seat avoiding ``game``'s cards (higher: dump first)."""
    d = card.rank / 20.0
    if game in (KING_OF_HEARTS, TOTALS) and card == KING_HEARTS:
        d += 10.0
    if game in (KING_OF_HEARTS, TOTALS) and card.suit == Suit.HEARTS and card.rank == ACE:
        d += 3.0
    if game in (QUEENS, TOTALS) and card.rank == 12:
        d += 4.0
    if game in (QUEENS, TOTALS) and card.rank > 12:
        d += 1.5
    if game in (DIAMONDS, TOTALS) and card.suit == Suit.DIAMONDS:
        d += 2.0 + card.rank / 10.0
    return d


def trick_card(
    game: str, allowed: Sequence[Card], trick: Sequence[Card], hand: Sequence[Card], players: int
) -> Card:
    """A card player's card in a trick sub-game (``trick``: the cards played to it so far).

    Avoiding (every sub-game but Whist and Ten of Clubs): following, the highest card that
    still loses, else (sure to win) the highest; void, the most dangerous card; leading, a
    low card of a suit it can duck in. Taking (Whist, Ten of Clubs): win with the cheapest
    winner when last, the strongest before; never throw the 10♣ away.

    >>> from levata.engine import parse_cards
    >>> str(trick_card(QUEENS, parse_cards("9S KS"), parse_cards("10S"), parse_cards("9S KS"), 4))
    '9S'
    >>> str(trick_card(QUEENS, parse_cards("QH 7C"), parse_cards("10S"), parse_cards("QH 7C"), 4))
    'QH'
    """
    cards = list(allowed)
    if game in TAKING:
        return _take_card(game, cards, trick, players)
    if not trick:
        # Lead the lowest card of the suit where it has the most low cards to duck with.
        def lead_key(c: Card) -> tuple[float, int]:
            same = [x for x in hand if x.suit == c.suit]
            lower = sum(1 for x in same if x.rank < c.rank)
            return (_danger(c, game) * 0.2 + c.rank - 0.3 * len(same) + 0.5 * lower, c.rank)

        return min(cards, key=lead_key)
    best = winning_card_no_trump(trick)
    if cards[0].suit != trick[0].suit:  # void: dump the most dangerous card
        return max(cards, key=lambda c: (_danger(c, game), c.rank))
    losers = [c for c in cards if c.rank < best.rank or best.suit != trick[0].suit]
    if losers:
        return max(losers, key=lambda c: c.rank)
    if len(trick) == players - 1:  # last and winning anyway: shed the highest
        return max(cards, key=lambda c: (_danger(c, game), c.rank))
    return min(cards, key=lambda c: c.rank)


def winning_card_no_trump(trick: Sequence[Card]) -> Card:
    """The card winning a trick with no trump: the highest of the led suit."""
    led = trick[0].suit
    return max((c for c in trick if c.suit == led), key=lambda c: c.rank)


def _take_card(game: str, cards: list[Card], trick: Sequence[Card], players: int) -> Card:
    ten = TEN_CLUBS if game == TEN_OF_CLUBS else None
    rest = [c for c in cards if c != ten] or cards  # the ten is kept for a trick it wins
    if not trick:
        return max(rest, key=lambda c: c.rank)
    best = winning_card_no_trump(trick)
    led, last = trick[0].suit, len(trick) == players - 1
    winners = [c for c in cards if c.suit == led and c.rank > best.rank]
    wanted = game == WHIST or ten in trick or (ten in winners and last)
    if winners and wanted:
        if ten in winners and last:
            return TEN_CLUBS
        return min(winners, key=lambda c: c.rank) if last else max(winners, key=lambda c: c.rank)
    return min(rest, key=lambda c: c.rank)


def lay_card(valid: Sequence[Card], hand: Sequence[Card], rows: Rows, low: int) -> Card:
    """A card player's card in the domino: an ace (another turn); a card that frees its own
    next cards; the lowest card (the next seat loses its turn); least of all a card that
    frees cards only others hold (keeping it blocks them).

    >>> from levata.engine import parse_cards
    >>> hand = parse_cards("JS 10S 9S JH")
    >>> str(lay_card(parse_cards("JS JH"), hand, {}, 7))
    'JS'
    """
    held = set(hand)

    def chain(card: Card, step: int) -> int:
        k, r = 0, card.rank + step
        while low <= r <= ACE and Card(card.suit, r) in held:
            k, r = k + 1, r + step
        return k

    def value(card: Card) -> float:
        run = rows.get(card.suit)
        if run is None:  # a jack opens both ways
            mine = chain(card, -1) + chain(card, 1)
            freed = 2
        elif card.rank < run[0]:
            mine, freed = chain(card, -1), 1 if card.rank > low else 0
        else:
            mine, freed = chain(card, 1), 1 if card.rank < ACE else 0
        others = max(0, freed - min(freed, mine))  # opens a way only others may use
        v = 3.0 * mine - 1.5 * others
        if card.rank == ACE:
            v += 4.0
        if card.rank == low:
            v += 1.5
        return v

    return max(valid, key=lambda c: (value(c), -c.rank if c.rank < JACK else c.rank))


# -- a world played out ------------------------------------------------------------------------


def play_out(
    world: RentzState,
    rng: random.Random,
    first: Card | None = None,
    epsilon: float = 0.1,
    game: str | None = None,
) -> list[int]:
    """Play ``world`` (a full state, in a trick or domino sub-game) to the end of its deal by
    the policy above (a share ``epsilon`` of random cards, so playouts differ), the seat to
    act starting with ``first`` when given; each seat's points of the deal. ``game``: the
    sub-game to play a world still at its pick in (nothing played yet)."""
    n = world.players
    game = game or world.subgame
    assert game is not None
    hands = [list(h) for h in world.hands]
    if game == RENTZ:
        return _domino_out(world, hands, rng, epsilon, first)
    trick = list(world.trick)
    lead = world.leader
    taken = [list(t) for t in world.taken]
    tricks = list(world.tricks)
    key = ENDS_WITH.get(game)
    rules = world.rules
    while True:
        if len(trick) == n:
            best = winning_card(rules, trick)
            lead = (lead + trick.index(best)) % n
            taken[lead].extend(trick)
            tricks[lead] += 1
            if key is not None and key in trick:
                break
            trick = []
        seat = (lead + len(trick)) % n
        if not hands[seat]:
            break
        allowed = duty_cards(rules, hands[seat], trick)
        if first is not None:
            card, first = first, None
        elif rng.random() < epsilon:
            card = rng.choice(allowed)
        else:
            card = trick_card(game, allowed, trick, hands[seat], n)
        hands[seat].remove(card)
        trick.append(card)
    table = world.points_table
    values, each = card_values(game, table), per_trick(game, table)
    got = [sum(values.get(c, 0) for c in taken[s]) + each * tricks[s] for s in range(n)]
    return [2 * p for p in got] if world.doubled else got


def _domino_out(
    world: RentzState,
    hands: list[list[Card]],
    rng: random.Random,
    epsilon: float,
    first: Card | None,
) -> list[int]:
    n, low = world.players, world.low
    layout = list(world.layout)
    finished = list(world.finished)
    seat = world.turn if world.turn is not None else world.first
    rows = rows_of(layout)
    while sum(1 for h in hands if h) > 1:
        valid = valid_cards(hands[seat], rows, low)
        if not valid:
            seat = next_holder(hands, seat)
            continue
        card = (
            rng.choice(valid) if rng.random() < epsilon else lay_card(valid, hands[seat], rows, low)
        )
        hands[seat].remove(card)
        layout.append(card)
        lo, hi = rows.get(card.suit, (card.rank, card.rank))
        rows[card.suit] = (min(lo, card.rank), max(hi, card.rank))
        if not hands[seat]:
            finished.append(seat)
        if sum(1 for h in hands if h) <= 1:
            break
        if card.rank == ACE and hands[seat]:
            continue
        nxt = next_holder(hands, seat)
        seat = next_holder(hands, nxt) if card.rank == low else nxt
    finished.extend(t for t in range(n) if hands[t] and t not in finished)
    table = world.points_table
    got = [0] * n
    for k, s in enumerate(finished):
        got[s] = table.place_points(k + 1, n)
    return [2 * p for p in got] if world.doubled else got


# -- the search's view of one world --------------------------------------------------------------


class RentzStrategy(Strategy):
    """Rentz for the search bots: each seat against the rest in the trick sub-games, the
    domino and the pick rated by playouts."""

    def goal(self, world: TrickGame, seat: int) -> Objective:
        """Whist and Ten of Clubs: the sub-game's points the seat takes, against every other
        seat (:func:`~levata.engine.games.rentz.subgames.solver_points`). A sub-game it
        avoids the two-sided solver cannot state (its side maximises what it takes): there the
        rules carry no points, every card solves alike, and :meth:`rate_cards` decides."""
        return points([seat])

    def rate_cards(self, world: TrickGame, seat: int) -> dict[int, float]:
        """Each playable card worth the seat's mean points of the deal over
        :data:`PLAYOUTS` playouts after it by the card players' policy (:func:`play_out`)."""
        assert isinstance(world, RentzState)
        if world.phase != phases.PLAYING:
            return {}
        out: dict[int, float] = {}
        for card in world.playable(seat):
            rng = random.Random(world.seed)  # the same luck for every card: their differences
            total = sum(play_out(world, rng, card)[seat] for _ in range(PLAYOUTS))
            out[card.index] = total / PLAYOUTS
        return out

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        """A domino card or a pick worth the seat's mean points over :data:`PLAYOUTS`
        playouts of the world after it; a pick's minus what the sub-game scores on average
        (picking one spends it: it is played once, with this hand or another)."""
        assert isinstance(world, RentzState)
        out: dict[Action, float] = {}
        if world.phase == DOMINO:
            for a in calls:
                if a.kind == LAY and a.card is not None:
                    rng = random.Random(world.seed)  # the same luck for every card
                    total = sum(play_out(world, rng, a.card)[seat] for _ in range(PLAYOUTS))
                    out[a] = total / PLAYOUTS
            return out
        if world.phase == CHOOSE:
            for a in calls:
                if a.choice:
                    rng = random.Random(world.seed)
                    got = sum(play_out(world, rng, game=a.choice)[seat] for _ in range(PLAYOUTS))
                    # Its points now against what it scores on average: the sub-game is
                    # played once, if not with this hand then with another.
                    out[a] = got / PLAYOUTS - _average(a.choice, world)
            return out
        return {}


def _average(game: str, world: RentzState) -> float:
    """What a seat scores in ``game`` on average (the deal's total shared out)."""
    n, table = world.players, world.points_table
    if game == RENTZ:
        return sum(table.place_points(k, n) for k in range(1, n + 1)) / n
    if game in (KING_OF_HEARTS,):
        return -table.king_hearts / n
    if game == TEN_OF_CLUBS:
        return table.ten_clubs / n
    values = card_values(game, table)
    total = sum(v for c, v in values.items() if c in world.deck)
    return (total + per_trick(game, table) * 8) / n
