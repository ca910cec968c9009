"""PostgreSQL as a levata database: the stores' SQL, spoken to a server instead of a file.

The stores (:mod:`levata.server.match.store`, :mod:`levata.server.tournament.store`) are
written once, in the SQL that SQLite and PostgreSQL share, against the DB-API connection of
:mod:`sqlite3`. :class:`Connection` gives them that connection on a PostgreSQL server, so that
one store and one set of tests serve both. What differs is small, and is translated here
statement by statement (each distinct statement once, then cached):

* ``?`` placeholders become psycopg's ``%s``; a Python ``bool`` is sent as 0/1, as SQLite
  stores it;
* column types: SQLite's ``INTEGER`` holds 64 bits (seeds do), PostgreSQL's 32, so it becomes
  ``BIGINT``; ``REAL`` becomes ``DOUBLE PRECISION`` (PostgreSQL's ``REAL`` is 32-bit);
* every table gets a trailing ``rowid BIGSERIAL``: the stores order and page by insertion
  order (SQLite's implicit ``rowid``), and a trailing column leaves ``SELECT *`` and
  ``INSERT ... VALUES`` by position as they were;
* ``PRAGMA user_version`` is a row of the table ``levata_meta``; ``PRAGMA table_info`` reads
  ``information_schema``; ``PRAGMA busy_timeout`` is the session's ``lock_timeout``; the other
  pragmas (journal mode, synchronous) are SQLite's file settings and mean nothing here;
* ``BEGIN IMMEDIATE`` (SQLite: one writer at a time) is ``BEGIN`` plus a transaction-level
  advisory lock on the database: writers take turns exactly as they do on a file, so several
  referees and tournament runners writing at once neither lose nor double a record;
* errors are raised as :mod:`sqlite3`'s exception classes (``OperationalError`` for a server
  that cannot be reached or a lock not granted in time, ``IntegrityError`` for a broken key,
  ``DatabaseError`` otherwise), with PostgreSQL's message, so the stores handle both alike.

A URL names the database: ``postgresql://USER@HOST:PORT/DBNAME`` (psycopg's connection
string; a password is better kept in ``~/.pgpass`` or ``PGPASSWORD`` than on a command line,
where other users of the machine see it).

>>> is_url("postgresql://levata@db.example/levata"), is_url("levata.db")
(True, False)
>>> translate("INSERT INTO t VALUES (?, '100%', ?)")
"INSERT INTO t VALUES (%s, '100%%', %s)"
>>> print(translate("CREATE TABLE IF NOT EXISTS t (n INTEGER, x REAL -- a ratio\\n)"))
CREATE TABLE IF NOT EXISTS t (n BIGINT, x DOUBLE PRECISION -- a ratio
, rowid BIGSERIAL
)
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from levata.server.statements import script_statements

__all__ = ["Connection", "connect", "is_url", "redact", "translate"]

#: The URL schemes that name a PostgreSQL server (psycopg takes both).
SCHEMES = ("postgresql://", "postgres://")
#: The advisory lock that ``BEGIN IMMEDIATE`` takes: one writer at a time in a database.
WRITER_LOCK = 0x6C657661  # "leva"
#: The table that keeps what SQLite keeps in its file header.
META = (
    "CREATE TABLE IF NOT EXISTS levata_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);"
    " INSERT INTO levata_meta VALUES ('user_version', 0) ON CONFLICT (key) DO NOTHING"
)

_TYPES = {"INTEGER": "BIGINT", "REAL": "DOUBLE PRECISION", "BLOB": "BYTEA"}
_TYPE_WORD = re.compile(r"\b(INTEGER|REAL|BLOB)\b")
# A '?' or a '%' outside single-quoted literals ('' inside one is an escaped quote).
_LITERAL_OR_MARK = re.compile(r"'(?:[^']|'')*'|[?%]")
#: Statements run as they are inside a transaction: the transaction's own control.
_UNGUARDED = ("COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE")
_PRAGMA = re.compile(r"PRAGMA\s+(\w+)\s*(?:\(\s*(\w+)\s*\)|=\s*(-?\w+))?\s*;?$", re.IGNORECASE)


def is_url(where: object) -> bool:
    """Whether ``where`` (a ``--db`` value) names a PostgreSQL server rather than a file."""
    return isinstance(where, str) and where.startswith(SCHEMES)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs.

    >>> redact("postgresql://levata:s3cret@db:5432/t")
    'postgresql://levata:***@db:5432/t'
    """
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


