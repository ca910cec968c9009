"""Tournaments over the real referee: loopback gRPC, real bot processes, a real SQLite file.

Nothing is mocked: ``levata tournament`` runs as a process (the runner with its in-process
referee, one process per bot), is killed with SIGKILL and resumed; a submitted bot crashes
on purpose; the HTML report is opened in headless Chromium.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from levata.server.match.store import Store
from levata.server.tournament.entries import Entry, launch, parse_manifest
from levata.server.tournament.report import REPLY_TIMES, standings_of
from levata.server.tournament.sandbox import Sandbox
from levata.server.tournament.standings import entry_results
from levata.server.tournament.store import TourneyStore

from live import LiveServer, bot_process

CLI = [sys.executable, "-m", "levata.server.cli"]


def levata(
    *args: object, timeout: float = 180, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(
        [*CLI, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **env} if env else None,
    )
    assert "Traceback" not in run.stderr, run.stderr
    return run


def finished_rows(db: Path, status: str = "finished") -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
            (n,) = c.execute(
                "SELECT count(*) FROM tournament_matches WHERE status = ?", (status,)
            ).fetchone()
            return n
    except sqlite3.OperationalError:  # not created yet
        return 0


def only_tournament(db: Path) -> tuple[TourneyStore, str]:
    tdb = TourneyStore(db)
    (t,) = tdb.tournaments()
    return tdb, t["id"]


# -- SIGKILL and resume -------------------------------------------------------------------------

RESUMABLE = [
    "tournament",
    "--game",
    "whist",
    "--bots",
    "heuristic,random,random",
    "--format",
    "duplicate",
    "--deals",
    "24",
    "-o",
    "deal_size=4",
    "--seed",
    "11",
    "--parallel",
    "3",
    "--quiet",
]


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path):
    killed, clean = tmp_path / "killed.db", tmp_path / "clean.db"
    total = 24 * 6
    runner = subprocess.Popen(
        [*CLI, *RESUMABLE, "--db", str(killed)],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "killed.err").open("w"),
    )
    # Freeze the runner (its referee runs inside it) once enough has finished, and kill it
    # only when something is in flight: on a loaded machine a plain kill can fall between
    # two matches.
    deadline = time.monotonic() + 120
    while runner.poll() is None and time.monotonic() < deadline:
        if finished_rows(killed) >= 12:
            runner.send_signal(signal.SIGSTOP)
            if finished_rows(killed, "running"):
                break
            runner.send_signal(signal.SIGCONT)
        time.sleep(0.02)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    at_kill = finished_rows(killed)
    assert 12 <= at_kill < total, f"the kill came too late ({at_kill} of {total} finished)"
    tdb, tid = only_tournament(killed)
    in_flight = [r for r in tdb.rows(tid) if r["status"] == "running"]
    assert in_flight, "nothing was in flight when the runner was killed"

    resumed = levata(*RESUMABLE, "--db", killed, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"tournament {tid} (resumed)" in resumed.stdout
    assert f"{len(in_flight)} unfinished match(es) will be replayed" in resumed.stderr
    uninterrupted = levata(*RESUMABLE, "--db", clean)
    assert uninterrupted.returncode == 0, uninterrupted.stderr

    # nothing lost, nothing counted twice
    rows = tdb.rows(tid)
    assert [r["status"] for r in rows] == ["finished"] * total
    attempts = tdb.attempts(tid)
    settled = [a for a in attempts if a["status"] == "finished"]
    assert sorted(a["index"] for a in settled) == list(range(total))
    abandoned = [a for a in attempts if a["status"] == "abandoned"]
    assert sorted(a["index"] for a in abandoned) == sorted(r["index"] for r in in_flight)
    store = Store(killed)
    for r in rows:
        assert store.match(r["match_id"])["status"] == "finished"
    for a in abandoned:  # the killed runner's open referee records are closed, not counted
        assert store.match(a["match_id"])["status"] == "aborted"
    assert not store.matches("running") and not store.matches("waiting")

    # the same results, match by match, and the same standings, to the last digit
    ctdb, ctid = only_tournament(clean)
    assert ctid == tid  # the id is the spec's: same command, same tournament
    keep = ("scores", "ranks", "forfeited", "deals")
    assert [{k: r["result"][k] for k in keep} for r in rows] == [
        {k: r["result"][k] for k in keep} for r in ctdb.rows(ctid)
    ]
    assert not any(r["result"]["forfeited"] for r in rows)
    assert standings_text(resumed) == standings_text(uninterrupted)
    for db in (killed, clean):
        report = levata("report", tid, "--db", db, "--json", tmp_path / f"{db.stem}.json")
        assert report.returncode == 0, report.stderr
    assert json.loads((tmp_path / "killed.json").read_text()) == json.loads(
        (tmp_path / "clean.json").read_text()
    )
    again = levata(*RESUMABLE, "--db", killed, "--resume")  # finished: nothing left to play
    assert again.returncode == 0 and standings_text(again) == standings_text(resumed)


#: 8 deals, 48 matches, 4 at a time.
SHORT = [*RESUMABLE[:8], "8", "-o", "deal_size=2", "--seed", "11", "--parallel", "4", "--quiet"]

#: An in-flight match's referee record, broken behind the runner's back -> what is said of it.
IN_FLIGHT_BREAKS = [
    ("UPDATE matches SET options = '{\"deal_size\": ' WHERE id = ?",
     "the options of its row is not valid JSON"),
    ("UPDATE matches SET seat_bots = '\"solo\"' WHERE id = ?",
     "the seat_bots of its row is not a JSON list"),
    ("UPDATE matches SET policy = '{\"move_ms\": \"fast\"}' WHERE id = ?",
     "its policy's move_ms is not a whole number"),
]  # fmt: skip


def in_flight(db: Path) -> list[str]:
    """The matches the runner noted as running whose referee records are still open (a match
    may have ended at the referee and not yet be noted, or be created and not yet noted)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as c:
        return [i for (i,) in c.execute(
            "SELECT m.id FROM tournament_matches t JOIN matches m ON m.id = t.match_id"
            " WHERE t.status = 'running' AND m.status = 'running'"
        )]  # fmt: skip


