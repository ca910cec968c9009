"""No entrant can starve another, and floods stay cheap: each against a real ``levata
tournament`` (entries in real bubblewrap sandboxes) or ``levata serve`` process, the hostile
clients written from the proto (raw gRPC stubs, not the SDK).

* A flood of streams without Hello on an entry's own entrants' socket: every honest entry
  plays every match, and the standings equal an honest run's.
* A token holder that never reads and floods bogus replies: the referee's memory stays
  bounded, and it is told why it is cut off.
* A seated bot that never reads (a small HTTP/2 window): its outbox bound cuts it off, its
  seats are forfeited as the policy says, and honest bots play on without a strike.
* A seated bot flooding bad replies: honest bots in other matches get no strike, and the
  database grows by a few rows, not one per reply.
"""

from __future__ import annotations

import collections
import json
import queue
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from levata.v1 import admin_pb2, arena_pb2, arena_pb2_grpc

from live import ServeProcess, bot_env

FINISHED, ABORTED = admin_pb2.MATCH_STATUS_FINISHED, admin_pb2.MATCH_STATUS_ABORTED

CLI = [sys.executable, "-m", "levata.server.cli"]

#: A ``protocol = "grpc"`` entry. It plays the first legal action of every decision through
#: the SDK. With ``--flood`` it first holds STREAMS streams that never say Hello on its
#: entrants' socket, reopening each one the referee ends, for the whole tournament; with
#: ``--late`` it connects after a few seconds (once a flood would be in place).
ENTRY = r'''
import asyncio, collections, json, os, sys, time

import grpc
from levata.bots.sdk import BotClient
from levata.v1 import arena_pb2_grpc

STREAMS = 400


class First:
    name = "first"

    def act(self, view, legal):
        return legal[0]


async def flood(target, stats):
    """STREAMS streams without Hello over 8 connections (a raw client of the proto)."""
    chans = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
             for _ in range(8)]
    forever = asyncio.Event()

    async def silent():
        await forever.wait()
        yield  # never reached: no Hello, no message at all

    async def hold(i):
        while True:
            call = arena_pb2_grpc.ArenaServiceStub(chans[i % 8]).Play(silent())
            stats["opened"] += 1
            try:
                async for _ in call:
                    pass
            except grpc.aio.AioRpcError as exc:
                stats[exc.code().name] += 1
            await asyncio.sleep(0.02)

    async def tell():
        while True:
            await asyncio.sleep(1)
            print("FLOOD " + json.dumps(dict(stats)), file=sys.stderr, flush=True)

    await asyncio.gather(tell(), *(hold(i) for i in range(STREAMS)))


async def main():
    target, token = os.environ["LEVATA_SERVER"], os.environ["LEVATA_TOKEN"]
    if "--late" in sys.argv:
        await asyncio.sleep(4)
    client = BotClient(lambda game, seat, name: First(), target, token)
    playing = asyncio.ensure_future(client.run())
    if "--flood" in sys.argv:
        stats = collections.Counter()
        await asyncio.sleep(1)  # connected first: the flood is for the others
        flooding = asyncio.ensure_future(flood(target, stats))
        await playing
        print("FLOOD " + json.dumps(dict(stats)), file=sys.stderr, flush=True)
        flooding.cancel()
    else:
        await playing


asyncio.run(main())
'''


def entry(folder: Path, name: str, *args: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "entry.py").write_text(ENTRY)
    manifest = folder.parent / f"{name}.toml"
    command = json.dumps([sys.executable, "entry.py", *args])
    manifest.write_text(
        f'name = "{name}"\ncommand = {command}\nprotocol = "grpc"\nworkdir = "{folder.name}"\n'
        "move_ms = 15000\n"
    )
    return manifest


