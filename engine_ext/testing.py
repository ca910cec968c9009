"""The conformance checks every game must pass, usable on any :class:`GameState`.

A game written outside this repository runs them on its own spec before it registers::

    from levata.engine.testing import check_game
    check_game(my_spec)          # raises ConformanceError (an AssertionError) naming the fault

>>> from levata.engine import game
>>> report = check_game(game("whist"), matches=20, checked=2)
>>> report.matches, report.checked
(20, 2)

The parts are importable one by one too (:func:`play_checked` for one match with every
per-step check, :class:`LeakWatch`, :func:`check_sample` ...); levata's own test suite runs
them on every registered game.

The no-leak check compares what a seat is told (its events and its view) with an independent
record: the physical table (:meth:`GameState.table`) as it stood at every step, from the deck
order the test itself dealt. A seat is entitled to a card once it has been in a zone that seat
could see (its own hand, a face-up pile); naming any other card is a leak. A game with secrets
that are not cards (Kemps' team secrets and signal meanings) lists them with the seats entitled
to each (``secrets_of()``: text found inside any string, or a list found as an equal list), and
no view or event another seat gets may mention one.
"""

from __future__ import annotations

import itertools
import math
import pickle
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from levata.engine import (
    Action,
    Card,
    Event,
    GameSpec,
    GameState,
    IllegalAction,
    SeatView,
    events,
)
from levata.engine.family.tricks import TrickGame, duty_cards
from levata.engine.zones import Zoned

__all__ = [
    "CLOCK_STEP_MS",
    "MAX_ACTIONS",
    "ConformanceError",
    "ConformanceReport",
    "LeakWatch",
    "MoveWatch",
    "check_clone_independent",
    "check_game",
    "check_illegal_changes_nothing",
    "check_position",
    "check_positions",
    "check_replays",
    "check_sample",
    "check_samples_cover_holders",
    "check_terminates",
    "check_world_from_view",
    "check_worlds_from_view",
    "defines_from_view",
    "defines_positions",
    "hidden_cards",
    "new_random_match",
    "option_variants",
    "play_checked",
    "random_steps",
]

#: Safety net: no game may need more actions than this for one match.
MAX_ACTIONS = 200_000
#: Milliseconds of referee clock per action in random real-time play.
CLOCK_STEP_MS = 50


class ConformanceError(AssertionError):
    """A game broke the contract; the message says where (an AssertionError, so that test
    runners report it as a failed check)."""


def _require(ok: object, message: str) -> None:
    # Not ``assert``: the checks must also run under ``python -O``.
    if not ok:
        raise ConformanceError(message)


def option_variants(spec: GameSpec, i: int, combine: bool = True) -> dict[str, Any]:
    """Options for the ``i``-th random match: in the first few matches every choice and flag
    gets its turn; after them each option's value is drawn from ``(game, i, option)``, so
    that over many matches the options meet in every combination (turns alone pair two flags
    in only two ways: always equal, or always opposite). ``combine=False``: turns only, for
    every ``i`` (what ``levata describe`` samples its examples from, so that its pages stay
    as they are).

    >>> from levata.engine import game
    >>> spec = game("bestia")
    >>> len({tuple(sorted(option_variants(spec, i).items())) for i in range(400)}) > 100
    True
    """
    opts: dict[str, Any] = dict(spec.short_options)
    varied = [
        (k, o) for k, o in enumerate(spec.options) if o.choices or isinstance(o.default, bool)
    ]
    turns = max((len(o.choices) if o.choices else 2 for _, o in varied), default=1)
    for k, o in varied:
        values: Sequence[Any] = o.choices if o.choices else (False, True)
        if i < turns or not combine:
            opts[o.name] = values[(i + k) % len(values)]
        else:  # a string seed: the same draw on every run and machine
            opts[o.name] = random.Random(f"{spec.name}:{i}:{o.name}").choice(values)
    return opts


def deck_of(spec: GameSpec, players: int, options: dict[str, Any]) -> list[Card]:
    """The deck a match deals from, read off a fresh match's table."""
    state = spec.new_match(players=players, options=options, seed=0)
    return [c for z in state.table() for c in z.cards]


