"""Match records in SQLite: spec, seed, seats, every event with its audience, every action
applied (with the clock it was applied at), every reply with its timing, strikes, result.

The file is the referee's memory: ``levata replay`` re-runs a match from it and ``levata
export`` writes it as JSON.

>>> import tempfile, os
>>> store = Store(os.path.join(tempfile.mkdtemp(), "m.db"))
>>> store.create_match("m1", "whist", 4, {"deal_size": "1"}, 7, ["a", "b", "c", "d"], {})
>>> store.match("m1")["seed"]
7
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from levata.engine import Event

__all__ = ["DEFAULT_DB", "Store"]

#: The default database file, in the current directory.
DEFAULT_DB = "levata.db"

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS matches (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    players     INTEGER NOT NULL,
    options     TEXT NOT NULL,      -- JSON object NAME -> VALUE
    seed        INTEGER NOT NULL,
    seat_bots   TEXT NOT NULL,      -- JSON list, one bot name per seat
    policy      TEXT NOT NULL,      -- JSON: clocks and fault policy
    status      TEXT NOT NULL,      -- waiting | running | finished | aborted
    result      TEXT,               -- JSON, once finished
    strikes     TEXT NOT NULL DEFAULT '[]',
    created_at  REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS events (
    match_id TEXT NOT NULL REFERENCES matches(id),
    seq      INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    audience TEXT,                  -- JSON list of seats; NULL when public
    seat     INTEGER,
    cards    TEXT NOT NULL,         -- JSON list of card notations
    data     TEXT NOT NULL,         -- JSON object
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS actions (
    match_id    TEXT NOT NULL REFERENCES matches(id),
    n           INTEGER NOT NULL,   -- order of application
    seat        INTEGER,            -- NULL for a clock step of a real-time game
    action      TEXT,               -- notation; NULL for a clock step
    clock_ms    INTEGER NOT NULL,   -- referee clock (ms since start) fed to the game
    substituted INTEGER NOT NULL DEFAULT 0,
    request_id  TEXT,
    PRIMARY KEY (match_id, n)
);
CREATE TABLE IF NOT EXISTS replies (
    match_id      TEXT NOT NULL REFERENCES matches(id),
    request_id    TEXT NOT NULL,
    seat          INTEGER,
    state_version INTEGER,
    outcome       TEXT NOT NULL,    -- applied | illegal | stale | unknown | malformed | wrong_seat
    detail        TEXT NOT NULL,
    received_at   REAL NOT NULL,
    latency_ms    REAL               -- from request sent to reply received
);
CREATE INDEX IF NOT EXISTS replies_match ON replies(match_id);
"""


