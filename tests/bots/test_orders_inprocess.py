"""benchmarks/orders_inprocess.py: each entry's rank is read from the seat it held."""

import importlib.util
from pathlib import Path

from levata.bots import play_match
from levata.bots.base import make_bot
from levata.engine import game

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "orders_inprocess.py"


def _bench():
    spec = importlib.util.spec_from_file_location("orders_inprocess", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_entry_gets_the_rank_of_its_seat_in_every_rotation():
    bench = _bench()
    table = ["heuristic", "random", "random"]
    for rot in range(3):
        deal, order, got_rot, ranks, _ = bench.one_game(("huzur", table, 7, 1, rot))
        assert (deal, order, got_rot) == (7, 1, rot)
        seat = (0 + rot) % 3  # where the heuristic, the table's first entry, sat
        bots = [make_bot(table[(s - rot) % 3], "huzur", seed=7 * 100 + s) for s in range(3)]
        result = play_match(game("huzur").new_match(players=3, seed=7), bots)
        assert ranks[0] == result.ranks[seat]
        assert sorted(ranks) == sorted(result.ranks)
