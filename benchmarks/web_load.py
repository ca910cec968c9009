"""The web table under load: 100 spectators on one live match, and the referee's decision
latency with them against without (issue 33: within 10%).

    python benchmarks/web_load.py [--spectators 100] [--pairs 4] [--game whist]

What runs:

* the referee with its web table, as one process: ``levata serve --web PORT`` on free loopback
  ports, a temporary ``--db``, tokens for the bots ``seat0`` .. ``seatN`` in an owner-only file;
* per match, one random-bot process per seat (``python -m levata.bots run random``), started
  only once the match exists and, in the loaded runs, once every spectator's event stream is
  open: every decision of a loaded match is taken with all the spectators watching;
* the spectators: raw HTTP/1.1 connections to ``/live/ID/events`` (server-sent events) opened
  from this process, each reading its stream to the end (the match's last message). Each
  spectator's stream is checked: it must end with the match finished.

Matches come in pairs, one without spectators and one with them (same seed: the same deal and,
the bots being seeded alike, the same decisions), the order alternating from pair to pair so
that drift of a shared machine falls on both alike. From the referee's records: the
``latency_ms`` of every applied reply (the referee's time from building a DecisionRequest to
handling its reply: any queueing in its event loop, where the web table also runs, is in it),
p50, p90 and mean per condition, and the ratios loaded / bare.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import secrets
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

from levata.server.match.auth import admin_metadata
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2
from levata.wire.credentials import TOKEN_ENV, write_secret

#: Clocks no random bot runs out of: a strike would put a default move in the figures.
POLICY = arena_pb2.MatchPolicy(
    move_ms=60_000, bank_ms=600_000, startup_ms=120_000, max_strikes=1000
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Referee:
    """``levata serve --web`` as a process of its own."""

    def __init__(self, workdir: Path, bots: list[str]) -> None:
        self.workdir = workdir
        self.tokens = {b: secrets.token_urlsafe(24) for b in bots}
        tokens_file, admin_file = workdir / "tokens", workdir / "admin-token"
        write_secret(tokens_file, "\n".join(f"{n} {t}" for n, t in self.tokens.items()))
        self.db = workdir / "bench.db"
        self.web_port = free_port()
        cmd = [sys.executable, "-m", "levata.server.cli", "serve", "--port", "0"]
        cmd += ["--web", str(self.web_port), "--db", str(self.db)]
        cmd += ["--tokens-file", str(tokens_file), "--admin-token-file", str(admin_file)]
        self.log = workdir / "server.log"
        with self.log.open("w") as err:
            self.proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=err, text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
            )  # fmt: skip
        assert self.proc.stdout is not None
        found = re.search(r"serving on (\S+):(\d+)", self.proc.stdout.readline())
        if found is None:
            raise RuntimeError(f"the referee did not start:\n{self.log.read_text()}")
        self.address = f"{found.group(1)}:{found.group(2)}"
        for _ in range(5):  # the web table's line comes after the admin token's
            if "web table on" in self.proc.stdout.readline():
                break
        else:
            raise RuntimeError(f"the web table did not start:\n{self.log.read_text()}")
        self.admin = admin_pb2_grpc.AdminServiceStub(grpc.insecure_channel(self.address))
        self.metadata = admin_metadata(admin_file.read_text().strip())

    def create(self, game: str, seed: int) -> str:
        request = admin_pb2.CreateMatchRequest(
            game=game, players=len(self.tokens), seat_bots=list(self.tokens), seed=seed,
            policy=POLICY,
        )  # fmt: skip
        return self.admin.CreateMatch(request, metadata=self.metadata, timeout=30).match.match_id

    def start_bots(self, game: str, seed: int) -> list[subprocess.Popen[bytes]]:
        procs = []
        for i, (_name, token) in enumerate(self.tokens.items()):
            cmd = [sys.executable, "-m", "levata.bots", "run", "random", "--game", game]
            cmd += ["--server", self.address, "--seed", str(seed * 10 + i), "--matches", "1"]
            procs.append(
                subprocess.Popen(
                    [*cmd, "--quiet"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={**os.environ, TOKEN_ENV: token},
                )
            )
        return procs

    def latencies(self, match_id: str) -> list[float]:
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as con:
            status = con.execute("SELECT status FROM matches WHERE id = ?", (match_id,)).fetchone()
            if status is None or status[0] != "finished":
                raise RuntimeError(f"match {match_id} did not finish: {status}")
            rows = con.execute(
                "SELECT latency_ms FROM replies WHERE outcome = 'applied' AND match_id = ?",
                (match_id,),
            ).fetchall()
        return [r[0] for r in rows]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


async def spectate(port: int, match_id: str, opened: asyncio.Event) -> tuple[int, bool]:
    """One spectator: read the match's event stream to its end; (messages, ended finished)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /live/{match_id}/events HTTP/1.1\r\nHost: bench\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    seen = b""
    messages = 0
    while True:
        chunk = await reader.read(1 << 16)
        if not chunk:
            break
        if not opened.is_set() and b"data: " in chunk:
            opened.set()
        messages += chunk.count(b"data: ")
        seen = (seen + chunk)[-4096:]
        if b'"status":"finished"' in seen or b'"status":"aborted"' in seen:
            break
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
    return messages, b'"status":"finished"' in seen


