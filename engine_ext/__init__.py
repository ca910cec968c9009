"""levata.engine: the rules of every game behind one contract. Pure: no I/O, no threads.

>>> from levata.engine import game
>>> state = game("macao").new_match(players=3, seed=1)
>>> len(state.view(0).hand)
5
"""

from levata.engine.cards import Card, Suit, french_deck, italian_deck, parse_cards
from levata.engine.contract import (
    Action,
    BadConfig,
    Event,
    GameSpec,
    GameState,
    IllegalAction,
    NoWorld,
    Option,
    Result,
    SeatView,
    Zone,
)
from levata.engine.registry import all_games, game, register

__all__ = [
    "Action",
    "BadConfig",
    "Card",
    "Event",
    "GameSpec",
    "GameState",
    "IllegalAction",
    "NoWorld",
    "Option",
    "Result",
    "SeatView",
    "Suit",
    "Zone",
    "all_games",
    "french_deck",
    "game",
    "italian_deck",
    "parse_cards",
    "register",
]
