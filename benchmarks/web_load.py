"""The web table under load: 100 spectators on one live match, and what they cost the referee
(issue 33: its decision latency within 10% of its latency without spectators).

    python benchmarks/web_load.py [--spectators 100] [--pairs 12] [--no-one] [--game whist]

What runs:

* the referee with its web table: ``levata serve --web PORT`` on free loopback ports, a
  temporary ``--db``, tokens for the bots ``seat0`` .. ``seatN`` in an owner-only file; the web
  table is a process of its own (a child of the referee's), watching the match through the
  referee's ``WatchMatch`` (one watch, however many spectators) and writing to the spectators;
* per match, one random-bot process per seat (``python -m levata.bots run random``), started
  only once the match exists and, in the loaded runs, once every spectator's event stream is
  open: every decision of a loaded match is taken with all the spectators watching;
* the spectators: raw HTTP/1.1 connections to ``/live/ID/events`` (server-sent events) opened
  from this process, each reading its stream to the end (the match's last message). Each
  spectator's stream is checked: it must end with the match finished.

Matches come in blocks: one without spectators, one with one spectator (what watching costs
at all: every public event narrated, a frame drawn a push) and one with 100 (what each more
spectator adds), all of the same seed (the same deal and, the bots being seeded alike, the
same decisions); the order turns from block to block and reverses every other round, so that
drift of a shared machine, and whatever favours a block's first or last match, falls on every
condition alike. Per match:

* **the referee's CPU time a decision**: the referee process's CPU time (every thread: its event
  loop, where the watch is served, and gRPC's; the scheduler's count of each thread's time on
  a CPU, in ns) from the bots' start to the match's end (its last message written to every
  spectator; their hang-ups after it are not counted), over the match's applied replies. Unlike wall
  time it is not lengthened by other processes taking the cores (on a shared machine: the
  web table's process, the spectators' own readers in this process, the bots, other work):
  it is the work the spectators add to the referee's. The web table process's CPU time is
  printed apart (in clock ticks: coarse);
* **the decision latency**: the ``latency_ms`` of every applied reply in the referee's records
  (from building a DecisionRequest to handling its reply: any wait in its event loop is in it),
  its median, 90th percentile and mean.

Per block, the ratio watched / unwatched of each; printed: the median ratio over the blocks
with a bootstrap 95% interval (the blocks resampled), and the pooled latency percentiles.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
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
from collections.abc import Callable
from dataclasses import dataclass
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
        # the web table's own process (levata serve starts it): its CPU time is told apart
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        self.web_pid = int(children.split()[0]) if children.split() else None
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

    def cpu(self) -> tuple[dict[str, int], float]:
        """The referee process's CPU time so far: each thread's (ns on a CPU, from the
        scheduler: fine-grained), and the whole process's (seconds, in clock ticks: ended
        threads too, but 10 ms steps, a few percent of a match)."""
        threads = {}
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError):
                threads[task.name] = int((task / "schedstat").read_text().split()[0])
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return threads, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def web_cpu(self) -> float:
        """The web table process's CPU time so far (seconds, in clock ticks); 0 without one."""
        if self.web_pid is None:
            return 0.0
        fields = Path(f"/proc/{self.web_pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def cpu_between(
        before: tuple[dict[str, int], float], after: tuple[dict[str, int], float]
    ) -> float:
        """Seconds of the referee's CPU time between two readings: the threads' sum when no
        thread ended between them, else the process's (coarser, but whole)."""
        if set(before[0]) <= set(after[0]):
            return sum(ns - before[0].get(tid, 0) for tid, ns in after[0].items()) / 1e9
        return after[1] - before[1]

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


async def spectate(
    port: int, match_id: str, opened: asyncio.Event, leave: asyncio.Event
) -> tuple[int, bool]:
    """One spectator: read the match's event stream to its end, then (once ``leave`` is set)
    hang up; (messages, ended finished)."""
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
    await leave.wait()  # the connections' ends come after the count, not within it
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
    return messages, b'"status":"finished"' in seen


