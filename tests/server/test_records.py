"""Tamper-evident records and a robust start, against a real ``levata tournament`` and
``levata serve`` and their real SQLite files.

Each test edits the file behind levata's back, as someone with write access to it would,
and shows that ``levata replay`` / ``levata report`` name what was changed (or, for a record
that cannot be taken up, that the referee starts anyway and says why it closed it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from levata.server.match import chain
from levata.server.match.store import Store
from levata.v1 import admin_pb2

from live import ServeProcess

BOTS = "heuristic,random,random"


def levata(*args: object, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "levata.server.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=180,
    )


def sql(db: Path, statement: str, *args: object) -> list[tuple]:
    """Edit or read the file as an intruder would: plain SQLite, no levata."""
    with contextlib.closing(sqlite3.connect(db)) as c:
        rows = c.execute(statement, args).fetchall()
        c.commit()
    return rows


def one_error_line(run: subprocess.CompletedProcess[str]) -> str:
    """The single ``error:`` line a command printed (no traceback)."""
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    return lines[0]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, str, str]:
    """An honest tournament (12 matches): its file, its id and the chain head it printed."""
    db = tmp_path_factory.mktemp("played") / "t.db"
    run = levata("tournament", "--game", "whist", "--bots", BOTS, "--deals", "2", "--db", db,
                 "--quiet")  # fmt: skip
    assert run.returncode == 0, run.stderr
    head = re.search(r"chain head ([0-9a-f]{32})", run.stdout)
    assert head, run.stdout
    (tid,) = sql(db, "SELECT id FROM tournaments")[0]
    return db, tid, head.group(1)


@pytest.fixture
def copy(played, tmp_path) -> tuple[Path, str, str]:
    """A copy of the honest tournament's file, to edit."""
    db, tid, head = played
    with (
        contextlib.closing(sqlite3.connect(db)) as src,
        contextlib.closing(sqlite3.connect(tmp_path / "t.db")) as dst,
    ):
        src.backup(dst)
    return tmp_path / "t.db", tid, head


def matches_of(db: Path) -> list[tuple[int, str, dict]]:
    rows = sql(db, "SELECT idx, match_id, result FROM tournament_matches ORDER BY idx")
    return [(i, m, json.loads(r)) for i, m, r in rows]


# -- (d) an honest tournament verifies ---------------------------------------------------------


def test_an_honest_tournament_verifies_match_by_match_and_as_a_whole(played):
    db, tid, head = played
    for _, match_id, _ in matches_of(db):
        run = levata("replay", match_id, "--db", db)
        assert run.returncode == 0, run.stderr
        assert "identical" in run.stdout and "hash chain verified" in run.stdout
    links = sql(db, "SELECT COUNT(*), COUNT(chain) FROM actions")[0]
    assert links[0] > 0 and links[0] == links[1]  # one link per action row
    report = levata("report", tid, "--db", db)
    assert report.returncode == 0, report.stderr
    verified = "records verified: 12 match record(s) and the tournament's hash chain"
    assert f"{verified}; chain head {head}" in report.stdout


# -- (a) a complete match rewritten as its winner's forfeit ------------------------------------


def _as_winners_forfeit(db: Path, match_id: str) -> int:
    """Rewrite a complete match as if its winner had struck out, as an intruder would:
    result, ranks, forfeited, strikes, all consistent with each other."""
    result, strikes = sql(db, "SELECT result, strikes FROM matches WHERE id = ?", match_id)[0]
    result, strikes = json.loads(result), json.loads(strikes)
    winner = result["ranks"].index(1)
    n = len(result["ranks"])
    result.update(
        reason="forfeit",
        forfeited=[winner],
        ranks=[n if i == winner else 1 for i in range(n)],
        winners=[i for i in range(n) if i != winner],
        detail=f"seat(s) {winner} reached 3 strikes",
        deals=[],
    )
    strikes[winner] = 3
    sql(db, "UPDATE matches SET result = ?, strikes = ? WHERE id = ?",
        json.dumps(result), json.dumps(strikes), match_id)  # fmt: skip
    return winner


