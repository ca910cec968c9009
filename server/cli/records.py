"""``levata replay`` and ``levata export``: check or dump a recorded match."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from levata.server.cli.common import (
    DB_OPTION,
    err,
    fail,
    out,
)
from levata.server.match.store import DEFAULT_DB, Store


def replay(
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
) -> None:
    """Re-run a recorded match from its seed and actions; exit 1 if anything differs."""
    from levata.server.match.replay import replay_match

    if not db.exists():
        raise fail(f"no database at {db}")
    store = Store(db)
    if store.match(match_id) is None:
        raise fail(f"no match {match_id!r} in {db}{_recent(store)}")
    ok, why = replay_match(store, match_id)
    (out if ok else err).print(why, markup=False)
    if not ok:
        raise typer.Exit(1)


def export(
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File (default: stdout).")
    ] = None,
) -> None:
    """Write a recorded match (spec, events, actions, replies, result) as JSON.

    Seeds are written as strings: they are 64-bit, beyond what a JSON number holds exactly in
    most readers (JavaScript's, for one)."""
    from levata.server.match.replay import export_match

    if not db.exists():
        raise fail(f"no database at {db}")
    store = Store(db)
    record = export_match(store, match_id)
    if record is None:
        raise fail(f"no match {match_id!r} in {db}{_recent(store)}")
    text = json.dumps(seeds_as_text(record), indent=2)
    if output is None:
        sys.stdout.write(text + "\n")
    else:
        output.write_text(text + "\n")
        out.print(f"wrote {output}")


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
    ids = [m["id"] for m in store.matches(None, limit=3)]
    return f" (recent: {', '.join(ids)})" if ids else " (it holds no match)"
