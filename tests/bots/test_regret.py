"""The double-dummy regret measure (levata.bots.regret): an oracle has none, a spoiler has
some, none is negative, a seed replays, bad input is one error line, and it is generic over
the trick games."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from levata.bots.base import bot_path
from levata.bots.regret import Setup, main, measure, summarize
from levata.bots.search.double_dummy import solve_world
from levata.engine import Action, SeatView, all_games
from levata.engine.family.tricks import TrickGame
from levata.engine.solver import Solver

WHIST = {"deal_size": 4}


class Oracle:
    """Plays a double-dummy best (or, ``worst``, a worst) card of the true state it is given:
    a test-only cheat to pin the measure's two ends. Calls go to the first legal action."""

    name = "oracle"

    def __init__(self, game: str = "", seed: int = 0, *, worst: bool = False) -> None:
        self.worst = worst
        self.state: TrickGame | None = None

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        cards = [a for a in legal if a.kind == "play" and a.card is not None]
        if self.state is None or len(cards) != len(legal) or len(cards) < 2:
            return legal[0]
        values = solve_world(self.state, view.seat, Solver(self.state.rules))
        pick = min if self.worst else max
        return pick(cards, key=lambda a: values[a.card.index])  # type: ignore[union-attr]


@pytest.fixture
def cheat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand every Oracle the true state of the match it plays (new_match is wrapped)."""
    import levata.bots.regret as regret

    real = regret.play_match

    def play(state, bots, *args, **kwargs):  # type: ignore[no-untyped-def]
        for b in bots:
            inner = getattr(b, "bot", b)
            if isinstance(inner, Oracle):
                inner.state = state
        return real(state, bots, *args, **kwargs)

    monkeypatch.setattr(regret, "play_match", play)


ORACLE = f"{__name__}:Oracle"


def regrets(report_bot: str, setup: Setup) -> list[int]:
    return [d.regret for deal in measure(setup).tallies[report_bot].deals for d in deal.decisions]


@pytest.mark.usefixtures("cheat")
@pytest.mark.parametrize(
    ("name", "options"), [("whist", WHIST), ("tarneeb", {}), ("whist", {"deal_size": 6})]
)
def test_a_double_dummy_player_has_no_regret(name: str, options: dict) -> None:
    setup = Setup(name, [ORACLE], deals=2, seed=3, options=options, from_cards=24)
    got = regrets(ORACLE, setup)
    assert got and all(r == 0 for r in got)


@pytest.mark.usefixtures("cheat")
def test_the_worst_card_has_regret_and_no_regret_is_negative() -> None:
    worst = f"{ORACLE}:worst=true"
    setup = Setup("tarneeb", [worst, "random"], deals=2, seed=5, from_cards=20)
    report = measure(setup)
    for tally in report.tallies.values():
        assert all(d.regret >= 0 and d.best >= d.value for t in tally.deals for d in t.decisions)
    assert sum(t.regret for t in report.tallies[worst].deals) > 0


def test_every_scored_play_is_a_choice_and_within_from_cards() -> None:
    report = measure(Setup("whist", ["random"], deals=3, seed=2, options=WHIST, from_cards=6))
    decisions = [d for t in report.tallies["random"].deals for d in t.decisions]
    assert decisions and all(d.cards_left <= 6 for d in decisions)
    assert {d.kind for d in decisions} <= {"tricks", "points", "exact"}


def test_measured_seats_only() -> None:
    setup = Setup("tarneeb", ["random"], deals=1, seed=4, seats=[1], from_cards=16)
    decisions = measure(setup).tallies["random"].deals[0].decisions
    assert decisions and {d.seat for d in decisions} == {1}


def test_a_tiny_node_limit_skips_and_counts() -> None:
    setup = Setup("tarneeb", ["heuristic"], deals=1, seed=1, from_cards=20, max_nodes=1)
    deal = measure(setup).tallies["heuristic"].deals[0]
    assert deal.skipped > 0 and deal.cards == 0


def test_the_same_seed_gives_the_same_figures() -> None:
    setup = Setup("whist", ["heuristic", "random"], deals=4, seed=9, options=WHIST)
    a, b = summarize(measure(setup), resamples=200), summarize(measure(setup), resamples=200)
    assert a == b
    other = summarize(measure(Setup("whist", ["heuristic", "random"], deals=4, seed=10,
                                    options=WHIST)), resamples=200)  # fmt: skip
    assert other != a


def test_bots_meet_the_same_deals() -> None:
    """Duplicate: with the same bot under two names, every deal scores alike."""
    twin = bot_path("heuristic", "whist")  # the same bot, named by its class
    setup = Setup("whist", ["heuristic", twin], deals=3, seed=1, options=WHIST)
    report = measure(setup)
    a, b = (report.tallies[n].deals for n in setup.bots)
    assert [d.decisions for d in a] == [d.decisions for d in b]
    diff = summarize(report, resamples=100)[f"heuristic-{twin}/deal"]
    assert (diff.value, diff.low, diff.high) == (0, 0, 0)


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--game", "whist", "--bots", "heuristic,random", "--deals", "2", "--seed", "1"]
    assert main([*argv, "-o", "deal_size=3", "--quiet", "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "regret / card" in out and "heuristic - random" in out and "bids not scored" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--game", "nogame", "--bots", "heuristic"], "unknown game"),
        (["--game", "macao", "--bots", "heuristic"], "not a trick game"),
        (["--game", "whist", "--bots", "nobot"], "unknown bot"),
        (["--game", "whist", "--bots", "random", "-o", "deal_size=99"], "deal_size"),
        (["--game", "tarneeb", "--bots", "random", "--seat", "4"], "seats are 0..3"),
        (["--game", "whist", "--bots", "random", "--deals", "x"], "--deals"),
    ],
)
def test_bad_input_is_one_error_line_and_status_2(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        sys.exit(main(argv))
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and said in err[0]


def test_levata_regret_runs_the_same_command() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "regret", "--game", "macao", "--bots", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2 and run.stderr.startswith("error:") and "Traceback" not in run.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "regret", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert helped.returncode == 0 and "levata regret" in helped.stdout


def test_it_knows_no_game_by_name() -> None:
    """Generic over the trick base: no game's name in its code (docstrings aside)."""
    import levata.bots.regret as regret

    tree = ast.parse(Path(regret.__file__).read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    texts = {
        n.value.lower()
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    }
    names = {g.name for g in all_games()}
    assert not [t for t in texts for n in names if n in t.split()]
