"""Each game's vocabulary names exactly what its seats are shown: every phase, zone, count,
counter and fact key, action kind and event kind that seeded random matches (players and
options varying) put in a view, a legal list or a history is described, and nothing
described never shows up. ``levata describe`` prints it for every game, and each game's page
in docs/games/ carries that output verbatim."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from levata.engine import all_games, game
from levata.engine.describe import describe, observe
from levata.engine.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parents[2]
GAMES = [spec.name for spec in all_games()]


@pytest.mark.parametrize("name", GAMES)
def test_the_vocabulary_names_exactly_what_seats_are_shown(name):
    spec = game(name)
    seen = observe(spec)
    for section in Vocabulary.SECTIONS:
        declared = set(spec.vocabulary.section(section))
        shown = seen.names[section]
        assert shown - declared == set(), f"{name} {section}: undescribed {shown - declared}"
        assert declared - shown == set(), f"{name} {section}: never shown {declared - shown}"
        assert all(spec.vocabulary.section(section).values()), f"{name} {section}: a blank"


@pytest.mark.parametrize("name", GAMES)
def test_levata_describe_runs_for_every_game_and_its_page_carries_it(name):
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "describe", name],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == describe(game(name))
    page = (ROOT / "docs" / "games" / f"{name}.md").read_text()
    (block,) = re.findall(r"<!-- levata describe -->\n```text\n(.*?)```", page, re.DOTALL)
    assert block == run.stdout, f"docs/games/{name}.md: refresh its `levata describe {name}` block"


def test_describe_refuses_an_unknown_game_in_one_line():
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "describe", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert run.stderr.startswith("error: unknown game 'nope'") and "Traceback" not in run.stderr
