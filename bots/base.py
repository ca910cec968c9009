"""The bot interface and the registry of reference bots.

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

from levata.engine import Action, BadConfig, SeatView

__all__ = ["Bot", "RandomBot", "bot_names", "make_bot"]


@runtime_checkable
class Bot(Protocol):
    """The whole bot interface: choose one of the legal actions from what the seat sees."""

    name: str

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action: ...


class RandomBot:
    """Uniformly random among the legal actions, from its own seeded stream."""

    name = "random"

    def __init__(self, game: str = "", seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        return self.rng.choice(list(legal))


#: Heuristic bots live in ``levata.bots.heuristic.<game>`` as a class named ``HeuristicBot``.
_HEURISTIC_GAMES = ("whist", "macao", "repezita")


#: Games the search bot (``pimc``) plays.
_PIMC_GAMES = ("whist",)


def bot_names() -> list[str]:
    return ["random", "heuristic", "pimc"]


def make_bot(kind: str, game: str, seed: int = 0) -> Bot:
    """A reference bot by kind (``random`` or ``heuristic``) for one game."""
    if kind == "random":
        return RandomBot(game, seed)
    if kind == "heuristic":
        if game not in _HEURISTIC_GAMES:
            raise BadConfig(f"no heuristic bot for game {game!r}")
        module = importlib.import_module(f"levata.bots.heuristic.{game}")
        return module.HeuristicBot(game, seed)
    if kind == "pimc":
        if game not in _PIMC_GAMES:
            raise BadConfig(f"no pimc bot for game {game!r} (it plays: {', '.join(_PIMC_GAMES)})")
        from levata.bots.pimc import PimcBot

        return PimcBot(game, seed)
    raise BadConfig(f"unknown bot {kind!r} (known bots: {', '.join(bot_names())})")
