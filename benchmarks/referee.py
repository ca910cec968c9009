"""Referee throughput and decision latency: random bots, each in its own process, over gRPC.

    python benchmarks/referee.py [--levels 1,8,64] [--deal-size 0] [--matches-per-level 8]

What runs:

* the referee as its own process (``levata serve`` on a free loopback port, a temporary
  ``--db``, tokens for the bots ``seat0`` .. ``seat3``), so its memory can be read from
  ``/proc/PID/status``;
* four random-bot processes (``python -m levata.bots run random --game whist``), one per seat
  position. One connection can hold seats in many matches at once, so bot ``seatN`` sits in
  seat N of every concurrent match;
* 4-player Whist, the full 24-deal schedule by default (about 470 decisions a match) or one
  deal of ``--deal-size`` cards. A warm-up match connects the bots before anything is timed.

For each concurrency level C the benchmark creates C matches at once (``AdminService.
CreateMatch``, distinct seeds, a policy generous enough that no seat is ever struck), waits
until all have finished (polling ``GetMatch``) and repeats that round until at least
``--matches-per-level`` matches were played. Then, from the referee's own SQLite records:

* **decisions**: the actions the bots chose (``replies`` rows with outcome ``applied``);
* **wall s**: per round, first match created to last match finished (the referee's clock),
  summed over the rounds;
* **decisions/s**: decisions / wall s, all C matches together;
* **p50 / p99 ms**: the ``latency_ms`` of those replies: the referee's time from building a
  DecisionRequest to handling the reply, so serialising, both loopback hops, the bot's own
  decision and any queueing in the referee's event loop are all in it;
* **server RSS MB**: the referee's peak VmRSS while the level ran (sampled every 20 ms);
  **RSS MB/match**: per round, the peak less the VmRSS just before its matches were created,
  divided by C (mean over rounds); **kept MB/match**: idle VmRSS after the level less idle
  VmRSS before it, per match played (what finished matches go on holding).

Both the referee and the bots share this machine's cores, as they would on one host. Targets
(issue text): p50 <= 1 ms, p99 <= 5 ms, >= 2,000 decisions/s at 64 concurrent matches. Every
figure is reported, met or not. ``--server-profile FILE`` runs the referee under cProfile and
writes its stats there (profiling slows it down: do not compare those figures to the targets).

The floor: a bare grpc.aio bidirectional echo, laid out as the referee run is (one server
process, ``--echo-clients`` client processes, default 4 like the bots, sharing
``--echo-streams`` streams, default 64), each stream a write-then-read loop of 64-byte
messages. It is measured just before the referee starts and again after it stopped, and the
ratio is the referee's decisions/s at 64 concurrent matches over the mean of the two.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from rich import box
from rich.console import Console
from rich.table import Table

from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2
from levata.wire.credentials import TOKEN_ENV, write_secret

PLAYERS = 4
GAME = "whist"
BOTS = [f"seat{i}" for i in range(PLAYERS)]
#: Clocks no random bot can run out of: a strike would put a default move in the figures.
POLICY = arena_pb2.MatchPolicy(
    move_ms=60_000, bank_ms=600_000, startup_ms=120_000, max_strikes=1000
)
TARGET_P50_MS = 1.0
TARGET_P99_MS = 5.0
TARGET_RATE = 2_000.0
TARGET_LEVEL = 64
TABLE_STYLE = {"box": box.SIMPLE_HEAD, "pad_edge": False, "collapse_padding": True}
DONE = (admin_pb2.MATCH_STATUS_FINISHED, admin_pb2.MATCH_STATUS_ABORTED)

console = Console(highlight=False)


# -- processes ---------------------------------------------------------------------------------


def rss_mb(pid: int) -> float:
    """Resident set size of ``pid`` in MiB (0 once the process is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    m = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(m.group(1)) / 1024 if m else 0.0


def cpu_s(pid: int) -> float:
    """User plus system CPU seconds ``pid`` has used so far (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # the name in parentheses may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (a ``--workers`` referee's workers), [] if none."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class RssSampler:
    """Samples a process's RSS in a thread; :meth:`peak` since the last :meth:`reset`."""

    def __init__(self, pid: int, every_s: float = 0.02) -> None:
        self.pid = pid
        self.every_s = every_s
        self._peak = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            value = rss_mb(self.pid)
            with self._lock:
                self._peak = max(self._peak, value)

    def reset(self) -> float:
        """Start a new peak from the RSS now; returns that RSS."""
        with self._lock:
            self._peak = rss_mb(self.pid)
            return self._peak

    def peak(self) -> float:
        with self._lock:
            return max(self._peak, rss_mb(self.pid))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Processes:
    """Every child process this benchmark started, so all of them can be stopped."""

    workdir: Path
    server: subprocess.Popen[str] | None = None
    bots: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def start_server(
        self, tokens: dict[str, str], profile: Path | None, workers: int = 1
    ) -> tuple[str, str]:
        """Start ``levata serve`` on a free port (``--workers``: referee processes behind
        it); returns its ``HOST:PORT`` and admin token.

        Tokens travel in owner-only files, never on a command line."""
        db = self.workdir / "bench.db"
        tokens_file, admin_file = self.workdir / "tokens", self.workdir / "admin-token"
        write_secret(tokens_file, "\n".join(f"{n} {t}" for n, t in tokens.items()))
        cmd = [sys.executable]
        if profile is not None:
            cmd += ["-m", "cProfile", "-o", str(profile)]
        cmd += ["-m", "levata.server.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
        cmd += ["--db", str(db), "--tokens-file", str(tokens_file)]
        cmd += ["--admin-token-file", str(admin_file), "--workers", str(workers)]
        log = self.workdir / "server.log"
        self.logs.append(log)
        with log.open("w") as err:  # the child keeps its own copy of the descriptor
            self.server = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
            )
        assert self.server.stdout is not None
        line = self.server.stdout.readline()  # "levata referee serving on HOST:PORT (...)"
        m = re.search(r"serving on (\S+):(\d+)", line)
        if m is None:
            raise RuntimeError(f"the referee did not start: {line!r}\n{self.tail(log)}")
        return f"{m.group(1)}:{m.group(2)}", admin_file.read_text().strip()

    def start_bot(
        self, seat: int, server: str, token: str, matches: int, profile: Path | None = None
    ) -> None:
        log = self.workdir / f"seat{seat}.log"
        self.logs.append(log)
        cmd = [sys.executable]
        if profile is not None:
            cmd += ["-m", "cProfile", "-o", str(profile)]
        cmd += ["-m", "levata.bots", "run", "random", "--game", GAME]
        cmd += ["--server", server, "--seed", str(seat)]
        cmd += ["--matches", str(matches), "--quiet"]
        with log.open("wb") as err:
            self.bots.append(
                subprocess.Popen(
                    cmd,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    env={**os.environ, TOKEN_ENV: token},
                )
            )

    def cpu(self) -> tuple[float, float]:
        """CPU seconds used so far by the referee (with ``--workers``: the front and its
        workers) and by all the bots together."""
        server = 0.0
        if self.server is not None:
            server = sum(cpu_s(pid) for pid in (self.server.pid, *children(self.server.pid)))
        return server, sum(cpu_s(p.pid) for p in self.bots)

    def check_alive(self) -> None:
        """Raise with the logs' tails if the referee stopped or a bot failed."""
        named = [("the referee", self.server)]
        named += [(f"bot seat{i}", p) for i, p in enumerate(self.bots)]
        for name, p in named:
            if p is None or p.poll() is None or (p is not self.server and p.returncode == 0):
                continue  # a bot leaves with status 0 once it has played all its matches
            raise RuntimeError(
                f"{name} exited with status {p.returncode}\n"
                + "\n".join(self.tail(log) for log in self.logs)
            )

    @staticmethod
    def tail(log: Path, lines: int = 15) -> str:
        try:
            text = log.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return f"--- {log.name}\n" + "\n".join(text) if text else ""

    def stop(self) -> None:
        """Bots first (they may already have left), then the referee: SIGINT lets it flush
        its records and, under cProfile, write the profile; SIGKILL whatever lingers (a
        referee interrupted with matches still running does not always stop on SIGINT)."""
        for p in self.bots:  # they leave on their own after their last match
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=5)
        for p in self.bots:
            if p.poll() is None:
                p.terminate()
        for p in self.bots:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=5)
            if p.poll() is None:
                p.kill()
                p.wait()
        if self.server is not None and self.server.poll() is None:
            self.server.send_signal(signal.SIGINT)
            try:
                self.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()


