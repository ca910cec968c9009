"""Each failure of issue 34's list is one ``error:`` line, no traceback, status 2 for bad
input and 1 at run time; run in this process (the entry point ``main``), where a
subprocess would only be slower."""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest

from levata.server.database import adopt
from levata.server.match.store import Store
from levata.server.tournament.store import TourneyStore


def one_error_line(status: int, err: str, expected: int) -> str:
    assert status == expected, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture
def records(tmp_path):
    """A levata database with nothing in it yet."""
    db = tmp_path / "levata.db"
    TourneyStore(db).close()
    return db


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("report", "latest", "--html", "/nonexistent/dir/r.html"),
         "--html /nonexistent/dir/r.html: cannot write it (no folder /nonexistent/dir)"),
        (("report", "latest", "--json", "{tmp}/levata.db/r.json"),
         "--json {tmp}/levata.db/r.json: cannot write it ({tmp}/levata.db is not a folder)"),
        (("report", "latest", "--json", "{tmp}"), "--json {tmp}: it is a folder, not a file"),
        (("export", "m1", "-o", "/nonexistent/m.json"), "cannot write it (no folder /nonexistent)"),
    ],
)  # fmt: skip
def test_an_output_that_cannot_be_written(args, says, records, levata_cli):
    tmp = str(records.parent)
    args = tuple(a.replace("{tmp}", tmp) for a in args)
    status, _, err = levata_cli(*args, "--db", records)
    assert says.replace("{tmp}", tmp) in one_error_line(status, err, 2)


def test_a_tournament_checks_its_html_before_it_starts(tmp_path, levata_cli):
    db = tmp_path / "t.db"
    status, out, err = levata_cli(
        "tournament", "--game", "whist", "--bots", "heuristic,random,random",
        "--db", db, "--html", tmp_path / "no" / "r.html",
    )  # fmt: skip
    assert "cannot write it (no folder" in one_error_line(status, err, 2)
    assert not db.exists() and "tournament" not in out  # nothing was played


BOTS = """
from levata.engine import Action


def boom(view, legal):
    raise ValueError("no idea")


def word(view, legal):
    return "bid 1"


def overbid(view, legal):
    return Action("bid", number=99)
"""


@pytest.mark.parametrize(
    ("bot", "says"),
    [
        ("boom", "raised ValueError: no idea"),
        ("word", "returned 'bid 1', not one of its legal actions"),
        ("overbid", "chose an illegal action bid 99"),
    ],
)
def test_play_names_the_bot_the_seat_and_the_exception(bot, says, tmp_path, monkeypatch,
                                                        levata_cli):  # fmt: skip
    module = f"faulty_{bot}"
    (tmp_path / f"{module}.py").write_text(BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        args = ("play", "--game", "whist", "--bots", f"heuristic,{module}:{bot},random", "-q")
        line = one_error_line(*levata_cli(*args)[::2], 1)
        assert line == f"error: bot {module}:{bot} at seat 1 {says}" or line.startswith(
            f"error: bot {module}:{bot} at seat 1 {says}:"
        )
        status, _, err = levata_cli(*args, "--debug")  # the whole traceback first
        assert status == 1 and "Traceback" in err
        assert (f"faulty_{bot}.py" in err) == (bot == "boom")  # where it raised, if it did
        assert err.strip().splitlines()[-1] == line
    finally:
        sys.modules.pop(module, None)


@pytest.mark.parametrize("command", ["play", "match"])
def test_one_seed_range(command, levata_cli):
    line = one_error_line(*levata_cli(command, "--game", "whist", "--seed", "-1")[::2], 2)
    assert "Invalid value for '--seed'" in line and f"levata {command} --help" in line


def test_a_database_levata_did_not_create_is_refused(tmp_path, levata_cli):
    books = tmp_path / "books.db"
    with sqlite3.connect(books) as db:
        db.execute("CREATE TABLE invoices (n INTEGER)")
    for args in (("report", "latest"), ("replay", "m1")):
        line = one_error_line(*levata_cli(*args, "--db", books)[::2], 2)
        assert "is a database levata did not create (its tables: invoices)" in line
        assert "--adopt-db" in line
    with sqlite3.connect(books) as db:  # untouched
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["invoices"]
        assert db.execute("PRAGMA user_version").fetchone() == (0,)
    adopt(books)  # what --adopt-db asks for
    Store(books).close()
    with sqlite3.connect(books) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert {"invoices", "matches"} <= tables


CRASH = '''
import os


class Crash:
    """Dies, status 1, when first asked to act."""

    name = "crash"

    def __init__(self, game="", seed=0):
        pass

    def act(self, view, legal):
        os._exit(1)
'''


def test_match_records_a_crash_names_each_forfeit_and_every_log(tmp_path, monkeypatch,
                                                                 levata_cli):  # fmt: skip
    (tmp_path / "crashing.py").write_text(CRASH)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    temp = tmp_path / "tmp"  # this test's own: other runs share the machine's /tmp
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    db = tmp_path / "m.db"
    try:
        status, out, err = levata_cli(
            "match", "--game", "whist", "--bots", "heuristic,crashing:Crash,random",
            "-o", "deal_size=1", "--db", db, "-q",
        )  # fmt: skip
    finally:
        sys.modules.pop("crashing", None)
    assert status == 0, err
    assert re.search(r"│ 1 +│ crashing:Crash .*│ forfeit: crashed, exit 1 │", out), out
    logs = re.findall(r"bot log of seat (\d) \((\S+)\): (\S+)", out)
    assert [(s, n) for s, n, _ in logs] == [
        ("0", "heuristic"), ("1", "crashing:Crash"), ("2", "random"),
    ]  # fmt: skip
    assert all(Path(p).is_file() and Path(p).is_relative_to(tmp_path) for _, _, p in logs)
    assert not list(temp.iterdir())  # no levata-bots-* folder left behind
    match_id = out.split("levata replay ")[1].split()[0]
    status, out, err = levata_cli("export", match_id, "--db", db, "-o", "-")
    assert status == 0, err
    record = json.loads(out)  # stdout is the record alone: no file named "-"
    assert record["match"]["result"]["detail"] == "seat(s) 1 crashed, exit 1"
    assert not (tmp_path / "-").exists()
