"""Check a tournament's records: its hash chain, each counted match's own chain, and the
tournament's copy of each result (what the standings read) against the referee's record.

The chain's head is printed by ``levata tournament`` when it ends and by ``levata report``:
kept by the operator (or published), it is the anchor that makes a rewrite of the whole
chain visible too (``docs/security.md``, "Records").

>>> copy_differs({"match_id": "m", "scores": [1.0, 0.0], "ranks": [1, 2], "forfeited": [],
...               "reason": "complete", "strikes": [0, 0], "deals": 0},
...              {"id": "m", "status": "finished", "strikes": [0, 0],
...               "result": {"scores": [1.0, 0.0], "ranks": [2, 1], "reason": "complete"}})
'ranks: the tournament has [1, 2], the record [2, 1]'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from levata.server.match.chain import tournament_genesis, tournament_link
from levata.server.match.store import BrokenRecord, Store
from levata.server.tournament.store import TourneyStore

__all__ = ["Audit", "copy_differs", "verify_tournament"]


@dataclass
class Audit:
    """What the check found: ``chain`` is ``verified``, ``unchained`` (recorded before
    levata kept chains) or ``broken``; ``problems``: one line each, naming the scheduled
    match; ``head``: the tournament chain's head (hex) when it verifies."""

    chain: str = "verified"
    head: str = ""
    matches: int = 0  # counted matches whose record was checked in this file
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.problems:
            return f"records do not verify ({len(self.problems)} problem(s))"
        if self.chain == "unchained":
            return (
                f"records: {self.matches} match record(s) agree with the standings; the"
                " tournament is unchained (recorded before levata kept hash chains)"
            )
        return (
            f"records verified: {self.matches} match record(s) and the tournament's hash"
            f" chain; chain head {self.head}"
        )


def copy_differs(copy: dict[str, Any], row: dict[str, Any]) -> str:
    """Where the tournament's copy of a result and the referee's record of the match
    disagree ('' when they agree)."""
    if row.get("status") != "finished":
        return f"the match's record is {row.get('status')}, yet the tournament counts it"
    result = row.get("result") or {}
    want = {
        "match_id": row.get("id"),
        "scores": result.get("scores"),
        "ranks": result.get("ranks"),
        "forfeited": result.get("forfeited") or [],
        "reason": result.get("reason"),
        "strikes": row.get("strikes"),
        "deals": len(result.get("deals") or []),
    }
    return "; ".join(
        f"{k}: the tournament has {copy.get(k)}, the record {v}"
        for k, v in want.items()
        if copy.get(k) != v
    )


def verify_tournament(tdb: TourneyStore, tid: str, store: Store | None) -> Audit:
    """Check tournament ``tid``: its chain, link by link; and, for each counted match whose
    referee record is in ``store``, that record's chain and the tournament's copy of its
    result."""
    audit = Audit()
    spec, head, rows = tdb.chain_rows(tid)
    if head is None:
        audit.chain = "unchained"
    else:
        prev = tournament_genesis(tid, spec)
        for n, (idx, match_id, result, kept, seq) in enumerate(rows, 1):
            mine = tournament_link(prev, n, idx, match_id, result, tdb.match_head(match_id))
            if kept is None or seq != n or mine.hex() != kept:
                audit.problems.append(
                    f"scheduled match {idx} ({match_id}): the tournament's hash chain breaks"
                    f" at its link ({n} of {len(rows)}): its result, its match's record or"
                    " the order was changed"
                )
                break
            prev = mine
        else:
            if prev.hex() != head:
                audit.problems.append(
                    "the tournament's hash chain head differs from its links (a settled"
                    " match was removed or the head was changed)"
                )
        audit.head = head if not audit.problems else ""
        audit.chain = "broken" if audit.problems else "verified"
    if store is not None:
        for idx, match_id, result in sorted((r[0], r[1], r[2]) for r in rows):
            _check_match(audit, store, idx, match_id, result)
    return audit


def _check_match(audit: Audit, store: Store, idx: int, match_id: str, result: str) -> None:
    where = f"scheduled match {idx} ({match_id})"
    try:
        row = store.match(match_id)
        copy = json.loads(result)
    except (BrokenRecord, ValueError, TypeError) as exc:
        audit.problems.append(f"{where}: cannot be read: {exc}")
        return
    if row is None:
        return  # recorded by a referee elsewhere (--server): the chain covers the copy
    audit.matches += 1
    check = store.verify_chain(match_id)
    if not check.ok:
        audit.problems.append(f"{where}: its record's {check.describe()}")
    differs = copy_differs(copy if isinstance(copy, dict) else {}, row)
    if differs:
        audit.problems.append(f"{where}: the tournament's copy differs from the record: {differs}")