def test_a_complete_match_rewritten_as_a_forfeit_is_named_not_identical(copy):
    db, _, _ = copy
    _, match_id, _ = matches_of(db)[0]
    _as_winners_forfeit(db, match_id)
    run = levata("replay", match_id, "--db", db)
    said = run.stdout + run.stderr
    assert run.returncode == 1, said
    assert "identical" not in said
    assert (
        "result differs: recorded as a forfeit" in said and "the replayed match is complete" in said
    )
    assert "strikes differ" in said  # 3 strikes, and no decision timed out
    assert "hash chain broken at the end of the match" in said
    assert "Traceback" not in said


def test_a_rewritten_match_resealed_by_the_intruder_still_fails(copy):
    """Whoever edits the file can recompute a match's seal; the replay still recomputes the
    result, and the tournament's chain (over the match's head) breaks at that match."""
    db, tid, _ = copy
    idx, match_id, _ = matches_of(db)[3]
    _as_winners_forfeit(db, match_id)
    last = sql(db, "SELECT chain FROM actions WHERE match_id = ? ORDER BY n DESC LIMIT 1",
               match_id)[0][0]  # fmt: skip
    status, result, strikes = sql(
        db, "SELECT status, result, strikes FROM matches WHERE id = ?", match_id
    )[0]
    resealed = chain.seal(bytes.fromhex(last), status, result, strikes).hex()
    sql(db, "UPDATE matches SET chain = ? WHERE id = ?", resealed, match_id)
    run = levata("replay", match_id, "--db", db)
    assert run.returncode == 1 and "result differs" in run.stderr
    assert "hash chain broken" not in run.stderr  # the seal was forged...
    report = levata("report", tid, "--db", db)
    assert report.returncode == 1
    assert (
        f"scheduled match {idx} ({match_id}): the tournament's hash chain breaks" in report.stderr
    )


# -- (b) the tournament's copy of a result -----------------------------------------------------


def test_an_edited_tournament_copy_is_found_by_replay_and_report(copy):
    """The standings read the tournament's copy: give the last-placed seat of one match
    the winner's score and rank there."""
    db, tid, head = copy
    before = levata("report", tid, "--db", db).stdout
    idx, match_id, result = matches_of(db)[5]
    best, worst = result["ranks"].index(1), result["ranks"].index(max(result["ranks"]))
    for key in ("scores", "ranks"):
        result[key][best], result[key][worst] = result[key][worst], result[key][best]
    sql(db, "UPDATE tournament_matches SET result = ? WHERE idx = ?",
        json.dumps(result, sort_keys=True), idx)  # fmt: skip
    replay = levata("replay", match_id, "--db", db)
    assert replay.returncode == 1
    assert f"tournament {tid}'s copy (scheduled match {idx}) differs: scores:" in replay.stderr
    assert "(the match's own record: identical" in replay.stderr  # the record itself holds
    report = levata("report", tid, "--db", db)
    assert report.returncode == 1 and "Traceback" not in report.stderr
    assert report.stdout != before  # the standings did move...
    where = f"records: scheduled match {idx} ({match_id}): the tournament's"
    assert f"{where} hash chain breaks" in report.stderr
    assert f"{where} copy differs from the record: scores:" in report.stderr
    last = report.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: tournament {tid}: records do not verify")
    assert head not in report.stdout


# -- (c) one action row ------------------------------------------------------------------------


def test_an_edited_action_row_breaks_the_chain_at_that_row(copy):
    """A clock of a turn-based game changes nothing a replay sees: only the chain can tell."""
    db, _, _ = copy
    _, match_id, _ = matches_of(db)[2]
    sql(db, "UPDATE actions SET clock_ms = clock_ms + 1 WHERE match_id = ? AND n = 2", match_id)
    run = levata("replay", match_id, "--db", db)
    assert run.returncode == 1
    assert run.stderr.strip() == "hash chain broken at action 2 (n=2)"
    # a deleted row too: the chain breaks at the row after it
    sql(db, "DELETE FROM actions WHERE match_id = ? AND n = 2", match_id)
    assert Store(db).verify_chain(match_id).where == "action 2 (n=3)"


# -- (f) unfinished records that cannot be taken up --------------------------------------------

