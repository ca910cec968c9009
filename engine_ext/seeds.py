"""Seeds flow down: tournament -> match -> deal, each derived from the one above.

A derived seed depends only on its parent and its label, so any match or deal replays
alone from its own seed.

>>> derive(7, "deal", 3) == derive(7, "deal", 3)
True
>>> derive(7, "deal", 3) != derive(7, "deal", 4)
True
"""

from __future__ import annotations

import hashlib


def derive(seed: int, *labels: object) -> int:
    """A 63-bit child seed of ``seed`` named by ``labels``."""
    text = ":".join([str(seed), *(str(x) for x in labels)]).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1