# -- the floor: a bare grpc.aio bidirectional echo -------------------------------------------

ECHO_METHOD = "/levata.bench.Echo/Echo"
#: A small message, about the size of a one-card DecisionRequest's header.
ECHO_PAYLOAD = b"x" * 64


async def _echo_server() -> None:
    """Serve the echo on a free loopback port; print ``PORT`` and run until killed."""

    async def echo(requests, context):
        async for msg in requests:
            yield msg

    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "levata.bench.Echo", {"Echo": grpc.stream_stream_rpc_method_handler(echo)}
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()


async def _echo_client(address: str, streams: int, seconds: float) -> None:
    """``streams`` concurrent streams, each a write-then-read loop. Prints ``ready`` once they
    run, reads the start of the counted window (a ``time.time()``: every client counts in the
    same window) from stdin, counts for ``seconds`` from then, prints
    ``ROUND_TRIPS SECONDS CPU_SECONDS``."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(ECHO_METHOD)
        counting = False
        running = True
        count = 0

        async def one() -> None:
            nonlocal count
            stream = call()
            while running:
                await stream.write(ECHO_PAYLOAD)
                await stream.read()
                count += counting
            await stream.done_writing()

        tasks = [asyncio.create_task(one()) for _ in range(streams)]
        await asyncio.sleep(0.3)  # every stream has made its first round trips
        print("ready", flush=True)
        start = float(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))
        await asyncio.sleep(max(0.0, start - time.time()))
        counting, cpu0, t0 = True, time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        counting, cpu1, t1 = False, time.process_time(), time.perf_counter()
        trips = count
        running = False
        await asyncio.gather(*tasks)
        print(trips, t1 - t0, cpu1 - cpu0, flush=True)


@dataclass
class Echo:
    streams: int
    clients: int = 1
    round_trips: int = 0
    seconds: float = 0.0
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0

    @property
    def rate(self) -> float:
        return self.round_trips / self.seconds if self.seconds else 0.0


def measure_echo(streams: int, seconds: float, clients: int = PLAYERS) -> Echo:
    """The echo floor, laid out as the referee run is: one server process and ``clients``
    client processes (the referee and its four bot processes), ``streams`` streams in all,
    counted in the same window."""
    me = [sys.executable, str(Path(__file__).resolve())]
    server = subprocess.Popen([*me, "--echo-server"], stdout=subprocess.PIPE, text=True)
    procs: list[subprocess.Popen[str]] = []
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        for k in range(clients):
            share = streams // clients + (k < streams % clients)
            argv = [f"127.0.0.1:{port}", str(share), str(seconds)]
            procs.append(
                subprocess.Popen(
                    [*me, "--echo-client", *argv],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        for p in procs:  # all running before any counts
            assert p.stdout is not None
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("an echo client did not start")
        start = time.time() + 0.2
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(f"{start}\n")
            p.stdin.flush()
        time.sleep(max(0.0, start - time.time()))
        cpu0 = cpu_s(server.pid)
        time.sleep(seconds)
        cpu1 = cpu_s(server.pid)
        result = Echo(streams, clients, server_cpu_s=cpu1 - cpu0)
        for p in procs:
            assert p.stdout is not None
            out = p.stdout.read()
            p.wait(timeout=60)
            if p.returncode != 0 or not out.strip():
                raise RuntimeError("an echo client failed")
            trips, secs, client_cpu = out.split()
            result.round_trips += int(trips)
            result.seconds = max(result.seconds, float(secs))
            result.client_cpu_s += float(client_cpu)
        return result
    finally:
        for p in (*procs, server):
            if p.poll() is None:
                p.kill()
                p.wait()


# -- matches -----------------------------------------------------------------------------------


@dataclass
class Level:
    concurrent: int
    matches: int = 0
    decisions: int = 0
    wall_s: float = 0.0
    latencies: list[float] = field(default_factory=list)
    peak_rss: float = 0.0
    idle_before: float = 0.0  # before the level's first round
    idle_after: float = 0.0  # after its last round
    growth: list[float] = field(default_factory=list)  # per round: peak - RSS just before
    aborted: int = 0
    substituted: int = 0
    elapsed_s: float = 0.0  # this side's clock around the rounds, polling included
    server_cpu_s: float = 0.0
    bots_cpu_s: float = 0.0

    @property
    def rate(self) -> float:
        return self.decisions / self.wall_s if self.wall_s else 0.0

    def percentile(self, q: float) -> float:
        """Nearest-rank percentile of the latencies, ``q`` in 0..1."""
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]

    @property
    def rss_per_match(self) -> float:
        """Mean over the rounds of (peak RSS - RSS just before the round) / C."""
        return sum(self.growth) / len(self.growth) / self.concurrent if self.growth else 0.0

    @property
    def kept_per_match(self) -> float:
        """Idle RSS the level left behind, per match it played."""
        return (self.idle_after - self.idle_before) / self.matches if self.matches else 0.0


def play_round(
    admin: admin_pb2_grpc.AdminServiceStub,
    count: int,
    first_seed: int,
    options: dict[str, str],
    procs: Processes,
    timeout_s: float,
) -> list[str]:
    """Create ``count`` matches back to back and wait until all are over; returns their ids."""
    ids = []
    for k in range(count):
        created = admin.CreateMatch(
            admin_pb2.CreateMatchRequest(
                game=GAME,
                players=PLAYERS,
                options=options,
                seed=first_seed + k,
                seat_bots=BOTS,
                policy=POLICY,
            ),
            timeout=30,
        )
        ids.append(created.match.match_id)
    deadline = time.monotonic() + timeout_s
    waiting = list(ids)
    while waiting:  # one GetMatch at a time: polling must not load the referee
        status = admin.GetMatch(admin_pb2.GetMatchRequest(match_id=waiting[0]), timeout=30)
        if status.match.status in DONE:
            waiting.pop(0)
            continue
        procs.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{len(waiting)} matches still running after {timeout_s:g} s")
        time.sleep(0.02)
    return ids


def read_records(db: Path, ids: list[str], level: Level) -> None:
    """Add the records of matches ``ids`` to ``level``, from the referee's SQLite file."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        marks = ",".join("?" * len(ids))
        first, last, aborted = con.execute(
            f"SELECT MIN(created_at), MAX(finished_at), SUM(status != 'finished')"
            f" FROM matches WHERE id IN ({marks})",
            ids,
        ).fetchone()
        level.wall_s += last - first
        level.aborted += aborted or 0
        rows = con.execute(
            f"SELECT latency_ms FROM replies WHERE outcome = 'applied' AND match_id IN ({marks})",
            ids,
        ).fetchall()
        level.latencies += [r[0] for r in rows]
        level.decisions += len(rows)
        (subs,) = con.execute(
            f"SELECT COUNT(*) FROM actions WHERE substituted = 1 AND match_id IN ({marks})", ids
        ).fetchone()
        level.substituted += subs
        level.matches += len(ids)
    finally:
        con.close()


