"""Match records in SQLite: spec, seed, seats, every event with its audience, every action
applied (with the clock it was applied at), every reply with its timing, strikes, result.

The file is the referee's memory: ``levata replay`` re-runs a match from it, ``levata
export`` writes it as JSON, and a restarted referee resumes unfinished matches from it
(:mod:`levata.server.match.recovery`).

Durability: writes are queued and committed by :meth:`Store.flush`, one transaction per
call. When the file cannot be written (disk full, read-only, I/O error) nothing queued is
dropped: the batch is kept, in order, and retried (at most every :data:`RETRY_S` seconds)
until it is written; meanwhile :attr:`Store.failure` says why and :class:`StoreUnavailable`
is raised to whoever needs the write, and the listeners hear of each change. What is still
unwritten when the store is closed is named on stderr, match by match (:meth:`Store.close`).

The file's schema version (``PRAGMA user_version``) and its migrations are
:mod:`levata.server.database`'s: the tournaments share the file.

>>> import tempfile, os
>>> store = Store(os.path.join(tempfile.mkdtemp(), "m.db"))
>>> store.create_match("m1", "whist", 4, {"deal_size": "1"}, 7, ["a", "b", "c", "d"], {})
>>> store.match("m1")["seed"]
7
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from levata.engine import Event
from levata.server.database import VERSION, check_writable, connect
from levata.server.match import chain

__all__ = ["DEFAULT_DB", "SCHEMA_VERSION", "BrokenRecord", "Store", "StoreUnavailable"]

log = logging.getLogger("levata.server.match.store")

#: The default database file, in the current directory.
DEFAULT_DB = "levata.db"
#: While writes fail, a write is retried at most this often (seconds).
RETRY_S = 1.0

SCHEMA = """
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
    finished_at REAL,
    seats       TEXT,               -- JSON: per-seat clocks, strikes, substitute draws
    label       TEXT NOT NULL DEFAULT '', -- the creator's name for it (MatchStart.label)
    chain       TEXT                -- hash chain: its start while running, its seal once ended
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
    chain       TEXT,               -- hash chain: this row's link (levata.server.match.chain)
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
CREATE TABLE IF NOT EXISTS refused_replies (  -- counted, not one row each (a flood is cheap)
    match_id TEXT NOT NULL REFERENCES matches(id),
    seat     INTEGER NOT NULL,      -- -1: the reply named no request of the match
    outcome  TEXT NOT NULL,         -- illegal_action | stale_version | ... | dropped (unread)
    count    INTEGER NOT NULL,
    first_at REAL NOT NULL,
    last_at  REAL NOT NULL,
    detail   TEXT NOT NULL,         -- the first one's reason
    PRIMARY KEY (match_id, seat, outcome)
);
CREATE TABLE IF NOT EXISTS bots (
    name         TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL,     -- the digest only: the file does not give tokens away
    updated_at   REAL NOT NULL
);
"""
#: The schema version this levata writes (:data:`levata.server.database.VERSION`).
SCHEMA_VERSION = VERSION


#: The JSON columns of a match row and the shape each must have.
_SHAPES: dict[str, type] = {
    "options": dict,
    "seat_bots": list,
    "policy": dict,
    "result": dict,
    "strikes": list,
    "seats": dict,
}
_SHAPE_NAMES: dict[type, str] = {dict: "object", list: "list"}
#: The columns a match's hash chain starts from (:func:`levata.server.match.chain.genesis`).
_HEADER = ("id", "game", "players", "options", "seed", "seat_bots", "policy", "label")

#: Inserts into the append-only tables, written with one ``executemany`` each per flush.
_EVENT_ROW = "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)"
_ACTION_ROW = "INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_REPLY_ROW = "INSERT INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_GROUPED = frozenset((_EVENT_ROW, _ACTION_ROW, _REPLY_ROW))
#: Adds what a flush's worth of refused replies counted to their row.
_REFUSED_ROW = (
    "INSERT INTO refused_replies VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (match_id, seat, outcome)"
    " DO UPDATE SET count = count + excluded.count, last_at = excluded.last_at"
)


#: JSON of event data, cards as their notation (one encoder made once: ``json.dumps`` with
#: ``default`` makes a new one per call, and the referee stores every event).
_to_json = json.JSONEncoder(default=str).encode


@functools.lru_cache(maxsize=256)
def _audience_json(audience: frozenset[int]) -> str:
    """A private event's seats as JSON (few distinct sets: kept)."""
    return json.dumps(sorted(audience))


