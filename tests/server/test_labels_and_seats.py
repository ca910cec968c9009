"""Additive protocol: a match's ``label`` (CreateMatchRequest -> MatchStart) seeds the bots
of ``levata bot run``, so ``levata match --seed`` replays bot choices too; and a ``seat`` on
each event and match end lets one connection hold two seats of one match."""

from __future__ import annotations

import subprocess
import sys

from levata.server.match.store import Store

from live import LiveServer, bot_env, bot_process

CLI = [sys.executable, "-m", "levata.server.cli"]
MATCH = [*CLI, "match", "--game", "whist", "--bots", "random", "-n", "3", "-o", "deal_size=4"]
MATCH += ["--seed", "7", "--quiet"]
RUN = [sys.executable, "-m", "levata.bots", "run", "heuristic", "--game", "whist"]


def played(db) -> list[tuple[int, str]]:
    store = Store(db)
    (row,) = store.matches()
    assert row["label"] == "seed 7"
    return [(a["seat"], a["action"]) for a in store.actions(row["id"])]


def test_the_same_match_seed_twice_gives_the_same_bot_choices(tmp_path):
    runs = []
    for name in ("a", "b"):
        db = tmp_path / f"{name}.db"
        run = subprocess.run(
            [*MATCH, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert run.returncode == 0, run.stderr
        runs.append(played(db))
    assert runs[0] == runs[1] and len(runs[0]) > 12  # every bid and card alike


def test_one_connection_holds_two_seats_of_one_match(tmp_path):
    server = LiveServer(tmp_path / "twin.db")
    try:
        twin, other = server.add_bot("twin"), server.add_bot("other")
        proc = subprocess.Popen(
            [*RUN, "--server", server.address, "--matches", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=bot_env(twin),
        )
        bot_process("random", "whist", server, other)
        match_id = server.create("whist", ["twin", "other", "twin"], options={"deal_size": "3"})
        info = server.wait(match_id)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert sum(info.strikes) == 0 and not info.result.forfeited
        # one line per seat it held, each with that seat's own result
        assert f"match {match_id} seat 0: rank" in out and f"match {match_id} seat 2: rank" in out
        replies = server.store.replies(match_id)
        assert {r["seat"] for r in replies} == {0, 1, 2}
        assert all(r["outcome"] == "applied" for r in replies)
    finally:
        server.stop()


def test_a_submitted_bot_plays_a_tournament_alike_twice(tmp_path):
    """A tournament names each match TID/INDEX (MatchStart.label): a submitted bot seeds from
    the scheduled match, not from the referee's random id, so a second run (or a resumed or
    replayed one) is played alike."""
    from levata.server.tournament.store import TourneyStore

    (tmp_path / "rnd.toml").write_text('name = "rnd"\npython = "levata.bots.base:RandomBot"\n')
    choices = []
    for name in ("a", "b"):
        db = tmp_path / f"{name}.db"
        run = subprocess.run(
            [*CLI, "tournament", "--game", "whist", "-n", "3", "-o", "deal_size=3",
             "--bots", "rnd.toml,heuristic,random", "--deals", "1", "--sandbox", "none",
             "--db", str(db), "-q"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        tdb, store = TourneyStore(db), Store(db)
        (t,) = tdb.tournaments()
        rows = tdb.rows(t["id"])
        assert all(store.match(r["match_id"])["label"] == f"{t['id']}/{r['index']}" for r in rows)
        choices.append([[a["action"] for a in store.actions(r["match_id"])] for r in rows])
    assert choices[0] == choices[1] and len(choices[0]) == 6
