"""Every failure of the ``levata`` command is one ``error:`` line and status 2 (bad input) or
1 (a failure at run time), never a traceback: each case run as the real command."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from levata.server.match.store import Store
from levata.server.tournament.store import TourneyStore


def levata(*args: object, env: dict | None = None, timeout: float = 120):
    return subprocess.run(
        [sys.executable, "-m", "levata.server.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def one_error_line(run: subprocess.CompletedProcess[str], status: int) -> str:
    assert run.returncode == status, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    return lines[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


def test_a_second_serve_on_a_port_in_use(tmp_path):
    port = free_port()
    first = subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", "serve", "--port", str(port),
         "--db", str(tmp_path / "a.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_listening(port, first)
        second = levata("serve", "--port", port, "--db", tmp_path / "b.db")
        line = one_error_line(second, 2)  # the --port given: the caller's to change
        assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in line
    finally:
        first.terminate()
        first.wait(timeout=10)


@pytest.mark.parametrize(
    "args",
    [
        ("serve", "--port", "0"),
        ("match", "--game", "macao"),
        ("tournament", "--game", "macao", "--bots", "random,random"),
        ("replay", "m1"),
    ],
)
def test_db_in_a_missing_folder(args, tmp_path):
    db = tmp_path / "no" / "such" / "levata.db"
    if args[0] == "replay":  # nothing to read: said so before any folder is made
        assert "no database at" in one_error_line(levata(*args, "--db", db), 2)
        return
    run = levata(*args, "--db", db)
    assert f"cannot open the database {db}: no folder {db.parent}" in one_error_line(run, 2)
    assert not db.parent.exists()


def test_missing_or_partial_tls_files(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    run = levata("serve", "--port", 0, "--tls-cert", cert, "--tls-key", key, "--db",
                 tmp_path / "x.db")  # fmt: skip
    assert f"cannot read the TLS certificate {cert}: No such file" in one_error_line(run, 2)
    cert.write_text("not a certificate")
    run = levata("serve", "--port", 0, "--tls-cert", cert, "--tls-key", key)
    assert "is not PEM" in one_error_line(run, 2)
    run = levata("serve", "--port", 0, "--tls-cert", cert)
    assert "--tls-cert and --tls-key go together" in one_error_line(run, 2)


def test_bridge_to_a_program_that_does_not_exist():
    env = {**os.environ, "LEVATA_TOKEN": "t" * 32}
    run = levata("bot", "bridge", "--server", "127.0.0.1:1", "--", "/nonexistent", env=env)
    assert "cannot start /nonexistent: No such file or directory" in one_error_line(run, 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("serve", "--port", "70000"), "Invalid value for '--port'"),
        (("serve", "--port", "http"), "Invalid value for '--port'"),
        (("play", "--game", "whist", "-n", "-3"), "whist is played by 3-6 players, not -3"),
        (("play",), "Missing option '--game'"),
        (("match", "--game", "whist", "--seed", "-1"), "Invalid value for '--seed'"),
        (("tournament", "--game", "whist", "--bots", "x", "--seed", str(2**63)), "'--seed'"),
        (("games", "--colour"), "No such option: --colour"),
    ],
)
def test_bad_arguments_are_rejected_in_one_line(args, message):
    run = levata(*args)
    line = one_error_line(run, 2)
    assert message in line
    if "--port" in message:
        assert "65535" in line or "integer" in line


def test_replay_and_export_of_an_unknown_match(tmp_path):
    db = tmp_path / "m.db"
    Store(db).close()
    for command in ("replay", "export"):
        run = levata(command, "nope", "--db", db)
        assert f"no match 'nope' in {db} (it holds no match)" in one_error_line(run, 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--bots", "random", "-n", "4", "--teams", "0+2,1+3,4+5"), "teams"),
        (("--bots", "random", "--teams", "0+2,1+3"), "2 teams need at least 2 entries"),
        (("--bots", "random,random", "--teams", "0+2,1"), "teams must be of one size"),
        (("--bots", "random,random", "--teams", "0+1,2+3", "-n", "6"), "seats 0..5"),
        (("--bots", "random,random", "--teams", "0+1,2+3,4+5,6+7"), "not 8"),
        (("--bots", "@a,random", "--teams", "0+2,1+3", "--server", "x:1"), "@NAME cannot"),
        (("--bots", "random,random,random", "-n", "4", "--teams", "0+1+2,3"), "teams"),
        (("--bots", "random,random,random", "-n", "3", "--teams", "0+2,1+3"), "teams"),
    ],
)
def test_teams_that_do_not_fit_the_bots(args, message, tmp_path):
    run = levata("tournament", "--game", "whist", *args, "--db", tmp_path / "t.db")
    assert message in one_error_line(run, 2)


# -- tournaments: stopped, and started again -----------------------------------------------------

SLOW = ("tournament", "--game", "whist", "--bots", "heuristic,random,random", "--deals", "6",
        "-o", "deal_size=2", "--parallel", "1", "--seed", "3")  # fmt: skip


def test_ctrl_c_in_a_tournament_says_how_to_resume(tmp_path):
    db = tmp_path / "t.db"
    # Python ignores Ctrl-C for good when it starts with SIGINT ignored, as a job started in
    # the background by a non-interactive shell does (nohup, `&`): restore the default first
    proc = subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", *SLOW, "--db", str(db), "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    end = time.monotonic() + 120
    played = 0
    while played < 2:  # let it play a little
        assert time.monotonic() < end and proc.poll() is None, proc.communicate()
        time.sleep(0.2)
        if db.exists():
            with sqlite3.connect(db) as c:
                try:
                    (played,) = c.execute(
                        "SELECT count(*) FROM tournament_matches WHERE status = 'finished'"
                    ).fetchone()
                except sqlite3.OperationalError:
                    played = 0
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    (line,) = [x for x in err.splitlines() if x.startswith("interrupted")]
    assert "nothing played is lost. Resume it with: levata tournament --game whist" in line
    assert line.endswith("--resume") and f"--db {db}" in line
    again = levata(*SLOW, "--db", db, "-q")  # the same command without --resume
    message = one_error_line(again, 2)
    assert "of this spec is unfinished" in message and "--resume" in message
    resumed = levata(*SLOW, "--db", db, "-q", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    (t,) = TourneyStore(db).tournaments()
    assert t["status"] == "finished"


def test_levata_logs_are_ignored_by_git():
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    run = subprocess.run(
        ["git", "check-ignore", "-q", "levata-logs/t1/bot.log"], cwd=root, timeout=30
    )
    assert run.returncode == 0


def test_license_and_changelog_are_there():
    root = Path(__file__).resolve().parents[2]
    text = (root / "LICENSE").read_text()
    assert text.startswith("MIT License") and "the levata authors" in text
    assert "## [Unreleased]" in (root / "CHANGELOG.md").read_text()