def new_random_match(
    spec: GameSpec, i: int, seed: int, combine: bool = True, kernel: bool = True
) -> tuple[GameState, list[Card]]:
    """Match ``i``: players and options vary with ``i`` (:func:`option_variants`); the test
    deals the deck itself. ``kernel=False``: the Python state even where the game has a
    kernel state (:attr:`~levata.engine.contract.GameSpec.kernel_state`)."""
    players = spec.players[i % len(spec.players)]
    options = option_variants(spec, i, combine)
    deck = deck_of(spec, players, options)
    random.Random(seed).shuffle(deck)
    state = spec.new_match(players=players, options=options, seed=seed, deal=deck, kernel=kernel)
    return state, deck


def random_steps(state: GameState, rng: random.Random) -> Iterator[tuple[int, Action]]:
    """Play random legal actions to the end, yielding each ``(seat, action)`` after it applies."""
    for step in range(MAX_ACTIONS):
        if state.is_over():
            return
        if state.realtime:
            state.advance_clock(step * CLOCK_STEP_MS)
            if state.is_over():
                return
        seats = state.to_act()
        _require(seats, "the match is not over but nobody is to act")
        seat = rng.choice(seats)
        legal = state.legal_actions(seat)
        _require(legal, f"seat {seat} is to act but has no legal action")
        action = rng.choice(legal)
        state.apply(seat, action)
        yield seat, action
    raise ConformanceError(f"no end after {MAX_ACTIONS} actions")


def snapshot(state: GameState) -> bytes:
    """Everything about a state, to prove an operation changed nothing."""
    return pickle.dumps(state)


def table_cards(state: GameState) -> Counter[Card]:
    return Counter(c for z in state.table() for c in z.cards)


def placed(state: GameState) -> Counter[tuple[str, Card]]:
    """Every card with the place it lies in."""
    return Counter((z.name, c) for z in state.table() for c in z.cards)


@dataclass
class MoveWatch:
    """Holds a game with declared places (:class:`~levata.engine.zones.Zoned`) to its one
    move: after each action, every card that arrived in a place must have been named by a
    :meth:`~levata.engine.zones.Zoned.move` during it (a list edited by hand is caught).

    >>> from levata.engine import game
    >>> state = game("whist").new_match(players=3, seed=1)
    >>> watch = MoveWatch(state)
    >>> state.apply(state.to_act()[0], state.legal_actions(state.to_act()[0])[0])
    >>> watch.observe()
    >>> state.hands[0].append(state.hands[1].pop())  # a card moved behind move()'s back
    >>> watch.observe()
    Traceback (most recent call last):
    ...
    levata.engine.testing.ConformanceError: whist: cards changed place without a move: ...
    """

    state: GameState
    before: Counter[tuple[str, Card]] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._start()

    def _start(self) -> None:
        self.before = placed(self.state)
        if isinstance(self.state, Zoned):
            self.state._moved = []

    def observe(self) -> None:
        """After an action: what arrived anywhere was moved by ``move``."""
        state = self.state
        if isinstance(state, Zoned) and state._moved is not None:
            arrived = Counter(c for _, c in (placed(state) - self.before).elements())
            unmoved = arrived - Counter(state._moved)
            _require(
                not unmoved,
                f"{state.game}: cards changed place without a move: "
                f"{sorted(str(c) for c in unmoved.elements())}",
            )
        self._start()

    def close(self) -> None:
        if isinstance(self.state, Zoned):
            self.state._moved = None


