"""Filcău's strategy: the hand strength both bots read, and what a cut, a fris, a binding, a
pass or a trump is worth to a seat in one world (the search bot, ``levata.bots.search.pimc``,
averages these over worlds rebuilt from its view). In card play a seat plays for its team's
card points (aces and tens: six of the eight move the status).

**Hand strength** (:func:`trump_strength`): each trump counts 1 plus its power over 7 (Q♠ 2,
a J of trumps 1), each plain ace 0.5. A seat binds (:func:`wants_bind`) any four, or a three
of strength :data:`BIND_AT` or more, never over its partner; it frises (:func:`wants_fris`)
with two filcăi, or one at least as high as Q♣ (a fris shown with a low filcău is easily
overtaken by the seats after it).

**Calls in one world**: every seat's five cards are known there (the cards still to come are
the world's), so the deal that follows a call is modelled, then played out:

* who ends up with the trump: the seats still to be asked act as :func:`wants_fris` and
  :func:`wants_bind` say (:func:`lap`), counts and lows compared openly;
* the play: :data:`PLAYOUTS` greedy playouts in C (10% random cards) of the five tricks
  with that trump, its binder leading (trick 1's own duties are not modelled);
* the value: the deal's score difference, this seat's team minus the other, from the
  rules' own status change (:func:`~levata.engine.games.filcau.rules.statuses_after`, the
  Huda), plus half the change of status (a chief keeps scoring). Nobody binding is worth 0.

>>> from levata.engine import game
>>> import random
>>> state = game("filcau").new_match(players=4, options={"dealer": 3}, seed=1)
>>> world = state.sample_world(2, random.Random(2))
>>> sorted(str(a) for a in FilcauStrategy().rate_calls(world, 2, world.legal_actions(2), None))
['cut', 'knock']
"""

from __future__ import annotations

from collections.abc import Sequence

from levata.bots.strategy import Strategy
from levata.engine.actions import PASS
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.contract import Action
from levata.engine.family.tricks import PLAY, TrickGame, beats, power, suit_of, winning_card
from levata.engine.games.filcau import FilcauState
from levata.engine.games.filcau import rules as fr
from levata.engine.games.filcau.table import (
    BIND,
    CLOSED,
    CUT,
    FARBA,
    FRIS,
    KNOCK,
    PATRU,
    POINTS,
    TREI,
    TRUMP,
    trick_rules,
)
from levata.engine.playouts import playout
from levata.engine.rules import TRUMP_SUIT
from levata.engine.solver import Objective, Solver
from levata.engine.solver import points as card_points

__all__ = [
    "BIND_AT",
    "PLAYOUTS",
    "FilcauStrategy",
    "best_binding",
    "deal_value",
    "finish_card",
    "lap",
    "trump_strength",
    "wants_bind",
    "wants_fris",
]

#: Greedy playouts per call and world.
PLAYOUTS = 8
#: The strength of three trumps that binds (:func:`trump_strength`): Q♠ A 10 binds, Q♦ K J not.
BIND_AT = 4.2
#: A status is worth this much beside the deal's points (the chief scores on).
STATUS_WORTH = {fr.SLUGA: -0.5, fr.EGAL: 0.0, fr.SEF: 0.5}

#: A world where another seat made a call its hand could not make weighs this much...
UNFIT = 0.02
#: ...and one where it passed over a binding it would have made, this much.
SHY = 0.4

Binding = tuple[int, Suit, tuple[int, int]]  # seat, suit, (count, low)


def _bindings(hand: Sequence[Card]) -> list[tuple[Suit, tuple[int, int]]]:
    return [(s, v) for s in fr.SUITS if (v := fr.binding_value(hand, s)) is not None]


