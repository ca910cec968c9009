"""Type stub of the compiled ``levata.engine.playouts`` (see ``playouts.pyx``)."""

from collections.abc import Iterable, Sequence
from typing import Literal

from levata.engine.cards import Card
from levata.engine.rules import TrickRules

_Hand = int | Iterable[Card | int]  # a card mask, or the cards (or indexes) themselves

__all__ = ["aim_lines", "aim_reach", "deal_playouts", "playout", "playouts"]

_Policy = Literal["random", "greedy"]

def playout(
    rules: TrickRules,
    hands: Sequence[_Hand],
    leader: int,
    trick: Sequence[Card | int] = (),
    *,
    policy: _Policy = "random",
    epsilon: float = 0.0,
    seed: int = 0,
    won: Sequence[int] | None = None,
    hidden: Sequence[_Hand] | None = None,
) -> tuple[list[int], list[int]]: ...
def playouts(
    rules: TrickRules,
    hands: Sequence[_Hand],
    leader: int,
    trick: Sequence[Card | int] = (),
    *,
    n: int = 1000,
    policy: _Policy = "random",
    epsilon: float = 0.0,
    seed: int = 0,
    won: Sequence[int] | None = None,
    hidden: Sequence[_Hand] | None = None,
) -> dict[str, list[float] | list[list[int]]]: ...
def deal_playouts(
    rules: TrickRules,
    deck: _Hand,
    cards: int,
    *,
    n: int = 1000,
    leader: int | None = None,
    policy: _Policy = "random",
    epsilon: float = 0.0,
    seed: int = 0,
) -> dict[str, list[int]]: ...
def aim_reach(
    rules: TrickRules,
    hands: Sequence[_Hand],
    leader: int,
    trick: Sequence[Card | int] = (),
    targets: Sequence[int] = (),
    seat: int = 0,
    taken: Sequence[int] | None = None,
    max_nodes: int = 200000,
) -> int: ...
def aim_lines(
    rules: TrickRules,
    hands: Sequence[_Hand],
    leader: int,
    trick: Sequence[Card | int] = (),
    targets: Sequence[int] = (),
    seat: int = 0,
    taken: Sequence[int] | None = None,
    styles: Sequence[int] = (0,),
) -> list[int]: ...
