"""Type stub of the compiled ``levata.engine.huzur_playouts`` (see ``huzur_playouts.pyx``)."""

from collections.abc import Mapping, Sequence
from typing import Any

from levata.engine.cards import Card
from levata.engine.playout_base import Playout

__all__ = ["POLICIES", "HuzurDealer", "HuzurPlayout"]

POLICIES: tuple[str, ...]

class HuzurPlayout(Playout):
    def __init__(self, fields: Mapping[str, Any], seed: int = 0) -> None: ...
    def clone(self) -> HuzurPlayout: ...
    def is_over(self) -> bool: ...
    def to_act(self) -> tuple[int, ...]: ...
    def estimate(self) -> tuple[float, ...]: ...
    def fields(self) -> dict[str, Any]: ...

class HuzurDealer:
    def __init__(
        self,
        base: HuzurPlayout,
        seat: int,
        fixed: Sequence[Sequence[Card]],
        seed: int = 0,
        tries: int = 50,
    ) -> None: ...
    def deal(self, seed: int = 0) -> HuzurPlayout: ...