class Store:
    """One SQLite file. Writes are batched and committed by :meth:`flush` (the referee calls
    it after every decision round and at every match end), so a decision costs no fsync."""

    def __init__(self, path: str | Path = DEFAULT_DB) -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()
        self._pending: list[tuple[str, tuple[Any, ...]]] = []

    # -- writing -------------------------------------------------------------------------------

    def _queue(self, sql: str, args: tuple[Any, ...]) -> None:
        with self._lock:
            self._pending.append((sql, args))

    def flush(self) -> None:
        """Commit everything queued, in one transaction."""
        with self._lock:
            batch, self._pending = self._pending, []
            if not batch:
                return
            self._db.execute("BEGIN")
            try:
                for sql, args in batch:
                    self._db.execute(sql, args)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def create_match(
        self,
        match_id: str,
        game: str,
        players: int,
        options: Mapping[str, Any],
        seed: int,
        seat_bots: list[str],
        policy: Mapping[str, Any],
    ) -> None:
        self._queue(
            "INSERT INTO matches (id, game, players, options, seed, seat_bots, policy, status,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'waiting', ?)",
            (
                match_id,
                game,
                players,
                json.dumps(dict(options)),
                seed,
                json.dumps(seat_bots),
                json.dumps(dict(policy)),
                time.time(),
            ),
        )
        self.flush()

    def set_status(self, match_id: str, status: str) -> None:
        self._queue("UPDATE matches SET status = ? WHERE id = ?", (status, match_id))

    def add_events(self, match_id: str, events: Iterable[Event]) -> None:
        for ev in events:
            self._queue(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id,
                    ev.seq,
                    ev.kind,
                    None if ev.audience is None else json.dumps(sorted(ev.audience)),
                    ev.seat,
                    json.dumps([str(c) for c in ev.cards]),
                    json.dumps(dict(ev.data), default=str),
                ),
            )

    def add_action(
        self,
        match_id: str,
        n: int,
        seat: int | None,
        action: str | None,
        clock_ms: int,
        substituted: bool = False,
        request_id: str | None = None,
    ) -> None:
        self._queue(
            "INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?)",
            (match_id, n, seat, action, clock_ms, int(substituted), request_id),
        )

    def add_reply(
        self,
        match_id: str,
        request_id: str,
        seat: int | None,
        version: int | None,
        outcome: str,
        detail: str,
        latency_ms: float | None,
    ) -> None:
        self._queue(
            "INSERT INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (match_id, request_id, seat, version, outcome, detail, time.time(), latency_ms),
        )

    def finish(
        self, match_id: str, status: str, result: Mapping[str, Any] | None, strikes: list[int]
    ) -> None:
        self._queue(
            "UPDATE matches SET status = ?, result = ?, strikes = ?, finished_at = ? WHERE id = ?",
            (
                status,
                None if result is None else json.dumps(result),
                json.dumps(strikes),
                time.time(),
                match_id,
            ),
        )
        self.flush()

    # -- reading -------------------------------------------------------------------------------

    def match(self, match_id: str) -> dict[str, Any] | None:
        """The match row with its JSON columns decoded, or ``None``."""
        self.flush()
        row = self._db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else self._decode(row)

    def matches(self, status: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        self.flush()
        sql = "SELECT * FROM matches"
        args: tuple[Any, ...] = ()
        if status:
            sql += " WHERE status = ?"
            args = (status,)
        sql += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
        return [self._decode(r) for r in self._db.execute(sql, (*args, limit))]

    def _decode(self, row: tuple[Any, ...]) -> dict[str, Any]:
        cols = [d[1] for d in self._db.execute("PRAGMA table_info(matches)")]
        out = dict(zip(cols, row, strict=True))
        for key in ("options", "seat_bots", "policy", "result", "strikes"):
            if out[key] is not None:
                out[key] = json.loads(out[key])
        return out

    def events(self, match_id: str) -> list[dict[str, Any]]:
        self.flush()
        rows = self._db.execute(
            "SELECT seq, kind, audience, seat, cards, data FROM events WHERE match_id = ?"
            " ORDER BY seq",
            (match_id,),
        )
        return [
            {
                "seq": s,
                "kind": k,
                "audience": None if a is None else json.loads(a),
                "seat": st,
                "cards": json.loads(c),
                "data": json.loads(d),
            }
            for s, k, a, st, c, d in rows
        ]

    def actions(self, match_id: str) -> list[dict[str, Any]]:
        self.flush()
        rows = self._db.execute(
            "SELECT n, seat, action, clock_ms, substituted, request_id FROM actions"
            " WHERE match_id = ? ORDER BY n",
            (match_id,),
        )
        return [
            {
                "n": n,
                "seat": s,
                "action": a,
                "clock_ms": c,
                "substituted": bool(sub),
                "request_id": r,
            }
            for n, s, a, c, sub, r in rows
        ]

    def replies(self, match_id: str) -> list[dict[str, Any]]:
        self.flush()
        rows = self._db.execute(
            "SELECT request_id, seat, state_version, outcome, detail, received_at, latency_ms"
            " FROM replies WHERE match_id = ? ORDER BY rowid",
            (match_id,),
        )
        keys = (
            "request_id",
            "seat",
            "state_version",
            "outcome",
            "detail",
            "received_at",
            "latency_ms",
        )
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def close(self) -> None:
        self.flush()
        self._db.close()
