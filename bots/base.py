"""The bot interface and the reference bots: ``random`` plays every game; each game's spec
names its others (:attr:`~levata.engine.GameSpec.bots`), found here by the game registry.

>>> from levata.engine import game
>>> state = game("whist").new_match(players=3, seed=2)
>>> seat = state.to_act()[0]
>>> bot = make_bot("random", game="whist", seed=5)
>>> bot.act(state.view(seat), state.legal_actions(seat)) in state.legal_actions(seat)
True
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from levata.bots.entry import coerce, function_bot, load_class, split_entry
from levata.engine import Action, BadConfig, GameSpec, GameState, SeatView, all_games
from levata.engine import game as find_game

__all__ = [
    "Bot",
    "RandomBot",
    "as_bot",
    "bot_class",
    "bot_names",
    "bot_path",
    "make_bot",
    "parse_bot",
]


@runtime_checkable
class Bot(Protocol):
    """The whole bot interface: choose one of the legal actions from what the seat sees."""

    name: str

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action: ...


def as_bot(player: object) -> Bot:
    """``player`` as a bot: a :class:`Bot` as it is, a plain function ``act(view, legal)``
    inside a bot (:func:`~levata.bots.entry.function_bot`); wherever a bot is taken, a
    function is too.

    >>> as_bot(lambda view, legal: legal[-1]).act(None, [1, 2])
    2
    """
    if callable(getattr(player, "act", None)):
        return player  # type: ignore[return-value]
    if callable(player):
        bot: Bot = function_bot(player)()
        return bot
    raise TypeError(f"{player!r} is not a bot: it has no act(view, legal), nor is it a function")


class RandomBot:
    """Uniformly random among the legal actions, from its own seeded stream."""

    name = "random"

    def __init__(self, game: str = "", seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        return self.rng.choice(list(legal))


#: The bot that plays every game; the others are each game's :attr:`GameSpec.bots`.
RANDOM = "random"
#: Searchers that play every game that rebuilds worlds from a view (``from_view``), without
#: the game naming them: kind -> ``"module:Class"``.
SEARCHERS = {"ismcts": "levata.bots.search.ismcts:IsmctsBot"}


def rebuilds_worlds(spec: GameSpec) -> bool:
    """Whether the game's state overrides ``from_view`` (what a generic searcher needs).

    >>> from levata.engine import game
    >>> rebuilds_worlds(game("macao"))
    True
    """
    hook = getattr(spec.factory, "from_view", None)
    return hook is not None and getattr(hook, "__func__", None) is not _BASE_FROM_VIEW


_BASE_FROM_VIEW = GameState.from_view.__func__  # type: ignore[attr-defined]  # a classmethod


def _kinds(spec: GameSpec) -> list[str]:
    searchers = [k for k in SEARCHERS if k not in spec.bots and rebuilds_worlds(spec)]
    return [*spec.bots, *searchers]


def bot_names(game: str | None = None) -> list[str]:
    """The bot kinds that play ``game`` (every kind some game has, without one).

    >>> bot_names("whist")
    ['heuristic', 'ismcts', 'pimc', 'random']
    >>> {"search", "silent", "never_lie"} <= set(bot_names())  # some games' own kinds
    True
    """
    specs = [find_game(game)] if game is not None else all_games()
    return sorted({RANDOM, *(kind for spec in specs for kind in _kinds(spec))})


def bot_path(kind: str, game: str) -> str:
    """Where the ``kind`` bot of ``game`` lives, ``"module:Class"`` (from the game's spec).

    >>> bot_path("pimc", "whist")
    'levata.bots.search.pimc:PimcBot'
    """
    return split_entry(_spec_entry(kind, game))[0]


def bot_defaults(kind: str, game: str) -> dict[str, str]:
    """The options ``game`` gives its ``kind`` bot unless told otherwise: a spec's entry
    may follow the class with ``:key=value`` (a generic searcher with the settings measured
    best for that game). Empty for most.

    >>> bot_defaults("ismcts", "huzur"), bot_defaults("ismcts", "macao")
    ({'horizon': '0', 'guard': '2'}, {})
    """
    if kind == RANDOM or ":" in kind:
        return {}
    return split_entry(_spec_entry(kind, game))[1]


def _spec_entry(kind: str, game: str) -> str:
    """The game spec's entry for ``kind`` (a generic searcher's where it names none)."""
    spec = find_game(game)
    if kind == RANDOM:
        return f"{__name__}:RandomBot"
    if kind not in _kinds(spec):
        if kind not in bot_names():
            raise BadConfig(f"unknown bot {kind!r} (known bots: {', '.join(bot_names())})")
        plays = ", ".join(g.name for g in all_games() if kind in _kinds(g))
        raise BadConfig(f"no {kind} bot for game {spec.name!r} (it plays: {plays})")
    return spec.bots.get(kind) or SEARCHERS[kind]


def bot_class(kind: str, game: str) -> type:
    """The class of a bot kind of ``game``, or of a ``module:Class`` (any game's)."""
    if ":" in kind:
        return load_class(kind)
    if kind == RANDOM:  # plays anything, even a game name the registry has never heard of
        return RandomBot
    module, _, name = bot_path(kind, game).partition(":")
    cls: type = getattr(importlib.import_module(module), name)
    return cls


def make_bot(kind: str, game: str, seed: int = 0, **options: object) -> Bot:
    """A bot of one game: ``random``, a kind the game's spec names, or a ``module:Class``,
    with its constructor's options (text is converted: :mod:`levata.bots.entry`).

    >>> make_bot("pimc", "whist", seed=1, worlds="8").worlds
    8
    """
    cls = bot_class(kind, game)
    given = {**bot_defaults(kind, game), **options}  # the game's settings, then the caller's
    bot: Bot = cls(game, seed, **coerce(cls, given, kind))
    return bot


def parse_bot(text: str, game: str) -> tuple[str, dict[str, object]]:
    """A bot entry (``KIND[:key=value...]`` or ``module:Class[:key=value...]``) -> the kind
    and its typed options; :class:`BadConfig` on a bad kind, option or value.

    >>> parse_bot("pimc:worlds=8:time_ms=50", "whist")
    ('pimc', {'worlds': 8, 'time_ms': 50})
    """
    kind, raw = split_entry(text)
    head, _, second = kind.partition(":")
    if second and head in bot_names():  # "pimc:worlds": an option without its value
        raise BadConfig(f"bot entry {text!r}: each option after ':' is key=value, not {second!r}")
    return kind, coerce(bot_class(kind, game), raw, kind)
