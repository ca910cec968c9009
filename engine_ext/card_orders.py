"""Card orders, duties and point tables of trick games not yet in the registry.

The kernel (:mod:`levata.engine.rules`) knows no game by name: a game builds its
:class:`~levata.engine.rules.TrickRules` itself. Until a game lands, its card-play table lives
here, so tests and benchmarks can play it; each entry moves into its game's module when the
game lands (Romanian Whist already declares its own rules).

>>> from levata.engine.cards import Suit
>>> trick_rules("bestia", trump=Suit.DENARI).overtrump
True
>>> r = trick_rules("filcau", trump=Suit.HEARTS)
>>> r.trump == TRUMP_SUIT, r.points[2 * 16 + 14], len(r.layout)
(True, 1, 20)
>>> trick_rules("sixty-six", trump=Suit.CLUBS).last_trick_bonus
10
"""

from __future__ import annotations

from typing import Any

from levata.engine.rules import TRUMP_SUIT, TrickRules, rank_order_layout

__all__ = ["GAMES", "filcau_layout", "sixty_six_layout", "trick_rules"]

#: name: (default seats, teams, follow, must_trump, head, overtrump)
GAMES: dict[str, tuple[int, tuple[int, ...] | None, bool, bool, bool, bool]] = {
    "tarneeb": (4, (0, 1, 0, 1), True, False, False, False),
    "bridge": (4, (0, 1, 0, 1), True, False, False, False),
    "banking": (4, None, True, True, False, False),
    "tarnib-853": (4, None, True, False, False, False),
    "three-five-eight": (3, None, True, False, False, False),
    "rentz": (4, None, True, False, False, False),
    "bestia": (4, None, True, True, True, True),
    "sixty-six": (2, None, True, True, True, False),
    "filcau": (4, (0, 1, 0, 1), True, True, False, False),
}

_SIXTY_SIX_POINTS = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}  # A, 10, K, Q, J


def filcau_layout(trump: int) -> dict[int, tuple[int, int]]:
    """Filcau's layout with trump slot ``trump``: Q♠ > Q♣ > Q♥ > Q♦ (the filcai, always
    trumps) above A, 10, K, J of trumps; every plain suit A > 10 > K > J.

    >>> lay = filcau_layout(2)
    >>> lay[3 * 16 + 12] == (TRUMP_SUIT, 13), lay[2 * 16 + 14] == (TRUMP_SUIT, 3)
    (True, True)
    """
    lay = {}
    plain = [11, 13, 10, 14]  # J, K, 10, A from weakest
    for slot in range(4):
        for power, rank in enumerate(plain):
            lay[16 * slot + rank] = (TRUMP_SUIT if slot == trump else slot, power)
    for power, slot in enumerate((1, 2, 0, 3)):  # Q♦, Q♥, Q♣, Q♠ from weakest
        lay[16 * slot + 12] = (TRUMP_SUIT, 10 + power)
    return lay


def sixty_six_layout() -> dict[int, tuple[int, int]]:
    """Sixty-six's 20 cards, A > 10 > K > Q > J in every suit.

    >>> lay = sixty_six_layout()
    >>> len(lay), lay[10] > lay[13]   # the 10 of clubs above the King
    (20, True)
    """
    return rank_order_layout([14, 10, 13, 12, 11])


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

    Rules that depend on more than the trick (Filcau's first trick and second lead, Bestia's
    sure-pot leads) are the game's business, not the kernel's.

    >>> trick_rules("tarneeb", trump=3)
    TrickRules(seats=4, trump=3, teams=(0, 1, 0, 1), follow=True)
    >>> trick_rules("poker")
    Traceback (most recent call last):
    ...
    ValueError: unknown trick game 'poker'; one of ['banking', 'bestia', ...]
    """
    if name not in GAMES:
        raise ValueError(f"unknown trick game {name!r}; one of {sorted(GAMES)}")
    n, teams, follow, must_trump, head, overtrump = GAMES[name]
    kw: dict[str, Any] = dict(
        teams=teams, follow=follow, must_trump=must_trump, head=head, overtrump=overtrump
    )
    if name == "filcau":
        slot = _slot(trump)
        if slot is None or not 0 <= slot < 4:
            raise ValueError("filcau needs a printed trump suit")
        kw["layout"] = filcau_layout(slot)
        kw["points"] = {16 * s + r: 1 for s in range(4) for r in (10, 14)}
        trump = TRUMP_SUIT
    elif name == "sixty-six":
        kw["layout"] = sixty_six_layout()
        kw["points"] = {16 * s + r: p for s in range(4) for r, p in _SIXTY_SIX_POINTS.items()}
        kw["last_trick_bonus"] = 10
    kw.update(overrides)
    return TrickRules(n if seats is None else seats, trump, **kw)
