"""A new user's path with a Python bot, scripted from ``docs/python-bots.md``: save the
page's function bot, play it against the heuristic, enter it in a small tournament by the
page's manifest (``python = ...``: sandboxed like any submitted program), read the report."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

from python_bots_page import PAGE, write_page_files


def test_a_new_user_writes_plays_enters_and_reads(tmp_path, monkeypatch, levata_cli):
    tmp_path.chmod(0o755)  # run as root, the sandbox's user of its own must enter it
    modules = write_page_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        status, out, err = levata_cli(
            "play", "--game", "whist", "--bots", "mybot:act,heuristic,random", "--seed", "1",
            "-o", "deal_size=3", "-q",
        )  # fmt: skip
    finally:
        for name in modules:
            sys.modules.pop(name, None)
    assert status == 0, err
    assert "final standings" in out and "mybot:act" in out and "heuristic" in out

    (manifest,) = re.findall(r"```toml\n(.*?python = .*?)```", PAGE.read_text(), re.S)
    (tmp_path / "mybot.toml").write_text(manifest)
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "tournament", "--game", "whist",
         "--bots", "mybot.toml,heuristic,random", "--deals", "1", "-o", "deal_size=1",
         "--seating", "rotate", "--db", "t.db", "-q"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "records verified" in run.stdout and "Traceback" not in run.stderr
    (log,) = tmp_path.glob("levata-logs/*/mybot.log")
    assert "levata.bots run mybot:act" in log.read_text()
    if shutil.which("bwrap"):  # --sandbox auto: as any submitted program
        assert "== sandboxed (bwrap" in log.read_text()

    status, out, err = levata_cli(
        "report", "latest", "--db", "t.db", "--html", "report.html", "--json", "report.json"
    )
    assert status == 0, err
    assert "mybot" in out and "wrote report.html" in out
    assert "mybot" in (tmp_path / "report.html").read_text()
    standings = json.loads((tmp_path / "report.json").read_text())["standings"]
    (mine,) = [b for b in standings["bots"] if b["name"] == "mybot"]
    assert mine["matches"] == 3 and mine["forfeits"] == 0
