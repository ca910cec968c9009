"""Type stub of the compiled ``levata.engine.solver`` (see ``solver.pyx``)."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from levata.engine.cards import Card
from levata.engine.rules import TrickRules

_Hand = int | Iterable[Card | int]  # a card mask, or the cards (or indexes) themselves

__all__ = ["Objective", "SearchLimit", "Solver", "best_cards", "exact", "points", "solve", "tricks"]

_Side = int | Iterable[int] | None

class SearchLimit(RuntimeError): ...

class Objective:
    @property
    def kind(self) -> Literal["tricks", "points", "exact"]: ...
    @property
    def seats(self) -> tuple[int, ...] | None: ...
    @property
    def team(self) -> int | None: ...
    @property
    def target(self) -> int: ...
    @property
    def already(self) -> int: ...
    def __init__(
        self,
        kind: Literal["tricks", "points", "exact"],
        seats: _Side = None,
        team: int | None = None,
        target: int = 0,
        already: int = 0,
    ) -> None: ...
    def side_mask(self, rules: TrickRules) -> int: ...

def tricks(side: _Side = None, *, team: int | None = None) -> Objective: ...
def points(side: _Side = None, *, team: int | None = None) -> Objective: ...
def exact(
    side: _Side = None, target: int | None = None, *, team: int | None = None, already: int = 0
) -> Objective: ...

class Solver:
    @property
    def nodes(self) -> int: ...
    @property
    def stats(self) -> dict[str, float]: ...
    def __init__(
        self,
        rules: TrickRules,
        *,
        tt_bits: int | None = None,
        merge: bool = True,
        quick_tricks: bool = True,
        transposition: bool = True,
        relative_keys: bool = True,
        winning_ranks: bool = True,
        fast_probe: bool = True,
        suit_buckets: bool = True,
    ) -> None: ...
    def clear(self) -> None: ...
    def solve(
        self,
        hands: Sequence[_Hand],
        leader: int,
        trick: Sequence[Card | int] = (),
        objective: Objective | None = None,
        *,
        max_nodes: int = 0,
        guess: int | None = None,
        won: Sequence[int] | None = None,
        hidden: Sequence[_Hand] | None = None,
    ) -> int: ...
    def best_cards(
        self,
        hands: Sequence[_Hand],
        leader: int,
        trick: Sequence[Card | int] = (),
        seat: int | None = None,
        objective: Objective | None = None,
        *,
        max_nodes: int = 0,
        guess: Mapping[int, float] | None = None,
        won: Sequence[int] | None = None,
        hidden: Sequence[_Hand] | None = None,
    ) -> dict[int, int]: ...

def solve(
    rules: TrickRules,
    hands: Sequence[_Hand],
    leader: int,
    trick: Sequence[Card | int] = (),
    objective: Objective | None = None,
    **options: object,
) -> int: ...
def best_cards(
    rules: TrickRules,
    hands: Sequence[_Hand],
    leader: int,
    trick: Sequence[Card | int] = (),
    seat: int | None = None,
    objective: Objective | None = None,
    **options: object,
) -> dict[int, int]: ...
