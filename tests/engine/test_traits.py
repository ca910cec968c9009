"""Traits, not names: what the server and the bots know of a game comes from its spec.

The server and the bot registry name no game; each game's spec says who partners whom
(``teams``), what one duplicate board is (``duplicate_unit``), which reference bots play it
(``bots``) and how its own events read (``narrate``).
"""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from levata.bots import bot_names, make_bot
from levata.engine import BadConfig, GameSpec, all_games, game
from levata.engine import registry as game_registry
from levata.server.tournament.spec import build_spec

ROOT = Path(__file__).resolve().parents[2]
GAMES = [spec.name for spec in all_games()]


def _code_strings_and_names(path: Path) -> list[tuple[int, str]]:
    """Every identifier and string constant of a module except its docstrings (comments are
    not in the tree at all) and the default of a ``game`` parameter (a bot's constructor may
    default to a game for convenience): where a game's name would mean the code depends on
    it."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        if isinstance(node, ast.FunctionDef):
            positional = node.args.posonlyargs + node.args.args
            for arg, default in zip(positional[::-1], node.args.defaults[::-1], strict=False):
                if arg.arg == "game":
                    docstrings.add(id(default))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                found.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((node.lineno, node.attr))
    return found


@pytest.mark.parametrize(
    "path",
    [
        *sorted((ROOT / "server").rglob("*.py")),
        ROOT / "bots" / "base.py",
        # The search bots find a game's strategy through its spec (GameSpec.strategy).
        *sorted((ROOT / "bots" / "search").glob("*.py")),
        ROOT / "bots" / "regret.py",
        ROOT / "bots" / "strategy" / "__init__.py",
    ],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_server_and_bot_registry_name_no_game(path):
    for line, text in _code_strings_and_names(path):
        for name in GAMES:
            assert name not in text.lower(), f"{path.relative_to(ROOT)}:{line} names {name}"


@pytest.mark.parametrize("name", GAMES)
def test_every_bot_a_spec_names_plays_its_game(name):
    spec = game(name)
    assert "random" in bot_names(name)
    state = spec.new_match(players=spec.players[0], seed=3)
    seat = state.to_act()[0]
    for kind in bot_names(name):
        bot = make_bot(kind, name, seed=1)
        action = bot.act(state.view(seat), state.legal_actions(seat))
        assert action.without_payload() in state.legal_actions(seat)
        state.clone().apply(seat, action)  # a payload beside the choice (Kemps' signals) too


def test_a_bot_kind_the_game_lacks_is_refused_naming_the_games_it_plays():
    plays = ", ".join(g.name for g in all_games() if "pimc" in g.bots)
    assert "whist" in plays
    with pytest.raises(BadConfig, match=rf"no pimc bot for game 'macao' \(it plays: {plays}\)"):
        make_bot("pimc", "macao")
    with pytest.raises(BadConfig, match="unknown bot 'nobody'"):
        make_bot("nobody", "whist")


def test_duplicate_unit_must_be_an_option_with_a_maximum():
    whist = game("whist")
    with pytest.raises(BadConfig, match="no option 'board'"):
        dataclasses.replace(whist, duplicate_unit="board")
    with pytest.raises(ValueError, match="needs a maximum"):
        dataclasses.replace(whist, duplicate_unit="zero_wins")


def test_a_tournament_takes_single_deals_from_the_duplicate_unit(monkeypatch):
    # The same rules under another name and another single-deal option name: the server
    # follows the trait, not the spelling.
    whist = game("whist")
    renamed = [
        dataclasses.replace(o, name="board") if o.name == "deal_size" else o for o in whist.options
    ]
    other = dataclasses.replace(whist, name="other", options=tuple(renamed), duplicate_unit="board")
    monkeypatch.setitem(game_registry._REGISTRY, "other", other)
    spec = build_spec("other", "random,random,random", deals=2, seed=1)
    assert spec.unit == "deal" and spec.sizes
    assert {m.options["board"] for m in spec.schedule()} == set(spec.sizes[:2])
    whole = dataclasses.replace(other, name="whole", duplicate_unit=None)
    monkeypatch.setitem(game_registry._REGISTRY, "whole", whole)
    assert build_spec("whole", "random,random,random", deals=1).unit == "game"
    with pytest.raises(BadConfig, match="no single-deal option"):
        build_spec("whole", "random,random,random", deals=1, unit="deal")


def test_a_tournament_seats_the_games_own_teams(monkeypatch):
    pairs: GameSpec = dataclasses.replace(
        game("whist"), name="pairs", players=(4,), teams=lambda n: ((0, 2), (1, 3))
    )
    monkeypatch.setitem(game_registry._REGISTRY, "pairs", pairs)
    spec = build_spec("pairs", "random,heuristic", deals=1)
    assert spec.players == 4 and spec.teams == [[0, 2], [1, 3]]
    for match in spec.schedule():
        assert match.seats[0] == match.seats[2] and match.seats[1] == match.seats[3]
    assert build_spec("whist", "random,random,random", deals=1).teams is None


def test_levata_bots_lists_each_games_bots():
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "bots"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},  # wide enough that no path is wrapped
    )
    assert run.returncode == 0, run.stderr
    for name in GAMES:
        assert name in run.stdout
    for path in ("levata.bots.search.pimc:PimcBot", "levata.bots.base:RandomBot"):
        assert path in run.stdout


def test_a_game_package_registers_itself(tmp_path):
    """A game joins by being a package under ``levata.engine.games``: the registry finds it,
    with no list to edit (here a package on an extra path of ``games``, in a fresh process)."""
    package = tmp_path / "copy_of_whist"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import dataclasses\n"
        "from levata.engine.games.whist import SPEC\n"
        "from levata.engine.registry import register\n"
        "register(dataclasses.replace(SPEC, name='copy-of-whist'))\n"
    )
    (tmp_path / "_private").mkdir()  # an underscored package is not a game
    (tmp_path / "_private" / "__init__.py").write_text("raise SystemExit('imported')\n")
    script = (
        "from levata.engine import games, all_games\n"
        f"games.__path__.append({str(tmp_path)!r})\n"
        "print(' '.join(g.name for g in all_games()))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    names = out.stdout.split()
    assert "copy-of-whist" in names and set(GAMES) <= set(names)


def test_the_registry_names_no_game():
    for line, text in _code_strings_and_names(ROOT / "engine_ext" / "registry.py"):
        for name in GAMES:
            assert name.replace("-", "_") not in text.lower(), f"registry.py:{line} names {name}"
