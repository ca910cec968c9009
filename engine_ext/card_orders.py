"""The card play of trick games by name, for the kernel's tests and benchmarks.

The kernel (:mod:`levata.engine.rules`) knows no game by name: a game builds its
:class:`~levata.engine.rules.TrickRules` itself. This table names each game's duties (and a
bridge-like game's), so that the kernel's tests can run every combination; where a game has
its own card order or points (Filcău, Sixty-six) they are read from the game's module, and the
registered games' tests check that their rules equal the table's.

>>> from levata.engine.cards import Suit
>>> r = trick_rules("bestia", trump=Suit.DENARI)
>>> r.overtrump, r.sure_pot
(True, True)
>>> r = trick_rules("filcau", trump=Suit.HEARTS)
>>> r.trump == TRUMP_SUIT, r.points[2 * 16 + 14], len(r.layout)
(True, 1, 20)
>>> trick_rules("sixty-six", trump=Suit.CLUBS).last_trick_bonus
10
"""

from __future__ import annotations

from typing import Any

from levata.engine.rules import TRUMP_SUIT, TrickRules

__all__ = ["GAMES", "trick_rules"]

#: name: (default seats, teams, follow, must_trump, head, overtrump, sure_pot)
GAMES: dict[str, tuple[int, tuple[int, ...] | None, bool, bool, bool, bool, bool]] = {
    "tarneeb": (4, (0, 1, 0, 1), True, False, False, False, False),
    "bridge": (4, (0, 1, 0, 1), True, False, False, False, False),
    "banking": (4, None, True, True, False, False, False),
    "tarnib-853": (4, None, True, False, False, False, False),
    "three-five-eight": (3, None, True, False, False, False, False),
    "rentz": (4, None, True, False, False, False, False),
    "bestia": (4, None, True, True, True, True, True),
    "sixty-six": (2, None, True, True, True, False, False),
    "filcau": (4, (0, 1, 0, 1), True, True, False, False, False),
}


def _slot(trump: Any) -> int | None:
    if trump is None:
        return None
    return int(trump.slot) if hasattr(trump, "slot") else int(trump)


def trick_rules(
    name: str, trump: Any = None, seats: int | None = None, **overrides: Any
) -> TrickRules:
    """The card-play rules of a game of :data:`GAMES`: ``tarneeb``, ``bridge``, ``banking``,
    ``tarnib-853``, ``three-five-eight``, ``rentz``, ``bestia``, ``sixty-six`` (play once the
    stock is gone or closed) or ``filcau`` (tricks after the first; ``trump`` must be a printed
    suit, the layout puts the filcai on top). ``overrides`` go to :class:`TrickRules`.

    Rules that depend on more than the trick and the position (Filcau's first trick and
    second lead) are the game's business, not the kernel's; Bestia's sure pot is the
    kernel's ``sure_pot`` duty, which also reads each seat's tricks and unseen cards.

    >>> trick_rules("tarneeb", trump=3)
    TrickRules(seats=4, trump=3, teams=(0, 1, 0, 1), follow=True)
    >>> trick_rules("poker")
    Traceback (most recent call last):
    ...
    ValueError: unknown trick game 'poker'; one of ['banking', 'bestia', ...]
    """
    if name not in GAMES:
        raise ValueError(f"unknown trick game {name!r}; one of {sorted(GAMES)}")
    n, teams, follow, must_trump, head, overtrump, sure_pot = GAMES[name]
    kw: dict[str, Any] = dict(
        teams=teams, follow=follow, must_trump=must_trump, head=head, overtrump=overtrump
    )
    if sure_pot:
        kw["sure_pot"] = True
    if name == "filcau":  # the game's own card order and points
        from levata.engine.games.filcau import table as filcau

        slot = _slot(trump)
        if slot is None or not 0 <= slot < 4:
            raise ValueError("filcau needs a printed trump suit")
        kw["layout"] = filcau.filcau_layout(slot)
        kw["points"] = dict(filcau.POINTS)
        trump = TRUMP_SUIT
    elif name == "sixty-six":
        from levata.engine.games.sixty_six import rules as sixty_six

        kw["layout"] = dict(sixty_six.LAYOUT)
        kw["points"] = {16 * s + r: p for s in range(4) for r, p in sixty_six.POINTS.items()}
        kw["last_trick_bonus"] = sixty_six.LAST_TRICK
    kw.update(overrides)
    return TrickRules(n if seats is None else seats, trump, **kw)
