"""Perfect-information Monte Carlo (PIMC) for every game on the trick base.

The bot sees only its view. For each decision it asks the game for worlds the seat cannot
tell from the real one (``spec.world_from_view``: the hidden cards dealt exactly uniformly
under every void the view shows), solves each world double-dummy with the Cython solver
under the world's own :class:`~levata.engine.rules.TrickRules`, and averages:

What it knows of a game beyond the rules is the game's strategy
(:class:`~levata.bots.strategy.Strategy`, which the spec names: ``GameSpec.strategy``):

* **Cards**: the value of each legal card under the objective the strategy says the seat
  plays for (``strategy.goal(world, seat)``: tricks, exact tricks for a bid, card points, a
  team's tricks), summed over worlds; the best sum is played. Ties go to the game's
  heuristic bot.
* **Calls** (bids, contracts): the strategy rates each call in each world
  (``strategy.rate_calls(world, seat, calls, solver)``: Whist scores each bid against the
  tricks the seat would take there); the best mean is made.

What the strategy assumes of the other seats' bids and calls is the option ``bidders``
(``random``, the default: their calls say nothing of their hands; ``counting``: they bid as
the game's own model of a bidder, Whist's counting player; ``unknown``: as that model only
half the time, any legal call otherwise; :meth:`~levata.bots.strategy.Strategy.assuming`).
Over the referee on duplicate deals ``random`` did better than ``counting`` against tables
of other styles (Whist: ``docs/games/whist.md``) and no worse among counting bidders.

Two more hooks make it less naive, and a game that leaves them out is searched as above:

* **Evidence** (``strategy.evidence(view, world)``, options ``infer`` and ``read``): worlds
  are dealt uniformly among the deals the view allows, but the other seats' bids, calls and
  plays say more (a seat that bid 5 holds winners, one that let a trick go last in hand held
  no card to take it), under a softened model of their play (:mod:`levata.bots.inference`).
  With ``read=all`` (or ``plays``, ``calls``: one kind alone) each world is picked among
  ``pool`` (4) exact deals of the view in proportion to their likelihood (importance
  resampling, in the deal itself: :class:`~levata.engine.worlds.Evidence`) and searched at
  full weight; ``resample=0``: each world is dealt uniformly and its values weighed by its
  likelihood. ``read=none`` (the default: on duplicate deals against ``infer=0`` it measured
  below 0 in Whist, Tarneeb and 3-5-8, ``docs/inference.md``) reads only a game's
  ``strategy.plausibility(world, seat)`` (Whist's bids with ``bidders=counting``, Filcău's
  and Bestia's calls): drawn worlds are kept in proportion to it, up to ``resample`` draws
  per world searched (after that, or once the budget is spent, weighed by it). ``infer=0``
  searches uniform worlds, alike: the same bot without inference.
* **Realism** (``strategy.rate_cards(world, seat)``, option ``blend``): the solver's value is a
  paranoid one (can the seat force its goal against everyone?), and where a goal cannot be
  forced every card looks alike; ``blend`` times the game's own value of each card against
  realistic players is added (Whist: the deal's points when every seat steers for its bid,
  and whether the seat can still steer to its own). At the default 5 the realistic value
  leads and the solver's 0-or-1 only breaks ties; a small ``blend`` (0.02) keeps the solver
  first and only tells a near miss from a wide one. ``benchmarks/whist_search.py
  --new-option blend=0`` measures either against the plain search.
* **Lines** (``strategy.rate_lines(world, seat)``, ``strategy.rate_call_lines(...)``,
  option ``lines``): the same realistic values, once for each of a few fixed ways the seat
  may go on playing (Whist: winning with the cheapest card, waiting for its tricks). Each
  line is summed over the worlds and a card or call is worth its best line: one way of
  playing that does well across the worlds, not a different one in each (which is what a
  per-world best would credit, seeing the cards). A game without them is read as above.

Nothing here names a game: a new trick game gets this bot by naming a strategy that
writes those hooks (or none, for the plain defaults).

**Time.** ``time_ms`` is a budget per decision (default 500, half the referee's default
second a move; 0: none), counted from when the referee sent the request
(:mod:`levata.bots.clock`: a request that waited behind another match's search has less
left), less a 5% reserve: worlds are drawn until ``worlds`` are solved or another world
would overrun, but never fewer than ``min_worlds`` (1: a request that waited out its budget
is answered after one world). **Big positions.**
A double-dummy solve of a 13-card deal at four seats, or of 16 cards at three, takes far
longer than the clock allows, so while more than ``try_cards`` cards are left to play (the
trick in progress included) a world values each card by ``rollouts`` greedy playouts in C
(``levata.engine.playouts``) instead of solving it. At ``solve_cards`` cards or fewer every
world is solved exactly. In between, each world is *tried*: solved with at most
``solve_nodes`` search nodes (``max_nodes``; ~10 ms), and valued by rollouts when the
search runs out; once most of a decision's first tries run out, its other worlds go
straight to rollouts. The cost of an exact solve varies by orders of magnitude between
deals of one size, so a node budget fits the clock where a card count alone cannot.
``benchmarks/solver.py --sections pimc3`` measures the time and worlds per decision by
trick on 16-card three-hand deals, ``benchmarks/whist_search.py`` on Whist.

>>> from levata.engine import game
>>> from levata.bots import play_match
>>> state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=5)
>>> bots = [PimcBot(seed=s, worlds=10) for s in range(3)]
>>> play_match(state, bots).reason
'complete'
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from typing import Any

from levata.bots.base import RANDOM, Bot, RandomBot, make_bot
from levata.bots.clock import deadline
from levata.bots.search.double_dummy import duty_facts, kernel_seat, position, solve_world
from levata.bots.strategy import strategy_for
from levata.engine import Action, BadConfig, NoWorld, SeatView, actions
from levata.engine import game as find_game
from levata.engine.cardmask import mask_of
from levata.engine.family.tricks import TrickGame
from levata.engine.playouts import playouts
from levata.engine.rules import trick_winner
from levata.engine.solver import Objective, SearchLimit, Solver
from levata.engine.worlds import Evidence, Likelihood

__all__ = ["PimcBot", "rollout_values"]


class PimcBot:
    """Samples worlds from its view, solves each double-dummy, makes the best move on average.

    Options: ``worlds`` (most worlds per decision), ``time_ms`` (budget per decision, 0 for
    none), ``min_worlds`` (worlds even when the budget is spent), ``solve_cards`` (at most
    this many cards left: every world solved exactly), ``try_cards`` (above this many,
    rollouts; in between, a solve of at most ``solve_nodes`` nodes per world, rollouts when
    it runs out), ``rollouts`` (playouts per card instead of a solve),
    ``blend`` (weight of the game's realistic card values, 0 for none), ``infer`` (1: draw
    worlds by the game's evidence from the other seats' bids and plays, 0: uniform),
    ``pool`` (deals each world is picked among by the evidence's likelihood), ``read``
    (``none``, the default: no evidence, only a plausibility; ``all`` of it; the ``plays``
    alone, no call nor its plausibility; the ``calls`` alone), ``resample``
    (most draws per world searched, to keep worlds in proportion to a plausibility; 0:
    weigh every world by its likelihood or plausibility instead),
    ``lines`` (1: read the game's lines where it gives them; 0: not), ``bidders`` (what
    the other seats' bids and calls are taken to be, ``random`` (the default), ``counting``
    or ``unknown``: :meth:`~levata.bots.strategy.Strategy.assuming`).
    """

    name = "pimc"

    def __init__(  # noqa: PLR0913  (the bot's options, keywords a bot entry sets: pimc:worlds=40)
        self,
        game: str = "whist",
        seed: int = 0,
        *,
        worlds: int = 100,
        time_ms: int = 500,
        min_worlds: int = 1,
        solve_cards: int = 32,
        try_cards: int = 42,
        solve_nodes: int = 40_000,
        rollouts: int = 24,
        blend: float = 5.0,
        infer: int = 1,
        resample: int = 10,
        pool: int = 4,
        read: str = "none",
        lines: int = 1,
        bidders: str = "random",
    ) -> None:
        spec = find_game(game)
        if not (isinstance(spec.factory, type) and issubclass(spec.factory, TrickGame)):
            raise BadConfig(f"the pimc bot plays games on the trick base, not {game!r}")
        self.spec = spec
        self.strategy = strategy_for(spec).assuming(bidders)
        self.rng = random.Random(seed)
        self.worlds, self.time_ms, self.min_worlds = worlds, time_ms, max(1, min_worlds)
        self.solve_cards, self.rollouts, self.blend = solve_cards, rollouts, blend
        self.try_cards, self.solve_nodes = max(try_cards, solve_cards), solve_nodes
        self.infer, self.resample, self.lines = bool(infer), max(0, resample), bool(lines)
        self.pool = max(1, pool)
        if read not in ("none", "all", "plays", "calls"):
            raise BadConfig(f"read must be none, all, plays or calls, not {read!r}")
        self.read = read
        kind = "heuristic" if "heuristic" in spec.bots else RANDOM
        self.fallback: Bot = make_bot(kind, game, seed) if kind != RANDOM else RandomBot(game, seed)
        #: Worlds searched for the last decision, how many of them were solved exactly and
        #: how many were drawn (for benchmarks and tests).
        self.last_worlds = self.last_solved = self.last_draws = 0
        self._draws = 0  # worlds drawn this decision, those thrown back included
        self._tries = self._misses = 0
        self._guess: dict[int, int] | None = None  # the last world's values: the next's guess

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        cards = {a.card.index: a for a in legal if a.kind == actions.PLAY and a.card is not None}
        calls = [a for a in legal if a.kind != actions.PLAY or a.card is None]
        if cards and calls:  # a call beside card play (66's close): values not comparable
            calls = []
        try:
            score = self._search(view, cards, calls)
        except NotImplementedError:  # no worlds of this view (read from a position): as usual
            score = {}
        except NoWorld as exc:  # a fault in the game's deal: told, and the usual move played
            logging.getLogger("levata.bots.search").warning("%s; the usual move instead", exc)
            score = {}
        if not score:
            return self.fallback.act(view, legal)
        best = max(score.values())
        top = [a for a in legal if score.get(a) == best]
        if len(top) == 1:
            return top[0]
        pick = self.fallback.act(view, top)  # ties: the game's heuristic player decides
        return pick if pick in top else top[0]

    def _search(
        self, view: SeatView, cards: dict[int, Action], calls: list[Action]
    ) -> dict[Action, float]:
        begun = time.perf_counter()
        stop = deadline(self.time_ms)  # from the request's sending: a wait counts
        score: dict[Action, float] = {}
        line_sums: dict[Action, list[float]] = {}
        solver: Solver | None = None
        n = 0
        self.last_solved = self._tries = self._misses = 0
        self._guess = None
        self._draws = 0
        try:
            evidence = self._evidence(view)
        except NotImplementedError:
            evidence = None
        while n < self.worlds:
            drawn = self._draw(view, stop, evidence)
            if drawn is None:
                continue
            world, w = drawn
            if solver is None:  # one solver per decision: every world has the view's rules
                solver = Solver(world.rules)
            if cards:
                self._rate_cards(world, view.seat, solver, cards, w, score, line_sums)
            if calls:
                self._rate_calls(world, view.seat, solver, calls, w, score, line_sums)
            n += 1
            if not score and not line_sums:  # the game rates none: the fallback decides, at once
                break
            now = time.perf_counter()
            if n >= self.min_worlds and now + (now - begun) / n > stop:
                break  # another world would overrun
        weight = self.blend if cards else 1.0  # card lines beside the solve, as rate_cards
        for a, sums in line_sums.items():  # worth its best line over the worlds
            score[a] = score.get(a, 0.0) + weight * max(sums)
        self.last_worlds, self.last_draws = n, self._draws
        return score

    def _evidence(self, view: SeatView) -> Likelihood | None:
        """The strategy's model of the other seats' play for ``view`` (``None``: none, or
        inference off), built once per decision on a world of the view (its own draw, so
        the bot's worlds are the same with inference on or off up to the weighing)."""
        if not self.infer or self.read == "none":
            return None
        world = self.spec.world_from_view(view, random.Random(len(view.history)))
        assert isinstance(world, TrickGame)
        plays, calls = self.read != "calls", self.read != "plays"
        return self.strategy.evidence(view, world, plays=plays, calls=calls)

    def _draw(
        self, view: SeatView, stop: float, evidence: Likelihood | None
    ) -> tuple[TrickGame, float] | None:
        """One world of ``view`` and its weight, or ``None`` when it is thrown back."""
        if evidence is not None:
            if self.resample:  # picked among pool deals by likelihood, full weight
                world = self.spec.world_from_view(view, self.rng, Evidence(evidence, self.pool))
                self._draws += self.pool
                assert isinstance(world, TrickGame)
                return world, 1.0
            world = self.spec.world_from_view(view, self.rng)
            self._draws += 1
            assert isinstance(world, TrickGame)
            return world, evidence([mask_of(h) for h in world.hands])
        world = self.spec.world_from_view(view, self.rng)
        assert isinstance(world, TrickGame)
        # The plausibility reads the calls: not with the plays alone (read=plays, no clue
        # yet), or that ablation would read the bids wherever no play is evidence yet.
        calls = self.infer and self.read != "plays"
        w = self.strategy.plausibility(world, view.seat) if calls else 1.0
        self._draws += 1
        most = self.resample * self.worlds
        if w < 1.0 and self._draws <= most and time.perf_counter() < stop:
            if self.rng.random() >= w:
                return None
            w = 1.0
        return world, w

    def _rate_cards(
        self,
        world: TrickGame,
        seat: int,
        solver: Solver,
        cards: dict[int, Action],
        w: float,
        score: dict[Action, float],
        line_sums: dict[Action, list[float]],
    ) -> None:
        """Add one world's card values (and card lines) at weight ``w``."""
        values, lines = self._card_values(world, seat, solver)
        for i, v in values.items():
            if i in cards:
                score[cards[i]] = score.get(cards[i], 0.0) + w * v
        for i, vs in lines.items():
            if i in cards:
                _add_line(line_sums, cards[i], vs, w)

    def _rate_calls(
        self,
        world: TrickGame,
        seat: int,
        solver: Solver,
        calls: list[Action],
        w: float,
        score: dict[Action, float],
        line_sums: dict[Action, list[float]],
    ) -> None:
        """Add one world's call values (or call lines) at weight ``w``."""
        strategy = self.strategy
        call_lines = strategy.rate_call_lines(world, seat, calls, solver) if self.lines else {}
        for a, vs in call_lines.items():
            _add_line(line_sums, a, vs, w)
        if not call_lines:
            for a, v in strategy.rate_calls(world, seat, calls, solver).items():
                score[a] = score.get(a, 0.0) + w * v

    def _card_values(
        self, world: TrickGame, seat: int, solver: Solver
    ) -> tuple[dict[int, float], dict[int, list[float]]]:
        """Each card's value in one world, and the game's values of it on each of the seat's
        own lines (``rate_lines``, summed over worlds before the best line is taken)."""
        goal = self.strategy.goal(world, seat)
        pos = position(world)
        left = pos.cards_left
        values = None
        if left <= self.solve_cards:
            values = solve_world(world, seat, solver, goal, guess=self._guess, pos=pos)
        elif left <= self.try_cards and self._trying():
            self._tries += 1
            try:
                values = solve_world(
                    world,
                    seat,
                    solver,
                    goal,
                    max_nodes=self.solve_nodes,
                    guess=self._guess,
                    pos=pos,
                )
            except SearchLimit:
                self._misses += 1
        if values is None:
            seed = self.rng.getrandbits(63)
            return rollout_values(world, seat, goal, pos.hands, pos.trick, self.rollouts, seed), {}
        self.last_solved += 1
        self._guess = values
        out = {i: float(v) for i, v in values.items()}
        if self.blend:  # the game's realistic playout beside the paranoid solve
            lines = self.strategy.rate_lines(world, seat) if self.lines else {}
            if lines:
                return out, {i: vs for i, vs in lines.items() if i in out}
            for i, v in self.strategy.rate_cards(world, seat).items():
                if i in out:
                    out[i] += self.blend * v
        return out, {}

    def _trying(self) -> bool:
        """Still worth trying exact solves this decision: fewer than half of the tries so
        far ran out of nodes (judged after three)."""
        return self._tries < 3 or 2 * self._misses < self._tries


def _add_line(line_sums: dict[Action, list[float]], a: Action, vs: list[float], w: float) -> None:
    """Add one world's values of ``a`` on each line, at weight ``w``."""
    sums = line_sums.setdefault(a, [0.0] * len(vs))
    for k, v in enumerate(vs):
        sums[k] += w * v


def rollout_values(
    world: TrickGame,
    seat: int,
    goal: Objective,
    hands: list[int],
    trick: list[int],
    n: int,
    seed: int,
) -> dict[int, float]:
    """Each legal card of ``seat`` valued by ``n`` greedy playouts (10% random cards) after
    it, read under ``goal``: mean tricks or points of the side, or the share of playouts in
    which a one-seat side ends with exactly its target.

    >>> from levata.engine import game
    >>> from levata.engine.cardmask import mask_of
    >>> from levata.engine.solver import tricks
    >>> w = game("whist").new_match(players=3, options={"deal_size": 4}, seed=1)
    >>> for bid in (0, 0, 0):
    ...     w.apply(w.to_act()[0], Action("bid", number=bid))
    >>> seat = w.to_act()[0]
    >>> values = rollout_values(w, seat, tricks(seat), [mask_of(h) for h in w.hands], [], 8, 1)
    >>> sorted(values) == sorted(c.index for c in w.playable(seat))
    True
    """
    side = goal.side_mask(world.rules)
    seats = [s for s in range(world.rules.seats) if side >> s & 1]  # as the kernel numbers them
    me, lead = kernel_seat(world, seat), kernel_seat(world, world.leader)
    facts = duty_facts(world)  # the sure-pot duty's, where the rules have it
    out: dict[int, float] = {}
    for card in world.playable(seat):
        after = list(hands)
        after[me] &= ~(1 << card.index)
        now = [*trick, card.index]
        leader, taken, gain = lead, -1, 0
        known = dict(facts)
        if len(now) == world.rules.seats:  # the card ends the trick: play on from its taker
            taken = trick_winner(world.rules, lead, now)  # as the kernel numbers the seats
            gain = sum(world.rules.points.get(i, 0) for i in now)
            leader, now = taken, []
            if "won" in known:
                known["won"] = [w + (s == taken) for s, w in enumerate(known["won"])]
        got: dict[str, Any]
        if any(after):
            got = playouts(
                world.rules,
                after,
                leader,
                now,
                n=n,
                policy="greedy",
                epsilon=0.1,
                seed=seed,
                **known,
            )
        else:
            got = {"tricks": [0.0] * world.rules.seats, "points": [0.0] * world.rules.seats}
            got["hist"] = [[1] for _ in range(world.rules.seats)]
        if taken >= 0:
            tally: Any = got  # the kernel's tallies: per-seat lists of numbers
            tally["tricks"][taken] += 1
            tally["points"][taken] += gain + (0 if any(after) else world.rules.last_trick_bonus)
            tally["hist"][taken] = [0, *tally["hist"][taken]]
        out[card.index] = _goal_value(goal, seats, got)
    return out


def _goal_value(goal: Objective, seats: list[int], got: dict) -> float:
    if goal.kind == "points":
        return sum(got["points"][s] for s in seats)
    if goal.kind == "tricks" or len(seats) != 1:
        return sum(got["tricks"][s] for s in seats)
    hist = got["hist"][seats[0]]
    need = goal.target - goal.already
    return hist[need] / sum(hist) if 0 <= need < len(hist) else 0.0
