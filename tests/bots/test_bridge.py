"""A program that speaks JSON lines on stdin/stdout plays through `levata bot bridge`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from live import LiveServer, bot_env, bot_process

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "examples" / "json" / "first_legal.py"


def test_bridged_program_plays_a_full_match(tmp_path):
    server = LiveServer(tmp_path / "bridge.db")
    try:
        names = ["bridged", "r1", "r2"]
        tokens = [server.add_bot(n) for n in names]
        bridge = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "levata.bots",
                "bridge",
                "--server",
                server.address,
                "--matches",
                "1",
                "--",
                sys.executable,
                str(PROGRAM),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=bot_env(tokens[0]),
        )
        others = [
            bot_process("random", "whist", server, t, seed=i) for i, t in enumerate(tokens[1:])
        ]
        match_id = server.create("whist", names, options={"deal_size": "3"})
        info = server.wait(match_id)
        out, err = bridge.communicate(timeout=30)
        assert bridge.returncode == 0, err
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
        for p in others:
            assert p.wait(timeout=30) == 0
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
