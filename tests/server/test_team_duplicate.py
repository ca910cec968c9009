"""A team game's duplicate tournament over the real referee: Tarneeb's own partnerships (its
``teams`` trait) seat each entry in both seats of a team, every board (one deal, its
``duplicate_unit``) is played at two tables with the teams swapped, and the standings compare
the entries by team score on the same cards."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from levata.engine import game
from levata.server.match.store import Store
from levata.server.tournament.report import standings_of
from levata.server.tournament.store import TourneyStore

CLI = [sys.executable, "-m", "levata.server.cli"]
GAME = "tarneeb"


def test_two_table_duplicate_of_a_team_game(tmp_path):
    db = tmp_path / "t.db"
    run = subprocess.run(
        [*CLI, "tournament", "--game", GAME, "--bots", "heuristic,random", "--deals", "2",
         "--db", str(db)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "teams of seats 0+2, 1+3, two-table" in run.stdout
    tdb = TourneyStore(db)
    (t,) = tdb.tournaments()
    tid = t["id"]
    rows = tdb.rows(tid)
    assert len(rows) == 4  # 2 boards x 2 tables
    store = Store(db)
    h, r = f"{tid}/heuristic", f"{tid}/random"
    diffs = []
    for one, two in (rows[0:2], rows[2:4]):
        assert one["seed"] == two["seed"] and one["options"] == two["options"]
        assert "deal" in one["options"]  # a board is one deal
        assert store.match(one["match_id"])["seat_bots"] == [f"{h}.1", f"{r}.1", f"{h}.2", f"{r}.2"]
        assert store.match(two["match_id"])["seat_bots"] == [f"{r}.1", f"{h}.1", f"{r}.2", f"{h}.2"]
        for row in (one, two):
            scores = row["result"]["scores"]
            assert scores[0] == scores[2] and scores[1] == scores[3]  # one score per team
        # heuristic sits at seats 0+2 at table one, 1+3 at table two: the same cards
        diffs.append(
            (one["result"]["scores"][0] - one["result"]["scores"][1])
            + (two["result"]["scores"][1] - two["result"]["scores"][0])
        )
    st = standings_of(tdb, tid, resamples=50)
    per_deal = sum(diffs) / 4  # each of the 4 matches is one deal
    assert st.pair("heuristic", "random").diff.value == pytest.approx(per_deal)
    assert game(GAME).duplicate_unit == "deal"