def kill_in_flight(db: Path, err: Path, command: list[str], least: int) -> None:
    """Run ``command`` and SIGKILL it once ``least`` matches are done and one is in flight."""
    runner = subprocess.Popen([*CLI, *command, "--db", str(db)], stdout=subprocess.DEVNULL,
                              stderr=err.open("w"))  # fmt: skip
    deadline = time.monotonic() + 120
    while runner.poll() is None and time.monotonic() < deadline:
        if finished_rows(db) >= least:
            runner.send_signal(signal.SIGSTOP)
            if len(in_flight(db)) >= len(IN_FLIGHT_BREAKS):
                break
            runner.send_signal(signal.SIGCONT)
        time.sleep(0.02)
    runner.send_signal(signal.SIGKILL)
    runner.wait()


def test_resume_closes_a_broken_in_flight_record_and_equals_an_uninterrupted_run(tmp_path):
    killed, clean = tmp_path / "killed.db", tmp_path / "clean.db"
    kill_in_flight(killed, tmp_path / "killed.err", SHORT, least=6)
    tdb, tid = only_tournament(killed)
    open_ones = in_flight(killed)
    assert len(open_ones) >= len(IN_FLIGHT_BREAKS), "too little in flight at the kill"
    broken = dict(zip(open_ones, IN_FLIGHT_BREAKS, strict=False))
    with contextlib.closing(sqlite3.connect(killed)) as c:
        for match_id, (statement, _) in broken.items():
            c.execute(statement, (match_id,))
        c.commit()

    resumed = levata(*SHORT, "--db", killed, "--resume")  # asserts: no traceback
    assert resumed.returncode == 0, resumed.stderr
    for match_id, (_, reason) in broken.items():  # one line each, with the reason
        (line,) = [x for x in resumed.stderr.splitlines() if match_id in x]
        assert f"match {match_id} closed as aborted: abandoned by a stopped tournament" in line
        assert reason in line, line
    store = Store(killed)
    for match_id, (_, reason) in broken.items():  # recorded so, and made readable
        row = store.match(match_id)
        assert row["status"] == "aborted" and reason in row["result"]["detail"], row
    assert not store.matches("running") and not store.matches("waiting")
    assert [r["status"] for r in tdb.rows(tid)] == ["finished"] * 48

    uninterrupted = levata(*SHORT, "--db", clean)
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    assert standings_text(resumed) == standings_text(uninterrupted)


def standings_text(run: subprocess.CompletedProcess[str]) -> list[str]:
    """The printed standings, crosstable and breakdowns (not the first line or the report
    hint, which name the database, nor the reply times, which differ from run to run)."""
    lines = run.stdout.splitlines()[1:]
    cut = next((i for i, x in enumerate(lines) if x.strip() == REPLY_TIMES), len(lines))
    return [x for x in lines[:cut] if not x.startswith("report:")]