def run_tournament(run: Path, flood: bool) -> list[tuple]:
    """A tournament of a (flooding or honest) entry and two honest ones that connect late."""
    run.mkdir()
    flooder = entry(run / "f", "flooder", *(["--flood"] if flood else []))
    honest = [entry(run / n, n, "--late") for n in ("honest-a", "honest-b")]
    bots = ",".join(map(str, [flooder, *honest]))
    done = subprocess.run(
        [*CLI, "tournament", "--game", "whist", "-o", "deal_size=2", "--deals", "2",
         "--seed", "5", "--parallel", "4", "--quiet", "--bots", bots,
         "--db", run / "t.db", "--logs", run / "logs", "--sandbox", "auto"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    from levata.server.tournament.store import TourneyStore

    tdb = TourneyStore(run / "t.db")
    (t,) = tdb.tournaments()
    return [
        (r["index"], r["seats"], r["result"]["scores"], r["result"]["ranks"],
         r["result"]["forfeited"], r["result"]["strikes"])
        for r in tdb.rows(t["id"])
    ]  # fmt: skip


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_an_entry_flooding_streams_without_hello_starves_nobody(tmp_path):
    flooded = run_tournament(tmp_path / "flood", flood=True)
    log = (tmp_path / "flood" / "logs" / "flooder.log").read_text()
    stats = json.loads([x for x in log.splitlines() if x.startswith("FLOOD ")][-1][6:])
    assert stats["opened"] >= 400, stats  # hundreds of streams without Hello were held
    assert stats.get("RESOURCE_EXHAUSTED", 0) + stats.get("DEADLINE_EXCEEDED", 0) > 0, stats
    honest = run_tournament(tmp_path / "honest", flood=False)
    assert len(flooded) == 12
    assert all(not r[4] and not any(r[5]) for r in flooded), flooded  # no forfeit, no strike
    assert flooded == honest  # the standings do not notice the flood


# -- streams that end before their Hello ------------------------------------------------------


def test_streams_ended_before_hello_give_their_place_back(tmp_path):
    """A raw client's streams that end without a message, or are cancelled, before Hello: each
    gives back its place among the referee's streams (a place kept for good each time made
    the referee "full" for every bot once there were ``streams_total`` of them)."""
    # 384 open files: room for 64 streams in all (Limits.for_open_files)
    live = ServeProcess(tmp_path, prefix=("prlimit", "--nofile=384:384"))
    try:
        token = live.register("honest")
        ended = collections.Counter()
        with grpc.insecure_channel(live.address) as ch:
            stub = arena_pb2_grpc.ArenaServiceStub(ch)
            for k in range(120):
                if k % 4 == 3:  # cancelled while the referee waits for its first message
                    waiting: queue.Queue = queue.Queue()
                    call = stub.Play(iter(waiting.get, None))
                    time.sleep(0.01)
                    call.cancel()
                    waiting.put(None)
                    ended["cancelled"] += 1
                    continue
                try:  # half-closed at once: no message at all
                    ended["OK"] += 1 + len(list(stub.Play(iter([]), timeout=10)))
                except grpc.RpcError as exc:
                    ended[exc.code().name] += 1
            hello = arena_pb2.PlayRequest(hello=arena_pb2.Hello(token=token, protocol_version="1"))
            call = stub.Play(iter([hello]), timeout=10)
            try:
                first = next(call).WhichOneof("message")
            except grpc.RpcError as exc:
                first = f"{exc.code().name}: {exc.details()}"
            call.cancel()
        assert ended == {"OK": 90, "cancelled": 30}, ended  # not RESOURCE_EXHAUSTED: full
        assert first == "welcome", first
        assert live.proc.poll() is None
    finally:
        live.stop()


# -- a token holder that never reads ------------------------------------------------------------

#: argv: ADDRESS SECONDS. Says Hello with $LEVATA_TOKEN, never reads, and sends small bogus
#: replies as fast as it can (4 connections of 8 streams); prints how many it sent and the
#: status each stream ended with.
NOT_READING = r"""
import asyncio, collections, json, os, sys, time

import grpc
from levata.v1 import arena_pb2, arena_pb2_grpc

address, seconds = sys.argv[1], float(sys.argv[2])
token = os.environ["LEVATA_TOKEN"]
stats = collections.Counter()


async def stream(ch, end):
    hello = arena_pb2.PlayRequest(hello=arena_pb2.Hello(token=token, protocol_version="1"))
    bogus = arena_pb2.PlayRequest(reply=arena_pb2.ActionReply(match_id="m" * 16,
                                                              request_id="r" * 16, index=0))

    async def requests():
        yield hello
        while time.monotonic() < end:
            for _ in range(200):
                stats["sent"] += 1
                yield bogus
            await asyncio.sleep(0)

    call = arena_pb2_grpc.ArenaServiceStub(ch).Play(requests())
    while time.monotonic() < end and not call.done():
        await asyncio.sleep(0.2)  # never reads
    try:  # now read what came, to the end: how did the referee end the stream?
        async for _ in call:
            stats["read"] += 1
        stats["OK"] += 1
    except grpc.aio.AioRpcError as exc:
        stats[exc.code().name] += 1
        stats["details"] = exc.details()


async def main():
    end = time.monotonic() + seconds
    chans = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
             for _ in range(4)]
    tasks = [stream(chans[i % 4], end) for i in range(8)]
    await asyncio.wait_for(asyncio.gather(*tasks), seconds + 30)
    print(json.dumps(dict(stats)))


asyncio.run(main())
"""


def test_a_bot_that_never_reads_is_cut_off_and_the_referee_stays_small(tmp_path):
    live = ServeProcess(tmp_path)
    try:
        token = live.register("deaf")
        time.sleep(1)
        before = live.rss_kb()
        script = tmp_path / "deaf.py"
        script.write_text(NOT_READING)
        run = subprocess.run(
            [sys.executable, str(script), live.address, "15"],
            capture_output=True, text=True, timeout=120, env=bot_env(token),
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        stats = json.loads(run.stdout.strip().splitlines()[-1])
        after = live.rss_kb()
        print(f"referee RSS {before / 1024:.0f} MB -> {after / 1024:.0f} MB; client {stats}")
        assert stats["sent"] > 10_000, stats
        assert stats.get("RESOURCE_EXHAUSTED", 0) == 8, stats  # every stream was cut off
        assert "replies dropped unread" in stats["details"], stats
        assert after - before < 200 * 1024, (before, after)  # was +3,100 MB in 15 s
        assert live.proc.poll() is None
    finally:
        live.stop()


# -- a seated bot that never reads: the outbox bound -------------------------------------------

#: argv: ADDRESS. Says Hello with $LEVATA_TOKEN and reads nothing until a line comes on its
#: stdin, on a channel whose HTTP/2 window stays small: no BDP probing (which grows the window
#: to megabytes as data comes, read or not) and 16 KiB of lookahead. Then it reads what came,
#: to the end of the stream, and prints how much and the status the stream ended with.
DEAF = r"""
import asyncio, json, os, sys, time

import grpc
from levata.v1 import arena_pb2, arena_pb2_grpc

address = sys.argv[1]
small_window = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 16384)]


async def main():
    forever = asyncio.Event()

    async def requests():
        hello = arena_pb2.Hello(token=os.environ["LEVATA_TOKEN"], protocol_version="1")
        yield arena_pb2.PlayRequest(hello=hello)
        await forever.wait()

    async with grpc.aio.insecure_channel(address, options=small_window) as ch:
        call = arena_pb2_grpc.ArenaServiceStub(ch).Play(requests())
        print("HELLO", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # reads nothing until told to
        stats = {"read": 0, "bytes": 0}

        async def drain():
            async for msg in call:
                stats["read"] += 1
                stats["bytes"] += msg.ByteSize()

        try:
            await asyncio.wait_for(drain(), 30)
            stats["code"] = "OK"
        except TimeoutError:
            stats["code"] = "still open"
        except grpc.aio.AioRpcError as exc:
            stats["code"], stats["details"] = exc.code().name, exc.details()
        print(json.dumps(stats), flush=True)


asyncio.run(main())
"""


def test_a_seated_bot_that_never_reads_is_cut_off_by_its_outbox_bound(tmp_path):  # noqa: PLR0915  (one scenario, read top to bottom)
    live = ServeProcess(tmp_path, "--outbox-mb", "0.25")
    procs: list[subprocess.Popen] = []
    try:
        honest = [f"honest-{i}" for i in range(5)]
        tokens = {n: live.register(n) for n in ["deaf", *honest]}
        for n in honest:
            cmd = [*CLI[:2], "levata.bots", "run", "random", "--game", "whist"]
            cmd += ["--server", live.address, "--seed", "3", "--quiet"]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=bot_env(tokens[n])))
        script = tmp_path / "deaf.py"
        script.write_text(DEAF)
        deaf = subprocess.Popen(
            [sys.executable, str(script), live.address], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=bot_env(tokens["deaf"]),
        )  # fmt: skip
        procs.append(deaf)
        assert deaf.stdout.readline().strip() == "HELLO"
        time.sleep(1)
        before = peak = live.rss_kb()
        # A match it shares with two honest bots: when it is cut off, its seat is forfeited
        # after the resume window (never by strikes: max_strikes is high).
        shared = live.create(
            "whist", ["deaf", *honest[:2]], seed=7, options={},
            move_ms=2000, max_strikes=1000, resume_window_ms=1000,
        )  # fmt: skip
        # What fills its outbox: matches where it holds every seat, on a 1 ms clock (struck
        # at each decision once its requests wait unwritten past the delivery allowance).
        own_policy = {"move_ms": 1, "bank_ms": 0, "max_strikes": 1000, "resume_window_ms": 1000}
        own = [live.create("whist", ["deaf"] * 4, k, {}, **own_policy) for k in range(100)]
        played, k = [], 0
        matches = [live.create("whist", honest[2:], seed=100, move_ms=2000)]
        end, told = time.monotonic() + 14, False
        while time.monotonic() < end or matches:  # honest matches, one after another
            peak = max(peak, live.rss_kb())
            if not told and live.info(shared).status == FINISHED:
                # It was cut off (its seat forfeited a resume window later): it reads now,
                # before the referee closes its connection as idle (5 s).
                deaf.stdin.write("read\n")
                deaf.stdin.flush()
                told = True
            for m in list(matches):
                info = live.info(m)
                if info.status in (FINISHED, ABORTED):
                    matches.remove(m)
                    played.append(info)
                    if time.monotonic() < end:
                        k += 1
                        matches.append(live.create("whist", honest[2:], seed=100 + k, move_ms=2000))
            time.sleep(0.05)
        out, err = deaf.communicate("read\n" if not told else None, timeout=60)
        stats = json.loads(out.strip().splitlines()[-1])
        shared_info = live.wait(shared, timeout=60)
        own_info = [live.wait(m, timeout=60) for m in own]
        after = live.rss_kb()
        print(
            f"referee RSS {before / 1024:.0f} MB, peak {peak / 1024:.0f} MB, after"
            f" {after / 1024:.0f} MB; the deaf bot {stats}; honest matches {len(played)}"
        )
        assert stats["code"] == "RESOURCE_EXHAUSTED", (stats, err)
        assert "outbox full" in stats["details"], stats
        assert stats["bytes"] < 256 * 1024, stats  # its window was small: the rest waited
        assert peak - before < 100 * 1024, (before, peak)  # the outbox, not the referee, grew
        # its seats: forfeited as the policy says (it did not resume within the window)
        assert shared_info.result.reason == "forfeit", shared_info
        assert list(shared_info.result.forfeited) == [0], shared_info
        assert "did not resume" in shared_info.status_detail, shared_info
        assert list(shared_info.strikes)[1:] == [0, 0], shared_info
        assert all(i.result.forfeited for i in own_info)
        assert len(played) >= 3, played
        for info in played:  # honest bots on the same referee: no strike, no forfeit
            assert info.result.reason == "complete", info
            assert not info.result.forfeited and sum(info.strikes) == 0, info
        assert live.proc.poll() is None
        assert "Traceback" not in live.output()
    finally:
        for p in procs:
            p.kill()
            p.wait()
        live.stop()


# -- a seated bot flooding bad replies ----------------------------------------------------------

#: argv: ADDRESS SECONDS. A seated bot (its token in $LEVATA_TOKEN) that answers each of its
#: decisions correctly but first sends a burst of illegal and stale replies for it, as fast as
#: it can, for SECONDS; prints how many bad replies it sent.
BAD_REPLIES = r"""
import asyncio, json, os, sys, time

import grpc
from levata.v1 import arena_pb2, arena_pb2_grpc

address, seconds = sys.argv[1], float(sys.argv[2])
token = os.environ["LEVATA_TOKEN"]
sent = streams = 0
resume, last_seen, latest = "", {}, None


async def one_stream(end):
    global sent, streams, resume, latest
    out = asyncio.Queue()
    hello = arena_pb2.Hello(token=token, protocol_version="1", resume_token=resume,
                            last_seen=last_seen)
    out.put_nowait(arena_pb2.PlayRequest(hello=hello))
    streams += 1

    async def requests():
        while (msg := await out.get()) is not None:
            yield msg

    async def flood():
        global sent
        while time.monotonic() < end:
            if latest is not None:
                for _ in range(100):
                    bad = arena_pb2.ActionReply(match_id=latest.match_id,
                                                request_id=latest.request_id,
                                                state_version=latest.state_version + 7, index=0)
                    out.put_nowait(arena_pb2.PlayRequest(reply=bad))
                    sent += 1
            await asyncio.sleep(0.001)

    async with grpc.aio.insecure_channel(address) as ch:
        call = arena_pb2_grpc.ArenaServiceStub(ch).Play(requests())
        flooding = asyncio.ensure_future(flood())
        try:
            async for msg in call:
                kind = msg.WhichOneof("message")
                if kind == "welcome":
                    resume = msg.welcome.resume_token
                elif kind == "event":
                    last_seen[msg.event.match_id] = msg.event.event.seq
                elif kind == "request":
                    latest = msg.request
                    if time.monotonic() > end:  # the flood is over: play on, properly
                        out.put_nowait(arena_pb2.PlayRequest(reply=arena_pb2.ActionReply(
                            match_id=latest.match_id, request_id=latest.request_id,
                            state_version=latest.state_version, index=0)))
                elif kind == "end":
                    return True
        except grpc.aio.AioRpcError as exc:
            print("ended:", exc.code().name, exc.details(), file=sys.stderr, flush=True)
        finally:
            flooding.cancel()
            out.put_nowait(None)
    return False


async def main():
    end = time.monotonic() + seconds

    async def come_back():
        while not await one_stream(end):
            await asyncio.sleep(0.05)  # cut off: come back (resuming its seat), flood again

    try:
        await asyncio.wait_for(come_back(), seconds + 20)
    except TimeoutError:
        pass  # its seat was forfeited meanwhile: nothing more comes
    print(json.dumps({"sent": sent, "streams": streams}))


asyncio.run(main())
"""


def _rows_and_bytes(db: Path) -> tuple[int, int, int]:
    with sqlite3.connect(db) as c:
        replies = c.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
        refused = c.execute("SELECT COUNT(*) FROM refused_replies").fetchone()[0]
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file())
    return replies, refused, size


