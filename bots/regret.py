"""Double-dummy card-play regret: how many tricks (or points) a bot's card play gives away on
the true deal, card by card, against a player who sees every hand.

Bots play deals in-process, each seeing only its own view. At every card play of a measured
seat the double-dummy solver (:mod:`levata.engine.solver`) values each legal card on the
*true* full state (all hands known), under the objective the game's strategy says the seat
plays for (:meth:`~levata.bots.strategy.Strategy.goal`: its team's tricks, exact tricks for a
bid, card points). The
card's **regret** is the best card's value minus the played card's: 0 for a double-dummy
best card, never negative. Hidden cards make a regret-free play impossible in general, so a
bot's regret is a yardstick to compare bots (or versions of one bot) on the same deals, not
a score to drive to zero; its variance is far below that of match scores, because it reads
each card against the cards actually dealt rather than waiting for the deal's outcome.

What is scored, and what is not:

* Only card plays with at least two legal cards are scored (a forced card has no choice);
  bids, trump calls and other calls are not scored, nor a decision where a call stands
  beside the cards (the solver does not value calls).
* **Big positions**: a card play is scored when at most ``from_cards`` cards are left in the
  hands (0: every card play), and each solve may visit at most ``max_nodes`` search nodes;
  a position that runs out is *skipped* and counted (the table shows how many), never
  guessed. Full 13-card Tarneeb deals mostly solve in well under a second, so the defaults
  (every card, 20 million nodes, a few seconds at most) score whole deals.
* A *deal* is one board: a match of one deal where the game has a duplicate unit
  (``GameSpec.duplicate_unit``, cycling through its sizes unless ``-o`` fixes one), else a
  whole match.
* **Duplicate**: every bot under test plays the same deals (deal ``k`` of every bot comes
  from the same seed, and so do the seats' bot seeds), so the paired difference between two
  bots is free of the luck of the cards. The bot under test sits at the measured seats
  (``seats``, default all); the other seats are played by ``others`` (default: the game's
  heuristic bot, else random). When it sits everywhere, its own calls set the contract, so
  two bots may play the same cards for different contracts.
* **Intervals**: 95% bootstrap intervals over deals (:mod:`levata.engine.intervals`), drawn
  from a stream seeded by ``seed``; pairs are resampled together. The same seed gives the
  same output for bots that do not play by the clock (pimc's ``time_ms=0``; with a time
  budget, its number of worlds depends on the machine's speed).

>>> report = measure(Setup("whist", ["heuristic"], deals=2, seed=1, options={"deal_size": 3}))
>>> tally = report.tallies["heuristic"]
>>> len(tally.deals), all(d.regret >= 0 for d in tally.deals)
(2, True)

Command line (also ``levata regret``)::

    python -m levata.bots.regret --game tarneeb --bots pimc,heuristic --deals 30 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from levata.bots.base import Bot, make_bot, parse_bot
from levata.bots.play import play_match
from levata.bots.search.double_dummy import position, solve_world
from levata.bots.strategy import strategy_for
from levata.engine import Action, BadConfig, GameSpec, SeatView, actions, all_games
from levata.engine import game as find_game
from levata.engine.family.tricks import TrickGame
from levata.engine.intervals import Interval, bootstrap, weighted_mean, weighted_ratio
from levata.engine.options import parse_options
from levata.engine.rules import TrickRules
from levata.engine.seeds import derive
from levata.engine.solver import SearchLimit, Solver

__all__ = [
    "MAX_NODES",
    "DealTally",
    "Decision",
    "Report",
    "Setup",
    "main",
    "measure",
    "summarize",
]

#: Search nodes one solve may visit by default (a few seconds at most): past it, skipped.
MAX_NODES = 20_000_000


@dataclass(frozen=True)
class Decision:
    """One scored card play: the double-dummy value of the best card and of the one played,
    in the objective's units (``kind``: tricks, points, or exact: 1 if the target is still
    made, else 0)."""

    seat: int
    cards_left: int
    card: int
    best: int
    value: int
    kind: str

    @property
    def regret(self) -> int:
        return self.best - self.value


@dataclass
class DealTally:
    """A bot's scored card plays on one deal, and the plays skipped at the node limit."""

    decisions: list[Decision] = field(default_factory=list)
    skipped: int = 0

    @property
    def regret(self) -> int:
        return sum(d.regret for d in self.decisions)

    @property
    def cards(self) -> int:
        return len(self.decisions)

    @property
    def zero(self) -> int:
        return sum(1 for d in self.decisions if d.regret == 0)