def _fit(hand: Sequence[Card], call: str, low: str | None, best: tuple[int, int]) -> float:
    """How likely a seat dealt ``hand`` made ``call`` (``low`` told, ``best`` the binding to
    beat): :data:`UNFIT` for a call it could not make, :data:`SHY` for a pass over a binding
    it would have made, else 1."""
    if call in (TREI, PATRU, FARBA):
        count = 3 if call == TREI else 4
        lows = {v[1] for _, v in _bindings(hand) if v[0] == count}
        told = low is None or fr.LOW_NAMES.index(low) in lows
        return 1.0 if lows and told else UNFIT
    if call == CLOSED:
        return 1.0 if fr.closed(hand) else UNFIT
    eager = any(v > best and wants_bind(hand, s) for s, v in _bindings(hand))
    return SHY if call == PASS and eager and not fr.closed(hand) else 1.0


def trump_strength(hand: Sequence[Card], suit: Suit) -> float:
    """How good ``suit`` is as trump for ``hand``: each trump 1 + power/7, each plain ace 0.5.

    >>> from levata.engine import parse_cards
    >>> round(trump_strength(parse_cards("QS AH 10H JC AS"), Suit.HEARTS), 2)
    5.21
    """
    trumps = fr.trumps_for(hand, suit)
    aces = sum(1 for c in hand if c not in trumps and c.rank == 14)
    return sum(1 + fr.trump_power(c) / 7 for c in trumps) + 0.5 * aces


def best_binding(hand: Sequence[Card]) -> tuple[Suit, tuple[int, int]] | None:
    """The hand's strongest bindable suit and its value, or ``None``."""
    found = [(s, v) for s in fr.SUITS if (v := fr.binding_value(hand, s)) is not None]
    if not found:
        return None
    return max(found, key=lambda sv: (sv[1][0], trump_strength(hand, sv[0])))


def wants_bind(hand: Sequence[Card], suit: Suit) -> bool:
    """Four trumps always; three when strong enough (:data:`BIND_AT`)."""
    value = fr.binding_value(hand, suit)
    return value is not None and (value[0] == 4 or trump_strength(hand, suit) >= BIND_AT)


def wants_fris(three: Sequence[Card]) -> Card | None:
    """The filcău to fris with (the highest allowed), or ``None``: two filcăi or more, or one
    at least as high as Q♣.

    >>> from levata.engine import parse_cards
    >>> str(wants_fris(parse_cards("QC KH JH"))), wants_fris(parse_cards("QD KH JH"))
    ('QC', None)
    """
    shown = fr.fris_cards(three)
    if not shown:
        return None
    top = max(shown, key=fr.trump_power)
    return top if len(shown) >= 2 or fr.trump_power(top) >= 6 else None


def lap(
    hands: Sequence[Sequence[Card]], seats: Sequence[int], best: Binding | None
) -> Binding | None:
    """The best binding after ``seats`` (in order) act as :func:`wants_bind` says: each binds
    its strongest suit that beats the best, unless its partner holds the best."""
    for seat in seats:
        hand = hands[seat]
        if fr.closed(hand) or (best is not None and fr.TEAMS[best[0]] == fr.TEAMS[seat]):
            continue
        options = [
            (s, v)
            for s in fr.SUITS
            if (v := fr.binding_value(hand, s)) is not None
            and (best is None or v > best[2])
            and wants_bind(hand, s)
        ]
        if options:
            suit, value = max(options, key=lambda sv: (sv[1], trump_strength(hand, sv[0])))
            best = (seat, suit, value)
    return best


def deal_value(
    hands: Sequence[Sequence[Card]],
    trump: Suit,
    leader: int,
    team: int,
    status: Sequence[str],
    seed: int,
) -> float:
    """The mean over :data:`PLAYOUTS` playouts of the deal's score difference for ``team``
    (the rules' status change and Huda), plus half its change of status; ``leader`` binds."""
    rules = trick_rules(trump.slot)
    masks = [mask_of(h) for h in hands]
    bound = fr.TEAMS[leader]
    total = 0.0
    for i in range(PLAYOUTS):
        tricks, pts = playout(rules, masks, leader, policy="greedy", epsilon=0.1, seed=seed + i)
        total += outcome(
            [pts[0] + pts[2], pts[1] + pts[3]],
            [tricks[0] + tricks[2], tricks[1] + tricks[3]],
            bound,
            team,
            status,
        )
    return total / PLAYOUTS


