"""The C++ example engine (examples/cpp) builds with the system compiler and plays a
tournament against the reference bots through the bridge, as docs/bots.md says."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cpp"
CLI = [sys.executable, "-m", "levata.server.cli"]
QUICK = ["--deals", "2", "-o", "deal_size=3", "--seed", "5", "--quiet"]


def test_the_cpp_engine_builds_and_plays_legally(tmp_path):
    assert shutil.which("g++") and Path("/usr/include/nlohmann/json.hpp").exists(), (
        "no g++ or nlohmann/json: apt-get install -y g++ nlohmann-json3-dev (CI's .ci/run does)"
    )
    bots = tmp_path / "cpp"
    shutil.copytree(EXAMPLE, bots, ignore=shutil.ignore_patterns("lowest"))
    build = subprocess.run(["make", "-C", str(bots)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    assert "warning" not in build.stderr
    db = tmp_path / "t.db"
    entries = f"{bots / 'lowest.toml'},heuristic,random"
    run = subprocess.run(
        [*CLI, "tournament", "--game", "whist", "--bots", entries, *QUICK, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "lowest-cpp" in run.stdout
    with sqlite3.connect(db) as c:
        matches = c.execute("SELECT id, seat_bots, strikes FROM matches").fetchall()
        replies = c.execute("SELECT match_id, seat, outcome FROM replies").fetchall()
        # refused replies are counted, one row per match, seat and reason
        replies += c.execute("SELECT match_id, seat, outcome FROM refused_replies").fetchall()
    assert len(matches) == 2 * 6  # two deals, every seating of three entries
    mine = {
        (m, seat)
        for m, names, _ in matches
        for seat, name in enumerate(json.loads(names))
        if "lowest" in name
    }
    assert len(mine) == len(matches)
    played = [o for m, seat, o in replies if (m, seat) in mine]
    # It played every decision itself, each legal and in time: no refusal, no strike.
    assert len(played) >= 12 * 3 and set(played) == {"applied"}
    assert all(not any(json.loads(st)) for _, _, st in matches)
