"""The schema version of levata's database files (``PRAGMA user_version``): files written
by the previous release are migrated when opened, files of a newer levata are refused in one
line. The fixtures are built with the previous release's schema, verbatim."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
import time

import pytest

from levata.server import postgres
from levata.server.database import VERSION, DatabaseError
from levata.server.match.store import Store
from levata.server.tournament.spec import build_spec
from levata.server.tournament.store import TourneyStore

# The schema of the previous release (0.1.0), as its stores wrote it: the match store set
# user_version 1 after adding ``matches.seats``; the tournament store set no version.
MAIN_MATCH_SCHEMA = """
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
CREATE TABLE IF NOT EXISTS bots (
    name         TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL,     -- the digest only: the file does not give tokens away
    updated_at   REAL NOT NULL
);
"""

MAIN_TOURNAMENT_SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS tournaments (
    id          TEXT PRIMARY KEY,
    spec        TEXT NOT NULL,      -- JSON: game, entries, format, deals, seed, options...
    spec_hash   TEXT NOT NULL,      -- hash of spec: finds the tournament a command resumes
    status      TEXT NOT NULL,      -- running | finished
    runner      TEXT,               -- HOST:PID of the runner that last ran it
    created_at  REAL NOT NULL,
    finished_at REAL
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
"""


def levata(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "levata.server.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def raw(where):
    """A plain connection to the database, past levata's stores (SQLite's, or the same
    dialect on PostgreSQL)."""
    if postgres.is_url(where):
        return postgres.connect(where)
    return sqlite3.connect(where)


def user_version(where) -> int:
    with contextlib.closing(raw(where)) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def indexes(where) -> set[str]:
    with contextlib.closing(raw(where)) as db:
        if postgres.is_url(where):
            sql = "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
        else:
            sql = "SELECT name FROM sqlite_master WHERE type = 'index'"
        rows = db.execute(sql).fetchall()
    return {r[0] for r in rows if not r[0].startswith("sqlite_") and not r[0].endswith("_pkey")}


def columns(where, table: str) -> set[str]:
    with contextlib.closing(raw(where)) as db:
        return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


def old_release_file(path, *, seats: bool = True, tournaments: bool = True) -> str:
    """A database as the previous release left it: one finished match, and a finished
    tournament of two scheduled matches; returns the tournament's id."""
    db = raw(path)
    db.executescript(MAIN_MATCH_SCHEMA)
    if seats:  # the previous release's one migration, and its version
        db.execute("ALTER TABLE matches ADD COLUMN seats TEXT")
        db.execute("PRAGMA user_version = 1")
    now = time.time()
    result = {"scores": [3.0, -1.0, 0.0], "ranks": [1, 3, 2], "winners": [0], "reason": "complete"}
    db.execute(
        "INSERT INTO matches (id, game, players, options, seed, seat_bots, policy, status,"
        " result, strikes, created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ("m-old", "whist", 3, '{"deal_size": "1"}', 7, '["a", "b", "c"]', "{}", "finished",
         json.dumps(result), "[0, 0, 0]", now, now),
    )  # fmt: skip
    tid = "t0ld"
    if tournaments:
        db.executescript(MAIN_TOURNAMENT_SCHEMA)
        spec = build_spec("whist", "heuristic,random,random", deals=1, seed=1, seating="rotate")
        db.execute(
            "INSERT INTO tournaments VALUES (?, ?, ?, 'finished', 'h:1:1', ?, ?)",
            (tid, json.dumps(spec.to_dict(), sort_keys=True), "abcd1234", now, now),
        )
        for m in spec.schedule():
            scores = [2.0 if n == "heuristic" else -1.0 for n in m.seats]
            ranks = [1 if n == "heuristic" else 2 for n in m.seats]
            res = {
                "match_id": f"m{m.index}",
                "scores": scores,
                "ranks": ranks,
                "forfeited": [],
                "reason": "complete",
                "deals": 1,
                "strikes": [0, 0, 0],
                "detail": "",
            }
            db.execute(
                "INSERT INTO tournament_matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'finished', ?, ?,"
                " 1, ?)",
                (tid, m.index, m.group, m.table, m.seating, m.seed, json.dumps(list(m.seats)),
                 json.dumps(m.options), f"m{m.index}", json.dumps(res), now),
            )  # fmt: skip
    db.commit()
    db.close()
    return tid


def test_a_file_of_the_previous_release_is_migrated_and_reads_the_same(database):
    path = database
    tid = old_release_file(path)
    assert user_version(path) == 1 and not indexes(path) - {"replies_match"}
    t = TourneyStore(path)  # the tournament store first: it migrates the whole file
    assert user_version(path) == VERSION == 4
    assert {"tournaments_spec", "tournament_matches_status"} <= indexes(path)
    assert [r["status"] for r in t.rows(tid)] == ["finished"] * 3
    store = Store(path)
    assert store.match("m-old")["seed"] == 7 and store.match("m-old")["status"] == "finished"
    store.close()
    report = levata("report", tid, "--db", path)  # the real command reads it
    assert report.returncode == 0, report.stderr
    assert "heuristic" in report.stdout
    # records written before the hash chains: said to be unchained, not tampered with
    assert "the tournament is unchained" in report.stdout
    assert Store(path).verify_chain("m-old").state == "unchained"
    replay = levata("replay", "m-old", "--db", path)
    assert "Traceback" not in replay.stderr
    assert "hash chain broken" not in replay.stdout + replay.stderr


def test_a_version_0_match_file_gains_its_seats_column(database):
    path = database
    old_release_file(path, seats=False, tournaments=False)
    assert user_version(path) == 0
    store = Store(path)
    assert "seats" in columns(path, "matches") and user_version(path) == VERSION
    assert store.match("m-old")["players"] == 3
    store.close()
    TourneyStore(path)  # tables of its own, at the current shape, in a versioned file
    assert {"tournaments_spec", "tournament_matches_status"} <= indexes(path)


def test_a_tournament_only_file_then_the_referee(database):
    """A file made by a tournament on an external --server holds only the tournament tables;
    the referee's tables made in it later have their current shape at once."""
    path = database
    TourneyStore(path).close()
    assert user_version(path) == VERSION
    store = Store(path)
    store.create_match("m1", "whist", 3, {}, 1, ["a", "b", "c"], {})
    assert "seats" in columns(path, "matches")
    store.close()


def test_a_file_of_a_newer_levata_is_refused_in_one_line(database):
    path = database
    Store(path).close()
    with contextlib.closing(raw(path)) as db:
        db.execute(f"PRAGMA user_version = {VERSION + 1}")
        db.commit()
    for opener in (Store, TourneyStore):
        with pytest.raises(DatabaseError, match="was written by a newer levata"):
            opener(path)
    for args in (
        ("replay", "m1", "--db", path),
        ("report", "latest", "--db", path),
        ("serve", "--port", "0", "--db", path),
        ("tournament", "--game", "macao", "--bots", "random,random", "--db", path),
        ("match", "--game", "macao", "--db", path),
    ):
        run = levata(*args)
        assert run.returncode == 1, (args, run.stdout, run.stderr)
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
        assert lines[0] == (
            f"error: {path} was written by a newer levata (database version {VERSION + 1};"
            f" this one knows up to {VERSION}): open it with that version, or give another --db"
        )
    assert user_version(path) == VERSION + 1  # untouched
