"""What the command groups share: the consoles, one-line failures, the ``--db`` and
admin-token options.

>>> parse_pairs(["seat=0"], "entry")
{'seat': '0'}
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from levata.engine import BadConfig
from levata.engine.options import parse_options
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
