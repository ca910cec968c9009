"""A levata database file: one schema version for every table levata writes in it.

The referee's match records (:mod:`levata.server.match.store`) and the tournaments
(:mod:`levata.server.tournament.store`) share one SQLite file by default, and SQLite keeps one
``PRAGMA user_version`` per file, so the version is the file's, not a table's: it says which
:data:`MIGRATIONS` the file has had. Each store opens its file with :func:`connect`, which

* refuses a file of a newer version (:class:`DatabaseError`, one line: written by a newer
  levata), never guessing at columns it does not know;
* brings an older file up to :data:`VERSION`, each step once, in one transaction with the
  version bump (version 0 is a file written before the version was kept for every table);
* creates the store's own tables (``CREATE ... IF NOT EXISTS``, at the current shape);
* refuses an SQLite file levata did not create (tables, none of them levata's, and no
  version): a mistyped ``--db`` must not get levata's tables and version added to someone
  else's data, unless the user asks for it (:func:`adopt`, ``--adopt-db``).

A step alters only tables that exist (their store, opening the file later, creates them at
the current shape), so the steps are right for any mix of tables a file holds.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "x.db")
>>> db = connect(path, "CREATE TABLE IF NOT EXISTS notes (text TEXT);")
>>> db.execute("PRAGMA user_version").fetchone()[0] == VERSION
True
>>> _ = db.execute(f"PRAGMA user_version = {VERSION + 1}"); db.close()
>>> connect(path, "")
Traceback (most recent call last):
...
levata.server.database.DatabaseError: ... was written by a newer levata (database version 5; ...
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from levata.server import postgres
from levata.server.statements import script_statements

__all__ = [
    "LEVATA_TABLES",
    "MIGRATIONS",
    "VERSION",
    "DatabaseError",
    "adopt",
    "check_writable",
    "connect",
    "folder_problem",
    "open_read_only",
    "table_names",
    "tables_in",
]


class DatabaseError(RuntimeError):
    """The file cannot be used as a levata database: missing folder, not a database, newer
    version. Its message is one line for the user; ``bad_path``: the path itself is wrong
    (no such folder), which is the caller's input to fix; ``newer``: the file is of a newer
    levata."""

    def __init__(self, message: str, bad_path: bool = False, newer: bool = False) -> None:
        super().__init__(message)
        self.bad_path, self.newer = bad_path, newer


#: Tables a levata file holds (any one of them, in a file of version 0, is a file of a
#: levata from before the version was kept).
LEVATA_TABLES = frozenset(
    ("matches", "events", "actions", "replies", "refused_replies", "bots",
     "tournaments", "tournament_matches", "tournament_attempts", "ladder_tournaments",
     "ladder_ratings", "levata_meta")
)  # fmt: skip
#: Files levata may add its tables to though it did not create them (``--adopt-db``).
_ADOPTED: set[str] = set()


def adopt(path: str | Path) -> None:
    """Let :func:`connect` add levata's tables to ``path`` though levata did not create it."""
    _ADOPTED.add(os.path.realpath(path))


def _foreign(db: sqlite3.Connection, where: str) -> None:
    """:class:`DatabaseError` (the caller's input: status 2) when the file is someone
    else's: it holds tables, none of them levata's, and no version of levata's.

    >>> db = sqlite3.connect(":memory:")
    >>> _ = db.execute("CREATE TABLE invoices (n INT)")
    >>> _foreign(db, "books.db")
    Traceback (most recent call last):
    ...
    levata.server.database.DatabaseError: books.db is a database levata did not create ...
    """
    if db.execute("PRAGMA user_version").fetchone()[0] != 0:
        return
    tables = sorted(table_names(db))
    if not tables or LEVATA_TABLES & set(tables) or os.path.realpath(where) in _ADOPTED:
        return
    shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
    raise DatabaseError(
        f"{where} is a database levata did not create (its tables: {shown}): give"
        " another --db, or --adopt-db to add levata's tables beside its own",
        bad_path=True,
    )


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def table_names(db: sqlite3.Connection) -> set[str]:
    """The tables of an open database (a file's or a server's)."""
    if isinstance(db, postgres.Connection):
        return db.table_names()
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def tables_in(where: str | Path) -> set[str]:
    """The tables of the database at ``where`` (a file or a server), read only; none when
    it cannot be read."""
    try:
        with contextlib.closing(open_read_only(where)) as db:
            return table_names(db)
    except sqlite3.Error:
        return set()


