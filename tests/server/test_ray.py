"""A tournament on a real Ray cluster (a head and a worker node, started here on loopback by
Ray's own ``Cluster``): the same spec gives the same standings, match for match, as a local
run; a worker node killed mid-run loses no result and records none twice."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from levata.server.tournament.on_ray import GCS_WAIT, LOCAL_GCS_WAIT_S
from levata.server.tournament.store import TourneyStore

SPEC = ("--game", "macao", "--bots", "heuristic,random", "--deals", "6", "--seed", "17")


def levata(*args: object, **kw) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def results(db) -> tuple[dict, list]:
    tdb = TourneyStore(db)
    (t,) = tdb.tournaments()
    rows = tdb.rows(t["id"])
    attempts = tdb.attempts(t["id"])
    tdb.close()
    by_index = {r["index"]: (r["seed"], r["seats"], r["result"]["scores"]) for r in rows}
    assert all(r["status"] == "finished" for r in rows)
    return by_index, attempts


@pytest.fixture
def cluster(monkeypatch):
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine
    # A head starting beside a busy test run (2 cores, every xdist worker) was seen to take
    # over Ray's default 30 s to publish its GCS port: wait as long as a local run does.
    monkeypatch.setenv(GCS_WAIT, LOCAL_GCS_WAIT_S)
    from ray.cluster_utils import Cluster

    c = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    worker = c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c, worker
    c.shutdown()


def test_a_tournament_on_ray_loses_a_worker_and_equals_the_local_run(cluster, tmp_path):
    c, worker = cluster
    local = levata("tournament", *SPEC, "--db", tmp_path / "local.db")
    ray_db = tmp_path / "ray.db"
    run = levata(
        "tournament", *SPEC, "--db", ray_db, "--executor", "ray", "--address", c.address,
        "--ray-chunk", "2",
    )  # fmt: skip
    # Kill the worker node once a match is settled and another is being played: it holds
    # one of the six tasks at every moment until the last ones, so a task is lost with it.
    deadline = time.time() + 240
    while time.time() < deadline and run.poll() is None:
        if ray_db.exists():
            tdb = TourneyStore(ray_db)
            rows = tdb.rows(tdb.tournaments()[0]["id"]) if tdb.tournaments() else []
            tdb.close()
            if sum(r["status"] == "finished" for r in rows) >= 2:
                break
        time.sleep(0.2)
    c.remove_node(worker)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert "records verified" in out
    _, local_err = local.communicate(timeout=300)
    assert local.returncode == 0, local_err
    on_ray, attempts = results(ray_db)
    assert on_ray == results(tmp_path / "local.db")[0]
    settled = [a for a in attempts if a["status"] == "finished"]
    assert sorted(a["index"] for a in settled) == sorted(on_ray)  # each match settled once
    print(json.dumps({"abandoned attempts": sum(a["status"] == "abandoned" for a in attempts)}))
