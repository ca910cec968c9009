"""Tournaments in SQLite, beside the referee's match records (the same file by default).

Three tables: ``tournaments`` (the spec, as JSON, and whether it is finished),
``tournament_matches`` (the schedule: one row per scheduled match with its status, the
referee match that settled it and that match's result) and ``tournament_attempts`` (every
referee match started for a scheduled match, and what became of it).

Each settled match is a link of the tournament's hash chain
(:func:`levata.server.match.chain.tournament_link`, over the tournament's copy of its result
and the head of the referee's record of it), in the order they were settled; the
tournament's row keeps the head, which the report prints (:mod:`levata.server.tournament.audit`).

A scheduled match goes ``pending`` -> ``running`` (a referee match was created for it) ->
``finished`` (its result is stored, in the same transaction that closes the attempt). Only
finished rows count. A runner killed at any instant leaves some rows ``running``; resuming
marks their attempts ``abandoned`` and plays them again from scratch, so nothing is lost and
nothing is counted twice.

>>> import tempfile, os
>>> db = TourneyStore(os.path.join(tempfile.mkdtemp(), "t.db"))
>>> from levata.server.tournament.schedule import make_schedule
>>> db.create("t1", {"seed": 1}, make_schedule(["a", "b", "c"], 3, 1, 1))
>>> db.start("t1", 0, "m-1"); db.finish("t1", 0, "m-1", {"scores": [1, 0, 0]})
>>> db.start("t1", 1, "m-2")
>>> db.abandon_unfinished("t1")
['m-2']
>>> [(r["index"], r["status"], r["attempts"]) for r in db.rows("t1")]
[(0, 'finished', 1), (1, 'pending', 1), (2, 'pending', 0)]
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from levata.server.database import check_writable, connect, table_names
from levata.server.match import chain
from levata.server.match.store import BrokenRecord
from levata.server.tournament.schedule import ScheduledMatch

__all__ = ["TourneyStore", "spec_hash"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id          TEXT PRIMARY KEY,
    spec        TEXT NOT NULL,      -- JSON: game, entries, format, deals, seed, options...
    spec_hash   TEXT NOT NULL,      -- hash of spec: finds the tournament a command resumes
    status      TEXT NOT NULL,      -- running | finished
    runner      TEXT,               -- HOST:PID of the runner that last ran it
    created_at  REAL NOT NULL,
    finished_at REAL,
    chain       TEXT                -- hash chain: the head over its settled matches
);
CREATE TABLE IF NOT EXISTS tournament_matches (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),
    idx         INTEGER NOT NULL,   -- place in the schedule; the bots' seed label
    grp         INTEGER NOT NULL,   -- deal (duplicate) or round: the bootstrap's unit
    tbl         INTEGER NOT NULL,   -- which combination of entries
    seating     INTEGER NOT NULL,   -- which rotation or permutation
    seed        INTEGER NOT NULL,   -- the match seed (the deal's, in duplicate)
    seats       TEXT NOT NULL,      -- JSON list: entry name per seat
    options     TEXT NOT NULL,      -- JSON object: game options of this match
    status      TEXT NOT NULL,      -- pending | running | finished
    match_id    TEXT,               -- referee match of the current or settling attempt
    result      TEXT,               -- JSON, once finished: scores, ranks, forfeited...
    attempts    INTEGER NOT NULL DEFAULT 0,
    finished_at REAL,
    chain       TEXT,               -- hash chain: this settled match's link
    chain_seq   INTEGER,            -- its place in the chain (the order they were settled)
    PRIMARY KEY (tournament_id, idx)
);
CREATE TABLE IF NOT EXISTS tournament_attempts (
    tournament_id TEXT NOT NULL,
    idx         INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    match_id    TEXT NOT NULL,
    status      TEXT NOT NULL,      -- running | finished | abandoned
    started_at  REAL NOT NULL,
    ended_at    REAL,
    PRIMARY KEY (tournament_id, idx, attempt)
);
CREATE INDEX IF NOT EXISTS tournaments_spec ON tournaments(spec_hash);
CREATE INDEX IF NOT EXISTS tournament_matches_status ON tournament_matches(tournament_id, status);
"""


