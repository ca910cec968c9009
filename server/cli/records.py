"""``levata replay`` and ``levata export``: check or dump a recorded match.

A row that cannot be read (a JSON column that is not JSON, or not of its shape) is one
``error:`` line naming the match and the row, status 1 (a database this levata cannot use).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from levata.server.cli.common import (
    DB_OPTION,
    EXIT_RUNTIME,
    check_output,
    err,
    fail,
    out,
    write_output,
)
from levata.server.match.store import DEFAULT_DB, BrokenRecord, Store


def replay(
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
) -> None:
    """Re-run a recorded match from its seed and actions and check every field of its record
    that can be recomputed (events, result, forfeits, strikes, its hash chain, each
    tournament's copy of its result); exit 1 naming each that differs."""
    from levata.server.match.replay import replay_match

    if not db.exists():
        raise fail(f"no database at {db}")
    store = Store(db)
    if store.raw_match(match_id) is None:
        raise fail(f"no match {match_id!r} in {db}{_recent(store)}")
    try:
        ok, why = replay_match(store, match_id)
    except BrokenRecord as exc:
        raise fail(f"{exc} (in {db})", EXIT_RUNTIME) from None
    copies = _tournament_copies(db, store, match_id)
    if copies:  # the record may hold up while the copy the standings read was changed
        why = f"{why}\n{copies}" if not ok else f"{copies}\n(the match's own record: {why})"
        ok = False
    (out if ok else err).print(why, markup=False, soft_wrap=True)
    if not ok:
        raise typer.Exit(1)


def _tournament_copies(db: Path, store: Store, match_id: str) -> str:
    """Where a tournament's copy of the match's result (what its standings read) differs
    from the record, one line each ('' when none does, or no tournament counts it)."""
    from levata.server.database import tables_in
    from levata.server.tournament.audit import copy_differs
    from levata.server.tournament.store import TourneyStore

    if "tournament_matches" not in tables_in(db):
        return ""
    tdb = TourneyStore(db)
    lines = []
    row = store.match(match_id)
    for tid, idx, text in tdb.copies_of(match_id):
        try:
            copy = json.loads(text) if text is not None else None
        except (TypeError, ValueError):
            copy = None
        if not isinstance(copy, dict):
            lines.append(f"tournament {tid}, scheduled match {idx}: its copy is not a JSON object")
            continue
        differs = copy_differs(copy, row or {})
        if differs:
            lines.append(f"tournament {tid}'s copy (scheduled match {idx}) differs: {differs}")
    tdb.close()
    return "\n".join(lines)


def export(
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File (default, or -: stdout).")
    ] = None,
) -> None:
    """Write a recorded match (spec, events, actions, replies, result) as JSON.

    Seeds are written as strings: they are 64-bit, beyond what a JSON number holds exactly in
    most readers (JavaScript's, for one)."""
    from levata.server.match.replay import export_match

    check_output(output, "--output")
    if not db.exists():
        raise fail(f"no database at {db}")
    store = Store(db)
    try:
        record = export_match(store, match_id)
    except BrokenRecord as exc:
        raise fail(f"{exc} (in {db})", EXIT_RUNTIME) from None
    if record is None:
        raise fail(f"no match {match_id!r} in {db}{_recent(store)}")
    text = json.dumps(seeds_as_text(record), indent=2)
    write_output(output or Path("-"), text + "\n", "--output")


def seeds_as_text(value: Any, key: str = "") -> Any:
    """``value`` with every integer under a key naming a seed (``seed``, ``deal_seed``...)
    written as a string.

    >>> seeds_as_text({"seed": 18446744073709551615, "seats": [{"sub_seed": 3, "n": 4}]})
    {'seed': '18446744073709551615', 'seats': [{'sub_seed': '3', 'n': 4}]}
    """
    if isinstance(value, dict):
        return {k: seeds_as_text(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [seeds_as_text(v, key) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and key.endswith("seed"):
        return str(value)
    return value


def _recent(store: Store) -> str:
    """`` (recent: ID, ID...)``: a hint of the ids the file does hold."""
    ids = [m[1] for m in store.match_page(None, 3)]
    return f" (recent: {', '.join(ids)})" if ids else " (it holds no match)"
