"""Where a bot process finds its token: the environment or an owner-only file, never argv.

A command line is readable by every local user (``/proc/PID/cmdline``), so ``levata bot run``
and ``levata bot bridge`` take no token argument: they read ``$LEVATA_TOKEN``, or the file
named by ``--token-file``. A file that its group or others can read is refused, as ssh refuses
such a private key.

>>> import os, tempfile
>>> from pathlib import Path
>>> p = Path(tempfile.mkdtemp()) / "token"
>>> write_secret(p, "s3cret")
>>> read_secret(p), oct(p.stat().st_mode & 0o777)
('s3cret', '0o600')
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from levata.engine import BadConfig

__all__ = [
    "MAX_TOKEN_CHARS",
    "TLS_CA_ENV",
    "TOKEN_ENV",
    "bot_token",
    "read_private",
    "read_secret",
    "write_secret",
]

#: The variable a bot process reads its token from.
TOKEN_ENV = "LEVATA_TOKEN"
#: Where a bot process started for a referee that speaks TLS finds the CA to trust (a path;
#: ``levata match --server ... --tls-ca`` sets it, ``levata bot`` reads it).
TLS_CA_ENV = "LEVATA_TLS_CA"
#: Longest token accepted anywhere.
MAX_TOKEN_CHARS = 256


def write_secret(path: Path, secret: str) -> None:
    """Write ``secret`` to a new file readable and writable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret + "\n")


def read_private(path: Path, what: str) -> str:
    """The text of an owner-only file; :class:`BadConfig` if missing, empty or shared."""
    try:
        st = path.stat()
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not text"
        raise BadConfig(f"cannot read the {what} file {path}: {why}") from None
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise BadConfig(
            f"the {what} file {path} is readable by others: chmod 600 {path} (or make it"
            " owner-only from the start: (umask 077; echo ... > FILE))"
        )
    if not text.strip():
        raise BadConfig(f"the {what} file {path} is empty")
    return text


def read_secret(path: Path, what: str = "token") -> str:
    """The one token held in an owner-only file."""
    text = read_private(path, what).strip()
    if len(text) > MAX_TOKEN_CHARS or any(c.isspace() for c in text):
        raise BadConfig(f"the {what} file {path} must hold one token of at most 256 characters")
    return text


def bot_token(file: Path | None) -> str:
    """A bot's token: ``--token-file`` if given, else ``$LEVATA_TOKEN``; else :class:`BadConfig`.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t"
    >>> write_secret(p, "abc")
    >>> bot_token(p)
    'abc'
    """
    if file is not None:
        return read_secret(file)
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise BadConfig(
            f"no token: set {TOKEN_ENV} or pass --token-file FILE"
            " (tokens are never taken on the command line: other users can read it)"
        )
    if len(token) > MAX_TOKEN_CHARS:
        raise BadConfig(f"{TOKEN_ENV} is longer than {MAX_TOKEN_CHARS} characters")
    return token
