"""What a spectator may see of a running match: only what every seat's view shows alike.

The *public view* is a :class:`~levata.engine.SeatView` of no seat (``seat`` -1): no hand,
only the zones every seat's view shows with the same cards (the trick, a turned-up trump, a
discard pile; never a hand), the counts, counters and facts on which every seat's view
agrees, the trump where every seat knows it. Nothing a seat holds privately can be in it: a
card is there only if every seat sees it. ``WatchMatch`` sends it (its tables), and the web
table draws its live pages from it alone.

>>> from levata.engine import game
>>> state = game("whist").new_match(players=3, seed=1)
>>> view = public_view(state)
>>> view.seat, view.hand, [n for n in view.zones if n.startswith("hand:")]
(-1, (), [])
>>> view.counts["hand:1"] == len(state.view(1).hand)
True
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from levata.engine import Event, GameState, SeatView
from levata.v1 import admin_pb2
from levata.wire.codec import event_bytes, field_bytes, view_bytes

if TYPE_CHECKING:
    from levata.server.match.referee import Referee

__all__ = ["MIN_TABLE_EVERY_S", "NO_SEAT", "public_table", "public_view", "tables"]

#: Tables come at most ten times a second, whatever a watcher asks for: each costs the
#: referee a public view (every seat's view compared), however many the events.
MIN_TABLE_EVERY_S = 0.1

#: The seat of the public view: nobody's.
NO_SEAT = -1

_HAND = "hand:"


def _agreed(maps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The entries every mapping has, with the same value (what every seat knows alike).

    >>> _agreed([{"a": 1, "b": 2}, {"a": 1, "b": 3}])
    {'a': 1}
    """
    first, rest = maps[0], maps[1:]
    return {k: v for k, v in first.items() if all(k in m and m[k] == v for m in rest)}


def public_view(state: GameState, views: Sequence[SeatView] | None = None) -> SeatView:
    """What a spectator may see of ``state`` now (``views``: every seat's view without its
    history, when the caller has them already)."""
    views = views or [state.view(s, history=False) for s in range(state.players)]
    first, rest = views[0], views[1:]
    zones = {
        name: cards
        for name, cards in first.zones.items()
        if not name.startswith(_HAND) and all(v.zones.get(name) == cards for v in rest)
    }
    return replace(
        first,
        seat=NO_SEAT,
        hand=(),
        zones=zones,
        counts=_agreed([v.counts for v in views]),
        counters=_agreed([v.counters for v in views]),
        trump=first.trump if all(v.trump == first.trump for v in rest) else None,
        facts=_agreed([v.facts for v in views]),
        history=(),
    )


_STATUS = {
    "waiting": admin_pb2.MATCH_STATUS_WAITING,
    "running": admin_pb2.MATCH_STATUS_RUNNING,
    "finished": admin_pb2.MATCH_STATUS_FINISHED,
    "aborted": admin_pb2.MATCH_STATUS_ABORTED,
}


def public_table(ref: Referee, events: Sequence[Event]) -> admin_pb2.WatchMatchResponse:
    """A ``WatchMatch`` table: ``events`` (public ones), and the public view, the actions
    applied and the status of the match now.

    Encoded by the wire encoder straight to bytes and read back once (a tenth of the time
    of building the events' messages field by field: a fast match has hundreds of events)."""
    public = [field_bytes(1, event_bytes(e)) for e in events if e.audience is None]
    body = b"".join([*public, field_bytes(2, view_bytes(public_view(ref.state)))])
    msg = admin_pb2.WatchMatchResponse.FromString(field_bytes(3, body))  # .table
    msg.table.actions = ref.applied
    msg.table.status = _STATUS.get(ref.status, admin_pb2.MATCH_STATUS_UNSPECIFIED)
    return msg


async def tables(
    ref: Referee,
    queue: asyncio.Queue[Any],
    every_s: float,
    next_event: Callable[[], Awaitable[Any]],
) -> AsyncIterator[admin_pb2.WatchMatchResponse]:
    """A watcher's tables: the first at once (every event already in ``queue``), then one
    for each batch of events, at most one every ``every_s`` (a batch after a quiet spell
    goes at once), until ``queue`` says the end (``None``) with a last table.
    ``next_event``: the next event of ``queue`` (or ``None``), waiting as long as it may.

    However many watch through one watcher (the web table fans out to its spectators), the
    referee builds one table a batch: its cost is the events', not the spectators'."""
    every_s = max(every_s, MIN_TABLE_EVERY_S)
    events: list[Event] = []
    sent = -every_s  # the first table is where the match stands: the first move after it
    while True:  # goes out at once
        ended = False
        while not queue.empty():  # everything already waiting goes in this table
            ev = queue.get_nowait()
            if ev is None:
                ended = True
                break
            events.append(ev)
        yield public_table(ref, events)
        if ended:
            return
        ev = await next_event()  # a quiet match: nothing goes out until it moves
        if ev is None:
            queue.put_nowait(None)  # the last table says the end
            events = []
        else:
            events = [ev]
        # what comes meanwhile goes in the next table
        await asyncio.sleep(max(0.0, sent + every_s - time.monotonic()))
        sent = time.monotonic()
