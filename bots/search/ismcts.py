"""Information-set Monte Carlo tree search (IS-MCTS) for every game that rebuilds worlds.

The bot knows only its view. Each iteration it deals one world the seat cannot tell from the
real one (:meth:`~levata.engine.GameSpec.world_from_view`: a fresh determinization per
iteration), walks down one shared tree, expands one node, plays the world out with a rollout
policy and backs up every seat's reward along the path.

* **Single-observer IS-MCTS** (Cowling, Powley and Whitehouse, 2012): one tree over this
  seat's information sets; an edge is ``(seat, action)`` and the other seats' turns are nodes
  of the same tree. A node's children differ from world to world (another seat's cards), so
  selection is UCB1 over the edges *legal in this world*, with **availability counts**: an
  edge's exploration term uses how often it was available, not its parent's visits (else
  rare actions are starved). It is the simplest sound choice: it needs only the contract,
  one world per iteration and no per-game code; its known faults (the others are treated as
  if they saw the determinized cards) cost little where the others' information is small.
* **The others' moves** come from the rollout policy by default (``others=policy``: the
  tree holds this seat's decisions only, which with tens of iterations per decision is
  worth more than a tree over moves the others rarely make); ``others=tree`` is full
  SO-IS-MCTS. **Simultaneous steps** (Repezita's tick): only this seat's choice is a tree
  edge; the other seats submit what the rollout policy picks. In **real time** only the
  first decision is searched (flat UCB), the clock moves :data:`CLOCK_STEP_MS` per action
  in the rollout, and the budget is at most ``realtime_ms``.
* **Rollouts** use the game's heuristic bot for every seat, or uniform random moves
  (``rollout=heuristic|random``; ``auto`` is the heuristic where the game has one). They
  stop after ``horizon`` actions (default 30; 0: play to the end) where the game offers an
  ``estimate()`` of the outcome (Macao: finishers, then fewest cards; Repezita: each seat's
  chance by its lead in cards): full rollouts of a shedding game are long, and cutting them
  gives several times the iterations
  (a game's spec may set its own: Huzur plays to the end, where its kernel makes that cheap
  and the estimate misjudged moves).
* **Fast playouts**: where the game's state offers ``playout_state(seed)`` (Macao, Huzur,
  ...), each world is turned into that copy once and the search runs on it: it clones,
  applies and lists legal actions without events or views, and plays the rollout itself
  (``rollout(policy, max_actions, seed)``, in C for Macao, Huzur, Tabinet, Kemps, Toci and Repezita,
  and for Trombon whole plays in its rank kernel under a copy that follows the cards)
  with the same policy (``choose`` for the other seats' moves inside the tree). Where the state also
  offers ``playout_dealer(seat, seed)`` (every game with a fast copy: Macao, Huzur, Tabinet,
  Kemps, Toci, Repezita, Trombon), the search deals its worlds with it, as fast copies: the
  same draw as ``world_from_view``'s without a Python state for each. The game proves its copy
  plays by its own rules and its policy picks as its heuristic bot does (a differential test;
  Trombon's policy is its kernel's rule of thumb, which calls no cornered seat);
  ``fast=False`` searches through the contract's ``clone``/``apply`` instead (the benchmarks
  compare the two). A copy of a
  simultaneous game (Kemps' tick) lists every seat to act, the others submitting by the
  policy before this seat's tree choice; a copy whose choices carry a payload ``dress``-es
  the tree's bare choice as its policy would (Kemps' signal); and one that offers
  ``serve(seat)`` is told whose search it serves (Kemps' copy then leaves the call the
  search weighs to it, not to a partner played by the heuristic).
* **Candidates**: where the game's heuristic bot names the moves worth weighing (its
  ``candidates(view, legal)``: Kemps' pass, calls and best swaps toward a quad), the root
  holds those alone, few enough to be paired (below).
* **Trick deals in C**: where the rest of a trick deal is card play under its rules alone
  (``TrickGame.plays_out_by_rules``) and every legal action plays a card, the whole search
  runs in the kernel (:mod:`levata.bots.search.card_play`): the same tree (``others=auto``:
  the other seats' cards are edges too, at thousands of iterations a decision), ``reuse``
  iterations per world dealt (moved on by ``swaps`` random swaps of hidden cards before each
  iteration, every world still a uniform draw), ``cheap`` rollouts (``random`` or the
  playouts' ``greedy``), the deal's end valued by the game's strategy (``deal_values``), the
  guard as below; ``root`` and ``horizon`` do not apply there. ``fast=False`` keeps the
  contract path.
* **Inference** (``infer=1``, off by default): each world is picked among ``pool`` (4)
  exact deals by the game's model of the other seats' bids and plays (``Strategy.evidence``,
  :mod:`levata.bots.inference`), as ``pimc`` draws them; in the kernel the worlds are then
  not moved on by swaps (swaps keep worlds uniform). A model made of clues alone
  (:class:`~levata.engine.evidence.Clue`) is weighed by the game's dealer in C where it
  offers ``weigh(clues, pool)`` (Kemps': a seat seen taking three of a rank holds the
  fourth), else the worlds come from ``world_from_view``. Where the model says anything, no
  move is settled (below): the heuristic's rule does not read what the worlds now do.
* **Root**: with few root actions (``root=auto``: at most :data:`PAIRED_UP_TO`) every action is
  played out on the *same* world with the same luck each iteration (common random numbers:
  the rollout stream and the policy bots' streams restart from one seed), so the search
  measures the actions' differences instead of the worlds'; with the heuristic as rollout
  policy this is a one-step policy improvement. With more actions (a Repezita hand) it is
  the UCB tree above (``root=ucb|paired`` forces either).
* **Guard**: where the game has a heuristic, its move is played unless the search's pick
  beats it by ``guard`` standard errors (paired differences at a paired root): a handful of
  noisy iterations must not overturn a sound move. With ``corrected=1`` the margin counts
  the moves the pick was the best of (Šidák: the chance that the luckiest of ``k`` moves no
  better than the heuristic's clears the margin is the chance one such move has of it, not
  ``k`` times as much): where most moves are all but alike (Repezita's hand of wrong cards,
  in a race already won or lost), a plain guard hands the pick to whichever one the worlds
  favoured by luck.
* **Reward**: each seat's final score, normalised by the smallest and largest score seen in
  this search (so any score scale maps to [0, 1]). A multi-deal match (its duplicate unit
  option set to 0) is rolled out only to the end of the current deal and rewarded with the
  score each seat gained in it: the whole match is far too noisy and slow to roll out.
* **Settled moves**: where the game's heuristic bot says a move needs no search (its
  ``settled(view, legal)``: Toci's free calls in a window), that move is played at once,
  unless the decision has evidence (``infer``): then it is searched among the candidates.
* **Budget**: ``iterations`` (0: no limit) and ``time_ms`` per decision (0: no limit); it stops
  at whichever comes first (an iteration that would overrun, by the mean so far, is not
  begun; the time counted from the request's sending, :mod:`levata.bots.clock`). The move is
  the most visited root edge (paired: the best mean). Every random choice comes from the bot's seed.

>>> from levata.engine import game
>>> from levata.bots import play_match
>>> state = game("macao").new_match(players=2, seed=3)
>>> bots = [IsmctsBot("macao", seed=s, iterations=20, time_ms=0) for s in (1, 2)]
>>> play_match(state, bots).reason in ("complete", "cap", "deadlock")
True
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Protocol

from levata.bots.base import Bot, bot_class, make_bot
from levata.bots.clock import deadline as stop_by
from levata.bots.search.card_play import card_actions, fits_kernel, search_cards
from levata.bots.strategy import strategy_for
from levata.engine import Action, GameSpec, GameState, NoWorld, SeatView
from levata.engine import game as find_game
from levata.engine.family.tricks import TrickGame
from levata.engine.worlds import Evidence

__all__ = ["CLOCK_STEP_MS", "IsmctsBot", "Node", "Playout", "SearchStats"]

#: Referee milliseconds per action in a real-time rollout (what in-process play uses).
CLOCK_STEP_MS = 100
#: ``root=auto`` compares the root's actions on shared worlds when there are this few.
PAIRED_UP_TO = 6
#: The kernel's rollout policy with ``cheap=auto`` where the bot rolls out by the heuristic.
CHEAP_AUTO = "random"
#: The greedy kernel policy's share of uniformly random cards.
CHEAP_EPSILON = 0.1

Policy = Callable[[GameState, int], Action]


class Playout(Protocol):
    """A game's fast copy of a world for search (``GameState.playout_state(seed)``): play
    only, no events or views; its policies are ``heuristic`` (the game's heuristic bot's
    choices) and ``random``, and its random stream restarts from a rollout's ``seed``."""

    def clone(self) -> Playout: ...
    def is_over(self) -> bool: ...
    def to_act(self) -> tuple[int, ...]: ...
    def legal_actions(self, seat: int) -> list[Action]: ...
    def _apply(self, seat: int, action: Action) -> None: ...
    def choose(self, seat: int, policy: str = ...) -> Action: ...
    def rollout(self, policy: str = ..., max_actions: int = ..., seed: int | None = ...) -> int: ...
    def estimate(self) -> tuple[float, ...]: ...


