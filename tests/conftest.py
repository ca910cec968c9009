"""Shared fixtures. The test folders mirror the packages (``engine/``, ``games/``, ``bots/``,
``server/``); helpers every folder uses sit here at the top (``live.py``: a real referee for
the tests, ``probe.py``: Cython probe kernels) and import as top-level modules."""

from __future__ import annotations

import pytest

from live import LiveServer


@pytest.fixture
def server(tmp_path):
    """A real referee (``start_server``) on a loopback port, with its own SQLite file."""
    live = LiveServer(tmp_path / "referee.db")
    yield live
    live.stop()