@dataclass(frozen=True)
class Setup:
    """What to measure: ``bots`` (entries such as ``pimc:time_ms=100``) on ``deals`` deals of
    ``game``; see the module's docstring for ``seats``, ``others``, ``from_cards`` and
    ``max_nodes``. ``players`` 0: the game's smallest table."""

    game: str
    bots: Sequence[str]
    deals: int = 20
    seed: int = 0
    players: int = 0
    seats: Sequence[int] | None = None
    others: str | None = None
    from_cards: int = 0
    max_nodes: int = MAX_NODES
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Tally:
    """One bot's deals, in deal order."""

    bot: str
    deals: list[DealTally] = field(default_factory=list)

    @property
    def kinds(self) -> set[str]:
        return {d.kind for deal in self.deals for d in deal.decisions}


@dataclass
class Report:
    """Every bot's tallies (by entry, in the order given) and the setup they came from."""

    setup: Setup
    players: int
    tallies: dict[str, Tally]


class Scorer:
    """Wraps a measured seat's bot: asks it to act, then scores its card on the true state."""

    def __init__(self, bot: Bot, state: TrickGame, setup: Setup, tally: DealTally) -> None:
        self.bot, self.name = bot, bot.name
        self.state, self.setup, self.tally = state, setup, tally
        self._solver: Solver | None = None  # one per deal's rules: its table is reused
        self._solver_rules: TrickRules | None = None

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        action = self.bot.act(view, legal)
        if scored_choice(legal, position(self.state).cards_left, self.setup.from_cards):
            self._score(view.seat, legal, action)
        return action

    def _score(self, seat: int, legal: Sequence[Action], action: Action) -> None:
        state = self.state
        if self._solver is None or self._solver_rules is not state.rules:
            self._solver, self._solver_rules = Solver(state.rules), state.rules
        goal = strategy_for(state.spec).goal(state, seat)
        try:
            values = solve_world(state, seat, self._solver, goal, max_nodes=self.setup.max_nodes)
        except SearchLimit:  # too big to solve within the limit: counted, never guessed
            self.tally.skipped += 1
            return
        offered = {a.card.index for a in legal if a.card is not None} & values.keys()
        if action.card is None or action.card.index not in offered:  # rules out of step
            raise RuntimeError(f"the solver gave no value to the card played by seat {seat}")
        best = max(values[i] for i in offered)
        left = position(state).cards_left
        self.tally.decisions.append(
            Decision(seat, left, action.card.index, best, values[action.card.index], goal.kind)
        )


def scored_choice(legal: Sequence[Action], cards_left: int, from_cards: int) -> bool:
    """Whether a decision is a scored card play: only cards, at least two of them, and
    (``from_cards`` > 0) at most ``from_cards`` cards left in the hands.

    >>> from levata.engine import Card
    >>> two = [Action("play", card=Card.parse(c)) for c in ("AS", "KS")]
    >>> scored_choice(two, 10, 0), scored_choice(two[:1], 10, 0), scored_choice(two, 10, 8)
    (True, False, False)
    """
    if len(legal) < 2 or any(a.kind != actions.PLAY or a.card is None for a in legal):
        return False
    return from_cards <= 0 or cards_left <= from_cards


def trick_spec(name: str) -> GameSpec:
    """The spec of a game on the trick base; :class:`BadConfig` for any other.

    >>> trick_spec("macao")
    Traceback (most recent call last):
    ...
    levata.engine.contract.BadConfig: game 'macao' is not a trick game (the solver plays: ...)
    """
    spec = find_game(name)
    if not _on_trick_base(spec):
        names = ", ".join(g.name for g in all_games() if _on_trick_base(g))
        raise BadConfig(f"game {name!r} is not a trick game (the solver plays: {names})")
    return spec


def _on_trick_base(spec: GameSpec) -> bool:
    return isinstance(spec.factory, type) and issubclass(spec.factory, TrickGame)


