"""Re-run a recorded match from its seed and actions and compare it with the record.

>>> # see tests/test_referee.py for a full round trip through a real server
"""

from __future__ import annotations

import json
from typing import Any

from levata.engine import Action, game
from levata.server.store import Store

__all__ = ["export_match", "replay_match"]


def replay_match(store: Store, match_id: str) -> tuple[bool, str]:
    """``(identical, explanation)``: the engine replays the recorded actions from the seed."""
    row = store.match(match_id)
    if row is None:
        return False, f"no match {match_id!r} in {store.path}"
    if row["status"] != "finished":
        return False, f"match {match_id} is {row['status']}, not finished"
    state = game(row["game"]).new_match(
        players=row["players"], options=row["options"], seed=row["seed"]
    )
    for a in store.actions(match_id):
        state.advance_clock(a["clock_ms"])
        if a["seat"] is not None:
            state.apply(a["seat"], Action.parse(a["action"]))
    recorded = store.events(match_id)
    replayed = [_event_row(e) for e in state.events()]
    for i, (x, y) in enumerate(zip(recorded, replayed, strict=False)):
        if x != y:
            return False, f"event {i} differs: recorded {x}, replayed {y}"
    if len(recorded) != len(replayed):
        return False, f"{len(recorded)} events recorded, {len(replayed)} replayed"
    result = row["result"] or {}
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