def test_a_seated_flood_of_bad_replies_costs_honest_bots_nothing(tmp_path):
    live = ServeProcess(tmp_path)
    try:
        names = ["flooder", "f-1", "f-2"] + [f"honest-{i}" for i in range(6)]
        tokens = {n: live.register(n) for n in names}
        flood_match = live.create("whist", names[:3], seed=1, move_ms=1000)
        honest = [
            live.create("whist", names[3 + 3 * k : 6 + 3 * k], seed=k, move_ms=1000)
            for k in range(2)
        ]
        script = tmp_path / "bad.py"
        script.write_text(BAD_REPLIES)
        flooder = subprocess.Popen(
            [sys.executable, str(script), live.address, "8"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=bot_env(tokens["flooder"]),
        )  # fmt: skip
        procs = []
        for n in names[1:]:
            cmd = [*CLI[:2], "levata.bots", "run", "random", "--game", "whist"]
            cmd += ["--server", live.address, "--seed", "3", "--quiet"]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=bot_env(tokens[n])))
        before = _rows_and_bytes(live.db)
        # honest matches keep being played during the flood: more of them, one after another
        played = []
        end = time.monotonic() + 8
        k = 0
        while time.monotonic() < end or honest:
            for m in list(honest):
                info = live.info(m)
                if info.status in (FINISHED, ABORTED):
                    honest.remove(m)
                    played.append(info)
                    if time.monotonic() < end:
                        k += 1
                        seats = names[3 + 3 * (k % 2) : 6 + 3 * (k % 2)]
                        honest.append(live.create("whist", seats, seed=10 + k, move_ms=1000))
            time.sleep(0.05)
        out, err = flooder.communicate(timeout=120)
        flood_stats = json.loads(out.strip().splitlines()[-1])
        sent = flood_stats["sent"]
        flood_info = live.wait(flood_match, timeout=120)
        after = _rows_and_bytes(live.db)
        for p in procs:
            p.terminate()
        print(
            f"bad replies sent {sent} on {flood_stats['streams']} streams; honest matches"
            f" {len(played)}; rows replies"
            f" {before[0]}->{after[0]}, refused_replies {before[1]}->{after[1]};"
            f" file {before[2] / 2**20:.2f}->{after[2] / 2**20:.2f} MiB"
        )
        assert sent > 20_000, (sent, err)  # it came back and flooded again when cut off
        assert len(played) >= 4
        for info in played:  # honest bots in other matches: no strike, no forfeit
            assert info.result.reason == "complete", info
            assert not info.result.forfeited and sum(info.strikes) == 0, info
        with sqlite3.connect(live.db) as c:
            refused = c.execute(
                "SELECT seat, outcome, count FROM refused_replies WHERE match_id = ?",
                (flood_match,),
            ).fetchall()
        counted = sum(n for _, _, n in refused)
        assert refused and counted > 0 and {s for s, _, _ in refused} == {0}, refused
        assert len(refused) <= 4  # one row per seat and reason, whatever the flood
        assert after[1] - before[1] <= 4
        assert after[2] - before[2] < 8 * 2**20  # was +75 MiB for 30 s of flood
        assert flood_info.status in (FINISHED, ABORTED)
    finally:
        live.stop()
