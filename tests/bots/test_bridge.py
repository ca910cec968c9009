"""A program that speaks JSON lines on stdin/stdout plays through `levata bot bridge`.

Every test runs a real referee on loopback, real bot processes and the real bridge; the
shell bot is the one docs/bots.md shows, taken from the page itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from bridge_session import record
from google.protobuf import json_format

from levata.bots.bridge import to_json
from levata.v1 import arena_pb2

from live import LiveServer, bot_env, bot_process

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "examples" / "json" / "first_legal.py"
DOCS = ROOT / "docs" / "bots.md"
CLI = [sys.executable, "-m", "levata.server.cli"]
BRIDGE = [sys.executable, "-m", "levata.bots", "bridge"]


def bridge(server: LiveServer, token: str, *program: str, matches: int = 1, **kw):
    return subprocess.Popen(
        [*BRIDGE, "--server", server.address, "--matches", str(matches), "--", *program],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=bot_env(token),
        **kw,
    )


def play_one(tmp_path: Path, *program: str, options: dict[str, str] | None = None):
    """One Whist match, the bridged program at seat 0 against two random bots."""
    server = LiveServer(tmp_path / "bridge.db")
    try:
        names = ["bridged", "r1", "r2"]
        tokens = [server.add_bot(n) for n in names]
        proc = bridge(server, tokens[0], *program)
        others = [
            bot_process("random", "whist", server, t, seed=i) for i, t in enumerate(tokens[1:])
        ]
        quick = {"deal_size": "3"} if options is None else options
        match_id = server.create("whist", names, options=quick)
        info = server.wait(match_id, timeout=300)
        out, err = proc.communicate(timeout=60)
        for p in others:
            assert p.wait(timeout=30) == 0
        return server, match_id, info, proc.returncode, out, err
    finally:
        server.stop()


def test_bridged_program_plays_a_full_match(tmp_path):
    server, match_id, info, status, out, err = play_one(tmp_path, sys.executable, str(PROGRAM))
    assert status == 0, err
    assert f"match {match_id} seat 0" in out
    assert info.strikes[0] == 0 and not info.result.forfeited
    mine = [r for r in server.store.replies(match_id) if r["seat"] == 0]
    assert mine and all(r["outcome"] == "applied" for r in mine)
    bids = [
        a
        for a in server.store.actions(match_id)
        if a["seat"] == 0 and a["action"].startswith("bid")
    ]
    assert bids  # answered by notation


def docs_block(marker: str) -> str:
    """The fenced block of docs/bots.md that contains ``marker``."""
    for block in re.findall(r"```[a-z]*\n(.*?)```", DOCS.read_text(), re.DOTALL):
        if marker in block:
            return block
    raise AssertionError(f"docs/bots.md has no block with {marker!r}")


def test_the_jq_bot_of_the_docs_plays_a_whole_match(tmp_path):
    assert shutil.which("jq"), "no jq: install it (apt-get install -y jq); CI's .ci/run does"
    bot = tmp_path / "bot.sh"
    bot.write_text(docs_block("# bot.sh"))
    bot.chmod(0o755)
    # A whole match: every deal of the 1..8..1 schedule.
    server, match_id, info, status, out, err = play_one(tmp_path, str(bot), options={})
    assert status == 0, err
    assert info.result.reason == "complete" and info.strikes[0] == 0
    assert len(info.result.details["deals"]) == 3 + 6 + 3 + 6 + 3
    mine = [r for r in server.store.replies(match_id) if r["seat"] == 0]
    assert len(mine) > 100 and all(r["outcome"] == "applied" for r in mine)
    assert f"match {match_id} seat 0: rank" in out


def test_the_docs_session_is_what_the_bridge_prints(tmp_path):
    shown = docs_block('> {"matchStart"').splitlines()
    for line in shown:
        mark, text = line[:2], line[2:]
        if mark == "> ":  # exactly the bridge's own rendering: every field, in order
            assert to_json(json_format.Parse(text, arena_pb2.PlayResponse())) == text
        else:
            assert mark == "< "
            json_format.Parse(text, arena_pb2.ActionReply())
    played = record(tmp_path)  # a fresh session: the same messages in the same order

    def shape(lines: list[str]) -> list[str]:
        return [f"{ln[0]} {sorted(json.loads(ln[2:]))}" for ln in lines]

    assert shape(played) == shape(shown)
    assert [sorted(json.loads(ln[2:]).get("request", {})) for ln in played] == [
        sorted(json.loads(ln[2:]).get("request", {})) for ln in shown
    ]


PICKY = r"""
import json, sys
seen = open(sys.argv[1], "w")
wrong = ["hello", "[1]", '{"index": 99}', '{"bogus": 1}']
for line in sys.stdin:
    seen.write(line)
    seen.flush()
    message = json.loads(line)
    if "request" in message:
        request = message["request"]
    if "request" in message or "error" in message:
        print(wrong.pop(0) if wrong else json.dumps({"index": request["legal"][-1]["index"]}),
              flush=True)