@functools.lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """One statement of the stores' SQL, as PostgreSQL reads it (see the module's notes)."""

    def mark(m: re.Match[str]) -> str:  # psycopg reads % even inside a literal
        text = m.group(0)
        return "%s" if text == "?" else text.replace("%", "%%")

    out = _LITERAL_OR_MARK.sub(mark, sql)
    head = " ".join(out.split()[:3]).upper()
    if head.startswith(("CREATE TABLE", "ALTER TABLE")):
        out = _TYPE_WORD.sub(lambda m: _TYPES[m.group(1)], out)
    if head.startswith("CREATE TABLE"):
        end = out.rstrip().rstrip(";").rstrip()
        assert end.endswith(")"), sql
        out = end[:-1].rstrip() + "\n, rowid BIGSERIAL\n)"
    return out


class _Rows:
    """A cursor's worth of rows made here (the answer to a pragma)."""

    def __init__(self, rows: Sequence[tuple[Any, ...]] = ()) -> None:
        self._rows = list(rows)

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


def _without_rowid(cur: Any) -> Any:
    """A ``SELECT *`` answers the table's columns as SQLite does: without ``rowid``."""
    names = [d.name for d in cur.description or ()]
    if "rowid" not in names:
        return cur
    i = names.index("rowid")
    return _Rows([(*r[:i], *r[i + 1 :]) for r in cur.fetchall()])


def _error(exc: Exception) -> sqlite3.Error:
    """psycopg's error as the :mod:`sqlite3` class the stores catch."""
    import psycopg

    # What SQLite reports as an OperationalError: a missing table or column too.
    operational = (
        psycopg.OperationalError,
        psycopg.errors.UndefinedTable,
        psycopg.errors.UndefinedColumn,
    )
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, psycopg.errors.IntegrityError):
        return sqlite3.IntegrityError(text)
    if isinstance(exc, operational):
        return sqlite3.OperationalError(text)
    return sqlite3.DatabaseError(text)


