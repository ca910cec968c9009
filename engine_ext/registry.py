"""The game registry: every game module registers its :class:`GameSpec` here.

>>> from levata.engine import all_games, game
>>> "whist" in [g.name for g in all_games()]
True
>>> game("whist").players
(3, 4, 5, 6)
"""

from __future__ import annotations

import importlib

from levata.engine.contract import BadConfig, GameSpec

_REGISTRY: dict[str, GameSpec] = {}

#: Game modules imported on first use of the registry (each calls :func:`register`).
GAME_MODULES = (
    "whist",
    "macao",
    "repezita",
    "banking",
    "eight_five_three",
    "three_five_eight",
    "tarneeb",
)


def register(spec: GameSpec) -> GameSpec:
    """Add a game; registering a game also enrols it in the conformance suite."""
    if spec.name in _REGISTRY and _REGISTRY[spec.name] is not spec:
        raise ValueError(f"game {spec.name!r} is registered twice")
    _REGISTRY[spec.name] = spec
    return spec


def _load() -> None:
    for module in GAME_MODULES:
        importlib.import_module(f"levata.engine.games.{module}")


def all_games() -> list[GameSpec]:
    """Every registered game, by name."""
    _load()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def game(name: str) -> GameSpec:
    """The spec of one game; :class:`BadConfig` with the known names if there is none."""
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise BadConfig(f"unknown game {name!r} (known games: {known})") from None
