"""The engine contract every game implements: actions, events, views, results, the state.

A match is a :class:`GameState`. The referee, the bots and the tests only use this surface:

>>> from levata.engine import game
>>> state = game("whist").new_match(players=4, seed=7)
>>> state.to_act()
(2,)
>>> [str(a) for a in state.legal_actions(2)]
['bid 0', 'bid 1']
>>> state.apply(2, Action.parse("bid 1"))
>>> state.events()[-1].kind
'bid'

Games subclass :class:`GameState` and fill in the underscored hooks; the public methods here
hold the guarantees that are the same for every game (an illegal action raises and changes
nothing, events carry their audience, a seat's history holds only what it may see).
"""

from __future__ import annotations

import copy
import inspect
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self

from levata.engine import position as positions
from levata.engine.cardmask import mask_of
from levata.engine.cards import Card, Suit
from levata.engine.evidence import Evidence, pick_weighed
from levata.engine.rules import TrickRules
from levata.engine.vocabulary import Vocabulary

__all__ = [
    "Action",
    "BadConfig",
    "Event",
    "GameSpec",
    "GameState",
    "IllegalAction",
    "Option",
    "Result",
    "SeatView",
    "Zone",
    "individual",
]


class IllegalAction(Exception):
    """An action the rules do not allow now; the state is unchanged. ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BadConfig(ValueError):
    """A match cannot be created: unknown game, wrong player count or a bad option."""


class NoWorld(ValueError):
    """No world fits a view: :meth:`GameSpec.world_from_view` could not deal the hidden
    cards under what the view says (a view no match can show, or a fault in the game's deal).
    A searcher plays its fallback move instead of failing the match; tests see the fault."""


# --------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Action:
    """One atomic decision. Multi-card plays are sequences of atomic actions.

    ``kind`` names the move (``bid``, ``play``, ``draw``, ``accept``, ``done``, ``request``,
    ``pass``, ``wait``...); ``card``, ``number`` and ``choice`` carry its argument.

    ``payload`` is a small structured extra beside the choice (Kemps' signals to a partner):
    ``(key, value)`` pairs sorted by key, values short words or integers, written after the
    argument as ``key=value`` (build it with :meth:`with_payload`). The legal list holds the
    choices alone; a game that takes a payload says, per choice, which keys and values it
    accepts (:meth:`GameState.payload_schema`), so the list never enumerates every
    combination. An action without a payload reads and prints exactly as before.

    >>> str(Action("play", card=Card.parse("10S")))
    'play 10S'
    >>> Action.parse("bid 3") == Action("bid", number=3)
    True
    >>> Action.parse("request H")
    Action('request H')
    >>> signal = Action.parse("swap 7C signal=touch")
    >>> signal, signal.payload, signal.without_payload()
    (Action('swap 7C signal=touch'), (('signal', 'touch'),), Action('swap 7C'))
    >>> signal == Action.parse("swap 7C").with_payload(signal="touch")
    True
    """

    kind: str
    card: Card | None = None
    number: int | None = None
    choice: str | None = None
    payload: tuple[tuple[str, str | int], ...] = ()

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self  # immutable: a clone of a state shares it (clone would rebuild each)

    def __str__(self) -> str:
        parts = [self.kind]
        if self.card is not None:
            parts.append(str(self.card))
        if self.number is not None:
            parts.append(str(self.number))
        if self.choice is not None:
            parts.append(self.choice)
        for key, value in self.payload:
            parts.append(f"{key}={value}")
        return " ".join(parts)

    def with_payload(self, **values: str | int) -> Action:
        """This choice with ``values`` as its payload (replacing any it had)."""
        return replace(self, payload=tuple(sorted(values.items())))

    def without_payload(self) -> Action:
        """The choice alone: what the legal list holds (``self`` when there is no payload)."""
        return replace(self, payload=()) if self.payload else self

    def payload_value(self, key: str, default: str | int | None = None) -> str | int | None:
        """The payload's value for ``key``, else ``default``."""
        for k, value in self.payload:
            if k == key:
                return value
        return default

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the notation back: ``kind [card | number | choice] [key=value ...]``.

        An argument that parses as a card is a card, an integer is a number, anything else is
        a choice (``request 8`` names a rank, so it is a choice: see :meth:`choice_of`).
        Words with ``=`` after the kind are the payload (integers read as integers).
        """
        words = text.split()
        if not words:
            raise ValueError("empty action")
        kind, args = words[0], words[1:]
        if any("=" in w for w in args):
            base = cls.parse(" ".join([kind, *(w for w in args if "=" not in w)]))
            return base.with_payload(**_payload_words(w for w in args if "=" in w))
        if not args:
            return cls(kind)
        if len(args) > 1:
            raise ValueError(f"an action takes one argument at most: {text!r}")
        arg = args[0]
        if kind in _CHOICE_KINDS:
            return cls(kind, choice=arg)
        if arg.lstrip("-").isdigit():
            return cls(kind, number=int(arg))
        try:
            return cls(kind, card=Card.parse(arg))
        except ValueError:
            return cls(kind, choice=arg)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind}
        if self.card is not None:
            d["card"] = str(self.card)
        if self.number is not None:
            d["number"] = self.number
        if self.choice is not None:
            d["choice"] = self.choice
        if self.payload:
            d["payload"] = dict(self.payload)
        return d


#: Action kinds whose argument is always a free-form choice (a rank or suit name).
_CHOICE_KINDS = frozenset({"request"})


def _payload_words(words: Iterable[str]) -> dict[str, str | int]:
    out: dict[str, str | int] = {}
    for word in words:
        key, _, value = word.partition("=")
        if not key or not value or key in out:
            raise ValueError(f"a payload word is key=value, each key once: {word!r}")
        out[key] = int(value) if value.lstrip("-").isdigit() else value
    return out


# --------------------------------------------------------------------------------------------
# Events and views


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, with who may see it.

    ``audience`` is ``None`` for a public event, else the seats allowed to see it.
    ``data`` holds small JSON-able facts (numbers, strings, lists of them).
    """

    seq: int
    kind: str
    audience: frozenset[int] | None = None
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return (
            self  # a logged event never changes: a clone's log shares it (clone would rebuild each)
        )

    def visible_to(self, seat: int) -> bool:
        return self.audience is None or seat in self.audience

    def __str__(self) -> str:
        who = f"seat {self.seat} " if self.seat is not None else ""
        cards = " ".join(str(c) for c in self.cards)
        extra = " ".join(f"{k}={v}" for k, v in self.data.items())
        return " ".join(p for p in (f"{who}{self.kind}", cards, extra) if p)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "audience": None if self.audience is None else sorted(self.audience),
            "seat": self.seat,
            "cards": [str(c) for c in self.cards],
            "data": dict(self.data),
        }


#: The setters of an event's slots, in the order of its fields (``_new_event`` sets them all).
_EVENT_FIELDS = tuple(
    getattr(Event, name).__set__ for name in ("seq", "kind", "audience", "seat", "cards", "data")
)


def _new_event(
    seq: int,
    kind: str,
    audience: frozenset[int] | None,
    seat: int | None,
    cards: tuple[Card, ...],
    data: Mapping[str, Any],
) -> Event:
    """``Event(seq, kind, audience, seat, cards, data)``, its slots set directly: a frozen
    dataclass's ``__init__`` sets each field through ``object.__setattr__``, twice as slow,
    and an event is written at every card played, in search playouts too.

    >>> _new_event(3, "play", None, 1, (), {}) == Event(3, "play", None, 1, (), {})
    True
    """
    ev = object.__new__(Event)
    set_seq, set_kind, set_audience, set_seat, set_cards, set_data = _EVENT_FIELDS
    set_seq(ev, seq)
    set_kind(ev, kind)
    set_audience(ev, audience)
    set_seat(ev, seat)
    set_cards(ev, cards)
    set_data(ev, data)
    return ev


@dataclass(frozen=True, slots=True)
class Zone:
    """A physical place on the table holding cards, and who can see its faces.

    ``seen_by`` is ``None`` when every seat sees the cards (face up), else the seats that do
    (``{s}`` for s's own hand, ``frozenset()`` for a face-down stock). This is the truth the
    conformance suite checks views and events against; it is never sent to a bot.
    """

    name: str
    cards: tuple[Card, ...]
    seen_by: frozenset[int] | None
    owner: int | None = None

    def visible_to(self, seat: int) -> bool:
        return self.seen_by is None or seat in self.seen_by


@dataclass(frozen=True)
class SeatView:
    """Everything one seat is entitled to know, and nothing more.

    ``hand``: the seat's own cards it can see. ``zones``: other visible cards by name
    (``trick``, ``trump``, ``discard``...). ``counts``: sizes of zones, hidden ones included
    (``hand:2``, ``stock``). ``counters``: game numbers (``bid:0``, ``tricks:1``, ``deal``).
    ``facts``: small JSON-able extras (a pending penalty, a request). ``history``: the events
    this seat has seen, in order. ``options``: the match's rule options (public knowledge:
    every seat plays under the same rules; a search bot rebuilds worlds under them).
    """

    game: str
    seat: int
    players: int
    phase: str
    to_act: tuple[int, ...]
    hand: tuple[Card, ...]
    zones: Mapping[str, tuple[Card, ...]]
    counts: Mapping[str, int]
    counters: Mapping[str, int]
    trump: str | None
    scores: tuple[float, ...]
    facts: Mapping[str, Any]
    history: tuple[Event, ...]
    options: Mapping[str, Any] = field(default_factory=dict)

    def position(self) -> str:
        """The view as one line (a seat's position, see :mod:`levata.engine.position`):
        everything but the history. :meth:`from_position` reads it back.

        >>> from levata.engine import game
        >>> view = game("tarneeb").new_match(players=4, seed=3).view(1)
        >>> text = view.position()
        >>> text[:60]
        'tarneeb/4; options={"deal":0,"max_deals":200,"rotation":"see'
        >>> SeatView.from_position(text) == replace(view, history=())
        True
        """
        values: dict[str, Any] = {
            "seat": self.seat,
            "phase": self.phase,
            "to_act": list(self.to_act),
            "hand": self.hand,
        }
        values.update({f"zone:{name}": cards for name, cards in self.zones.items()})
        values.update(
            counts=dict(self.counts),
            counters=dict(self.counters),
            trump=self.trump,
            scores=list(self.scores),
            facts=dict(self.facts),
        )
        places = {"hand", *(f"zone:{name}" for name in self.zones)}
        return positions.write(self.game, self.players, self.options, values, places)

    @classmethod
    def from_position(cls, text: str) -> SeatView:
        """The view :meth:`position` wrote (with no history); :class:`BadConfig` if bad."""
        try:
            pos = positions.parse(text)
            zones = {n[5:]: tuple(pos.cards(n)) for n in pos.fields if n.startswith("zone:")}
            view = cls(
                game=pos.game,
                seat=pos.value("seat"),
                players=pos.players,
                phase=pos.value("phase"),
                to_act=tuple(pos.value("to_act")),
                hand=tuple(pos.cards("hand")),
                zones=zones,
                counts=pos.value("counts"),
                counters=pos.value("counters"),
                trump=pos.value("trump"),
                scores=tuple(pos.value("scores")),
                facts=pos.value("facts"),
                history=(),
                options=pos.options,
            )
            pos.check_all_read()
        except positions.PositionError as err:
            raise BadConfig(f"view position: {err}") from None
        return view

    def cards_named(self) -> list[Card]:
        """Every card this view names (hand, zones, history): what the no-leak check reads."""
        out = list(self.hand)
        for cards in self.zones.values():
            out.extend(cards)
        for ev in self.history:
            out.extend(ev.cards)
        return out


@dataclass(frozen=True)
class Result:
    """The outcome of a match.

    ``scores``: final score per seat. ``ranks``: 1 = best, tied seats share a rank.
    ``winners``: the seats that won by the game's own rule. ``deals``: one dict per deal with
    its breakdown. ``reason``: ``complete`` or why the match stopped early (``cap``...).
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    deals: tuple[Mapping[str, Any], ...] = ()
    reason: str = "complete"

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "winners": list(self.winners),
            "deals": [dict(d) for d in self.deals],
            "reason": self.reason,
        }


def ranks_from_scores(scores: Sequence[float], higher_is_better: bool = True) -> tuple[int, ...]:
    """Competition ranks (1 = best, ties share the better rank).

    >>> ranks_from_scores([40, 0, 35])
    (1, 3, 2)
    >>> ranks_from_scores([5, 5, 1], higher_is_better=False)
    (2, 2, 1)
    """
    sign = -1 if higher_is_better else 1
    return tuple(1 + sum(1 for o in scores if sign * o < sign * s) for s in scores)


# --------------------------------------------------------------------------------------------
# Options and specs


@dataclass(frozen=True)
class Option:
    """A rule option fixed at match start, with its default and its allowed values."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def validate(self, value: Any) -> Any:
        """Coerce ``value`` to the option's type or raise :class:`BadConfig` saying why."""
        if isinstance(self.default, bool):
            if isinstance(value, str):
                low = value.lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
            if isinstance(value, bool):
                return value
            raise BadConfig(f"option {self.name}: expected true or false, got {value!r}")
        if isinstance(self.default, int) or (self.default is None and self.minimum is not None):
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise BadConfig(f"option {self.name}: expected an integer, got {value!r}") from None
            if self.minimum is not None and value < self.minimum:
                raise BadConfig(f"option {self.name}: {value} is below {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise BadConfig(f"option {self.name}: {value} is above {self.maximum}")
        if self.choices is not None and all(isinstance(c, str) for c in self.choices):
            value = str(value)  # "decks=2" from a command line or 2 from Python: the same
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise BadConfig(f"option {self.name}: {value!r} is not one of {allowed}")
        return value


def individual(players: int) -> tuple[tuple[int, ...], ...] | None:
    """The default :attr:`GameSpec.teams`: no partnerships, every seat plays for itself.

    >>> individual(4) is None
    True
    """
    return None


def alone(options: Mapping[str, Any], players: int) -> tuple[tuple[int, ...], ...]:
    """The default :attr:`GameSpec.held_together`: every seat is a player of its own.

    >>> alone({}, 4)
    ()
    """
    return ()


@dataclass(frozen=True)
class GameSpec:
    """A registered game: its name, player counts, options and how to start a match, and the
    traits the server and the bots read instead of the game's name.

    >>> from levata.engine import game
    >>> spec = game("whist")
    >>> spec.teams(4), spec.duplicate_unit, sorted(spec.bots)
    (None, 'deal_size', ['heuristic', 'pimc'])
    """

    name: str
    title: str
    players: tuple[int, ...]
    options: tuple[Option, ...]
    factory: Callable[..., GameState]
    summary: str = ""
    #: Options that bound the length of a match of random moves (a lower cap, say), which
    #: the conformance suite and the benchmarks use so that random play stays quick.
    short_options: Mapping[str, Any] = field(default_factory=dict)
    #: The partnerships at a number of players, e.g. ``((0, 2), (1, 3))``, or ``None`` when
    #: every seat plays for itself. A tournament seats whole teams (the two-table method).
    teams: Callable[[int], tuple[tuple[int, ...], ...] | None] = individual
    #: The groups of seats that one player holds under these options, each seat seeing the
    #: others' cards (Filcău's ``two_player`` teams): the referee seats one bot in all the
    #: seats of a group, since two bots there would see each other's hands.
    held_together: Callable[[Mapping[str, Any], int], tuple[tuple[int, ...], ...]] = alone
    #: The option that makes one duplicate board: set to ``n`` (between its minimum, at least
    #: 1, and its maximum) a match is a single deal of ``n`` cards, so a duplicate tournament
    #: can replay that one deal in every seating. ``None``: a board is a whole game.
    duplicate_unit: str | None = None
    #: Reference bots beyond ``random`` (which plays every game): kind -> ``"module:Class"``,
    #: optionally followed by ``:key=value`` settings the game gives that bot unless told
    #: otherwise (a generic searcher's measured best for this game). Named as strings so the
    #: engine never imports the bots; ``make_bot`` imports them.
    bots: Mapping[str, str] = field(default_factory=dict)
    #: The search bots' knowledge of the game (``"module:Class"`` on the bots side: what a
    #: seat plays its cards for, how its calls and cards are rated), or ``None`` for the
    #: plain defaults. A string for the same reason as :attr:`bots`: the engine keeps the
    #: rules, the bots keep the strategy (``levata.bots.strategy``).
    strategy: str | None = None
    #: Lines for the game's own event kinds (see :mod:`levata.engine.events`): a line, or
    #: ``None`` to let the shared narration speak.
    narrate: Callable[[Event], str | None] | None = None
    #: What every name its views, actions and events use means (``levata describe GAME``
    #: prints it; a test plays random matches and checks that it names exactly those).
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    #: Wraps a new match's state in one whose hot calls (``to_act``, ``legal_actions``,
    #: ``apply``, ``clone``, ``is_over``) run in a kernel, the Python state answering the rest
    #: and staying the rules' one source of truth (Whist's
    #: :class:`~levata.engine.whist_table.WhistTable`), or ``None``: the Python state as it is.
    kernel_state: Callable[[GameState], GameState] | None = None

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self  # the registered game: one for every state of it

    def __post_init__(self) -> None:
        if self.duplicate_unit is not None:
            unit = self.option(self.duplicate_unit)  # BadConfig: the game has no such option
            if unit.maximum is None:
                raise ValueError(f"{self.name}: duplicate_unit {unit.name} needs a maximum")

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        known = ", ".join(o.name for o in self.options) or "none"
        raise BadConfig(f"game {self.name} has no option {name!r} (options: {known})")

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with ``options``, each validated."""
        resolved = {o.name: o.default for o in self.options}
        for name, value in (options or {}).items():
            resolved[name] = self.option(name).validate(value)
        return resolved

    def world_from_view(
        self, view: SeatView, rng: random.Random, evidence: Evidence | None = None
    ) -> GameState:
        """A full state the seat of ``view`` cannot tell from the real one: what a bot that
        knows only its view (in-process or over gRPC) searches over. Hidden cards are dealt
        at random under every constraint the view implies, from ``rng`` alone.

        With ``evidence`` (:mod:`levata.engine.worlds`: a model of the seats' play, which a
        bot passes in), the world is picked among ``evidence.pool`` such draws by the
        likelihood of its hands: inside the game's own deal where it weighs deals (the trick
        base), else among whole worlds (those of a game without ``hands``: uniform).

        Raises :class:`NotImplementedError` for a game that cannot rebuild one, and
        :class:`NoWorld` where no world fits the view.

        >>> import random
        >>> from levata.engine import game
        >>> spec = game("whist")
        >>> view = spec.new_match(players=4, seed=3).view(0)
        >>> spec.world_from_view(view, random.Random(1)).view(0).hand == view.hand
        True
        >>> spec.world_from_view(replace(view, counts={"hand:1": 40}), random.Random(1))
        Traceback (most recent call last):
        levata.engine.contract.NoWorld: whist: no world fits the view of seat 0: ...
        """
        from_view = getattr(self.factory, "from_view", None)
        if from_view is None:
            raise NotImplementedError(f"{self.name} cannot rebuild a world from a view")
        try:
            if evidence is None or evidence.pool <= 1:
                world: GameState = from_view(self, view, rng)
            elif "evidence" in inspect.signature(from_view).parameters:
                world = from_view(self, view, rng, evidence)
            else:
                worlds = [from_view(self, view, rng) for _ in range(evidence.pool)]
                weights = [_hands_likelihood(w, evidence) for w in worlds]
                world = worlds[pick_weighed(weights, rng)]
        except (ValueError, IndexError, KeyError) as exc:  # the deal's own faults, by name
            if isinstance(exc, NoWorld):
                raise
            told = f"{self.name}: no world fits the view of seat {view.seat}: {exc}"
            raise NoWorld(told) from exc
        return world

    def from_position(self, text: str, seed: int = 0) -> GameState:
        """The match that :meth:`GameState.position` wrote as ``text``; its shuffles to come
        are drawn from ``seed``. :class:`BadConfig` says what is wrong with a bad text.

        >>> from levata.engine import game
        >>> state = game("tarneeb").new_match(players=4, seed=3)
        >>> again = game("tarneeb").from_position(state.position())
        >>> again.position() == state.position(), again.view(1, history=False).hand[:3]
        (True, (Card('6C'), Card('8C'), Card('JC')))
        """
        try:
            pos = positions.parse(text)
            if pos.game != self.name:
                raise BadConfig(f"the position is of {pos.game!r}, not {self.name!r}")
            if pos.players not in self.players:
                counts = _describe_counts(self.players)
                raise BadConfig(f"{self.name} is played by {counts} players, not {pos.players}")
            options = self.resolve_options(pos.options)
            state = self.factory._from_position(self, pos, options, seed)  # type: ignore[attr-defined]
            pos.check_all_read()
        except BadConfig:
            raise
        except positions.PositionError as err:
            raise BadConfig(f"position: {err}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
            raise BadConfig(f"position: a field does not fit {self.name}: {err!r}") from None
        return state

    def new_match(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        deal: Sequence[Card] | None = None,
        *,
        kernel: bool = True,
    ) -> GameState:
        """Start a match. ``deal`` (a deck order, top card first) replaces the first shuffle.
        ``kernel=False`` gives the Python state itself where the game has a
        :attr:`kernel_state` (the same match, at Python's speed)."""
        if players not in self.players:
            counts = _describe_counts(self.players)
            raise BadConfig(f"{self.name} is played by {counts} players, not {players}")
        state = self.factory(
            spec=self,
            players=players,
            options=self.resolve_options(options),
            seed=seed,
            deal=deal,
        )
        return self.kernel_state(state) if kernel and self.kernel_state else state


def _hands_likelihood(world: GameState, evidence: Evidence) -> float:
    """``evidence``'s likelihood of a whole world's hands (1 for a game that keeps none): each
    hand as a mask of faces, two copies of a card (two decks) one bit."""
    hands = getattr(world, "hands", None)
    if not isinstance(hands, list):
        return 1.0
    return evidence.likelihood([mask_of(set(h)) for h in hands])


def _describe_counts(counts: tuple[int, ...]) -> str:
    if len(counts) > 2 and counts == tuple(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}"
    return ", ".join(str(c) for c in counts)


# --------------------------------------------------------------------------------------------
# The state


class GameState(ABC):
    """One match in progress. Subclasses implement the underscored hooks.

    Attributes every game sets: ``spec``, ``players``, ``options``, ``seed``, ``rng`` (a
    :class:`random.Random` seeded from ``seed``: the only source of chance).
    """

    def __init__(self, spec: GameSpec, players: int, options: dict[str, Any], seed: int) -> None:
        self.spec = spec
        self.players = players
        self.options = options
        self.seed = seed
        self.rng = random.Random(seed)
        self._log: list[Event] = []

    # -- what a subclass provides -------------------------------------------------------------

    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats that must act now: one in turn-based play, several when simultaneous."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, in a fixed order; empty if it is not to act."""

    @abstractmethod
    def _apply(self, seat: int, action: Action) -> None:
        """Apply an action already checked to be legal."""

    @abstractmethod
    def view(self, seat: int, history: bool = True) -> SeatView:
        """What ``seat`` may know now; ``history=False`` leaves out the event history (the
        referee streams events separately and need not rebuild it for every request)."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> Result:
        """The outcome; raises :class:`RuntimeError` before the match is over."""

    @abstractmethod
    def table(self) -> tuple[Zone, ...]:
        """Every card of the game, by physical zone, with who sees it (the truth)."""

    @abstractmethod
    def sample_world(self, seat: int, rng: random.Random) -> GameState:
        """A full state that ``seat`` cannot tell apart from this one (same ``view(seat)``).

        The hidden cards are redealt at random under every constraint the seat knows, and the
        copy's own random stream is reseeded from ``rng`` so it says nothing of the real deck.
        """

    @classmethod
    def from_view(cls, spec: GameSpec, view: SeatView, rng: random.Random) -> GameState:
        """A full state whose ``view(view.seat)`` equals ``view`` (history included), hidden
        cards dealt from ``rng`` under every constraint the view implies; see
        :meth:`GameSpec.world_from_view`. Games that support search override it."""
        raise NotImplementedError(f"{cls.__name__} cannot rebuild a world from a view")

    def position(self) -> str:
        """The whole state as one line of text (see :mod:`levata.engine.position`), which
        :meth:`GameSpec.from_position` reads back: every card where it lies, hidden ones
        included, and every number the rules keep. No history, no luck to come."""
        values, zones = self._position()
        return positions.write(self.game, self.players, self.options, values, zones)

    def _position(self) -> tuple[dict[str, Any], set[str]]:
        """The position's fields in order, and which of them are places of cards."""
        raise NotImplementedError(f"{self.game} cannot write a position")

    @classmethod
    def _from_position(
        cls, spec: GameSpec, pos: positions.Position, options: dict[str, Any], seed: int
    ) -> GameState:
        """The state a position describes (the game's half of :meth:`GameSpec.from_position`)."""
        raise NotImplementedError(f"{spec.name} cannot read a position")

    def forfeit_scores(self, seats: Sequence[int]) -> tuple[float, ...]:
        """The scores to rank by when ``seats`` forfeit and the referee ends the match now: the
        scores so far (a game whose rules punish an abandon, Banking's MAL, counts it in).
        Never changes the state.

        >>> from levata.engine import game
        >>> game("whist").new_match(players=3, seed=1).forfeit_scores([0])
        (0.0, 0.0, 0.0)
        """
        return tuple(self.view(0, history=False).scores)

    # -- the shared guarantees ----------------------------------------------------------------

    @property
    def game(self) -> str:
        return self.spec.name

    def apply(self, seat: int, action: Action) -> None:
        """Apply ``action`` for ``seat`` or raise :class:`IllegalAction` leaving all unchanged."""
        if self.is_over():
            raise IllegalAction("the match is over")
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} is not to act now")
        kept = self._legal_kept
        # An action taken from the list this state last offered the seat, nothing applied since
        # (no event logged, none applied), is legal: found by identity, in C, without building
        # the list again. Any other is judged against the list built afresh.
        if (
            kept is None
            or kept[0] != seat
            or kept[1] is not self._log
            or kept[2] != len(self._log)
            or id(action) not in map(id, kept[3])
        ):
            legal = self._legal_to_act(seat)
            if id(action) not in map(id, legal) and action not in legal:
                choice = action.without_payload()
                if choice is action or choice not in legal:
                    shown = ", ".join(str(a) for a in legal[:12])
                    more = " ..." if len(legal) > 12 else ""
                    raise IllegalAction(
                        f"{action} is not legal for seat {seat} now (legal: {shown}{more})"
                    )
                self._check_payload(seat, action, choice)
        self._legal_kept = None
        self._apply(seat, action)

    def _legal_to_act(self, seat: int) -> list[Action]:
        """``legal_actions(seat)`` for a seat :meth:`apply` has just found in ``to_act()``: a
        game whose ``legal_actions`` starts by asking ``to_act`` again skips that here."""
        return self.legal_actions(seat)

    def payload_schema(self, seat: int, choice: Action) -> Mapping[str, Collection[str | int]]:
        """The payload ``seat`` may add to the legal ``choice`` now: each key it may give, with
        the values allowed (every key optional). Kemps takes its signals so; most games: empty.

        >>> from levata.engine import game
        >>> game("whist").new_match(players=4, seed=1).payload_schema(2, Action.parse("bid 1"))
        {}
        """
        return {}

    def _check_payload(self, seat: int, action: Action, choice: Action) -> None:
        schema = self.payload_schema(seat, choice)
        for key, value in action.payload:
            allowed = schema.get(key)
            if allowed is None:
                raise IllegalAction(f"{choice} takes no {key}= for seat {seat} now")
            if value not in allowed:
                shown = ", ".join(str(v) for v in allowed)
                raise IllegalAction(f"{key}={value} is not one of {shown} for {choice}")

    def apply_legal(self, seat: int, action: Action) -> None:
        """Apply ``action`` for ``seat`` when it is known legal: taken from
        ``legal_actions(seat)`` of this very state, nothing applied since. It skips building
        that list again, which a referee judging a reply against it has just done. Anything
        else goes through :meth:`apply`.

        >>> from levata.engine import game
        >>> state = game("whist").new_match(players=4, seed=1)
        >>> seat = state.to_act()[0]
        >>> state.apply_legal(seat, state.legal_actions(seat)[0])
        >>> state.event_count() > 0
        True
        """
        self._legal_kept = None
        self._apply(seat, action)

    def __getstate__(self) -> dict[str, Any]:
        # What a query kept (the list last offered) is a cache, not the position: a query
        # never changes what the state pickles to. Games with caches of their own drop them too.
        state = self.__dict__.copy()
        state.pop("_legal_kept", None)
        return state

    def _offer(self, seat: int, legal: list[Action]) -> list[Action]:
        """Keep ``legal``, the list :meth:`legal_actions` gives ``seat`` now, for :meth:`apply`
        to find the action it is handed in (a game whose lists cost the most to build calls
        it: the trick games). Gives ``legal`` back; the state keeps a tuple of its own, so a
        caller that changes the list it got changes nothing here."""
        log = self._log  # a world builder that writes a log of its own starts afresh too
        self._legal_kept = (seat, log, len(log), tuple(legal))
        return legal

    def events(self, since: int = 0, seat: int | None = None) -> list[Event]:
        """Events from sequence number ``since``; only those ``seat`` may see when given."""
        evs = self._log[since:]
        if seat is None:
            return list(evs)
        return [e for e in evs if e.visible_to(seat)]

    def event_count(self) -> int:
        """How many events the match has emitted (the next event's sequence number)."""
        return len(self._log)

    def history(self, seat: int) -> tuple[Event, ...]:
        return tuple(e for e in self._log if e.visible_to(seat))

    def clone(self) -> Self:
        """An independent copy: acting on it never changes this state."""
        return self.__deepcopy__({})  # what copy.deepcopy(self) calls, without its wrapping

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        # As deepcopy would, but the random stream is copied by its state (a tuple of 625
        # ints deepcopy would copy one by one), and the containers a state holds (lists,
        # sets and dicts of numbers, cards, events...) are copied whole, not item by item
        # (see _copied): a search clones a state at every step.
        other = object.__new__(type(self))
        memo[id(self)] = other
        mine = other.__dict__
        shared = _IMMUTABLE
        for name, value in self.__dict__.items():
            kind = type(value)
            if name == "_log" and kind is list:  # events only, immutable: no need to look
                mine[name] = memo[id(value)] = value.copy()
            elif kind in shared:
                mine[name] = value
            elif kind is list:
                mine[name] = _copied_list(value, memo)
            elif isinstance(value, random.Random):
                stream = random.Random.__new__(random.Random)  # not seeded: setstate sets all
                stream.setstate(value.getstate())
                mine[name] = stream
            else:
                mine[name] = _copied(value, memo)
        mine.pop("_legal_kept", None)  # see _offer: a copy's lists are its own
        return other

    #: The legal list last offered a seat, with the log and its length then (:meth:`_offer`).
    #: Never cloned: a copy offers its own.
    _legal_kept: tuple[int, list[Event], int, tuple[Action, ...]] | None = None

    #: Callbacks run as each event is emitted, keyed by ``id(state)``: the conformance suite
    #: reads the table at that instant. Kept off the instance so clones and pickles ignore it.
    _emit_hooks: ClassVar[dict[int, Callable[[GameState, Event], None]]] = {}

    #: True for a real-time game (actions applied in arrival order, timers on the referee's
    #: clock). Turn-based and tick-based games leave it False.
    realtime: bool = False

    def advance_clock(self, now_ms: int) -> None:
        """Tell a real-time game the referee's clock (ms since the match started).

        The referee calls it before each ``apply`` and whenever it wakes; the match record
        keeps the times so a replay feeds the same clock. Other games ignore it.
        """
        return None

    def watch(self, hook: Callable[[GameState, Event], None] | None) -> None:
        """Call ``hook(state, event)`` as each event is emitted (``None`` stops it).

        Games emit an event only once the table shows what it describes (a played card is
        on the trick before ``play`` is emitted), so a watcher can check each event against
        the table at that instant.
        """
        if hook is None:
            GameState._emit_hooks.pop(id(self), None)
        else:
            GameState._emit_hooks[id(self)] = hook

    def _emit(
        self,
        kind: str,
        /,
        *,
        audience: frozenset[int] | set[int] | None = None,
        seat: int | None = None,
        cards: Sequence[Card] = (),
        **data: Any,
    ) -> Event:
        log = self._log
        ev = _new_event(
            len(log),
            kind,
            None if audience is None else frozenset(audience),
            seat,
            tuple(cards),
            data,
        )
        log.append(ev)
        hook = GameState._emit_hooks.get(id(self))
        if hook is not None:
            hook(self, ev)
        return ev

    def _shallow_copy(self) -> Self:
        """A copy sharing everything but the event log and the random stream: games whose
        other containers are few copy them on top, which is much cheaper than ``clone``."""
        other = copy.copy(self)
        other.__dict__.pop("_legal_kept", None)  # see _offer
        other._log = list(self._log)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        return other

    def _reseed_for_sample(self, rng: random.Random) -> None:
        """Give a sampled world a fresh random stream drawn from the sampler's ``rng``."""
        self.rng = random.Random(rng.getrandbits(64))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game} players={self.players} seed={self.seed}>"


