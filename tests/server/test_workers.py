"""``levata serve --workers 2``: a front and two referee processes behind one port, with real
bot processes and raw protocol clients on loopback (nothing mocked)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from levata.server.match.clocks import Policy
from levata.server.match.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

from live import RawBot, ServeProcess, bot_process

WHIST = {"deal_size": "1"}


#: Unfinished matches a previous referee left in the records: one of worker 1's, one of a
#: plain referee's (worker 0 takes those up).
LEFT = ("w1-00000000000000aa", "00000000000000bb")


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """One ``levata serve --workers 2`` for the module (its start is the costly part), on
    records that hold :data:`LEFT`."""
    tmp = tmp_path_factory.mktemp("workers")
    store = Store(tmp / "serve.db")
    for m in LEFT:
        store.create_match(m, "whist", 3, WHIST, 1, ["gone"] * 3, Policy().__dict__)
    store.close()
    proc = ServeProcess(tmp, "--workers", "2", "--web", "0", db=tmp / "serve.db")
    yield proc
    proc.stop()


def test_health_and_the_web_table_see_every_worker(serve):
    """GetHealth through the front sums the workers; the web table beside the front watches a
    live match on whichever worker holds it."""
    import re

    import httpx

    serve.register("ghost")  # never connects: its matches wait
    ids = [serve.create("whist", ["ghost"] * 3, seed=s, startup_ms=60_000) for s in (1, 2)]
    assert {m[:3] for m in ids} == {"w0-", "w1-"}
    health = serve.admin.GetHealth(admin_pb2.GetHealthRequest(), timeout=10)
    assert health.matches_waiting >= 2 and not health.records_problem
    for _ in range(300):  # it starts once the front serves
        web = re.search(r"web table on (http://\S+?)/ ", serve.output())
        if web:
            break
        time.sleep(0.1)
    assert web, serve.output()
    for m in ids:  # each worker's match, live, through the front
        with httpx.stream("GET", f"{web[1]}/live/{m}/events", timeout=30) as got:
            assert got.status_code == 200
            first = next(line for line in got.iter_lines() if line.startswith("data:"))
        assert '"status":"waiting"' in first, first


def test_unfinished_matches_are_taken_up_once(serve):
    for m in LEFT:  # by one worker each, not by every worker
        assert serve.output().count(f"match {m} resumed from its record") == 1, serve.output()


def test_matches_spread_over_workers_and_recorded_once(serve, tmp_path):
    token = serve.register("b")  # registered by one worker, known to both
    bot = bot_process("random", "whist", serve, token, matches=4, log=tmp_path / "bot.log")
    try:
        ids = [serve.create("whist", ["b"] * 3, seed=s, options=WHIST) for s in range(4)]
        infos = [serve.wait(m, timeout=60) for m in ids]
        assert bot.wait(timeout=30) == 0, (tmp_path / "bot.log").read_text()
    finally:
        if bot.poll() is None:
            bot.kill()
    assert {m[:3] for m in ids} == {"w0-", "w1-"}  # each worker ran some
    assert all(i.status == admin_pb2.MATCH_STATUS_FINISHED for i in infos)
    db = sqlite3.connect(f"file:{serve.db}?mode=ro", uri=True)
    marks = ",".join("?" * len(ids))
    rows = db.execute(f"SELECT id, status FROM matches WHERE id IN ({marks})", ids).fetchall()
    assert sorted(rows) == sorted((m, "finished") for m in ids)
    doubled = db.execute(
        f"SELECT match_id, seq FROM events WHERE match_id IN ({marks})"
        " GROUP BY match_id, seq HAVING COUNT(*) > 1",
        ids,
    ).fetchall()
    assert doubled == []
    listed = serve.admin.ListMatches(admin_pb2.ListMatchesRequest(limit=50), timeout=10)
    assert set(ids) <= {i.match_id for i in listed.matches}


def _play(bot: RawBot, matches: set[str], after: dict[str, int]) -> None:
    """Answer every request with the first legal action until each match ended (once per
    seat); every event must come after ``after`` (what a resumed stream was told it saw)."""
    ends: dict[str, int] = {}
    while any(ends.get(m, 0) < 3 for m in matches):
        msg = bot.incoming.get(timeout=30)
        assert msg is not None and not isinstance(msg, grpc.RpcError), msg
        kind = msg.WhichOneof("message")
        if kind == "event":
            assert msg.event.event.seq > after.get(msg.event.match_id, -1), msg
        elif kind == "request":
            bot.reply(msg.request)
        elif kind == "match_end":
            ends[msg.match_end.match_id] = ends.get(msg.match_end.match_id, 0) + 1


def _seen(bot: RawBot, until: set[str]) -> dict[str, int]:
    """Read until a request of each match in ``until`` came; per match, the last event seq
    every seat saw (a resume's ``last_seen``)."""
    per_seat: dict[tuple[str, int], int] = {}
    asked: set[str] = set()
    while asked != until:
        msg = bot.incoming.get(timeout=30)
        assert msg is not None and not isinstance(msg, grpc.RpcError), msg
        kind = msg.WhichOneof("message")
        if kind == "event":
            key = (msg.event.match_id, msg.event.seat)
            per_seat[key] = max(per_seat.get(key, -1), msg.event.event.seq)
        elif kind == "request":
            asked.add(msg.request.match_id)
    seen: dict[str, int] = {}
    for (m, _), seq in per_seat.items():
        seen[m] = min(seen.get(m, seq), seq)
    return seen


def test_replies_are_routed_to_their_worker_and_a_stream_resumes(serve):
    token = serve.register("raw")
    bot = RawBot(serve.address, token)
    welcome = bot.next("welcome")
    a, b = (serve.create("whist", ["raw"] * 3, seed=s, options=WHIST) for s in (7, 8))
    assert {a[:3], b[:3]} == {"w0-", "w1-"}
    seen = _seen(bot, {a, b})
    # one bundle, a reply for each worker's match: each is judged by the worker that runs
    # it (a worker that does not would say UNKNOWN_MATCH)
    replies = [arena_pb2.ActionReply(match_id=m, request_id="nope", index=0) for m in (a, b)]
    bot.outgoing.put(arena_pb2.PlayRequest(replies=arena_pb2.ReplyBundle(replies=replies)))
    errors = {bot.next("error").match_id: bot.seen[-1].error.code for _ in range(2)}
    assert errors == {m: arena_pb2.REPLY_ERROR_CODE_UNKNOWN_REQUEST for m in (a, b)}
    bot.send(arena_pb2.ActionReply(match_id="w1-0000000000000000", request_id="r", index=0))
    unknown = bot.next("error")
    assert unknown.code == arena_pb2.REPLY_ERROR_CODE_UNKNOWN_MATCH
    bot.close()

    again = RawBot(serve.address, token, resume_token=welcome.resume_token, last_seen=seen)
    try:
        resumed = again.next("welcome")
        assert resumed.resumed and resumed.resume_token != welcome.resume_token
        _play(again, {a, b}, seen)  # both workers resumed it: no event is sent twice
    finally:
        again.close()
    assert all(serve.wait(m, 10).status == admin_pb2.MATCH_STATUS_FINISHED for m in (a, b))


def test_admin_clients_get_nothing_they_should_not(serve):
    serve.register("absent")  # a bot that never connects: its matches wait
    ids = [serve.create("whist", ["absent"] * 3, startup_ms=60_000) for _ in range(2)]
    with grpc.insecure_channel(serve.address) as channel:  # raw grpc, no SDK
        stub = admin_pb2_grpc.AdminServiceStub(channel)
        for token in (None, "wrong"):
            meta = [("authorization", f"Bearer {token}")] if token else []
            with pytest.raises(grpc.RpcError) as no:
                stub.GetMatch(admin_pb2.GetMatchRequest(match_id=ids[0]), metadata=meta)
            assert no.value.code() == grpc.StatusCode.UNAUTHENTICATED
        for method in ("Load", "Bots"):  # the workers' own services are not the port's
            call = channel.unary_unary(f"/levata.internal.Worker/{method}")
            with pytest.raises(grpc.RpcError) as no:
                call(b"", metadata=[("authorization", f"Bearer {serve.admin_token}")])
            assert no.value.code() == grpc.StatusCode.UNIMPLEMENTED
    for m in ids:  # a match not over does not give its seed away, whichever worker runs it
        assert serve.info(m).seed == 0 and serve.info(m).status == admin_pb2.MATCH_STATUS_WAITING
    listed = serve.admin.ListMatches(
        admin_pb2.ListMatchesRequest(status=admin_pb2.MATCH_STATUS_WAITING), timeout=10
    )
    assert set(ids) <= {i.match_id for i in listed.matches}
    # the workers' sockets are in folders of their owner only
    folders = {
        Path(line.split()[-1]).parent
        for line in Path("/proc/net/unix").read_text().splitlines()
        if "/levata-workers-" in line
    }
    assert folders and all(stat.S_IMODE(f.stat().st_mode) == 0o700 for f in folders if f.exists())


@pytest.mark.parametrize("args", [["--workers", "0"], ["--workers", "257"]])
def test_bad_workers_values_are_one_line(args, tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "serve", "--db", str(tmp_path / "x.db"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2, (run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--w" in lines[0], run.stderr


def _worker_pid(serve: ServeProcess, k: int) -> int:
    """The pid of worker ``k``: the front's child that holds the socket ``w<k>.sock``."""
    inodes = {
        line.split()[6]
        for line in Path("/proc/net/unix").read_text().splitlines()
        if line.endswith(f"/w{k}.sock") and "/levata-workers-" in line
    }
    children = Path(f"/proc/{serve.proc.pid}/task/{serve.proc.pid}/children").read_text()
    for pid in map(int, children.split()):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd).removeprefix("socket:[").rstrip("]") in inodes:
                    return pid
    raise AssertionError(f"no worker {k} among {children}")


def _reconnect(
    serve: ServeProcess, token: str, resume: str, seen: dict[str, int], within: float = 20
) -> tuple[RawBot, arena_pb2.PlayResponse, list[str]]:
    """A bot stream that got an answer, reconnecting on UNAVAILABLE as a client would: the
    stream, its first message, and the refusals' details on the way."""
    refusals: list[str] = []
    end = time.monotonic() + within
    while True:
        bot = RawBot(serve.address, token, resume_token=resume, last_seen=seen)
        msg = bot.incoming.get(timeout=max(end - time.monotonic(), 0.01))
        if not isinstance(msg, grpc.RpcError):
            assert msg is not None, "the stream ended without a word"
            return bot, msg, refusals
        bot.close()
        assert msg.code() == grpc.StatusCode.UNAVAILABLE, msg
        refusals.append(msg.details())
        assert time.monotonic() < end, refusals
        time.sleep(0.05)


def test_a_killed_worker_is_started_again_and_its_match_resumes(serve):
    token = serve.register("survivor")
    bot = RawBot(serve.address, token)
    welcome = bot.next("welcome")
    ids = [serve.create("whist", ["survivor"] * 3, seed=s, options=WHIST) for s in (1, 2)]
    assert {m[:3] for m in ids} == {"w0-", "w1-"}
    seen = _seen(bot, set(ids))
    os.kill(_worker_pid(serve, 1), signal.SIGKILL)
    assert bot.error_code() == grpc.StatusCode.UNAVAILABLE  # the bot is told to reconnect
    bot.close()
    again, first, refusals = _reconnect(serve, token, welcome.resume_token, seen)
    # Until the front has noticed worker 1 is gone it still tries it: the bot is told to
    # reconnect, in the front's words (no worker's socket path), as a client's backoff does.
    assert all("not up; reconnect" in r and ".sock" not in r for r in refusals), refusals
    try:
        assert first.WhichOneof("message") == "welcome"
        assert first.welcome.resumed  # worker 0's seats; worker 1's come when it is up
        # Each match goes on where it was left: worker 0's resumes the stream; the new worker
        # 1 takes its match up from the records and, as any restarted referee, tells the
        # bot its events again (a bot drops what it has seen: levata.bots.sdk).
        kept = next(m for m in ids if m.startswith("w0-"))
        _play(again, set(ids), {kept: seen[kept]})
    finally:
        again.close()
    assert all(serve.wait(m, 10).status == admin_pb2.MATCH_STATUS_FINISHED for m in ids)
    assert "referee worker 1 exited" in serve.output()
    # every worker up again: the new worker's health reaches the port once its watch has
    # started, which on a loaded machine may come after its match ended
    end = time.monotonic() + 20
    while serve.health() != health_pb2.HealthCheckResponse.SERVING and time.monotonic() < end:
        time.sleep(0.1)
    assert serve.health() == health_pb2.HealthCheckResponse.SERVING, serve.output()[-2000:]


def test_a_worker_the_front_cannot_reach_is_refused_in_its_own_words(tmp_path):
    """A bot connecting while a worker is down but not yet noticed (killed, its restart not
    seen) is told to reconnect, in the front's words: the channel's own error (the worker's
    socket path) stays in the front. A real front on loopback, a worker socket nobody serves."""
    import asyncio

    from levata.server.match.front import Front, WorkerLink
    from levata.server.match.limits import Limits

    async def connect() -> grpc.aio.AioRpcError:
        gone = grpc.aio.insecure_channel(f"unix:{tmp_path / 'w0.sock'}")
        front = Front([WorkerLink(0, gone)], "admin-token", Limits())
        server = grpc.aio.server()
        server.add_generic_rpc_handlers(front.handlers())
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                hello = arena_pb2.PlayRequest(
                    hello=arena_pb2.Hello(token="any", protocol_version="1")
                )
                call = channel.stream_stream("/levata.v1.ArenaService/Play")(
                    iter([hello.SerializeToString()])
                )
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await call.read()
                return err.value
        finally:
            await server.stop(None)
            await gone.close()

    refused = asyncio.run(connect())
    assert refused.code() == grpc.StatusCode.UNAVAILABLE
    assert refused.details() == "referee worker 0 is not up; reconnect"
