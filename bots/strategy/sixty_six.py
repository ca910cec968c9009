"""Sixty-six's search: PIMC with presumed values, exact play once every card is known, and
the closing, marrying and claiming decisions by simulation (``docs/games/sixty-six.md``).

Plain PIMC deals the hidden cards (the other hand, the stock's order) a few dozen ways, solves
every world as if both seats saw all of it, and plays what does best on average. In Sixty-six
that is wrong twice: within one world the search lets *us* pick a different line for each
deal of the cards (strategy fusion), and it lets the *other seat* play as if it saw our hand,
which it does not until the stock is gone. :class:`SearchBot` keeps PIMC's outer loop (worlds
from ``world_from_view``, every legal action of the root tried in each, the best mean played)
and its ``mode`` says what a world is worth after the root:

* ``plain``: PIMC. Every seat plays the counting player's policy (:func:`choose`) seeing the
  world (its ``peek``), and every strict ending (closed stock too) is solved exactly per
  world (:func:`solve`, alpha-beta over the last tricks, the claim of 66 made as soon as it
  is correct).
* ``presumed``: after the root each seat plays the policy from its own hand and what it has
  seen, never the other hand (the other seat is presumed not to see ours, and we fit no line
  to one world); only once the stock is exhausted, when counting tells both seats every
  card, is the rest solved exactly.
* ``presumed-exact``: ``presumed`` while the stock is open, and every strict ending solved
  exactly as plain does; the seat's own next choice after a close or an exchange (the card
  it leads) is planned once across the worlds (:func:`plans_of`: the close is worth its best
  card's mean, not the mean of each world's best card), so the exact ending does not bring
  strategy fusion back at the closing decision.
* ``blind-opponent``: plain for our seat, ``presumed`` for the other while the stock is open.
* ``postponed``: ``presumed-exact``, and in a closed ending (the stock still hidden, the
  only place where the search solves worlds it cannot tell apart) the solve is postponed by
  one of our choices (EPIMC): our next card is one choice for the worlds whose play we would
  see alike (:func:`next_choice`), not each world's own best.

Option ``replies`` (0: off) makes the other seat's next move, where it moves right after the
root with the stock open, the one with the best mean over that many deals it cannot tell
from the world (:func:`redeal_for`: our unseen cards and the stock dealt again): a closer
presumed value, but a world then costs a dozen playouts more (one or two worlds in 100 ms).

At the root, a stock already exhausted is solved exactly (both hands are known); a claim with
66 counted is made at once (waiting cannot raise what it wins); with the stock open, closing,
marrying, exchanging and each card are weighed against each other by the same simulations,
in the deal's game points (won positive, lost negative). Which mode plays by default, and why,
is measured in ``docs/games/sixty-six.md``.

The compact deal (:class:`Deal`, cards as ints) and the counting player's policy
(:func:`choose`, which :mod:`levata.bots.heuristic.sixty_six` plays) live here too: the policy
reads only the seat's own hand and what it has seen (``peek``: the other hand as well).

>>> from levata.engine import game
>>> state = game("sixty-six").new_match(players=2, options={"first": 0}, seed=4)
>>> bot = SearchBot(seed=1, time_ms=0, worlds=6)
>>> bot.act(state.view(0), state.legal_actions(0)) in state.legal_actions(0)
True
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from levata.bots.base import Bot, make_bot
from levata.bots.clock import deadline
from levata.bots.strategy import Strategy
from levata.engine import (
    Action,
    BadConfig,
    Card,
    Event,
    NoWorld,
    SeatView,
    Suit,
    actions,
    events,
)
from levata.engine import game as find_game
from levata.engine.family.tricks import TrickGame
from levata.engine.solver import Objective
from levata.engine.solver import points as card_points

__all__ = [
    "CLAIM",
    "CLOSE",
    "EXCHANGE",
    "MODES",
    "PASS",
    "Deal",
    "SearchBot",
    "SixtySixStrategy",
    "action_of",
    "beats",
    "choose",
    "deal_from_view",
    "deal_from_world",
    "move_of",
    "next_choice",
    "playout",
    "solve",
]

#: Card points and strength in a suit, by rank: A 11, 10 10, K 4, Q 3, J 2.
PTS = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}
POWER = {14: 4, 10: 3, 13: 2, 12: 1, 11: 0}
ALL = frozenset(16 * s + r for s in range(4) for r in PTS)
#: Moves of the compact deal: a card index plays it; these are the calls.
MARRY, CLOSE, EXCHANGE, CLAIM, PASS = 100, 200, 201, 202, 203


def beats(card: int, led: int, trump: int) -> bool:
    """Does ``card``, played second, take the trick led by ``led``?

    >>> beats(16 + 14, 16 + 10, 0), beats(0 + 11, 16 + 14, 0), beats(32 + 14, 16 + 11, 0)
    (True, True, False)
    """
    if card >> 4 == led >> 4:
        return POWER[card & 15] > POWER[led & 15]
    return card >> 4 == trump


def strict_follow(hand: Sequence[int], led: int, trump: int) -> list[int]:
    """The cards the strict duties allow: a higher card of the suit led, else one of it,
    else a trump, else any."""
    suit = led >> 4
    same = [c for c in hand if c >> 4 == suit]
    if same:
        return [c for c in same if POWER[c & 15] > POWER[led & 15]] or same
    return [c for c in hand if c >> 4 == trump] or list(hand)


@dataclass(slots=True)
class Deal:
    """One deal of Sixty-six as ints (a card is ``16 * suit slot + rank``), quick to copy and
    play on. Hidden parts a seat does not know are ``-1`` (a stock card) or left out (the
    other hand, in a deal read from one seat's view)."""

    hands: list[list[int]]
    stock: list[int]  # face down, top first
    turned: int  # the trump card under the stock (-1: drawn)
    trump: int
    closed_by: int = -1
    close_tricks: int = -1
    pts: list[int] = field(default_factory=lambda: [0, 0])  # card points taken
    tricks: list[int] = field(default_factory=lambda: [0, 0])
    pending: list[int] = field(default_factory=lambda: [0, 0])  # marriages announced
    leader: int = 0
    last_taker: int = -1
    trick: int = -1  # the card led to the trick in progress
    marrying: int = -1
    played: set[int] = field(default_factory=set)
    known: list[set[int]] = field(default_factory=lambda: [set(), set()])  # seen in a hand
    schnapsen: bool = False
    winner: int = -1
    award: int = -1  # set when the deal is over (0: nobody scores)

    def copy(self) -> Deal:
        return Deal(
            [list(self.hands[0]), list(self.hands[1])],
            list(self.stock),
            self.turned,
            self.trump,
            self.closed_by,
            self.close_tricks,
            list(self.pts),
            list(self.tricks),
            list(self.pending),
            self.leader,
            self.last_taker,
            self.trick,
            self.marrying,
            set(self.played),
            [set(self.known[0]), set(self.known[1])],
            self.schnapsen,
            self.winner,
            self.award,
        )

    @property
    def over(self) -> bool:
        return self.award >= 0

    def stock_count(self) -> int:
        return len(self.stock) + (self.turned >= 0)

    def strict(self) -> bool:
        return self.closed_by >= 0 or self.stock_count() == 0

    def points(self, seat: int) -> int:
        got = self.pts[seat] + (self.pending[seat] if self.tricks[seat] else 0)
        if not self.schnapsen and self.last_taker == seat and not (self.hands[0] or self.hands[1]):
            got += 10
        return got

    def actor(self) -> int:
        return self.leader if self.trick < 0 else 1 - self.leader

    def unseen(self, seat: int) -> set[int]:
        """The cards ``seat`` has not seen placed: the other hand and the stock."""
        out = set(ALL - self.played)
        out.difference_update(self.hands[seat])
        if self.turned >= 0:
            out.discard(self.turned)
        return out

    def legal(self) -> list[int]:
        a = self.actor()
        hand = self.hands[a]
        if self.trick >= 0:
            return strict_follow(hand, self.trick, self.trump) if self.strict() else list(hand)
        out = [CLAIM] if self.last_taker == a else []
        if self.marrying >= 0:
            return [self.marrying, *out]
        out += hand
        if not self.strict():
            least = 4 if self.schnapsen else 1
            if self.stock_count() >= least:
                out.append(CLOSE)
                if self.last_taker == a and 16 * self.trump + 11 in hand:
                    out.append(EXCHANGE)
            for c in hand:
                if c & 15 in (12, 13) and (c & ~15) + 25 - (c & 15) in hand:
                    out.append(MARRY + c)
        return out

    def apply(self, move: int) -> None:
        a = self.actor()
        if move == CLAIM:
            self.finish(a)
        elif move == PASS:
            self.finish(-1)
        elif move == CLOSE:
            self.closed_by, self.close_tricks = a, self.tricks[1 - a]
        elif move == EXCHANGE:
            jack = 16 * self.trump + 11
            self.hands[a].remove(jack)
            self.hands[a].append(self.turned)
            self.known[a].add(self.turned)
            self.turned = jack
        elif move >= MARRY:
            card = move - MARRY
            self.pending[a] += 40 if card >> 4 == self.trump else 20
            self.known[a].update((card, (card & ~15) + 25 - (card & 15)))
            self.marrying = card
        else:
            self._play(a, move)

    def _play(self, a: int, card: int) -> None:
        self.hands[a].remove(card)
        self.played.add(card)
        self.known[a].discard(card)
        self.marrying = -1
        if self.trick < 0:
            self.trick = card
            return
        led, self.trick = self.trick, -1
        w = a if beats(card, led, self.trump) else 1 - a
        self.pts[w] += PTS[card & 15] + PTS[led & 15]
        self.tricks[w] += 1
        self.leader = self.last_taker = w
        if not self.strict():
            for s in (w, 1 - w):  # the winner draws first; the turned trump comes last
                if self.stock:
                    self.hands[s].append(self.stock.pop(0))
                elif self.turned >= 0:
                    self.hands[s].append(self.turned)
                    self.known[s].add(self.turned)
                    self.turned = -1
        if not self.hands[w]:
            self.finish(w if self.points(w) >= 66 else -1)

    def finish(self, claimer: int) -> None:
        """End the deal: ``claimer`` claims (-1: nobody did, the hands are empty)."""
        if claimer >= 0:
            other = 1 - claimer
            if self.points(claimer) < 66:
                self.winner, self.award = other, 3 if self.tricks[other] == 0 else 2
                return
            award = 3 if self.tricks[other] == 0 else 2 if self.points(other) < 33 else 1
            if self.closed_by == other:
                award = max(award, 3 if self._closing_tricks(claimer) == 0 else 2)
            self.winner, self.award = claimer, award
        elif self.closed_by >= 0:
            other = 1 - self.closed_by
            self.winner, self.award = other, 3 if self._closing_tricks(other) == 0 else 2
        elif self.schnapsen:
            self.winner, self.award = self.last_taker, 1
        else:
            a, b = self.points(0), self.points(1)
            self.winner, self.award = (-1, 0) if a == b else ((0 if a > b else 1), 1)

    def _closing_tricks(self, seat: int) -> int:
        return self.close_tricks if self.schnapsen else self.tricks[seat]

    def value(self, seat: int) -> int:
        """The deal's game points for ``seat``: won positive, lost negative."""
        return self.award if self.winner == seat else -self.award if self.winner >= 0 else 0


# --------------------------------------------------------------------------------------------
# The policy


def choose(d: Deal, seat: int, legal: Sequence[int], peek: bool = False) -> int:
    """The move ``seat`` makes (one of ``legal``) from its hand and what it has seen; with
    ``peek`` it knows the other hand as if it saw it."""
    if CLAIM in legal and d.points(seat) >= 66:
        return CLAIM
    if PASS in legal:
        return PASS
    if EXCHANGE in legal:
        return EXCHANGE
    if d.marrying >= 0:
        return d.marrying
    other = set(d.hands[1 - seat]) if peek else d.unseen(seat)
    cards = [m for m in legal if m < MARRY]
    if d.trick >= 0:
        return _follow(d, seat, cards)
    marriages = [m - MARRY for m in legal if MARRY <= m < CLOSE and (m - MARRY) & 15 == 12]
    if marriages:
        marriages.sort(key=lambda c: c >> 4 != d.trump)  # the trump marriage first
        return MARRY + marriages[0]
    if CLOSE in legal and _sure_points(d, seat, other) + d.points(seat) >= 66:
        return CLOSE
    return _lead(d, seat, cards, other)


def _sure_winners(d: Deal, seat: int, other: set[int]) -> list[int]:
    """Cards of ``seat`` no card of ``other`` can beat in strict play (a side card counts
    only while the other side may have no trump left to ruff it... taken as: no trump out)."""
    top = [-1, -1, -1, -1]  # the other side's best card by suit: one pass, not one a card
    for o in other:
        if POWER[o & 15] > top[o >> 4]:
            top[o >> 4] = POWER[o & 15]
    trumps_out = top[d.trump] >= 0
    return [
        c
        for c in d.hands[seat]
        if POWER[c & 15] > top[c >> 4] and (c >> 4 == d.trump or not trumps_out)
    ]


def _sure_points(d: Deal, seat: int, other: set[int]) -> int:
    """Points the sure winners bring (each with a small card of the other seat beside it),
    and the marriages they make count."""
    sure = _sure_winners(d, seat, other)
    got = sum(PTS[c & 15] + 3 for c in sure)
    if sure and not d.tricks[seat]:
        got += d.pending[seat]
    return got


def _in_marriage(d: Deal, seat: int, card: int) -> bool:
    return card & 15 in (12, 13) and (card & ~15) + 25 - (card & 15) in d.hands[seat]


def _cheap_key(d: Deal, seat: int) -> Callable[[int], tuple[bool, bool, int]]:
    """Order cards to give away: side cards before trumps, marriage halves last, cheap first."""
    return lambda c: (c >> 4 == d.trump, _in_marriage(d, seat, c), PTS[c & 15])


def _lead(d: Deal, seat: int, cards: list[int], other: set[int]) -> int:
    if d.strict():
        sure = _sure_winners(d, seat, other)
        if sure:  # cash the winners, trumps first to draw the other's
            return max(sure, key=lambda c: (c >> 4 == d.trump, POWER[c & 15]))
        return min(cards, key=_cheap_key(d, seat))
    need = 66 - d.points(seat)
    for c in cards:  # a sure winner that brings the 66 home
        if c in _sure_winners(d, seat, other) and PTS[c & 15] + 2 >= need:
            return c
    side = [c for c in cards if c >> 4 != d.trump and PTS[c & 15] < 10]
    pool = side or cards
    return min(pool, key=_cheap_key(d, seat))


def _follow(d: Deal, seat: int, cards: list[int]) -> int:
    led = d.trick
    winners = [c for c in cards if beats(c, led, d.trump)]
    losers = [c for c in cards if c not in winners]
    cheap = _cheap_key(d, seat)
    gain = d.pending[seat] if not d.tricks[seat] else 0
    for c in sorted(winners, key=lambda c: POWER[c & 15]):  # a winner that makes 66
        if d.points(seat) + gain + PTS[led & 15] + PTS[c & 15] >= 66:
            return c
    if d.strict():
        if winners:
            return min(winners, key=lambda c: (c >> 4 == d.trump, POWER[c & 15]))
        return min(cards, key=cheap)
    same = [c for c in winners if c >> 4 == led >> 4]
    if PTS[led & 15] >= 10 and winners:  # an ace or a ten: take it cheaply
        return min(winners, key=lambda c: (c >> 4 == d.trump and PTS[c & 15] >= 10, PTS[c & 15]))
    if same and any(PTS[c & 15] >= 10 for c in same):  # a low lead taken by the ten or ace
        return max(same, key=lambda c: PTS[c & 15])
    if losers:
        return min(losers, key=cheap)
    return min(cards, key=cheap)


# --------------------------------------------------------------------------------------------
# From a view: the seat's memory of the deal


def _int(card: Card) -> int:
    return card.index


def deal_from_view(view: SeatView) -> Deal:
    """The deal as ``view``'s seat knows it: its hand, every card it saw played (it counts
    them), both seats' points and marriages, the cards it saw go into the other hand; the
    other hand and the stock are unknown (``-1`` in the stock)."""
    me = view.seat
    start = max((i for i, ev in enumerate(view.history) if ev.kind == events.HAND), default=0)
    deal = view.history[max(0, start - 1) :]
    trump = Suit.parse(view.trump).slot if view.trump else 0
    d = Deal([[], []], [], -1, trump, leader=view.counters["leader"])
    d.hands[me] = [_int(c) for c in view.hand]
    d.schnapsen = bool(view.options.get("schnapsen", False))
    turned = _recall(d, deal)
    shown = view.zones.get("trump", ())
    if shown:
        turned = _int(shown[0])
    stock = view.counts.get("stock", 0)
    d.turned = turned if stock else -1
    d.stock = [-1] * (stock - (d.turned >= 0))
    d.tricks = [view.counters.get(f"tricks:{s}", 0) for s in range(2)]
    facts = view.facts
    closer = facts.get("closed_by")
    d.closed_by = closer if closer is not None else -1
    close = facts.get("close_tricks")
    d.close_tricks = close if close is not None else -1
    marrying = facts.get("marrying")
    d.marrying = _int(Card.parse(marrying)) if marrying else -1
    trick = view.zones.get("trick", ())
    d.trick = _int(trick[0]) if trick else -1
    for s in range(2):
        d.known[s] = {c for c in d.known[s] if c not in d.played}
        d.known[s].update(_int(c) for c in view.zones.get(f"married:{s}", ()))
    d.known[me] = set()
    d.hands[1 - me] = sorted(d.known[1 - me])  # what it knows of the other hand
    return d


def _recall(d: Deal, deal: Sequence[Event]) -> int:
    """Replay the seat's events of the deal into ``d`` (cards played, points, marriages,
    cards seen going into a hand); returns the card last seen turned under the stock."""
    turned = -1
    for ev in deal:
        kind, by = ev.kind, ev.seat
        if kind == events.DEAL and ev.cards:
            turned = _int(ev.cards[0])
        elif kind == events.POSITION:
            for s, cards in enumerate(ev.data["taken"]):
                got = [_int(Card.parse(c)) for c in cards]
                d.played.update(got)
                d.pts[s] += sum(PTS[c & 15] for c in got)
            last = ev.data.get("last_taker")
            d.last_taker = last if last is not None else -1
        elif kind == events.PLAY and ev.cards:
            d.played.add(_int(ev.cards[0]))
        elif kind == events.TRICK and by is not None:
            d.pts[by] += sum(PTS[c.rank] for c in ev.cards)
            d.last_taker = by
        elif kind == "marriage" and by is not None:
            d.pending[by] += ev.data["points"]
        elif kind == "exchange" and by is not None:
            turned = _int(ev.cards[0])
            d.known[by].add(_int(ev.cards[1]))
        elif kind == events.DRAW and ev.cards and by is not None:
            if _int(ev.cards[0]) == turned:
                turned = -1
            d.known[by].add(_int(ev.cards[0]))
    return turned


def move_of(action: Action) -> int:
    """The compact deal's move for an action."""
    kind = action.kind
    if kind == actions.PLAY and action.card is not None:
        return action.card.index
    if kind == "marry" and action.card is not None:
        return MARRY + action.card.index
    return {"close": CLOSE, "exchange": EXCHANGE, "claim": CLAIM}.get(kind, PASS)


def action_of(move: int, legal: Sequence[Action]) -> Action:
    """The legal action a move names."""
    for a in legal:
        if move_of(a) == move:
            return a
    return legal[0]


#: Who plays seeing the other hand after the root (the searching seat, the other seat),
#: whether a closed stock's ending is solved exactly per world, and whether the seat's own
#: choice after a close or exchange is planned across the worlds (:func:`plans_of`), by mode.
#: Last, whether a closed ending is searched with our next choice in it made once across the
#: worlds that look alike to us (:func:`next_choice`), not once per world.
SIMULATIONS: dict[str, tuple[bool, bool, bool, bool, bool]] = {
    "presumed": (False, False, False, False, False),
    "plain": (True, True, True, False, False),
    "presumed-exact": (False, False, True, True, False),
    "blind-opponent": (True, False, True, False, False),
    "postponed": (False, False, True, True, True),
}
MODES = tuple(SIMULATIONS)


class SixtySixStrategy(Strategy):
    """What the generic search bots read: a seat plays its cards for card points."""

    def goal(self, world: TrickGame, seat: int) -> Objective:
        return card_points(team=world.team_of(seat))


def deal_from_world(world: Any) -> Deal:
    """The compact deal of a full state (a world rebuilt from a view, or the match)."""
    n = world.players
    d = Deal(
        [[c.index for c in world.hands[s]] for s in range(n)],
        [c.index for c in world.stock],
        world.trump_card.index if world.trump_card is not None else -1,
        world.trump.slot,
    )
    d.closed_by = world.closed_by if world.closed_by is not None else -1
    d.close_tricks = world.close_tricks if world.close_tricks is not None else -1
    d.pts = [sum(PTS[c.rank] for c in world.taken[s]) for s in range(n)]
    d.tricks = list(world.tricks)
    d.pending = [sum(p for s2, _, p in world.marriages if s2 == s) for s in range(n)]
    d.leader = world.leader
    d.last_taker = world.last_taker if world.last_taker is not None else -1
    d.trick = world.current[0][1].index if world.current else -1
    d.marrying = world.marrying.index if world.marrying is not None else -1
    d.played = {c.index for c in world.played} | {c.index for _, c in world.current}
    d.known = [{c.index for c in world.married[s]} for s in range(n)]
    d.schnapsen = world.schnapsen
    return d


def solve(d: Deal, seat: int, memo: dict[tuple[int, ...], tuple[int, int]] | None = None) -> float:
    """The exact value for ``seat`` (game points, won positive) of a deal in strict play with
    every card placed: alpha-beta over the plays, each seat claiming as soon as it counts 66
    on lead (waiting never wins more: only the other seat's tricks and points move the
    award, and only against the claimer). The search runs on plain ints (hands as bit
    masks), not on copies of the deal, and remembers the positions it has valued (the same
    cards reached in another order): a world's ending is solved many times a decision.

    >>> d = Deal([[14], [11]], [], -1, 0, leader=0, last_taker=0, pts=[60, 40],
    ...          tricks=[4, 4])  # A♣ against J♣, trumps: 60 + 13 + 10 = 83
    >>> solve(d, 0), solve(d, 1)
    (1, -1)

    ``memo``: the values already found in another ending of the same deal after the same
    calls (the same trump, marriages and close), shared.
    """
    if d.over:
        return d.value(seat)
    v = _Ending(d, memo).value()
    return v if seat == 0 else -v


class _Ending:
    """The strict ending of one deal, searched for seat 0's game points."""

    __slots__ = ("close_tricks", "closer", "memo", "pending", "schnapsen", "start", "trump")

    def __init__(self, d: Deal, memo: dict[tuple[int, ...], tuple[int, int]] | None) -> None:
        self.trump, self.pending, self.schnapsen = d.trump, d.pending, d.schnapsen
        self.closer, self.close_tricks = d.closed_by, d.close_tricks
        h0, h1 = (sum(1 << c for c in h) for h in d.hands)
        p0, p1 = d.pts
        t0, t1 = d.tricks
        self.start = (h0, h1, d.leader, d.trick, p0, p1, t0, t1, d.last_taker)
        self.memo = {} if memo is None else memo  # bounds on a position's value

    def value(self) -> int:
        h0, h1, leader, trick, p0, p1, t0, t1, last = self.start
        return self._search(h0, h1, leader, trick, p0, p1, t0, t1, last, -4, 4)

    def best(self) -> int:
        """The card the seat to move plays in this ending (the first of the best, strongest
        first), searched as :meth:`value` does, with the same memo."""
        h0, h1, leader, trick, p0, p1, t0, t1, last = self.start
        a = leader if trick < 0 else 1 - leader
        sign = 1 if a == 0 else -1
        top, pick = -4, -1
        for c in _plays(h0 if a == 0 else h1, trick, self.trump):
            n0, n1 = (h0 & ~(1 << c), h1) if a == 0 else (h0, h1 & ~(1 << c))
            # only a card better than the best so far matters: search that window
            lo, hi = (top, 4) if a == 0 else (-4, -top)
            if pick < 0:
                lo, hi = -4, 4
            if trick < 0:
                v = self._search(n0, n1, leader, c, p0, p1, t0, t1, last, lo, hi)
            else:
                w = a if beats(c, trick, self.trump) else 1 - a
                gain = PTS[c & 15] + PTS[trick & 15]
                q0, q1 = (p0 + gain, p1) if w == 0 else (p0, p1 + gain)
                u0, u1 = (t0 + 1, t1) if w == 0 else (t0, t1 + 1)
                if n0 if w == 0 else n1:
                    v = self._search(n0, n1, w, -1, q0, q1, u0, u1, w, lo, hi)
                else:
                    p = (self._points(0, q0, u0, w, True), self._points(1, q1, u1, w, True))
                    v = self._end(w if p[w] >= 66 else -1, p, (u0, u1), w)
            if pick < 0 or sign * v > top:
                top, pick = sign * v, c
        return pick

    def _points(self, seat: int, pts: int, tricks: int, last: int, empty: bool) -> int:
        got = pts + (self.pending[seat] if tricks else 0)
        return got + 10 if empty and last == seat and not self.schnapsen else got

    def _end(self, claimer: int, p: tuple[int, int], t: tuple[int, int], last: int) -> int:
        """Seat 0's game points when the deal ends (as :meth:`Deal.finish`); ``p``: both
        seats' points as counted then."""
        if claimer >= 0:
            other = 1 - claimer
            if p[claimer] < 66:
                award = -(3 if t[other] == 0 else 2)
            else:
                award = 3 if t[other] == 0 else 2 if p[other] < 33 else 1
                if self.closer == other:
                    closing = self.close_tricks if self.schnapsen else t[claimer]
                    award = max(award, 3 if closing == 0 else 2)
            return award if claimer == 0 else -award
        if self.closer >= 0:
            other = 1 - self.closer
            closing = self.close_tricks if self.schnapsen else t[other]
            award = 3 if closing == 0 else 2
            return award if other == 0 else -award
        if self.schnapsen:
            return 1 if last == 0 else -1
        return 0 if p[0] == p[1] else 1 if p[0] > p[1] else -1

    def _search(  # noqa: C901, PLR0913  (the position's numbers and its search inline: speed)
        self,
        h0: int,
        h1: int,
        leader: int,
        trick: int,
        p0: int,
        p1: int,
        t0: int,
        t1: int,
        last: int,
        alpha: int,
        beta: int,
    ) -> int:
        key = (h0, h1, leader, trick, p0, p1, t0, t1, last)
        lo, hi = self.memo.get(key, (-4, 4))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
        window = alpha, beta
        a = leader if trick < 0 else 1 - leader
        if trick < 0 and last == a:
            p = (self._points(0, p0, t0, last, False), self._points(1, p1, t1, last, False))
            if p[a] >= 66:  # claim at once: waiting never wins more
                v = self._end(a, p, (t0, t1), last)
                self.memo[key] = v, v
                return v
        trump = self.trump
        cards = _plays(h0 if a == 0 else h1, trick, trump)
        maxing = a == 0
        best = -4 if maxing else 4
        for c in cards:
            n0, n1 = (h0 & ~(1 << c), h1) if a == 0 else (h0, h1 & ~(1 << c))
            if trick < 0:
                v = self._search(n0, n1, leader, c, p0, p1, t0, t1, last, alpha, beta)
            else:
                w = a if beats(c, trick, trump) else 1 - a
                gain = PTS[c & 15] + PTS[trick & 15]
                q0, q1 = (p0 + gain, p1) if w == 0 else (p0, p1 + gain)
                u0, u1 = (t0 + 1, t1) if w == 0 else (t0, t1 + 1)
                if n0 if w == 0 else n1:
                    v = self._search(n0, n1, w, -1, q0, q1, u0, u1, w, alpha, beta)
                else:  # the last trick: its taker claims if it counts 66
                    p = (self._points(0, q0, u0, w, True), self._points(1, q1, u1, w, True))
                    v = self._end(w if p[w] >= 66 else -1, p, (u0, u1), w)
            if maxing:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        # failed low: an upper bound; failed high: a lower bound; else exact
        low, high = window
        self.memo[key] = (lo, best) if best <= low else (best, hi) if best >= high else (best, best)
        return best


_CARDS = sorted(ALL, key=lambda c: (-POWER[c & 15], c))  # high cards first: earlier cutoffs
_PLAYS: dict[tuple[int, int, int], list[int]] = {}


def _plays(hand: int, trick: int, trump: int) -> list[int]:
    """The cards of ``hand`` (a bit mask) strict play allows on ``trick`` (-1: on lead),
    remembered: the endings of a decision meet the same hands again and again."""
    key = (hand, trick, trump)
    got = _PLAYS.get(key)
    if got is None:
        if len(_PLAYS) > 200_000:
            _PLAYS.clear()
        got = [c for c in _CARDS if hand >> c & 1]
        if trick >= 0:
            got = strict_follow(got, trick, trump)
        _PLAYS[key] = got
    return got


def playout(
    d: Deal,
    seat: int,
    peek: bool | tuple[bool, bool],
    exact_cards: int = 5,
    solve_closed: bool | None = None,
    memo: dict[tuple[int, ...], tuple[int, int]] | None = None,
) -> float:
    """Play ``d`` to its end by the counting policy and return its value for ``seat``;
    strict endings of at most ``exact_cards`` cards a hand are solved exactly once every card
    is known (the stock exhausted; with ``solve_closed``, a closed stock too: by default
    when both seats peek). ``peek``: whether each seat (or both) plays seeing the other hand;
    ``memo``: shared by the endings of one world after the same calls (:func:`solve`).
    """
    sees = (peek, peek) if isinstance(peek, bool) else peek
    closed = all(sees) if solve_closed is None else solve_closed
    while not d.over:
        a = d.actor()
        if d.strict() and (closed or d.stock_count() == 0) and len(d.hands[a]) <= exact_cards:
            return solve(d, seat, memo)
        d.apply(choose(d, a, d.legal(), sees[a]))
    return d.value(seat)


def redeal_for(d: Deal, seat: int, rng: random.Random) -> Deal:
    """``d`` as ``seat`` cannot tell it apart: the other hand's cards ``seat`` has not seen
    (those shown in a marriage, drawn face up or exchanged stay) and the stock dealt again.

    >>> d = Deal([[14, 13, 12], [10, 11, 16 + 14]], [32 + 14, 32 + 10], 48 + 14, 3)
    >>> d.known[1] = {11}
    >>> r = redeal_for(d, 0, random.Random(1))
    >>> r.hands[0] == d.hands[0], 11 in r.hands[1], len(r.hands[1]), len(r.stock)
    (True, True, 3, 2)
    >>> sorted(r.hands[1] + r.stock) == sorted(d.hands[1] + d.stock)
    True
    """
    other = 1 - seat
    known = [c for c in d.hands[other] if c in d.known[other]]
    pool = [c for c in d.hands[other] if c not in d.known[other]] + d.stock
    rng.shuffle(pool)
    out = d.copy()
    free = len(d.hands[other]) - len(known)
    out.hands[other] = known + pool[:free]
    out.stock = pool[free:]
    return out


class SearchBot:
    """PIMC for Sixty-six (see the module). Options: ``mode`` (one of :data:`MODES`),
    ``time_ms`` (budget per decision, from the request's sending; 0: none), ``worlds`` (most
    worlds per decision), ``min_worlds`` (worlds even past the budget), ``exact_cards``
    (strict endings of at most this many cards a hand are solved exactly), ``replies``
    (deals the other seat's next move is judged over; 0: off), ``plans`` (1: plan the card
    after a close or exchange across worlds, 0: not, -1: as the mode says), ``postpone``
    (1: our next choice in a closed ending one for the worlds that look alike, 0: not, -1:
    as the mode says)."""

    name = "search"

    def __init__(  # noqa: PLR0913  (the bot's options, keywords a bot entry sets)
        self,
        game: str = "sixty-six",
        seed: int = 0,
        *,
        mode: str = "presumed-exact",
        time_ms: int = 300,
        worlds: int = 200,
        min_worlds: int = 2,
        exact_cards: int = 5,
        replies: int = 0,
        plans: int = -1,
        postpone: int = -1,
    ) -> None:
        if mode not in MODES:
            raise BadConfig(f"search mode {mode!r}: one of {', '.join(MODES)}")
        self.spec = find_game(game)
        self.rng = random.Random(seed)
        self.mode, self.peek = mode, mode == "plain"
        me_sees, other_sees, self.solve_closed, planned, postponed = SIMULATIONS[mode]
        self.sees = {0: (me_sees, other_sees), 1: (other_sees, me_sees)}  # by the seat searching
        self.replies = max(0, replies)
        self.plans = planned if plans < 0 else bool(plans)
        self.postpone = postponed if postpone < 0 else bool(postpone)
        self.time_ms, self.worlds = time_ms, max(1, worlds)
        self.min_worlds, self.exact_cards = max(1, min_worlds), exact_cards
        self.fallback: Bot = make_bot("heuristic", game, seed)
        #: Worlds searched for the last decision, and each move's mean game points over
        #: them (for benchmarks and tests).
        self.last_worlds = 0
        self.last_values: dict[int, float] = {}

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        self.last_worlds = 0
        if len(legal) == 1:
            return legal[0]
        me = view.seat
        known = deal_from_view(view)
        moves = [move_of(a) for a in legal]
        if view.phase == "claim":
            known.hands = [[], []]
            return action_of(CLAIM if known.points(me) >= 66 else PASS, legal)
        if CLAIM in moves and known.points(me) >= 66:
            return action_of(CLAIM, legal)
        if known.strict() and known.stock_count() == 0:  # every card known by counting
            known.hands[1 - me] = sorted(known.unseen(me))
            return action_of(self._best(moves, [known], me, exact=True), legal)
        try:
            return action_of(self._search(view, known, moves, me), legal)
        except NotImplementedError:  # no worlds of this view (read from a position)
            return self.fallback.act(view, legal)
        except NoWorld as exc:  # a fault in the game's deal: told, and the usual move played
            logging.getLogger("levata.bots.search").warning("%s; the usual move instead", exc)
            return self.fallback.act(view, legal)

    def _search(self, view: SeatView, known: Deal, moves: list[int], me: int) -> int:
        begun = time.perf_counter()
        stop = deadline(self.time_ms)  # from the request's sending: a wait counts
        plans = plans_of(known, moves) if self.plans else [(m,) for m in moves]
        total = dict.fromkeys(plans, 0.0)
        # postponed: per plan, per path we would see to our next choice in a closed
        # ending, each choice's sum over the worlds of that path (and how many worlds)
        later: dict[tuple[int, ...], dict[tuple[int, ...], dict[int, float]]] = {}
        n = 0
        last = begun
        while n < self.worlds:
            world = deal_from_world(self.spec.world_from_view(view, self.rng))
            memos: dict[tuple[int, ...], dict] = {}  # one per world and calls made
            for plan in plans:
                child = world.copy()
                for m in plan:
                    child.apply(m)
                if self.replies:
                    self._presumed_reply(child, me)
                # after a close every ending of the world has the same trump, marriages
                # and close, and the cards led after it share the search's memo
                shared = CLOSE in plan[:-1] or known.strict()
                memo = memos.setdefault(plan[:-1], {}) if shared else None
                if self.postpone and _hidden_ending(child):
                    path, choices = next_choice(child, me, memo)
                    sums = later.setdefault(plan, {}).setdefault(path, {})
                    for m, v in choices.items():
                        sums[m] = sums.get(m, 0.0) + v
                    continue
                total[plan] += self._playout(child, me, memo)
            n += 1
            now = time.perf_counter()
            # the next world costs what they cost on average, or what the last one did
            # (a world's exact endings make its cost vary)
            if n >= self.min_worlds and now + max((now - begun) / n, now - last) > stop:
                break
            last = now
        self.last_worlds = n
        for plan, paths in later.items():  # one choice per path, the best over its worlds
            total[plan] += sum(max(sums.values()) for sums in paths.values())
        best: dict[int, float] = {}
        for plan, v in total.items():  # a move is worth its best plan over all the worlds
            best[plan[0]] = max(best.get(plan[0], v), v)
        self.last_values = {m: v / n for m, v in best.items()}
        return _top(best, moves, known, me)

    def _playout(self, d: Deal, me: int, memo: dict | None = None) -> float:
        return playout(d, me, self.sees[me], self.exact_cards, self.solve_closed, memo)

    def _presumed_reply(self, d: Deal, me: int) -> None:
        """Where the other seat moves next with the stock open, make its move the one with
        the best presumed value: its mean over ``replies`` deals it cannot tell from ``d``
        (our unseen cards and the stock dealt again), not its value in this world alone."""
        other = 1 - me
        if d.over or d.strict() or d.actor() != other:
            return
        legal = d.legal()
        if len(legal) < 2:
            return
        value = dict.fromkeys(legal, 0.0)
        for _ in range(self.replies):
            seen = redeal_for(d, other, self.rng)
            for r in legal:
                after = seen.copy()
                after.apply(r)
                value[r] += self._playout(after, other)
        best = max(value.values())
        top = [r for r in legal if value[r] >= best - 1e-9]
        pick = choose(d, other, top) if len(top) > 1 else top[0]
        d.apply(pick if pick in top else top[0])

    def _best(self, moves: list[int], worlds: list[Deal], me: int, exact: bool) -> int:
        total = dict.fromkeys(moves, 0.0)
        for w in worlds:
            for m in moves:
                child = w.copy()
                child.apply(m)
                total[m] += solve(child, me) if exact else self._playout(child, me)
        self.last_worlds = len(worlds)
        return _top(total, moves, worlds[0], me)


def _hidden_ending(d: Deal) -> bool:
    """A closed ending with cards still in the stock: the other hand stays unknown."""
    return not d.over and d.closed_by >= 0 and d.stock_count() > 0


def next_choice(
    d: Deal, me: int, memo: dict[tuple[int, ...], tuple[int, int]] | None = None
) -> tuple[tuple[int, ...], dict[int, float]]:
    """Our next choice in the strict ending ``d`` of one world, postponed (EPIMC, Arjonilla,
    Saffidine and Cazenave 2024): the other seat's moves until we choose, each its best in
    this world (exact), and what each of our moves there is worth here (exact). The moves
    are the path we would see: worlds with the same path must get the same choice of ours,
    so the caller sums each choice over them and keeps one, where plain PIMC lets every
    world take its own best (strategy fusion). At the end of the deal the only choice is -1.

    >>> d = Deal([[14, 13], [10, 16 + 14]], [32 + 11], 48 + 14, 0, closed_by=0,
    ...          close_tricks=1, pts=[40, 30], tricks=[3, 1], leader=0, last_taker=0)
    >>> d.apply(13)  # K♣ led: the other seat takes it with its trump 10, then leads A♦
    >>> next_choice(d, 0)  # our A♣ ruffs it: 40 + 22 + the last 10 = 72, one game point
    ((10, 30), {14: 1.0})
    """
    d = d.copy()
    path: list[int] = []
    while not d.over and d.actor() != me:
        a = d.actor()
        if d.trick < 0 and d.last_taker == a and d.points(a) >= 66:
            move = CLAIM  # as the solver does: a claim at once
        else:
            move = _Ending(d, memo).best()
        d.apply(move)
        path.append(move)
    if d.over:
        return tuple(path), {-1: float(d.value(me))}
    if d.trick < 0 and d.last_taker == me and d.points(me) >= 66:
        d.apply(CLAIM)  # waiting never wins more
        return tuple(path), {CLAIM: float(d.value(me))}
    choices = {}
    for m in d.legal():
        if m == CLAIM:
            continue  # short of 66 a claim loses
        child = d.copy()
        child.apply(m)
        choices[m] = float(solve(child, me, memo))
    return tuple(path), choices


def plans_of(d: Deal, moves: Sequence[int], depth: int = 2) -> list[tuple[int, ...]]:
    """The root's moves, each followed by the seat's own next choice where it keeps the lead
    (after closing or exchanging: the card it leads, or a close after an exchange), so that
    choice is made once for every world, as at the table, and not once per world.

    >>> d = Deal([[14, 13, 16 + 10], []], [-1] * 5, 32 + 11, 2, last_taker=0)
    >>> plans_of(d, [14, CLOSE])
    [(14,), (200, 14), (200, 13), (200, 26)]
    """
    out: list[tuple[int, ...]] = []
    for m in moves:
        child = d.copy()
        if depth and m in (CLOSE, EXCHANGE):
            child.apply(m)
            after = [x for x in child.legal() if x not in (CLAIM, PASS)]
            if not child.over and child.actor() == d.actor() and len(after) > 1:
                out += [(m, *p) for p in plans_of(child, after, depth - 1)]
                continue
        out.append((m,))
    return out


def _top(total: dict[int, float], moves: list[int], d: Deal, me: int) -> int:
    """The best total; ties go to the counting policy's choice, else the first."""
    best = max(total.values())
    top = [m for m in moves if total[m] >= best - 1e-9]
    if len(top) == 1 or not any(m < MARRY for m in top):
        return top[0]
    pick = choose(d, me, top)
    return pick if pick in top else top[0]