async def one_match(ref: Referee, game: str, seed: int, spectators: int) -> list[float]:
    """A match watched by ``spectators``; the referee's decision latencies in it."""
    match_id = await asyncio.to_thread(ref.create, game, seed)
    watching = []
    for _ in range(spectators):
        opened = asyncio.Event()
        watching.append(asyncio.create_task(spectate(ref.web_port, match_id, opened)))
        await asyncio.wait_for(opened.wait(), 30)  # its stream is open: the next one
    bots = ref.start_bots(game, seed)
    done = await asyncio.gather(*watching)
    for p in bots:
        await asyncio.to_thread(p.wait, 300)
    assert all(finished for _, finished in done), "a spectator's stream did not see the end"
    for _ in range(100):  # the record is written before the end is told; this is margin
        with contextlib.suppress(RuntimeError):
            return ref.latencies(match_id)
        await asyncio.sleep(0.1)
    return ref.latencies(match_id)


def summary(xs: list[float]) -> tuple[float, float, float, float, float]:
    """p50, p90, p99, mean and max."""
    xs = sorted(xs)
    at = [xs[int(q * (len(xs) - 1))] for q in (0.9, 0.99)]
    return statistics.median(xs), at[0], at[1], statistics.fmean(xs), xs[-1]


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spectators", type=int, default=100)
    ap.add_argument("--pairs", type=int, default=4, help="matches of each condition")
    ap.add_argument("--game", default="whist")
    ap.add_argument("--players", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="levata-web-load-") as tmp:
        ref = Referee(Path(tmp), [f"seat{i}" for i in range(args.players)])
        bare: list[float] = []
        loaded: list[float] = []
        paired: list[tuple[float, float]] = []  # per pair: loaded / bare, p50 and mean
        try:
            for k in range(args.pairs):
                order = (0, args.spectators) if k % 2 == 0 else (args.spectators, 0)
                pair: dict[int, list[float]] = {}
                for watchers in order:
                    started = time.monotonic()
                    lat = await one_match(ref, args.game, 100 + k, watchers)
                    (loaded if watchers else bare).extend(lat)
                    pair[watchers] = lat
                    if os.environ.get("WEB_LOAD_SLOW"):
                        print([(i, round(x)) for i, x in enumerate(lat) if x > 5])
                    print(
                        f"pair {k + 1}: {watchers:4d} spectators, {len(lat)} decisions,"
                        f" p50 {summary(lat)[0]:.3f} ms ({time.monotonic() - started:.1f} s)",
                        flush=True,
                    )
                lo, ba = summary(pair[args.spectators]), summary(pair[0])
                paired.append((lo[0] / ba[0], lo[3] / ba[3]))
        finally:
            ref.stop()
    b, w = summary(bare), summary(loaded)
    print(f"\n{args.game}, {args.players} random bots, {args.pairs} matches per condition")
    heads = ("p50 ms", "p90 ms", "p99 ms", "mean ms", "max ms")
    print(f"{'':>22}" + "".join(f"{h:>10}" for h in heads) + f"{'decisions':>11}")
    label = f"{args.spectators} spectators"
    for name, xs, n in (("no spectators", b, len(bare)), (label, w, len(loaded))):
        print(f"{name:>22}" + "".join(f"{x:10.3f}" for x in xs) + f"{n:11d}")
    ratios = [w[i] / b[i] for i in range(len(b))]
    print(f"{'ratio':>22}" + "".join(f"{r:10.3f}" for r in ratios))
    p50s, means = sorted(p for p, _ in paired), sorted(m for _, m in paired)
    print(
        f"{'median of pair ratios':>22}{statistics.median(p50s):10.3f}{'':>20}"
        f"{statistics.median(means):10.3f}   (p50, mean; pairs: same seed, order alternating)"
    )
    within = {h: r <= 1.10 for h, r in zip(heads, ratios, strict=True)}
    print(
        "\nwithin 10% of no spectators: "
        + ", ".join(f"{h[:-3]} {'yes' if ok else 'NO'}" for h, ok in within.items())
    )


if __name__ == "__main__":
    asyncio.run(main())
