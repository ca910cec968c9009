"""Type stub of the compiled ``levata.engine.repezita_playouts`` (see ``repezita_playouts.pyx``)."""

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from levata.engine.cards import Card
from levata.engine.playout_base import Playout

__all__ = ["POLICIES", "RepezitaDealer", "RepezitaPlayout"]

POLICIES: tuple[str, ...]

class RepezitaPlayout(Playout):
    def __init__(self, fields: Mapping[str, Any], seed: int = 0) -> None: ...
    def clone(self) -> RepezitaPlayout: ...
    def is_over(self) -> bool: ...
    def to_act(self) -> tuple[int, ...]: ...
    def estimate(self) -> tuple[float, ...]: ...
    def fields(self) -> dict[str, Any]: ...

class RepezitaDealer:
    def __init__(
        self,
        base: RepezitaPlayout,
        seat: int,
        pool: Sequence[Card],
        sizes: Mapping[int | str, int],
        needs: Mapping[int, Sequence[Collection[int]]],
        seed: int = 0,
        tries: int = 200,
    ) -> None: ...
    def deal(self, seed: int = 0) -> RepezitaPlayout: ...
