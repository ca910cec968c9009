"""``levata ladder``: ratings kept across tournaments for the same entries, with their
uncertainty, in the results database, and shown in the tournament's report."""

from __future__ import annotations

import json
import sqlite3

import pytest

from levata.server.cli import main
from levata.server.tournament.entries import Entry
from levata.server.tournament.ladder import Ladder
from levata.server.tournament.schedule import ScheduledMatch
from levata.server.tournament.spec import TournamentSpec
from levata.server.tournament.store import TourneyStore


def _tournament(db, tid: str, winner: str, loser: str, matches: int = 4, finish: bool = True):
    """A finished tournament of Sixty-six in ``db`` where ``winner`` finishes ahead every time."""
    store = TourneyStore(db)
    names = [winner, loser]
    schedule = [
        ScheduledMatch(i, i // 2, 0, i % 2, 100 + i, tuple(names[::-1] if i % 2 else names), {})
        for i in range(matches)
    ]
    entries = [Entry(n, "bot", bot="random") for n in names]
    spec = TournamentSpec("sixty-six", 2, entries, format="roundrobin", deals=matches).to_dict()
    store.create(tid, spec, schedule)
    for m in schedule:
        store.start(tid, m.index, f"{tid}-m{m.index}")
        ranks = [1, 2] if m.seats[0] == winner else [2, 1]
        result = {"scores": [5, -1] if ranks[0] == 1 else [-1, 5], "ranks": ranks, "forfeited": []}
        store.finish(tid, m.index, f"{tid}-m{m.index}", {**result, "deals": 1})
    if finish:
        store.set_finished(tid)
    store.close()


def _levata(*args: str) -> int:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    return int(done.value.code or 0)


def test_a_ladder_keeps_ratings_across_tournaments(tmp_path, capsys):
    db = tmp_path / "results.db"
    _tournament(db, "t1", "alpha", "beta")
    _tournament(db, "t2", "beta", "gamma")
    assert _levata("ladder", "weekly", "t1", "--db", str(db)) == 0
    first = {r.entry: r for r in Ladder(db).table("weekly")}
    assert first["alpha"].ordinal > first["beta"].ordinal and first["alpha"].matches == 4
    assert (
        _levata("ladder", "weekly", "t2", "--db", str(db), "--json", str(tmp_path / "l.json")) == 0
    )
    text = capsys.readouterr().out
    assert "added t2 to ladder weekly: 4 matches rated" in text and "gamma" in text
    table = json.loads((tmp_path / "l.json").read_text())
    rows = {r["entry"]: r for r in table["ratings"]}
    # beta carried its rating from t1 into t2: more matches, less uncertainty, and it moved
    assert rows["beta"]["matches"] == 8 and rows["beta"]["tournaments"] == 2
    assert rows["beta"]["sigma"] < first["beta"].sigma and rows["beta"]["change"] > 0
    assert rows["gamma"]["change"] is None and rows["gamma"]["new"]
    assert rows["alpha"]["change"] is None and not rows["alpha"]["new"]  # not in t2
    assert [t["tournament_id"] for t in table["tournaments"]] == ["t1", "t2"]


def test_a_tournament_joins_a_ladder_once_and_only_when_finished(tmp_path, capsys):
    db = tmp_path / "results.db"
    _tournament(db, "t1", "alpha", "beta")
    _tournament(db, "t2", "alpha", "beta", finish=False)
    assert _levata("ladder", "weekly", "t1", "--db", str(db)) == 0
    capsys.readouterr()
    assert _levata("ladder", "weekly", "t1", "--db", str(db)) == 2
    assert capsys.readouterr().err.strip() == "error: tournament t1 is in ladder weekly already"
    assert _levata("ladder", "weekly", "t2", "--db", str(db)) == 2
    assert "t2 is not finished" in capsys.readouterr().err
    assert _levata("ladder", "other", "--db", str(db)) == 2
    assert "no ladder 'other'" in capsys.readouterr().err
    assert _levata("ladder", "weekly", "--db", str(db), "--json", "/no/such/dir/l.json") == 1
    assert capsys.readouterr().err.startswith("error: cannot write /no/such/dir/l.json")


def test_the_report_shows_the_ladders_a_tournament_is_in(tmp_path, capsys):
    db = tmp_path / "results.db"
    _tournament(db, "t1", "alpha", "beta")
    _levata("report", "t1", "--db", str(db), "--resamples", "10")
    assert "ladder" not in capsys.readouterr().out
    with sqlite3.connect(db) as plain:  # a report reads: no ladder tables made
        tables = {r[0] for r in plain.execute("SELECT name FROM sqlite_master")}
    assert not any(t.startswith("ladder") for t in tables)
    assert _levata("ladder", "weekly", "t1", "--db", str(db)) == 0
    capsys.readouterr()
    page = tmp_path / "report.html"
    _levata("report", "t1", "--db", str(db), "--resamples", "10", "--html", str(page))
    text = capsys.readouterr().out
    assert "ladder weekly: 1 tournament" in text and "mu ± sigma" in text
    html = page.read_text()
    assert '<a href="#ladders">Ladders</a>' in html and "<h3>weekly: 1 tournament</h3>" in html
    assert "<b>alpha</b>" in html
