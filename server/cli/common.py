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


DB_OPTION = typer.Option("--db", help="SQLite file of match records.")
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