def board_options(spec: GameSpec, deal: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of deal ``deal``: ``options``, and where the game has a duplicate unit
    that they leave unset, one deal of each of its sizes in turn.

    >>> board_options(find_game("whist"), 9, {})
    {'deal_size': 2}
    """
    opts = dict(options)
    unit = spec.duplicate_unit
    if unit is not None and unit not in opts:
        size = spec.option(unit)
        low = max(1, size.minimum or 0)
        high = size.maximum if size.maximum is not None else low
        opts[unit] = low + deal % (high - low + 1)
    return opts


def play_deal(setup: Setup, spec: GameSpec, players: int, entry: str, deal: int) -> DealTally:
    """Deal ``deal`` played with ``entry`` at the measured seats, its card plays scored.
    The cards and every seat's bot seed depend on the seed and the deal alone (duplicate)."""
    state = spec.new_match(
        players, board_options(spec, deal, setup.options), derive(setup.seed, "deal", deal)
    )
    assert isinstance(state, TrickGame)
    tally = DealTally()
    seats = set(range(players) if setup.seats is None else setup.seats)
    bots: list[Bot] = []
    for seat in range(players):
        bot = _bot(
            entry if seat in seats else _others(setup, spec), spec.name, setup.seed, deal, seat
        )
        bots.append(Scorer(bot, state, setup, tally) if seat in seats else bot)
    play_match(state, bots)
    return tally


def _bot(entry: str, game: str, seed: int, deal: int, seat: int) -> Bot:
    kind, options = parse_bot(entry, game)
    return make_bot(kind, game, derive(seed, "bot", deal, seat), **options)


def _others(setup: Setup, spec: GameSpec) -> str:
    if setup.others is not None:
        return setup.others
    return "heuristic" if "heuristic" in spec.bots else "random"


def check(setup: Setup) -> tuple[GameSpec, int]:
    """The game's spec and the table size; :class:`BadConfig` on any bad input, before a card
    is played."""
    spec = trick_spec(setup.game)
    players = setup.players or spec.players[0]
    if players not in spec.players:
        raise BadConfig(f"{spec.name} is not played by {players} players")
    if not setup.bots:
        raise BadConfig("name at least one bot to measure")
    if len(set(setup.bots)) != len(setup.bots):
        raise BadConfig("each bot entry may be measured once")
    bad = [s for s in setup.seats or () if not 0 <= s < players]
    if bad or (setup.seats is not None and not setup.seats):
        raise BadConfig(f"seats are 0..{players - 1}, got {list(setup.seats or ())}")
    if setup.deals < 1 or setup.max_nodes < 0 or setup.from_cards < 0:
        raise BadConfig("deals must be at least 1, from_cards and max_nodes at least 0")
    spec.resolve_options(board_options(spec, 0, setup.options))  # BadConfig on a bad option
    for entry in [*setup.bots, _others(setup, spec)]:
        _bot(entry, spec.name, 0, 0, 0)  # BadConfig on an unknown bot or option
    return spec, players


def measure(setup: Setup, progress: Callable[[], None] | None = None) -> Report:
    """Play every deal with every bot under test and score their card plays; ``progress`` is
    called after each (bot, deal)."""
    spec, players = check(setup)
    tallies = {entry: Tally(entry) for entry in setup.bots}
    for deal in range(setup.deals):
        for entry in setup.bots:
            tallies[entry].deals.append(play_deal(setup, spec, players, entry, deal))
            if progress is not None:
                progress()
    return Report(setup, players, tallies)


# -- the summary --------------------------------------------------------------------------------


def summarize(report: Report, resamples: int = 1000) -> dict[str, Interval]:
    """Every figure with its 95% interval over deals: per bot ``B``, ``B/deal`` (regret per
    deal), ``B/card`` (regret per scored card), ``B/zero`` (share of cards with regret 0);
    per pair, ``A-B/deal`` and ``A-B/card`` (paired: the same deals resampled)."""
    names = list(report.tallies)
    deals = {n: report.tallies[n].deals for n in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]

    def stats(w: Sequence[int] | None) -> dict[str, float]:
        out: dict[str, float] = {}
        for n in names:
            regret = [float(d.regret) for d in deals[n]]
            cards = [float(d.cards) for d in deals[n]]
            out[f"{n}/deal"] = weighted_mean(regret, w)
            out[f"{n}/card"] = weighted_ratio(regret, cards, w)
            out[f"{n}/zero"] = weighted_ratio([float(d.zero) for d in deals[n]], cards, w)
        for a, b in pairs:
            out[f"{a}-{b}/deal"] = out[f"{a}/deal"] - out[f"{b}/deal"]
            out[f"{a}-{b}/card"] = out[f"{a}/card"] - out[f"{b}/card"]
        return out

    rng = random.Random(derive(report.setup.seed, "bootstrap"))
    return bootstrap(report.setup.deals, stats, rng, resamples=resamples)


def render(report: Report, figures: dict[str, Interval]) -> list[Any]:
    """The rich tables and lines the command prints."""
    from rich.table import Table

    s = report.setup
    kinds = sorted({k for t in report.tallies.values() for k in t.kinds}) or ["none scored"]
    seats = "all" if s.seats is None else ",".join(map(str, s.seats))
    scope = f"cards left <= {s.from_cards}" if s.from_cards else "every card play"
    others = "" if s.seats is None else f" (others: {_others(s, find_game(s.game))})"
    head = (
        f"{s.game}, {report.players} players, {s.deals} deals, seed {s.seed}, measured seats"
        f" {seats}{others}\nscored: {scope} with 2+ legal cards, solves of at most"
        f" {s.max_nodes or 'unlimited'} nodes; bids not scored; units: {', '.join(kinds)}"
    )
    table = Table(title="double-dummy card-play regret (95% intervals over deals)")
    for col in ("bot", "regret / deal", "regret / card", "zero-regret cards", "cards", "skipped"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for name, tally in report.tallies.items():
        table.add_row(
            name,
            _fmt(figures[f"{name}/deal"]),
            _fmt(figures[f"{name}/card"], 3),
            _fmt(figures[f"{name}/zero"], 3),
            str(sum(d.cards for d in tally.deals)),
            str(sum(d.skipped for d in tally.deals)),
        )
    rows: list[Any] = [head, table]
    names = list(report.tallies)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d, c = figures[f"{a}-{b}/deal"], figures[f"{a}-{b}/card"]
            rows.append(f"{a} - {b}: {_fmt(d)}{_mark(d)} per deal, {_fmt(c, 3)}{_mark(c)} per card")
    return rows


def _mark(iv: Interval) -> str:
    return "" if iv.significant else " (not significant)"


def _fmt(iv: Interval, digits: int = 2) -> str:
    return f"{iv.value:.{digits}f} [{iv.low:.{digits}f}, {iv.high:.{digits}f}]"


# -- the command line ---------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one ``error:`` line, status 2."""

    def error(self, message: str) -> Any:
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def parser(prog: str = "python -m levata.bots.regret") -> argparse.ArgumentParser:
    p = _Parser(
        prog=prog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Double-dummy card-play regret: bots play deals; at each card play of a measured"
            " seat the solver values every legal card on the true deal (all hands known) and"
            " the bot's regret is the best card's value minus its card's, in tricks or points."
            " Bids are not scored. Every bot plays the same deals (duplicate)."
        ),
        epilog=(
            f"example:\n  {prog} --game GAME --bots pimc,heuristic --deals 30 --seed 1"
            "\n\nbot entries: KIND[:key=value...], e.g. pimc:time_ms=100"
            " (time_ms=0 with worlds=N: reproducible)"
        ),
    )
    names = ", ".join(g.name for g in all_games() if _on_trick_base(g))
    p.add_argument("--game", required=True, help=f"a game on the trick base: {names}")
    p.add_argument("--bots", required=True, help="comma-separated bot entries to measure")
    p.add_argument("--deals", type=int, default=20, help="deals per bot (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals, bots and intervals")
    p.add_argument("--players", type=int, default=0, help="table size (default: the smallest)")
    p.add_argument("--seat", help="comma-separated measured seats (default: every seat)")
    p.add_argument("--others", help="bot entry of the other seats (default: heuristic/random)")
    p.add_argument(
        "--from-cards",
        type=int,
        default=0,
        metavar="N",
        help="score card plays only with at most N cards left in the hands (default 0: all)",
    )
    p.add_argument(
        "--max-nodes",
        type=int,
        default=MAX_NODES,
        help=f"nodes per solve; a position past it is skipped and counted (default {MAX_NODES})",
    )
    p.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def setup_of(args: argparse.Namespace) -> Setup:
    """The :class:`Setup` the parsed arguments name; :class:`BadConfig` on bad text."""
    try:
        seats = None if args.seat is None else [int(s) for s in args.seat.split(",")]
    except ValueError:
        raise BadConfig(f"--seat takes seat numbers, got {args.seat!r}") from None
    return Setup(
        game=args.game,
        bots=[b.strip() for b in args.bots.split(",") if b.strip()],
        deals=args.deals,
        seed=args.seed,
        players=args.players,
        seats=seats,
        others=args.others,
        from_cards=args.from_cards,
        max_nodes=args.max_nodes,
        options=parse_options(args.option),
    )


def main(argv: list[str] | None = None, prog: str = "python -m levata.bots.regret") -> int:
    """Run the command; 0 on success, 2 (one ``error:`` line) on bad input."""
    from rich.console import Console
    from rich.progress import Progress

    args = parser(prog).parse_args(argv)
    try:
        setup = setup_of(args)
        check(setup)
    except BadConfig as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # an author's bot class may refuse in any way: one line
        print(f"error: cannot build the bots: {exc}", file=sys.stderr)
        return 2
    with Progress(console=Console(stderr=True), transient=True, disable=args.quiet) as bar:
        task = bar.add_task("deals", total=setup.deals * len(setup.bots))
        report = measure(setup, lambda: bar.advance(task))
    console = Console(highlight=False, width=120)  # a table that fits, piped or not
    for item in render(report, summarize(report, args.resamples)):
        console.print(item, markup=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