# -- competition mode: manifests, limits, logs, a crashing bot ----------------------------------

CRASHY = """
import hashlib, json, os, resource, sys
cpu, mem = resource.getrlimit(resource.RLIMIT_CPU), resource.getrlimit(resource.RLIMIT_AS)
print(f"limits cpu={cpu} as={mem}", file=sys.stderr, flush=True)
token = os.environ["LEVATA_TOKEN"]
print("token sha256", hashlib.sha256(token.encode()).hexdigest(), file=sys.stderr, flush=True)
parent = open(f"/proc/{os.getppid()}/cmdline").read()
print(f"token in the bridge's command line: {token in parent}", file=sys.stderr, flush=True)
answered = 0
for line in sys.stdin:
    message = json.loads(line)
    if "request" not in message:
        continue
    if answered == int(sys.argv[1]):
        print("crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    answered += 1
    print(json.dumps({"index": len(message["request"]["legal"]) - 1}), flush=True)
"""


def test_a_crashing_bot_forfeits_and_the_tournament_goes_on(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "crashy.py").write_text(CRASHY)
    manifest = tmp_path / "crashy.toml"
    manifest.write_text(
        textwrap.dedent("""
        name = "crashy"
        command = ["python3", "crashy.py", "4"]   # four decisions, then exit 3
        protocol = "json"
        workdir = "bots"
        move_ms = 1500
        cpu_seconds = 7
        memory_mb = 1024
        """)
    )
    db, logs = tmp_path / "t.db", tmp_path / "logs"
    run = levata(
        "tournament",
        "--game",
        "whist",
        "--bots",
        f"{manifest},random,random,heuristic",
        "--players",
        "3",
        "--deals",
        "2",
        "-o",
        "deal_size=1",
        "--seating",
        "rotate",
        "--seed",
        "3",
        "--parallel",
        "4",
        "--db",
        db,
        "--logs",
        logs,
    )
    assert run.returncode == 0, run.stderr
    assert "bot crashy exited (status 1); it forfeits its matches" in run.stdout + run.stderr
    assert re.search(r"crashy\s.*\s1[0-9]\s*$", run.stdout, re.MULTILINE)  # forfeits column

    tdb, tid = only_tournament(db)
    rows = tdb.rows(tid)
    assert len(rows) == 4 * 3 * 2 and all(r["status"] == "finished" for r in rows)
    store = Store(db)
    crashy_rows = [r for r in rows if "crashy" in r["seats"]]
    others = [r for r in rows if "crashy" not in r["seats"]]
    assert len(crashy_rows) == 18 and len(others) == 6
    forfeits = [r for r in crashy_rows if r["result"]["forfeited"]]
    assert len(forfeits) >= 12
    for r in forfeits:  # the crashed bot's seat, and only it, forfeited; recorded as such
        assert [r["seats"][s] for s in r["result"]["forfeited"]] == ["crashy"]
        assert r["result"]["ranks"][r["result"]["forfeited"][0]] == 3
        assert store.match(r["match_id"])["result"]["reason"] == "forfeit"
    for r in others:  # the tournament went on: the other bots' matches all completed
        assert r["result"]["reason"] == "complete" and not r["result"]["forfeited"]
    played = sum(
        1
        for r in crashy_rows
        for reply in store.replies(r["match_id"])
        if reply["outcome"] == "applied" and r["seats"][reply["seat"]] == "crashy"
    )
    assert played == 4  # it really played before it crashed

    log = (logs / "crashy.log").read_text()
    # set in its own process; a memory cgroup, where one holds it, and no address-space cap
    cap = "(-1, -1)" if "== memory cgroup" in log else "(1073741824, 1073741824)"
    assert f"limits cpu=(7, 12) as={cap}" in log
    assert "crashing on purpose" in log and "the bridged program exited" in log
    # Its token came through its environment; it is in no command line and no log.
    issued = store.bots()
    assert f"token sha256 {issued[f'{tid}/crashy']}" in log
    assert "token in the bridge's command line: False" in log
    for name in ("crashy", "heuristic"):
        words = re.findall(r"[A-Za-z0-9_\-]{20,}", (logs / f"{name}.log").read_text())
        hashed = {hashlib.sha256(w.encode()).hexdigest() for w in words}
        assert not hashed & set(issued.values()), name
    assert (logs / "heuristic.log").exists()


