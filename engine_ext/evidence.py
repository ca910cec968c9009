"""Evidence for inference in sampling: a likelihood of the seats' hands, passed in by a bot
(the engine knows no policy), and the importance draw that picks among exact deals by it.
:mod:`levata.engine.worlds` deals by it; :meth:`~levata.engine.GameSpec.world_from_view`
takes one. A likelihood made of :class:`Clue` s alone (:func:`read_clues`) travels with its
clues (:attr:`Evidence.clues`), which a game's dealer in C can weigh its own draws by.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Clue", "Clues", "Evidence", "Likelihood", "pick_weighed", "read_clues"]

#: How likely the seats' hands are (card masks by seat; the viewing seat's own may be left
#: empty) given what the other seats were seen to do, relative to other deals of the same
#: view: 1.0 when nothing speaks against them. A model of their policy, passed in by a bot.
Likelihood = Callable[[Sequence[int]], float]


@dataclass(frozen=True)
class Clue:
    """A world in which ``seat`` holds any of ``cards`` (a mask) now is ``factor`` as likely.
    A mask is of faces (``Card.index``): with two decks, a clue on a face means either copy.

    >>> Clue(1, 0b10, 0.5).factor
    0.5
    """

    seat: int
    cards: int
    factor: float


@dataclass(frozen=True)
class Clues:
    """The likelihood of the seats' hands (card masks by seat) under ``clues``: the product
    of the factors of the clues a world's hands meet (:func:`read_clues` makes one).

    >>> like = Clues((Clue(1, 0b10, 0.5), Clue(1, 0b100, 4.0)))
    >>> like([0, 0b11]), like([0, 0b110]), like([0, 0b01])
    (0.5, 2.0, 1.0)
    """

    clues: tuple[Clue, ...]

    def __call__(self, hands: Sequence[int]) -> float:
        w = 1.0
        for clue in self.clues:
            if hands[clue.seat] & clue.cards:
                w *= clue.factor
        return w


def read_clues(clues: Sequence[Clue]) -> Clues:
    """The likelihood of the seats' hands (card masks by seat) under ``clues``.

    >>> like = read_clues([Clue(1, 0b10, 0.5)])
    >>> like([0, 0b11]), like([0, 0b01])
    (0.5, 1.0)
    """
    return Clues(tuple(clues))


@dataclass(frozen=True)
class Evidence:
    """Inference in sampling: each world is picked among ``pool`` exact draws of the view in
    proportion to ``likelihood`` (``pool`` 1: uniform, as without it). ``clues``, where
    given, are all the likelihood says (it is their product): a dealer in C may weigh its
    draws by them instead of calling the likelihood (:meth:`of` fills them in).

    >>> Evidence.of(read_clues([Clue(1, 0b10, 50.0)]), pool=8).clues
    (Clue(seat=1, cards=2, factor=50.0),)
    >>> Evidence.of(lambda hands: 1.0).clues
    ()
    """

    likelihood: Likelihood
    pool: int = 4
    clues: tuple[Clue, ...] = ()

    @classmethod
    def of(cls, likelihood: Likelihood, pool: int = 4) -> Evidence:
        """The evidence of ``likelihood``, its clues carried where it is made of clues alone."""
        clues = likelihood.clues if isinstance(likelihood, Clues) else ()
        return cls(likelihood, pool, clues)


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