#: Values a clone shares with the state it copies: immutable ones, which ``copy.deepcopy``
#: gives back as they are (cards, actions, events, the spec: their own ``__deepcopy__``) or
#: rebuilds equal (a deal's :class:`~levata.engine.rules.TrickRules`: read-only).
_IMMUTABLE: frozenset[type] = frozenset(
    {int, float, bool, str, bytes, type(None), Card, Suit, Action, Event, GameSpec, TrickRules}
)


def _copied(value: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy(value, memo)``, cheaper for what a state holds: an immutable value is
    shared; a list, set or dict of immutable values is copied whole, in C; a list or dict of
    containers (hands, voids) is copied item by item here; anything else by ``deepcopy``.

    Copies are kept in ``memo`` as deepcopy keeps them, so two names for one list still
    name one list in the copy.

    >>> hands = [[Card.parse("AS")], [Card.parse("KS")]]
    >>> memo: dict[int, Any] = {}
    >>> copied = _copied({"hands": hands, "same": hands, "voids": [{1}, set()]}, memo)
    >>> copied == {"hands": hands, "same": hands, "voids": [{1}, set()]}
    True
    >>> copied["hands"] is not hands, copied["hands"][0] is not hands[0]
    (True, True)
    >>> copied["same"] is copied["hands"], copied["hands"][0][0] is hands[0][0]
    (True, True)
    """
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is list:
        return _copied_list(value, memo)
    if kind is set or kind is dict:
        done = memo.get(id(value))
        if done is not None:
            return done
        if _IMMUTABLE.issuperset(map(type, value)):  # a set's items, a dict's keys
            if kind is set:
                out = memo[id(value)] = value.copy()
                return out
            if _IMMUTABLE.issuperset(map(type, value.values())):
                out = memo[id(value)] = value.copy()
                return out
        if kind is dict:
            entries: dict[Any, Any] = {}
            memo[id(value)] = entries
            for k, v in value.items():
                entries[_copied(k, memo)] = _copied(v, memo)
            return entries
    elif (kind is tuple or kind is frozenset) and _IMMUTABLE.issuperset(map(type, value)):
        return value  # deepcopy gives back a tuple of immutable values (a frozenset: equal)
    return copy.deepcopy(value, memo)


def _copied_list(value: list[Any], memo: dict[int, Any]) -> list[Any]:
    """:func:`_copied` of a list: whole when its items are immutable (a hand, the log), else
    item by item, a list or set of immutable items (a seat's hand, its voids) whole."""
    done = memo.get(id(value))
    if done is not None:
        return done
    shared = _IMMUTABLE
    if shared.issuperset(map(type, value)):
        out = memo[id(value)] = value.copy()
        return out
    items: list[Any] = []
    memo[id(value)] = items  # before the items, as deepcopy (a list holding itself)
    for v in value:
        kind = type(v)
        if kind in shared:
            items.append(v)
        elif (
            (kind is list or kind is set) and id(v) not in memo and shared.issuperset(map(type, v))
        ):
            memo[id(v)] = inner = v.copy()
            items.append(inner)
        else:
            items.append(_copied(v, memo))
    return items
