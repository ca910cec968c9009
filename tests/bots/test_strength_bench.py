"""benchmarks/strength.py: each side of a pair is credited with the scores, bids and costs of
the seats it held."""

import importlib.util
import sys
from pathlib import Path

import pytest

from levata.bots import play_match
from levata.bots.base import make_bot, parse_bot
from levata.engine import game
from levata.engine.seeds import derive

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # it reads duplicate_series' interval
    spec = importlib.util.spec_from_file_location("strength", BENCHMARKS / "strength.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "strength", module)  # its dataclass looks itself up
    spec.loader.exec_module(module)
    return module


def test_a_pair_of_entries_is_credited_seat_by_seat(bench):
    pair = ("pimc:worlds=2:time_ms=0:min_worlds=2", "heuristic")
    teams = bench.table_teams("whist", 4, "0+2,1+3")
    job = ("whist", 4, 3, 11, pair, 100.0, {"deal_size": 3}, None, teams)
    board = bench.play_board(job)
    scores, bids = [0.0, 0.0], ([0, 0, 0], [0, 0, 0])
    for k, seating in enumerate(bench.seatings(4, teams)):
        bots = []
        for s, who in enumerate(seating):
            kind, options = parse_bot(pair[who], "whist")
            bots.append(make_bot(kind, "whist", seed=derive(11, 3, k, s), **options))
        state = game("whist").new_match(players=4, options={"deal_size": 3}, seed=derive(11, 3))
        result = play_match(state, bots)
        record = result.deals[0]
        for s, who in enumerate(seating):
            scores[who] += result.scores[s] / 4  # two seats in each of two seatings
            took, bid = record["tricks"][s], record["bids"][s]
            bids[who][0 if took == bid else 1 if took > bid else 2] += 1
    assert board.scores == pytest.approx(scores)
    assert board.bids == bids
    assert board.worlds[0] and set(board.worlds[0]) == {2}  # pimc tells its worlds
    assert len(board.cpu[0]) == len(board.worlds[0]) and board.cpu[1] and not board.worlds[1]