def outcome(
    points: Sequence[int], tricks: Sequence[int], bound: int, team: int, status: Sequence[str]
) -> float:
    """One deal's worth to ``team``: its score minus the other's, plus half the status change.

    >>> outcome([6, 2], [3, 2], 0, 0, [fr.EGAL, fr.EGAL])   # chief: +1, and the status
    1.5
    >>> outcome([8, 0], [5, 0], 1, 0, [fr.EGAL, fr.EGAL])   # Huda over the bound team
    4.5
    """
    huda = next((t for t in (0, 1) if tricks[t] == fr.HAND), None)
    gained = [0, 0]
    if huda is not None:
        after = [fr.SEF, fr.SLUGA] if huda == 0 else [fr.SLUGA, fr.SEF]
        gained[huda] = fr.HUDA_POINTS
        if bound != huda:
            gained[bound] = fr.HUDA_BOUND
    else:
        after = fr.statuses_after(status, points)
        gained = [1 if s == fr.SEF else 0 for s in after]
    other = 1 - team
    moved = (STATUS_WORTH[after[team]] - STATUS_WORTH[status[team]]) - (
        STATUS_WORTH[after[other]] - STATUS_WORTH[status[other]]
    )
    return gained[team] - gained[other] + moved / 2


def full_hands(world: FilcauState) -> list[list[Card]]:
    """Every seat's five cards in ``world`` (before or during the fris window, the cards
    still to come as the world's deck order deals them)."""
    hands = [list(h) for h in world.hands]
    left = list(world.undealt)
    if not left:
        return hands
    each = len(left) // fr.PLAYERS
    for k, seat in enumerate(world.deal_order()):
        hands[seat] += left[k * each : (k + 1) * each]
    return hands


class FilcauStrategy(Strategy):
    """Filcău for the search bots: card points in play; calls by modelled deals."""

    def goal(self, world: TrickGame, seat: int) -> Objective:
        return card_points(team=world.team_of(seat))

    def plausibility(self, world: TrickGame, seat: int) -> float:
        """How well the world's hands fit the other seats' binding calls this deal: a call
        ("trei K", "farbă", the trump named, închis) the hand could not have made makes the
        world nearly impossible; a pass over a binding :func:`wants_bind` would have made,
        less likely."""
        assert isinstance(world, FilcauState)
        dealt = world.dealt_hands
        if dealt is None or world.fris_card is not None:
            return 1.0
        window = fr.PLAYERS if world.cut == CUT else 0  # the fris window's passes first
        weight, best = 1.0, (0, -1)
        for s, call, low in world.calls_made[window:]:
            if s != seat:
                weight *= _fit(dealt[s], call, low, best)
            if call in (TREI, PATRU) and low is not None:
                best = max(best, (3 if call == TREI else 4, fr.LOW_NAMES.index(low)))
            elif call == FARBA:
                best = max(best, (4, -1))
        binder, trump = world.binder, world.trump
        named = binder is not None and trump is not None and binder != seat
        if named and fr.binding_value(dealt[binder], trump) is None:  # type: ignore[index,arg-type]
            weight *= UNFIT
        return weight

    def rate_cards(self, world: TrickGame, seat: int) -> dict[int, float]:
        """On trick 1 after a fris or a farbă lead (whose duties and winner are that trick's
        own, which the solver would read for the whole deal): each card's team points when
        the others finish the trick as :func:`finish_card` says and tricks 2 to 5 are solved
        under the deal's usual rules. Elsewhere nothing: the solver is right."""
        assert isinstance(world, FilcauState)
        if world.phase != PLAY or world.played or world.trump is None:
            return {}
        usual = trick_rules(world.trump.slot)
        if world.rules is usual:
            return {}
        team = fr.TEAMS[seat]
        solver = Solver(usual)
        out: dict[int, float] = {}
        for card in world.playable(seat):
            w = world.clone()
            assert isinstance(w, FilcauState)
            w.play_card(seat, card)
            while not w.played:
                s = w.player_to_play()
                w.play_card(s, finish_card(w, s))
            taker = w.last_taker
            assert taker is not None
            first = sum(POINTS.get(c.index, 0) for c in w.played) if fr.TEAMS[taker] == team else 0
            rest = solver.solve(w.hands, w.leader, (), card_points(team=team))
            out[card.index] = float(first + rest)
        return out

    def rate_calls(
        self, world: TrickGame, seat: int, calls: Sequence[Action], solver: Solver | None
    ) -> dict[Action, float]:
        assert isinstance(world, FilcauState)
        deal = _Deal(world, seat)
        return {a: deal.value(deal.after(a)) for a in calls}


