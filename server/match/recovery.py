"""Take up, after a restart, the matches a stopped or killed referee left unfinished.

The records are written before anything is told (:mod:`levata.server.match.referee`), so the
file holds each unfinished match's seed, every action applied (with the referee clock it was
applied at) and each seat's strikes and time bank as of the last committed round. From that
a restarted referee rebuilds the match with :func:`levata.server.match.replay.rebuild` (the code
``levata replay`` runs), checks it against the recorded events, and goes on: the seats are
re-seated when their bots reconnect, with their clocks as they were.

Where that is impossible (the game is no longer registered, the record does not replay, or
it contradicts its own events) the match is closed as *aborted* with the reason: in the file
(so the admin view and ``levata replay`` report it) and, when its bots reconnect, in a
``MatchEnd`` with reason ``aborted``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from levata.engine import game
from levata.server.match.referee import Policy, Resume, aborted_record
from levata.server.match.replay import compare_events, rebuild
from levata.server.match.store import Store

__all__ = ["Recovered", "plan_resume", "unfinished"]


@dataclass(frozen=True)
class Recovered:
    """What became of one unfinished match at start-up."""

    match_id: str
    resume: Resume | None  # how to go on; None: closed as aborted, nobody left to tell
    why: str = ""  # why it could not go on (empty when it is resumed)


def unfinished(store: Store) -> list[dict[str, Any]]:
    """The rows of matches still ``waiting`` or ``running``: none, after a clean finish."""
    return [
        store.match(match_id)
        for status in ("waiting", "running")
        for _, match_id in store.match_page(status, 1_000_000)
    ]  # type: ignore[misc]


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
    actions = store.actions(match_id)
    try:
        game(row["game"])
    except Exception as exc:  # a game that was removed or renamed
        return _closed(store, row, f"cannot resume after a restart: {exc}", None)
    try:
        state = rebuild(row, actions)
        differs = compare_events(store.events(match_id), state, prefix=True)
    except Exception as exc:
        differs = f"its record does not replay ({type(exc).__name__}: {exc})"
    if differs:
        fresh = game(row["game"]).new_match(
            players=row["players"], options=row["options"], seed=row["seed"]
        )
        why = f"cannot resume after a restart: {differs}"
        resume = Resume(fresh, 0, 0, len(store.events(match_id)), row.get("seats"), abort=why)
        return _closed(store, row, why, resume)
    return Recovered(
        match_id,
        Resume(
            state=state,
            applied=len(actions),
            clock_ms=actions[-1]["clock_ms"] if actions else 0,
            events_stored=len(store.events(match_id)),
            seats=row.get("seats"),
        ),
    )


def policy_of(row: dict[str, Any]) -> Policy:
    """The match's recorded policy (fields unknown to this version are ignored)."""
    known = Policy.__dataclass_fields__
    return Policy(**{k: v for k, v in (row.get("policy") or {}).items() if k in known})


def _closed(store: Store, row: dict[str, Any], why: str, resume: Resume | None) -> Recovered:
    """Record the match as aborted with ``why`` (committed now)."""
    strikes = row.get("strikes") or [0] * row["players"]
    store.finish(row["id"], "aborted", aborted_record(why, [0.0] * row["players"]), strikes)
    store.flush()
    return Recovered(row["id"], resume, why)
