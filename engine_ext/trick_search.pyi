"""Type stub of the compiled ``levata.engine.trick_search`` (see ``trick_search.pyx``)."""

from collections.abc import Iterable, Sequence

from levata.engine.cards import Card
from levata.engine.rules import TrickRules

_Hand = int | Iterable[Card | int]  # a card mask, or the cards (or indexes) themselves

__all__ = ["POLICIES", "TrickSearch"]

POLICIES: dict[str, int]

class TrickSearch:
    @property
    def iterations(self) -> int: ...
    @property
    def actions(self) -> int: ...
    def __init__(
        self,
        rules: TrickRules,
        me: int,
        tricks: Sequence[int],
        points: Sequence[int],
        values: Sequence[Sequence[float]],
        per_point: Sequence[float] | None = None,
        *,
        leader: int = 0,
        trick: Sequence[Card | int] = (),
        others_in_tree: bool = True,
        policy: str = "random",
        epsilon: float = 0.0,
        c: float = 0.7,
        seed: int = 0,
    ) -> None: ...
    def add_world(self, hands: Sequence[_Hand], rest: int = 0) -> None: ...
    def redeal(self, movable: Sequence[int], swaps: int, rest: int = 0) -> None: ...
    def hands(self, world: int = 0) -> list[int]: ...
    def prefer(self, card: Card | int) -> None: ...
    def run(self, iterations: int) -> int: ...
    def trace(
        self, world: int = 0, seed: int = 0
    ) -> tuple[list[tuple[int, int, int, int]], list[int], list[int]]: ...
    def root_edges(self) -> list[tuple[int, int, int, float, float]]: ...
    @property
    def nodes_used(self) -> int: ...
    @property
    def worlds(self) -> int: ...