#: How each waiting match's record is broken while the referee is down, and what the
#: reason it is closed with says.
BREAKS = {
    "bad option value": ("UPDATE matches SET options = '{\"deal_size\": \"99\"}' WHERE id = ?",
                         "deal_size: 99 is above 8"),
    "options not JSON": ("UPDATE matches SET options = '{\"deal_size\": ' WHERE id = ?",
                         "the options of its row is not valid JSON"),
    "seat record not JSON": ("UPDATE matches SET seats = '{\"banks\": [1' WHERE id = ?",
                             "the seats of its row is not valid JSON"),
    "bots not a list": ("UPDATE matches SET seat_bots = '\"solo\"' WHERE id = ?",
                        "the seat_bots of its row is not a JSON list"),
    "too few bots": ("UPDATE matches SET seat_bots = '[\"solo\"]' WHERE id = ?",
                     "its row names 1 bots for 3 seats"),
    "policy of text": ("UPDATE matches SET policy = '{\"move_ms\": \"fast\"}' WHERE id = ?",
                       "its policy's move_ms is not a whole number"),
    "unknown game": ("UPDATE matches SET game = 'no-such-game' WHERE id = ?", "no-such-game"),
    "action not a card": ("INSERT INTO actions VALUES (?, 0, 0, 'ZZ', 5, 0, 'r', NULL)",
                          "its record does not replay"),
    "event not JSON": ("INSERT INTO events VALUES (?, 999, 'x', NULL, NULL, '[', '{}')",
                       "its record does not replay"),
}  # fmt: skip


def test_every_unresumable_record_is_closed_as_aborted_and_the_referee_starts(tmp_path):
    serve = ServeProcess(tmp_path)
    serve.register("solo")
    ids = {name: serve.create("whist", ["solo"] * 3, options={"deal_size": "3"})
           for name in [*BREAKS, "untouched"]}  # fmt: skip
    serve.proc.send_signal(signal.SIGKILL)  # each left waiting for its bot
    serve.proc.wait()
    for name, (statement, _) in BREAKS.items():
        sql(serve.db, statement, ids[name])

    again = ServeProcess(tmp_path, db=serve.db, port=serve.port)
    try:
        said = again.output()
        assert "Traceback" not in said
        assert f"match {ids['untouched']} resumed from its record" in said
        page = again.admin.ListMatches(admin_pb2.ListMatchesRequest())
        listed = {m.match_id: m for m in page.matches}
        assert len(listed) == len(ids)  # every record can be listed
        for name, (_, reason) in BREAKS.items():
            match_id = ids[name]
            line = next(x for x in said.splitlines() if x.startswith(f"match {match_id} "))
            assert line.startswith(f"match {match_id} closed as aborted: cannot resume"), name
            assert reason in line, (name, line)
            info = again.info(match_id)
            assert info.status == admin_pb2.MATCH_STATUS_ABORTED, name
            assert reason in info.status_detail and listed[match_id].status == info.status
            run = levata("replay", match_id, "--db", again.db)
            assert "Traceback" not in run.stderr
            assert "aborted: cannot resume after a restart: " in run.stdout + run.stderr, name
    finally:
        again.stop()


#: A finished match's row broken behind the referee's back -> what the admin view must name.
FINISHED_BREAKS = {
    "result not JSON": ("UPDATE matches SET result = '{\"scores\": [' WHERE id = ?",
                        "the result of its row is not valid JSON"),
    "policy not JSON": ("UPDATE matches SET policy = 'fast' WHERE id = ?",
                        "the policy of its row is not valid JSON"),
    "policy of text": ("UPDATE matches SET policy = '{\"move_ms\": \"fast\"}' WHERE id = ?",
                       "TypeError"),
}  # fmt: skip


def stored(info: admin_pb2.MatchInfo) -> admin_pb2.MatchInfo:
    """``info`` without what only a referee that played the match adds (result details)."""
    copy = admin_pb2.MatchInfo()
    copy.CopyFrom(info)
    copy.result.ClearField("details")
    return copy


