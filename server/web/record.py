"""A recorded match as the viewer's steps: the record is replayed through the engine, and after
the deal and after each recorded action every allowed onlooker's frame is taken, exactly as
the referee would have shown it then (a seat's frame is its own :class:`SeatView`).

Beside each move: the reply that made it (its latency), whether it was a strike (a default
move after no legal reply in time), and the replies the referee refused for that request.

>>> # see tests/server/test_web.py: a refereed match rebuilt step by step
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from levata.engine import Action, Event, GameState, game
from levata.server.match.clocks import Policy
from levata.server.match.narrate import narrate
from levata.server.match.store import Store
from levata.server.web.frames import public_frame, seat_frame, table_frame, view_names

__all__ = ["NotViewable", "match_data", "visible"]

#: The shared event kinds the viewer jumps between.
_DEAL, _TRICK = "deal", "trick"


class NotViewable(ValueError):
    """The record cannot be shown (no such match, a game no longer registered, a record
    that does not replay): the message says which, in one line."""


def visible(ev: Event, view: str) -> bool:
    """Whether the onlooker ``view`` saw ``ev``: the spectator public events only, a seat
    those it was shown, the table every one.

    >>> from levata.engine import Event
    >>> private = Event(seq=1, kind="hand", audience=frozenset({1}))
    >>> [visible(private, v) for v in ("spectator", "seat:0", "seat:1", "table")]
    [False, False, True, True]
    """
    if view == "table":
        return True
    if view == "spectator":
        return ev.audience is None
    return ev.visible_to(int(view.split(":")[1]))


def match_data(store: Store, match_id: str, views: Iterable[str] | None = None) -> dict[str, Any]:
    """The viewer's data for the match: header, seats, and one step per recorded action
    (plus the deal), each with a frame and the events seen for every view in ``views``
    (default: all of them). Raises :class:`NotViewable`."""
    row = store.match(match_id)
    if row is None:
        raise NotViewable(f"no match {match_id!r} in {store.path}")
    try:
        spec = game(row["game"])
        state = spec.new_match(players=row["players"], options=row["options"], seed=row["seed"])
    except Exception as exc:  # a game since removed, options it no longer takes
        raise NotViewable(f"match {match_id} cannot be rebuilt: {exc}") from None
    wanted = None if views is None else set(views)
    steps = _Steps(state, [v for v in view_names(row["players"]) if wanted is None or v in wanted])
    policy = row["policy"] or {}  # the match's clocks (the referee's defaults where unset)
    steps.move_ms = int(policy.get("move_ms", steps.move_ms))
    steps.banks = [float(policy.get("bank_ms", steps.banks[0]))] * state.players
    replies = store.replies(match_id)
    by_request: dict[str, list[dict[str, Any]]] = {}
    for r in replies:
        if r["request_id"]:
            by_request.setdefault(r["request_id"], []).append(r)
    steps.take(0, None)
    broken = ""
    try:
        for a in store.actions(match_id):
            since = state.event_count()
            state.advance_clock(a["clock_ms"])
            if a["seat"] is not None:
                state.apply(a["seat"], Action.parse(a["action"]))
            steps.take(since, _move(a, by_request.get(a["request_id"] or "", [])))
    except Exception as exc:  # an edited record: show what replays, say where it stopped
        broken = f"the record stops replaying at step {len(steps.steps)}: {exc}"
    return {
        "match_id": match_id,
        "game": spec.name,
        "title": spec.title,
        "players": row["players"],
        "options": row["options"],
        "seat_bots": row["seat_bots"],
        "status": row["status"],
        "label": row.get("label") or "",
        "result": (row["result"] or {}) if row["status"] in ("finished", "aborted") else {},
        "strikes": row["strikes"],
        "refused": _refused(replies),
        "views": steps.views,
        "lines": {str(k): v for k, v in sorted(steps.lines.items())},
        "steps": steps.steps,
        "broken": broken,
    }


class _Steps:
    """The steps taken so far of a match being replayed, for the onlookers ``views``."""

    def __init__(self, state: GameState, views: list[str]) -> None:
        self.state, self.views = state, views
        self.lines: dict[int, str] = {}  # event seq -> its line (only those some view sees)
        self.steps: list[dict[str, Any]] = []
        self.deals = self.tricks = 0
        self.thought = [0.0] * state.players  # each seat's reply time so far (ms)
        # each seat's time bank left (ms), kept as the referee keeps it: a reply's time over
        # move_ms comes out of it, a strike empties it
        self.move_ms = Policy().move_ms
        self.banks = [float(Policy().bank_ms)] * state.players

    def take(self, since: int, move: dict[str, Any] | None) -> None:
        """A step: the state now, after ``move`` (``None``: the deal), with the events from
        sequence number ``since``."""
        state = self.state
        if move is not None and move["seat"] is not None:
            seat, latency = move["seat"], move["latency_ms"]
            if latency is not None:
                self.thought[seat] += latency
            if move["strike"]:
                self.banks[seat] = 0.0
            elif latency is not None and latency > self.move_ms:
                self.banks[seat] = max(0.0, self.banks[seat] - (latency - self.move_ms))
        new = state.events(since=since)
        self.deals += sum(e.kind == _DEAL for e in new)
        self.tricks += sum(e.kind == _TRICK for e in new)
        seat_views = [state.view(s, history=False) for s in range(state.players)]
        frames: dict[str, Any] = {}
        events: dict[str, list[int]] = {}
        for v in self.views:
            if v == "spectator":
                frames[v] = public_frame(state, seat_views)
            elif v == "table":
                frames[v] = table_frame(state, seat_views)
            else:
                frames[v] = seat_frame(seat_views[int(v.split(":")[1])])
            seen = [e for e in new if visible(e, v)]
            for e in seen:
                self.lines.setdefault(e.seq, narrate(e, state.spec))
            events[v] = [e.seq for e in seen]
        self.steps.append(
            {
                "move": move,
                "deal": self.deals,
                "trick": self.tricks,
                "frames": frames,
                "events": events,
                "thought_ms": [round(t, 1) for t in self.thought],
                "bank_ms": [round(b) for b in self.banks],
            }
        )


def _move(action: dict[str, Any], replies: list[dict[str, Any]]) -> dict[str, Any]:
    """One recorded action with the replies to its request: latency, strike, refusals."""
    made = next((r for r in replies if r["outcome"] in ("applied", "timeout")), None)
    refusals = [
        {"outcome": r["outcome"], "detail": r["detail"]}
        for r in replies
        if r["outcome"] not in ("applied", "timeout")
    ]
    return {
        "seat": action["seat"],
        "action": action["action"] or "(clock)",
        "clock_ms": action["clock_ms"],
        "strike": bool(action["substituted"]),
        "latency_ms": None if made is None or made["latency_ms"] is None else made["latency_ms"],
        "why": made["detail"] if made is not None and made["outcome"] == "timeout" else "",
        "refusals": refusals,
    }


def _refused(replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The refused replies the referee counted (not tied to one move): seat, why, how many."""
    return [
        {"seat": r["seat"], "outcome": r["outcome"], "count": r["count"], "detail": r["detail"]}
        for r in replies
        if not r["request_id"]
    ]
