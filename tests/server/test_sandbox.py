"""Entrants are isolated: a submitted bot cannot reach the admin service, another entry's
environment, files or command line, or anything but its referee, and the standings do not
notice that it tried.

Nothing is mocked: ``levata tournament`` and ``levata serve`` run as processes, the entries
are real processes in real bubblewrap sandboxes, and the hostile entry is a Python program
that tries each escape and writes what happened to its stderr log (``PROBE {json}`` lines),
while the test checks the other side too: its TCP listener counts connections, the referee's
records hold the tokens' digests.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from levata.engine import BadConfig
from levata.server.match.app import start_entrant_server
from levata.server.match.store import Store
from levata.server.tournament.entries import Entry, launch, parse_manifest
from levata.server.tournament.report import REPLY_TIMES
from levata.server.tournament.sandbox import UID_BASE, Sandbox
from levata.server.tournament.store import TourneyStore
from levata.v1 import admin_pb2, admin_pb2_grpc
from levata.wire.credentials import write_secret

from live import LiveServer, bot_process

CLI = [sys.executable, "-m", "levata.server.cli"]
ROOT = os.geteuid() == 0

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")

#: The hostile entry. With --honest it only plays: the first legal action, always.
HOSTILE = r'''
import hashlib, json, os, re, resource, socket, sys, time

OWN = os.environ.get("LEVATA_TOKEN", "")
START = time.monotonic()


def report(attempt, reached, detail, **more):
    line = {"attempt": attempt, "reached": bool(reached), "detail": str(detail)[:300], **more}
    line["t"] = round(time.monotonic() - START, 2)  # when: a slow or stuck step shows itself
    print("PROBE " + json.dumps(line), file=sys.stderr, flush=True)


def tcp(host, port, timeout=3.0):
    """Whether a TCP connection opens (a self-connection to a free port does not count)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect((host, port))
        return s.getsockname() != s.getpeername(), "connected"
    except OSError as exc:
        return False, f"{type(exc).__name__}: {exc.strerror or exc}"
    finally:
        s.close()


def admin(target):
    import grpc
    from levata.v1 import admin_pb2, admin_pb2_grpc

    with grpc.insecure_channel(target) as ch:
        try:
            stub = admin_pb2_grpc.AdminServiceStub(ch)
            stub.ListMatches(admin_pb2.ListMatchesRequest(), timeout=5)
            return True, "OK"
        except grpc.RpcError as exc:
            code = exc.code()
            out = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNIMPLEMENTED,
                   grpc.StatusCode.DEADLINE_EXCEEDED)
            return code not in out, code.name


def reflection(target):
    import grpc
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    with grpc.insecure_channel(target) as ch:
        stub = reflection_pb2_grpc.ServerReflectionStub(ch)
        req = reflection_pb2.ServerReflectionRequest(list_services="")
        try:
            names = [s.name for r in stub.ServerReflectionInfo(iter([req]), timeout=5)
                     for s in r.list_services_response.service]
            return True, ",".join(names)
        except grpc.RpcError as exc:
            return exc.code() != grpc.StatusCode.UNIMPLEMENTED, exc.code().name


def tokens_in_proc():
    """Every LEVATA_TOKEN in a readable environ, every --token in a readable cmdline."""
    seen, readable, found = 0, 0, set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        seen += 1
        for part in ("environ", "cmdline"):
            try:
                data = open(f"/proc/{pid}/{part}", "rb").read().decode(errors="replace")
            except OSError:
                continue
            readable += 1
            for item in data.split("\0"):
                if item.startswith("LEVATA_TOKEN="):
                    found.add(item.split("=", 1)[1])
                m = re.match(r"--token[= ](\S+)", item)
                if m:
                    found.add(m.group(1))
    foreign = sorted(hashlib.sha256(t.encode()).hexdigest() for t in found if t != OWN)
    return seen, readable, foreign


