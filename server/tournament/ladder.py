"""A ladder: ratings kept across tournaments for the same bot entries, with their uncertainty.

An organiser runs a tournament every week; ``levata ladder NAME TOURNAMENT_ID`` adds each
finished tournament to the ladder once, and the table moves. Ratings are OpenSkill's
Plackett-Luce model (Weng-Lin's Bayesian approximation, the ``openskill`` library): each
entry has a mean ``mu`` and an uncertainty ``sigma`` (25 and 25/3 for a newcomer); every
finished match of the tournament, in schedule order, updates the entries that sat in it by
their finishing places (an entry of several seats counts once, at its best seat's place; a
forfeit is last, as the referee ranks it). The table is ordered by the conservative rating
``mu - 3 sigma`` (OpenSkill's ordinal): an entry rises by winning and by playing enough for
its uncertainty to shrink.

Entries are the same across tournaments when their names are (the manifest's or the
``--bots`` kind's): a ladder is of one game. The tables live in the results database beside
the tournaments (:mod:`levata.server.database` checks the file's version; they are new tables,
made at their current shape), with each entry's rating after every tournament, so the report
shows how each moved.

>>> import os, tempfile
>>> db = os.path.join(tempfile.mkdtemp(), "l.db")
>>> ladder = Ladder(db)
>>> rows = [{"status": "finished", "seats": ["a", "b", "c"],
...          "result": {"scores": [5, 1, 0], "ranks": [1, 2, 3], "forfeited": []}}] * 3
>>> ladder.add("weekly", "t1", "whist", rows)
3
>>> [(r.entry, r.matches, round(r.ordinal, 1)) for r in ladder.table("weekly")]
[('a', 3, 9.0), ('b', 3, 3.5), ('c', 3, -6.6)]
>>> ladder.add("weekly", "t1", "whist", rows)
Traceback (most recent call last):
...
levata.server.tournament.ladder.LadderError: tournament t1 is in ladder weekly already
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from levata.server.database import connect
from levata.server.tournament.standings import entry_results

__all__ = ["Ladder", "LadderError", "Rating"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_tournaments (
    ladder        TEXT NOT NULL,
    seq           INTEGER NOT NULL,   -- 1, 2...: the order the tournaments were added
    tournament_id TEXT NOT NULL,
    game          TEXT NOT NULL,      -- a ladder is of one game
    matches       INTEGER NOT NULL,   -- finished matches rated
    added_at      REAL NOT NULL,
    PRIMARY KEY (ladder, seq),
    UNIQUE (ladder, tournament_id)
);
CREATE TABLE IF NOT EXISTS ladder_ratings (
    ladder  TEXT NOT NULL,
    seq     INTEGER NOT NULL,         -- the entry's rating after that tournament
    entry   TEXT NOT NULL,
    mu      REAL NOT NULL,
    sigma   REAL NOT NULL,
    matches INTEGER NOT NULL,         -- rated matches so far, all tournaments
    PRIMARY KEY (ladder, seq, entry)
);
"""


class LadderError(ValueError):
    """A ladder cannot take a tournament (one line for the user)."""