def _match_seats(db: sqlite3.Connection) -> None:
    """Per-seat clocks, strikes and substitute draws (JSON), kept current in each decision
    round's transaction: what a restarted referee resumes a match with."""
    if "matches" in table_names(db) and "seats" not in _columns(db, "matches"):
        db.execute("ALTER TABLE matches ADD COLUMN seats TEXT")


def _tournament_lookups(db: sqlite3.Connection) -> None:
    """Tournaments versioned with the file; ``levata tournament`` finds a spec's earlier runs
    by its hash, and ``--resume`` the scheduled matches by status: indexes for both."""
    tables = table_names(db)
    if "tournaments" in tables:
        db.execute("CREATE INDEX IF NOT EXISTS tournaments_spec ON tournaments(spec_hash)")
    if "tournament_matches" in tables:
        db.execute(
            "CREATE INDEX IF NOT EXISTS tournament_matches_status"
            " ON tournament_matches(tournament_id, status)"
        )


def _match_label(db: sqlite3.Connection) -> None:
    """The creator's name for a match (``CreateMatchRequest.label``), sent in ``MatchStart``:
    what ``levata bot run`` seeds its bot from."""
    if "matches" in table_names(db) and "label" not in _columns(db, "matches"):
        db.execute("ALTER TABLE matches ADD COLUMN label TEXT NOT NULL DEFAULT ''")


def _hash_chains(db: sqlite3.Connection) -> None:
    """Hash chains over the records (:mod:`levata.server.match.chain`): a link per action
    row, a match's start or seal, a scheduled match's link and its place in its tournament's
    chain, the tournament's head. Rows written before stay NULL: reported as unchained."""
    tables = table_names(db)
    for table, columns in (
        ("matches", ("chain TEXT",)),
        ("actions", ("chain TEXT",)),
        ("tournaments", ("chain TEXT",)),
        ("tournament_matches", ("chain TEXT", "chain_seq INTEGER")),
    ):
        if table in tables:
            have = _columns(db, table)
            for column in columns:
                if column.split()[0] not in have:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")


#: Every change to a levata table since version 0, by the version it leads to.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _match_seats,
    2: _tournament_lookups,
    3: _match_label,
    4: _hash_chains,
}
#: The version this levata writes.
VERSION = max(MIGRATIONS)


def connect(path: str | Path, tables: str, timeout: float = 5.0) -> sqlite3.Connection:
    """Open (or create, owner-only) the database at ``path``, migrated to :data:`VERSION`,
    with ``tables`` (``CREATE ... IF NOT EXISTS`` statements) made; autocommit mode."""
    where = str(path)
    if postgres.is_url(where):
        return _connect_server(where, tables, timeout)
    if where != ":memory:":
        why = folder_problem(Path(where))
        if why:
            raise DatabaseError(f"cannot open the database {where}: {why}", True)
        if not os.path.exists(where):
            # Owner-only: the records hold seeds of running matches (SQLite gives its -wal
            # and -shm files the same mode).
            try:
                os.close(os.open(where, os.O_WRONLY | os.O_CREAT, 0o600))
            except OSError as exc:
                raise DatabaseError(f"cannot create the database {where}: {exc.strerror}") from None
    try:
        db = sqlite3.connect(where, timeout=timeout, check_same_thread=False, isolation_level=None)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot open the database {where}: {exc}") from None
    try:
        _prepare(db, where, tables)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise DatabaseError(f"cannot use {where} as a levata database: {exc}") from None
    except BaseException:
        db.close()
        raise
    return db