def test_a_bot_that_crashes_at_start_up_ranks_last(tmp_path):
    """The bot author's first try: a bridged program that dies at once. Every match of it
    ends before a deal is scored (all seats 0), and it once ranked above a losing random."""
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bot.sh").write_text("echo 'syntax error, dying' >&2\nexit 1\n")
    manifest = tmp_path / "dies.toml"
    manifest.write_text(
        'name = "dies"\ncommand = ["sh", "bot.sh"]\nprotocol = "json"\nworkdir = "bots"\n'
    )
    db = tmp_path / "t.db"
    run = levata(
        "tournament", "--game", "whist", "--bots", f"{manifest},random,random,heuristic",
        "--players", "3", "--deals", "3", "--seating", "rotate", "--seed", "3", "--db", db,
        "--parallel", "4", "--quiet",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("warning: dies forfeited")]
    assert len(lines) == 1 and "27 of 27 matches" in lines[0] and "ranks last" in lines[0]
    table = [ln.split() for ln in run.stdout.splitlines() if re.match(r"\s*[1-4]\s+\S", ln)]
    assert [r[1] for r in table[:4]][-1] == "dies" and table[3][-1] == "27"  # last; forfeits

    tdb, tid = only_tournament(db)
    log = (db.parent / "levata-logs" / tid / "dies.log").resolve()
    assert lines[0].endswith(f"; its log: {log}") and "syntax error, dying" in log.read_text()
    rows = tdb.rows(tid)
    assert all(r["status"] == "finished" for r in rows)
    st = standings_of(tdb, tid, 200)
    assert [b.name for b in st.bots][-1] == "dies" and st.by_rating()[-1].name == "dies"
    for other in ("random", "random-2", "heuristic"):
        assert st.pair(other, "dies").diff.value > 0 and st.pair(other, "dies").ahead == 1.0
    # the case of the report: a random bot lost points on the deals it played out, so a
    # forfeit counted as a 0 would have ranked above it
    played = {
        n: [x.score for r in rows if "dies" not in r["seats"] for w, x in
            entry_results(r, 0.0).items() if w == n]
        for n in ("random", "random-2")
    }  # fmt: skip
    assert min(sum(v) / len(v) for v in played.values()) < 0

    page = tmp_path / "report.html"
    made = levata("report", tid, "--db", db, "--html", page)
    assert made.returncode == 0 and "warning: dies forfeited 27 of 27" in made.stderr
    html = page.read_text()
    assert 'id="forfeit-warning"' in html and "dies forfeited 27 of 27 matches" in html
    assert '<tr data-bot="dies" class=forfeit>' in html and "27 forfeited</span>" in html


@pytest.mark.parametrize("sandboxed", [False, True], ids=["plain", "bwrap"])
@pytest.mark.parametrize(
    ("limit", "program", "expect"),
    [
        ("cpu_seconds = 1", "while True: pass", signal.SIGXCPU),
        ("memory_mb = 100", "x = bytearray(400 * 1024 * 1024)", 0),
    ],
)
def test_submitted_bots_run_under_cpu_and_memory_limits(
    tmp_path, limit, program, expect, sandboxed
):
    if sandboxed and shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap")
    tmp_path.chmod(0o755)  # its folder: the entry's own user must be able to enter it
    m = parse_manifest(
        f'name = "greedy"\ncommand = ["python3", "-c", "{program}"]\nprotocol = "grpc"\n{limit}',
        tmp_path,
    )
    log = tmp_path / "greedy.log"
    entry = Entry("greedy", "manifest", manifest=m)
    box = Sandbox() if sandboxed else None
    bot = launch(entry, "whist", "127.0.0.1:1", "T", 1, "g", log, box)
    # Killed by a signal: -SIG from a plain process, 128 + SIG from bwrap, which passes it on.
    killed = {128 + s if sandboxed else -s for s in (expect, signal.SIGKILL)}
    status = bot.proc.wait(timeout=30)
    bot.stop()  # its stderr is read by a thread of ours: wait for the end of it
    text = log.read_text()
    if expect:
        assert status in killed
    elif "== memory cgroup" in text:  # the cgroup holds it (no address-space cap): the
        assert status == 128 + signal.SIGKILL, text  # kernel kills it at 100 MiB held
    else:  # the address-space cap: the allocation fails in its own process
        assert status == 1 and "MemoryError" in text, text


