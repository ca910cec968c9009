"""Fair clocks under load: 1,000 concurrent one-deal Whist matches, 1 s per move, no bank.

The bots answer at once (index 0, no view built), so every strike would be the referee's own
slowness billed to a bot. A seat's clock starts when its request is written to its stream
and a reply counts when it is read from it (``levata.server.match.referee``), so however long the
referee queues, zero strikes is the right answer.

Two kinds of bot: the SDK's (events inside requests, bundles both ways) and *plain* ones, as
a bot written from the proto alone would be: a bare ``Hello``, every event a message of its
own, one ``ActionReply`` per request. Matches are created with every ``CreateMatch`` call in
flight at once: for the plain bots before they connect, so that all 1,000 start at the same
instant (the load under which plain bots used to be struck on nearly every decision); for
the SDK bots once they are connected, so that creation competes with play.

The bots are a few real processes, each holding many seats over a few streams: this file run
as ``python tests/server/test_fair_clock.py --bots KIND SERVER READY NAME:MATCHES...`` with the
tokens in ``LEVATA_TOKEN_<i>``. Run as ``python tests/server/test_fair_clock.py --matches 1000
--kind plain [--while-playing N]`` it prints the figures (strikes, latency from request written
to reply read, the time to create the matches, the referee's and the bots' CPU time) without
pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # ``live`` when run as a script

MATCHES = 1_000
PLAYERS = 4
#: Bot processes, and streams (bot names) per process: seat j of match k is played by
#: name ``j * STREAMS + k % STREAMS``, so each stream holds MATCHES / STREAMS seats.
PROCESSES = 2
STREAMS = 4  # per seat position; names in all: PLAYERS * STREAMS
MOVE_MS = 1_000


def _first_legal(req, session):
    """Answer at once, building nothing."""
    from levata.v1 import arena_pb2

    return arena_pb2.ActionReply(index=0)


async def _play(server: str, names: list[str], matches: dict[str, int], ready: Path) -> None:
    from levata.bots.sdk import BotClient

    full = os.environ.get("FAIR_DECIDER") == "random"
    from levata.bots import make_bot

    welcomed: set[str] = set()

    def on_message(name: str, msg) -> None:
        if msg.WhichOneof("message") == "welcome":
            welcomed.add(name)
            if len(welcomed) == len(names):
                ready.touch()

    clients = [
        BotClient(
            (lambda g, s, m: make_bot("random", g, seed=s)) if full else (lambda *_: None),
            server,
            os.environ[f"LEVATA_TOKEN_{i}"],
            name=name,
            max_matches=matches[name],
            decider=None if full else _first_legal,
            on_message=lambda msg, name=name: on_message(name, msg),
        )
        for i, name in enumerate(names)
    ]
    await asyncio.gather(*(c.run() for c in clients))


async def _plain_stream(
    server: str, token: str, name: str, matches: int, welcomed: asyncio.Event
) -> None:
    """One stream of a bot written from the proto alone: a bare ``Hello`` (no
    ``batch_events``, no ``bundle``), one message read at a time, one ``ActionReply`` sent
    per ``DecisionRequest``, index 0; it ends when ``matches`` matches have ended."""
    import grpc

    from levata.v1 import arena_pb2, arena_pb2_grpc

    out: asyncio.Queue[arena_pb2.PlayRequest | None] = asyncio.Queue()
    out.put_nowait(
        arena_pb2.PlayRequest(hello=arena_pb2.Hello(token=token, name=name, protocol_version="1"))
    )

    async def outgoing():
        while (msg := await out.get()) is not None:
            yield msg

    ended = 0
    async with grpc.aio.insecure_channel(server) as channel:
        call = arena_pb2_grpc.ArenaServiceStub(channel).Play(outgoing())
        async for msg in call:
            kind = msg.WhichOneof("message")
            if kind == "request":
                req = msg.request
                reply = arena_pb2.ActionReply(
                    match_id=req.match_id,
                    request_id=req.request_id,
                    state_version=req.state_version,
                    index=0,
                )
                out.put_nowait(arena_pb2.PlayRequest(reply=reply))
            elif kind == "welcome":
                welcomed.set()
            elif kind == "match_end":
                ended += 1
                if ended == matches:
                    out.put_nowait(None)
                    call.cancel()
                    return
            elif kind == "bundle":
                raise AssertionError("the referee bundled for a bot that did not ask")


async def _play_plain(server: str, names: list[str], matches: dict[str, int], ready: Path) -> None:
    welcomed = [asyncio.Event() for _ in names]
    streams = [
        _plain_stream(server, os.environ[f"LEVATA_TOKEN_{i}"], name, matches[name], welcomed[i])
        for i, name in enumerate(names)
    ]

    async def announce() -> None:
        for w in welcomed:
            await w.wait()
        ready.touch()

    await asyncio.gather(*streams, announce())


def bots_main(argv: list[str]) -> int:
    """A bot process: ``--bots KIND SERVER READY NAME:MATCHES ...`` (KIND ``sdk`` or
    ``plain``; the file READY is created once every stream is welcomed); tokens in
    ``LEVATA_TOKEN_<i>``."""
    kind, server, ready, specs = argv[0], argv[1], Path(argv[2]), argv[3:]
    names = [s.rsplit(":", 1)[0] for s in specs]
    matches = {s.rsplit(":", 1)[0]: int(s.rsplit(":", 1)[1]) for s in specs}
    asyncio.run((_play_plain if kind == "plain" else _play)(server, names, matches, ready))
    return 0


def seat_names(k: int, streams: int) -> list[str]:
    return [f"fair{j * streams + k % streams}" for j in range(PLAYERS)]


def run_load(
    tmp: Path,
    matches: int = MATCHES,
    processes: int = PROCESSES,
    streams: int = STREAMS,
    timeout_s: float = 600,
    kind: str = "sdk",
    while_playing: int = 0,
) -> dict[str, float]:
    """Play ``matches`` one-deal matches on a ``levata serve`` process with bots of ``kind``.
    All but ``while_playing`` of them are created before the bots connect, so that they all
    play at once; the rest once the bots are connected, all calls in flight at once, while
    the first play. Returns the figures, read from the referee's database and its ``/proc``
    entry."""
    from live import ServeProcess

    serve = ServeProcess(tmp)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        names = [f"fair{i}" for i in range(PLAYERS * streams)]
        held = {n: 0 for n in names}
        for k in range(matches):
            for n in seat_names(k, streams):
                held[n] += 1
        tokens = {n: serve.register(n) for n in names}
        early = matches - while_playing
        started = time.monotonic()
        ids = create_matches(serve, range(early), streams, timeout_s)
        created = time.monotonic() - started
        groups = [names[p::processes] for p in range(processes)]
        ready = [tmp / f"bots-{p}.ready" for p in range(processes)]
        for group, flag in zip(groups, ready, strict=True):
            env = {**os.environ}
            env.update({f"LEVATA_TOKEN_{i}": tokens[n] for i, n in enumerate(group)})
            cmd = [sys.executable, __file__, "--bots", kind, serve.address, str(flag)]
            cmd += [f"{n}:{held[n]}" for n in group]
            procs.append(subprocess.Popen(cmd, env=env))
        end = time.monotonic() + timeout_s
        while not all(f.exists() for f in ready):  # every stream connected: play has begun
            assert time.monotonic() < end, "the bots did not connect"
            assert all(p.poll() in (None, 0) for p in procs), "a bot process died"
            time.sleep(0.05)
        playing = time.monotonic()
        ids += create_matches(serve, range(early, matches), streams, timeout_s)
        created_playing = time.monotonic() - playing
        while count(serve.db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'") < len(ids):
            assert time.monotonic() < end, "the matches did not finish"
            assert all(p.poll() in (None, 0) for p in procs), "a bot process died"
            time.sleep(0.2)
        wall = time.monotonic() - playing
        cpu = cpu_seconds(serve.proc.pid)
        waited = resource.getrusage(resource.RUSAGE_CHILDREN)
        for p in procs:
            assert p.wait(timeout=60) == 0
        bots = resource.getrusage(resource.RUSAGE_CHILDREN)
        bots_cpu = bots.ru_utime + bots.ru_stime - waited.ru_utime - waited.ru_stime
        got = figures(serve.db, ids, wall)
        return {
            **got,
            "create_s": created,  # before the bots connect
            "create_playing_s": created_playing,  # after
            "referee_cpu_s": cpu,
            "bots_cpu_s": bots_cpu,
        }
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        serve.stop()


def create_matches(serve, ks: range, streams: int, timeout_s: float) -> list[str]:
    """Create matches ``ks`` with every ``CreateMatch`` call in flight at once, as a
    tournament runner would. On a channel of its own: the referee lets an idle connection go
    (``idle_connection_ms``), and calls racing that would be cancelled."""
    import grpc

    from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

    from live import AdminAuth

    policy = arena_pb2.MatchPolicy(move_ms=MOVE_MS, bank_ms=0, max_strikes=1000, startup_ms=300_000)
    channel = grpc.intercept_channel(
        grpc.insecure_channel(serve.address), AdminAuth(serve.admin_token)
    )
    with contextlib.closing(channel):
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        calls = [
            admin.CreateMatch.future(
                admin_pb2.CreateMatchRequest(
                    game="whist",
                    players=PLAYERS,
                    seat_bots=seat_names(k, streams),
                    seed=k,
                    options={"deal_size": "1"},
                    policy=policy,
                ),
                timeout=timeout_s,
            )
            for k in ks
        ]
        return [c.result().match.match_id for c in calls]


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def count(db: Path, sql: str, *args: object) -> int:
    """One number from the referee's file, read as another process would."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as c:
        return c.execute(sql, args).fetchone()[0]


