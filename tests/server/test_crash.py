"""Nothing lost on a crash: a real ``levata serve`` killed, stopped, starved of disk.

Each test runs the referee as a process of its own and its bots as processes (or raw
protocol clients); the referee is killed with SIGKILL, stopped with SIGTERM or SIGINT, or
its database is put on a tiny tmpfs that the test fills (a mount namespace of the server's
own, made with ``unshare``; the test reaches it through ``/proc/PID/root``).
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from levata.server.match.replay import replay_match
from levata.server.match.store import Store
from levata.v1 import admin_pb2

from live import RawBot, ServeProcess, bot_env

FULL_WHIST: dict[str, str] = {}  # the whole schedule: long enough to be cut in the middle
NAMES = ["north", "east", "south"]


def sdk_bots(
    serve: ServeProcess, tmp: Path, names: list[str], matches: int
) -> list[subprocess.Popen[bytes]]:
    """Random-bot processes that keep reconnecting for a minute (a referee restarting)."""
    procs = []
    for i, name in enumerate(names):
        token = serve.register_retrying(name)
        cmd = [sys.executable, "-m", "levata.bots", "run", "random", "--game", "whist"]
        cmd += ["--server", serve.address, "--seed", str(i), "--matches", str(matches)]
        cmd += ["--quiet", "--reconnect", "60"]
        log = (tmp / f"{name}.log").open("wb")
        procs.append(
            subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=bot_env(token))
        )
    return procs


def recorded(db: Path, sql: str, *args: object) -> list[tuple]:
    """Read the referee's file as another process would (WAL lets it, while it writes)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as c:
        return list(c.execute(sql, args))


def snapshot(db: Path, into: Path) -> Path:
    """A copy of a database the test can only reach through ``/proc/PID/root`` (SQLite
    resolves that link to the test's own file system, so it cannot open it in place)."""
    into.mkdir(exist_ok=True)
    for suffix in ("", "-wal"):
        if Path(f"{db}{suffix}").exists():
            shutil.copyfile(f"{db}{suffix}", into / f"{db.name}{suffix}")
    return into / db.name


