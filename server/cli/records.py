"""``levata replay`` and ``levata export``: check or dump a recorded match."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

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
    ok, why = replay_match(Store(db), match_id)
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
    """Write a recorded match (spec, events, actions, replies, result) as JSON."""
    from levata.server.match.replay import export_match

    if not db.exists():
        raise fail(f"no database at {db}")
    record = export_match(Store(db), match_id)
    if record is None:
        raise fail(f"no match {match_id!r} in {db}")
    text = json.dumps(record, indent=2)
    if output is None:
        sys.stdout.write(text + "\n")
    else:
        output.write_text(text + "\n")
        out.print(f"wrote {output}")
