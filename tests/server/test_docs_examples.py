"""The README's and docs/bots.md's command lines do what they say: every ``levata play``
example of the README seats a match the game allows (checked, not played), and the token
step of docs/bots.md makes a file the referee accepts."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from levata.engine import game
from levata.engine.options import parse_options
from levata.server.cli.play import seat_entries
from levata.server.match.auth import read_tokens_file

ROOT = Path(__file__).resolve().parents[2]


def _play_lines() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return [ln.split("  #")[0] for ln in re.findall(r"^levata play .*$", text, re.M)]


@pytest.mark.parametrize("line", _play_lines())
def test_each_readme_play_example_seats_a_match(line):
    args = shlex.split(line)[2:]
    found: dict[str, list[str]] = {}
    for flag, value in zip(args, [*args[1:], ""], strict=True):
        if flag.startswith("-"):
            found.setdefault(flag, []).append(value)
    name = (found.get("--game") or found["-g"])[0]
    players = found.get("-n") or found.get("--players")
    spec, n, entries = seat_entries(
        name, int(players[0]) if players else None, found["--bots"][0], None, try_make=False
    )
    game(spec.name).new_match(players=n, options=parse_options(found.get("-o", [])), seed=1)
    assert len(entries) == n


def test_the_token_step_of_docs_bots_md_makes_a_file_the_referee_takes(tmp_path):
    text = (ROOT / "docs" / "bots.md").read_text()
    (step,) = [ln.split("#")[0] for ln in text.splitlines() if "> tokens.txt" in ln]
    subprocess.run(["sh", "-c", step], cwd=tmp_path, check=True, timeout=30)
    tokens = read_tokens_file(tmp_path / "tokens.txt")  # refused if others could read it
    assert list(tokens) == ["jq-bot"] and len(tokens["jq-bot"]) == 48
