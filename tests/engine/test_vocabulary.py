"""Each game's vocabulary names exactly what its seats are shown: every phase, zone, count,
counter and fact key, action kind and event kind that seeded random matches (players and
options varying) put in a view, a legal list or a history is described, and nothing
described never shows up. ``levata describe`` prints it for every game, and each game's page
in docs/games/ carries that output verbatim."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from levata.engine import Suit, all_games, game
from levata.engine.describe import describe, observe
from levata.engine.testing import new_random_match, random_steps
from levata.engine.vocabulary import SHARED, SYNONYMS, Vocabulary

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
    # An action's argument is said in its meaning (`card`, `number`) or listed (its words):
    # what a fixed action space (levata.envs) enumerates.
    for kind, taken in seen.arguments.items():
        meaning = spec.vocabulary.actions[kind]
        for arg in {"card", "number"} & taken:
            assert f"`{arg}`" in meaning, f"{name} {kind}: takes a {arg}, its meaning never says"
        words = taken - {"card", "number"} - set(spec.vocabulary.choices.get(kind, ()))
        assert not words, f"{name} {kind}: words not in the vocabulary's choices: {words}"


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


# -- one vocabulary across games -------------------------------------------------------------


def _views(spec, matches=6, every=7):
    """Every seat's view at every ``every``-th step of a few seeded random matches."""
    for i in range(matches):
        state, _ = new_random_match(spec, i, 700 + i)
        rng = random.Random(i)
        for step, _ in enumerate(random_steps(state, rng)):
            if step % every == 0:
                yield from (state.view(s, history=False) for s in range(state.players))


@pytest.mark.parametrize("name", GAMES)
def test_a_shared_name_means_the_same_thing_in_every_game(name):
    vocab = game(name).vocabulary
    for section, shared in SHARED.items():
        for key, meaning in vocab.section(section).items():
            if key in shared:
                assert meaning.startswith(shared[key]), f"{name} {section} {key}: {meaning!r}"
            assert key not in SYNONYMS, f"{name} {section}: {key} is {SYNONYMS[key]} elsewhere"


@pytest.mark.parametrize("name", GAMES)
def test_strain_dealer_and_scores_hold_what_the_shared_names_promise(name):
    spec = game(name)
    names = {k for section in ("counters", "facts") for k in spec.vocabulary.section(section)}
    trick_game = "trick_seats" in names
    assert not trick_game or "strain" in names, f"{name}: a trick game names its strain"
    for view in _views(spec):
        c, n = view.counters, view.players
        if "strain" in view.facts:
            strain = view.facts["strain"]
            assert strain in {*(s.letter for s in Suit), "NT", None}, strain  # the deck's letters
            assert view.trump == (None if strain in ("NT", None) else strain)  # agrees
        for key in ("dealer", "first", "leader"):
            assert key not in c or 0 <= c[key] < n, (key, c)
        seats = [k for k in c if k.startswith("score:")]
        assert not seats or len(seats) == n, seats
        teams = [k for k in c if k.startswith("team_score:")]
        assert not teams or len(teams) == len(spec.teams(n) or ()), teams
