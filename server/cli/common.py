"""What the command groups share: the consoles, one-line failures, the ``--db``, ``--seed``
and admin-token options, and output files checked before any work.

>>> parse_pairs(["seat=0"], "entry")
{'seat': '0'}
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from levata.engine import BadConfig
from levata.engine.options import parse_options
from levata.engine.seeds import MAX_SEED
from levata.server import postgres
from levata.server.match.auth import client_admin_token

out = Console(highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)

EXIT_USAGE = 2
EXIT_RUNTIME = 1


def fail(message: str, status: int = EXIT_USAGE) -> typer.Exit:
    """Print one clear line and return the exit to raise (status 2: bad input; 1: a
    failure at run time)."""
    err.print(f"error: {message}", markup=False)
    return typer.Exit(status)


class DatabaseUrl(str):
    """A ``--db`` that names a PostgreSQL server (``postgresql://...``), with the few parts of
    :class:`~pathlib.Path` the commands use on a database file."""

    def __format__(self, spec: str) -> str:
        """In messages (f-strings) without its password; ``str()`` keeps it, for the driver.

        >>> f"records in {DatabaseUrl('postgresql://u:pw@db/t')}"
        'records in postgresql://u:***@db/t'
        """
        return format(postgres.redact(str(self)), spec)

    def exists(self) -> bool:
        return True  # the server answers for it when a store connects

    def resolve(self) -> Path:
        """Where the files levata keeps beside a database file go (bot logs, the admin
        token): the current folder, named after the database."""
        return Path.cwd() / (self.rsplit("/", 1)[-1].split("?")[0] or "levata")


def db_location(value: str | Path) -> Path:
    """``--db``: a SQLite file, or a PostgreSQL server's URL (kept as it is: a path would
    fold its ``//``).

    >>> db_location("postgresql://levata@db/t").resolve().name, db_location("x.db")
    ('t', PosixPath('x.db'))
    """
    if isinstance(value, str) and postgres.is_url(value):
        return DatabaseUrl(value)  # type: ignore[return-value]
    return Path(value)


DB_OPTION = typer.Option(
    "--db",
    parser=db_location,
    metavar="FILE|URL",
    help="The records: an SQLite file, or a PostgreSQL server (postgresql://USER@HOST/DB).",
)
ADOPT_DB_OPTION = typer.Option(
    "--adopt-db",
    help="Let --db be a database levata did not create: levata's tables are added beside"
    " its own (without this, such a file is refused).",
)


def seed_option(help: str) -> Any:
    """The ``--seed`` option: one range for every command, 0 to 2^63 - 1
    (:data:`levata.engine.seeds.MAX_SEED`, what the protocol carries)."""
    return typer.Option(help=help, min=0, max=MAX_SEED)


def check_output(path: Path | None, flag: str) -> None:
    """Fail in one line (status 2) unless ``path`` can be written, before any work is done
    (a tournament that ran for an hour must not end in a file it cannot write). ``-`` is
    standard output. The check writes: it opens the file for appending (made, then removed
    again, when it was not there), which a permission test would get wrong for root or a
    read-only file system."""
    if path is None or str(path) == "-":
        return
    if path.is_dir():
        raise fail(f"{flag} {path}: it is a folder, not a file")
    existed = path.exists()
    try:
        with path.open("a"):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc)
        if not path.parent.exists():
            why = f"no folder {path.parent}"
        elif not path.parent.is_dir():
            why = f"{path.parent} is not a folder"
        raise fail(f"{flag} {path}: cannot write it ({why})") from None
    if not existed:
        with contextlib.suppress(OSError):
            path.unlink()


def write_output(path: Path, text: str, flag: str) -> None:
    """Write ``text`` to ``path`` (``-``: standard output) and say so; a failure now is one
    line and status 1 (the path was checked, :func:`check_output`: the disk changed)."""
    if str(path) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise fail(f"{flag} {path}: cannot write it ({why})", EXIT_RUNTIME) from None
    out.print(f"wrote {path}", markup=False, soft_wrap=True)


def adopt_db(db: Path | None, adopt: bool) -> None:
    """With ``--adopt-db``: levata may add its tables to ``db`` though it did not create it."""
    if adopt and db is not None:
        from levata.server.database import adopt as allow

        allow(db)


ADMIN_TOKEN_FILE_OPTION = typer.Option(
    help="With --server: file holding that referee's admin token (default: $LEVATA_ADMIN_TOKEN)."
)


def admin_token_of(server: str | None, file: Path | None) -> str | None:
    """The admin token an admin client sends to ``server`` (none needed without one)."""
    if server is None:
        if file is not None:
            raise fail("--admin-token-file goes with --server")
        return None
    try:
        token = client_admin_token(file)
    except BadConfig as exc:
        raise fail(str(exc)) from None
    if token is None:
        raise fail(
            "--server needs that referee's admin token: set LEVATA_ADMIN_TOKEN or pass"
            " --admin-token-file (levata serve prints where it keeps it)"
        )
    return token


def parse_pairs(pairs: list[str], what: str) -> dict[str, str]:
    try:
        return parse_options(pairs)
    except BadConfig:
        raise fail(f"each --{what} is NAME=VALUE") from None
