"""Re-run a recorded match from its seed and actions and compare it with the record.

>>> # see tests/server/test_referee.py for a full round trip through a real server
"""

from __future__ import annotations

import json
from typing import Any

from levata.engine import Action, GameState, game
from levata.server.match.store import Store

__all__ = ["compare_events", "export_match", "rebuild", "replay_match"]


def rebuild(row: dict[str, Any], actions: list[dict[str, Any]]) -> GameState:
    """The match a record describes: its seed's deal with every recorded action applied
    (clock steps included). A restarted referee resumes from this very state
    (:mod:`levata.server.match.recovery`). Raises ``KeyError`` for a game no longer registered and
    the engine's errors for a record that does not replay."""
    state = game(row["game"]).new_match(
        players=row["players"], options=row["options"], seed=row["seed"]
    )
    for a in actions:
        state.advance_clock(a["clock_ms"])
        if a["seat"] is not None:
            state.apply(a["seat"], Action.parse(a["action"]))
    return state


def compare_events(recorded: list[dict[str, Any]], state: GameState, prefix: bool) -> str:
    """Where the recorded events and the state's differ ('' when they agree); with
    ``prefix`` the record may stop short of the state (events not yet stored)."""
    replayed = [_event_row(e) for e in state.events()]
    for i, (x, y) in enumerate(zip(recorded, replayed, strict=False)):
        if x != y:
            return f"event {i} differs: recorded {x}, replayed {y}"
    if len(recorded) > len(replayed) or (len(recorded) < len(replayed) and not prefix):
        return f"{len(recorded)} events recorded, {len(replayed)} replayed"
    return ""


def replay_match(store: Store, match_id: str) -> tuple[bool, str]:
    """``(identical, explanation)``: the engine replays the recorded actions from the seed.

    An aborted match replays up to where it stopped, and the explanation gives the reason."""
    row = store.match(match_id)
    if row is None:
        return False, f"no match {match_id!r} in {store.path}"
    result = row["result"] or {}
    if row["status"] == "aborted":
        why = result.get("detail") or "no reason recorded"
        try:
            state = rebuild(row, store.actions(match_id))
        except Exception as exc:  # the record may be why it was aborted
            return False, f"aborted: {why}; its record does not replay ({exc})"
        differs = compare_events(store.events(match_id), state, prefix=True)
        if differs:
            return False, f"aborted: {why}; {differs}"
        n = len(store.actions(match_id))
        return True, f"aborted: {why} (identical up to there: {n} actions)"
    if row["status"] != "finished":
        return False, f"match {match_id} is {row['status']}, not finished"
    state = rebuild(row, store.actions(match_id))
    differs = compare_events(store.events(match_id), state, prefix=False)
    if differs:
        return False, differs
    replayed = state.events()
    if result.get("reason") == "forfeit":
        return True, f"identical: {len(replayed)} events up to the forfeit ({result['detail']})"
    if not state.is_over():
        return False, "the replayed match is not over"
    mine = state.result().to_dict()
    theirs = {k: result.get(k) for k in mine}
    if json.loads(json.dumps(mine)) != theirs:
        return False, f"results differ: recorded {theirs}, replayed {mine}"
    return True, f"identical: {len(replayed)} events, scores {mine['scores']}"


def _event_row(ev: Any) -> dict[str, Any]:
    d = ev.to_dict()
    return json.loads(
        json.dumps(
            {k: d[k] for k in ("seq", "kind", "audience", "seat", "cards", "data")}, default=str
        )
    )


def export_match(store: Store, match_id: str) -> dict[str, Any] | None:
    """The whole record as one JSON-able dict."""
    row = store.match(match_id)
    if row is None:
        return None
    return {
        "match": row,
        "events": store.events(match_id),
        "actions": store.actions(match_id),
        "replies": store.replies(match_id),
    }
