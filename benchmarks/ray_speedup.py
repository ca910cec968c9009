"""A tournament's wall time on Ray with one node and with two, beside the local executor.

    python benchmarks/ray_speedup.py [--deals 12] [--game macao] [--bots heuristic,random]

In one run: the local executor (``--parallel 1`` and ``--parallel 2``), then a Ray cluster of
one node and of two nodes (Ray's own ``Cluster``, one CPU each, on this machine), the same
tournament spec and seed each time, on a fresh SQLite file. It prints each wall time, the
ratio to one Ray node, and checks that every run gave the same standings. The cluster's start
is not counted; each Ray task starts a referee and the entries' processes, which the local
executor does once.

On the 2-core development machine (one run, quiet machine), search-bound matches::

    python benchmarks/ray_speedup.py --game whist -o deal_size=8 --deals 6 --chunk 3 \
        --bots pimc:worlds=100:time_ms=100000,heuristic,random

    local, --parallel 1    25.7 s   1.23x one Ray node
    local, --parallel 2    24.6 s   1.28x one Ray node
    Ray, 1 node of 1 CPU   31.5 s   1.00x
    Ray, 2 nodes of 1 CPU  20.4 s   1.55x one Ray node
    standings identical in every run

The local executor's ``--parallel 2`` gains little here: each entry is one process that
decides for all its seats in turn, so one search bot uses one core. Each Ray task has
processes of its own. Short matches (Macao between heuristic and random, 0.15 s a match)
gain nothing from Ray: starting a task's referee and bots costs more than its matches.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def tournament(db: Path, spec: list[str], *extra: str) -> tuple[float, str]:
    start = time.perf_counter()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "levata.server.cli",
            "tournament",
            *spec,
            "--db",
            str(db),
            "-q",
            *extra,
        ],
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"error: the tournament failed: {run.stderr.strip()}")
    table = [line for line in run.stdout.splitlines() if "[" in line and "]" in line][:4]
    return took, "\n".join(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="macao")
    ap.add_argument("--bots", default="heuristic,random")
    ap.add_argument("--deals", type=int, default=12)
    ap.add_argument("--chunk", type=int, default=4)
    ap.add_argument("-o", "--option", action="append", default=[], help="a game option")
    args = ap.parse_args()
    from ray.cluster_utils import Cluster

    spec = ["--game", args.game, "--bots", args.bots, "--deals", str(args.deals), "--seed", "5"]
    spec += [f"-o{o}" for o in args.option]
    folder = Path(tempfile.mkdtemp())
    rows = []
    for parallel in (1, 2):
        took, table = tournament(folder / f"local{parallel}.db", spec, "--parallel", str(parallel))
        rows.append((f"local, --parallel {parallel}", took, table))
    for nodes in (1, 2):
        cluster = Cluster(
            initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
        )
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        try:
            ray = (
                "--executor",
                "ray",
                "--address",
                cluster.address,
                "--ray-chunk",
                str(args.chunk),
            )
            took, table = tournament(folder / f"ray{nodes}.db", spec, *ray)
        finally:
            cluster.shutdown()
        rows.append((f"Ray, {nodes} node(s) of 1 CPU", took, table))
    base = rows[2][1]
    print(f"{' '.join(spec)}, {args.chunk} matches a Ray task")
    for name, took, _ in rows:
        print(f"  {name:28} {took:7.1f} s   {base / took:4.2f}x one Ray node")
    same = len({table for _, _, table in rows}) == 1
    print("standings identical in every run" if same else "STANDINGS DIFFER between runs")


if __name__ == "__main__":
    main()