def settle(sampler: RssSampler, seconds: float = 0.5) -> float:
    """The idle RSS after a short pause (the referee finishes its last writes)."""
    time.sleep(seconds)
    return rss_mb(sampler.pid)


# -- report ------------------------------------------------------------------------------------


def report(levels: list[Level], deal: str) -> None:
    table = Table(
        title=f"referee on loopback: 4-player whist, {deal}, random bots in own processes",
        caption="matches played per level: "
        + ", ".join(str(lv.matches) for lv in levels)
        + "\nRSS MB/match: (peak RSS - RSS before the round) / C\n"
        "kept MB/match: (idle RSS after the level - before it) / matches played",
        **TABLE_STYLE,
    )
    cols = (
        "matches\nat once",
        "decisions",
        "wall s",
        "decisions\n/s",
        "p50\nms",
        "p99\nms",
        "server\nRSS MB",
        "RSS MB\n/match",
        "kept MB\n/match",
    )
    for col in cols:
        table.add_column(col, justify="right")
    for lv in levels:
        table.add_row(
            str(lv.concurrent),
            f"{lv.decisions:,}",
            f"{lv.wall_s:.2f}",
            f"{lv.rate:,.0f}",
            f"{lv.percentile(0.50):.2f}",
            f"{lv.percentile(0.99):.2f}",
            f"{lv.peak_rss:.1f}",
            f"{lv.rss_per_match:.2f}",
            f"{lv.kept_per_match:.2f}",
        )
    console.print(table)
    for lv in levels:
        if lv.aborted or lv.substituted:
            console.print(
                f"warning: at {lv.concurrent} at once, {lv.aborted} match(es) aborted and "
                f"{lv.substituted} move(s) substituted for late seats"
            )
    cpu = Table(
        title="where the time goes: CPU per decision (1 core = 100%)",
        caption="Little's law: whist has one request out per match, so once the machine is "
        "busy latency ~ C / throughput",
        **TABLE_STYLE,
    )
    cols = (
        "matches\nat once",
        "referee\nCPU ms",
        "referee\ncore %",
        "bots\nCPU ms",
        "bots\ncore %",
        "mean\nlatency ms",
        "C / rate\nms",
    )
    for col in cols:
        cpu.add_column(col, justify="right")
    for lv in levels:
        if not lv.decisions or not lv.elapsed_s:
            continue
        cpu.add_row(
            str(lv.concurrent),
            f"{lv.server_cpu_s / lv.decisions * 1e3:.2f}",
            f"{lv.server_cpu_s / lv.elapsed_s:.0%}",
            f"{lv.bots_cpu_s / lv.decisions * 1e3:.2f}",
            f"{lv.bots_cpu_s / lv.elapsed_s:.0%}",
            f"{sum(lv.latencies) / len(lv.latencies):.2f}",
            f"{lv.concurrent / lv.rate * 1e3:.2f}",
        )
    console.print(cpu)
    at = {lv.concurrent: lv for lv in levels}
    target = at.get(TARGET_LEVEL)
    if target is None:
        console.print(f"targets are set at {TARGET_LEVEL} matches at once: not run")
        return
    checks = (
        ("p50 latency", 0.50, TARGET_P50_MS),
        ("p99 latency", 0.99, TARGET_P99_MS),
    )
    for name, q, goal in checks:
        value = target.percentile(q)
        others = ", ".join(
            f"{lv.percentile(q):.2f} at {lv.concurrent}"
            for lv in levels
            if lv.concurrent != TARGET_LEVEL
        )
        console.print(
            f"{name} <= {goal:g} ms at {TARGET_LEVEL}: {value:.2f} ms: "
            f"{verdict(value <= goal)}" + (f" ({others})" if others else "")
        )
    console.print(
        f"throughput >= {TARGET_RATE:,.0f} decisions/s at {TARGET_LEVEL}: "
        f"{target.rate:,.0f}/s: {verdict(target.rate >= TARGET_RATE)}"
    )


