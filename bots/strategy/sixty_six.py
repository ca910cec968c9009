"""Sixty-six's search: a presumed-value PIMC, exact play once every card is known, and the
closing, marrying and claiming decisions by simulation (``docs/games/sixty-six.md``).

Plain PIMC deals the hidden cards (the other hand, the stock's order) a few dozen ways, solves
every world as if both seats saw all of it, and plays what does best on average. In Sixty-six
that is wrong twice: within one world the search lets *us* pick a different line for each
deal of the cards (strategy fusion), and it lets the *other seat* play as if it saw our hand,
which it does not until the stock is gone. :class:`SearchBot` keeps PIMC's outer loop (worlds
from ``world_from_view``, every legal action of the root tried in each, the best mean played)
and changes what a world is worth after the root:

* **Presumed values** (``mode=presumed``, the default): after the root each seat plays the
  counting player's policy (:func:`levata.bots.heuristic.sixty_six.choose`) from its own hand
  and what it has seen, never the other hand: the other seat is presumed not to see ours, and
  neither do we, so no line is fitted to one world. Only once the stock is exhausted, when
  counting tells both seats every card, is the rest solved exactly (:func:`solve`, a small
  alpha-beta over the last tricks, with the claim of 66 made as soon as it is correct).
* **Plain** (``mode=plain``, for comparison): the same simulations with every seat seeing the
  world (the policy's ``peek``), and every strict ending (closed stock too) solved exactly per
  world: PIMC's assumption that everyone sees everything after the root.

At the root, a stock already exhausted is solved exactly (both hands are known); a claim with
66 counted is made at once (waiting cannot raise what it wins); with the stock open, closing,
marrying, exchanging and each card are weighed against each other by the same simulations,
in the deal's game points (won positive, lost negative).

>>> from levata.engine import game
>>> state = game("sixty-six").new_match(players=2, options={"first": 0}, seed=4)
>>> bot = SearchBot(seed=1, time_ms=0, worlds=6)
>>> bot.act(state.view(0), state.legal_actions(0)) in state.legal_actions(0)
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from levata.bots.heuristic.sixty_six import (
    CLAIM,
    MARRY,
    PASS,
    PTS,
    Deal,
    HeuristicBot,
    action_of,
    choose,
    deal_from_view,
    move_of,
)
from levata.bots.strategy import Strategy
from levata.engine import Action, BadConfig, SeatView
from levata.engine import game as find_game
from levata.engine.family.tricks import TrickGame
from levata.engine.solver import Objective
from levata.engine.solver import points as card_points

__all__ = ["MODES", "SearchBot", "SixtySixStrategy", "deal_from_world", "playout", "solve"]

MODES = ("presumed", "plain")


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
    d.known = [{c.index for c in world.shown[s]} for s in range(n)]
    d.schnapsen = world.schnapsen
    return d


def solve(d: Deal, seat: int, alpha: float = -4.0, beta: float = 4.0) -> float:
    """The exact value for ``seat`` (game points, won positive) of a deal in strict play with
    every card placed: alpha-beta over the plays, each seat claiming as soon as it counts 66
    on lead (waiting never wins more: only the other seat's tricks and points move the
    award, and only against the claimer).

    >>> from levata.bots.heuristic.sixty_six import Deal
    >>> d = Deal([[14], [11]], [], -1, 0, leader=0, last_taker=0, pts=[60, 40],
    ...          tricks=[4, 4])  # A♣ against J♣, trumps: 60 + 13 + 10 = 83
    >>> solve(d, 0), solve(d, 1)
    (1, -1)
    """
    if d.over:
        return d.value(seat)
    a = d.actor()
    if d.trick < 0 and d.last_taker == a and d.points(a) >= 66:
        d = d.copy()
        d.apply(CLAIM)
        return d.value(seat)
    moves = [m for m in d.legal() if m < MARRY]
    maxing = a == seat
    best = -4.0 if maxing else 4.0
    for m in moves:
        child = d.copy()
        child.apply(m)
        v = solve(child, seat, alpha, beta)
        if maxing:
            if v > best:
                best = v
            alpha = max(alpha, v)
        else:
            if v < best:
                best = v
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def playout(d: Deal, seat: int, peek: bool, exact_cards: int = 5) -> float:
    """Play ``d`` to its end by the counting policy and return its value for ``seat``;
    strict endings of at most ``exact_cards`` cards a hand are solved exactly once every card
    is known (the stock exhausted; with ``peek``, any strict ending)."""
    while not d.over:
        a = d.actor()
        if d.strict() and (peek or d.stock_count() == 0) and len(d.hands[a]) <= exact_cards:
            return solve(d, seat)
        d.apply(choose(d, a, d.legal(), peek))
    return d.value(seat)


class SearchBot:
    """Presumed-value PIMC for Sixty-six (see the module). Options: ``mode`` (``presumed``
    or ``plain``), ``time_ms`` (budget per decision; 0: none), ``worlds`` (most worlds per
    decision), ``min_worlds`` (worlds even past the budget), ``exact_cards`` (strict endings
    of at most this many cards a hand are solved exactly)."""

    name = "search"

    def __init__(
        self,
        game: str = "sixty-six",
        seed: int = 0,
        *,
        mode: str = "presumed",
        time_ms: int = 300,
        worlds: int = 200,
        min_worlds: int = 8,
        exact_cards: int = 5,
    ) -> None:
        if mode not in MODES:
            raise BadConfig(f"search mode {mode!r}: one of {', '.join(MODES)}")
        self.spec = find_game(game)
        self.rng = random.Random(seed)
        self.mode, self.peek = mode, mode == "plain"
        self.time_ms, self.worlds = time_ms, max(1, worlds)
        self.min_worlds, self.exact_cards = max(1, min_worlds), exact_cards
        self.fallback = HeuristicBot(game, seed)
        #: Worlds searched for the last decision (for benchmarks and tests).
        self.last_worlds = 0

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
            return action_of(self._search(view, moves, me), legal)
        except NotImplementedError:  # no worlds of this view (read from a position)
            return self.fallback.act(view, legal)

    def _search(self, view: SeatView, moves: list[int], me: int) -> int:
        start = time.perf_counter()
        budget = self.time_ms / 1000 if self.time_ms > 0 else float("inf")
        total = dict.fromkeys(moves, 0.0)
        n = 0
        while n < self.worlds:
            world = deal_from_world(self.spec.world_from_view(view, self.rng))
            for m in moves:
                child = world.copy()
                child.apply(m)
                total[m] += playout(child, me, self.peek, self.exact_cards)
            n += 1
            spent = time.perf_counter() - start
            if n >= self.min_worlds and spent * (n + 1) / n > budget:
                break
        self.last_worlds = n
        return _top(total, moves, deal_from_view(view), me)

    def _best(self, moves: list[int], worlds: list[Deal], me: int, exact: bool) -> int:
        total = dict.fromkeys(moves, 0.0)
        for w in worlds:
            for m in moves:
                child = w.copy()
                child.apply(m)
                total[m] += solve(child, me) if exact else playout(child, me, self.peek)
        self.last_worlds = len(worlds)
        return _top(total, moves, worlds[0], me)


def _top(total: dict[int, float], moves: list[int], d: Deal, me: int) -> int:
    """The best total; ties go to the counting policy's choice, else the first."""
    best = max(total.values())
    top = [m for m in moves if total[m] >= best - 1e-9]
    if len(top) == 1 or not any(m < MARRY for m in top):
        return top[0]
    pick = choose(d, me, top)
    return pick if pick in top else top[0]
