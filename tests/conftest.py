"""Shared fixtures. The test folders mirror the packages (``engine/``, ``games/``, ``bots/``,
``server/``); helpers every folder uses sit here at the top (``live.py``: a real referee for
the tests, ``probe.py``: Cython probe kernels) and import as top-level modules."""

from __future__ import annotations

import os

# gRPC reads it once, as it loads (``live`` loads it): its INFO lines ("Got goaway" as a
# test's referee stops) would fill the CI log. A value set by the person running is kept;
# the tests of the command's own default strip it from their subprocesses.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import pytest

from live import LiveServer


@pytest.fixture
def server(tmp_path):
    """A real referee (``start_server``) on a loopback port, with its own SQLite file."""
    live = LiveServer(tmp_path / "referee.db")
    yield live
    live.stop()


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server (``postgres.py``), one per test process, started on first use."""
    from postgres import Server

    pg = Server()
    yield pg
    pg.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    """Where a levata database lives, once for each kind of store: a new SQLite file, and a
    new, empty database on the test PostgreSQL server (its URL)."""
    if request.param == "sqlite":
        return tmp_path / "levata.db"
    return request.getfixturevalue("postgres_server").fresh()


@pytest.fixture
def levata_cli(capsys):
    """The ``levata`` command run in this process (its entry point, ``main``): ``(status,
    stdout, stderr)``. For what a subprocess would only make slower: one-line failures,
    help, reports."""
    from levata.server.cli import main

    def run(*args: object) -> tuple[int, str, str]:
        capsys.readouterr()  # what came before is not this command's
        try:
            main([str(a) for a in args])
            status = 0
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
        got = capsys.readouterr()
        return status, got.out, got.err

    return run
