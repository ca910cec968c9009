"""PostgreSQL as the records' database, on a real server (``tests/postgres.py``): the same
tournament gives the same records as on an SQLite file, writers in several processes at once
lose and double nothing, and a server that cannot be reached is one error line.

The stores' own tests run on both kinds too (``test_database.py``'s ``database`` fixture).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from levata.engine import Event
from levata.server import postgres
from levata.server.match.store import Store
from levata.server.tournament.spec import build_spec
from levata.server.tournament.store import TourneyStore


def levata(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "levata.server.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def played(db) -> tuple[dict, dict]:
    """The standings of the one tournament in ``db`` and every match's record, by schedule
    index (ids and times aside)."""
    tdb, store = TourneyStore(db), Store(db)
    (t,) = tdb.tournaments()
    rows = tdb.rows(t["id"])
    records = {}
    for r in rows:
        m = store.match(r["match_id"])
        events = [(e["seq"], e["kind"], e["cards"], e["data"]) for e in store.events(m["id"])]
        actions = [(a["n"], a["seat"], a["action"]) for a in store.actions(m["id"])]
        records[r["index"]] = (m["seed"], m["status"], m["result"], events, actions)
    checks = [store.verify_chain(r["match_id"]).state for r in rows]
    store.close()
    tdb.close()
    assert set(checks) == {"verified"}, checks
    return {r["index"]: r["result"]["scores"] for r in rows}, records


def test_a_tournament_on_postgres_is_the_tournament_on_a_file(postgres_server, tmp_path):
    url = postgres_server.fresh()
    spec = ("--game", "macao", "--bots", "heuristic,random", "--deals", "2", "--seed", "11")
    standings = []
    for db in (tmp_path / "t.db", url):
        run = levata("tournament", *spec, "--db", db)
        assert run.returncode == 0, run.stderr
        assert "records verified" in run.stdout
        report = levata("report", "latest", "--db", db, "--json", tmp_path / "s.json")
        assert report.returncode == 0, report.stderr
        standings.append(json.loads((tmp_path / "s.json").read_text())["standings"])
    assert standings[0] == standings[1]
    assert played(tmp_path / "t.db") == played(url)


WRITER = textwrap.dedent(
    """
    import sys
    from levata.engine import Event
    from levata.server.match.store import Store
    from levata.server.tournament.store import TourneyStore

    url, tid, first, step, n = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
    t, s = TourneyStore(url), Store(url)
    for idx in range(first, n, step):
        mid = f"{tid}-{idx}"
        s.create_match(mid, "whist", 3, {}, idx, ["a", "b", "c"], {})
        s.add_events(mid, [Event(seq=q, kind="k", data={"q": q}) for q in range(20)])
        result = {"scores": [1.0, 0.0, -1.0], "ranks": [1, 2, 3], "reason": "complete"}
        s.finish(mid, "finished", result, [0, 0, 0])
        s.flush(force=True)
        t.start(tid, idx, mid)
        t.finish(tid, idx, mid, {**result, "match_id": mid, "forfeited": [], "deals": 0,
                                 "strikes": [0, 0, 0], "detail": ""})
    """
)


def test_writers_in_several_processes_lose_and_double_nothing(postgres_server):
    url = postgres_server.fresh()
    spec = build_spec("whist", "heuristic,random,pimc", deals=4, seed=3, seating="rotate")
    schedule = spec.schedule()
    tdb = TourneyStore(url)
    tdb.create("tpar", spec.to_dict(), schedule)
    writers = 4
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, "tpar", str(w), str(writers), str(len(schedule))],
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read() if p.stderr else ""
    rows = tdb.rows("tpar")
    assert [r["status"] for r in rows] == ["finished"] * len(schedule)
    _, head, links = tdb.chain_rows("tpar")
    assert head is not None
    seqs = sorted(link[4] for link in links)  # one link each, numbered without gap or repeat
    assert seqs == list(range(1, len(schedule) + 1)), seqs
    store = Store(url)
    for r in rows:
        assert store.event_count(r["match_id"]) == 20
        assert store.verify_chain(r["match_id"]).state == "verified"
    assert len(store.match_page(None, 1000)) == len(schedule)
    store.close()
    report = levata("report", "tpar", "--db", url)
    assert report.returncode == 0, report.stderr
    assert "hash chain" in report.stdout and "broken" not in report.stdout, report.stdout


def test_a_row_that_breaks_a_key_is_dropped_and_the_rest_written(database):
    """As on a file: one bad row of a flush is named and skipped; the rest of it is kept."""
    store = Store(database)
    store.create_match("m1", "whist", 3, {}, 1, ["a", "b", "c"], {})
    events = [Event(seq=q, kind="k") for q in (0, 1, 1, 2)]  # seq 1 twice: the key breaks
    store.add_events("m1", events)
    store.flush(force=True)
    assert [e["seq"] for e in store.events("m1")] == [0, 1, 2]
    store.close()


def test_a_server_that_cannot_be_reached_is_one_error_line(postgres_server):
    url = postgres_server.url().replace(str(postgres_server.port), "1")  # nobody listens
    tournament = ("tournament", "--game", "macao", "--bots", "random,random")
    for args in (("report", "latest"), tournament):
        run = levata(*args, "--db", url)
        lines = run.stderr.strip().splitlines()
        assert run.returncode in (1, 2) and len(lines) == 1, run.stderr
        assert lines[0].startswith("error:") and "Traceback" not in run.stderr


def test_a_database_levata_did_not_create_is_refused_on_a_server_too(postgres_server):
    url = postgres_server.fresh()
    with postgres.connect(url) as db:
        db.execute("CREATE TABLE invoices (n INTEGER)")
    run = levata("tournament", "--game", "macao", "--bots", "random,random", "--db", url)
    assert run.returncode == 2, run.stderr
    assert "is a database levata did not create (its tables: invoices)" in run.stderr
    with postgres.connect(url) as db:
        assert db.table_names() == {"invoices"}  # untouched: no version table, no store's