def wait_for(what: str, check, timeout: float = 60, every: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def actions_of(db: Path, match_id: str) -> int:
    return recorded(db, "SELECT COUNT(*) FROM actions WHERE match_id = ?", match_id)[0][0]


def unfinished(db: Path) -> int:
    return recorded(db, "SELECT COUNT(*) FROM matches WHERE status IN ('waiting', 'running')")[0][0]


def test_a_killed_referee_resumes_every_match_from_its_record(tmp_path):
    """SIGKILL in the middle of three matches; the restarted referee takes each up where its
    record leaves it, the bots reconnect, every match finishes, strike-free, and replays."""
    serve = ServeProcess(tmp_path)
    bots = sdk_bots(serve, tmp_path, NAMES, matches=3)
    ids = [serve.create_retrying("whist", NAMES, seed=s, options=FULL_WHIST) for s in (1, 2, 3)]
    wait_for("every match under way", lambda: all(actions_of(serve.db, m) >= 15 for m in ids))
    serve.proc.send_signal(signal.SIGKILL)
    serve.proc.wait()
    cut = {m: actions_of(serve.db, m) for m in ids}
    assert unfinished(serve.db) == 3  # the kill left them running, as a crash would

    again = ServeProcess(tmp_path, db=serve.db, port=serve.port)
    try:
        infos = [again.wait(m, timeout=180) for m in ids]
        for p in bots:
            assert p.wait(timeout=60) == 0
        for m in ids:
            assert f"match {m} resumed" in again.output()
        for m, info in zip(ids, infos, strict=True):
            assert info.status == admin_pb2.MATCH_STATUS_FINISHED, info.status_detail
            assert not info.result.forfeited and list(info.strikes) == [0, 0, 0]
            assert actions_of(again.db, m) > cut[m]  # it went on after the kill
            numbers = [n for (n,) in recorded(again.db, "SELECT n FROM actions WHERE match_id = ?"
                                              " ORDER BY n", m)]  # fmt: skip
            assert numbers == list(range(len(numbers)))  # nothing doubled, nothing skipped
            ok, why = replay_match(Store(again.db), m)
            assert ok, why
            # the hash chain went on across the kill: one link per action, before and after
            assert "hash chain verified" in why
            links = recorded(again.db, "SELECT COUNT(chain) FROM actions WHERE match_id = ?", m)
            assert links[0][0] == len(numbers)
        assert unfinished(again.db) == 0  # matches left running after kill + restart: 0
    finally:
        again.stop()
        for p in bots:
            p.kill()


def test_a_resumed_seat_keeps_its_clock_and_strikes(tmp_path):
    """The time bank and the strikes a seat had when the referee died are what it has after
    the restart, in the re-sent request itself."""
    serve = ServeProcess(tmp_path)
    token = serve.register("solo")
    raw = RawBot(serve.address, token)
    raw.next("welcome")
    match_id = serve.create(
        "whist", ["solo"] * 3, options={"deal_size": "3"}, move_ms=300, bank_ms=2000
    )
    req = raw.next("request")
    time.sleep(0.8)  # 500 ms over move_ms: out of this seat's bank
    raw.reply(req)
    req = raw.next("request")  # another seat: let it time out (a strike; its bank goes to 0)
    struck = req.seat
    req = raw.next("request", timeout=10)
    before = {req.seat: req.bank_left_ms}
    wait_for("the strike recorded", lambda: serve.info(match_id).strikes[struck] == 1)
    strikes = list(serve.info(match_id).strikes)
    serve.proc.send_signal(signal.SIGKILL)
    serve.proc.wait()
    raw.close()

    again = ServeProcess(tmp_path, db=serve.db, port=serve.port)
    try:
        raw = RawBot(again.address, token)
        raw.next("welcome")
        resent = raw.next("request")
        assert {resent.seat: resent.bank_left_ms} == before  # the same decision, the same bank
        assert resent.state_version == req.state_version
        assert list(again.info(match_id).strikes) == strikes
        raw.close()
    finally:
        again.stop()


def test_a_record_that_cannot_go_on_is_aborted_and_everyone_says_why(tmp_path):
    """A record that no longer replays (here: its seed was changed while the referee was
    down) is closed as aborted: the start-up says so, the admin view, ``levata replay`` and
    the reconnecting bot all give the reason."""
    serve = ServeProcess(tmp_path)
    token = serve.register("solo")
    raw = RawBot(serve.address, token)
    raw.next("welcome")
    match_id = serve.create("whist", ["solo"] * 3, options={"deal_size": "3"})
    raw.reply(raw.next("request"))
    raw.next("request")
    serve.proc.send_signal(signal.SIGKILL)
    serve.proc.wait()
    raw.close()
    with contextlib.closing(sqlite3.connect(serve.db)) as db:
        db.execute("UPDATE matches SET seed = seed + 1 WHERE id = ?", (match_id,))
        db.commit()

    again = ServeProcess(tmp_path, db=serve.db, port=serve.port)
    try:
        assert f"match {match_id} closed as aborted: cannot resume" in again.output()
        info = again.info(match_id)
        assert info.status == admin_pb2.MATCH_STATUS_ABORTED
        assert "cannot resume after a restart" in info.status_detail
        raw = RawBot(again.address, token)
        end = raw.next("match_end", timeout=60)
        assert end.result.reason == "aborted"
        assert "cannot resume after a restart" in end.result.details["aborted"]
        raw.close()
        replay = subprocess.run(
            [sys.executable, "-m", "levata.server.cli", "replay", match_id, "--db", str(again.db)],
            capture_output=True,
            text=True,
        )
        assert "aborted: cannot resume after a restart" in replay.stdout + replay.stderr
        assert "Traceback" not in replay.stderr
    finally:
        again.stop()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_stops_as_cleanly_as_sigint(tmp_path, sig):
    """Either signal: the referee commits, says what it leaves unfinished, exits 0; the next
    start takes the match up and it finishes as if nothing happened."""
    serve = ServeProcess(tmp_path)
    bots = sdk_bots(serve, tmp_path, NAMES, matches=1)
    match_id = serve.create_retrying("whist", NAMES, seed=4, options=FULL_WHIST)
    wait_for("the match under way", lambda: actions_of(serve.db, match_id) >= 15)
    serve.proc.send_signal(sig)
    assert serve.proc.wait(timeout=30) == 0
    said = serve.output()
    assert "1 unfinished match(es) recorded" in said and "stopped" in said, said
    assert "Traceback" not in said
    again = ServeProcess(tmp_path, db=serve.db, port=serve.port)
    try:
        info = again.wait(match_id, timeout=180)
        assert info.status == admin_pb2.MATCH_STATUS_FINISHED, info.status_detail
        assert list(info.strikes) == [0, 0, 0]
        for p in bots:
            assert p.wait(timeout=60) == 0
        ok, why = replay_match(Store(again.db), match_id)
        assert ok, why
    finally:
        again.stop()
        for p in bots:
            p.kill()


def _serve_on_small_disk(tmp: Path) -> tuple[ServeProcess, Path]:
    """``levata serve`` with its database on a small disk of its own, and the folder of that
    disk as the test reaches it (through ``/proc/PID/root``)."""
    prefix, disk = _on_small_disk(tmp)
    serve = ServeProcess(tmp, prefix=prefix, db=disk / "referee.db", token_file=tmp / "admin-token")
    return serve, Path(f"/proc/{serve.proc.pid}/root") / str(disk).lstrip("/")


def _fill(folder: Path) -> Path:
    """Fill the disk ``folder`` is on, with one file; returns it."""
    filler = folder / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as f:
        while True:
            f.write(b"\0" * 65536)
    return filler


def _not_serving(serve: ServeProcess) -> None:
    wait_for(
        "health NOT_SERVING",
        lambda: serve.health() == health_pb2.HealthCheckResponse.NOT_SERVING,
        timeout=60,
    )


def _on_small_disk(tmp: Path, size: str = "16m") -> tuple[tuple[str, ...], Path]:
    """A command prefix that runs the referee with ``tmp/disk`` a tmpfs of ``size`` of its
    own, and that folder. (Room for SQLite's write-ahead log, which grows to about 4 MB
    before it is folded into the file: the disk is full only when the test fills it.)"""
    if shutil.which("unshare") is None:
        pytest.fail("util-linux unshare is needed to give the referee a small disk")
    disk = tmp / "disk"
    disk.mkdir()
    mount = "mount -t tmpfs -o size=" + size + ' tmpfs "$0" && exec "$@"'
    return ("unshare", "-Urm", "sh", "-c", mount, str(disk)), disk


def test_a_full_disk_suspends_matches_and_nothing_is_lost(tmp_path):
    """The disk fills in the middle of a match: health turns NOT_SERVING, new matches are
    refused with the reason, every seat is told its match is suspended and no clock runs;
    once space is freed health is SERVING again and the match finishes, its record whole."""
    serve, inside = _serve_on_small_disk(tmp_path)
    try:
        bots = sdk_bots(serve, tmp_path, NAMES, matches=1)
        match_id = serve.create_retrying(
            "whist", NAMES, seed=5, options=FULL_WHIST, move_ms=1000, bank_ms=1000
        )
        db = inside / "referee.db"
        copies = tmp_path / "copies"
        wait_for("the match under way", lambda: actions_of(snapshot(db, copies), match_id) >= 5)
        filler = _fill(inside)
        _not_serving(serve)
        with pytest.raises(grpc.RpcError) as refused:
            serve.create("whist", NAMES, seed=6)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "cannot write the records" in refused.value.details()
        running = serve.info(match_id)
        assert running.status == admin_pb2.MATCH_STATUS_RUNNING
        assert running.status_detail.startswith("suspended: database or disk is full")
        wait_for(
            "every seat told",
            lambda: all("match suspended" in (tmp_path / f"{n}.log").read_text() for n in NAMES),
            timeout=30,
        )
        time.sleep(4)  # suspended longer than a move and the bank: no clock may run meanwhile
        filler.unlink()
        wait_for("health SERVING", serve._serving, timeout=60)
        info = serve.wait(match_id, timeout=180)
        assert info.status == admin_pb2.MATCH_STATUS_FINISHED, info.status_detail
        assert list(info.strikes) == [0, 0, 0]
        for p in bots:
            assert p.wait(timeout=60) == 0
        ok, why = replay_match(Store(snapshot(db, tmp_path / "final")), match_id)  # nothing lost
        assert ok, why
    finally:
        serve.stop()


def test_a_read_only_database_is_refused_with_the_reason(tmp_path):
    """A referee whose records sit on a read-only file system does not start to play
    matches it could not record: one clear line, exit 2, no traceback."""
    first = ServeProcess(tmp_path)
    first.register("solo")
    first.stop()
    disk = tmp_path / "disk"
    disk.mkdir()
    readonly = (
        'mount -t tmpfs tmpfs "$0" && cp "$1" "$0/" && mount -o remount,ro "$0" && shift'
        ' && exec "$@"'
    )
    cmd = ["unshare", "-Urm", "sh", "-c", readonly, str(disk), str(first.db)]
    cmd += [sys.executable, "-m", "levata.server.cli", "serve", "--port", "0"]
    cmd += ["--db", str(disk / first.db.name), "--admin-token-file", str(first.token_file)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "cannot open the records at" in done.stderr and "for writing" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_stopped_on_a_full_disk_the_referee_names_what_it_could_not_write(tmp_path):
    """Stopped while its disk is full, the referee says exactly what was not written, match
    by match, instead of losing it silently."""
    serve, inside = _serve_on_small_disk(tmp_path)
    try:
        bots = sdk_bots(serve, tmp_path, NAMES, matches=1)
        match_id = serve.create_retrying("whist", NAMES, seed=7, options=FULL_WHIST)
        db, copies = inside / "referee.db", tmp_path / "copies"
        wait_for("the match under way", lambda: actions_of(snapshot(db, copies), match_id) >= 5)
        _fill(inside)
        _not_serving(serve)
        serve.proc.send_signal(signal.SIGTERM)
        assert serve.proc.wait(timeout=30) == 0
        said = serve.output()
        assert f"giving up, not written: match {match_id}: " in said
        assert "Traceback" not in said
    finally:
        serve.stop()
        for p in bots:
            p.kill()


def test_a_taken_port_is_refused_with_the_reason(tmp_path):
    """Another program holds the port: one clear line, exit 2, no traceback."""
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        cmd = [sys.executable, "-m", "levata.server.cli", "serve", "--host", "127.0.0.1"]
        cmd += ["--port", str(port), "--db", str(tmp_path / "r.db")]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