def _cards_json(cards: tuple[Any, ...]) -> str:
    """Cards as a JSON list of their notations, as ``json.dumps`` writes it (a notation is
    letters and digits: nothing to escape).

    >>> from levata.engine import parse_cards
    >>> _cards_json(tuple(parse_cards("AS 10H"))) == json.dumps(["AS", "10H"]), _cards_json(())
    (True, '[]')
    """
    if not cards:
        return "[]"
    return '["' + '", "'.join([str(c) for c in cards]) + '"]'


class BrokenRecord(ValueError):
    """A row of the file that cannot be read (a JSON column that is not JSON, or not of its
    shape): the message names the match, the row and the column, in one line."""


def _json(text: str, match_id: str, where: str) -> Any:
    """``text`` decoded, or :class:`BrokenRecord` naming ``where`` it was."""
    try:
        return json.loads(text)
    except (ValueError, TypeError) as exc:
        shown = text if len(str(text)) <= 40 else str(text)[:40] + "..."
        raise BrokenRecord(
            f"match {match_id}: {where} is not valid JSON ({exc}): {shown!r}"
        ) from None


class StoreUnavailable(RuntimeError):
    """The records cannot be written now (disk full, read-only file, I/O error); what was
    queued is kept and retried."""


class Store:
    """One SQLite file. Writes are batched and committed by :meth:`flush` (the referee calls
    it after every decision round and at every match end), so a decision costs no fsync."""

    def __init__(self, path: str | Path = DEFAULT_DB) -> None:
        self.path = str(path)
        self._db = connect(self.path, SCHEMA)  # DatabaseError: missing folder, newer file
        self._lock = threading.Lock()
        # (sql, args, match id or None), in the order they must be written
        self._pending: list[tuple[str, tuple[Any, ...], str | None]] = []
        #: Why the last write failed; ``None`` while writes succeed.
        self.failure: str | None = None
        #: Called with the failure when writes start failing and with ``None`` when they
        #: succeed again, from whichever thread flushed (outside the store's lock).
        self.listeners: list[Callable[[str | None], None]] = []
        self._retry_at = 0.0
        # refused replies counted since the last flush: (match, seat, outcome) ->
        # [count, first_at, last_at, detail]; written as one row each by flush
        self._refused: dict[tuple[str, int, str], list[Any]] = {}
        # Each match's last hash-chain link (None: a match recorded without a chain), kept
        # so that an action costs one hash, not a read; loaded from the file on a resume.
        self._links: dict[str, bytes | None] = {}

    # -- writing -------------------------------------------------------------------------------

    def _queue(self, sql: str, args: tuple[Any, ...], match_id: str | None = None) -> None:
        with self._lock:
            self._pending.append((sql, args, match_id))

    def flush(self, force: bool = False) -> None:
        """Commit everything queued, in one transaction.

        Raises :class:`StoreUnavailable` when the file cannot be written; the batch is then
        kept, in order, for the next call. While writes fail, a call within :data:`RETRY_S`
        of the last attempt fails at once without trying (unless ``force``); with nothing
        queued it writes a probe, so a recovered file is noticed even then."""
        with self._lock:
            self._pending.extend(self._refused_rows())
            if self.failure is None and not self._pending:
                return
            if self.failure is not None and not force and time.monotonic() < self._retry_at:
                raise StoreUnavailable(self._why())
            batch, self._pending = self._pending, []
            try:
                self._write(batch)
            except sqlite3.OperationalError as exc:  # full, read-only, I/O error, locked
                self._pending = batch + self._pending
                self._retry_at = time.monotonic() + RETRY_S
                news = self.failure is None
                self.failure = f"{exc} ({getattr(exc, 'sqlite_errorname', 'SQLITE_ERROR')})"
                why = self._why()
            except BaseException:
                self._pending = batch + self._pending
                raise
            else:
                news, self.failure, why = self.failure is not None, None, ""
        if news:
            self._tell(why or None)
        if why:
            raise StoreUnavailable(why)

    def check_writable(self) -> None:
        """Raise :class:`levata.server.database.DatabaseError` (one line) unless the file
        takes a write now (what a referee checks before it plays anything)."""
        with self._lock:
            check_writable(self._db, self.path)

    @property
    def queued(self) -> bool:
        """Whether writes wait for :meth:`flush`."""
        return bool(self._pending or self._refused)

    def count_refused(self, match_id: str, seat: int | None, outcome: str, detail: str) -> None:
        """Count a refused reply of ``seat`` (``None``: it named no request of the match):
        kept in memory and added to the match's one row for that seat and ``outcome`` at the
        next flush, so a flood of bad replies costs a counter, not a row each.

        >>> import tempfile, os
        >>> s = Store(os.path.join(tempfile.mkdtemp(), "r.db"))
        >>> for _ in range(1000):
        ...     s.count_refused("m1", 0, "illegal_action", "9H is not legal now")
        >>> s.flush(); s.count_refused("m1", 0, "illegal_action", "later"); s.flush()
        >>> [(r["outcome"], r["count"], r["detail"]) for r in s.replies("m1")]
        [('illegal_action', 1001, '9H is not legal now')]
        """
        now = time.time()
        key = (match_id, -1 if seat is None else seat, outcome)
        with self._lock:
            row = self._refused.get(key)
            if row is None:
                self._refused[key] = [1, now, now, detail]
            else:
                row[0] += 1
                row[2] = now

    def _refused_rows(self) -> list[tuple[str, tuple[Any, ...], str | None]]:
        """The refused replies counted since the last flush, as upserts (under the lock)."""
        rows: list[tuple[str, tuple[Any, ...], str | None]] = [
            (_REFUSED_ROW, (m, seat, outcome, n, first, last, detail), m)
            for (m, seat, outcome), (n, first, last, detail) in self._refused.items()
        ]
        self._refused = {}
        return rows

    def _why(self) -> str:
        return f"cannot write the records to {self.path}: {self.failure}"

    def _write(self, batch: list[tuple[str, tuple[Any, ...], str | None]]) -> None:
        """One transaction. A row that can never be written (a constraint it breaks: a bug)
        is named on stderr and skipped, so it cannot hold back the rows after it.

        Rows of the append-only tables (:data:`_GROUPED`) go in one ``executemany`` per
        statement, each table's in their order; the other statements (updates of a match's
        row) run one by one in theirs. Tables do not depend on each other, so the committed
        file is the same as with every statement in queue order, for fewer statements."""
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            if not batch:  # a probe: does the file take a write?
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            grouped: dict[str, list[tuple[tuple[Any, ...], str | None]]] = {}
            for sql, args, match_id in batch:
                if sql in _GROUPED:
                    grouped.setdefault(sql, []).append((args, match_id))
                else:
                    self._execute(sql, [(args, match_id)])
            for sql, rows in grouped.items():
                self._execute(sql, rows)
            db.execute("COMMIT")
        except BaseException:
            self._rollback()  # never hides the cause: SQLite may have rolled back already
            raise

    def _execute(self, sql: str, rows: list[tuple[tuple[Any, ...], str | None]]) -> None:
        """Run ``sql`` for each row, all in one call; a row that breaks a constraint is named
        on stderr and skipped, and the rows after it go on (each insert is one change, so
        the changes made tell which row broke)."""
        db = self._db
        while rows:
            before = db.total_changes
            try:
                if len(rows) == 1:
                    db.execute(sql, rows[0][0])
                else:
                    db.executemany(sql, [args for args, _ in rows])
                return
            except sqlite3.OperationalError:
                raise
            except sqlite3.Error as exc:
                broken = min(db.total_changes - before, len(rows) - 1)
                log.error(
                    "error: a row of match %s cannot be written and is dropped (%s): %s",
                    rows[broken][1],
                    exc,
                    sql.split("(")[0].strip(),
                )
                rows = rows[broken + 1 :]

    def _rollback(self) -> None:
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")

    def _tell(self, failure: str | None) -> None:
        if failure is None:
            log.warning("store: %s is writable again; every queued row is written", self.path)
        else:
            log.error("error: %s; keeping what is not written and retrying", failure)
        for listener in list(self.listeners):
            listener(failure)

    def _sync(self) -> None:
        """Before a read: write what is queued if the file takes it; a read never fails
        because a write does (it then sees what is on disk)."""
        with contextlib.suppress(StoreUnavailable):
            self.flush()

    def unwritten(self) -> dict[str, Counter[str]]:
        """What is queued and not yet on disk: match id (``-`` for none) -> rows per table.

        >>> import tempfile, os
        >>> s = Store(os.path.join(tempfile.mkdtemp(), "u.db"))
        >>> s.set_status("m1", "running"); s.add_action("m1", 0, 0, "x", 0)
        >>> {k: dict(v) for k, v in s.unwritten().items()}
        {'m1': {'matches': 1, 'actions': 1}}
        """
        with self._lock:
            out: dict[str, Counter[str]] = {}
            for sql, _, match_id in self._pending:
                words = sql.split()
                table = words[2] if words[0] == "INSERT" else words[1]
                out.setdefault(match_id or "-", Counter())[table] += 1
            return out

    def lost_report(self) -> str:
        """One line naming every match with rows not written, and how many of each kind."""
        parts = [
            f"match {m}: " + ", ".join(f"{n} {table}" for table, n in sorted(c.items()))
            for m, c in sorted(self.unwritten().items())
        ]
        return "; ".join(parts)

    def create_match(  # noqa: PLR0913  (the match's setup, one column each)
        self,
        match_id: str,
        game: str,
        players: int,
        options: Mapping[str, Any],
        seed: int,
        seat_bots: list[str],
        policy: Mapping[str, Any],
        label: str = "",
    ) -> None:
        """Record a new match, committed at once. While the file cannot be written this
        raises :class:`StoreUnavailable` and keeps nothing: no match is created that could
        not be recorded."""
        if self.failure is not None:
            raise StoreUnavailable(self._why())
        header = (
            match_id,
            game,
            players,
            json.dumps(dict(options)),
            seed,
            json.dumps(seat_bots),
            json.dumps(dict(policy)),
            label,
        )
        start = chain.genesis(*header)
        row = (
            "INSERT INTO matches (id, game, players, options, seed, seat_bots, policy, status,"
            " created_at, label, chain) VALUES (?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?, ?)",
            (*header[:7], time.time(), label, start.hex()),
            match_id,
        )
        with self._lock:
            self._pending.append(row)
            self._links[match_id] = start
        try:
            self.flush()
        except StoreUnavailable:
            with self._lock:  # a refused match leaves nothing behind, not even later
                self._pending = [p for p in self._pending if p is not row and p[2] != match_id]
                self._links.pop(match_id, None)
            raise

    def set_status(self, match_id: str, status: str) -> None:
        self._queue("UPDATE matches SET status = ? WHERE id = ?", (status, match_id), match_id)

    def save_seats(self, match_id: str, strikes: list[int], seats: Mapping[str, Any]) -> None:
        """Queue the seats' strikes and clocks (what a resume restores), to be committed
        with the round's actions."""
        self._queue(
            "UPDATE matches SET strikes = ?, seats = ? WHERE id = ?",
            (json.dumps(strikes), json.dumps(dict(seats)), match_id),
            match_id,
        )

    def add_events(self, match_id: str, events: Iterable[Event]) -> None:
        rows = [
            (
                _EVENT_ROW,
                (
                    match_id,
                    ev.seq,
                    ev.kind,
                    None if ev.audience is None else _audience_json(ev.audience),
                    ev.seat,
                    _cards_json(ev.cards),
                    _to_json(dict(ev.data)) if ev.data else "{}",
                ),
                match_id,
            )
            for ev in events
        ]
        with self._lock:
            self._pending.extend(rows)

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
        sub = int(substituted)
        with self._lock:
            prev = self._links[match_id] if match_id in self._links else self._last_link(match_id)
            now = (
                None
                if prev is None
                else chain.link(prev, n, seat, action, clock_ms, sub, request_id)
            )
            self._links[match_id] = now
            self._pending.append(
                (
                    _ACTION_ROW,
                    (match_id, n, seat, action, clock_ms, sub, request_id, now and now.hex()),
                    match_id,
                )
            )

    def _last_link(self, match_id: str) -> bytes | None:
        """The last committed link of a match this store has not written to yet (one taken
        up after a restart, or closed by another process): the last action's, else the
        match's start; ``None`` for a match recorded without a chain."""
        row = self._db.execute(
            "SELECT chain FROM actions WHERE match_id = ? ORDER BY n DESC LIMIT 1", (match_id,)
        ).fetchone()
        if row is None:
            row = self._db.execute("SELECT chain FROM matches WHERE id = ?", (match_id,)).fetchone()
        try:
            return None if row is None or row[0] is None else bytes.fromhex(row[0])
        except ValueError:  # a link that is not hex: the chain is broken, not continued
            return None

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
            _REPLY_ROW,
            (match_id, request_id, seat, version, outcome, detail, time.time(), latency_ms),
            match_id,
        )

    def finish(
        self, match_id: str, status: str, result: Mapping[str, Any] | None, strikes: list[int]
    ) -> None:
        """Queue a match's final record; the referee commits it (:meth:`flush`) before it
        tells anyone the result."""
        result_json = None if result is None else json.dumps(result)
        strikes_json = json.dumps(strikes)
        with self._lock:
            # (not yet written to by this store: one closed after a restart, or by a runner)
            prev = (
                self._links.pop(match_id) if match_id in self._links else self._last_link(match_id)
            )
            end = None if prev is None else chain.seal(prev, status, result_json, strikes_json)
            self._pending.append(
                (
                    "UPDATE matches SET status = ?, result = ?, strikes = ?, finished_at = ?,"
                    " chain = COALESCE(?, chain) WHERE id = ?",
                    (status, result_json, strikes_json, time.time(), end and end.hex(), match_id),
                    match_id,
                )
            )

    # -- reading -------------------------------------------------------------------------------

    def match(self, match_id: str) -> dict[str, Any] | None:
        """The match row with its JSON columns decoded, or ``None``."""
        self._sync()
        row = self._db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else self._decode(row)

    def matches(self, status: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        self._sync()
        sql = "SELECT * FROM matches"
        args: tuple[Any, ...] = ()
        if status:
            sql += " WHERE status = ?"
            args = (status,)
        sql += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
        return [self._decode(r) for r in self._db.execute(sql, (*args, limit))]

    def match_page(
        self, status: str | None, limit: int, before: int | None = None
    ) -> list[tuple[int, str]]:
        """(row number, match id) of up to ``limit`` matches, newest first, older than row
        ``before`` when given: a page of ``ListMatches`` (stable while matches are added)."""
        self._sync()
        sql = "SELECT rowid, id FROM matches WHERE 1 = 1"
        args: list[str | int] = []
        if status:
            sql += " AND status = ?"
            args.append(status)
        if before is not None:
            sql += " AND rowid < ?"
            args.append(before)
        sql += " ORDER BY rowid DESC LIMIT ?"
        return list(self._db.execute(sql, (*args, limit)))

    def _decode(self, row: tuple[Any, ...]) -> dict[str, Any]:
        """The row as a dict; :class:`BrokenRecord` for a JSON column that is not JSON, or
        not of its shape."""
        cols = [d[1] for d in self._db.execute("PRAGMA table_info(matches)")]
        out = dict(zip(cols, row, strict=True))
        for key, shape in _SHAPES.items():
            if out.get(key) is not None:
                out[key] = _json(out[key], out["id"], f"the {key} of its row")
                if not isinstance(out[key], shape):
                    raise BrokenRecord(
                        f"match {out['id']}: the {key} of its row is not a JSON"
                        f" {_SHAPE_NAMES[shape]}: {out[key]!r:.40}"
                    )
        return out

    def raw_match(self, match_id: str) -> dict[str, Any] | None:
        """The match row as stored, JSON columns undecoded (what a broken record still
        shows)."""
        self._sync()
        row = self._db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        cols = [d[1] for d in self._db.execute("PRAGMA table_info(matches)")]
        return None if row is None else dict(zip(cols, row, strict=True))

    def set_readable(self, match_id: str) -> dict[str, str]:
        """Queue the replacement of each JSON column of the match's row that cannot be
        decoded, or is not of its shape (a policy's values not whole numbers), by an empty
        value; returns what they held (column -> text), for the record of why it was closed.

        >>> import tempfile, os, sqlite3
        >>> s = Store(os.path.join(tempfile.mkdtemp(), "b.db"))
        >>> s.create_match("m1", "whist", 3, {}, 7, ["a", "b", "c"], {})
        >>> _ = s._db.execute("UPDATE matches SET options = '{oops' WHERE id = 'm1'")
        >>> s.set_readable("m1"), s.match("m1")["options"]
        ({'options': '{oops'}, {})
        """
        row = self.raw_match(match_id) or {}
        kept = {}
        for key, shape in _SHAPES.items():
            text = row.get(key)
            if text is None or key == "result":
                continue
            try:
                value = json.loads(text)
                fine = isinstance(value, shape)
                if key == "policy" and fine:
                    fine = all(
                        isinstance(v, int) and not isinstance(v, bool) for v in value.values()
                    )
                if key == "seat_bots" and fine:
                    fine = all(isinstance(v, str) for v in value)
            except (ValueError, TypeError):
                fine = False
            if not fine:
                kept[key] = str(text)
                self._queue(
                    f"UPDATE matches SET {key} = ? WHERE id = ?",
                    ("{}" if shape is dict else "[]", match_id),
                    match_id,
                )
        return kept

    def event_count(self, match_id: str) -> int:
        """How many events are recorded (none decoded)."""
        self._sync()
        row = self._db.execute("SELECT COUNT(*) FROM events WHERE match_id = ?", (match_id,))
        return int(row.fetchone()[0])

    def verify_chain(self, match_id: str) -> chain.ChainCheck:
        """Check the match's hash chain against its record as stored
        (:func:`levata.server.match.chain.verify_rows`)."""
        row = self.raw_match(match_id)
        if row is None:
            return chain.ChainCheck("broken", f"match {match_id}: no such record")
        header = tuple(row[k] for k in _HEADER)
        actions = list(
            self._db.execute(
                "SELECT n, seat, action, clock_ms, substituted, request_id, chain FROM actions"
                " WHERE match_id = ? ORDER BY n",
                (match_id,),
            )
        )
        end = (row["result"], row["strikes"])
        return chain.verify_rows(header, row.get("chain"), row["status"], end, actions)

    def events(self, match_id: str) -> list[dict[str, Any]]:
        self._sync()
        rows = self._db.execute(
            "SELECT seq, kind, audience, seat, cards, data FROM events WHERE match_id = ?"
            " ORDER BY seq",
            (match_id,),
        )
        m, where = match_id, "the {} of event {}"
        return [
            {
                "seq": s,
                "kind": k,
                "audience": None if a is None else _json(a, m, where.format("audience", s)),
                "seat": st,
                "cards": _json(c, m, where.format("cards", s)),
                "data": _json(d, m, where.format("data", s)),
            }
            for s, k, a, st, c, d in rows
        ]

    def actions(self, match_id: str) -> list[dict[str, Any]]:
        self._sync()
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
        """The match's replies: one dict per reply applied or timed out, in order, then one
        per seat and reason of refused replies (``count`` of them, ``received_at`` the first,
        ``last_at`` the last; ``request_id`` empty)."""
        self._sync()
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
        out = [{**dict(zip(keys, r, strict=True)), "count": 1} for r in rows]
        refused = self._db.execute(
            "SELECT seat, outcome, count, first_at, last_at, detail FROM refused_replies"
            " WHERE match_id = ? ORDER BY first_at, seat, outcome",
            (match_id,),
        )
        out += [
            {
                "request_id": "",
                "seat": None if seat < 0 else seat,
                "state_version": None,
                "outcome": outcome,
                "detail": detail,
                "received_at": first,
                "latency_ms": None,
                "count": n,
                "last_at": last,
            }
            for seat, outcome, n, first, last, detail in refused
        ]
        return out

    # -- bots (their tokens' digests survive a restart of the referee) -------------------------

    def save_bot(self, name: str, token_sha256: str) -> None:
        """Register or rotate a bot: its name and its token's digest, committed at once.
        While the file cannot be written this raises :class:`StoreUnavailable` and keeps
        nothing (the caller is told no, so nothing may be registered later behind its back)."""
        if self.failure is not None:
            raise StoreUnavailable(self._why())
        row = (
            "INSERT INTO bots VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE"
            " SET token_sha256 = excluded.token_sha256, updated_at = excluded.updated_at",
            (name, token_sha256, time.time()),
            None,
        )
        with self._lock:
            self._pending.append(row)
        try:
            self.flush()
        except StoreUnavailable:
            with self._lock:
                self._pending = [p for p in self._pending if p is not row]
            raise

    def bots(self) -> dict[str, str]:
        """Every registered bot: name -> token digest."""
        self.flush()
        return dict(self._db.execute("SELECT name, token_sha256 FROM bots"))

    def close(self) -> None:
        """Write what is queued (one last try) and close. What cannot be written is named on
        stderr, match by match: the only time queued rows are given up."""
        try:
            self.flush(force=True)
        except StoreUnavailable as exc:
            log.error("error: %s; giving up, not written: %s", exc, self.lost_report())
        self._db.close()
