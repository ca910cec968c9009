"""The store's group commit: ``Store.commit`` hands the round to a writer thread, and returns
only once everything queued before the call is on disk (read back through a second
connection, as a restarted referee would)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from levata.server.match.store import Store, StoreUnavailable


def on_disk(path: Path, match_id: str) -> int:
    """Actions of ``match_id`` that another connection sees committed."""
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT count(*) FROM actions WHERE match_id = ?", (match_id,)
        ).fetchone()[0]


def make_store(tmp_path: Path, matches: int = 1) -> tuple[Store, Path]:
    path = tmp_path / "m.db"
    store = Store(path)
    for k in range(matches):
        store.create_match(f"m{k}", "whist", 4, {}, k, ["a", "b", "c", "d"], {})
    return store, path


def test_rows_queued_before_commit_are_on_disk_when_it_returns(tmp_path: Path) -> None:
    store, path = make_store(tmp_path)

    async def main() -> None:
        for n in range(5):
            store.add_action("m0", n, 0, "play QH", n)
            await store.commit()
            assert on_disk(path, "m0") == n + 1

    asyncio.run(main())
    store.close()


def test_concurrent_rounds_share_transactions(tmp_path: Path) -> None:
    """64 matches each commit 20 rounds at once: every row lands, in far fewer
    transactions than rounds (the writer takes all that is queued when it starts)."""
    store, path = make_store(tmp_path, matches=64)
    commits = []
    store._db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)

    async def match(k: int) -> None:
        for n in range(20):
            store.add_action(f"m{k}", n, 0, "play QH", n)
            await store.commit()

    async def main() -> None:
        await asyncio.gather(*(match(k) for k in range(64)))

    asyncio.run(main())
    store._db.set_trace_callback(None)
    assert all(on_disk(path, f"m{k}") == 20 for k in range(64))
    assert len(commits) < 64 * 20 / 4, len(commits)
    store.close()


def test_a_commit_waits_for_the_write_that_took_its_rows(tmp_path: Path) -> None:
    """Match A's commit starts a write holding A's and B's rows; B's commit, with nothing
    left queued, must still wait for that write before B may tell anyone."""
    store, path = make_store(tmp_path)
    release, writing = threading.Event(), threading.Event()
    write = store._write

    def slow_write(batch):  # the first write stalls until released
        writing.set()
        assert release.wait(10)
        return write(batch)

    async def main() -> None:
        store._write = slow_write  # type: ignore[method-assign]
        store.add_action("m0", 0, 0, "play QH", 0)
        store.add_action("m0", 1, 1, "play KH", 1)
        a = asyncio.ensure_future(store.commit())
        while not writing.is_set():
            await asyncio.sleep(0.001)
        b = asyncio.ensure_future(store.commit())  # its rows are in the write under way
        await asyncio.sleep(0.05)
        assert not b.done(), "B was told its rows were committed while they were not"
        release.set()
        await asyncio.gather(a, b)
        assert on_disk(path, "m0") == 2

    asyncio.run(main())
    store.close()


def test_a_failed_write_reaches_every_waiter_and_keeps_the_rows(tmp_path: Path) -> None:
    store, path = make_store(tmp_path, matches=2)
    write = store._write
    failing = [True]

    def full_disk(batch):
        if failing[0]:
            raise sqlite3.OperationalError("database or disk is full")
        return write(batch)

    async def main() -> None:
        store._write = full_disk  # type: ignore[method-assign]
        store.add_action("m0", 0, 0, "play QH", 0)
        store.add_action("m1", 0, 0, "play QS", 0)
        outcomes = await asyncio.gather(store.commit(), store.commit(), return_exceptions=True)
        assert all(isinstance(o, StoreUnavailable) for o in outcomes), outcomes
        assert "disk is full" in (store.failure or "")
        assert on_disk(path, "m0") == on_disk(path, "m1") == 0
        failing[0] = False
        store.flush(force=True)  # the file takes writes again: nothing was lost
        assert on_disk(path, "m0") == on_disk(path, "m1") == 1
        assert store.failure is None

    asyncio.run(main())
    store.close()


def test_close_stops_the_writer_and_writes_what_is_left(tmp_path: Path) -> None:
    store, path = make_store(tmp_path)

    async def main() -> None:
        store.add_action("m0", 0, 0, "play QH", 0)
        await store.commit()

    asyncio.run(main())
    store.add_action("m0", 1, 0, "play KH", 1)
    writer = store._writer
    assert writer is not None and writer.is_alive()
    store.close()
    assert not writer.is_alive()
    assert on_disk(path, "m0") == 2
    with pytest.raises(sqlite3.ProgrammingError):
        store._db.execute("SELECT 1")