def test_a_broken_finished_record_is_listed_as_unreadable_and_the_others_as_before(tmp_path):
    serve = ServeProcess(tmp_path)
    again = None
    try:
        serve.register("absent")  # never connects: each match ends at its start-up allowance
        ids = {name: serve.create("whist", ["absent"] * 3, startup_ms=100)
               for name in [*FINISHED_BREAKS, "untouched", "also untouched"]}  # fmt: skip
        for match_id in ids.values():
            assert serve.wait(match_id).status == admin_pb2.MATCH_STATUS_FINISHED
        before = {m.match_id: m for m in serve.admin.ListMatches(admin_pb2.ListMatchesRequest())
                  .matches}  # fmt: skip
        serve.stop()
        for name, (statement, _) in FINISHED_BREAKS.items():
            sql(serve.db, statement, ids[name])

        again = ServeProcess(tmp_path, db=serve.db, port=serve.port)
        assert "Traceback" not in again.output()
        page = again.admin.ListMatches(admin_pb2.ListMatchesRequest())  # was: the call failed
        listed = {m.match_id: m for m in page.matches}
        assert set(listed) == set(ids.values())
        for name, (_, names) in FINISHED_BREAKS.items():
            info = listed[ids[name]]
            assert info.status == admin_pb2.MATCH_STATUS_FINISHED, name  # as stored
            assert info.status_detail.startswith(f"unreadable record: match {ids[name]}"), info
            assert names in info.status_detail, (name, info.status_detail)
            assert info.game == "whist" and info.players == 3, info
            assert again.info(ids[name]) == info  # GetMatch says the same, not an error
        for name in ("untouched", "also untouched"):  # listed as before
            assert stored(listed[ids[name]]) == stored(before[ids[name]]), name
            assert again.info(ids[name]) == listed[ids[name]], name
        assert again.proc.poll() is None
    finally:
        serve.stop()
        if again is not None:
            again.stop()


# -- (g) replay and export on malformed rows ---------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "names"),
    [
        ("UPDATE events SET data = '{\"oops' WHERE match_id = ? AND seq = 3",
         "the data of event 3 is not valid JSON"),
        ("UPDATE events SET cards = 'AS' WHERE match_id = ? AND seq = 0",
         "the cards of event 0 is not valid JSON"),
        ("UPDATE matches SET result = '{' WHERE id = ?", "the result of its row is not valid JSON"),
        ("UPDATE matches SET options = '[1, 2]' WHERE id = ?",
         "the options of its row is not a JSON object"),
        ("UPDATE matches SET strikes = 'none' WHERE id = ?",
         "the strikes of its row is not valid JSON"),
    ],
    ids=["event data", "event cards", "result", "options", "strikes"],
)  # fmt: skip
def test_replay_and_export_name_a_malformed_row_in_one_line(copy, statement, names):
    db, _, _ = copy
    _, match_id, _ = matches_of(db)[1]
    sql(db, statement, match_id)
    for command in ("replay", "export"):
        run = levata(command, match_id, "--db", db)
        assert run.returncode == 1, (command, run.stderr)
        line = one_error_line(run)
        assert f"match {match_id}: {names}" in line, line


def test_report_names_a_malformed_tournament_row_in_one_line(copy):
    db, tid, _ = copy
    idx, match_id, _ = matches_of(db)[4]
    sql(db, "UPDATE tournament_matches SET result = '{\"scores\": [1' WHERE idx = ?", idx)
    report = levata("report", tid, "--db", db)
    assert report.returncode == 1
    line = one_error_line(report)
    assert f"tournament {tid}, scheduled match {idx}: its result is not a JSON object" in line
    replay = levata("replay", match_id, "--db", db)  # the record holds; the copy does not
    assert replay.returncode == 1 and "Traceback" not in replay.stderr
    assert f"scheduled match {idx}: its copy is not a JSON object" in replay.stderr


# -- (h) a file the referee cannot write -------------------------------------------------------


def _refused(run: subprocess.CompletedProcess[str], db: Path) -> str:
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    line = one_error_line(run)
    assert line.startswith(f"error: cannot open the records at {db} for writing: "), line
    return line