def report_floor(levels: list[Level], echoes: list[Echo]) -> None:
    """The echo floor (measured before and after the matches: a loaded machine's share for
    this run changes while it runs), and the referee's throughput as a share of their mean
    (bar: 1/3)."""
    if not echoes:
        return
    table = Table(
        title=f"the floor: bare grpc.aio bidirectional echo, {len(ECHO_PAYLOAD)}-byte messages,"
        " server and clients in own processes",
        **TABLE_STYLE,
    )
    cols = ("when", "streams", "client\nprocesses", "round trips", "round\ntrips/s")
    for col in (*cols, "server\nCPU ms", "clients\nCPU ms"):
        table.add_column(col, justify="right")
    for when, echo in zip(("before", "after"), echoes, strict=False):
        table.add_row(
            when,
            str(echo.streams),
            str(echo.clients),
            f"{echo.round_trips:,}",
            f"{echo.rate:,.0f}",
            f"{echo.server_cpu_s / max(echo.round_trips, 1) * 1e3:.3f}",
            f"{echo.client_cpu_s / max(echo.round_trips, 1) * 1e3:.3f}",
        )
    console.print(table)
    target = {lv.concurrent: lv for lv in levels}.get(TARGET_LEVEL)
    floor = sum(e.rate for e in echoes) / len(echoes)
    if target is None or not floor:
        return
    ratio = target.rate / floor
    console.print(
        f"ratio at {TARGET_LEVEL} matches: referee {target.rate:,.0f} decisions/s / echo"
        f" {floor:,.0f} round trips/s at {echoes[0].streams} streams"
        f" ({echoes[0].clients} client processes; mean of {len(echoes)}) = {ratio:.2f}"
        f" (bar >= 1/3: {verdict(ratio >= 1 / 3)})"
    )


