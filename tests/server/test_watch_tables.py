"""WatchMatch for a crowd: a watch left at its defaults sees the first event, the tables (the
public events in batches, each with the public view) carry every public event once and no
hidden card, and ``levata serve --web`` runs the web table as a process of its own that
takes the live matches through them, started and stopped with the referee."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from levata.server.match.spectator import NO_SEAT
from levata.v1 import admin_pb2
from levata.wire.codec import view_from_pb

from live import LiveServer
from test_web import WebTable, connect, create_waiting


@pytest.fixture
def server(tmp_path):
    s = LiveServer(tmp_path / "watch.db")
    yield s
    s.stop()


def _played(server: LiveServer, name: str = "whist") -> str:
    match_id, bots = create_waiting(server, name)
    for f in connect(server, bots):
        f.result(timeout=60)
    server.wait(match_id)
    return match_id


def test_a_watch_left_at_its_defaults_sees_the_first_event(server):
    """``after_seq`` unset is 0, and the first event (the deal) is numbered 0."""
    match_id = _played(server)
    events = [
        m.event.seq
        for m in server.admin.WatchMatch(admin_pb2.WatchMatchRequest(match_id=match_id), timeout=30)
        if m.WhichOneof("message") == "event" and m.event.is_public
    ]
    public = [e["seq"] for e in server.store.events(match_id) if e["audience"] is None]
    assert events[0] == 0 and events == public


def test_tables_carry_every_public_event_once_and_the_public_view(server):
    match_id, bots = create_waiting(server, "whist")
    request = admin_pb2.WatchMatchRequest(match_id=match_id, table_every_ms=100)
    call = server.admin.WatchMatch(request, timeout=60)
    first = next(call)
    assert first.table.status == admin_pb2.MATCH_STATUS_WAITING  # at once, before any move
    for f in connect(server, bots, think_s=0.002):
        f.result(timeout=60)
    rest = list(call)
    tables = [first.table, *(m.table for m in rest if m.WhichOneof("message") == "table")]
    assert [m.WhichOneof("message") for m in rest][-1:] == ["finished"]
    assert all(m.WhichOneof("message") != "event" for m in rest), "the events are in tables"
    seqs = [e.seq for t in tables for e in t.events]
    assert all(e.is_public for t in tables for e in t.events)
    public = [e["seq"] for e in server.store.events(match_id) if e["audience"] is None]
    assert seqs == public, "each public event once, in order"
    assert len(tables) < len(public) / 2, "the events come in batches"
    views = [view_from_pb(t.view) for t in tables]
    assert all(v.seat == NO_SEAT and not v.hand for v in views)
    assert not any(name.startswith("hand:") for v in views for name in v.zones)
    actions = [t.actions for t in tables]
    assert actions == sorted(actions) and actions[-1] == server.applied(match_id)
    assert tables[-1].status == admin_pb2.MATCH_STATUS_FINISHED


def test_serve_runs_the_web_table_as_its_own_process(tmp_path):
    db = tmp_path / "serve.db"
    serve = subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", "serve", "--port", "0", "--web", "0",
         "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "COLUMNS": "300"},
    )  # fmt: skip
    try:
        assert serve.stdout is not None
        lines = [serve.stdout.readline() for _ in range(3)]
        found = re.search(r"web table on (http://\S+/)", lines[-1])
        assert found, lines
        url = found.group(1)
        children = Path(f"/proc/{serve.pid}/task/{serve.pid}/children").read_text().split()
        assert len(children) == 1, "the web table is a process of its own"
        page = httpx.get(url, timeout=30)
        assert page.status_code == 200 and "beside a live referee" in page.text
        assert httpx.get(f"{url}live/nosuchmatch", timeout=30).status_code == 404
        serve.send_signal(signal.SIGINT)
        serve.wait(30)
        end = time.monotonic() + 10
        while Path(f"/proc/{children[0]}").exists() and time.monotonic() < end:
            time.sleep(0.05)  # gone with the referee (a zombie is reaped by init)
        status = Path(f"/proc/{children[0]}/status")
        assert not status.exists() or "zombie" in status.read_text()
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()


def test_a_watch_nobody_looks_at_ends(tmp_path, monkeypatch):
    """The web table's watch of a match lasts while someone looks, and a little after."""
    import levata.server.web.live as live

    monkeypatch.setattr(live, "IDLE_S", 0.3)
    table = WebTable(tmp_path)
    try:
        match_id, _ = create_waiting(table.server, "whist")
        assert table.get(f"/live/{match_id}").status_code == 200  # the page, not its stream
        assert table.server.arena.watchers == 1
        end = time.monotonic() + 10
        while table.server.arena.watchers and time.monotonic() < end:
            time.sleep(0.05)
        assert table.server.arena.watchers == 0, "nobody looks: the referee sends nothing"
        with httpx.stream("GET", f"{table.url}/live/{match_id}/events", timeout=30) as r:
            lines = r.iter_lines()  # kept: a dropped iterator closes the stream
            assert next(lines).startswith("data: ")
            time.sleep(0.6)  # longer than IDLE_S: a stream open keeps the watch
            assert table.server.arena.watchers == 1
    finally:
        table.stop()