def statuses():
    """Who holds what in the sandbox: every visible process's ids, capabilities,
    no_new_privs and seccomp mode."""
    keys = ("Uid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            lines = open(f"/proc/{pid}/status").read().splitlines()
        except OSError:
            continue
        fields = dict(x.split(":", 1) for x in lines if ":" in x)
        out[pid] = {k: " ".join(fields.get(k, "?").split()) for k in keys}
    return out


def privileged(rows, strict):
    """The processes holding a capability (or, ``strict``: lacking no_new_privs or seccomp)."""
    bad = {}
    for pid, row in rows.items():
        caps = [k for k in row if k.startswith("Cap") and int(row[k] or "0", 16)]
        if strict and row["NoNewPrivs"] != "1":
            caps.append("no no_new_privs")
        if strict and row["Seccomp"] != "2":
            caps.append(f"seccomp {row['Seccomp']}")
        if caps:
            bad[pid] = caps
    return bad


def by_handle():
    """The way out of a bind mount: a file handle of the host's root (inode 2 of the disk
    under /usr), opened through /usr."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    class Handle(ctypes.Structure):
        _fields_ = [
            ("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("data", ctypes.c_ubyte * 128)
        ]

    h, mount = Handle(128), ctypes.c_int()
    r = libc.name_to_handle_at(-100, b"/usr", ctypes.byref(h), ctypes.byref(mount), 0)
    why = os.strerror(ctypes.get_errno()) if r else "a handle"
    report("name_to_handle_at on /usr", r == 0, why)
    h.bytes, h.type = 8, 1  # FILEID_INO32_GEN: inode 2, generation 0 (the root of ext4)
    ctypes.memmove(h.data, (2).to_bytes(4, "little") + bytes(4), 8)
    usr = os.open("/usr", os.O_RDONLY)
    fd = libc.open_by_handle_at(usr, ctypes.byref(h), os.O_RDONLY)
    detail = os.strerror(ctypes.get_errno()) if fd < 0 else os.listdir(f"/proc/self/fd/{fd}")
    report("open_by_handle_at toward the host's root", fd >= 0, detail)
    os.close(usr)
    if fd >= 0:
        os.close(fd)


def other_abi():
    """Refused calls made through another ABI, around a filter that names 64-bit calls:
    x32 (the syscall number with bit 30) and 32-bit int 0x80. Each in a child: the filter
    kills it."""
    import subprocess

    x32 = "import ctypes; libc = ctypes.CDLL(None, use_errno=True); " \
          "r = libc.syscall(0x40000000 | 304, -100, b'/usr', None, None, 0); " \
          "print(r, ctypes.get_errno())"
    # mov eax, 342 (i386 open_by_handle_at); int 0x80; ret
    code = "b8 56 01 00 00 cd 80 c3"
    i386 = "import ctypes, mmap; m = mmap.mmap(-1, 4096, prot=7); " \
           f"m.write(bytes.fromhex('{code}')); " \
           "f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m))); " \
           "print(f())"
    for name, src in (("x32", x32), ("int 0x80", i386)):
        run = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True)
        detail = f"status {run.returncode} {run.stdout.strip()} {run.stderr.strip()[-100:]}"
        reached = run.returncode != -31  # not killed by SIGSYS: the filter was gone round
        report(f"open_by_handle_at through the {name} ABI", reached, detail)


def descriptors():
    """Every descriptor this process inherited (beyond stdio), and what the sandbox's init
    holds."""
    mine = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            mine[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass  # the listing's own, gone already
    extra = {fd: t for fd, t in mine.items() if int(fd) > 2}
    report("a descriptor beyond stdio", extra, extra)
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                found[f"{pid}/{fd}"] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
    own = ("pipe:", "socket:", "anon_inode:", "/dev/null", "/tmp/", "/proc/")
    host = {k: t for k, t in found.items() if not t.startswith(own)}  # a namespace, memfd...
    report("a host file open in any process of the sandbox", host, host or sorted(found.values()))


def flood_tmp():
    """Write /tmp (memory) far past memory_mb, in a child the kernel prefers to kill."""
    import subprocess

    mb = int(os.environ.get("PROBE_FLOOD_MB", "0"))
    if not mb:
        return
    src = "import os\nopen('/proc/self/oom_score_adj', 'w').write('1000')\n" \
          f"f = open('/tmp/flood', 'wb', buffering=0)\nfor _ in range({mb}):\n" \
          "    f.write(b'x' * (1 << 20))\n"
    run = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True)
    try:
        held = os.path.getsize("/tmp/flood") >> 20
        os.unlink("/tmp/flood")
    except OSError:
        held = 0
    why = run.stderr.strip().splitlines()[-1:] or [f"status {run.returncode}"]
    report(f"hold {mb} MiB in /tmp", run.returncode == 0, f"{held} MiB held; {why[0]}",
           held_mb=held, status=run.returncode)


def flood_log():
    """Write stderr in a loop: far more than the log may hold."""
    mb = int(os.environ.get("PROBE_LOG_FLOOD_MB", "0"))
    line = ("flood " * 20 + "\n").encode()
    for _ in range(mb * (1 << 20) // len(line)):
        os.write(2, line)


def limits():
    """What the entry was given (not an escape): its address-space cap, its malloc arenas."""
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    line = {"address_mb": None if soft == resource.RLIM_INFINITY else soft >> 20,
            "malloc_arena_max": os.environ.get("MALLOC_ARENA_MAX")}
    print("PROBE-LIMITS " + json.dumps(line), file=sys.stderr, flush=True)


def probe():
    flood_log()
    flood_tmp()
    limits()  # after the log flood, which rotates the earliest lines away
    rows = statuses()
    report("a capability in any process of the sandbox", privileged(rows, False), "", rows=rows)
    me = {str(os.getpid()): rows[str(os.getpid())]}
    report("this process lacks no_new_privs or seccomp", privileged(me, True), me)
    import subprocess

    child = subprocess.run(
        [sys.executable, "-c", "print(open('/proc/self/status').read())"],
        env={**os.environ, "LD_PRELOAD": "/tmp/nothing.so"}, capture_output=True, text=True,
    )
    fields = dict(x.split(":", 1) for x in child.stdout.splitlines() if ":" in x)
    row = {k: " ".join(fields.get(k, "?").split()) for k in
           ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")}
    report("a child started with LD_PRELOAD gains a privilege",
           privileged({"child": row}, True), row)
    by_handle()
    other_abi()
    descriptors()
    server = os.environ["LEVATA_SERVER"]
    report("admin over the entrants' address", *admin(server))
    report("reflection over the entrants' address", *reflection(server))
    referee = os.environ.get("PROBE_REFEREE")
    if referee:
        host, port = referee.rsplit(":", 1)
        ok, why = tcp(host, int(port))
        report(f"TCP to the referee {referee}", ok, why)
        if ok:
            report(f"admin over TCP {referee}", *admin(referee))
    # Unsandboxed, the scan finds every server of a busy test machine, and the admin calls
    # to them (5 s each at worst) could outlast the entry's clock: that run skips it.
    if os.environ.get("PROBE_SCAN", "1") == "1":
        open_ports = [p for p in range(1, 65536) if tcp("127.0.0.1", p, 0.5)[0]]
        report("any TCP port on 127.0.0.1", open_ports, open_ports)
        for p in open_ports[:8]:
            report(f"admin over TCP 127.0.0.1:{p}", *admin(f"127.0.0.1:{p}"))
    seen, readable, foreign = tokens_in_proc()
    report("other tokens in /proc/*/environ and cmdline", foreign,
           f"{seen} processes visible, {readable} files readable", digests=foreign)
    me = {os.getpid(), os.getppid(), 1}  # 1: the sandbox's own init, as the entry's user
    others = [int(p) for p in filter(str.isdigit, os.listdir("/proc")) if int(p) not in me]
    hit = []
    for pid in others:
        try:
            os.kill(pid, 0)
            hit.append(pid)
        except OSError:
            pass
    report("signal a process not our own", hit, f"{len(others)} others visible, {hit}")
    for path in filter(None, os.environ.get("PROBE_FILES", "").split(os.pathsep)):
        try:
            with open(path, "rb") as f:
                report(f"read {path}", True, f"{len(f.read())} bytes")
        except OSError as exc:
            report(f"read {path}", False, f"{type(exc).__name__}: {exc.strerror}")
    try:
        with open("probe-was-here", "w") as f:
            f.write("x")
        report("write to the working directory", True, "written")
    except OSError as exc:
        report("write to the working directory", False, f"{type(exc).__name__}: {exc.strerror}")
    report("TCP to the test's listener", *tcp("127.0.0.1", int(os.environ["PROBE_LISTENER"])))
    try:
        addrs = socket.getaddrinfo("example.com", 443, proto=socket.IPPROTO_TCP)
        report("resolve example.com", True, addrs[:1])
    except OSError as exc:
        report("resolve example.com", False, f"{type(exc).__name__}: {exc}")
    for host, port in (("1.1.1.1", 443), ("8.8.8.8", 53)):
        report(f"TCP to {host}:{port}", *tcp(host, port))
    print("PROBE-DONE", file=sys.stderr, flush=True)


if "--honest" not in sys.argv:
    probe()
for line in sys.stdin:
    message = json.loads(line)
    if "request" in message:
        print(json.dumps({"index": message["request"]["legal"][0]["index"]}), flush=True)
'''

#: What the hostile entry tries in every sandboxed run (more when it is given the referee).
ATTEMPTS = {
    "admin over the entrants' address",
    "reflection over the entrants' address",
    "any TCP port on 127.0.0.1",
    "other tokens in /proc/*/environ and cmdline",
    "signal a process not our own",
    "write to the working directory",
    "TCP to the test's listener",
    "resolve example.com",
    "TCP to 1.1.1.1:443",
    "TCP to 8.8.8.8:53",
    "a capability in any process of the sandbox",
    "this process lacks no_new_privs or seccomp",
    "a child started with LD_PRELOAD gains a privilege",
    "name_to_handle_at on /usr",
    "open_by_handle_at toward the host's root",
    "open_by_handle_at through the x32 ABI",
    "open_by_handle_at through the int 0x80 ABI",
    "a descriptor beyond stdio",
    "a host file open in any process of the sandbox",
}


class Listener:
    """A TCP listener on 127.0.0.1 that counts who connects."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.running = False
        self.thread.join(5)
        self.sock.close()


def write_entry(folder: Path, name: str, honest: bool, env: dict[str, str], more: str = "") -> Path:
    """A json manifest of the probe program in ``folder`` (``more``: more TOML lines);
    returns the manifest's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "probe.py").write_text(HOSTILE)
    args = [sys.executable, "probe.py", *(["--honest"] if honest else [])]
    manifest = folder.parent / f"{folder.name}.toml"
    env_toml = ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())
    manifest.write_text(
        f'name = "{name}"\ncommand = {json.dumps(args)}\nprotocol = "json"\n'
        # a minute a decision: the hostile probe answers only once its probes are done, and on
        # a CI machine loaded by the other tests' servers they took longer than 15 s + bank
        f'workdir = "{folder.name}"\nmove_ms = 60000\nenv = {{ {env_toml} }}\n{more}'
    )
    return manifest


def tournament(
    *args: object,
    env: dict[str, str] | None = None,
    timeout: float = 240,
    logs: Path | None = None,
):
    """``levata tournament`` of the given entries; past ``timeout``, fail with the last
    lines of each entry's log in ``logs`` (where each probe stood)."""
    try:
        run = subprocess.run(
            [*CLI, "tournament", "--game", "whist", "-o", "deal_size=2", "--deals", "2",
             "--seed", "5", "--parallel", "4", "--quiet", *map(str, args)],
            capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        tails = {
            f.name: [x[:200] for x in f.read_text(errors="replace").splitlines()[-8:]]
            for f in sorted(logs.glob("*.log")) if logs is not None
        } if logs is not None and logs.exists() else {}  # fmt: skip
        pytest.fail(f"the tournament ran past {timeout} s; the entries' logs end:\n{tails}")
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def probes(log: Path) -> dict[str, dict]:
    older = log.with_name(log.name + ".1")
    text = (older.read_text() if older.exists() else "") + log.read_text()
    assert "PROBE-DONE" in text, text[-3000:]
    lines = [json.loads(x[len("PROBE ") :]) for x in text.splitlines() if x.startswith("PROBE ")]
    return {p["attempt"]: p for p in lines}


def given(log: Path) -> dict:
    """The limits the probe found on itself (its ``PROBE-LIMITS`` line)."""
    older = log.with_name(log.name + ".1")
    text = (older.read_text() if older.exists() else "") + log.read_text()
    (line,) = {x for x in text.splitlines() if x.startswith("PROBE-LIMITS ")}
    return json.loads(line.split(" ", 1)[1])


def results(db: Path) -> tuple[list[tuple], str]:
    """Every scheduled match's outcome, in schedule order, and the standings as printed."""
    tdb = TourneyStore(db)
    (t,) = tdb.tournaments()
    rows = tdb.rows(t["id"])
    out = [
        (r["index"], r["seats"], r["result"]["scores"], r["result"]["ranks"],
         r["result"]["forfeited"], r["result"]["strikes"])
        for r in rows
    ]  # fmt: skip
    report = subprocess.run(
        [*CLI, "report", t["id"], "--db", str(db)], capture_output=True, text=True, timeout=60
    ).stdout
    lines = report.splitlines()
    lines = lines[: next((i for i, x in enumerate(lines) if x.strip() == REPLY_TIMES), None)]
    table = "\n".join(x for x in lines if t["id"] not in x and "report:" not in x)
    return out, table  # the reply times (last) differ from run to run: not compared


def digests(db: Path) -> dict[str, str]:
    store = Store(db)
    try:
        return {name.rsplit("/", 1)[-1]: d for name, d in store.bots().items()}
    finally:
        store.close()


# -- the entrants' socket ------------------------------------------------------------------------


def test_the_entrants_socket_serves_only_the_arena(tmp_path):
    server = LiveServer(tmp_path / "referee.db")
    path = tmp_path / "entrants.sock"
    entrants = server.run(start_entrant_server(server.arena, path))
    try:
        assert oct(path.stat().st_mode & 0o777) == "0o666"
        meta = (("authorization", f"Bearer {server.admin_token}"),)  # even the right token
        with grpc.insecure_channel(f"unix:{path}") as ch:
            with pytest.raises(grpc.RpcError) as exc:
                admin_pb2_grpc.AdminServiceStub(ch).ListMatches(
                    admin_pb2.ListMatchesRequest(), metadata=meta, timeout=10
                )
            assert exc.value.code() == grpc.StatusCode.UNIMPLEMENTED
            with pytest.raises(grpc.RpcError) as exc:
                req = reflection_pb2.ServerReflectionRequest(list_services="")
                list(reflection_pb2_grpc.ServerReflectionStub(ch).ServerReflectionInfo(iter([req])))
            assert exc.value.code() == grpc.StatusCode.UNIMPLEMENTED
            health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest())
            assert health.status == health_pb2.HealthCheckResponse.SERVING
        # A bot on the socket plays a match with two bots on the TCP port: the same arena.
        names = ("sock", "tcp1", "tcp2")
        tokens = {n: server.add_bot(n) for n in names}
        over_socket = subprocess.Popen(
            [*CLI[:2], "levata.bots", "run", "random", "--game", "whist", "--server",
             f"unix:{path}", "--matches", "1", "--quiet"],
            env={**os.environ, "LEVATA_TOKEN": tokens["sock"]},
        )  # fmt: skip
        others = [bot_process("random", "whist", server, tokens[n], matches=1) for n in names[1:]]
        info = server.wait(server.create("whist", list(names)))
        assert info.status == admin_pb2.MATCH_STATUS_FINISHED
        assert not info.result.forfeited and sum(info.strikes) == 0
        for p in (over_socket, *others):
            assert p.wait(timeout=30) == 0
    finally:
        server.run(entrants.stop(None))
        server.stop()


# -- a hostile entry -----------------------------------------------------------------------------


#: The probe's memory, and how much it tries to hold in /tmp and write to its log.
MEMORY_MB, FLOOD_MB, LOG_FLOOD_MB, LOG_MB = 400, 512, 4, 1


def run_with_probe(
    tmp_path: Path,
    honest: bool,
    sandbox: str,
    listener: Listener,
    floods: bool = True,
    scan: bool = True,
    memory_mb: int | None = None,
) -> Path:
    """A tournament of the probe (hostile or honest), an honest witness with a secret in its
    folder, and a reference bot; returns the folder of the run. With ``floods``, the hostile
    probe first writes far more to its stderr than the logs may hold (``--log-mb``) and to
    its ``/tmp`` than its memory may."""
    run = tmp_path / ("honest" if honest else f"hostile-{sandbox}")
    run.mkdir()
    db, logs = run / "t.db", run / "logs"
    secret = run / "witness" / "secret.txt"
    admin_file = run / "t.db.admin-token"  # where levata serve would keep it
    write_secret(admin_file, "an-admin-token-no-entry-may-read")
    files = os.pathsep.join(map(str, (secret, db, admin_file, logs / "witness.log")))
    env = {"PROBE_LISTENER": str(listener.port), "PROBE_FILES": files}
    if floods:
        env |= {"PROBE_FLOOD_MB": str(FLOOD_MB), "PROBE_LOG_FLOOD_MB": str(LOG_FLOOD_MB)}
    if not scan:
        env["PROBE_SCAN"] = "0"
    memory = f"memory_mb = {memory_mb or MEMORY_MB}\n"
    probe = write_entry(run / "probe", "probe", honest, env, memory)
    witness = write_entry(run / "witness", "witness", True, env)
    secret.write_text("the witness's own notes\n")
    tournament(
        "--bots", f"{probe},{witness},random", "--db", db, "--logs", logs, "--sandbox", sandbox,
        "--log-mb", LOG_MB, logs=logs,
    )  # fmt: skip
    return run


def assert_all_failed(found: dict[str, dict], expected: set[str]) -> None:
    assert expected <= set(found), sorted(expected - set(found))
    got_through = {a: p["detail"] for a, p in found.items() if p["reached"]}
    assert not got_through, got_through


def test_a_hostile_entry_fails_at_everything_and_the_standings_do_not_change(tmp_path):
    listener = Listener()
    try:
        hostile = run_with_probe(tmp_path, False, "auto", listener)
        honest = run_with_probe(tmp_path, True, "auto", listener)
    finally:
        listener.close()
    found = probes(hostile / "logs" / "probe.log")
    reads = {f"read {hostile / p}" for p in ("witness/secret.txt", "t.db", "t.db.admin-token")}
    flood = f"hold {FLOOD_MB} MiB in /tmp"
    assert_all_failed(found, ATTEMPTS | reads | {f"read {hostile / 'logs' / 'witness.log'}", flood})
    assert found[flood]["held_mb"] < MEMORY_MB  # ENOSPC or killed: never past its memory
    assert found[flood]["status"] != 0
    for p in found["a capability in any process of the sandbox"]["rows"].values():
        assert p["NoNewPrivs"] == "1" and p["Seccomp"] == "2", p
    # The log flood: two files, at most --log-mb together, the probes' lines at the end.
    (hostile / "logs" / "probe.log").read_text()
    sizes = [(hostile / "logs" / n).stat().st_size for n in ("probe.log", "probe.log.1")]
    assert sum(sizes) <= (LOG_MB << 20) + 4096, sizes
    assert "== log rotated" in (hostile / "logs" / "probe.log.1").read_text()
    assert found["admin over the entrants' address"]["detail"] == "UNIMPLEMENTED"
    assert found["reflection over the entrants' address"]["detail"] == "UNIMPLEMENTED"
    for path in reads:
        assert "FileNotFoundError" in found[path]["detail"]  # not even there
    tokens = digests(hostile / "t.db")
    assert {"probe", "witness", "random"} <= set(tokens)
    assert not set(found["other tokens in /proc/*/environ and cmdline"]["digests"]) & set(
        tokens.values()
    )
    assert listener.accepted == 0  # seen from outside: nobody connected
    assert not (hostile / "probe" / "probe-was-here").exists()
    log = (hostile / "logs" / "probe.log").read_text()
    assert "== sandboxed (bwrap" in log and "no network" in log
    # A memory cgroup holds its memory: no address-space cap beside it (which its gRPC
    # threads' reservations once used up, hanging its channel); without one, the cap.
    limits = given(hostile / "logs" / "probe.log")
    if "== memory cgroup" in log:
        assert limits == {"address_mb": None, "malloc_arena_max": None}
    else:
        assert limits == {"address_mb": MEMORY_MB, "malloc_arena_max": "2"}
    if ROOT:
        assert "user 420000" in log
        assert oct((hostile / "t.db").stat().st_mode & 0o777) == "0o600"
    # The standings do not notice: the same matches, seats, scores, ranks, no strike.
    (a, table_a), (b, table_b) = results(hostile / "t.db"), results(honest / "t.db")
    assert a == b and table_a == table_b
    assert len(a) == 12 and all(not r[4] and not any(r[5]) for r in a)


def test_the_hostile_entry_gets_through_without_a_sandbox(tmp_path):
    """The probes are real: with ``--sandbox none`` the same entry reads what it should not."""
    listener = Listener()
    try:
        run = run_with_probe(
            tmp_path, False, "none", listener, floods=False, scan=False, memory_mb=1024
        )
    finally:
        listener.close()
    found = probes(run / "logs" / "probe.log")
    # No cgroup: memory_mb caps its address space, with two malloc arenas to stay within it.
    assert given(run / "logs" / "probe.log") == {"address_mb": 1024, "malloc_arena_max": "2"}
    assert found["open_by_handle_at through the x32 ABI"]["reached"]  # no filter to kill it
    assert found["a descriptor beyond stdio"]["reached"] is False  # close_fds, even so
    if ROOT:  # what the hostile wrapper had before: root's capabilities, no filter
        assert found["a capability in any process of the sandbox"]["reached"]
        assert found["name_to_handle_at on /usr"]["reached"]
    assert found["TCP to the test's listener"]["reached"] and listener.accepted >= 1
    assert found[f"read {run / 'witness' / 'secret.txt'}"]["reached"]
    assert found[f"read {run / 't.db.admin-token'}"]["reached"]
    theirs = set(found["other tokens in /proc/*/environ and cmdline"]["digests"])
    assert digests(run / "t.db")["witness"] in theirs  # the witness's token, read from /proc


def test_a_hostile_entry_on_levata_serve_through_its_entrant_socket(tmp_path):
    """An external referee (``levata serve --entrant-socket``): the entry reaches its
    socket, neither its TCP port nor its admin token file."""
    db, sock = tmp_path / "serve.db", tmp_path / "s" / "entrants.sock"
    sock.parent.mkdir()
    serve = subprocess.Popen(
        [*CLI, "serve", "--port", "0", "--db", str(db), "--entrant-socket", str(sock)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    listener = Listener()
    try:
        assert serve.stdout is not None
        head = ""
        while "bots only" not in head or "serving on" not in head:
            line = serve.stdout.readline()
            assert line, head
            head += line
        port = int(re.search(r"serving on [\d.]+:(\d+)", head).group(1))
        admin_file = db.with_name(db.name + ".admin-token")
        files = os.pathsep.join(map(str, (db, admin_file)))
        env = {
            "PROBE_LISTENER": str(listener.port),
            "PROBE_FILES": files,
            "PROBE_REFEREE": f"127.0.0.1:{port}",
        }
        probe = write_entry(tmp_path / "probe", "probe", False, env)
        run = tournament(
            "--bots", f"{probe},random,random", "--server", f"127.0.0.1:{port}",
            "--entrant-socket", sock, "--db", tmp_path / "t.db", "--logs", tmp_path / "logs",
            env={"LEVATA_ADMIN_TOKEN": admin_file.read_text().strip()},
        )  # fmt: skip
        assert "share this machine's network" not in run.stdout + run.stderr
        assert not open_without_cloexec(serve.pid)  # the serving referee's too
    finally:
        listener.close()
        serve.terminate()
        serve.wait(30)
    found = probes(tmp_path / "logs" / "probe.log")
    expected = {f"TCP to the referee 127.0.0.1:{port}", f"read {db}", f"read {admin_file}"}
    assert_all_failed(found, ATTEMPTS | expected)
    assert found["admin over the entrants' address"]["detail"] == "UNIMPLEMENTED"
    assert listener.accepted == 0
    tdb = TourneyStore(tmp_path / "t.db")
    (t,) = tdb.tournaments()
    rows = tdb.rows(t["id"])
    assert len(rows) == 12 and all(not r["result"]["forfeited"] for r in rows)


# -- the user layer, the options -----------------------------------------------------------------

PEEK = """
import sys
for path in sys.argv[1:]:
    try:
        open(path, "rb").read()
        print("READ", path, file=sys.stderr)
    except OSError as exc:
        print("DENIED", path, exc.strerror, file=sys.stderr)
"""


@pytest.mark.skipif(not ROOT, reason="entries get users of their own only when run by root")
def test_too_wide_a_bind_still_hides_what_is_not_the_entrys(tmp_path):
    """A working directory that wrongly holds the database, the admin token and another
    entry's folder: bound into the sandbox, yet unreadable to the entry's own user."""
    wide = tmp_path / "wide"
    (wide / "other").mkdir(parents=True)
    (wide / "peek.py").write_text(PEEK)
    db = wide / "t.db"
    db.write_text("records")
    os.chmod(db, 0o600)
    write_secret(wide / "t.db.admin-token", "admin-secret")
    other = wide / "other" / "notes.txt"
    other.write_text("another entry's notes")
    os.chmod(other, 0o600)
    box = Sandbox()
    os.chown(wide / "other", box.uid(1), box.uid(1))  # slot 1's, and private
    os.chown(other, box.uid(1), box.uid(1))
    os.chmod(wide / "other", 0o700)
    targets = [str(db), str(wide / "t.db.admin-token"), str(other), str(wide / "peek.py")]
    m = parse_manifest(
        f'name = "peek"\ncommand = {json.dumps(["python3", "peek.py", *targets])}\n'
        'protocol = "grpc"\n',
        wide,
    )
    log = tmp_path / "peek.log"
    bot = launch(Entry("peek", "manifest", manifest=m), "whist", "unix:/x", "T", 1, "p", log, box)
    assert bot.proc.wait(timeout=60) == 0
    text = log.read_text()
    for path in targets[:3]:
        assert f"DENIED {path} Permission denied" in text, text
    assert f"READ {targets[3]}" in text  # its own program, in the same folder


def test_sandbox_options_speak_one_line(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "probe.py").write_text(HOSTILE)
    manifest = tmp_path / "b.toml"
    manifest.write_text(
        f'name = "b"\ncommand = {json.dumps([sys.executable, "probe.py", "--honest"])}\n'
        'workdir = "b"\n'
    )
    common = [
        "tournament", "--game", "whist", "--bots", f"{manifest},random,random",
        "-o", "deal_size=1", "--deals", "1", "--db", tmp_path / "t.db", "--quiet",
    ]  # fmt: skip
    no_bwrap = {**os.environ, "PATH": str(tmp_path / "nothing-here")}
    run = subprocess.run(
        [*CLI, *map(str, common)], capture_output=True, text=True, env=no_bwrap, timeout=60
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: bubblewrap (bwrap) is not installed")
    assert "--sandbox none" in lines[0]
    run = subprocess.run(
        [*CLI, *map(str, common), "--sandbox", "nope"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2 and "error: --sandbox must be one of auto, bwrap, none" in run.stderr
    run = subprocess.run(
        [*CLI, *map(str, common), "--sandbox", "none"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "warning: --sandbox none: submitted bots are not isolated" in run.stdout + run.stderr


def test_an_external_referee_without_a_socket_shares_only_the_network(tmp_path):
    server = LiveServer(tmp_path / "referee.db")
    try:
        (tmp_path / "b").mkdir()
        (tmp_path / "b" / "probe.py").write_text(HOSTILE)
        manifest = tmp_path / "b.toml"
        manifest.write_text(
            f'name = "b"\ncommand = {json.dumps([sys.executable, "probe.py", "--honest"])}\n'
            'workdir = "b"\n'
        )
        run = tournament(
            "--bots", f"{manifest},random,random", "--server", server.address,
            "--db", tmp_path / "t.db", "--logs", tmp_path / "logs",
            env={"LEVATA_ADMIN_TOKEN": server.admin_token},
        )  # fmt: skip
        assert "submitted bots share this machine's network" in run.stdout + run.stderr
        log = (tmp_path / "logs" / "b.log").read_text()
        assert "shared network" in log and "--unshare-net" not in log
        assert "--unshare-pid" in log or "--unshare-all" in log
        assert f"--server {server.address}" in log
        tdb = TourneyStore(tmp_path / "t.db")
        (t,) = tdb.tournaments()
        assert all(not r["result"]["forfeited"] for r in tdb.rows(t["id"]))
    finally:
        server.stop()


def test_no_token_in_any_command_line_or_log(tmp_path):
    """Every entry's token reaches it through its environment only: no word of any log (each
    begins with the entry's command line) is a token the referee issued."""
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "probe.py").write_text(HOSTILE)
    manifest = tmp_path / "b.toml"
    manifest.write_text(
        f'name = "b"\ncommand = {json.dumps([sys.executable, "probe.py", "--honest"])}\n'
        'workdir = "b"\n'
    )
    db, logs = tmp_path / "t.db", tmp_path / "logs"
    started = time.monotonic()
    tournament("--bots", f"{manifest},heuristic,random", "--db", db, "--logs", logs)
    assert time.monotonic() - started < 120
    issued = set(digests(db).values())
    assert len(issued) >= 3
    for log in logs.iterdir():
        words = set(re.findall(r"[A-Za-z0-9_\-]{20,}", log.read_text()))
        assert not {hashlib.sha256(w.encode()).hexdigest() for w in words} & issued, log
    assert "LEVATA_TOKEN '***'" in (logs / "b.log").read_text()


# -- what a manifest may ask for -----------------------------------------------------------------


def refused(tmp_path: Path, manifest: str, *flags: str, workdir: str = "b") -> str:
    """The one ``error:`` line of a tournament refusing manifest text ``manifest``."""
    (tmp_path / "b").mkdir(exist_ok=True)
    (tmp_path / "b" / "probe.py").write_text(HOSTILE)
    path = tmp_path / "b.toml"
    path.write_text(
        f'name = "b"\ncommand = {json.dumps([sys.executable, "probe.py", "--honest"])}\n'
        f'workdir = "{workdir}"\n{manifest}\n'
    )
    run = subprocess.run(
        [*CLI, "tournament", "--game", "whist", "--bots", f"{path},random,random", "--deals",
         "1", "--db", str(tmp_path / "t.db"), "--quiet", *flags],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stdout + run.stderr
    assert lines[0].startswith("error: ") and "Traceback" not in run.stderr
    return lines[0]


#: Environment variables a manifest may not set, and the name its error gives.
REFUSED_ENV = [
    ('LD_PRELOAD = "pwn.so"', "LD_PRELOAD"),
    ('ld_library_path = "/tmp"', "ld_library_path"),
    ('LD_AUDIT = "x.so"', "LD_AUDIT"),
    ('PYTHONSTARTUP = "x.py"', "PYTHONSTARTUP"),
    ('PYTHONPATH = "/tmp"', "PYTHONPATH"),
    ('NODE_OPTIONS = "--require x"', "NODE_OPTIONS"),
    ('PERL5OPT = "-Mx"', "PERL5OPT"),
    ('RUBYOPT = "-rx"', "RUBYOPT"),
    ('BASH_ENV = "x.sh"', "BASH_ENV"),
    ('ENV = "x.sh"', "ENV"),
    ('GCONV_PATH = "/tmp"', "GCONV_PATH"),
    ('GLIBC_TUNABLES = "glibc.malloc.check=3"', "GLIBC_TUNABLES"),
    ('MALLOC_ARENA_MAX = "1"', "MALLOC_ARENA_MAX"),
    ('LOCPATH = "/tmp"', "LOCPATH"),
    ('HOSTALIASES = "/tmp/h"', "HOSTALIASES"),
    ('PATH = "/tmp"', "PATH"),
    ('HOME = "/"', "HOME"),
    ('LEVATA_TOKEN = "mine"', "LEVATA_TOKEN"),
    ('"A=B" = "1"', "'A=B'"),
    ('"" = "1"', "''"),
    ('X = "a\\u0000b"', "X"),
    (f'X = "{"x" * 5000}"', "X"),
    (", ".join(f"V{i} = '1'" for i in range(65)), "65 variables"),
]


@pytest.mark.parametrize(("env", "named"), REFUSED_ENV)
def test_a_manifest_env_for_the_loader_or_an_interpreter_is_refused(tmp_path, env, named):
    with pytest.raises(BadConfig) as exc:
        parse_manifest(f'name = "b"\ncommand = ["./b"]\nenv = {{ {env} }}\n', tmp_path)
    assert str(exc.value).startswith("manifest b: env") and named in str(exc.value)


@pytest.mark.parametrize("env", ['LD_PRELOAD = "pwn.so"', 'PYTHONSTARTUP = "x.py"'])
def test_levata_tournament_refuses_such_a_manifest_in_one_line(tmp_path, env):
    line = refused(tmp_path, f"env = {{ {env} }}")
    assert "manifest b: env may not set" in line and env.split()[0] in line, line


def test_a_workdir_outside_its_folder_and_limits_above_the_ceilings_are_refused(tmp_path):
    line = refused(tmp_path, "", workdir="..")
    assert "workdir" in line and "outside the manifest's folder" in line, line
    (tmp_path / "b").mkdir(exist_ok=True)
    (tmp_path / "b" / "out").symlink_to(tmp_path.parent)  # a link out counts as out
    assert "outside the manifest's folder" in refused(tmp_path, "", workdir="b/out")
    assert "outside" in refused(tmp_path, "", workdir=str(tmp_path.parent))
    line = refused(tmp_path, "memory_mb = 1000000000")
    assert "memory_mb 1000000000 is above this tournament's ceiling of 8192" in line, line
    assert "--max-memory-mb" in line
    line = refused(tmp_path, "cpu_seconds = 100000")
    assert "cpu_seconds 100000 is above this tournament's ceiling of 7200" in line, line
    line = refused(tmp_path, "memory_mb = 600", "--max-memory-mb", "512")
    assert "memory_mb 600 is above this tournament's ceiling of 512 (--max-memory-mb)" in line


# -- descriptors ---------------------------------------------------------------------------------


def open_without_cloexec(pid: int) -> dict[str, str]:
    """Descriptors of process ``pid`` (beyond stdio) that an exec would keep."""
    out = {}
    try:
        fds = os.listdir(f"/proc/{pid}/fdinfo")
    except OSError:
        return out
    for fd in fds:
        try:
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        flags = int(re.search(r"flags:\s*([0-7]+)", info).group(1), 8)
        if int(fd) > 2 and not flags & 0o2000000:  # O_CLOEXEC
            out[fd] = target
    return out


def test_every_descriptor_of_the_referee_is_close_on_exec(tmp_path):
    """Watched from outside all through a sandboxed tournament: every descriptor the
    referee (and runner) process holds, its database's included, is close-on-exec, so
    nothing of it can reach a process it starts."""
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "probe.py").write_text(HOSTILE)
    manifest = tmp_path / "b.toml"
    manifest.write_text(
        f'name = "b"\ncommand = {json.dumps([sys.executable, "probe.py", "--honest"])}\n'
        'workdir = "b"\n'
    )
    proc = subprocess.Popen(
        [*CLI, "tournament", "--game", "whist", "--bots", f"{manifest},heuristic,random",
         "-o", "deal_size=2", "--deals", "2", "--db", str(tmp_path / "t.db"), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    # A descriptor counts as kept across an exec when two looks in a row (10 ms apart) find it
    # without O_CLOEXEC: gRPC's event engine makes its wake-up eventfd, then sets the flag, and
    # a look can fall between the two (subprocess closes every descriptor of a child anyway).
    leaked: dict[str, str] = {}
    seen = set()
    before: dict[str, str] = {}
    while proc.poll() is None:
        now = open_without_cloexec(proc.pid)
        leaked |= {fd: t for fd, t in now.items() if before.get(fd) == t}
        before = now
        with contextlib.suppress(OSError):
            seen |= {
                os.readlink(f"/proc/{proc.pid}/fd/{fd}")
                for fd in os.listdir(f"/proc/{proc.pid}/fd")
            }
        time.sleep(0.01)
    out = proc.stdout.read()
    assert proc.returncode == 0, out
    assert str(tmp_path / "t.db") in seen  # it was watched while the database was open
    assert not leaked, leaked


# -- starting an entry: the runner never forks ---------------------------------------------------

#: argv: MEMORY_MB. Makes every fork of this process abort in the child, as gRPC's fork
#: handlers do now and then to a fork of the runner (the poller thread they restart in the child
#: loses its epoll descriptor when the child closes what it does not pass on: "epoll_wait error:
#: Bad file descriptor"), then starts a sandboxed entry, which must run all the same: a
#: ``vfork`` runs no fork handler. Prints its status, its stderr and whether it had a cgroup.
FORK_ABORTS = r"""
import ctypes, json, subprocess, sys
from levata.server.tournament.sandbox import Sandbox

libc = ctypes.CDLL(None)
libc.__register_atfork(None, None, ctypes.cast(libc.abort, ctypes.c_void_p), None)
said = "import os, sys; print('ran as', os.getuid(), file=sys.stderr)"
argv = [sys.executable, "-I", "-S", "-c", said]
started = Sandbox().spawn(argv, {}, None, 0, subprocess.DEVNULL, subprocess.PIPE, int(sys.argv[1]))
_, err = started.proc.communicate(timeout=60)
started.release()
print(json.dumps([started.proc.returncode, err.decode().strip(), started.cgroup is not None]))
"""


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "__register_atfork"), reason="needs glibc")
@pytest.mark.parametrize("memory_mb", [0, 64], ids=["plain", "memory-cgroup"])
def test_an_entry_starts_where_a_fork_of_the_runner_would_die(memory_mb):
    """The runner (a gRPC process) starts each sandboxed entry without forking itself, even as
    root with a user to set for it (``subprocess`` forks to set ids): else, now and then, gRPC
    aborted the forked child before its exec, and the entry never came (its seats forfeited)."""
    run = subprocess.run(
        [sys.executable, "-c", FORK_ABORTS, str(memory_mb)], capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr  # as root, the old code died here: no user namespace
    status, said, cgroup = json.loads(run.stdout.splitlines()[-1])
    user = UID_BASE if ROOT else os.getuid()  # as root: the entry's own user
    assert (status, said) == (0, f"ran as {user}"), (run.stdout, run.stderr)
    assert cgroup or not memory_mb or not ROOT, run.stdout  # it passed the cgroup's gate


# -- memory: a cgroup, or a capped /tmp ----------------------------------------------------------

FLOOD = (
    "import os\\nf = open('/tmp/flood', 'wb', buffering=0)\\nn = 0\\ntry:\\n"
    "    for n in range(1, 400):\\n        f.write(bytes(1 << 20))\\n"
    "except OSError as exc:\\n    import sys\\n"
    "    print('FLOOD stopped at', n, 'MiB:', exc.strerror, file=sys.stderr)\\n"
)


@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "tmpfs-cap"])
def test_a_tmp_flood_stays_within_memory_mb(tmp_path, cgroups):
    """400 MiB written to /tmp by an entry of 200 MiB: killed by its cgroup's limit (its
    /tmp counts), or refused (ENOSPC) where no cgroup can be made and /tmp is capped."""
    tmp_path.chmod(0o755)
    (tmp_path / "flood.py").write_text(FLOOD.encode().decode("unicode_escape"))
    m = parse_manifest(
        'name = "flood"\ncommand = ["python3", "flood.py"]\nprotocol = "grpc"\nmemory_mb = 200\n',
        tmp_path,
    )
    log = tmp_path / "flood.log"
    box = Sandbox(cgroups=cgroups)
    entry = Entry("flood", "manifest", manifest=m)
    bot = launch(entry, "whist", "unix:/x", "a-token-of-its-own", 1, "f", log, box)
    status = bot.proc.wait(timeout=60)
    made = bot.spawned is not None and bot.spawned.cgroup is not None
    peak = bot.spawned.cgroup.peak_mb() if made else 0
    bot.stop()
    text = log.read_text()
    if made:
        assert "== memory cgroup" in text and status == 128 + 9, text  # the OOM killer
        assert peak <= 200.5, peak
        assert not bot.spawned.cgroup.path.exists()  # removed with the entry
    else:
        assert "no memory cgroup here: /tmp capped at 200 MiB" in text
        found = re.search(r"FLOOD stopped at (\d+) MiB: No space left on device", text)
        assert found and int(found.group(1)) - 1 <= 200, text  # the failed write was the last
    assert cgroups == made or not ROOT
