"""The game registry: every game module registers its :class:`GameSpec` here.

>>> from levata.engine import all_games, game
>>> "whist" in [g.name for g in all_games()]
True
>>> game("whist").players
(3, 4, 5, 6)
"""

from __future__ import annotations

import importlib
import pkgutil

from levata.engine.contract import BadConfig, GameSpec

_REGISTRY: dict[str, GameSpec] = {}
_loaded = False


def register(spec: GameSpec) -> GameSpec:
    """Add a game; registering a game also enrols it in the conformance suite."""
    if spec.name in _REGISTRY and _REGISTRY[spec.name] is not spec:
        raise ValueError(f"game {spec.name!r} is registered twice")
    _REGISTRY[spec.name] = spec
    return spec


def game_packages() -> list[str]:
    """The game packages under :mod:`levata.engine.games`, by name: a game joins the registry
    by being a package there (its ``__init__`` calls :func:`register`), with no list to edit.

    >>> "tarneeb" in game_packages()
    True
    """
    games = importlib.import_module("levata.engine.games")  # by name: the games import us
    found = pkgutil.iter_modules(games.__path__)
    return sorted(info.name for info in found if info.ispkg and not info.name.startswith("_"))


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for name in game_packages():
        importlib.import_module(f"levata.engine.games.{name}")
    _loaded = True


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
