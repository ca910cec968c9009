"""``levata admin`` against a real ``levata serve --log-format json`` on loopback, with real
bot processes; and the referee's log lines, parsed.

One referee serves the whole module: a match played by two ``levata bot run`` processes, one
whose seats never connect (a forfeit), one whose bot never answers (a strike); the admin
commands run in this process (``levata_cli``: the command's entry point, real gRPC calls).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from levata.server.match.auth import admin_metadata
from levata.v1 import admin_pb2, admin_pb2_grpc

from live import RawBot, ServeProcess


class Played:
    """The module's referee and what was done on it."""

    serve: ServeProcess
    tmp: Path
    match_id: str  # played to its end by two bot processes
    ghosts_id: str  # its bots never connected
    slow_id: str  # its bot never answered
    tokens: dict[str, str]


def _bot(played: Played, name: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "levata.bots", "run", "random", "--game", "whist"]
    cmd += ["--server", played.serve.address, "--matches", "1", "--quiet"]
    cmd += ["--token-file", str(played.tmp / f"{name}.token")]
    return subprocess.Popen(cmd, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A referee, and three matches played on it through ``levata admin``."""
    from levata.server.cli import main

    def admin(*args: object) -> None:
        try:
            main(["admin", *map(str, args), "--server", p.serve.address, *auth])
        except SystemExit as exc:
            assert not exc.code, (args, exc.code)

    p = Played()
    p.tmp = tmp_path_factory.mktemp("admin")
    p.serve = ServeProcess(p.tmp, "--log-format", "json", "--bank-ms", "0")
    auth = ["--admin-token-file", str(p.serve.token_file)]
    try:
        for name in ("alice", "bob", "ghost", "slow"):
            admin("register", name, "--token-file", p.tmp / f"{name}.token")
        p.tokens = {n: (p.tmp / f"{n}.token").read_text().strip() for n in ("alice", "slow")}
        p.match_id = _create(p, "--bots", "alice,bob,alice", "-o", "deal_size=2", "--seed", "4")
        bots = [_bot(p, "alice"), _bot(p, "bob")]
        p.ghosts_id = _create(p, "--bots", "ghost", "-n", "3", "--startup-ms", "300")
        slow = RawBot(p.serve.address, p.tokens["slow"])
        p.slow_id = _create(
            p, "--bots", "slow", "-n", "3", "--move-ms", "150", "--max-strikes", "1"
        )
        for match_id in (p.match_id, p.ghosts_id, p.slow_id):
            p.serve.wait(match_id, timeout=60)
        slow.close()
        for bot in bots:
            assert bot.wait(timeout=30) == 0, bot.communicate()
        yield p
    finally:
        p.serve.stop()


def _create(p: Played, *args: str) -> str:
    """``levata admin create ...`` in this process: the match id it prints."""
    from levata.server.cli import main

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), pytest.raises(SystemExit) as ended:
        main(["admin", "create", "-g", "whist", *args, "--server", p.serve.address,
              "--admin-token-file", str(p.serve.token_file)])  # fmt: skip
    assert ended.value.code == 0
    return printed.getvalue().strip()


def _json(levata_cli, played: Played, *args: object) -> object:
    status, out, err = levata_cli(
        "admin", *args, "--server", played.serve.address,
        "--admin-token-file", played.serve.token_file, "--json",
    )  # fmt: skip
    assert status == 0 and not err, err
    return json.loads(out)


def test_get_and_list_say_how_each_match_ended(played, levata_cli):
    done = _json(levata_cli, played, "get", played.match_id)
    assert done["status"] == "finished" and done["seed"] == 4 and done["result"]["reason"]
    assert [s["bot"] for s in done["seats"]] == ["alice", "bob", "alice"]
    assert all("score" in s and "rank" in s for s in done["seats"])
    ghosts = _json(levata_cli, played, "get", played.ghosts_id)
    assert "did not connect" in ghosts["status_detail"]
    assert all(s["forfeited"] for s in ghosts["seats"])
    slow = _json(levata_cli, played, "get", played.slow_id)
    assert "reached 1 strikes" in slow["status_detail"]
    assert sorted(s["strikes"] for s in slow["seats"]) == [0, 0, 1]
    listed = _json(levata_cli, played, "list", "--status", "finished", "--game", "whist")
    ids = [m["match_id"] for m in listed["matches"]]
    assert ids[0] == played.slow_id and played.match_id in ids  # newest first
    none = _json(levata_cli, played, "list", "--game", "macao")
    assert none["matches"] == []
    status, out, _ = levata_cli(
        "admin", "get", played.match_id, "--server", played.serve.address,
        "--admin-token-file", played.serve.token_file,
    )  # fmt: skip
    assert status == 0 and f"match {played.match_id}: whist, 3 players, finished" in out


def test_watch_prints_every_event_from_the_first_then_the_end(played, levata_cli):
    status, out, err = levata_cli(
        "admin", "watch", played.match_id, "--server", played.serve.address,
        "--admin-token-file", played.serve.token_file, "--json",
    )  # fmt: skip
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["seq"] == 0 and lines[0]["kind"] == "deal" and lines[0]["text"]
    assert lines[-1]["finished"]["match_id"] == played.match_id
    seqs = [e["seq"] for e in lines[:-1]]
    assert sorted(seqs) == list(range(len(seqs)))  # each once: the public ones, then the hands


def test_watch_match_without_after_seq_starts_at_event_0(played):
    """The protocol's default (after_seq unset, 0) once dropped event 0, the deal."""
    with grpc.insecure_channel(played.serve.address) as channel:
        stream = admin_pb2_grpc.AdminServiceStub(channel).WatchMatch(
            admin_pb2.WatchMatchRequest(match_id=played.match_id),
            metadata=admin_metadata(played.serve.admin_token),
            timeout=10,
        )
        first = next(iter(stream))
    assert first.event.seq == 0 and first.event.kind == "deal"


def test_health_says_what_the_referee_holds(played, levata_cli, monkeypatch):
    monkeypatch.setenv("LEVATA_ADMIN_TOKEN", played.serve.admin_token)
    status, out, err = levata_cli("admin", "health", "--server", played.serve.address, "--json")
    assert status == 0, err
    doc = json.loads(out)
    assert doc["serving"] is True and doc["records_problem"] == ""
    assert doc["bots_registered"] == 4 and doc["matches_running"] == 0
    assert doc["protocol_version"] == "1" and doc["uptime_s"] >= 0
    status, out, _ = levata_cli("admin", "health", "--server", played.serve.address)
    assert status == 0 and "serving" in out and "4 registered" in out


def test_rotate_refuses_the_old_token(played, levata_cli, monkeypatch):
    monkeypatch.setenv("LEVATA_ADMIN_TOKEN", played.serve.admin_token)
    status, out, err = levata_cli("admin", "rotate", "slow", "--server", played.serve.address)
    new = out.strip()
    assert status == 0 and len(new) >= 40 and new != played.tokens["slow"]
    assert "shown once" in err
    assert RawBot(played.serve.address, played.tokens["slow"]).error_code() == (
        grpc.StatusCode.UNAUTHENTICATED
    )
    fresh = RawBot(played.serve.address, new)
    assert fresh.next("welcome").bot_name == "slow"
    fresh.close()


def test_rotating_a_name_not_registered_is_refused_and_registers_nothing(
    played, levata_cli, monkeypatch
):
    """A mistyped rotation must not pass for a revocation: the leaked token stays live, so
    the operator hears of it (status 2), and no bot of the mistyped name appears."""
    monkeypatch.setenv("LEVATA_ADMIN_TOKEN", played.serve.admin_token)

    def registered() -> int:
        health = ("admin", "health", "--server", played.serve.address, "--json")
        return json.loads(levata_cli(*health)[1])["bots_registered"]

    before = registered()
    status, out, err = levata_cli("admin", "rotate", "sloww", "--server", played.serve.address)
    assert status == 2 and out == "", err
    assert "no bot named 'sloww' is registered" in err and "Traceback" not in err
    assert registered() == before  # nothing registered
    status, out, err = levata_cli("admin", "register", "sloww", "--server", played.serve.address)
    assert status == 0 and len(out.strip()) >= 40, err  # the name was free all along
    # A raw client ignoring the CLI: rotate without registered_only still registers (the
    # tournament runner re-registers its entrants so), and NOT_FOUND only with it.
    stub = admin_pb2_grpc.AdminServiceStub(grpc.insecure_channel(played.serve.address))
    key = admin_metadata(played.serve.admin_token)
    ask = admin_pb2.RegisterBotRequest(name="phantom", rotate=True, registered_only=True)
    with pytest.raises(grpc.RpcError) as exc:
        stub.RegisterBot(ask, timeout=10, metadata=key)
    assert exc.value.code() == grpc.StatusCode.NOT_FOUND
    ask = admin_pb2.RegisterBotRequest(name="phantom", registered_only=True)  # no rotate: ignored
    assert stub.RegisterBot(ask, timeout=10, metadata=key).token


def test_serve_logs_connections_matches_and_faults_as_json(played):
    time.sleep(0.2)  # the last disconnections reach the log
    text = played.serve.output()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert lines and all({"ts", "level", "logger", "event", "msg"} <= set(e) for e in lines)
    events: dict[str, list[dict]] = {}
    for e in lines:
        events.setdefault(e["event"], []).append(e)
    alice = [e for e in events["bot_connected"] if e["bot"] == "alice"]
    assert alice and alice[0]["peer"].startswith("ipv4:127.0.0.1:") and not alice[0]["resumed"]
    assert alice[0]["logger"] == "levata.referee.connections"
    assert any(e["bot"] == "alice" for e in events["bot_disconnected"])
    created = {e["match"]: e for e in events["match_created"]}
    assert created[played.match_id]["seat_bots"] == ["alice", "bob", "alice"]
    assert any(e["match"] == played.match_id for e in events["match_started"])
    ended = {e["match"]: e for e in events["match_ended"]}
    assert ended[played.match_id]["reason"] == "complete"
    assert ended[played.ghosts_id]["reason"] == "forfeit"
    forfeits = {e["match"]: e for e in events["forfeit"]}
    assert "did not connect" in forfeits[played.ghosts_id]["why"]
    assert forfeits[played.slow_id]["bots"] == ["slow"]
    strike = next(e for e in events["strike"] if e["match"] == played.slow_id)
    assert strike["bot"] == "slow" and strike["strikes"] == 1 and strike["level"] == "info"
    for token in (*played.tokens.values(), played.serve.admin_token):
        assert token not in text  # never a token in the log


@pytest.mark.parametrize(
    ("args", "status", "says"),
    [
        (["get", "0123456789abcdef"], 2, "no match '0123456789abcdef'"),
        (["watch", "nope"], 2, "no match 'nope'"),
        (["register", "alice"], 2, "registered already"),
        (["register", "bad name!"], 2, "a bot name is"),
        (["create", "-g", "nogame", "--bots", "alice,bob"], 2, "unknown game 'nogame'"),
        (["create", "-g", "whist", "--bots", "alice,bob,nobody"], 2, "unknown bot(s): nobody"),
        (["create", "-g", "whist", "--bots", "alice,bob", "-n", "3"], 2, "3 players need 3"),
        (["create", "-g", "whist", "--bots", "alice", "-o", "junk"], 2, "NAME=VALUE"),
        (["create", "-g", "whist", "--bots", "alice", "--seed", "-1"], 2, "--seed"),
        (["list", "--status", "done"], 2, "--status 'done'"),
        (["list", "--tls-ca", "/nonexistent/ca.pem"], 2, "cannot read the TLS CA"),
    ],
)
def test_each_bad_input_is_one_error_line(played, levata_cli, args, status, says):
    got, out, err = levata_cli(
        "admin", *args, "--server", played.serve.address,
        "--admin-token-file", played.serve.token_file,
    )  # fmt: skip
    assert got == status and says in err, (got, err)
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in out + err


def test_token_and_server_problems_are_one_error_line(played, levata_cli, tmp_path, monkeypatch):
    monkeypatch.delenv("LEVATA_ADMIN_TOKEN", raising=False)
    address = played.serve.address
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-token\n")
    wrong.chmod(0o600)
    shared = tmp_path / "shared"
    shared.write_text(played.serve.admin_token)
    shared.chmod(0o644)
    taken = tmp_path / "taken.token"
    taken.write_text("x")
    cases = [
        (["list", "--server", address], 2, "admin token"),
        (["list", "--server", address, "--admin-token-file", wrong], 2, "admin token required"),
        (["list", "--server", address, "--admin-token-file", shared], 2, "readable by others"),
        (["list", "--server", "nohost"], 2, "expected HOST:PORT"),
        (["health", "--server", "127.0.0.1:1"], 1, "cannot reach the referee at 127.0.0.1:1"),
        (
            ["register", "zed", "--token-file", taken, "--server", address,
             "--admin-token-file", played.serve.token_file],
            2,
            "exists",
        ),
    ]  # fmt: skip
    for args, status, says in cases:
        got, out, err = levata_cli("admin", *args)
        assert got == status and says in err, (args, got, err)
        assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in out + err
    assert taken.read_text() == "x"


def test_log_level_and_text_format(monkeypatch):
    """``--log-level warning`` keeps the info lines out; ``text`` is one line a person reads."""
    import logging

    from levata.server.match import log

    root, levata = logging.getLogger(), logging.getLogger("levata")
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)
    monkeypatch.setattr(levata, "level", levata.level)
    stream = io.StringIO()
    log.configure("warning", "text", stream)
    log.note(log.faults, logging.INFO, "strike", "match %s: strike", "m1", match="m1")
    log.note(log.faults, logging.WARNING, "match_suspended", "match %s suspended", "m1")
    (line,) = stream.getvalue().splitlines()
    assert line.endswith(" WARNING levata.referee.faults: match m1 suspended"), line
