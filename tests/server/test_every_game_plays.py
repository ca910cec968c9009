"""Every registered game plays a whole match from the command line with each of its reference
bots: each search bot (on a small budget) and each other kind (Kemps' baseline) against the
game's heuristic, seats alternating, so one match shows both playing to the end. The game's
short options bound the match's length (as the conformance suite does); nothing here names a
game."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from levata.bots import bot_names
from levata.bots.base import bot_class
from levata.engine import all_games

#: The reference bot kinds that are not searches.
PLAIN = ("heuristic", "random")


def pairings() -> list[tuple[str, str]]:
    """(game, kind) for every bot kind of every game but the heuristic and random (searches,
    and baselines such as Trombon's); a game with none is played by its heuristic alone."""
    out = []
    for spec in all_games():
        searches = [k for k in bot_names(spec.name) if k not in PLAIN]
        out += [(spec.name, k) for k in searches] or [(spec.name, "heuristic")]
    return out


@pytest.mark.parametrize(("name", "kind"), pairings())
def test_a_whole_match_from_the_command_line(name: str, kind: str) -> None:
    spec = next(s for s in all_games() if s.name == name)
    players = spec.players[0]
    timed = "time_ms" in inspect.signature(bot_class(kind, name)).parameters
    entry = f"{kind}:time_ms=10" if timed else kind  # a search on a small budget
    seats = [entry if s % 2 == 0 else "heuristic" for s in range(players)]
    options = [f"-o{k}={v}" for k, v in spec.short_options.items()]
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "play", "--game", name, "-n", str(players),
         "--bots", ",".join(seats), *options, "--seed", "1", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "final standings" in run.stdout
    for bot in {entry.split(":")[0], "heuristic"}:
        assert bot in run.stdout, f"{bot} is not in the standings"
