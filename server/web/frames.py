"""What the viewer draws at one moment of a match: a *frame*, drawn from the engine's generic
views (no game's name here), for one of three onlookers:

* ``spectator``: public information only. Cards show where every seat's view shows the same
  cards under the same zone name (the trick, a turned-up trump, a discard pile); hands are
  backs with their sizes; numbers and facts only where every seat's view agrees. Nothing a
  seat holds privately can appear: a card is shown only if every seat sees it.
* ``seat:N``: exactly that seat's :class:`~levata.engine.SeatView` (what the referee sent it).
* ``table``: every card where it lies (the truth, :meth:`GameState.table`), for a finished
  match whose record the onlooker may read whole.

A frame is plain JSON: ``{"phase", "to_act", "scores", "trump", "hands": [{"seat", "count",
"cards"}], "zones": [[name, cards, face_up]], "counts", "counters", "facts"}``; ``cards`` of a
hand is ``None`` when its faces are hidden.

>>> from levata.engine import game
>>> state = game("whist").new_match(players=3, seed=1)
>>> f = public_frame(state)
>>> [h["cards"] for h in f["hands"]], [h["count"] for h in f["hands"]]
([None, None, None], [1, 1, 1])
>>> seat_frame(state.view(1, history=False))["hands"][1]["cards"] == [
...     str(c) for c in state.view(1).hand]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from levata.engine import GameState, SeatView
from levata.server.match.spectator import NO_SEAT, public_view

__all__ = [
    "VIEW_NAMES",
    "public_frame",
    "seat_frame",
    "table_frame",
    "view_names",
    "watched_frame",
]

#: The onlookers other than the seats.
VIEW_NAMES = ("spectator", "table")

_HAND = "hand:"


def view_names(players: int) -> list[str]:
    """Every view of a match of ``players`` seats.

    >>> view_names(2)
    ['spectator', 'seat:0', 'seat:1', 'table']
    """
    return ["spectator", *(f"seat:{s}" for s in range(players)), "table"]


def _cards(cards: Sequence[Any]) -> list[str]:
    return [str(c) for c in cards]


def _hand_count(counts: Any, seat: int, fallback: int) -> int:
    value = counts.get(f"{_HAND}{seat}")
    return value if isinstance(value, int) else fallback


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it (tuples as lists, cards and other objects as text)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _numbers(view: SeatView) -> dict[str, Any]:
    return {
        "phase": view.phase,
        "to_act": list(view.to_act),
        "scores": list(view.scores),
        "trump": view.trump,
    }


def public_frame(state: GameState, views: Sequence[SeatView] | None = None) -> dict[str, Any]:
    """What a spectator may see of ``state`` now: the frame of its public view (``views``:
    every seat's view without history, when the caller has them already)."""
    return seat_frame(public_view(state, views))


def watched_frame(view: SeatView) -> dict[str, Any]:
    """The spectator's frame from a public view as ``WatchMatch`` sends it (seat -1): what a
    live page draws, with nothing but what the referee gave every spectator.

    >>> from levata.engine import game
    >>> state = game("whist").new_match(players=3, seed=1)
    >>> watched_frame(public_view(state)) == public_frame(state)
    True
    """
    if view.seat != NO_SEAT:
        raise ValueError(f"not a public view: seat {view.seat}")
    frame = seat_frame(view)
    for tally in ("counts", "counters"):  # a map on the wire keeps no order: the page's is by name
        frame[tally] = dict(sorted(frame[tally].items()))
    return frame


def seat_frame(view: SeatView) -> dict[str, Any]:
    """What ``view``'s seat sees: its hand face up, the others' backs (or faces where its
    view names them, ``hand:N`` zones), and its zones, numbers and facts as the view has them
    (of the public view, seat -1: every hand a back, see :mod:`levata.server.match.spectator`)."""
    hands = []
    for s in range(view.players):
        known = view.zones.get(f"{_HAND}{s}")
        if s == view.seat:
            cards: list[str] | None = _cards(view.hand)
        else:
            cards = None if known is None else _cards(known)
        size = len(cards) if cards is not None else 0
        hands.append({"seat": s, "count": _hand_count(view.counts, s, size), "cards": cards})
    return {
        **_numbers(view),
        "hands": hands,
        "zones": [
            [name, _cards(cards), True]
            for name, cards in view.zones.items()
            if not name.startswith(_HAND)
        ],
        "counts": {k: v for k, v in view.counts.items() if not k.startswith(_HAND)},
        "counters": _plain(dict(view.counters)),
        "facts": _plain(dict(view.facts)),
    }


def table_frame(state: GameState, views: Sequence[SeatView] | None = None) -> dict[str, Any]:
    """Every card where it lies, hidden ones face up (marked ``face_up`` False): the whole
    truth, for a finished match's record read whole. Numbers as the public frame has them."""
    frame = public_frame(state, views)
    hands = frame["hands"]
    zones = []
    for zone in state.table():
        if zone.name.startswith(_HAND) and zone.owner is not None and zone.owner < len(hands):
            hands[zone.owner] = {
                "seat": zone.owner,
                "count": len(zone.cards),
                "cards": _cards(zone.cards),
            }
        elif zone.cards:
            zones.append([zone.name, _cards(zone.cards), zone.seen_by is None])
    frame["zones"] = zones
    return frame