@pytest.mark.parametrize("sandboxed", [False, True], ids=["plain", "bwrap"])
def test_a_submitted_program_starts_with_the_default_signals(tmp_path, sandboxed):
    """The limits are set by a Python wrapper that then becomes the bot: Python ignores
    SIGPIPE and SIGXFSZ, and an ignored signal survives ``exec``, so without a reset a C bot
    writing to a closed pipe would carry on on EPIPE instead of ending as its author expects."""
    if sandboxed and shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap")
    tmp_path.chmod(0o755)  # its folder: the entry's own user must be able to enter it
    m = parse_manifest(
        'name = "shell"\ncommand = ["sh", "-c", "grep SigIgn /proc/self/status >&2"]\n'
        'protocol = "grpc"\ncpu_seconds = 30',
        tmp_path,
    )
    log = tmp_path / "shell.log"
    box = Sandbox() if sandboxed else None
    bot = launch(
        Entry("shell", "manifest", manifest=m), "whist", "127.0.0.1:1", "T", 1, "g", log, box
    )
    assert bot.proc.wait(timeout=30) == 0
    bot.stop()  # its stderr is read by a thread of ours: wait for the end of it
    ignored = int(re.search(r"SigIgn:\s*([0-9a-f]+)", log.read_text()).group(1), 16)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        assert not ignored & (1 << (sig - 1)), f"{sig.name} is ignored in the bot"