"""


def test_refused_replies_are_told_to_the_program(tmp_path):
    log = tmp_path / "seen.jsonl"
    (tmp_path / "picky.py").write_text(PICKY)
    program = (sys.executable, str(tmp_path / "picky.py"), str(log))
    _, match_id, info, status, _, err = play_one(tmp_path, *program)
    assert status == 0, err
    assert info.strikes[0] == 0 and not info.result.forfeited
    seen = [json.loads(x) for x in log.read_text().splitlines()]
    assert list(seen[0]) == ["matchStart"] and seen[0]["matchStart"]["matchId"] == match_id
    assert list(seen[-1]) == ["matchEnd"] and seen[-1]["matchEnd"]["result"]["reason"]
    errors = [m["error"] for m in seen if "error" in m]
    first = seen[1]["request"]
    assert first["stateVersion"] == "0" and first["seat"] == 0  # zeros are present
    assert first["legal"][0]["index"] == 0
    assert [e["code"] for e in errors] == [
        "REPLY_ERROR_CODE_MALFORMED",
        "REPLY_ERROR_CODE_MALFORMED",
        "REPLY_ERROR_CODE_ILLEGAL_ACTION",
        "REPLY_ERROR_CODE_MALFORMED",
    ]
    assert all(e["requestId"] == first["requestId"] for e in errors)
    assert "malformed reply line 'hello'" in errors[0]["message"]
    assert f'"message": "{errors[0]["message"]}"' in DOCS.read_text()  # the page's example
    assert "a reply is a JSON object" in errors[1]["message"]
    assert "index 99 is not one of 0.." in errors[2]["message"]
    assert "bogus" in errors[3]["message"]
    history = seen[-1]["matchEnd"]["events"]
    assert [int(e["seq"]) for e in history] == sorted(int(e["seq"]) for e in history)
    assert history[-1]["kind"] == "end"


LINGERING = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "request" in message:
        print(json.dumps({"index": 0}), flush=True)
open(sys.argv[1], "w").write("stdin closed\n")
"""


def test_sigterm_loses_no_line_and_closes_the_program(tmp_path):
    closed = tmp_path / "closed"
    (tmp_path / "lingering.py").write_text(LINGERING)
    server = LiveServer(tmp_path / "term.db")
    try:
        names = ["bridged", "r1", "r2"]
        tokens = [server.add_bot(n) for n in names]
        program = (sys.executable, str(tmp_path / "lingering.py"), str(closed))
        proc = bridge(server, tokens[0], *program, matches=5)  # waits for more matches
        for i, t in enumerate(tokens[1:]):
            bot_process("random", "whist", server, t, seed=i)
        match_id = server.create("whist", names, options={"deal_size": "2"})
        server.wait(match_id)
        assert proc.stdout is not None
        line = proc.stdout.readline()  # written and flushed as the match ended
        assert line.startswith(f"match {match_id} seat 0: rank")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + signal.SIGTERM, err
        assert "Traceback" not in err
        assert closed.read_text() == "stdin closed\n"  # the program saw its input end
    finally:
        server.stop()


def test_bridge_needs_a_program():
    run = subprocess.run(
        [sys.executable, "-m", "levata.bots", "bridge"],
        capture_output=True,
        text=True,
        timeout=30,
        env=bot_env("t"),
    )
    assert run.returncode == 2 and "program" in run.stderr


def test_a_bridge_under_a_bridge_says_so():
    run = subprocess.run(
        [sys.executable, "-m", "levata.bots", "bridge", "--", "./bot.sh"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**bot_env("t"), "LEVATA_BRIDGED": "1"},
    )
    assert run.returncode == 2
    assert run.stderr.startswith("error: levata bot bridge is running under a bridge already")


@pytest.mark.parametrize(
    "command",
    ['"levata bot bridge -- ./bot.sh"', '["python3", "-m", "levata.bots", "bridge", "--", "b"]'],
)
def test_a_manifest_that_wraps_the_bridge_itself_is_refused(tmp_path, command):
    manifest = tmp_path / "jq.toml"
    manifest.write_text(f'name = "jq"\ncommand = {command}\n')
    db = str(tmp_path / "t.db")
    run = subprocess.run(
        [*CLI, "tournament", "--game", "whist", "--bots", f"{manifest},random", "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert "runs `levata bot bridge` itself" in run.stderr
    assert "Traceback" not in run.stderr