@dataclass(frozen=True)
class Rating:
    """One entry of a ladder: its rating now, the tournaments it played, its move in the
    last tournament added (``None``: new in it, or not in it; ``new``: its first)."""

    entry: str
    mu: float
    sigma: float
    matches: int
    tournaments: int
    change: float | None
    new: bool = False

    @property
    def ordinal(self) -> float:
        """The conservative rating the table is ordered by: ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "matches": self.matches,
            "tournaments": self.tournaments,
            "change": self.change,
            "new": self.new,
        }


def _model() -> Any:
    from openskill.models import PlackettLuce  # only the ladder needs it

    return PlackettLuce()


class Ladder:
    """The ladders of one results database."""

    def __init__(self, path: str | Path) -> None:
        self._db = connect(path, SCHEMA, timeout=30)

    def close(self) -> None:
        self._db.close()

    def names(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT ladder FROM ladder_tournaments ORDER BY ladder")
        return [r[0] for r in rows]

    def tournaments(self, ladder: str) -> list[dict[str, Any]]:
        """The tournaments of ``ladder``, in the order they were added."""
        cur = self._db.execute(
            "SELECT seq, tournament_id, game, matches, added_at FROM ladder_tournaments"
            " WHERE ladder = ? ORDER BY seq",
            (ladder,),
        )
        keys = ("seq", "tournament_id", "game", "matches", "added_at")
        return [dict(zip(keys, r, strict=True)) for r in cur]

    def ladders_of(self, tournament_id: str) -> list[str]:
        """The ladders a tournament was added to."""
        cur = self._db.execute(
            "SELECT ladder FROM ladder_tournaments WHERE tournament_id = ? ORDER BY ladder",
            (tournament_id,),
        )
        return [r[0] for r in cur]

    def add(
        self, ladder: str, tournament_id: str, game: str, rows: Sequence[dict[str, Any]]
    ) -> int:
        """Rate the finished matches of a tournament (its schedule ``rows``, in order) into
        ``ladder``, in one transaction; the number of matches rated."""
        held = self.tournaments(ladder)
        if any(t["tournament_id"] == tournament_id for t in held):
            raise LadderError(f"tournament {tournament_id} is in ladder {ladder} already")
        if held and held[0]["game"] != game:
            raise LadderError(f"ladder {ladder} is of {held[0]['game']}, not {game}")
        model = _model()
        now = {r.entry: r for r in self.table(ladder)}
        ratings = {e: model.rating(mu=r.mu, sigma=r.sigma) for e, r in now.items()}
        matches = {e: r.matches for e, r in now.items()}
        rated = 0
        for row in rows:
            if row.get("status") != "finished" or not row.get("result"):
                continue
            places = entry_results(row, 0.0)
            names = sorted(places)
            if len(names) < 2:
                continue  # one entry in every seat: nothing to compare
            teams = [[ratings.setdefault(e, model.rating())] for e in names]
            updated = model.rate(teams, ranks=[places[e].rank for e in names])
            for e, (r,) in zip(names, updated, strict=True):
                ratings[e] = r
                matches[e] = matches.get(e, 0) + 1
            rated += 1
        seq = (held[-1]["seq"] if held else 0) + 1
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                "INSERT INTO ladder_tournaments VALUES (?, ?, ?, ?, ?, ?)",
                (ladder, seq, tournament_id, game, rated, time.time()),
            )
            db.executemany(
                "INSERT INTO ladder_ratings VALUES (?, ?, ?, ?, ?, ?)",
                [(ladder, seq, e, r.mu, r.sigma, matches[e]) for e, r in ratings.items()],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return rated

    def table(self, ladder: str) -> list[Rating]:
        """Every entry's rating now, best conservative rating first."""
        held = self.tournaments(ladder)
        if not held:
            return []
        last = held[-1]["seq"]
        cur = self._db.execute(
            "SELECT seq, entry, mu, sigma, matches FROM ladder_ratings WHERE ladder = ?"
            " ORDER BY seq",
            (ladder,),
        )
        history: dict[str, list[tuple[int, float, float, int]]] = {}
        for seq, entry, mu, sigma, n in cur:
            history.setdefault(entry, []).append((seq, mu, sigma, n))
        out = []
        for entry, steps in history.items():
            seq, mu, sigma, n = steps[-1]
            played = sum(1 for i, s in enumerate(steps) if s[3] > (steps[i - 1][3] if i else 0))
            change = None
            if seq == last and len(steps) > 1 and n > steps[-2][3]:
                change = (mu - 3 * sigma) - (steps[-2][1] - 3 * steps[-2][2])
            out.append(Rating(entry, mu, sigma, n, played, change, new=steps[0][0] == last))
        out.sort(key=lambda r: (-r.ordinal, r.entry))
        return out


