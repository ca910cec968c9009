"""The kernels' random stream (``engine_ext/splitmix.pxd``) in Python, with its ``choice``,
``shuffle`` and ``random``: what a Python copy of a game draws its random moves from (or
reshuffles with) in a differential test, so that it and the kernel pick the same
(tests/engine: pytest puts this folder on the path).

>>> SplitMix(1).choice(["a", "b", "c"]) in ("a", "b", "c")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

MASK = (1 << 64) - 1
T = TypeVar("T")


class SplitMix:
    """splitmix64, as the kernels step it; ``choice`` is their ``below_n`` (multiply-shift)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return (self.next() * n) >> 64

    def random(self) -> float:
        """A float in [0, 1): the top 53 bits of a draw, as the kernels' ``rand01``."""
        return (self.next() >> 11) * 2.0**-53

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.below(len(seq))]

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates from the top, as the kernels shuffle a stock."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
