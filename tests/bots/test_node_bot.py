"""The Node.js example bot (examples/node) plays every registered game over gRPC.

It knows no rules: it picks among the legal actions the referee lists. In CI the Node
packages are installed by .ci/run, so a missing toolchain fails the test there instead of
skipping it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from levata.engine import all_games
from levata.engine import game as game_spec
from levata.v1 import admin_pb2

from live import LiveServer, bot_env, bot_process

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = ROOT / "examples" / "node" / "bot.js"
READY = shutil.which("node") is not None and (NODE_BOT.parent / "node_modules").is_dir()

pytestmark = pytest.mark.skipif(
    not READY and not os.environ.get("CI"),
    reason="node or examples/node/node_modules missing (run: cd examples/node && npm ci)",
)


@pytest.mark.parametrize("game", [s.name for s in all_games()])
def test_node_bot_completes_a_match(tmp_path, game):
    server = LiveServer(tmp_path / "node.db")
    try:
        counts = game_spec(game).players  # the smallest table the game seats, from 3 (66: 2)
        seats = max(3, counts[0]) if max(counts) >= 3 else counts[0]
        names = ["node"] + [f"py{i}" for i in range(1, seats)]
        tokens = [server.add_bot(n) for n in names]
        node = subprocess.Popen(
            [
                "node",
                str(NODE_BOT),
                "--server",
                server.address,
                "--matches",
                "1",
                "--seed",
                "5",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=bot_env(tokens[0]),
        )
        pys = [bot_process("random", game, server, t, seed=i) for i, t in enumerate(tokens[1:])]
        match_id = server.create(game, names, seed=3)
        info = server.wait(match_id)
        out, err = node.communicate(timeout=30)
        assert node.returncode == 0, err
        assert f"match {match_id}" in out and "over" in out
        assert not info.result.forfeited and info.strikes[0] == 0
        refused = [
            r
            for r in server.store.replies(match_id)
            if r["seat"] == 0 and r["outcome"] != "applied"
        ]
        assert not refused, refused  # every reply of the Node bot was legal
        for p in pys:
            assert p.wait(timeout=30) == 0
    finally:
        server.stop()


def test_node_bot_rejects_a_bad_token(tmp_path):
    server = LiveServer(tmp_path / "node.db")
    try:
        run = subprocess.run(
            ["node", str(NODE_BOT), "--server", server.address],
            capture_output=True,
            text=True,
            timeout=30,
            env=bot_env("wrong"),
        )
        assert run.returncode == 3 and "token" in run.stderr
    finally:
        server.stop()


def test_node_bot_reconnects_when_the_referee_restarts(tmp_path):
    """The referee stops (as levata serve does on SIGTERM) while the Node bot waits in a
    match, and starts again on the same file and port: the bot reconnects with backoff (a
    fresh Hello: the new referee knows no resume token), is seated again, and plays the match
    to its end."""
    db = tmp_path / "restart.db"
    first = LiveServer(db)
    port = first.arena.port
    node = None
    try:
        tokens = [first.add_bot(n) for n in ("node", "py")]
        match_id = first.create("whist", ["node", "py", "py"], seed=3)
        node = subprocess.Popen(
            ["node", str(NODE_BOT), "--server", first.address, "--matches", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=bot_env(tokens[0]),
        )
        _until(lambda: "node" in first.arena.connections, node)
        first.stop(resumable=True)  # the match waits for "py": left to the next start
        first.store.close()
        second = LiveServer(db, port=port)
        try:
            _until(lambda: "node" in second.arena.connections, node)
            py = bot_process("random", "whist", second, tokens[1])
            info = second.wait(match_id, timeout=30)
            out, err = node.communicate(timeout=30)
            assert py.wait(timeout=30) == 0
        finally:
            second.stop()
        assert node.returncode == 0, err
        assert (
            "reconnecting in" in err and "again, a fresh session (the referee restarted)" in err
        ), err
        assert f"match {match_id}" in out and "over" in out
        assert info.status == admin_pb2.MATCH_STATUS_FINISHED and not info.result.forfeited
    finally:
        if node is not None and node.poll() is None:
            node.kill()


def _until(ready, proc: subprocess.Popen[str], timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)
