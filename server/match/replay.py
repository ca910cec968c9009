"""Re-run a recorded match from its seed and actions and compare it with the record.

Everything of the record that can be recomputed is compared, and each difference named:
its hash chain (:mod:`levata.server.match.chain`), every event, the result (a forfeit's
too: the scores and ranks the referee gives forfeiting seats, and that the match was not
already over), and the strikes (each strike is a substituted action, or the last one that
forfeited its seat). What cannot be recomputed (why a seat did not connect, the replies'
timings) is covered by the chain only.

>>> # see tests/server/test_records.py for real records edited behind the referee's back
"""

from __future__ import annotations

import json
from typing import Any

from levata.engine import Action, GameState, game
from levata.engine.contract import ranks_from_scores
from levata.server.match.store import BrokenRecord, Store

__all__ = [
    "BrokenRecord",
    "compare_events",
    "export_match",
    "forfeit_result",
    "rebuild",
    "replay_match",
]


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


def forfeit_result(state: GameState, forfeited: list[int]) -> dict[str, Any]:
    """The result the referee records when ``forfeited`` seats forfeit at ``state`` (as
    ``Referee._forfeit``): they rank last, the others by their scores so far.

    >>> s = game("whist").new_match(players=3, seed=1)
    >>> r = forfeit_result(s, [1]); r["ranks"], r["winners"], r["reason"]
    ([1, 3, 1], [0, 2], 'forfeit')
    """
    n = state.players
    scores = list(state.forfeit_scores(forfeited)) or [0.0] * n
    alive = [i for i in range(n) if i not in forfeited]
    ranks = [len(alive) + 1] * n
    for i, r in zip(alive, ranks_from_scores([scores[i] for i in alive]), strict=True):
        ranks[i] = r
    winners = [i for i in alive if ranks[i] == 1]
    return {"scores": scores, "ranks": ranks, "winners": winners, "deals": [], "reason": "forfeit"}


def replay_match(store: Store, match_id: str) -> tuple[bool, str]:
    """``(identical, explanation)``: the engine replays the recorded actions from the seed
    and every recomputable field is compared; the explanation names each that differs, one
    per line. An aborted match replays up to where it stopped, and the explanation gives the
    reason. Raises :class:`BrokenRecord` for a row that cannot be read."""
    row = store.match(match_id)
    if row is None:
        return False, f"no match {match_id!r} in {store.path}"
    chain = store.verify_chain(match_id)
    actions = store.actions(match_id)
    result = row["result"] or {}
    if row["status"] == "aborted":
        why = result.get("detail") or "no reason recorded"
        try:
            state = rebuild(row, actions)
            problems = [p for p in (compare_events(store.events(match_id), state, True),) if p]
        except Exception as exc:  # the record may be why it was aborted
            return False, f"aborted: {why}; its record does not replay ({exc})"
        if not chain.ok:
            problems.append(chain.describe())
        if problems:
            return False, f"aborted: {why}; " + "\n".join(problems)
        n = len(actions)
        return True, f"aborted: {why} (identical up to there: {n} actions); {chain.describe()}"
    if row["status"] != "finished":
        return False, f"match {match_id} is {row['status']}, not finished"
    try:
        state = rebuild(row, actions)
    except Exception as exc:
        return False, f"its record does not replay ({type(exc).__name__}: {exc})"
    problems = [
        p
        for p in (
            compare_events(store.events(match_id), state, prefix=False),
            _result_differs(state, result),
            _strikes_differ(row, actions, state),
        )
        if p
    ]
    if not chain.ok:
        problems.append(chain.describe())
    if problems:
        return False, "\n".join(problems)
    n = len(state.events())
    if result.get("reason") == "forfeit":
        said = f"identical: {n} events up to the forfeit ({result.get('detail')})"
    else:
        said = f"identical: {n} events, scores {result['scores']}"
    return True, f"{said}; {chain.describe()}"


def _result_differs(state: GameState, result: dict[str, Any]) -> str:
    """What of the recorded result the replay contradicts ('' when nothing)."""
    forfeited = result.get("forfeited") or []
    if result.get("reason") == "forfeit":
        if state.is_over():
            mine = _plain(state.result().to_dict())
            return (
                f"result differs: recorded as a forfeit of seat(s) {forfeited}"
                f" ({result.get('detail')}), but the replayed match is complete: {mine}"
            )
        if not forfeited or not all(isinstance(s, int) for s in forfeited):
            return f"forfeited differs: a forfeit recorded with forfeited seats {forfeited}"
        mine = _plain(forfeit_result(state, forfeited))
    else:
        if not state.is_over():
            return "result differs: the replayed match is not over"
        if forfeited:
            return f"forfeited differs: recorded {forfeited} in a match played to its end"
        mine = _plain(state.result().to_dict())
    theirs = {k: result.get(k) for k in mine}
    fields = [k for k in mine if mine[k] != theirs[k]]
    if fields:
        return f"result differs ({', '.join(fields)}): recorded {theirs}, replayed {mine}"
    return ""


def _strikes_differ(row: dict[str, Any], actions: list[dict[str, Any]], state: GameState) -> str:
    """Each strike is a timed-out decision: a substituted action, or (the strike that
    reaches the limit) the seat's forfeit. A real-time game may also turn a strike into a
    clock step, so there the count is a lower bound."""
    strikes = row["strikes"] or []
    n = row["players"]
    subs = [0] * n
    for a in actions:
        if a["substituted"] and isinstance(a["seat"], int) and 0 <= a["seat"] < n:
            subs[a["seat"]] += 1
    result = row["result"] or {}
    detail = str(result.get("detail") or "")
    limit = (row.get("policy") or {}).get("max_strikes", 3)
    struck_out = set(result.get("forfeited") or []) if "strikes" in detail else set()
    want = [subs[i] + (i in struck_out) for i in range(n)]
    if len(strikes) != n or any(not isinstance(s, int) for s in strikes):
        return f"strikes differ: recorded {strikes}, recomputed {want}"
    for i in struck_out:
        if isinstance(i, int) and 0 <= i < n and strikes[i] != limit:
            return f"strikes differ: seat {i} forfeited by strikes with {strikes[i]} of {limit}"
    if state.realtime:
        bad = [i for i in range(n) if strikes[i] < want[i]]
    else:
        bad = [i for i in range(n) if strikes[i] != want[i]]
    if bad:
        seats = ", ".join(map(str, bad))
        return f"strikes differ (seat {seats}): recorded {strikes}, recomputed {want}"
    return ""


def _plain(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists, cards as text)."""
    return json.loads(json.dumps(value, default=str))


def _event_row(ev: Any) -> dict[str, Any]:
    d = ev.to_dict()
    return json.loads(
        json.dumps(
            {k: d[k] for k in ("seq", "kind", "audience", "seat", "cards", "data")}, default=str
        )
    )


def export_match(store: Store, match_id: str) -> dict[str, Any] | None:
    """The whole record as one JSON-able dict; :class:`BrokenRecord` for a row that cannot
    be read."""
    row = store.match(match_id)
    if row is None:
        return None
    return {
        "match": row,
        "events": store.events(match_id),
        "actions": store.actions(match_id),
        "replies": store.replies(match_id),
    }
