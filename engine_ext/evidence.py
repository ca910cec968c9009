"""Evidence for inference in sampling: a likelihood of the seats' hands, passed in by a bot
(the engine knows no policy), and the importance draw that picks among exact deals by it.
:mod:`levata.engine.worlds` deals by it; :meth:`~levata.engine.GameSpec.world_from_view`
takes one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Evidence", "Likelihood", "pick_weighed"]

#: How likely the seats' hands are (card masks by seat; the viewing seat's own may be left
#: empty) given what the other seats were seen to do, relative to other deals of the same
#: view: 1.0 when nothing speaks against them. A model of their policy, passed in by a bot.
Likelihood = Callable[[Sequence[int]], float]


@dataclass(frozen=True)
class Evidence:
    """Inference in sampling: each world is picked among ``pool`` exact draws of the view in
    proportion to ``likelihood`` (``pool`` 1: uniform, as without it)."""

    likelihood: Likelihood
    pool: int = 4


def pick_weighed(weights: Sequence[float], rng: random.Random) -> int:
    """An index drawn in proportion to ``weights`` (one draw of ``rng``); all zero: uniform,
    evidence the model cannot explain is no reason to prefer one draw.

    >>> rng = random.Random(1)
    >>> [pick_weighed([0.0, 1.0, 0.0], rng) for _ in range(3)]
    [1, 1, 1]
    >>> sorted({pick_weighed([0.0, 0.0], rng) for _ in range(20)})
    [0, 1]
    """
    total = sum(weights)
    if total <= 0:
        return int(rng.random() * len(weights))
    x = rng.random() * total
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1