class Dealer(Protocol):
    """A game's dealer of fast copies (``GameState.playout_dealer(seat, seed)``): each
    :meth:`deal` is a new world ``seat`` cannot tell from the real one, drawn as
    ``world_from_view`` draws it but without building a game state (Huzur's, in C)."""

    def deal(self, seed: int = ...) -> Playout: ...


class Dressing(Protocol):
    """A fast copy of a game whose choices carry a payload (Kemps' signals) also offers
    ``dress(seat, choice)``: the choice with the payload its policy gives it. The tree's
    edges are bare choices; the search plays them dressed, as the bot will."""

    def dress(self, seat: int, choice: Action) -> Action: ...


World = GameState | Playout


def _no_world(exc: Exception) -> None:
    """A world could not be rebuilt from the view: the bot plays its usual move, and a fault
    in a game's deal (:class:`~levata.engine.NoWorld`) is told in the bot's log."""
    if isinstance(exc, NoWorld):
        logging.getLogger("levata.bots.search").warning("%s; the usual move instead", exc)


def _overruns(begun: float, done: int, deadline: float) -> bool:
    """Whether another iteration, as long as the mean of the ``done`` since ``begun``, would
    end past ``deadline`` (``perf_counter`` times).

    >>> t = time.perf_counter()
    >>> _overruns(t, 4, t + 60.0), _overruns(t - 1.0, 1, t + 0.5)
    (False, True)
    """
    now = time.perf_counter()
    return now + (now - begun) / done > deadline


