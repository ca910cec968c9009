"""Take up, after a restart, the matches a stopped or killed referee left unfinished.

The records are written before anything is told (:mod:`levata.server.match.referee`), so the
file holds each unfinished match's seed, every action applied (with the referee clock it was
applied at) and each seat's strikes and time bank as of the last committed round. From that
a restarted referee rebuilds the match with :func:`levata.server.match.replay.rebuild` (the code
``levata replay`` runs), checks it against the recorded events, and goes on: the seats are
re-seated when their bots reconnect, with their clocks as they were.

Where that is impossible (the game is no longer registered, an option out of today's
range, a column that is not JSON or not of its shape, seats that do not match the players,
a policy or a seat record of the wrong type, a record that does not replay, or one that
contradicts its own events) the match is closed as *aborted* with the reason: in the file
(so the admin view and ``levata replay`` report it) and, when its bots reconnect and the
game can still be set up, in a ``MatchEnd`` with reason ``aborted``. One bad record never
keeps the referee from starting: the others are resumed.

A column that cannot be read is kept, as it was, in the aborted result
(``result["unreadable"]``) and replaced by an empty value, so that the admin view can list
the match; its hash chain then says the record was changed, which it was.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, TypeGuard

from levata.engine import game
from levata.server.match.clocks import Policy
from levata.server.match.referee import Resume, aborted_record
from levata.server.match.replay import compare_events, rebuild
from levata.server.match.store import BrokenRecord, Store

log = logging.getLogger("levata.server.match.recovery")

__all__ = ["Recovered", "close_aborted", "plan_resume", "unfinished", "unreadable"]


@dataclass(frozen=True)
class Recovered:
    """What became of one unfinished match at start-up."""

    match_id: str
    resume: Resume | None  # how to go on; None: closed as aborted, nobody left to tell
    why: str = ""  # why it could not go on (empty when it is resumed)


def unfinished(store: Store) -> list[dict[str, Any]]:
    """The rows of matches still ``waiting`` or ``running``: none, after a clean finish. A
    row that cannot be decoded comes as stored, with ``"broken"``: why."""
    rows = []
    for status in ("waiting", "running"):
        for _, match_id in store.match_page(status, 1_000_000):
            try:
                row = store.match(match_id)
            except BrokenRecord as exc:
                row = {**(store.raw_match(match_id) or {"id": match_id}), "broken": str(exc)}
            if row is not None:
                rows.append(row)
    return rows


def plan_resume(store: Store, row: dict[str, Any]) -> Recovered:
    """How to take up one unfinished match: a :class:`Resume` that goes on where its record
    leaves it, or one that tells its seats it is aborted (recorded here), or neither when the
    game itself is gone (recorded here too).

    >>> import os, tempfile
    >>> store = Store(os.path.join(tempfile.mkdtemp(), "r.db"))
    >>> store.create_match("m1", "whist", 3, {"deal_size": 1}, 5, ["a", "b", "c"], {})
    >>> plan = plan_resume(store, store.match("m1"))
    >>> plan.resume.applied, plan.resume.abort, plan.why
    (0, None, '')
    """
    match_id = row["id"]
    bad = unreadable(row)
    if bad:
        return close_aborted(store, row, f"cannot resume after a restart: {bad}", None)
    try:
        game(row["game"])
    except Exception as exc:  # a game that was removed or renamed
        return close_aborted(store, row, f"cannot resume after a restart: {exc}", None)
    try:
        actions = store.actions(match_id)
        events = store.events(match_id)
        state = rebuild(row, actions)
        differs = compare_events(events, state, prefix=True)
    except Exception as exc:  # bad options, a broken row, a record that does not replay
        differs = f"its record does not replay ({type(exc).__name__}: {exc})"
    if differs:
        why = f"cannot resume after a restart: {differs}"
        try:  # the seats are told why when they reconnect, if the game can still be set up
            fresh = game(row["game"]).new_match(
                players=row["players"], options=row["options"], seed=row["seed"]
            )
            told = Resume(fresh, 0, 0, store.event_count(match_id), row.get("seats"), abort=why)
        except Exception:
            told = None
        return close_aborted(store, row, why, told)
    return Recovered(
        match_id,
        Resume(
            state=state,
            applied=len(actions),
            clock_ms=actions[-1]["clock_ms"] if actions else 0,
            events_stored=len(events),
            seats=row.get("seats"),
        ),
    )


def unreadable(row: dict[str, Any]) -> str:
    """What of a row of :func:`unfinished` cannot be decoded or taken up ('' when nothing)."""
    return row.get("broken") or _misshapen(row)


def _misshapen(row: dict[str, Any]) -> str:
    """What of a decoded row a referee could not take up ('' when nothing): its seats'
    bots, its policy, its seat record (clocks, strikes, substitute draws), its numbers.

    >>> _misshapen({"players": 3, "seed": 1, "seat_bots": ["a", "b"], "policy": {}})
    'its row names 2 bots for 3 seats'
    >>> _misshapen({"players": 2, "seed": 1, "seat_bots": ["a", "b"], "policy": {"move_ms": "9"}})
    "its policy's move_ms is not a whole number: '9'"
    """
    players, bots = row.get("players"), row.get("seat_bots")
    if not _whole(players) or not 1 <= players <= 64:
        return f"its player count is not a number of seats: {players!r:.40}"
    if not _whole(row.get("seed")):
        return f"its seed is not a whole number: {row.get('seed')!r:.40}"
    if not isinstance(bots, list) or not all(isinstance(b, str) and b for b in bots):
        return f"its seats' bots are not a list of names: {bots!r:.60}"
    if len(bots) != players:
        return f"its row names {len(bots)} bots for {players} seats"
    for k, v in (row.get("policy") or {}).items():
        if k in Policy.__dataclass_fields__ and not (_whole(v) and v >= 0):
            return f"its policy's {k} is not a whole number: {v!r:.40}"
    seats = row.get("seats") or {}
    for key, kind in (("banks", (int, float)), ("strikes", int)):
        values = seats.get(key) or []
        if not isinstance(values, list) or not all(
            isinstance(v, kind) and not isinstance(v, bool) for v in values
        ):
            return f"its seat record's {key} are not numbers: {values!r:.60}"
    if not _whole(seats.get("substitutes", 0)):
        return f"its seat record's substitutes is not a whole number: {seats['substitutes']!r:.40}"
    if not isinstance(row.get("label") or "", str):
        return "its label is not text"
    return ""


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def policy_of(row: dict[str, Any]) -> Policy:
    """The match's recorded policy (fields unknown to this version are ignored)."""
    known = Policy.__dataclass_fields__
    return Policy(**{k: v for k, v in (row.get("policy") or {}).items() if k in known})


def close_aborted(store: Store, row: dict[str, Any], why: str, resume: Resume | None) -> Recovered:
    """Record the match as aborted with ``why`` (committed now); a row that could not be
    decoded is made readable first (:func:`Store.set_readable`), what it held kept in the
    result."""
    n = row["players"] if _whole(row.get("players")) and 0 < row["players"] <= 64 else 0
    strikes = row.get("strikes")
    if not (isinstance(strikes, list) and all(_whole(s) for s in strikes)):
        strikes = [0] * n
    record = aborted_record(why, [0.0] * n)
    if unreadable(row):
        record["unreadable"] = store.set_readable(row["id"])
    try:
        store.finish(row["id"], "aborted", record, strikes)
        store.flush()
    except Exception as exc:  # one record must not keep the referee from starting
        log.error("error: match %s could not be closed as aborted: %s", row["id"], exc)
    return Recovered(row["id"], resume, why)
