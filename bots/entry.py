"""A bot entry: the text that names a bot and its options, as every command takes it.

    KIND[:key=value[:key=value...]]          a reference bot: ismcts:time_ms=100:c=0.7
    module:Class[:key=value...]              a Python class implementing Bot
    module:function                          a function act(view, legal) -> action

An option's type is that of the constructor's keyword default (or its annotation): ``int``,
``float``, ``bool`` (``true``/``false``, ``1``/``0``, ``yes``/``no``, ``on``/``off``) or
``str``; a parameter that defaults to ``None`` takes the type its annotation names beside
``None``, or the word ``none``. The constructor is ``(game, seed, **options)``; every other
parameter with a default is an option. Nothing here knows a bot by name: the options are read
from the class, so a new bot's options are settable the day it lands.

>>> split_entry("ismcts:time_ms=100:c=0.7")
('ismcts', {'time_ms': '100', 'c': '0.7'})
>>> split_entry("mybots.alice:Alice:depth=3")
('mybots.alice:Alice', {'depth': '3'})
>>> class Toy:
...     def __init__(self, game="", seed=0, *, depth=2, greedy=False, temp=1.0): ...
>>> coerce(Toy, {"depth": "3", "greedy": "yes"}, "toy")
{'depth': 3, 'greedy': True}
>>> coerce(Toy, {"depth": "deep"}, "toy")
Traceback (most recent call last):
...
levata.engine.contract.BadConfig: bot toy: depth=deep is not a whole number (its options: ...)
"""

from __future__ import annotations

import importlib
import inspect
import os
import random
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from levata.engine import Action, BadConfig, SeatView

__all__ = [
    "coerce",
    "describe_options",
    "function_bot",
    "load_class",
    "option_types",
    "split_entry",
]

#: Constructor parameters that are not options: every bot gets them from the match.
_GIVEN = frozenset(("self", "game", "seed"))
_TRUE = frozenset(("1", "true", "yes", "on"))
_FALSE = frozenset(("0", "false", "no", "off"))
_WORDS = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}


def split_entry(text: str) -> tuple[str, dict[str, str]]:
    """``KIND`` or ``module:Class``, and the ``key=value`` options after it (as text)."""
    parts = [p.strip() for p in text.strip().split(":")]
    if not parts[0]:
        raise BadConfig(f"bot entry {text!r} names no bot")
    head = parts[0]
    rest = parts[1:]
    if rest and "=" not in rest[0]:  # module:Class
        head = f"{head}:{rest[0]}"
        rest = rest[1:]
    options: dict[str, str] = {}
    for part in rest:
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise BadConfig(f"bot entry {text!r}: each option after ':' is key=value, not {part!r}")
        if key.strip() in options:
            raise BadConfig(f"bot entry {text!r}: option {key.strip()!r} given twice")
        options[key.strip()] = value.strip()
    return head, options


def load_class(path: str) -> type:
    """The class ``module:Class`` names, or a bot class around the function
    ``module:function`` names (:func:`function_bot`); the current folder is searched too
    (the author's own bot sits there). :class:`BadConfig` when it cannot be had."""
    module_name, _, name = path.partition(":")
    here = os.getcwd()
    if here not in sys.path:
        sys.path.append(here)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an author's module may fail in any way: say how, in one line
        raise BadConfig(f"bot {path}: cannot import {module_name}: {exc}") from None
    cls = getattr(module, name, None)
    if cls is not None and not isinstance(cls, type) and callable(cls):
        return function_bot(cls, path)
    if not isinstance(cls, type):
        raise BadConfig(
            f"bot {path}: module {module_name} has no class {name} (nor a function of that name)"
        )
    if not callable(getattr(cls, "act", None)):
        raise BadConfig(f"bot {path}: {name} is not a Bot (it has no act(view, legal) method)")
    return cls


