"""``levata ladder``: ratings kept across tournaments (:mod:`levata.server.tournament.ladder`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from levata.server.cli.common import DB_OPTION, EXIT_RUNTIME, fail, out
from levata.server.match.store import DEFAULT_DB
from levata.server.tournament.ladder import Ladder, LadderError, print_ladder
from levata.server.tournament.store import TourneyStore


def ladder(
    name: Annotated[
        str | None, typer.Argument(help="The ladder (none: list the ladders of the database).")
    ] = None,
    tournament_ids: Annotated[
        list[str] | None,
        typer.Argument(help="Finished tournaments to add, in order (an id, a prefix, latest)."),
    ] = None,
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the ladder's table as JSON here.")
    ] = None,
) -> None:
    """Keep ratings across tournaments for the same bot entries: add each finished tournament
    once, then print the table (OpenSkill ratings with their uncertainty; the entries of one
    name are one bot). `levata ladder weekly latest` after each weekly tournament."""
    if not db.exists():
        raise fail(f"no database at {db}")
    ladders = Ladder(db)
    try:
        if name is None:
            _list(ladders, db)
            return
        if tournament_ids:
            _add(ladders, TourneyStore(db), name, tournament_ids, db)
        held = ladders.tournaments(name)
        if not held:
            raise fail(f"no ladder {name!r} in {db} (add a tournament: levata ladder {name} ID)")
        ratings = ladders.table(name)
        print_ladder(out, name, ratings, len(held))
        if json_out is not None:
            doc = {"ladder": name, "tournaments": held, "ratings": [r.to_dict() for r in ratings]}
            try:
                json_out.write_text(json.dumps(doc, indent=2) + "\n")
            except OSError as exc:
                raise fail(f"cannot write {json_out}: {exc.strerror}", EXIT_RUNTIME) from None
            out.print(f"wrote {json_out}", markup=False, soft_wrap=True)
    finally:
        ladders.close()


def _list(ladders: Ladder, db: Path) -> None:
    names = ladders.names()
    if not names:
        out.print(f"no ladders in {db} yet: levata ladder NAME TOURNAMENT_ID", markup=False)
    for n in names:
        held = ladders.tournaments(n)
        out.print(f"{n}: {held[0]['game']}, {len(held)} tournaments", markup=False)


def _add(ladders: Ladder, tdb: TourneyStore, name: str, keys: list[str], db: Path) -> None:
    for key in keys:
        tid = tdb.resolve(key)
        if tid is None:
            raise fail(f"no tournament {key!r} in {db}")
        t = tdb.tournament(tid)
        assert t is not None  # resolved just now
        if t["status"] != "finished":
            raise fail(f"tournament {tid} is not finished (levata tournament --resume it first)")
        try:
            rated = ladders.add(name, tid, t["spec"]["game"], tdb.rows(tid))
        except LadderError as exc:
            raise fail(str(exc)) from None
        out.print(f"added {tid} to ladder {name}: {rated} matches rated", markup=False)