class Connection:
    """A PostgreSQL session that the stores use as they use a :class:`sqlite3.Connection`
    opened with ``isolation_level=None`` (autocommit, explicit ``BEGIN``/``COMMIT``)."""

    def __init__(self, url: str, timeout: float = 5.0) -> None:
        try:
            import psycopg
        except ImportError:
            raise sqlite3.OperationalError(
                "a PostgreSQL database needs the psycopg package: pip install 'levata[postgres]'"
            ) from None
        self.url = url
        #: Rows changed by this session's statements, as :attr:`sqlite3.Connection.total_changes`.
        self.total_changes = 0
        self._busy_ms = int(timeout * 1000)
        try:
            self._pg = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(timeout)))
        except psycopg.Error as exc:
            raise _error(exc) from None
        self._raw(f"SET lock_timeout = {self._busy_ms}")

    def _has_meta(self) -> bool:
        return bool(self._raw("SELECT to_regclass('levata_meta')").fetchone()[0])

    def _make_meta(self) -> None:
        """The version's table, made when levata first writes its version (a database that
        levata never wrote in holds none: the check for someone else's database reads so)."""
        if self._has_meta():
            return
        outer = self.in_transaction
        if not outer:
            self.execute("BEGIN IMMEDIATE")  # two first writers at once take turns
        try:
            for statement in META.split(";"):
                self._raw(statement)
            if not outer:
                self._raw("COMMIT")
        except BaseException:
            if not outer:
                with contextlib.suppress(sqlite3.Error):
                    self._raw("ROLLBACK")
            raise

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self._pg.info.transaction_status != TransactionStatus.IDLE

    def _raw(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        import psycopg

        try:
            return self._pg.execute(sql, params)
        except psycopg.Error as exc:
            raise _error(exc) from None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement (the stores' dialect); a cursor, or rows made here."""
        pragma = _PRAGMA.match(sql.strip())
        if pragma:
            return self._pragma(pragma.group(1).lower(), pragma.group(2), pragma.group(3))
        word = sql.lstrip()[:16].upper()
        if word.startswith("BEGIN"):
            cur = self._raw("BEGIN")
            if "IMMEDIATE" in word or "EXCLUSIVE" in word:
                self._raw(f"SELECT pg_advisory_xact_lock({WRITER_LOCK})")
            return cur
        values = _values(params) if params else None
        if not self.in_transaction or word.startswith(_UNGUARDED):
            cur = self._raw(translate(sql), values)
            self._count(sql, cur)
            return _without_rowid(cur) if "*" in sql else cur
        # In a transaction, a failed statement undoes itself only, as in SQLite: the caller
        # may skip a row that breaks a key and go on (PostgreSQL would abort the whole
        # transaction).
        self._raw("SAVEPOINT statement")
        try:
            cur = self._raw(translate(sql), values)
        except sqlite3.Error:
            self._raw("ROLLBACK TO SAVEPOINT statement")
            raise
        self._raw("RELEASE SAVEPOINT statement")
        self._count(sql, cur)
        return cur

    def executescript(self, script: str) -> None:
        """Run a script of statements one by one (tests build old releases' files with it)."""
        for statement in script_statements(script):
            self.execute(statement)

    def table_names(self) -> set[str]:
        """The tables of this database (SQLite's ``sqlite_master``), levata's own included."""
        rows = self._raw(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        )
        return {r[0] for r in rows}

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run ``sql`` for each row; as in SQLite, the rows before a failing one stay applied
        (``total_changes`` tells how many) and the error is raised."""
        import psycopg

        batch = [_values(r) for r in rows]
        guarded = self.in_transaction
        if guarded:
            self._raw("SAVEPOINT batch")
        try:
            with self._pg.cursor() as cur:
                cur.executemany(translate(sql), batch)
            self.total_changes += len(batch)
        except psycopg.Error as exc:
            if not guarded:
                raise _error(exc) from None
            self._raw("ROLLBACK TO SAVEPOINT batch")
            for row in batch:  # again one by one, to stop where SQLite stops
                self.execute(sql, row)
        if guarded:
            self._raw("RELEASE SAVEPOINT batch")

    def _count(self, sql: str, cur: Any) -> None:
        if not sql.lstrip()[:6].upper().startswith("SELECT") and cur.rowcount > 0:
            self.total_changes += cur.rowcount

    def _pragma(self, name: str, arg: str | None, value: str | None) -> Any:
        if name == "user_version":
            if value is not None:
                self._make_meta()
                return self._raw(
                    "UPDATE levata_meta SET value = %s WHERE key = 'user_version'", (int(value),)
                )
            if not self._has_meta():
                return _Rows([(0,)])  # as SQLite reads a file no version was written in
            return self._raw("SELECT value FROM levata_meta WHERE key = 'user_version'")
        if name == "table_info" and arg is not None:
            return self._raw(
                "SELECT ordinal_position - 1, column_name, data_type FROM"
                " information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = %s AND column_name <> 'rowid' ORDER BY ordinal_position",
                (arg,),
            )
        if name == "busy_timeout":
            if value is None:
                return _Rows([(self._busy_ms,)])
            self._busy_ms = int(value)
            return self._raw(f"SET lock_timeout = {self._busy_ms}")
        return _Rows()  # a file setting of SQLite's

    def commit(self) -> None:
        """Autocommit: nothing waits for a commit outside an explicit transaction."""

    def close(self) -> None:
        self._pg.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _values(row: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(int(v) if isinstance(v, bool) else v for v in row)


def connect(url: str, timeout: float = 5.0, read_only: bool = False) -> Connection:
    """A :class:`Connection` to the server ``url`` names (``read_only``: every transaction
    of the session is read-only, as SQLite's ``mode=ro``)."""
    db = Connection(url, timeout)
    if read_only:
        db._raw("SET default_transaction_read_only = on")
    return db
