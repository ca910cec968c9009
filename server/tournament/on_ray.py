"""A tournament's matches played across a Ray cluster (``levata tournament --executor ray``).

The schedule is cut into chunks of matches; each chunk is one Ray task. A task runs where Ray
places it, with everything a local run has there: a referee of its own on a loopback port,
the entries' bot processes (sandboxed as the tournament says), and the records written
straight into the tournament's database, which every node must reach (a PostgreSQL URL; an
SQLite file only where every node shares it, one machine). Nothing about a match depends on
where it ran: its seed, its seats and its bots' seeds come from the schedule, so a tournament
gives the same standings, match for match, on one machine or many.

A node lost mid-run loses no result: Ray runs the lost task again elsewhere (``max_retries``),
and the new run first abandons the attempts the lost one left running (the tournament's
copy settles a match only for the attempt it started), then replays those matches from their
seeds; each match is recorded once. The driver, meanwhile, reads the database to move the
progress bar, and once every task is done closes any referee record a lost node left open.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from pathlib import Path
from typing import Any, cast

from levata.server import postgres
from levata.server.tournament.runner import (
    Executor,
    Hosting,
    Progress,
    Reporter,
    _close_stale_records,
    _Runner,
)
from levata.server.tournament.spec import TournamentSpec
from levata.server.tournament.store import TourneyStore

__all__ = ["DEFAULT_CHUNK", "executor", "play_chunk", "run_on_ray"]

#: Matches per Ray task: a task starts a referee and the entries' processes once for them.
DEFAULT_CHUNK = 4
#: How often a lost task is run again before the tournament stops (Ray's ``max_retries``).
RETRIES = 3
#: How often the driver reads the database for the progress bar (seconds).
POLL_S = 0.5
#: How long a local Ray head may take to publish its GCS port (Ray's variable; its default,
#: 30 s, was seen to run out on a busy 2-core machine). An operator's own setting wins.
GCS_WAIT, LOCAL_GCS_WAIT_S = "RAY_gcs_server_port_wait_time_s", "180"


def play_chunk(tid: str, db: str, indices: list[int], hosting: dict[str, Any]) -> int:
    """In a Ray worker: play the unfinished matches ``indices`` of tournament ``tid`` with a
    referee and bot processes of this node; returns how many it played."""
    # A server's URL stays a string (the stores take either; a Path would fold its //).
    where = cast(Path, db) if postgres.is_url(db) else Path(db)
    tdb = TourneyStore(where)
    try:
        t = tdb.tournament(tid)
        assert t is not None, tid
        spec = TournamentSpec.from_dict(t["spec"])
        # A run of this chunk before us was lost with its node: its attempts go back to
        # pending, its referee records are closed as aborted, and the matches are replayed.
        stale = tdb.abandon_unfinished(tid, only=indices)
        if stale:
            _close_stale_records(where, tid, stale, only_these=True)
        rows = [r for r in tdb.rows(tid) if r["index"] in indices and r["status"] != "finished"]
        if rows:
            fields = {**hosting, "logs": Path(hosting["logs"]) if hosting["logs"] else None}
            runner = _Runner(tid, spec, where, tdb, 1, Hosting(**fields), Progress())
            asyncio.run(runner.run(rows))
        return len(rows)
    finally:
        tdb.close()


def executor(address: str | None, chunk: int = DEFAULT_CHUNK) -> Executor:
    """The :data:`~levata.server.tournament.runner.Executor` that plays on the Ray cluster at
    ``address`` (None: a local one), ``chunk`` matches a task."""

    async def play_on_ray(  # noqa: PLR0913  (an Executor)
        tid: str,
        spec: TournamentSpec,
        db: Path,
        tdb: TourneyStore,
        parallel: int,
        hosting: Hosting,
        progress: Reporter,
        pending: list[dict[str, Any]],
    ) -> None:
        await asyncio.to_thread(
            run_on_ray, tid, db, tdb, pending, hosting, address, chunk, progress
        )
        for line in _close_stale_records(db, tid, []):  # what a lost node left open
            progress.note(line)

    return play_on_ray


def run_on_ray(  # noqa: PLR0913  (the run's parts, each a parameter)
    tid: str,
    db: Path,
    tdb: TourneyStore,
    pending: list[dict[str, Any]],
    hosting: Hosting,
    address: str | None,
    chunk: int,
    progress: Reporter,
) -> None:
    """Play ``pending`` on the Ray cluster at ``address`` (None: a local one), ``chunk``
    matches a task, reporting each settled match to ``progress`` as a local run does.
    Raises ``RuntimeError`` (one line) when it cannot go on."""
    # Ray's usage reports would leave the machine: off unless the operator turns them on.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address is None:  # a head of our own, on a machine that may be busy: wait longer
        os.environ.setdefault(GCS_WAIT, LOCAL_GCS_WAIT_S)
    try:
        import ray
    except ImportError:
        raise RuntimeError("--executor ray needs Ray: pip install 'levata[ray]'") from None
    try:
        ray.init(
            address=address,
            logging_level=logging.WARNING,
            log_to_driver=False,
            include_dashboard=False if address is None else None,
            configure_logging=False,
        )
    except Exception as exc:  # ConnectionError, or Ray's own for a bad address
        raise RuntimeError(f"cannot reach the Ray cluster at {address}: {exc}") from None
    try:
        task = ray.remote(max_retries=RETRIES, num_cpus=1)(play_chunk)
        hosting_fields = dataclasses.asdict(hosting)
        hosting_fields["logs"] = str(hosting.logs) if hosting.logs else None
        hosting_fields["entrant_socket"] = None  # a socket of this machine means nothing there
        order = [r["index"] for r in pending]
        refs = [
            task.remote(tid, str(db), order[i : i + chunk], hosting_fields)
            for i in range(0, len(order), chunk)
        ]
        seen = {r["index"] for r in tdb.rows(tid) if r["status"] == "finished"}
        waiting = list(refs)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=len(waiting), timeout=POLL_S)
            for ref in done:
                try:
                    ray.get(ref)
                except Exception as exc:  # a task that failed every retry
                    raise RuntimeError(f"a Ray task failed: {_first_line(exc)}") from None
            seen = _report(tdb, tid, seen, progress)
    finally:
        ray.shutdown()


def _report(tdb: TourneyStore, tid: str, seen: set[int], progress: Reporter) -> set[int]:
    """Tell ``progress`` of every match settled since the last look."""
    for row in tdb.rows(tid):
        if row["status"] == "finished" and row["index"] not in seen:
            seen.add(row["index"])
            progress.advance(row, row["result"])
    return seen


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__
