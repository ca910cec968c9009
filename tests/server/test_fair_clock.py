"""Fair clocks under load: 1,000 concurrent one-deal Whist matches, 1 s per move, no bank.

The bots answer at once (index 0, no view built), so every strike would be the referee's own
slowness billed to a bot. A seat's clock starts when its request is written to its stream
and a reply counts when it is read from it (``levata.server.match.referee``), so however long the
referee queues, zero strikes is the right answer.

The bots are a few real processes, each holding many seats over a few streams: this file run
as ``python tests/server/test_fair_clock.py --bots NAME...`` with the tokens in
``LEVATA_TOKEN_<i>``. Run as ``python tests/server/test_fair_clock.py --matches 1000`` it
prints the figures (strikes, worst latency from request written to reply read) without pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

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


async def _play(server: str, names: list[str], matches: dict[str, int]) -> None:
    from levata.bots.sdk import BotClient

    full = os.environ.get("FAIR_DECIDER") == "random"
    from levata.bots import make_bot

    clients = [
        BotClient(
            (lambda g, s, m: make_bot("random", g, seed=s)) if full else (lambda *_: None),
            server,
            os.environ[f"LEVATA_TOKEN_{i}"],
            name=name,
            max_matches=matches[name],
            decider=None if full else _first_legal,
            batch_events=os.environ.get("FAIR_BATCH", "1") == "1",
            bundle=os.environ.get("FAIR_BUNDLE", "1") == "1",
        )
        for i, name in enumerate(names)
    ]
    await asyncio.gather(*(c.run() for c in clients))


async def _plain_stream(server: str, token: str, name: str, matches: int) -> None:
    """One stream of a bot written from the proto alone: a plain ``Hello`` (no
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
            elif kind == "match_end":
                ended += 1
                if ended == matches:
                    out.put_nowait(None)
                    call.cancel()
                    return
            elif kind == "bundle":
                raise AssertionError("a referee bundled for a bot that did not ask")


async def _play_plain(server: str, names: list[str], matches: dict[str, int]) -> None:
    await asyncio.gather(
        *(
            _plain_stream(server, os.environ[f"LEVATA_TOKEN_{i}"], name, matches[name])
            for i, name in enumerate(names)
        )
    )


def bots_main(argv: list[str]) -> int:
    """A bot process: ``--bots KIND SERVER NAME:MATCHES ...`` (KIND ``sdk`` or ``plain``);
    tokens in ``LEVATA_TOKEN_<i>``."""
    kind, server, specs = argv[0], argv[1], argv[2:]
    names = [s.rsplit(":", 1)[0] for s in specs]
    matches = {s.rsplit(":", 1)[0]: int(s.rsplit(":", 1)[1]) for s in specs}
    asyncio.run((_play_plain if kind == "plain" else _play)(server, names, matches))
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
    matches_first: bool = False,
) -> dict[str, float]:
    """Play ``matches`` concurrent one-deal matches on a ``levata serve`` process; returns
    the figures, read from its database."""
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
        groups = [names[p::processes] for p in range(processes)]

        def start_bots() -> None:
            for group in groups:
                env = {**os.environ}
                env.update({f"LEVATA_TOKEN_{i}": tokens[n] for i, n in enumerate(group)})
                cmd = [sys.executable, __file__, "--bots", kind, serve.address]
                cmd += [f"{n}:{held[n]}" for n in group]
                procs.append(subprocess.Popen(cmd, env=env))

        if not matches_first:
            start_bots()
        started = time.monotonic()
        policy = {"move_ms": MOVE_MS, "bank_ms": 0, "max_strikes": 1000, "startup_ms": 300_000}
        ids = [
            serve.create("whist", seat_names(k, streams), seed=k, options={"deal_size": "1"},
                         **policy)
            for k in range(matches)
        ]  # fmt: skip
        created = time.monotonic() - started
        if matches_first:
            start_bots()
        end = started + timeout_s
        while count(serve.db, "SELECT COUNT(*) FROM matches WHERE status = 'finished'") < matches:
            assert time.monotonic() < end, "the matches did not finish"
            assert all(p.poll() in (None, 0) for p in procs), "a bot process died"
            time.sleep(0.2)
        wall = time.monotonic() - started
        cpu = cpu_seconds(serve.proc.pid)
        for p in procs:
            assert p.wait(timeout=60) == 0
        return {**figures(serve.db, ids, wall), "create_s": created, "referee_cpu_s": cpu}
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        serve.stop()


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


def test_no_strikes_at_a_thousand_concurrent_matches(tmp_path):
    got = run_load(tmp_path)
    print(got)
    assert got["unfinished"] == 0, got
    assert got["decisions"] == MATCHES * 2 * PLAYERS, got
    assert got["strikes"] == 0, got


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--bots":
        return bots_main(sys.argv[2:])
    p = argparse.ArgumentParser(description="fair clocks under load: figures")
    p.add_argument("--matches", type=int, default=MATCHES)
    p.add_argument("--processes", type=int, default=PROCESSES)
    p.add_argument("--streams", type=int, default=STREAMS)
    p.add_argument("--kind", choices=("sdk", "plain"), default="sdk")
    p.add_argument("--matches-first", action="store_true")
    args = p.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        got = run_load(Path(tmp), args.matches, args.processes, args.streams, kind=args.kind, matches_first=args.matches_first)
    for k, v in got.items():
        print(f"{k:>10}: {v:,.1f}" if isinstance(v, float) else f"{k:>10}: {v:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