class Node:
    """An information set of the tree: edges ``(seat, action)`` to children, with for each its
    visits, the times it was available, and the reward summed for the seat that takes it."""

    __slots__ = ("avail", "children", "reward", "square", "visits")

    def __init__(self) -> None:
        self.children: dict[tuple[int, Action], Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0
        self.square = 0.0  # sum of squared rewards: the spread the final choice weighs

    def mean(self) -> float:
        return self.reward / self.visits if self.visits else 0.0

    def error(self) -> float:
        """The standard error of :meth:`mean` (large while there are few visits)."""
        if self.visits < 2:
            return 1.0
        m = self.mean()
        var = max(self.square / self.visits - m * m, 0.0)
        return math.sqrt(var / (self.visits - 1))


class SearchStats:
    """What the last decisions cost: iterations, simulated actions and seconds."""

    def __init__(self) -> None:
        self.decisions = 0
        self.iterations = 0
        self.rollouts = 0  # iterations play one rollout each; paired worlds one per action
        self.actions = 0
        self.seconds = 0.0
        self.times: list[float] = []
        self.kernel_decisions = 0  # decisions searched in the C kernel (card_play)
        self.worlds = 0  # worlds dealt for them

    def per_second(self) -> float:
        """Rollouts (simulations) per second of search."""
        return self.rollouts / self.seconds if self.seconds else 0.0


def _movers(seats: Sequence[int], me: int) -> list[int]:
    """The order the seats to act move in an iteration: at a simultaneous step (Kemps' tick)
    the others by the policy first and this seat last, so its choice is the tree's.

    >>> _movers([0, 1, 2], 1), _movers([2], 1)
    ([0, 2, 1], [2])
    """
    if len(seats) > 1:
        return [s for s in seats if s != me] + ([me] if me in seats else [])
    return list(seats)


def _outcome(
    world: GameState, me: int, per_deal: bool, base: tuple[float, ...]
) -> tuple[float, ...]:
    """What an iteration backs up: the result at the end; with ``per_deal`` the points the
    deal moved; cut short at the horizon, the game's estimate."""
    if world.is_over():
        scores = world.result().scores
    elif per_deal:
        scores = world.view(me, False).scores
    else:
        scores = world.estimate()  # type: ignore[attr-defined]  # checked before the cut
    if per_deal:
        scores = tuple(s - b for s, b in zip(scores, base, strict=True))
    return tuple(scores)


class IsmctsBot:
    """Information-set MCTS over worlds rebuilt from the view; see the module."""

    name = "ismcts"

    def __init__(  # noqa: PLR0913  (the bot's options, keywords a bot entry sets: pimc:worlds=40)
        self,
        game: str = "",
        seed: int = 0,
        *,
        iterations: int = 0,
        time_ms: float = 100.0,
        c: float = 0.7,
        rollout: str = "auto",
        realtime_ms: float = 20.0,
        others: str = "auto",
        guard: float = 1.0,
        corrected: bool = False,
        horizon: int = 30,
        root: str = "auto",
        fast: bool = True,
        reuse: int = 64,
        swaps: int = 8,
        cheap: str = "auto",
        infer: int = 0,
        pool: int = 4,
    ) -> None:
        if rollout not in ("auto", "heuristic", "random"):
            raise ValueError(f"rollout must be auto, heuristic or random, not {rollout!r}")
        if root not in ("auto", "ucb", "paired"):
            raise ValueError(f"root must be auto, ucb or paired, not {root!r}")
        if others not in ("auto", "policy", "tree"):
            raise ValueError(f"others must be auto, policy or tree, not {others!r}")
        if cheap not in ("auto", "greedy", "random"):
            raise ValueError(f"cheap must be auto, greedy or random, not {cheap!r}")
        if reuse < 1 or swaps < 0:
            raise ValueError("reuse must be at least 1 (iterations per world dealt), swaps >= 0")
        if iterations < 0 or time_ms < 0 or (iterations == 0 and time_ms == 0):
            raise ValueError("ismcts needs iterations > 0 or time_ms > 0")
        self.game = game
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.time_ms = time_ms
        self.c = c
        self.rollout = rollout
        self.realtime_ms = realtime_ms
        self.others = others
        self.guard = guard
        self.corrected = corrected
        self.horizon = horizon
        self.root = root
        self.fast = fast
        self.reuse = reuse
        self.swaps = swaps
        self.cheap = cheap
        self.infer, self.pool = bool(infer), max(1, pool)
        self._drawing: Evidence | None = None  # the decision's evidence (infer), if any
        self._roll = self.rng  # the stream rollouts draw from (paired: one per world)
        self._last: Sequence[float] = ()  # the last rollout's scores
        self._own: Bot | None = None  # the heuristic's opinion on this seat's own decisions
        self.stats = SearchStats()
        self._policies: dict[int, Bot] = {}
        self._only: frozenset[Action] | None = None  # the root's candidates, where named

    # -- the policy that plays rollouts and the other seats' simultaneous moves ---------------

    def _uses_heuristic(self, game: str) -> bool:
        if self.rollout == "random":
            return False
        has = "heuristic" in find_game(game).bots
        if self.rollout == "heuristic" and not has:
            raise ValueError(f"{game} has no heuristic bot to roll out with")
        return has

    def _policy(self, game: str) -> Policy:
        if not self._uses_heuristic(game):
            return lambda world, seat: self._roll.choice(world.legal_actions(seat))
        bots = self._policies

        def heuristic(world: GameState, seat: int) -> Action:
            bot = bots.get(seat)
            if bot is None:
                bot = bots[seat] = make_bot("heuristic", game, seed=self.rng.getrandbits(32))
            legal = world.legal_actions(seat)
            if len(legal) == 1:
                return legal[0]
            return bot.act(world.view(seat, history=False), legal)

        return heuristic

    # -- one decision ---------------------------------------------------------------------------

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        choice = legal[0] if len(legal) == 1 else self._search(view, legal)
        return self._dressed(view, choice)

    def _dressed(self, view: SeatView, choice: Action) -> Action:
        """In a game that takes a payload beside a choice (Kemps' signals), the search picks
        the choice and the game's heuristic adds the payload it would give with that choice:
        the legal list, and so the tree, never holds payloads."""
        game = view.game or self.game
        factory = find_game(game).factory
        if getattr(factory, "payload_schema", GameState.payload_schema) is GameState.payload_schema:
            return choice
        if not self._uses_heuristic(game):
            return choice
        if self._own is None:
            self._own = make_bot("heuristic", game, seed=self.rng.getrandbits(32))
        dressed = self._own.act(view, [choice])
        return dressed if dressed.without_payload() == choice else choice

    def _search(self, view: SeatView, legal: Sequence[Action]) -> Action:  # noqa: PLR0915
        started = time.perf_counter()
        game = view.game or self.game
        spec = find_game(game)
        # With inference, the model of the other seats (infer) first: where it says anything,
        # the worlds know more than the heuristic's rule reads, so nothing is settled.
        evidence = self._drawing = self._evidence(spec, view)
        sure = self._settled(view, legal, game) if evidence is None else None
        if sure is not None:  # the game's heuristic knows no search betters this move
            return sure
        full = legal
        policy = self._policy(game)
        realtime = view.options.get("mode") == "realtime"
        budget = min(self.time_ms, self.realtime_ms) if realtime and self.time_ms else self.time_ms
        # From the request's sending (a wait counts), keeping back what the reply's way back
        # costs (bots.clock's reserve, as pimc does).
        deadline = stop_by(budget) if budget else math.inf
        unit = spec.duplicate_unit
        per_deal = unit is not None and view.options.get(unit) == 0
        root = Node()
        legal, first, paired_root = self._root(view, full, game)
        if len(legal) == 1:
            return legal[0]
        self._only = frozenset(legal) if len(legal) < len(full) else None
        # The game's fast copy, where it has one: real-time and per-deal rollouts read the
        # clock and the view, which it does not keep.
        fast = self.fast and not realtime and not per_deal
        kind = "heuristic" if self._uses_heuristic(game) else "random"
        cards = card_actions(full) if self.fast and not realtime else None
        if cards is not None:  # a trick deal's card play: the whole search in C, if it fits
            picked = self._in_kernel(spec, view, legal, cards, deadline, first, started)
            if picked is not None:
                return picked
        done = 0
        actions = 0
        paired: dict[Action, list[float]] = {a: [] for a in legal}
        begun = time.perf_counter()
        dealer: Dealer | None = None
        while True:
            world: World
            if dealer is not None:
                world = dealer.deal(self.rng.getrandbits(64))
            else:
                try:
                    world, dealer = self._deal(spec, view, full, fast, evidence, not done)
                except (NotImplementedError, NoWorld) as exc:  # no worlds of this view
                    _no_world(exc)
                    usual = self._usual(view, legal, game)
                    return usual if usual is not None else legal[0]
            fast_copy = not isinstance(world, GameState)
            serve = getattr(world, "serve", None) if fast_copy else None
            if serve is not None:  # the copy is told whose search it serves (Kemps')
                serve(view.seat)
            policy_of = kind if fast_copy else policy
            if paired_root:
                actions += self._pair(world, view, legal, policy_of, realtime, per_deal, paired)
            else:
                actions += self._iterate(root, world, view, policy_of, realtime, per_deal, first)
            done += 1
            if (self.iterations and done >= self.iterations) or _overruns(begun, done, deadline):
                break
        if paired_root:
            choice = self._choose_paired(paired, legal, first)
        else:
            choice = self._choose(root, view, legal, first)
        spent = time.perf_counter() - started
        stats = self.stats
        stats.decisions += 1
        stats.iterations += done
        stats.rollouts += done * (len(legal) if paired_root else 1)
        stats.actions += actions
        stats.seconds += spent
        stats.times.append(spent)
        return choice

    def _deal(
        self,
        spec: GameSpec,
        view: SeatView,
        full: Sequence[Action],
        fast: bool,
        evidence: Evidence | None,
        check: bool,
    ) -> tuple[World, Dealer | None]:
        """One world rebuilt from ``view`` (``NotImplementedError`` where the game cannot),
        as the game's fast copy where ``fast`` and it has one; and the game's dealer of such
        copies where it has one (Macao's, Huzur's, Repezita's, ..., in C: the same draw as
        ``world_from_view``'s), which then deals the iterations to come. Inference weighs
        worlds: with it, a dealer only where the evidence is made of clues and the dealer
        weighs its draws by them (``weigh(clues, pool)``: Kemps'); the world it starts from
        is then a uniform one, any world of the view will do. ``check``: the world's legal
        actions must be the ones the seat was given."""
        clued = fast and evidence is not None and bool(evidence.clues)
        dealt = spec.world_from_view(view, self.rng, None if clued else evidence)
        if check and set(dealt.legal_actions(view.seat)) != set(full):
            raise RuntimeError(  # a world under other rules than the match's: say so
                f"a world rebuilt from the view of seat {view.seat} disagrees with the "
                f"legal actions it was given (options {dict(view.options)})"
            )
        deals = getattr(dealt, "playout_dealer", None) if fast else None
        if deals is not None and (evidence is None or clued):
            dealer: Dealer = deals(view.seat, self.rng.getrandbits(64))
            weigh = getattr(dealer, "weigh", None)
            if evidence is not None and weigh is not None:
                weigh(evidence.clues, evidence.pool)
            if evidence is None or weigh is not None:
                return dealer.deal(self.rng.getrandbits(64)), dealer
        if clued:  # no dealer weighs the clues: the world drawn by the evidence after all
            dealt = spec.world_from_view(view, self.rng, evidence)
        hook = getattr(dealt, "playout_state", None) if fast else None
        return (dealt if hook is None else hook(self.rng.getrandbits(64))), None

    def _in_kernel(
        self,
        spec: GameSpec,
        view: SeatView,
        legal: Sequence[Action],
        cards: dict[int, Action],
        deadline: float,
        usual: Action | None,
        started: float,
    ) -> Action | None:
        """The decision searched in the kernel (:mod:`levata.bots.search.card_play`), or
        ``None`` where this deal's card play does not fit it (the contract path then)."""
        evidence = self._drawing
        factory = spec.factory
        if not (isinstance(factory, type) and issubclass(factory, TrickGame)):
            return None  # not a trick game: no world to deal for it
        try:
            world = spec.world_from_view(view, self.rng, evidence)
        except (NotImplementedError, NoWorld) as exc:  # the contract path says it again
            _no_world(exc)
            return None
        if not isinstance(world, TrickGame) or not fits_kernel(world, view.seat, cards):
            return None
        run = search_cards(
            spec,
            view,
            world,
            cards,
            self.rng,
            deadline=deadline,  # the clock's reserve is already kept back (stop_by)
            iterations=self.iterations,
            reuse=self.reuse,
            swaps=self.swaps if evidence is None else 0,  # swaps would undo the weighing
            evidence=evidence,
            others_in_tree=self.others != "policy",
            policy=self._cheap(),
            epsilon=CHEAP_EPSILON,
            c=self.c,
            prefer=usual,
        )
        root = Node()
        for action, (visits, avail, reward, square) in run.edges.items():
            edge = root.children[(view.seat, action)] = Node()
            edge.visits, edge.avail, edge.reward, edge.square = visits, avail, reward, square
        choice = self._choose(root, view, legal, usual)
        spent = time.perf_counter() - started
        stats = self.stats
        stats.decisions += 1
        stats.kernel_decisions += 1
        stats.iterations += run.iterations
        stats.rollouts += run.iterations
        stats.actions += run.actions
        stats.worlds += run.worlds
        stats.seconds += spent
        stats.times.append(spent)
        return choice

    def _evidence(self, spec: GameSpec, view: SeatView) -> Evidence | None:
        """With ``infer``, the game's model of the other seats' bids and plays for ``view``
        (:meth:`~levata.bots.strategy.Strategy.evidence`), built on a world of its own draw:
        the worlds are then picked among ``pool`` deals by it. ``None``: no inference."""
        if not self.infer:
            return None
        try:
            world = spec.world_from_view(view, random.Random(len(view.history)))
        except (NotImplementedError, NoWorld) as exc:
            _no_world(exc)
            return None
        likelihood = strategy_for(spec).evidence(view, world)
        return Evidence.of(likelihood, self.pool) if likelihood is not None else None

    def _cheap(self) -> str:
        """The kernel's rollout policy: ``cheap``, or with ``auto`` the greedy one where the
        bot rolls out by the heuristic and uniform random cards where it rolls out at random."""
        if self.cheap != "auto":
            return self.cheap
        return "random" if self.rollout == "random" else CHEAP_AUTO

    def _pair(
        self,
        world: World,
        view: SeatView,
        legal: Sequence[Action],
        policy: Policy | str,
        realtime: bool,
        per_deal: bool,
        out: dict[Action, list[float]],
    ) -> int:
        """Every legal action played out on the same world with the same luck (common random
        numbers: the rollout stream and the policy bots' own streams restart from one seed),
        so that the actions' differences are measured, not the worlds'."""
        seed = self.rng.getrandbits(64)
        steps = 0
        if isinstance(policy, str):  # a fast copy: its rollouts restart from the seed itself
            assert not isinstance(world, GameState)
            for action in legal:
                steps += self._iterate_fast(Node(), world.clone(), view, policy, action, seed)
                out[action].append(self._last[view.seat])
            return steps
        for action in legal:
            self._roll = roll = random.Random(seed)
            for bot in self._policies.values():
                if hasattr(bot, "rng"):
                    bot.rng = random.Random(
                        roll.getrandbits(32)
                    )  # the reference bots keep their stream here
            steps += self._iterate(Node(), world.clone(), view, policy, realtime, per_deal, action)
            out[action].append(self._last[view.seat])
        self._roll = self.rng
        return steps

    def _choose_paired(
        self, paired: dict[Action, list[float]], legal: Sequence[Action], usual: Action | None
    ) -> Action:
        """The best mean; against the heuristic's move, only when better by ``guard``
        standard errors of the paired differences."""
        base = usual if usual is not None else legal[0]
        ref = paired[base]
        if not ref:
            return base
        best, best_mean = base, 0.0
        guard = self._guard(len(paired))
        for action, values in paired.items():
            diffs = [v - r for v, r in zip(values, ref, strict=True)]
            m = sum(diffs) / len(diffs)
            if len(diffs) > 1:
                var = sum((d - m) ** 2 for d in diffs) / (len(diffs) - 1)
                err = math.sqrt(var / len(diffs))
            else:
                err = math.inf
            if m > best_mean and m > guard * err:
                best, best_mean = action, m
        return best

    def _settled(self, view: SeatView, legal: Sequence[Action], game: str) -> Action | None:
        """The move the game's heuristic bot says no search could better here (its
        ``settled(view, legal)``: Toci's free calls), or None: search. A heuristic without
        that method settles nothing (and costs no draw of this bot's stream)."""
        if "heuristic" not in find_game(game).bots:
            return None
        if self._own is None:
            if not hasattr(bot_class("heuristic", game), "settled"):
                return None
            self._own = make_bot("heuristic", game, seed=self.rng.getrandbits(32))
        settle = getattr(self._own, "settled", None)
        return None if settle is None else settle(view, legal)

    def _root(
        self, view: SeatView, legal: Sequence[Action], game: str
    ) -> tuple[list[Action], Action | None, bool]:
        """The root's moves (the game's candidates, the heuristic's move among them), that
        move (``None``: none is asked for), and whether they are few enough to be paired."""
        moves = self._candidates(view, legal, game)

        def paired() -> bool:
            return self.root == "paired" or (self.root == "auto" and len(moves) <= PAIRED_UP_TO)

        first = self._usual(view, legal, game) if self.guard or paired() else None
        if first is not None:
            first = first.without_payload()  # the tree's edges are choices
            if first not in moves:  # a heuristic's own move is always weighed
                moves.append(first)
        return moves, first, paired()

    def _candidates(self, view: SeatView, legal: Sequence[Action], game: str) -> list[Action]:
        """The moves the game's heuristic bot says are worth weighing (its ``candidates(view,
        legal)``: Kemps' pass, calls and the swaps toward a quad), else every legal one. A
        heuristic without that method names none (and costs no draw of this bot's stream)."""
        if "heuristic" not in find_game(game).bots or not self._uses_heuristic(game):
            return list(legal)
        if not hasattr(bot_class("heuristic", game), "candidates"):
            return list(legal)
        if self._own is None:
            self._own = make_bot("heuristic", game, seed=self.rng.getrandbits(32))
        picked: list[Action] = self._own.candidates(view, legal)  # type: ignore[attr-defined]
        return picked or list(legal)

    def _usual(self, view: SeatView, legal: Sequence[Action], game: str) -> Action | None:
        """The heuristic's move here, or None where the game has none (or rolls out random)."""
        if not self._uses_heuristic(game):
            return None
        if self._own is None:
            self._own = make_bot("heuristic", game, seed=self.rng.getrandbits(32))
        return self._own.act(view, legal)

    def _choose(
        self, root: Node, view: SeatView, legal: Sequence[Action], usual: Action | None
    ) -> Action:
        """The most visited edge; but where the game has a heuristic, its move unless the
        search's pick beats it by ``guard`` standard errors (few iterations are noisy)."""
        me, legal_set = view.seat, set(legal)
        edges = {a: n for (s, a), n in root.children.items() if s == me and a in legal_set}
        if not edges:
            return legal[0] if usual is None else usual
        pick = max(edges, key=lambda a: (edges[a].visits, edges[a].mean()))
        if usual is None or usual == pick:
            return pick
        if usual not in edges:
            return usual
        a, b = edges[pick], edges[usual]
        margin = self._guard(len(edges)) * math.sqrt(a.error() ** 2 + b.error() ** 2)
        return pick if a.mean() - b.mean() > margin else usual

    def _guard(self, moves: int) -> float:
        """The standard errors by which the search's pick among ``moves`` must beat the
        heuristic's move: ``guard``, or with ``corrected`` the margin the best of the other
        ``moves - 1`` clears by luck as rarely as one move clears ``guard`` (Šidák).

        >>> bot = IsmctsBot("repezita", corrected=True)
        >>> bot._guard(2), round(bot._guard(26), 2)
        (1.0, 2.46)
        """
        if not self.corrected or moves <= 2 or self.guard <= 0:
            return self.guard
        normal = NormalDist()
        return normal.inv_cdf(normal.cdf(self.guard) ** (1 / (moves - 1)))

    def _iterate(
        self,
        root: Node,
        world: World,
        view: SeatView,
        policy: Policy | str,
        realtime: bool,
        per_deal: bool,
        first: Action | None = None,
    ) -> int:
        """One determinized iteration: select, expand, roll out, back up. Returns its actions.

        ``policy`` is a callable on a contract world, or on a game's fast copy (a
        :class:`Playout`) the name of the policy it plays by itself."""
        if isinstance(policy, str):
            assert not isinstance(world, GameState)  # a policy's name comes with a Playout
            return self._iterate_fast(root, world, view, policy, first, self.rng.getrandbits(64))
        assert isinstance(world, GameState)
        me, rng, c = view.seat, self.rng, self.c
        tree_all = self.others == "tree"
        node: Node | None = root
        path: list[tuple[Node, int]] = []  # (child reached, seat that took the edge)
        base = view.scores
        steps = 0
        if realtime:  # flat: only this decision is searched, then the clock runs
            steps = self._realtime_start(root, world, view, policy, first, path)
        horizon = self.horizon + steps if self.horizon else 0
        while not world.is_over():
            if horizon and steps >= horizon and node is None and hasattr(world, "estimate"):
                break  # deep enough: the game's estimate of the outcome stands in
            seats = world.to_act()
            for seat in _movers(seats, me):
                if node is not None and (seat == me or (len(seats) == 1 and tree_all)):
                    action, child, fresh = self._select(
                        node, world, seat, rng, c, *((first, self._only) if node is root else ())
                    )
                    path.append((child, seat))
                    node = None if fresh else child
                else:
                    action = policy(world, seat)
                world._apply(seat, action)  # from legal_actions: no need to check it again
                steps += 1
            if per_deal and world.view(me, history=False).scores != base:
                break  # the deal is over: its points are the reward
        self._back_up(path, _outcome(world, me, per_deal, base))
        return steps

    def _realtime_start(
        self,
        root: Node,
        world: GameState,
        view: SeatView,
        policy: Policy,
        first: Action | None,
        path: list[tuple[Node, int]],
    ) -> int:
        """A real-time iteration's start: this seat's decision from the tree, then every
        seat by the policy as the clock runs, to the end. Returns the actions taken."""
        me = view.seat
        action, child, _ = self._select(root, world, me, self.rng, self.c, first, self._only)
        path.append((child, me))
        world._apply(me, action)
        steps = 1
        clock = int(view.counters.get("clock_ms", 0))
        while not world.is_over():
            world.advance_clock(clock + steps * CLOCK_STEP_MS)
            seats = world.to_act()
            if world.is_over() or not seats:
                break
            seat = seats[steps % len(seats)]
            world._apply(seat, policy(world, seat))
            steps += 1
        return steps

    def _iterate_fast(
        self,
        root: Node,
        world: Playout,
        view: SeatView,
        kind: str,
        first: Action | None,
        seed: int,
    ) -> int:
        """:meth:`_iterate` on a game's fast copy: the tree as there, the other seats' moves
        in it by the copy's ``choose``, and the rollout past it played by the copy from
        ``seed``, to the same horizon (paired: one seed per world, so every root action sees
        the same luck)."""
        me, rng, c = view.seat, self.rng, self.c
        tree_all = self.others == "tree"
        dress = getattr(world, "dress", None)  # a game whose choices carry a payload
        node: Node | None = root
        path: list[tuple[Node, int]] = []
        steps = 0
        while not world.is_over():
            if node is None:  # past the tree: the copy plays the rest by the policy
                left = self.horizon - steps if self.horizon else 0
                if not self.horizon or left > 0:
                    steps += world.rollout(kind, left, seed)
                break
            seats = world.to_act()
            for seat in _movers(seats, me):
                if node is not None and (seat == me or (len(seats) == 1 and tree_all)):
                    action, child, fresh = self._select(
                        node, world, seat, rng, c, *((first, self._only) if node is root else ())
                    )
                    path.append((child, seat))
                    node = None if fresh else child
                    if dress is not None:  # the payload the policy gives the choice
                        action = dress(seat, action)
                else:
                    action = world.choose(seat, kind)
                world._apply(seat, action)
                steps += 1
        self._back_up(path, world.estimate())
        return steps

    def _select(
        self,
        node: Node,
        world: World,
        seat: int,
        rng: random.Random,
        c: float,
        first: Action | None = None,
        only: frozenset[Action] | None = None,
    ) -> tuple[Action, Node, bool]:
        """UCB1 with availability over the edges legal in this world (at the root, ``only``
        the candidates where the game names some); an untried one first (``first``, the
        heuristic's move, before the others)."""
        legal = world.legal_actions(seat)
        if only is not None:
            legal = [a for a in legal if a in only]
        children = node.children
        untried: list[Action] = []
        best: tuple[float, Node, Action] | None = None
        for action in legal:
            child = children.get((seat, action))
            if child is None:
                untried.append(action)
                continue
            child.avail += 1
            value = child.reward / child.visits + c * math.sqrt(
                math.log(child.avail) / child.visits
            )
            if best is None or value > best[0]:
                best = (value, child, action)
        if untried:
            action = first if first in untried else rng.choice(untried)
            child = children[(seat, action)] = Node()
            child.avail = 1
            return action, child, True
        assert best is not None
        return best[2], best[1], False

    def _back_up(self, path: list[tuple[Node, int]], scores: Sequence[float]) -> None:
        lo, hi = self._range(scores)
        span = hi - lo
        self._last = scores
        for child, seat in path:
            r = (scores[seat] - lo) / span if span else 0.5
            child.visits += 1
            child.reward += r
            child.square += r * r

    def _range(self, scores: Sequence[float]) -> tuple[float, float]:
        """The smallest and largest score seen in this game's searches so far."""
        lo = min(scores)
        hi = max(scores)
        old = getattr(self, "_seen_range", None)
        if old is not None:
            lo, hi = min(lo, old[0]), max(hi, old[1])
        self._seen_range = (lo, hi)
        return lo, hi