class AdminAuth(grpc.UnaryUnaryClientInterceptor):
    """Adds ``authorization: Bearer TOKEN`` to every admin call."""

    def __init__(self, token: str) -> None:
        self.token = token

    def intercept_unary_unary(self, continuation, client_call_details, request):
        metadata = [
            *(client_call_details.metadata or ()),
            ("authorization", f"Bearer {self.token}"),
        ]
        return continuation(client_call_details._replace(metadata=metadata), request)


def verdict(met: bool) -> str:
    return "[green]met[/]" if met else "[red]missed[/]"


# -- main --------------------------------------------------------------------------------------


def parse_levels(text: str) -> list[int]:
    try:
        levels = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None
    if not levels or min(levels) < 1:
        raise argparse.ArgumentTypeError("levels are positive integers")
    return levels


def _parser() -> argparse.ArgumentParser:
    """The command line of the benchmark (but for the echo processes' own)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--levels",
        type=parse_levels,
        default=[1, 8, 64],
        help="concurrent matches to measure, comma-separated (default 1,8,64)",
    )
    parser.add_argument(
        "--deal-size",
        type=int,
        default=0,
        help="whist deal_size: 0 plays the full 24-deal schedule (default), 1-8 one deal",
    )
    parser.add_argument(
        "--matches-per-level",
        type=int,
        default=8,
        help="play rounds of C concurrent matches until at least this many (default 8)",
    )
    parser.add_argument(
        "--timeout", type=float, default=600, help="seconds one round may take (default 600)"
    )
    parser.add_argument(
        "--server-profile", type=Path, help="run the referee under cProfile; write stats here"
    )
    parser.add_argument(
        "--bot-profile", type=Path, help="run bot seat0 under cProfile; write stats here"
    )
    parser.add_argument(
        "--echo-seconds",
        type=float,
        default=3.0,
        help="seconds to measure the echo floor at --echo-streams (0 skips it; default 3)",
    )
    parser.add_argument(
        "--echo-streams", type=int, default=TARGET_LEVEL, help="echo streams (default 64)"
    )
    parser.add_argument(
        "--echo-clients",
        type=int,
        default=PLAYERS,
        help=f"echo client processes sharing the streams (default {PLAYERS}: as many as the"
        " bot processes of the referee run)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="levata serve --workers: referee processes behind the port (default 1; their"
        " CPU is counted with the referee's, the RSS is the front's alone)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary db and logs")
    return parser


@dataclass
class Bench:
    """A running referee with its bots, and what each level of the benchmark plays."""

    admin: admin_pb2_grpc.AdminServiceStub
    procs: Processes
    sampler: RssSampler
    options: dict[str, str]
    timeout_s: float
    db: Path

    def level(self, c: int, rounds: int, seed: int) -> Level:
        """``rounds`` rounds of ``c`` concurrent matches, seeded from ``seed`` on."""
        level = Level(c, idle_before=settle(self.sampler))
        for _ in range(rounds):
            before = self.sampler.reset()
            cpu_before, started = self.procs.cpu(), time.perf_counter()
            ids = play_round(self.admin, c, seed, self.options, self.procs, self.timeout_s)
            cpu_after = self.procs.cpu()
            level.elapsed_s += time.perf_counter() - started
            level.server_cpu_s += cpu_after[0] - cpu_before[0]
            level.bots_cpu_s += cpu_after[1] - cpu_before[1]
            peak = self.sampler.peak()
            level.peak_rss = max(level.peak_rss, peak)
            level.growth.append(peak - before)
            seed += c
            read_records(self.db, ids, level)
        level.idle_after = settle(self.sampler)
        return level

    def levels(self, plan: list[tuple[int, int]], into: list[Level]) -> None:
        """Each level ``(c, n)`` of ``plan`` in turn, ``n`` rounds of ``c`` matches, each
        measured level added to ``into`` (what was measured stays if a later level fails)."""
        seed = 0
        for c, n in plan:
            console.print(f"{c} concurrent: {n} round(s)...", style="dim")
            level = self.level(c, n, seed)
            seed += c * n
            into.append(level)
            console.print(
                f"{c} concurrent: {level.matches} matches, {level.decisions:,} decisions,"
                f" {level.rate:,.0f}/s, p50 {level.percentile(0.5):.2f} ms,"
                f" p99 {level.percentile(0.99):.2f} ms",
                style="dim",
            )


def main() -> None:
    if _echo_process(sys.argv[1:]):
        return
    args = _parser().parse_args()

    options = {"deal_size": str(args.deal_size)}
    deal = "full schedule" if args.deal_size == 0 else f"one {args.deal_size}-card deal"
    rounds = {c: max(1, math.ceil(args.matches_per_level / c)) for c in args.levels}
    total = 1 + sum(c * r for c, r in rounds.items())

    # SIGTERM unwinds like Ctrl-C does, so the finally below still stops every child process.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    workdir = Path(tempfile.mkdtemp(prefix="levata-bench-"))
    procs = Processes(workdir)
    sampler: RssSampler | None = None
    levels: list[Level] = []
    echoes: list[Echo] = []

    try:
        _floor(args, echoes)
        server, admin_token = _start(args, procs, total)
        assert procs.server is not None
        sampler = RssSampler(procs.server.pid)
        with grpc.insecure_channel(server) as plain:
            channel = grpc.intercept_channel(plain, AdminAuth(admin_token))
            admin = admin_pb2_grpc.AdminServiceStub(channel)
            # Warm-up: the bots connect (a match waits for them) and both sides load everything.
            play_round(admin, 1, 10**6, {"deal_size": "1"}, procs, args.timeout)
            bench = Bench(admin, procs, sampler, options, args.timeout, workdir / "bench.db")
            bench.levels([(c, rounds[c]) for c in args.levels], levels)
    except grpc.RpcError as exc:
        console.print(
            f"error: the referee answered {exc.code().name}: {exc.details()}", markup=False
        )
        sys.exit(1)
    except RuntimeError as exc:
        console.print(f"error: {exc}", markup=False)
        sys.exit(1)
    except KeyboardInterrupt:
        console.print("interrupted")
        sys.exit(130)
    finally:
        if sampler is not None:
            sampler.stop()
        procs.stop()
        if args.keep:
            console.print(f"records and logs kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    try:
        _floor(args, echoes)  # again, with the referee and its bots stopped
    except RuntimeError as exc:
        console.print(f"error: {exc}", markup=False)
        sys.exit(1)
    report(levels, deal)
    report_floor(levels, echoes)
    _say_profiles(args)


def _say_profiles(args: argparse.Namespace) -> None:
    """Where the profiles asked for were written."""
    if args.server_profile:
        console.print(f"referee profile written to {args.server_profile}")
    if args.bot_profile:
        console.print(f"bot seat0 profile written to {args.bot_profile}")


def _echo_process(argv: list[str]) -> bool:
    """Run as one of the echo floor's processes, if ``argv`` says so (then True)."""
    if argv[:1] == ["--echo-server"]:
        asyncio.run(_echo_server())
        return True
    if argv[:1] == ["--echo-client"]:
        address, streams, seconds = argv[1:4]
        asyncio.run(_echo_client(address, int(streams), float(seconds)))
        return True
    return False


def _floor(args: argparse.Namespace, echoes: list[Echo]) -> None:
    """Measure the echo floor (unless ``--echo-seconds 0``)."""
    if args.echo_seconds > 0:
        console.print(
            f"echo floor: {args.echo_streams} streams, {args.echo_clients} client(s)...",
            style="dim",
        )
        echoes.append(measure_echo(args.echo_streams, args.echo_seconds, args.echo_clients))


def _start(args: argparse.Namespace, procs: Processes, total: int) -> tuple[str, str]:
    """Start the referee and its bots (each to play ``total`` matches): the referee's address
    and admin token."""
    tokens = {name: secrets.token_hex(12) for name in BOTS}  # hex: never starts with '-'
    profile = args.server_profile.resolve() if args.server_profile else None
    server, admin_token = procs.start_server(tokens, profile, args.workers)
    bot_profile = args.bot_profile.resolve() if args.bot_profile else None
    for seat, name in enumerate(BOTS):
        procs.start_bot(seat, server, tokens[name], total, bot_profile if seat == 0 else None)
    return server, admin_token


if __name__ == "__main__":
    main()