@dataclass
class LeakWatch:
    """Tracks what each seat is entitled to know and checks every message against it.

    Entitlement grows from the table alone: at every event, as it is emitted, each seat gains
    the cards of the zones it can see at that instant. The event must name only cards its
    audience is entitled to; after each action every seat's whole view is checked too.
    """

    state: GameState
    entitled: list[set[Card]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.entitled = [set() for _ in range(self.state.players)]
        self._see_table()
        for ev in self.state.events():
            self._on_event(self.state, ev)
        self.state.watch(self._on_event)

    def close(self) -> None:
        self.state.watch(None)

    def _see_table(self) -> None:
        for zone in self.state.table():
            for seat in range(self.state.players):
                if zone.visible_to(seat):
                    self.entitled[seat].update(zone.cards)

    def _on_event(self, state: GameState, ev: Event) -> None:
        self._see_table()
        for seat in range(state.players):
            if ev.visible_to(seat):
                self._check(seat, ev.cards, f"event {ev.seq} {ev.kind}")
                self._check_secrets(seat, [ev.kind, dict(ev.data)], f"event {ev.seq} {ev.kind}")

    def observe(self) -> None:
        """After an action: every seat's view names only cards it is entitled to."""
        self._see_table()
        for seat in range(self.state.players):
            view = self.state.view(seat)
            self._check(seat, view.cards_named(), "view")
            told = [view.phase, dict(view.facts), dict(view.counters), dict(view.counts)]
            self._check_secrets(seat, told, "view")

    def _check(self, seat: int, cards: Any, where: str) -> None:
        leaked = [str(c) for c in cards if c not in self.entitled[seat]]
        _require(not leaked, f"leak: seat {seat} is told {leaked} in {where} of {self.state.game}")

    def _check_secrets(self, seat: int, told: Any, where: str) -> None:
        """No secret that is not a card reaches a seat not entitled to it (``secrets_of``)."""
        secrets = getattr(self.state, "secrets_of", None)
        if secrets is None:
            return
        for secret, entitled in secrets():
            _require(
                seat in entitled or not _mentions(told, secret),
                f"leak: seat {seat} is told the secret {secret!r} in {where} of {self.state.game}",
            )


def _mentions(value: Any, secret: Any) -> bool:
    """Does ``value`` (plain data) hold ``secret``: a text inside any string (keys too), or a
    list equal to one of its lists?

    >>> _mentions({"facts": ["x", {"k": "the 9f3a word"}]}, "9f3a"), _mentions([["G7"]], ["G7"])
    (True, True)
    >>> _mentions([[1, "G7"]], ["G7"])
    False
    """
    if isinstance(value, str):
        return isinstance(secret, str) and secret in value
    if isinstance(value, dict):
        return any(_mentions(k, secret) or _mentions(v, secret) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        if isinstance(secret, list) and list(value) == secret:
            return True
        return any(_mentions(v, secret) for v in value)
    return False


def check_illegal_changes_nothing(state: GameState, rng: random.Random, deck: list[Card]) -> None:
    """Wrong seats, foreign cards and unknown kinds raise and leave the state as it was."""
    before = snapshot(state)
    acting = set(state.to_act())
    idle = [s for s in range(state.players) if s not in acting]
    attempts: list[tuple[int, Action]] = []
    if idle:
        seat = rng.choice(idle)
        attempts.append((seat, rng.choice(state.legal_actions(rng.choice(list(acting))))))
    seat = rng.choice(sorted(acting))
    legal = state.legal_actions(seat)
    attempts.append((seat, Action("no_such_move")))
    kinds = {a.kind for a in legal if a.card is not None} or {"play"}
    for card in rng.sample(deck, min(5, len(deck))):
        for kind in kinds:
            if Action(kind, card=card) not in legal:
                attempts.append((seat, Action(kind, card=card)))
    attempts.append((seat, Action("bid", number=99)))
    for who, action in attempts:
        try:
            state.apply(who, action)
        except IllegalAction as exc:
            _require(exc.reason, "an illegal action must say why")
        else:
            raise ConformanceError(f"{action} by seat {who} was accepted")
    tried = ", ".join(str(a) for _, a in attempts)
    _require(snapshot(state) == before, f"one of the illegal actions ({tried}) changed the state")


def play_checked(spec: GameSpec, i: int, seed: int, sample_every: int = 0) -> GameState:
    """One random match with every per-step check on; returns the finished state."""
    state, deck = new_random_match(spec, i, seed)
    rng = random.Random(seed + 1)
    deck_count = Counter(deck)
    _require(table_cards(state) == deck_count, "the table does not hold the deck")
    watch = LeakWatch(state)
    moves = MoveWatch(state)
    for step, _ in enumerate(random_steps(state, rng)):
        _require(table_cards(state) == deck_count, f"cards not conserved at step {step}")
        watch.observe()
        moves.observe()
        if state.is_over():
            break
        if step % 7 == 0:
            check_illegal_changes_nothing(state, rng, deck)
        if step % 11 == 0:
            check_clone_independent(state, rng)
        if sample_every and step % sample_every == 0:
            check_sample(state, rng.randrange(state.players), rng)
    watch.close()
    moves.close()
    state.result()
    return state


def check_clone_independent(state: GameState, rng: random.Random) -> None:
    before = snapshot(state)
    twin = state.clone()
    for _ in zip(range(5), random_steps(twin, random.Random(rng.random())), strict=False):
        pass
    _require(snapshot(state) == before, "acting on a clone changed the original")


def check_sample(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A sampled world looks the same to ``seat``, holds the deck, and plays on legally."""
    world = state.sample_world(seat, random.Random(rng.random()))
    _require(world is not state, "sample_world returned the state itself")
    _require(world.view(seat) == state.view(seat), f"sampled world differs for seat {seat}")
    _require(table_cards(world) == table_cards(state), "sampled world changed the deck")
    for _ in zip(range(20), random_steps(world, random.Random(rng.random())), strict=False):
        pass
    return world


def hidden_cards(state: GameState, seat: int) -> dict[Card, set[str]]:
    """Each card ``seat`` cannot see, with the zones that truly hold it."""
    out: dict[Card, set[str]] = {}
    for zone in state.table():
        if not zone.visible_to(seat):
            for c in zone.cards:
                out.setdefault(c, set()).add(zone.name)
    return out


def check_terminates(spec: GameSpec, matches: int = 1000, seed: int = 1000) -> list[int]:
    """Seeded random matches end, with someone to act and an action until the end, and a
    well-formed result; returns each match's number of actions."""
    lengths = []
    for i in range(matches):
        state, _ = new_random_match(spec, i, seed=seed + i)
        steps = sum(1 for _ in random_steps(state, random.Random(i)))
        res = state.result()
        n = state.players
        _require(len(res.scores) == len(res.ranks) == n, f"a result of {spec.name} lacks seats")
        _require(res.winners and all(0 <= w < n for w in res.winners), "bad winners")
        _require(all(1 <= r <= n for r in res.ranks), f"ranks out of 1..{n}: {res.ranks}")
        _require(state.to_act() == (), "a finished match still has seats to act")
        lengths.append(steps)
    _require(min(lengths, default=1) > 0, "a match ended before any action")
    return lengths


def check_replays(spec: GameSpec, matches: int = 5, seed: int = 77) -> None:
    """The same seed and actions give identical events and result; the seed alone fixes the
    cards, and another seed changes them."""
    for i in range(matches):
        a, _ = new_random_match(spec, i, seed=seed + i)
        actions = list(random_steps(a, random.Random(i)))
        b, _ = new_random_match(spec, i, seed=seed + i)
        for step, (seat, action) in enumerate(actions):
            b.advance_clock(step * CLOCK_STEP_MS)  # the clock the first run saw (if real-time)
            try:
                b.apply(seat, action)
            except IllegalAction as exc:
                raise ConformanceError(
                    f"match {i} of {spec.name} did not replay from its seed: action {step}"
                    f" ({action} by seat {seat}) was refused: {exc.reason}"
                ) from None
        b.advance_clock(len(actions) * CLOCK_STEP_MS)
        same = [e.to_dict() for e in a.events()] == [e.to_dict() for e in b.events()]
        _require(same and a.result() == b.result(), f"match {i} of {spec.name} did not replay")
    players = spec.players[0]
    x, y, z = (spec.new_match(players=players, seed=s) for s in (5, 5, 6))
    cards = [[zone.cards for zone in m.table()] for m in (x, y, z)]
    _require(cards[0] == cards[1], "the same seed dealt different cards")
    _require(cards[0] != cards[2], "two seeds dealt the same cards")


def check_samples_cover_holders(spec: GameSpec, positions: int = 3, seed: int = 300) -> None:
    """Over many samples every unseen card lands in every zone that truly holds it, and a
    world sampled at the start looks the same to every seat."""
    for players in spec.players:
        state = spec.new_match(players=players, seed=players)
        for seat in range(players):
            check_sample(state, seat, random.Random(seat))
    for i in range(positions):
        state, _ = new_random_match(spec, i, seed=seed + i)
        rng = random.Random(i)
        for _ in zip(range(3 + 5 * i), random_steps(state, rng), strict=False):
            pass
        if state.is_over():
            continue
        seat = state.to_act()[0]
        hidden = hidden_cards(state, seat)
        if not hidden:
            continue
        sizes = Counter(z.name for z in state.table() for _ in z.cards)
        smallest = min(sizes[z] for zs in hidden.values() for z in zs)
        # Enough samples that a uniform sampler misses a true holder with odds below e^-25.
        samples = math.ceil(25 * len(hidden) / smallest)
        seen: Counter[tuple[Card, str]] = Counter()
        for k in range(min(samples, 4000)):
            world = state.sample_world(seat, random.Random(k))
            for zone in world.table():
                for c in zone.cards:
                    seen[(c, zone.name)] += 1
        missed = [(str(c), z) for c, zones in hidden.items() for z in zones if not seen[(c, z)]]
        _require(not missed, f"cards never sampled into their true zone: {missed[:5]}")


def defines_from_view(spec: GameSpec) -> bool:
    """Does the game rebuild worlds from a view (:meth:`GameState.from_view`)?"""
    hook = getattr(spec.factory, "from_view", None)
    base = getattr(GameState.from_view, "__func__", None)
    return hook is not None and getattr(hook, "__func__", None) is not base


def _world_print(world: GameState) -> tuple[Any, ...]:
    """What two worlds drawn from the same random state must share."""
    return tuple(world.table()), tuple(world.events()), world.rng.getstate()


def check_world_from_view(
    state: GameState, seat: int, rng: random.Random, moves: int | None = None
) -> GameState:
    """``spec.world_from_view(state.view(seat), rng)`` keeps the contract of the hook.

    The world shows ``seat`` exactly its view (history included) and the same legal actions,
    holds the same deck, puts every card ``seat`` sees where the real state has it, is the
    same world for the same random state, and plays on by the rules (``moves`` random actions,
    or to the result when ``None``). In a trick
    game the current deal must also replay legally from the hands the world dealt: a world
    that gives a seat a card of a suit it showed out of fails here.
    """
    view = state.view(seat)
    draw = rng.getrandbits(64)
    world = state.spec.world_from_view(view, random.Random(draw))
    _require(world is not state, "world_from_view returned the state itself")
    again = world.view(seat)
    for name in view.__dataclass_fields__:
        if getattr(again, name) != getattr(view, name):
            raise ConformanceError(
                f"a world of {state.game} rebuilt for seat {seat} shows another {name}:"
                f" {getattr(again, name)!r} instead of {getattr(view, name)!r}"
            )
    _require(
        world.legal_actions(seat) == state.legal_actions(seat),
        f"a world of {state.game} gives seat {seat} other legal actions",
    )
    _require(world.to_act() == state.to_act(), f"a world of {state.game} has others to act")
    _require(table_cards(world) == table_cards(state), "a rebuilt world changed the deck")
    seen = {z.name: Counter(z.cards) for z in state.table() if z.visible_to(seat)}
    for zone in world.table():
        if zone.name in seen:
            _require(
                Counter(zone.cards) == seen[zone.name],
                f"a world moved cards seat {seat} sees in zone {zone.name}",
            )
    twin = state.spec.world_from_view(view, random.Random(draw))
    _require(_world_print(twin) == _world_print(world), "the same random state gave two worlds")
    if isinstance(world, TrickGame):
        _check_deal_replays(world)
    steps = random_steps(twin, random.Random(rng.random()))  # the twin is ours to play on
    for _ in steps if moves is None else zip(range(moves), steps, strict=False):
        pass
    if moves is None:
        twin.result()
    return world


def _check_deal_replays(world: TrickGame) -> None:
    """Every card played in the current deal was allowed by the trick duties, given the hand
    the world says its player was dealt (what it holds plus what it has played since)."""
    log = world.events()
    start = world._hand_events[0] if getattr(world, "_hand_events", None) else 0
    plays = [ev for ev in log[start:] if ev.kind == events.PLAY and ev.seat is not None]
    hands = [list(h) for h in world.hands]
    for ev in plays:
        hands[ev.seat].extend(ev.cards)  # type: ignore[index]  # play events name their seat
    played = {ev.seq for ev in plays}
    before = len(world.played) - world.players * sum(ev.kind == events.TRICK for ev in log[start:])
    trick: list[Card] = []
    for ev in log[start:]:
        if ev.kind == events.TRICK:
            trick = []
            before += world.players
        elif ev.seq in played:
            card = ev.cards[0]
            rules = world.rules_of_trick(before)
            allowed = duty_cards(rules, hands[ev.seat], trick)  # type: ignore[index]
            _require(
                card in allowed,
                f"in a rebuilt world of {world.game}, seat {ev.seat} played {card} while"
                f" holding {sorted(map(str, allowed))} it had to play instead",
            )
            hands[ev.seat].remove(card)  # type: ignore[index]
            trick.append(card)


def check_worlds_from_view(
    spec: GameSpec, matches: int = 4, seed: int = 500, every: int = 17
) -> Counter[str]:
    """:func:`check_world_from_view` for every seat at every ``every``-th step of random
    matches at every player count and option variant; returns the phases it checked.

    Raises :class:`ConformanceError` for a game that does not define ``from_view``; ask
    :func:`defines_from_view` first (:func:`check_game` skips such games and says so).
    """
    _require(defines_from_view(spec), f"{spec.name} does not define from_view")
    phases: Counter[str] = Counter()
    checked = 0
    for i in range(max(matches, len(spec.players))):
        state, _ = new_random_match(spec, i, seed=seed + i)
        rng = random.Random(seed + i)
        steps = random_steps(state, rng)
        for step in itertools.count():
            if step % every == 0 and not state.is_over():
                for seat in range(state.players):
                    # Play a few worlds on to the result, the others a short way (speed).
                    moves = None if checked % 10 == 0 else 30
                    check_world_from_view(state, seat, rng, moves)
                    phases[state.view(seat, history=False).phase] += 1
                    checked += 1
            if next(steps, None) is None:
                break
    return phases


def _event_print(ev: Event) -> tuple[Any, ...]:
    """An event without its sequence number (a match read from a position starts at 0)."""
    return (ev.kind, ev.audience, ev.seat, ev.cards, dict(ev.data))


def _now(state: GameState) -> tuple[Any, ...]:
    """What the players of a state see and may do now, every seat (history left out)."""
    seats = range(state.players)
    return (
        state.to_act(),
        [state.view(s, history=False) for s in seats],
        [state.legal_actions(s) for s in seats],
    )


def check_position(state: GameState, rng: random.Random, moves: int | None = 40) -> None:
    """``state.position()`` reads back to a state that writes the same text, shows every seat
    the same views and legal actions, and plays on exactly as ``state`` does: the same
    random actions give the same events (sequence numbers aside), views and result, once
    both draw their luck to come from the same seed. ``state`` is left unchanged."""
    spec = state.spec
    text = state.position()
    seed = rng.getrandbits(32)
    again = spec.from_position(text, seed=seed)
    opened = again.event_count()  # the events that open a history read from a position
    _require(again.position() == text, f"{spec.name}: a position reads back differently")
    original = state.clone()
    original.rng = random.Random(seed)
    start = original.event_count()
    _require(_now(original) == _now(again), f"{spec.name}: a position shows other views")
    for view in _now(again)[1]:
        back = SeatView.from_position(view.position())
        _require(back == view, f"{spec.name}: seat {view.seat}'s view reads back differently")
    walk = random.Random(rng.getrandbits(32))
    for step in range(MAX_ACTIONS if moves is None else moves):
        if original.is_over():
            break
        if original.realtime:
            for s in (original, again):
                s.advance_clock(step * CLOCK_STEP_MS)
            if original.is_over():
                break
        seat = walk.choice(original.to_act())
        action = walk.choice(original.legal_actions(seat))
        original.apply(seat, action)
        again.apply(seat, action)
        _require(
            _now(original) == _now(again),
            f"{spec.name}: play from a position differs after {action} by seat {seat}",
        )
    ours = [_event_print(e) for e in original.events(start)]
    theirs = [_event_print(e) for e in again.events(opened)]
    _require(ours == theirs, f"{spec.name}: play from a position emits other events")
    _require(original.is_over() == again.is_over(), f"{spec.name}: one copy ended, not the other")
    if original.is_over():
        a, b = original.result(), again.result()
        same = (a.scores, a.ranks, a.winners, a.reason) == (b.scores, b.ranks, b.winners, b.reason)
        _require(same, f"{spec.name}: play from a position ends with another result")


def defines_positions(spec: GameSpec) -> bool:
    """Can ``spec`` read a position (its factory is a state class with ``_from_position``)?"""
    return callable(getattr(spec.factory, "_from_position", None))


def check_positions(spec: GameSpec, matches: int = 4, seed: int = 900, every: int = 17) -> int:
    """:func:`check_position` at every ``every``-th step of random matches (players and
    options varying), the last few played to the end; how many positions were checked."""
    checked = 0
    for i in range(matches):
        state, _ = new_random_match(spec, i, seed + i)
        rng = random.Random(seed + i)
        for step, _ in enumerate(itertools.chain([(0, None)], random_steps(state, rng))):
            if step % every == 0 and not state.is_over():
                check_position(state, rng, moves=None if checked % 8 == 0 else 40)
                checked += 1
    return checked


@dataclass(frozen=True)
class ConformanceReport:
    """What :func:`check_game` ran: random matches played to the end, matches checked at
    every step, and the longest match in actions."""

    game: str
    matches: int
    checked: int
    longest: int
    #: Checks not run, each with why (a game that does not yet rebuild worlds from a view).
    skipped: tuple[str, ...] = ()


def check_game(
    spec: GameSpec, matches: int = 1000, checked: int = 12, seed: int = 0
) -> ConformanceReport:
    """Every conformance check on one game; raises :class:`ConformanceError` at the first
    fault. ``matches`` random matches must end; ``checked`` more are checked at every step
    (conservation of cards, no leak in any event or view, illegal actions refused and
    harmless, clones independent, sampled worlds consistent); worlds rebuilt from views keep
    the contract of :meth:`GameSpec.world_from_view` (skipped, and listed in the report's
    ``skipped``, for a game without ``from_view``); positions read back and play on alike
    (:func:`check_positions`; skipped likewise for a factory that reads none)."""
    lengths = check_terminates(spec, matches, seed=seed + 1000)
    for i in range(checked):
        play_checked(spec, i, seed=seed + 50 + i, sample_every=5)
    check_replays(spec, seed=seed + 77)
    check_samples_cover_holders(spec, seed=seed + 300)
    skipped: list[str] = []
    if defines_from_view(spec):
        check_worlds_from_view(spec, matches=max(1, checked // 4), seed=seed + 500, every=23)
    else:
        skipped.append(f"world_from_view: {spec.name} does not define from_view yet")
    if defines_positions(spec):
        check_positions(spec, matches=max(1, checked // 4), seed=seed + 900)
    else:
        skipped.append(f"positions: {spec.name} does not read positions yet")
    return ConformanceReport(spec.name, matches, checked, max(lengths, default=0), tuple(skipped))