def spec_hash(spec: dict[str, Any]) -> str:
    """A short stable hash of a spec (key order does not matter).

    >>> spec_hash({"a": 1, "b": 2}) == spec_hash({"b": 2, "a": 1})
    True
    """
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=4).hexdigest()


def _decoded(text: str, shape: type, where: str) -> Any:
    """``text`` decoded as JSON of ``shape``, or :class:`BrokenRecord` saying ``where``.

    >>> _decoded("[1", list, "tournament t: its seats")
    Traceback (most recent call last):
    ...
    levata.server.match.store.BrokenRecord: tournament t: its seats is not a JSON list: '[1'
    """
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, shape):
        kind = "object" if shape is dict else "list"
        raise BrokenRecord(f"{where} is not a JSON {kind}: {str(text)[:40]!r}")
    return value


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot; Linux), or ``""``: with the pid
    it names one process, even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


def runner_id() -> str:
    """``HOST:PID:START`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}:{process_start(os.getpid())}"


class TourneyStore:
    """The tournament tables of one SQLite file; every write commits at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        # DatabaseError on a missing folder or a file of a newer levata (the version and
        # migrations are the file's: levata.server.database)
        self._db = connect(self.path, SCHEMA, timeout=30)

    def check_writable(self) -> None:
        """Raise :class:`levata.server.database.DatabaseError` (one line) unless the file
        takes a write now: a tournament that could not record a result must not start."""
        check_writable(self._db, self.path)

    def _tx(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for sql, args in statements:
                self._db.execute(sql, args)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    # -- tournaments ----------------------------------------------------------------------------

    def create(self, tid: str, spec: dict[str, Any], schedule: list[ScheduledMatch]) -> None:
        """Record a tournament and its whole schedule, in one transaction."""
        now = time.time()
        text = json.dumps(spec, sort_keys=True)
        start = chain.tournament_genesis(tid, text).hex()
        stmts: list[tuple[str, tuple[Any, ...]]] = [
            (
                "INSERT INTO tournaments (id, spec, spec_hash, status, runner, created_at, chain)"
                " VALUES (?, ?, ?, 'running', ?, ?, ?)",
                (tid, text, spec_hash(spec), runner_id(), now, start),
            )
        ]
        for m in schedule:
            stmts.append(
                (
                    "INSERT INTO tournament_matches (tournament_id, idx, grp, tbl, seating, seed,"
                    " seats, options, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
                    (
                        tid,
                        m.index,
                        m.group,
                        m.table,
                        m.seating,
                        m.seed,
                        json.dumps(list(m.seats)),
                        json.dumps(m.options, sort_keys=True),
                    ),
                )
            )
        self._tx(stmts)

    def tournament(self, tid: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT id, spec, spec_hash, status, runner, created_at, finished_at"
            " FROM tournaments WHERE id = ?",
            (tid,),
        ).fetchone()
        if row is None:
            return None
        keys = ("id", "spec", "spec_hash", "status", "runner", "created_at", "finished_at")
        out = dict(zip(keys, row, strict=True))
        out["spec"] = _decoded(out["spec"], dict, f"tournament {tid}: its spec")
        return out

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament, newest first."""
        ids = [
            r[0] for r in self._db.execute("SELECT id FROM tournaments ORDER BY created_at DESC")
        ]
        return [t for t in (self.tournament(i) for i in ids) if t is not None]

    def with_spec(self, spec: dict[str, Any]) -> list[dict[str, Any]]:
        """Tournaments of exactly this spec, oldest first."""
        ids = self._db.execute(
            "SELECT id FROM tournaments WHERE spec_hash = ? ORDER BY created_at, rowid",
            (spec_hash(spec),),
        )
        found = [self.tournament(i) for (i,) in ids]
        return [t for t in found if t is not None and t["spec"] == json.loads(json.dumps(spec))]

    def resolve(self, key: str) -> str | None:
        """A tournament id from an id, a unique prefix of one, or ``latest``."""
        if key == "latest":
            row = self._db.execute(
                "SELECT id FROM tournaments ORDER BY created_at DESC, rowid DESC LIMIT 1"
            ).fetchone()
            return None if row is None else row[0]
        if self.tournament(key) is not None:
            return key
        like = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._db.execute(
            "SELECT id FROM tournaments WHERE id LIKE ? ESCAPE '\\'", (like,)
        ).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def claim(self, tid: str) -> str | None:
        """Record this process as the tournament's runner; returns the runner that was
        recorded before (``HOST:PID:START``)."""
        t = self.tournament(tid)
        self._tx([("UPDATE tournaments SET runner = ? WHERE id = ?", (runner_id(), tid))])
        return None if t is None else t["runner"]

    def set_finished(self, tid: str) -> None:
        self._tx(
            [
                (
                    "UPDATE tournaments SET status = 'finished', finished_at = ? WHERE id = ?",
                    (time.time(), tid),
                )
            ]
        )

    # -- scheduled matches ----------------------------------------------------------------------

    def rows(self, tid: str) -> list[dict[str, Any]]:
        """The schedule with each match's status and result, in schedule order."""
        cur = self._db.execute(
            "SELECT idx, grp, tbl, seating, seed, seats, options, status, match_id, result,"
            " attempts FROM tournament_matches WHERE tournament_id = ? ORDER BY idx",
            (tid,),
        )
        keys = (
            "index",
            "group",
            "table",
            "seating",
            "seed",
            "seats",
            "options",
            "status",
            "match_id",
            "result",
            "attempts",
        )
        out = []
        for row in cur:
            d = dict(zip(keys, row, strict=True))
            for key, shape in (("seats", list), ("options", dict), ("result", dict)):
                if d[key] is not None:
                    d[key] = _decoded(d[key], shape, f"tournament {tid}, scheduled match"
                                      f" {d['index']}: its {key}")  # fmt: skip
            out.append(d)
        return out

    def attempts(self, tid: str) -> list[dict[str, Any]]:
        cur = self._db.execute(
            "SELECT idx, attempt, match_id, status FROM tournament_attempts"
            " WHERE tournament_id = ? ORDER BY idx, attempt",
            (tid,),
        )
        return [dict(zip(("index", "attempt", "match_id", "status"), r, strict=True)) for r in cur]

    def start(self, tid: str, idx: int, match_id: str) -> None:
        """A referee match was created for scheduled match ``idx``."""
        (n,) = self._db.execute(
            "SELECT attempts FROM tournament_matches WHERE tournament_id = ? AND idx = ?",
            (tid, idx),
        ).fetchone()
        self._tx(
            [
                (
                    "INSERT INTO tournament_attempts VALUES (?, ?, ?, ?, 'running', ?, NULL)",
                    (tid, idx, n + 1, match_id, time.time()),
                ),
                (
                    "UPDATE tournament_matches SET status = 'running', match_id = ?,"
                    " attempts = ? WHERE tournament_id = ? AND idx = ?",
                    (match_id, n + 1, tid, idx),
                ),
            ]
        )

    def finish(self, tid: str, idx: int, match_id: str, result: dict[str, Any]) -> None:
        """Scheduled match ``idx`` is settled by referee match ``match_id``: one transaction,
        which also adds its link to the tournament's hash chain (a tournament recorded
        without a chain stays without)."""
        now = time.time()
        text = json.dumps(result, sort_keys=True)
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            settled = db.execute(
                "UPDATE tournament_matches SET status = 'finished', result = ?,"
                " finished_at = ? WHERE tournament_id = ? AND idx = ? AND match_id = ?"
                " AND status = 'running'",
                (text, now, tid, idx, match_id),
            ).rowcount
            head = db.execute("SELECT chain FROM tournaments WHERE id = ?", (tid,)).fetchone()
            if settled and head is not None and head[0] is not None:
                (seq,) = db.execute(
                    "SELECT COALESCE(MAX(chain_seq), 0) + 1 FROM tournament_matches"
                    " WHERE tournament_id = ?",
                    (tid,),
                ).fetchone()
                mine = chain.tournament_link(
                    bytes.fromhex(head[0]), seq, idx, match_id, text, self.match_head(match_id)
                ).hex()
                db.execute(
                    "UPDATE tournament_matches SET chain = ?, chain_seq = ?"
                    " WHERE tournament_id = ? AND idx = ?",
                    (mine, seq, tid, idx),
                )
                db.execute("UPDATE tournaments SET chain = ? WHERE id = ?", (mine, tid))
            db.execute(
                "UPDATE tournament_attempts SET status = 'finished', ended_at = ?"
                " WHERE tournament_id = ? AND idx = ? AND match_id = ?",
                (now, tid, idx, match_id),
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def match_head(self, match_id: str) -> str | None:
        """The hash-chain head of the referee's record of ``match_id`` in this file (its
        seal), or ``None`` when the file holds no such record (a referee elsewhere)."""
        try:
            row = self._db.execute("SELECT chain FROM matches WHERE id = ?", (match_id,))
        except sqlite3.OperationalError:  # no referee tables in this file
            return None
        got = row.fetchone()
        return None if got is None else got[0]

    def has_matches(self) -> bool:
        """Whether the file holds the referee's match records too (it does unless the
        tournament ran on a referee given by ``--server``)."""
        return "matches" in table_names(self._db)

    def copies_of(self, match_id: str) -> list[tuple[str, int, str | None]]:
        """``(tournament id, schedule index, result JSON as stored)`` of each tournament
        that counts referee match ``match_id``."""
        return self._db.execute(
            "SELECT tournament_id, idx, result FROM tournament_matches"
            " WHERE match_id = ? AND status = 'finished'",
            (match_id,),
        ).fetchall()

    def chain_rows(self, tid: str) -> tuple[str, str | None, list[tuple[Any, ...]]]:
        """What the tournament's chain is checked against, as stored: its spec (JSON), its
        head, and ``(idx, match_id, result, chain, chain_seq)`` of each settled match."""
        spec, head = self._db.execute(
            "SELECT spec, chain FROM tournaments WHERE id = ?", (tid,)
        ).fetchone()
        rows = self._db.execute(
            "SELECT idx, match_id, result, chain, chain_seq FROM tournament_matches"
            " WHERE tournament_id = ? AND status = 'finished'"
            " ORDER BY chain_seq IS NULL, chain_seq, idx",
            (tid,),
        ).fetchall()
        return spec, head, rows

    def abandon_unfinished(self, tid: str, only: Sequence[int] | None = None) -> list[str]:
        """Send every ``running`` row (of schedule indexes ``only``, if given) back to
        ``pending``, its attempt ``abandoned``; returns the referee match ids so abandoned."""
        rows = ""
        if only is not None:  # one Ray task's matches (levata.server.tournament.on_ray)
            rows = f" AND idx IN ({', '.join(str(int(i)) for i in only) or 'NULL'})"
        ids = [
            r[0]
            for r in self._db.execute(
                "SELECT match_id FROM tournament_attempts WHERE tournament_id = ?"
                f" AND status = 'running'{rows} ORDER BY idx, attempt",
                (tid,),
            )
        ]
        now = time.time()
        self._tx(
            [
                (
                    "UPDATE tournament_attempts SET status = 'abandoned', ended_at = ?"
                    f" WHERE tournament_id = ? AND status = 'running'{rows}",
                    (now, tid),
                ),
                (
                    "UPDATE tournament_matches SET status = 'pending', match_id = NULL"
                    f" WHERE tournament_id = ? AND status = 'running'{rows}",
                    (tid,),
                ),
                (
                    "UPDATE tournaments SET status = 'running', finished_at = NULL WHERE id = ?",
                    (tid,),
                ),
            ]
        )
        return ids

    def close(self) -> None:
        self._db.close()