def _start_both(db: Path, token: Path, prefix: tuple[str, ...] = ()) -> list[str]:
    """``levata serve`` and ``levata tournament`` on ``db``: each refuses in one line."""
    serve = levata("serve", "--port", "0", "--db", db, "--admin-token-file", token, prefix=prefix)
    tour = levata("tournament", "--game", "whist", "--bots", BOTS, "--deals", "1", "--db", db,
                  "--quiet", "--fresh", prefix=prefix)  # fmt: skip
    return [_refused(serve, db), _refused(tour, db)]


def test_a_directory_in_place_of_the_file_is_refused(tmp_path):
    (tmp_path / "x.db").mkdir()
    for line in _start_both(tmp_path / "x.db", tmp_path / "token"):
        assert "unable to open database file" in line


def test_a_file_locked_by_another_process_is_refused(tmp_path):
    db = tmp_path / "locked.db"
    Store(db).close()
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")  # another program writing, for longer than 5 s
        for line in _start_both(db, tmp_path / "token"):
            assert "database is locked" in line


UNPRIVILEGED = ("setpriv", "--reuid", "420000", "--regid", "420000", "--clear-groups")


@pytest.fixture(scope="module")
def as_another_user() -> None:
    """Say why, in one line, when that user cannot import levata at all (a checkout in a
    folder only root may enter, as ``mktemp -d`` makes): the tests below would fail on the
    import, far from the reason."""
    run = subprocess.run(
        [*UNPRIVILEGED, sys.executable, "-c", "import levata.server"],
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0:
        said = (run.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        pytest.fail(
            "uid 420000 cannot import levata from this checkout (every folder above it must"
            f" be readable by others, e.g. chmod 755): {said}",
            pytrace=False,
        )


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the referee as another user")
@pytest.mark.parametrize("what", ["read-only file", "read-only folder"])
@pytest.mark.usefixtures("as_another_user")
def test_a_file_its_user_cannot_write_is_refused(what):
    """As an ordinary user (root writes through file modes), in a folder that user can
    reach (pytest's own are root's only)."""
    top = Path(tempfile.mkdtemp(prefix="levata-records-"))
    try:
        _refused_as_user(top, what)
    finally:
        shutil.rmtree(top)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the referee as another user")
@pytest.mark.usefixtures("as_another_user")
def test_a_folder_its_user_cannot_enter_is_refused(tmp_path):
    db = tmp_path / "r.db"  # pytest's folders are root's only
    serve = levata("serve", "--port", "0", "--db", db, prefix=UNPRIVILEGED)
    tour = levata("tournament", "--game", "whist", "--bots", BOTS, "--db", db, prefix=UNPRIVILEGED)
    for run in (serve, tour):
        assert run.returncode == 2
        line = one_error_line(run)
        why = f"cannot reach the folder {tmp_path}: Permission denied"
        assert line == f"error: cannot open the database {db}: {why}"


def _refused_as_user(top: Path, what: str) -> None:
    top.chmod(0o755)
    folder = top / "records"
    folder.mkdir()
    db = folder / "r.db"
    Store(db).close()
    os.chown(db, 420000, 420000)
    token = top / "tokens"
    token.mkdir()
    os.chown(token, 420000, 420000)
    if what == "read-only file":
        os.chown(folder, 420000, 420000)
        db.chmod(0o444)
    else:  # SQLite cannot make the file's -wal and -shm beside it
        folder.chmod(0o755)  # root's: the user cannot write in it
    for line in _start_both(db, token / "admin", prefix=UNPRIVILEGED):
        assert "readonly database" in line or "unable to open database file" in line, line


def test_a_full_disk_is_refused(tmp_path):
    """A fresh file on a file system with no room (a tmpfs of the test's own, in a mount
    namespace made with unshare)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    full = 'mount -t tmpfs -o size=64k tmpfs "$0" && (cat /dev/zero > "$0/fill" 2>/dev/null;'
    full += ' exec "$@")'
    prefix = ("unshare", "-Urm", "sh", "-c", full, str(disk))
    for line in _start_both(disk / "r.db", tmp_path / "token", prefix=prefix):
        assert "No space left on device" in line or "disk is full" in line, line
