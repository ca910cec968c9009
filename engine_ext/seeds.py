"""Seeds flow down: tournament -> match -> deal, each derived from the one above.

A derived seed depends only on its parent and its label, so any match or deal replays
alone from its own seed. A seed a person gives (``--seed``) is a whole number from 0 to
:data:`MAX_SEED`, what the protocol carries, for every command alike (:func:`check_seed`).

>>> derive(7, "deal", 3) == derive(7, "deal", 3)
True
>>> derive(7, "deal", 3) != derive(7, "deal", 4)
True
"""

from __future__ import annotations

import hashlib

from levata.engine.contract import BadConfig

#: The largest seed: seeds travel as signed 64-bit integers (the protocol, SQLite).
MAX_SEED = 2**63 - 1


def derive(seed: int, *labels: object) -> int:
    """A 63-bit child seed of ``seed`` named by ``labels``."""
    text = ":".join([str(seed), *(str(x) for x in labels)]).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def check_seed(seed: int) -> int:
    """``seed`` when it is in the one range every command takes (0 to :data:`MAX_SEED`);
    :class:`BadConfig` otherwise.

    >>> check_seed(7)
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    levata.engine.contract.BadConfig: seed -1 is out of range: a seed is 0 to 9223372036854775807
    """
    if not 0 <= seed <= MAX_SEED:
        raise BadConfig(f"seed {seed} is out of range: a seed is 0 to {MAX_SEED}")
    return seed
