"""What the dealer tests share (tests/engine: pytest puts this folder on the path): a
``random.Random`` fed by the kernels' splitmix64, so that a game's ``from_view`` makes the
draws its C dealer makes, and a count of the worlds a search asks a game for.

>>> Replayed(1).getrandbits(8) == SplitMix(1).next() >> 56
True
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from splitmix import SplitMix


class Replayed(random.Random):
    """A ``random.Random`` whose every draw comes from splitmix64, as a dealer's: CPython's
    own ``shuffle`` and ``choice`` draw through ``_randbelow`` (one ``below`` each here), and
    ``getrandbits(k)`` takes one 64-bit word (its top ``k`` bits). Fed to ``from_view`` one
    world after another, it must deal what the dealer deals, world for world."""

    def __init__(self, seed: int) -> None:
        super().__init__(0)
        self.mix = SplitMix(seed)

    def _randbelow(self, n: int) -> int:  # type: ignore[override]
        return self.mix.below(n)

    def getrandbits(self, k: int) -> int:
        assert 0 < k <= 64, k
        return self.mix.next() >> (64 - k)


def count_worlds(monkeypatch: pytest.MonkeyPatch, state_class: type) -> dict[str, int]:
    """From now on, how often ``state_class.from_view`` and ``playout_dealer`` are called (a
    search with a dealer rebuilds one world a decision and asks it for the dealer once)."""
    calls = {"from_view": 0, "playout_dealer": 0}
    from_view = state_class.from_view.__func__  # type: ignore[attr-defined]
    playout_dealer = state_class.playout_dealer  # type: ignore[attr-defined]

    def counted_from_view(cls: type, *args: Any) -> Any:
        calls["from_view"] += 1
        return from_view(cls, *args)

    def counted_dealer(self: Any, *args: Any) -> Any:
        calls["playout_dealer"] += 1
        return playout_dealer(self, *args)

    monkeypatch.setattr(state_class, "from_view", classmethod(counted_from_view))
    monkeypatch.setattr(state_class, "playout_dealer", counted_dealer)
    return calls