def function_bot(act: Callable[..., Action], name: str = "") -> type:
    """A bot class around a function ``act(view, legal) -> action``, made like any bot as
    ``Class(game, seed)``. A function with a parameter named ``rng`` gets the bot's own
    ``random.Random(seed)`` there: its choices flow from the match's seed too.

    >>> def first(view, legal):
    ...     return legal[0]
    >>> bot = function_bot(first)("whist", 3)
    >>> bot.name, bot.act(None, ["bid 0", "bid 1"])
    ('first', 'bid 0')
    >>> def pick(view, legal, rng):
    ...     return rng.choice(legal)
    >>> same = [function_bot(pick)("whist", 3).act(None, "abcdef") for _ in range(2)]
    >>> same[0] == same[1]
    True
    """
    wants_rng = "rng" in inspect.signature(act).parameters

    class FunctionBot:
        def __init__(self, game: str = "", seed: int = 0) -> None:
            self.game = game
            self.rng = random.Random(seed)

        def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
            if wants_rng:
                return act(view, legal, rng=self.rng)
            return act(view, legal)

    FunctionBot.name = name or getattr(act, "__name__", "function")  # type: ignore[attr-defined]
    FunctionBot.__qualname__ = f"FunctionBot[{FunctionBot.name}]"  # type: ignore[attr-defined]
    return FunctionBot


def option_types(cls: type) -> dict[str, tuple[type, Any]]:
    """Each option of ``cls``'s constructor: its type and default.

    >>> class Toy:
    ...     def __init__(self, game="", seed=0, worlds: int = 40, time_ms: float | None = None):
    ...         ...
    >>> option_types(Toy)
    {'worlds': (<class 'int'>, 40), 'time_ms': (<class 'float'>, None)}
    """
    init = cls.__init__  # type: ignore[misc]
    try:
        hints = typing.get_type_hints(init)
    except Exception:  # an annotation that does not resolve: fall back on the defaults
        hints = {}
    found: dict[str, tuple[type, Any]] = {}
    for p in inspect.signature(init).parameters.values():
        if p.name in _GIVEN or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is p.empty:
            continue
        found[p.name] = (_type_of(hints.get(p.name), p.default), p.default)
    return found


def _type_of(hint: Any, default: Any) -> type:
    """The scalar type of an option from its annotation (``float | None`` -> float) or its
    default; ``str`` when neither says."""
    for t in (bool, int, float, str):
        if type(default) is t:
            return t
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    args = typing.get_args(hint) if union else (hint,)
    for a in args:
        if a in (bool, int, float, str):
            return a
    return str


def describe_options(cls: type) -> str:
    """``worlds=40, time_ms=None``: what the options are, for an error line or ``--help``."""
    opts = option_types(cls)
    return ", ".join(f"{k}={d}" for k, (_, d) in opts.items()) or "none"


def coerce(cls: type, given: Mapping[str, object], who: str) -> dict[str, Any]:
    """``given`` options checked against ``cls``'s constructor, text converted to each
    option's type; :class:`BadConfig` naming the bot's options when one is unknown or wrong."""
    opts = option_types(cls)
    out: dict[str, Any] = {}
    for key, value in given.items():
        if key not in opts:
            raise BadConfig(
                f"bot {who} has no option {key!r} (its options: {describe_options(cls)})"
            )
        kind, default = opts[key]
        try:
            out[key] = _convert(value, kind, default)
        except ValueError:
            raise BadConfig(
                f"bot {who}: {key}={value} is not {_WORDS[kind]}"
                f" (its options: {describe_options(cls)})"
            ) from None
    return out


def _convert(value: object, kind: type, default: Any) -> Any:
    if not isinstance(value, str):  # a typed value (from Python): it must fit already
        if value is None and default is None:
            return None
        if kind is float and type(value) is int:
            return float(value)
        if type(value) is not kind:
            raise ValueError(value)
        return value
    text = value.strip()
    if default is None and text.lower() == "none":
        return None
    if kind is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ValueError(text)
    if kind is int:
        return int(text)
    if kind is float:
        number = float(text)
        if number != number or number in (float("inf"), float("-inf")):
            raise ValueError(text)
        return number
    return value