@dataclass
class Match:
    """One match's figures: its decisions' latencies, the referee's CPU time in it."""

    latencies: list[float]
    cpu_s: float
    messages: int  # that each spectator read (0 without spectators)
    web_cpu_s: float = 0.0  # the web table process's CPU time meanwhile (10 ms ticks)

    @property
    def cpu_ms_a_decision(self) -> float:
        return 1000 * self.cpu_s / len(self.latencies)


async def one_match(ref: Referee, game: str, seed: int, spectators: int) -> Match:
    """A match watched by ``spectators``: its latencies and the referee's CPU time."""
    match_id = await asyncio.to_thread(ref.create, game, seed)
    watching = []
    leave = asyncio.Event()
    for _ in range(spectators):
        opened = asyncio.Event()
        watching.append(asyncio.create_task(spectate(ref.web_port, match_id, opened, leave)))
        await asyncio.wait_for(opened.wait(), 30)  # its stream is open: the next one
    await asyncio.sleep(0.2)  # the spectators' arrival is not counted: the play is
    cpu, web_cpu = ref.cpu(), ref.web_cpu()
    bots = ref.start_bots(game, seed)
    for p in bots:
        await asyncio.to_thread(p.wait, 300)
    lat: list[float] | None = None
    for _ in range(100):  # the record is written before the end is told; this is margin
        with contextlib.suppress(RuntimeError):
            lat = ref.latencies(match_id)
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.2)  # the last message is written to every spectator: counted
    spent = ref.cpu_between(cpu, ref.cpu())
    web_spent = ref.web_cpu() - web_cpu
    leave.set()
    done = await asyncio.gather(*watching)
    assert all(finished for _, finished in done), "a spectator's stream did not see the end"
    await asyncio.sleep(0.2)  # the hang-ups are handled before the next match
    lat = lat if lat is not None else ref.latencies(match_id)
    if os.environ.get("WEB_LOAD_SLOW"):  # which decisions were slow (ms), by their index
        print([(i, round(x, 1)) for i, x in enumerate(lat) if x > 1])
    return Match(lat, spent, min((n for n, _ in done), default=0), web_spent)


def summary(xs: list[float]) -> tuple[float, float, float, float, float]:
    """p50, p90, p99, mean and max."""
    xs = sorted(xs)
    at = [xs[int(q * (len(xs) - 1))] for q in (0.9, 0.99)]
    return statistics.median(xs), at[0], at[1], statistics.fmean(xs), xs[-1]


def median_with_interval(ratios: list[float], resamples: int = 10_000) -> tuple[float, ...]:
    """The median of ``ratios`` and a bootstrap 95% percentile interval of it (the pairs
    resampled with replacement; seeded: the same figures, the same interval).

    >>> median_with_interval([1.0, 1.0, 1.0])
    (1.0, 1.0, 1.0)
    """
    rng = random.Random(33)
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples))
    return statistics.median(ratios), meds[int(0.025 * resamples)], meds[int(0.975 * resamples)]