def figures(path: Path, ids: list[str], wall: float) -> dict[str, float]:
    """Strikes, unfinished matches and reply latencies, from the referee's own records."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        marks = ",".join("?" * len(ids))
        unfinished = db.execute(
            f"SELECT COUNT(*) FROM matches WHERE id IN ({marks}) AND status != 'finished'", ids
        ).fetchone()[0]
        strikes = db.execute(
            f"SELECT COUNT(*) FROM replies WHERE match_id IN ({marks}) AND outcome = 'timeout'",
            ids,
        ).fetchone()[0]
        lat = sorted(
            r[0]
            for r in db.execute(
                f"SELECT latency_ms FROM replies WHERE match_id IN ({marks})"
                " AND outcome = 'applied'",
                ids,
            )
        )
    return {
        "matches": len(ids),
        "unfinished": unfinished,
        "decisions": len(lat) + strikes,
        "strikes": strikes,
        "wall_s": wall,
        "p50_ms": lat[len(lat) // 2] if lat else 0.0,
        "p99_ms": lat[int(len(lat) * 0.99)] if lat else 0.0,
        "max_ms": lat[-1] if lat else 0.0,
    }


def test_a_request_still_queued_does_not_stop_the_referee(tmp_path):
    """A request the connection's writer has not sent yet (a writer behind, as at 1,000
    matches on unbundled streams) leaves the referee's event loop free, and once it is
    written its clock strikes on time.

    The referee used to wake at the earliest the deadline could be (as if the clock had
    started when the request was built) and, the request still queued, look again without
    yielding until the 5 s allowance was over: every other match and every writer stood still,
    so more requests stayed queued past their clocks. Here the writer is held by hand; a
    heartbeat task shows whether the loop runs.
    """
    from levata.engine import game
    from levata.server.match.clocks import Policy
    from levata.server.match.referee import Referee
    from levata.server.match.seats import DELIVERY_ALLOWANCE_S
    from levata.server.match.store import Store

    async def play() -> tuple[float, int, float]:
        store = Store(tmp_path / "m.db")
        policy = Policy(move_ms=100, bank_ms=0, startup_ms=5_000, max_strikes=10)
        bots = ["a", "b", "c", "d"]
        store.create_match("m", "whist", 4, {"deal_size": 1}, 3, bots, policy.__dict__)
        spec = game("whist")
        options = spec.resolve_options({"deal_size": "1"})
        ref = Referee("m", spec, 4, options, 3, bots, policy, store)
        unsent: list[tuple[object, object]] = []  # what a writer behind has not sent yet
        for seat in range(4):
            ref.attach(seat, lambda msg, on_written=None: unsent.append((msg, on_written)))
        task = asyncio.create_task(ref.run())
        gaps, start = [], time.monotonic()
        while time.monotonic() - start < 1.0:  # ten move clocks
            before = time.monotonic()
            await asyncio.sleep(0.01)
            gaps.append(time.monotonic() - before)
        asking = next((s for s in ref.seats if s.pending is not None), ref.seats[0])
        early = sum(s.strikes for s in ref.seats)  # no clock has started: nothing was written
        written = time.monotonic()
        for _, on_written in unsent:  # the writer catches up
            if on_written is not None:
                on_written()
        while asking.strikes == 0 and time.monotonic() - written < 2 * DELIVERY_ALLOWANCE_S:
            await asyncio.sleep(0.01)
        struck = time.monotonic() - written
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        store.close()
        return max(gaps), early, struck

    worst_gap, early, struck = asyncio.run(play())
    assert worst_gap < 0.5, f"the event loop stood still for {worst_gap:.1f} s"
    assert early == 0, f"{early} strike(s) before any request was written"
    assert struck < 0.1 + 2.0, f"struck {struck:.1f} s after the request was written"


def test_a_reply_counts_by_when_it_was_read_not_when_it_was_judged(tmp_path):
    """A reply read before its deadline counts even when the match reaches the deadline
    before it judges the reply (here another item was queued before it). The referee used to
    strike it: the match takes one item a turn and looked at the clock in between. The event
    loop is held by hand (``time.sleep``) to put the match behind.
    """
    from levata.engine import game
    from levata.server.match.clocks import Policy
    from levata.server.match.referee import Referee
    from levata.server.match.store import Store
    from levata.v1 import arena_pb2

    async def play() -> tuple[int, list[str]]:
        store = Store(tmp_path / "m.db")
        policy = Policy(move_ms=100, bank_ms=0, startup_ms=5_000, max_strikes=10)
        bots = ["a", "b", "c", "d"]
        store.create_match("m", "whist", 4, {"deal_size": 1}, 3, bots, policy.__dict__)
        spec = game("whist")
        options = spec.resolve_options({"deal_size": "1"})
        ref = Referee("m", spec, 4, options, 3, bots, policy, store)
        refused: list[str] = []

        def outbox(msg, on_written=None) -> None:  # a writer that keeps up
            if on_written is not None:
                on_written()
            if isinstance(msg, arena_pb2.PlayResponse) and msg.HasField("error"):
                refused.append(msg.error.message)

        for seat in range(4):
            ref.attach(seat, outbox)
        task = asyncio.create_task(ref.run())

        async def asked() -> tuple[int, object]:
            while True:
                for i, s in enumerate(ref.seats):
                    if s.pending is not None and s.pending.turn.started_at is not None:
                        return i, s.pending
                await asyncio.sleep(0.001)

        def answer(i: int, p, request_id: str = "") -> None:
            msg = arena_pb2.ActionReply(
                match_id="m", request_id=request_id or p.request_id, state_version=p.version
            )
            msg.index = 0
            ref.reply(frozenset({i}), msg, outbox)

        first, p = await asked()
        answer(first, p, request_id="nobody-asked")  # queued ahead: judged first
        answer(first, p)  # read now, in time
        time.sleep(0.3)  # the match is held past the deadline before it judges either
        while ref.seats[first].pending is p:
            await asyncio.sleep(0.001)
        strikes = ref.seats[first].strikes
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        store.close()
        return strikes, refused

    strikes, refused = asyncio.run(play())
    assert strikes == 0, "a reply read in time was struck"
    assert any("nobody-asked" in r for r in refused), refused


def test_a_reply_read_after_its_deadline_is_struck_even_if_judged_first(tmp_path):
    """The other side of the rule above: a reply read after its deadline does not count,
    even when the match takes it up before it looks at the clock (the loop was held past the
    deadline, the reply queued, then judged first). It is refused as timed out, and the seat
    is struck: a default move is played for it. The referee used to apply it."""
    from levata.engine import game
    from levata.server.match.clocks import Policy
    from levata.server.match.referee import Referee
    from levata.server.match.store import Store
    from levata.v1 import arena_pb2

    async def play() -> tuple[int, list[str], list[tuple[str, str]]]:
        store = Store(tmp_path / "m.db")
        policy = Policy(move_ms=100, bank_ms=0, startup_ms=5_000, max_strikes=10)
        bots = ["a", "b", "c", "d"]
        store.create_match("m", "whist", 4, {"deal_size": 1}, 3, bots, policy.__dict__)
        spec = game("whist")
        options = spec.resolve_options({"deal_size": "1"})
        ref = Referee("m", spec, 4, options, 3, bots, policy, store)
        refused: list[str] = []

        def outbox(msg, on_written=None) -> None:
            if on_written is not None:
                on_written()
            if isinstance(msg, arena_pb2.PlayResponse) and msg.HasField("error"):
                refused.append(msg.error.message)

        for seat in range(4):
            ref.attach(seat, outbox)
        task = asyncio.create_task(ref.run())
        while True:
            started = [
                (i, s.pending)
                for i, s in enumerate(ref.seats)
                if s.pending is not None and s.pending.turn.started_at is not None
            ]
            if started:
                break
            await asyncio.sleep(0.001)
        first, p = started[0]
        time.sleep(0.3)  # the loop is held past the deadline: nothing has looked at the clock
        msg = arena_pb2.ActionReply(match_id="m", request_id=p.request_id, state_version=p.version)
        msg.index = 0
        ref.reply(frozenset({first}), msg, outbox)  # read now: 200 ms late
        while ref.seats[first].pending is p:
            await asyncio.sleep(0.001)
        strikes = ref.seats[first].strikes
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        rows = [(r["request_id"], r["outcome"]) for r in store.replies("m")]
        store.close()
        return strikes, refused, [r for r in rows if r[0] == p.request_id]

    strikes, refused, rows = asyncio.run(play())
    assert strikes == 1, "a reply read after its deadline was applied"
    assert any("timed out" in r for r in refused), refused
    assert [outcome for _, outcome in rows] == ["timeout"], rows


@pytest.mark.parametrize(
    ("kind", "while_playing"),
    [
        # Plain bots: every match waits when they connect, so all 1,000 start at once and
        # the referee writes one message per event. Before the fix: 7,400-8,000 strikes.
        ("plain", 0),
        # SDK bots: connected first, then every CreateMatch in flight at once, so creation
        # competes with play. (With all 1,000 starting at the same instant, bundles make each
        # wave of 1,000 decisions one burst: hundreds of matches become ready in one turn of
        # the event loop, turns of 0.3 s, and a connection's reader, one message a turn, then
        # reads some replies about a second after their requests were written; on a loaded
        # machine 2 runs of 5 had 124-161 strikes. Not yet fixed: see docs/security.md.)
        ("sdk", MATCHES),
    ],
)
def test_no_strikes_at_a_thousand_concurrent_matches(tmp_path, kind, while_playing):
    got = run_load(tmp_path, kind=kind, while_playing=while_playing)
    print(kind, got)
    assert got["unfinished"] == 0, got
    assert got["decisions"] == MATCHES * 2 * PLAYERS, got  # 2 decisions a seat in one deal
    assert got["strikes"] == 0, got


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--bots":
        return bots_main(sys.argv[2:])
    p = argparse.ArgumentParser(description="fair clocks under load: figures")
    p.add_argument("--matches", type=int, default=MATCHES)
    p.add_argument("--processes", type=int, default=PROCESSES)
    p.add_argument("--streams", type=int, default=STREAMS)
    p.add_argument("--kind", choices=("sdk", "plain"), default="sdk")
    p.add_argument(
        "--while-playing",
        type=int,
        default=0,
        help="of the matches, how many are created once the bots are connected (default 0)",
    )
    args = p.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        got = run_load(
            Path(tmp),
            args.matches,
            args.processes,
            args.streams,
            kind=args.kind,
            while_playing=args.while_playing,
        )
    for k, v in got.items():
        print(f"{k:>13}: {v:,.1f}" if isinstance(v, float) else f"{k:>13}: {v:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
