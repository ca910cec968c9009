"""A real PostgreSQL server for the tests: ``initdb`` into a temporary folder, started on a
free loopback port, stopped at the end. Each test gets a database of its own (``fresh``).

``.ci/run`` installs the server (Debian's ``postgresql``); the tests that use it are not
skipped when it is missing, they fail: CI must run them. The server refuses to run as root,
so as root it runs as the ``postgres`` user the package creates.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

_count = itertools.count()


def _bin(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))), None
    )
    if not found:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (apt-get install postgresql)")
    return found


class Server:
    """One PostgreSQL server on 127.0.0.1, trust authentication, no fsync (a test server)."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="levata-pg-"))
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chmod(self.root, 0o755)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        data = self.root / "data"
        self._run(_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "levata", "--no-sync")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        options += " -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            _bin("pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )
        self.data = data

    def _run(self, *argv: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *argv], check=True, capture_output=True, timeout=120)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://levata@127.0.0.1:{self.port}/{dbname}"

    def fresh(self) -> str:
        """The URL of a new, empty database on this server."""
        import psycopg

        name = f"t{os.getpid()}_{next(_count)}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