def test_a_manifest_bot_that_cannot_start_forfeits(tmp_path):
    tmp_path.chmod(0o755)  # its folder: the entry's own user must be able to enter it
    manifest = tmp_path / "ghost.toml"
    manifest.write_text('name = "ghost"\ncommand = ["no-such-program-here"]\nprotocol = "grpc"\n')
    db = tmp_path / "t.db"
    run = levata(
        "tournament", "--game", "whist", "--bots", f"{manifest},random,random",
        "--deals", "1", "-o", "deal_size=1", "--seating", "rotate", "--db", db, "--parallel", "3",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    tdb, tid = only_tournament(db)
    rows = tdb.rows(tid)
    assert len(rows) == 3
    assert all(r["seats"][r["result"]["forfeited"][0]] == "ghost" for r in rows)
    log = (db.parent / "levata-logs" / tid / "ghost.log").read_text()
    assert "cannot run no-such-program-here" in log


# -- a running referee, bots already connected ---------------------------------------------------


def test_tournament_on_a_running_referee_with_connected_bots(tmp_path):
    server = LiveServer(tmp_path / "referee.db")
    try:
        procs = [
            bot_process("random", "whist", server, server.add_bot(name), seed=i, matches=6)
            for i, name in enumerate(("alice", "bob"))
        ]
        db = tmp_path / "tournament.db"
        run = levata(
            "tournament", "--game", "whist", "--bots", "heuristic,@alice,@bob", "--deals", "1",
            "-o", "deal_size=2", "--server", server.address, "--db", db, "--parallel", "6",
            env={"LEVATA_ADMIN_TOKEN": server.admin_token},
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        for p in procs:
            assert p.wait(timeout=30) == 0  # each sat in its 6 matches and left
        tdb, tid = only_tournament(db)
        rows = tdb.rows(tid)
        assert len(rows) == 6 and all(not r["result"]["forfeited"] for r in rows)
        for r in rows:  # the matches are the running referee's, in its own records
            record = server.store.match(r["match_id"])
            assert record["status"] == "finished"
            assert sorted(record["seat_bots"]) == sorted(["alice", "bob", f"{tid}/heuristic"])
        assert "alice" in run.stdout and "bob" in run.stdout
    finally:
        server.stop()


def test_team_entries_play_the_two_table_method(tmp_path):
    db = tmp_path / "t.db"
    run = levata(
        "tournament", "--game", "whist", "--players", "4", "--teams", "0+2,1+3",
        "--bots", "heuristic,random", "--deals", "2", "-o", "deal_size=2", "--db", db,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "teams of seats 0+2, 1+3, two-table" in run.stdout
    tdb, tid = only_tournament(db)
    rows = tdb.rows(tid)
    store = Store(db)
    h, r = f"{tid}/heuristic", f"{tid}/random"
    for one, two in (rows[0:2], rows[2:4]):  # one deal, partnerships swapped
        assert one["seed"] == two["seed"]
        assert store.match(one["match_id"])["seat_bots"] == [f"{h}.1", f"{r}.1", f"{h}.2", f"{r}.2"]
        assert store.match(two["match_id"])["seat_bots"] == [f"{r}.1", f"{h}.1", f"{r}.2", f"{h}.2"]
    assert re.search(r"heuristic\s.*\s4\s*$", run.stdout, re.MULTILINE)  # 4 matches, not 8


def test_whole_games_round_robin(tmp_path):
    db = tmp_path / "t.db"
    run = levata(
        "tournament", "--game", "macao", "--bots", "heuristic,random", "--format", "roundrobin",
        "--deals", "2", "-o", "action_cap=300", "--db", db,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "roundrobin over 2 rounds (every seating), each match a whole game" in run.stdout
    tdb, tid = only_tournament(db)
    rows = tdb.rows(tid)
    assert len(rows) == 4 and len({r["seed"] for r in rows}) == 4
    assert all(r["options"] == {"action_cap": "300"} for r in rows)


# -- the HTML report in a real browser ----------------------------------------------------------


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no Chromium: install it (apt-get install -y chromium); CI's .ci/run does")


def browse(page: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'chromium-profile'}",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
    )


def test_html_report_renders_in_headless_chromium(tmp_path):
    db = tmp_path / "t.db"
    run = levata(
        "tournament", "--game", "whist", "--bots", "heuristic,random,random", "--deals", "4",
        "--seed", "5", "--db", db, "--quiet",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    tdb, tid = only_tournament(db)
    page = tmp_path / "report.html"
    made = levata("report", tid, "--db", db, "--html", page)
    assert made.returncode == 0 and f"wrote {page}" in made.stdout
    # the terminal report keeps step: by seat with the reply times, by deal size
    for title in ("score per deal by seat", "score per deal by deal_size", REPLY_TIMES):
        assert title in made.stdout

    dom = browse(page, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr
    html = dom.stdout
    assert f"<title>levata tournament {tid}</title>" in html
    assert "<script" not in html and "http://" not in html.replace(SVG_NS, "")
    table = html[html.index('id="standings-table"') : html.index("</table>")]
    for bot in ("heuristic", "random", "random-2"):
        assert f'data-bot="{bot}"' in table
        assert f'href="#matches-{bot}"' in table  # each row links to its matches
    assert table.count("<tr data-bot=") == 3
    for plot in (
        "plot-means", "plot-progression", "plot-ratings", "plot-rating-diffs",
        "plot-distributions",
    ):  # fmt: skip
        assert f'<svg id="{plot}"' in html
    means = html[html.index('id="plot-means"') :]
    assert means[: means.index("</svg>")].count("<circle") == 3
    progression = section(html, 'id="plot-progression"', "</svg>")
    assert progression.count("<polyline") == 3
    dist = section(html, 'id="plot-distributions"', "</svg>")
    assert dist.count("<rect") >= 3
    assert 'id="crosstable-table"' in html and 'data-pair="heuristic|random"' in html

    # by deal size (the four sizes the schedule cycled through) and by seat
    sizes = section(html, 'id="size-table"', "</table>")
    assert all(f"<th>{n}</th>" in sizes for n in "1234") and sizes.count("<tr>") == 2 + 3
    assert section(html, 'id="seat-table"', "</table>").count("<th>seat ") == 3
    # reply times from the referee's records: every reply of every match, per bot
    store = Store(db)
    rows = tdb.rows(tid)
    replies = {n: 0 for n in ("heuristic", "random", "random-2")}
    for r in rows:
        for reply in store.replies(r["match_id"]):
            replies[r["seats"][reply["seat"]]] += 1
    clocks = section(html, 'id="clock-table"', "</table>")
    for bot, n in replies.items():
        line = section(clocks, f'href="#matches-{bot}"', "</tr>")
        assert n > 0 and f"<td>{n}</td>" in line and " ms" not in line
    # each bot's matches, by the ids `levata replay` takes
    for bot in replies:
        listed = section(html, f'<details id="matches-{bot}"', "</details>")
        ids = re.findall(r'<code id="m-([0-9a-f]+)-', listed)
        assert ids == [r["match_id"] for r in rows if bot in r["seats"]]
    replay = levata("replay", rows[0]["match_id"], "--db", db)
    assert replay.returncode == 0, replay.stderr

    shot = tmp_path / "report.png"
    png = browse(page, tmp_path, f"--screenshot={shot}", "--window-size=1100,2400")
    assert png.returncode == 0, png.stderr
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # drawn, not blank


SVG_NS = "http://www.w3.org/2000/svg"


def section(html: str, start: str, end: str) -> str:
    """The part of ``html`` from ``start`` to the next ``end``."""
    at = html.index(start)
    return html[at : html.index(end, at)]
