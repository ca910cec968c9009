"""The Node.js example bot (examples/node) plays every registered game over gRPC.

It knows no rules: it picks among the legal actions the referee lists. In CI the Node
packages are installed by .ci/run, so a missing toolchain fails the test there instead of
skipping it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from levata.engine import all_games
from levata.engine import game as game_spec

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
