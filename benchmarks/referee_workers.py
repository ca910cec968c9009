"""Referee throughput with ``levata serve --workers W``: decisions/s at 1, 2 and N workers.

    python benchmarks/referee_workers.py [--workers 1,2,N] [--concurrent 64] [--deal-size 0]

Each worker count W runs as ``benchmarks/referee.py`` runs one referee (its processes, bots,
records and echo floor are that script's): ``levata serve --workers W`` on a free loopback
port with four random-bot processes, a warm-up match, then rounds of ``--concurrent``
matches at once until ``--matches`` were played. W = 1 is the plain referee (no front);
W > 1 puts the front in the path. N defaults to this machine's cores.

Per W: decisions/s, p50/p99 latency (the referee's own, from the records), CPU per decision
of the front and of all the workers together, and decisions/s over the echo floor (a bare
grpc.aio echo, measured before the first W and after the last, in the same run).
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import grpc
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
import referee as base

from levata.v1 import admin_pb2_grpc


class Workers(base.Processes):
    """The one-referee benchmark's processes, the referee's CPU split into the front's and
    its workers' (the front's children)."""

    children: list[int]  # the workers (none at W = 1)

    def start(self, tokens: dict[str, str], workers: int) -> tuple[str, str]:
        server, admin_token = self.start_server(tokens, None, workers)
        assert self.server is not None
        self.children = base.children(self.server.pid)
        return server, admin_token

    def split_cpu(self) -> tuple[float, float, float]:
        """CPU seconds so far: the front (the referee itself at W = 1), its workers, the bots."""
        front = base.cpu_s(self.server.pid) if self.server is not None else 0.0
        both, bots = self.cpu()
        return front, both - front, bots


def measure(workers: int, args: argparse.Namespace, workdir: Path) -> dict[str, float]:
    """One W: start, warm up, play, stop; its figures."""
    procs = Workers(workdir / f"w{workers}")
    procs.workdir.mkdir()
    tokens = {name: secrets.token_hex(12) for name in base.BOTS}
    options = {"deal_size": str(args.deal_size)}
    rounds = max(1, math.ceil(args.matches / args.concurrent))
    try:
        server, admin_token = procs.start(tokens, workers)
        for seat, name in enumerate(base.BOTS):
            procs.start_bot(seat, server, tokens[name], 1 + rounds * args.concurrent)
        with grpc.insecure_channel(server) as plain:
            admin = admin_pb2_grpc.AdminServiceStub(
                grpc.intercept_channel(plain, base.AdminAuth(admin_token))
            )
            base.play_round(admin, 1, 10**6, {"deal_size": "1"}, procs, args.timeout)
            level = base.Level(args.concurrent)
            cpu0, started = procs.split_cpu(), time.perf_counter()
            seed = 0
            for _ in range(rounds):
                ids = base.play_round(admin, args.concurrent, seed, options, procs, args.timeout)
                base.read_records(procs.workdir / "bench.db", ids, level)
                seed += args.concurrent
            cpu1, elapsed = procs.split_cpu(), time.perf_counter() - started
    finally:
        procs.stop()
    front, work, bots = (b - a for a, b in zip(cpu0, cpu1, strict=True))
    return {
        "workers": workers,
        "decisions": level.decisions,
        "rate": level.rate,
        "p50": level.percentile(0.5),
        "p99": level.percentile(0.99),
        "front_ms": front / level.decisions * 1e3,
        "workers_ms": work / level.decisions * 1e3,
        "bots_ms": bots / level.decisions * 1e3,
        "busy": (front + work) / elapsed,
        "aborted": level.aborted + level.substituted,
    }


def report(rows: list[dict[str, float]], echoes: list[base.Echo], args: argparse.Namespace) -> None:
    floor = sum(e.rate for e in echoes) / len(echoes) if echoes else 0.0
    deal = "full schedule" if args.deal_size == 0 else f"one {args.deal_size}-card deal"
    table = Table(
        title=f"levata serve --workers W: 4-player whist, {deal}, {args.concurrent} matches at"
        f" once, random bots in 4 processes; {os.cpu_count()} cores",
        caption=f"echo floor (mean of before and after): {floor:,.0f} round trips/s at"
        f" {args.echo_streams} streams\nfront and worker CPU: ms per decision (W = 1: the"
        " referee itself, no front)",
        **base.TABLE_STYLE,
    )
    cols = ("workers", "decisions", "decisions\n/s", "vs echo", "p50\nms", "p99\nms")
    for col in (*cols, "front\nCPU ms", "workers\nCPU ms", "bots\nCPU ms", "referee\ncores"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            str(r["workers"]),
            f"{r['decisions']:,}",
            f"{r['rate']:,.0f}",
            f"{r['rate'] / floor:.2f}" if floor else "-",
            f"{r['p50']:.2f}",
            f"{r['p99']:.2f}",
            f"{r['front_ms']:.3f}" if r["workers"] > 1 else "-",
            f"{(r['workers_ms'] if r['workers'] > 1 else r['front_ms']):.3f}",
            f"{r['bots_ms']:.3f}",
            f"{r['busy']:.2f}",
        )
    base.console.print(table)
    for r in rows:
        if r["aborted"]:
            base.console.print(f"warning: W={r['workers']}: {r['aborted']:g} aborted/substituted")


def _counts(text: str) -> list[int]:
    cores = os.cpu_count() or 1
    try:
        got = [cores if x.strip() == "N" else int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of worker counts: {text!r}") from None
    if not got or min(got) < 1:
        raise argparse.ArgumentTypeError("worker counts are positive (N: the cores)")
    return list(dict.fromkeys(got))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=_counts, default=_counts("1,2,N"))
    parser.add_argument("--concurrent", type=int, default=64, help="matches at once (64)")
    parser.add_argument("--matches", type=int, default=64, help="matches per W (64)")
    parser.add_argument("--deal-size", type=int, default=0, help="0: the full schedule")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--echo-seconds", type=float, default=3.0)
    parser.add_argument("--echo-streams", type=int, default=base.TARGET_LEVEL)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    workdir = Path(tempfile.mkdtemp(prefix="levata-bench-workers-"))
    echoes: list[base.Echo] = []
    rows: list[dict[str, float]] = []
    try:
        if args.echo_seconds > 0:
            echoes.append(base.measure_echo(args.echo_streams, args.echo_seconds))
        for w in args.workers:
            base.console.print(f"{w} worker(s)...", style="dim")
            rows.append(measure(w, args, workdir))
            r = rows[-1]
            base.console.print(
                f"{w} worker(s): {r['rate']:,.0f} decisions/s, p50 {r['p50']:.2f} ms",
                style="dim",
            )
        if args.echo_seconds > 0:
            echoes.append(base.measure_echo(args.echo_streams, args.echo_seconds))
    except (RuntimeError, grpc.RpcError) as exc:
        base.console.print(f"error: {exc}", markup=False)
        sys.exit(1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report(rows, echoes, args)


if __name__ == "__main__":
    main()
