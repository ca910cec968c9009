"""Credentials: bot tokens, the admin token, and the files and variables they live in.

A token is a secret, so it is never put on a command line (``/proc/PID/cmdline`` is readable
by every local user): processes get it from an environment variable or a file readable by
their owner only. The referee keeps only the SHA-256 digest of each bot token, in memory and
in its database, and finds a bot by the digest of the token presented: the lookup's timing
depends on the digest, which tells an attacker nothing about the token. The admin token is
compared with :func:`hmac.compare_digest`.

>>> token = new_token()
>>> len(token) >= 40 and digest(token) != token
True
>>> bearer_ok([("authorization", f"Bearer {token}")], token), bearer_ok([], token)
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path

from levata.engine import BadConfig
from levata.wire.credentials import (
    MAX_TOKEN_CHARS,
    TOKEN_ENV,
    read_private,
    read_secret,
    write_secret,
)

__all__ = [
    "ADMIN_TOKEN_ENV",
    "BOT_NAME",
    "TOKEN_ENV",
    "admin_metadata",
    "admin_token_file_for",
    "bearer_ok",
    "bot_name_for",
    "check_bot_name",
    "client_admin_token",
    "digest",
    "load_or_create_admin_token",
    "new_token",
    "read_secret",
    "read_tokens_file",
    "write_secret",
]

#: The variable admin clients (``levata match/tournament --server``) read the admin token from.
ADMIN_TOKEN_ENV = "LEVATA_ADMIN_TOKEN"
#: A bot's name: what standings and logs show, and what seats a match (a tournament names
#: its entries ``TOURNAMENT/ENTRY``).
BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+/:-]{0,127}$")


def new_token() -> str:
    """A fresh secret: 32 random bytes, URL-safe text."""
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """What the referee keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_bot_name(name: str) -> str:
    """``name`` if it is a valid bot name, else :class:`BadConfig`.

    >>> check_bot_name("alice-2")
    'alice-2'
    >>> check_bot_name("x" * 129)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    levata.engine.contract.BadConfig: a bot name is 1-128 letters, ... (got 129 characters)
    """
    if not BOT_NAME.match(name):
        shown = f"{len(name)} characters" if len(name) > 128 else repr(name)
        raise BadConfig(f"a bot name is 1-128 letters, digits, _ . + / : - (got {shown})")
    return name


def bot_name_for(text: str, room: int = 100) -> str:
    """A valid bot name (at most ``room`` characters) for any text, such as a bot entry with
    its options: what is not a letter, digit, ``_ . + : -`` becomes ``_`` (``/`` too: names
    also name log files), and a name so changed or cut carries a hash of the text, so two
    texts never share one.

    >>> bot_name_for("heuristic")
    'heuristic'
    >>> bot_name_for("pimc:worlds=3")
    'pimc:worlds_3.815486'
    """
    clean = re.sub(r"[^A-Za-z0-9_.+:-]", "_", text)
    if clean == text and len(text) <= room and BOT_NAME.match(text):
        return text
    tag = hashlib.blake2b(text.encode(), digest_size=3).hexdigest()
    head = clean.lstrip("_.+:-")[: room - len(tag) - 1] or "bot"
    return f"{head}.{tag}"


def bearer_ok(metadata: Iterable[tuple[str, str | bytes]] | None, token: str) -> bool:
    """Does the call's metadata carry ``authorization: Bearer <token>``? Constant time."""
    presented = ""
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str):
            presented = value
    return hmac.compare_digest(presented.encode(), f"Bearer {token}".encode())


def admin_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """The metadata an admin call carries."""
    return (("authorization", f"Bearer {token}"),)


def admin_token_file_for(db: Path) -> Path:
    """Where ``levata serve`` keeps the admin token of database ``db`` unless told otherwise.

    >>> admin_token_file_for(Path("runs/levata.db")).as_posix()
    'runs/levata.db.admin-token'
    """
    if not isinstance(db, Path):  # a server's URL (--db postgresql://...): a name for it here
        db = db.resolve()
    return db.with_name(db.name + ".admin-token")


def load_or_create_admin_token(path: Path) -> tuple[str, bool]:
    """The admin token in ``path``, or a new one written there (owner-only); and whether new."""
    if path.exists():
        return read_secret(path, "admin token"), False
    token = new_token()
    try:
        write_secret(path, token)
    except OSError as exc:
        raise BadConfig(f"cannot write the admin token file {path}: {exc.strerror}") from None
    return token, True


def client_admin_token(file: Path | None) -> str | None:
    """An admin client's token: ``--admin-token-file`` if given, else ``$LEVATA_ADMIN_TOKEN``."""
    if file is not None:
        return read_secret(file, "admin token")
    return os.environ.get(ADMIN_TOKEN_ENV) or None


def read_tokens_file(path: Path) -> dict[str, str]:
    """Bot tokens for ``levata serve --tokens-file``: one ``NAME TOKEN`` (or ``NAME=TOKEN``)
    per line; blank lines and ``#`` comments are skipped.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "tokens"
    >>> write_secret(p, "# bots\\nalice s3cret-1\\nbob=s3cret-2")
    >>> read_tokens_file(p)
    {'alice': 's3cret-1', 'bob': 's3cret-2'}
    """
    tokens: dict[str, str] = {}
    for number, raw in enumerate(read_private(path, "tokens").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, token = line.replace("=", " ", 1).partition(" ")
        token = token.strip()
        if not token or len(token) > MAX_TOKEN_CHARS:
            raise BadConfig(f"{path}:{number}: expected NAME TOKEN")
        try:
            tokens[check_bot_name(name)] = token
        except BadConfig as exc:
            raise BadConfig(f"{path}:{number}: {exc}") from None
    return tokens