def order_of(crowds: list[int], k: int) -> list[int]:
    """The order block ``k`` plays its crowds in: rotated from block to block, and reversed
    every other round, so that each crowd comes first, middle and last alike.

    >>> [order_of([0, 1, 100], k) for k in range(4)]
    [[0, 1, 100], [1, 100, 0], [100, 0, 1], [100, 1, 0]]
    """
    turn = k % len(crowds)
    order = crowds[turn:] + crowds[:turn]
    return order[::-1] if (k // len(crowds)) % 2 else order


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spectators", type=int, default=100)
    ap.add_argument(
        "--one", action=argparse.BooleanOptionalAction, default=True,
        help="also a match with one spectator in each block: what watching costs at all (the"
        " events narrated, the frames drawn) apart from what each spectator adds",
    )  # fmt: skip
    ap.add_argument("--pairs", type=int, default=12, help="blocks (matches of each condition)")
    ap.add_argument("--game", default="whist")
    ap.add_argument("--players", type=int, default=3)
    args = ap.parse_args()
    crowds = [0, *([1] if args.one and args.spectators > 1 else []), args.spectators]
    with tempfile.TemporaryDirectory(prefix="levata-web-load-") as tmp:
        ref = Referee(Path(tmp), [f"seat{i}" for i in range(args.players)])
        blocks: list[dict[int, Match]] = []
        try:
            for k in range(args.pairs):
                block: dict[int, Match] = {}
                for watchers in order_of(crowds, k):
                    started = time.monotonic()
                    m = block[watchers] = await one_match(ref, args.game, 100 + k, watchers)
                    print(
                        f"block {k + 1:2d}: {watchers:4d} spectators, {len(m.latencies)} decisions,"
                        f" referee CPU {m.cpu_ms_a_decision:.3f} ms a decision, latency p50"
                        f" {summary(m.latencies)[0]:.3f} ms, {m.messages} messages a spectator"
                        f" ({time.monotonic() - started:.1f} s)",
                        flush=True,
                    )
                blocks.append(block)
        finally:
            ref.stop()
    report(args, crowds, blocks)


def report(args: argparse.Namespace, crowds: list[int], blocks: list[dict[int, Match]]) -> None:
    """The figures: pooled latencies, the referee's CPU, then per block the ratios to the
    match without spectators: their median and its interval."""
    n = args.spectators
    print(f"\n{args.game}, {args.players} random bots, {len(blocks)} blocks of matches")
    heads = ("p50 ms", "p90 ms", "p99 ms", "mean ms", "max ms")
    print("decision latency (wall), every decision of a condition together:")
    print(f"{'spectators':>22}" + "".join(f"{h:>10}" for h in heads) + f"{'decisions':>11}")
    pooled = {w: [x for b in blocks for x in b[w].latencies] for w in crowds}
    figures = {w: summary(xs) for w, xs in pooled.items()}
    for w in crowds:
        print(f"{w:>22}" + "".join(f"{x:10.3f}" for x in figures[w]) + f"{len(pooled[w]):11d}")

    cpu = {w: statistics.median(b[w].cpu_ms_a_decision for b in blocks) for w in crowds}
    print(
        "\nreferee CPU a decision (median over the blocks): "
        + ", ".join(f"{cpu[w]:.3f} ms with {w} spectators" for w in crowds)
    )
    web = {
        w: statistics.median(1000 * b[w].web_cpu_s / len(b[w].latencies) for b in blocks)
        for w in crowds
    }
    print(
        "web table process CPU a decision (median over the blocks; not the referee's): "
        + ", ".join(f"{web[w]:.3f} ms with {w} spectators" for w in crowds)
    )
    base = 1 if 1 in crowds and n > 1 else 0
    each = [(b[n].cpu_s - b[base].cpu_s) / max(1, b[n].messages * (n - base)) for b in blocks]
    print(
        f"what each spectator adds ({n} against {base}): {1e6 * statistics.median(each):.1f} us"
        " of the referee's CPU a message (median over the blocks)"
    )

    def ratios(w: int, of: Callable[[Match], float]) -> list[float]:
        return [of(b[w]) / of(b[0]) for b in blocks]

    print(f"\nagainst no spectators ({len(blocks)} blocks): median ratio [bootstrap 95% interval]")
    for w in crowds[1:]:
        rows = [
            ("referee CPU a decision", ratios(w, lambda m: m.cpu_ms_a_decision)),
            ("latency p50", ratios(w, lambda m: summary(m.latencies)[0])),
            ("latency p90", ratios(w, lambda m: summary(m.latencies)[1])),
            ("latency mean", ratios(w, lambda m: summary(m.latencies)[3])),
        ]
        for name, rs in rows:
            med, low, high = median_with_interval(rs)
            verdict = "within 10%" if high <= 1.10 else "over 10%" if low > 1.10 else "not settled"
            print(f"{w:4d} spectators, {name:>22}  {med:6.3f} [{low:.3f}, {high:.3f}]  {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
