"""Type stub of the compiled ``levata.engine.playout_base`` (see ``playout_base.pyx``)."""

from typing import Literal

from levata.engine.contract import Action

__all__ = ["POLICIES", "Playout"]

_Policy = Literal["heuristic", "random"]

POLICIES: tuple[str, ...]

class Playout:
    @property
    def players(self) -> int: ...
    def legal_actions(self, seat: int) -> list[Action]: ...
    def _apply(self, seat: int, action: Action) -> None: ...
    def apply(self, seat: int, action: Action) -> None: ...
    def choose(self, seat: int, policy: _Policy | str = "heuristic") -> Action: ...
    def rollout(
        self, policy: _Policy | str = "heuristic", max_actions: int = 0, seed: int | None = None
    ) -> int: ...