def _connect_server(url: str, tables: str, timeout: float) -> Any:
    """A PostgreSQL database (:mod:`levata.server.postgres`), prepared as a file is."""
    try:
        db = postgres.connect(url, timeout)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot open the database {postgres.redact(url)}: {exc}") from None
    try:
        # The server's connection speaks sqlite3's (levata.server.postgres): one _prepare.
        _prepare(cast(sqlite3.Connection, db), postgres.redact(url), tables)
    except sqlite3.Error as exc:
        db.close()
        raise DatabaseError(
            f"cannot use {postgres.redact(url)} as a levata database: {exc}"
        ) from None
    except BaseException:
        db.close()
        raise
    return db


def open_read_only(where: str | Path, timeout: float = 5.0) -> Any:
    """The database at ``where`` (a file, or a PostgreSQL URL) for reading only: SQLite's
    ``mode=ro`` (it must exist; nothing is created or migrated), a read-only session on a
    server. Raises :class:`sqlite3.Error` as :func:`sqlite3.connect` does."""
    if postgres.is_url(str(where)):
        return postgres.connect(str(where), timeout, read_only=True)
    return sqlite3.connect(f"file:{where}?mode=ro", uri=True, timeout=timeout)


def folder_problem(path: Path) -> str:
    """Why the folder of ``path`` cannot hold a database ('' when it can be reached).

    >>> folder_problem(Path("/no/such/place/x.db"))
    'no folder /no/such/place'
    """
    if postgres.is_url(str(path)):
        return ""  # a server, not a folder
    folder = path.parent
    try:
        if stat.S_ISDIR(folder.stat().st_mode):
            return ""
        return f"{folder} is not a folder"
    except FileNotFoundError:
        return f"no folder {folder}"
    except OSError as exc:  # a folder on the way this user may not enter
        return f"cannot reach the folder {folder}: {exc.strerror}"


def check_writable(db: sqlite3.Connection, where: str, wait_s: float = 5.0) -> None:
    """Raise :class:`DatabaseError` (one line) unless the file takes a write now: one write
    transaction that changes nothing (the version, set to itself). What it catches: a
    read-only file or folder or file system, a file locked by another process past the
    ``wait_s``, a full disk where the write needs room, an I/O error.

    >>> import os, tempfile
    >>> db = connect(os.path.join(tempfile.mkdtemp(), "w.db"), "")
    >>> check_writable(db, "w.db")
    """
    (before,) = db.execute("PRAGMA busy_timeout").fetchone()
    db.execute(f"PRAGMA busy_timeout = {int(wait_s * 1000)}")  # a lock held longer: refused
    try:
        db.execute("BEGIN IMMEDIATE")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.execute(f"PRAGMA user_version = {int(version)}")
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        code = getattr(exc, "sqlite_errorname", "")
        raise DatabaseError(
            f"cannot write the database {where}: {exc}{f' ({code})' if code else ''}"
        ) from None
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(before)}")


def _prepare(db: sqlite3.Connection, where: str, tables: str) -> None:
    if where != ":memory:":
        _foreign(db, where)
    current = _check(db, where) == VERSION
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    # The usual case: no lock taken unless a table is missing. A server takes the lock
    # anyway: two sessions creating one missing table at once would collide there.
    if current and not isinstance(db, postgres.Connection):
        for statement in script_statements(tables):
            db.execute(statement)
        return
    db.execute("BEGIN IMMEDIATE")  # one migrating process at a time
    try:
        version = _check(db, where)
        for v in range(version + 1, VERSION + 1):
            MIGRATIONS[v](db)
        for statement in script_statements(tables):
            db.execute(statement)
        if version < VERSION:
            db.execute(f"PRAGMA user_version = {VERSION}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        raise


def _check(db: sqlite3.Connection, where: str) -> int:
    """The file's version; :class:`DatabaseError` when it is newer than this levata's."""
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    if version > VERSION:
        raise DatabaseError(
            f"{where} was written by a newer levata (database version {version}; this one"
            f" knows up to {VERSION}): open it with that version, or give another --db",
            newer=True,
        )
    return version