class _Deal:
    """One world's deal as a seat about to call sees it: every seat's five cards."""

    def __init__(self, world: FilcauState, seat: int) -> None:
        self.world, self.seat = world, seat
        self.team, self.seed = fr.TEAMS[seat], world.seed & 0xFFFFFFFF
        self.hands = full_hands(world)
        self.order = world.deal_order()
        self.later = self.order[self.order.index(seat) + 1 :]

    def value(self, best: Binding | None) -> float:
        if best is None:
            return 0.0  # a redeal
        status = self.world.status
        return deal_value(self.hands, best[1], best[0], self.team, status, self.seed)

    def after(self, a: Action) -> Binding | None:
        """Who binds, with which trump, after the call ``a``."""
        world, seat, hands = self.world, self.seat, self.hands
        if a.kind == TRUMP and a.choice:
            return (seat, Suit.parse(a.choice), (0, 0))
        if a.kind == KNOCK:
            return lap(hands, self.order, None)
        if a.kind == CUT:
            return self.window(self.order)
        if a.kind == FRIS:
            trump = fr.fris_trump(world.hands[seat])
            assert trump is not None
            return (seat, trump, (0, 0))
        if a.kind == BIND and a.choice:
            suit = Suit.parse(a.choice)
            mine = fr.binding_value(hands[seat], suit)
            assert mine is not None
            return lap(hands, self.later, (seat, suit, mine))
        if world.phase == FRIS:  # no fris: the seats after may, else the lap
            return self.window(self.later)
        return lap(hands, self.later, _standing(world, hands))  # pass, or închis

    def window(self, asked: Sequence[int]) -> Binding | None:
        """A fris by the first of ``asked`` who wants one, else the binding lap."""
        for s in asked:
            three = self.world.hands[s] if self.world.phase == FRIS else self.hands[s][:3]
            if wants_fris(three) is not None:
                trump = fr.fris_trump(three)
                assert trump is not None
                return (s, trump, (0, 0))
        return lap(self.hands, self.order, None)


def finish_card(world: FilcauState, seat: int) -> Card:
    """How a seat finishes trick 1 in the search's model: under a winning partner its
    cheapest card; else the cheapest card that takes the trick, or its cheapest card."""
    rules, trick = world.rules, [c for _, c in world.current]
    cards = world.playable(seat)
    best = winning_card(rules, trick)
    holder = world.current[trick.index(best)][0]

    def cost(c: Card) -> tuple[int, bool, int]:
        return (POINTS.get(c.index, 0), suit_of(rules, c) == TRUMP_SUIT, power(rules, c))

    winners = [c for c in cards if beats(rules, c, best)]
    if fr.TEAMS[holder] != fr.TEAMS[seat] and winners:
        return min(winners, key=cost)
    return min(cards, key=cost)


def _standing(world: FilcauState, hands: Sequence[Sequence[Card]]) -> Binding | None:
    """The best binding so far, with the binder's strongest suit of that value in the world."""
    if world.binder is None:
        return None
    value = (world.bound, world.best_low())
    hand = hands[world.binder]
    suits = [s for s in fr.SUITS if fr.binding_value(hand, s) == value]
    suit = max(suits or fr.SUITS, key=lambda s: trump_strength(hand, s))
    return (world.binder, suit, value)
