"""Filcău's table talk: the names of its phases, calls and events, the card play of each
kind of trick (:func:`trick_rules`) and the lines a match's log reads (:func:`narrate`).

>>> trick_rules(2).must_trump, trick_rules(2, "fris").follow, trick_rules(2, "farba").trump
(True, False, None)
"""

from __future__ import annotations

import functools
from typing import Any

from levata.engine import events
from levata.engine.contract import Event
from levata.engine.games.filcau.rules import PLAYERS, TEAMS
from levata.engine.rules import TRUMP_SUIT, TrickRules

__all__ = [
    "BIND",
    "CLOSED",
    "CUT",
    "FARBA",
    "FRIS",
    "KNOCK",
    "PATRU",
    "POINTS",
    "REDEAL",
    "TREI",
    "TRUMP",
    "narrate",
    "trick_rules",
]

# Phases and the kinds of actions and events of the game's own.
CUT, FRIS, BIND, TRUMP = "cut", "fris", "bind", "trump"
KNOCK = "knock"
CLOSED = "inchis"
REDEAL = "redeal"
#: The calls of the binding lap, as the calls fact and the bind events name them.
TREI, FARBA, PATRU = "trei", "farba", "patru"
#: A and 10 of each suit: one card point each.
POINTS = {16 * s + r: 1 for s in range(4) for r in (10, 14)}


def filcau_layout(trump: int) -> dict[int, tuple[int, int]]:
    """The card order with trump slot ``trump``: Q♠ > Q♣ > Q♥ > Q♦ (the filcăi, always
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


@functools.cache
def trick_rules(slot: int | None, mode: str = "normal") -> TrickRules:
    """The card play under trump slot ``slot``: ``normal`` (follow, else trump), ``fris``
    (trick 1 after a fris: any card, the highest trump wins) or ``farba`` (trick 1 led with a
    four-binder's farbă: follow, else any card; only the led suit wins).

    >>> trick_rules(2).must_trump, trick_rules(2, "fris").follow, trick_rules(2, "farba").trump
    (True, False, None)
    """
    if slot is None:
        return TrickRules(PLAYERS, None, teams=TEAMS)
    table: dict[str, Any] = {"layout": filcau_layout(slot), "points": POINTS, "teams": TEAMS}
    if mode == "fris":
        return TrickRules(PLAYERS, TRUMP_SUIT, follow=False, **table)
    if mode == "farba":
        return TrickRules(PLAYERS, None, **table)
    return TrickRules(PLAYERS, TRUMP_SUIT, must_trump=True, **table)


def narrate(ev: Event) -> str | None:
    """Lines for Filcău's own events.

    >>> narrate(Event(seq=1, kind="bind", seat=2, data={"call": "trei", "low": "10", "best": 2}))
    'seat 2 binds: trei 10'
    """
    d = ev.data
    if ev.kind == events.DEAL:
        return (
            f"-- deal {d['deal']}: dealer seat {d['dealer']}, cutter seat {d['cutter']},"
            f" status {d['status']}"
        )
    if ev.kind == CUT:
        return f"seat {ev.seat} {'cuts' if d.get('choice') == CUT else 'knocks'}"
    if ev.kind == FRIS:
        return f"seat {ev.seat} frises with {ev.cards[0]}: trump {d.get('trump')}"
    if ev.kind == BIND:
        low = f" {d['low']}" if d.get("low") else ""
        against = f" against {d['against']}" if d.get("against") else ""
        return f"seat {ev.seat} binds: {d.get('call')}{low}{against}"
    if ev.kind == CLOSED:
        return f"seat {ev.seat}: închis (five trumps)"
    if ev.kind == TRUMP:
        return f"seat {ev.seat} names trump {d.get('trump')}"
    if ev.kind == REDEAL:
        return "   nobody bound: the same dealer deals again"
    if ev.kind == events.SCORE:
        huda = " (huda)" if d.get("huda") is not None else ""
        return (
            f"   score{huda}: points {d['points']}, tricks {d['tricks']}, status {d['status']},"
            f" gained {d['gained']}, totals {d['totals']}"
        )
    return None
