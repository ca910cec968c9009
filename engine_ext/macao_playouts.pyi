"""Type stub of the compiled ``levata.engine.macao_playouts`` (see ``macao_playouts.pyx``)."""

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from levata.engine.cards import Card
from levata.engine.contract import Action
from levata.engine.playout_base import Playout

__all__ = ["POLICIES", "MacaoDealer", "MacaoPlayout"]

POLICIES: tuple[str, ...]

class MacaoPlayout(Playout):
    def __init__(self, fields: Mapping[str, Any], seed: int = 0) -> None: ...
    def clone(self) -> MacaoPlayout: ...
    def is_over(self) -> bool: ...
    def to_act(self) -> tuple[int, ...]: ...
    def best_actions(self, seat: int) -> list[Action]: ...
    def estimate(self) -> tuple[float, ...]: ...
    def fields(self) -> dict[str, Any]: ...

class MacaoDealer:
    def __init__(
        self,
        base: MacaoPlayout,
        seat: int,
        slots: Sequence[tuple[int, int, Collection[Card] | None]],
        epochs: Sequence[
            tuple[
                Sequence[int],
                Sequence[tuple[Card, int]],
                Sequence[tuple[Card, int, int]],
                Sequence[Card],
            ]
        ],
        stock: Sequence[int],
        drawn: int = -1,
        seed: int = 0,
        tries: int = 30,
    ) -> None: ...
    def deal(self, seed: int = 0) -> MacaoPlayout: ...