def print_ladder(
    console: Any,
    ladder: str,
    ratings: Sequence[Rating],
    tournaments: int,
    only: set[str] | None = None,
) -> None:
    """The ladder as a table (``only``: just these entries, in the ladder's order)."""
    from rich.table import Table

    shown = [r for r in ratings if only is None or r.entry in only]
    title = f"ladder {ladder}: {tournaments} tournament{'s' * (tournaments != 1)}"
    table = Table(title=title, title_justify="left")
    for column in ("#", "entry", "rating", "mu ± sigma", "matches", "tournaments", "change"):
        table.add_column(column, justify="left" if column == "entry" else "right")
    place = {r.entry: i + 1 for i, r in enumerate(ratings)}
    for r in shown:
        change = "new" if r.new else _signed(r.change)
        table.add_row(
            str(place[r.entry]),
            r.entry,
            f"{r.ordinal:.1f}",
            f"{r.mu:.1f} ± {r.sigma:.1f}",
            str(r.matches),
            str(r.tournaments),
            change,
        )
    console.print(table)
    console.print(
        "rating: mu - 3 sigma (OpenSkill, Plackett-Luce); change: in the last tournament added",
        markup=False,
        soft_wrap=True,
    )


def ladders_html(path: str | Path, tournament_id: str, names: Sequence[str]) -> str:
    """The report page's section of the ladders a tournament is in ('' when none): each
    ladder's table now, the tournament's entries marked."""
    if not _has_ladders(path):
        return ""
    ladders = Ladder(path)
    try:
        held = ladders.ladders_of(tournament_id)
        if not held:
            return ""
        out = ['<section id="ladders"><h2>Ladders</h2>']
        for ladder in held:
            count = len(ladders.tournaments(ladder))
            out.append(f"<h3>{escape(ladder)}: {count} tournament{'s' * (count != 1)}</h3>")
            out.append(
                "<table><tr><th>#</th><th>entry</th><th>rating</th><th>mu ± sigma</th>"
                "<th>matches</th><th>tournaments</th><th>change</th></tr>"
            )
            for i, r in enumerate(ladders.table(ladder), 1):
                name = f"<b>{escape(r.entry)}</b>" if r.entry in names else escape(r.entry)
                change = "new" if r.new else _signed(r.change)
                out.append(
                    f"<tr><td>{i}</td><td>{name}</td><td>{r.ordinal:.1f}</td>"
                    f"<td>{r.mu:.1f} ± {r.sigma:.1f}</td><td>{r.matches}</td>"
                    f"<td>{r.tournaments}</td><td>{change}</td></tr>"
                )
            out.append("</table>")
        out.append(
            '<p class="note">Rating: mu - 3 sigma (OpenSkill, Plackett-Luce), kept across the'
            " ladder's tournaments; change: in the last tournament added; this tournament's"
            " entries in bold.</p></section>"
        )
        return "\n".join(out)
    finally:
        ladders.close()


def _has_ladders(path: str | Path) -> bool:
    try:
        db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        found = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ladder_tournaments'"
        ).fetchone()
    except sqlite3.Error:
        return False
    finally:
        db.close()
    return found is not None


def _signed(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f}"


def print_ladders_of(
    console: Any, path: str | Path, tournament_id: str, names: Sequence[str]
) -> None:
    """What a tournament's report shows of the ladders it was added to: each ladder's table
    now, for the tournament's entries. A file without ladders is only read, never given
    the ladder tables (a report reads)."""
    if not _has_ladders(path):
        return
    ladders = Ladder(path)
    try:
        for ladder in ladders.ladders_of(tournament_id):
            held = len(ladders.tournaments(ladder))
            print_ladder(console, ladder, ladders.table(ladder), held, only=set(names))
    finally:
        ladders.close()
