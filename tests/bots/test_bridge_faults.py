"""The JSON bridge against programs that misbehave, each against a real ``levata serve``.

Each test bridges a small real program (Python or shell) into a Whist match against two
random bots on a ``levata serve`` process of its own, over gRPC on loopback. What the
referee records is read from its database (read-only) and from ``GetMatch``; what the
program was told is what it logged; what the bridge said is its stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest

from levata.bots.base import Bot
from levata.bots.bridge import ProgramBridge
from levata.bots.sdk import BotClient

from live import ServeProcess, bot_env

BRIDGE = [sys.executable, "-m", "levata.bots", "bridge"]
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def serve(tmp_path_factory) -> Iterator[ServeProcess]:
    live = ServeProcess(tmp_path_factory.mktemp("bridge-faults"))
    yield live
    live.stop()


class Bridged:
    """One match: the bridged ``program`` at seat 0, random bots at seats 1 and 2."""

    count = 0

    def __init__(
        self,
        serve: ServeProcess,
        tmp: Path,
        program: str,
        suffix: str = ".py",
        args: tuple[str, ...] = (),
        options: dict[str, str] | None = None,
        **policy: int,
    ) -> None:
        Bridged.count += 1
        self.serve, self.tmp = serve, tmp
        names = [f"{n}-{Bridged.count}" for n in ("bridged", "r1", "r2")]
        tokens = [serve.register_retrying(n) for n in names]
        path = tmp / f"program{suffix}"
        path.write_text(textwrap.dedent(program))
        path.chmod(0o755)
        argv = [sys.executable, str(path)] if suffix == ".py" else [str(path)]
        self.log = tmp / "program.log"  # what the program chooses to log
        self.stderr = (tmp / "bridge.err").open("w+")
        self.proc = subprocess.Popen(
            [*BRIDGE, "--server", serve.address, "--matches", "1", "--", *argv, str(tmp), *args],
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
            env=bot_env(tokens[0]),
        )
        self.others = []
        for seed, token in enumerate(tokens[1:]):
            cmd = [*BRIDGE[:3], "run", "random", "--game", "whist", "--seed", str(seed)]
            cmd += ["--server", serve.address, "--matches", "1", "--quiet"]
            self.others.append(
                subprocess.Popen(
                    cmd,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=bot_env(token),
                )
            )
        opts = {"deal_size": "3"} if options is None else options
        self.match_id = serve.create_retrying("whist", names, options=opts, **policy)

    def peak_rss_kb(self) -> int:
        """The bridge's peak resident memory so far (VmHWM), 0 once it has exited."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return 0
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    def wait_match(self, timeout: float = 120):
        return self.serve.wait(self.match_id, timeout=timeout)

    def finish(self, timeout: float = 30) -> int:
        """The bridge's exit status, within ``timeout`` of the call."""
        status = self.proc.wait(timeout=timeout)
        for p in self.others:
            p.wait(timeout=30)
        return status

    def bridge_said(self) -> list[str]:
        self.stderr.seek(0)
        return self.stderr.read().splitlines()

    def replies(self) -> list[tuple[str, str]]:
        """The referee's record of seat 0's replies: (outcome, detail), the applied and timed
        out ones in order, then each refused one (counted per reason, the first's detail)."""
        with sqlite3.connect(f"file:{self.serve.db}?mode=ro", uri=True) as db:
            rows = db.execute(
                "SELECT outcome, detail FROM replies WHERE match_id = ? AND seat = 0"
                " ORDER BY rowid",
                (self.match_id,),
            ).fetchall()
            refused = db.execute(
                "SELECT outcome, detail, count FROM refused_replies WHERE match_id = ?"
                " AND seat = 0 ORDER BY first_at",
                (self.match_id,),
            ).fetchall()
        out = [(str(o), str(d)) for o, d in rows]
        return out + [(str(o), str(d)) for o, d, n in refused for _ in range(n)]

    def detail(self) -> str:
        return _detail(self.serve, self.match_id)

    def kill(self) -> None:
        for p in (self.proc, *self.others):
            if p.poll() is None:
                p.kill()
                p.wait()
        self.stderr.close()


def _detail(serve: ServeProcess, match_id: str) -> str:
    """What the referee recorded about how a match ended."""
    with sqlite3.connect(f"file:{serve.db}?mode=ro", uri=True) as db:
        (result,) = db.execute("SELECT result FROM matches WHERE id = ?", (match_id,)).fetchone()
    return str(json.loads(result)["detail"])


@pytest.fixture
def bridged(serve, tmp_path) -> Iterator[Callable]:
    made: list[Bridged] = []

    def make(program: str, **kw) -> Bridged:
        made.append(Bridged(serve, tmp_path, program, **kw))
        return made[-1]

    yield make
    for b in made:
        b.kill()


#: A program that writes, for its first requests, one bad line each (bytes, from the list
#: given in BAD) and then, at once, a good reply; it logs every line it reads.
BAD_THEN_GOOD = """
import json, os, sys
BAD = %r
log = open(os.path.join(sys.argv[1], "program.log"), "w")
out = sys.stdout.buffer
for line in sys.stdin:
    log.write(line)
    log.flush()
    message = json.loads(line)
    if "request" not in message:
        continue
    if BAD:
        out.write(BAD.pop(0))
    out.write(b'{"index": %%d}\\n' %% message["request"]["legal"][0]["index"])
    out.flush()
"""


def _told(b: Bridged) -> list[dict]:
    return [json.loads(x)["error"] for x in b.log.read_text().splitlines() if '"error"' in x[:9]]


def test_invalid_utf8_is_refused_and_play_goes_on(bridged):
    b = bridged(BAD_THEN_GOOD % ([b'{"index": 0}\xff\xfe\n'],))
    info = b.wait_match()
    assert b.finish() == 0, b.bridge_said()
    # The bad line was refused, with its reason, and every decision after it was answered.
    assert info.strikes[0] == 0 and not info.result.forfeited
    refused = [(o, d) for o, d in b.replies() if o != "applied"]
    assert len(refused) == 1 and refused[0][0] == "malformed", refused
    assert "not UTF-8" in refused[0][1], refused
    assert sum(o == "applied" for o, _ in b.replies()) >= 4
    (error,) = _told(b)
    assert error["code"] == "REPLY_ERROR_CODE_MALFORMED" and "not UTF-8" in error["message"]
    said = [s for s in b.bridge_said() if "not UTF-8" in s]  # once, by the bridge
    assert len(said) == 1 and said[0].startswith("bridge: refused line 1 (match"), said


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"index": \n', "not JSON"),  # partial JSON
        (b"[0]\n", "a reply is a JSON object"),
        (b'"index"\n', "a reply is a JSON object"),
        (b'{"index": "first"}\n', "not an ActionReply"),
        (b"[" * 200_000 + b"\n", "not JSON"),  # nested deeper than any parser goes
        (b'{"index": 7}\n', "index 7 is not one of"),  # a wrong action: the referee's call
        (b'{"action": {"notation": "play"}}\n', "not legal now"),
    ],
    ids=["partial", "array", "string", "wrong-type", "too-deep", "bad-index", "bad-action"],
)
def test_a_bad_reply_is_refused_with_its_reason_and_play_goes_on(bridged, line, reason):
    b = bridged(BAD_THEN_GOOD % ([line, line],))
    info = b.wait_match()
    assert b.finish() == 0, b.bridge_said()
    assert info.strikes[0] == 0 and not info.result.forfeited
    refused = [(o, d) for o, d in b.replies() if o != "applied"]
    assert len(refused) == 2 and all(reason in d for _, d in refused), refused
    told = _told(b)
    assert len(told) == 2 and all(reason in e["message"] for e in told), told
    assert sum(o == "applied" for o, _ in b.replies()) >= 4


def test_a_flood_of_bad_lines_is_told_to_the_program_and_reported_three_times(bridged):
    b = bridged(BAD_THEN_GOOD % ([b'{"index": \n' * 50],))
    info = b.wait_match()
    assert b.finish() == 0, b.bridge_said()
    assert info.strikes[0] == 0 and not info.result.forfeited
    assert len(_told(b)) == 50
    assert [o for o, _ in b.replies() if o != "applied"] == ["malformed"] * 3
    said = [s for s in b.bridge_said() if s.startswith("bridge: refused")]
    assert len(said) == 3, b.bridge_said()
    assert said[-1].endswith("(3 refused for this request: the next are told to the program only)")


def test_an_over_long_line_is_refused_without_being_kept(bridged):
    """A 64 MiB line: refused, and the bridge never holds it (before: 143 MB peak)."""
    honest = bridged(BAD_THEN_GOOD % ([],))
    peak_honest = _peak_until_exit(honest)
    big = bridged(BAD_THEN_GOOD % ([b'{"index": 0, "x": "' + b"y" * (64 * MIB) + b'"}\n'],))
    peak_big = _peak_until_exit(big)
    print(f"bridge peak RSS: honest {peak_honest / 1024:.1f} MiB, 64 MiB line", end=" ")
    print(f"{peak_big / 1024:.1f} MiB")
    info = big.wait_match()
    assert info.strikes[0] == 0 and not info.result.forfeited
    refused = [(o, d) for o, d in big.replies() if o != "applied"]
    assert len(refused) == 1 and "longer than" in refused[0][1], refused
    assert peak_big - peak_honest < 16 * 1024, (peak_honest, peak_big)


def _peak_until_exit(b: Bridged) -> int:
    peak = 0
    end = time.monotonic() + 120
    while b.proc.poll() is None and time.monotonic() < end:
        peak = max(peak, b.peak_rss_kb())
        time.sleep(0.02)
    b.finish()
    return peak


#: Answers two requests, then exits, leaving (when $2 says so) a child that holds its stdout
#: open, as a shell script's background job does: the bridge must not wait for that pipe.
EXITS = r"""#!/bin/sh
n=0
while IFS= read -r line; do
  case "$line" in
    '{"request"'*)
      n=$((n + 1))
      if [ "$n" -gt 2 ]; then
        if [ "$2" = linger ]; then
          sleep 600 &
          echo $! > "$1/child.pid"
        fi
        date +%s.%N > "$1/exited"
        exit 3
      fi
      echo '{"index": 0}'
      ;;
  esac
done
"""


@pytest.mark.parametrize("linger", ["linger", "alone"])
def test_a_program_that_exits_leaves_its_seat_at_once(bridged, tmp_path, linger):
    b = bridged(
        EXITS, suffix=".sh", args=(linger,), move_ms=20_000, bank_ms=0, resume_window_ms=1_000
    )
    try:
        info = b.wait_match(timeout=90)
        ended = time.time()
        exited = float((tmp_path / "exited").read_text())
        status = b.finish()
        if linger == "linger":
            gone = "zombie" in _state(int((tmp_path / "child.pid").read_text()))
            assert gone  # the child it left holding its stdout went with it
    finally:
        child = tmp_path / "child.pid"
        if child.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(child.read_text()), signal.SIGKILL)
    print(f"forfeit recorded {ended - exited:.2f} s after the program exited ({linger})")
    assert info.result.forfeited == [0]
    assert "seat(s) 0 did not resume within the window" in b.detail()
    assert ended - exited < 6  # the 1 s resume window, not three 20 s clocks
    assert status == 1
    said = b.bridge_said()
    assert said == ["error: the bridged program exited (status 3): its seats are left"], said


#: Reads every line and never answers.
MUTE = """
import sys
for line in sys.stdin:
    pass
"""

#: Neither reads nor answers.
DEAF = """
import time
time.sleep(600)
"""


def test_a_silent_program_is_struck_and_forfeits_as_the_policy_says(bridged):
    # A clock the random opponents meet even on a loaded machine: the test is seat 0's.
    b = bridged(MUTE, move_ms=1_000, bank_ms=0, max_strikes=3)
    info = b.wait_match(timeout=60)
    assert info.result.forfeited == [0] and info.strikes[0] == 3, list(info.strikes)
    assert "seat(s) 0 reached 3 strikes" in b.detail()
    assert b.finish(timeout=15) == 0, b.bridge_said()
    timeouts = [d for o, d in b.replies() if o == "timeout"]
    assert len(timeouts) == 3
    said = [s for s in b.bridge_said() if "no reply in time" in s]
    assert len(said) == 2, b.bridge_said()  # the third strike ends the match: no substitute


def test_a_program_that_stops_reading_is_left_past_the_cap(serve, tmp_path):
    names = ["deaf-capped", "deaf-r1", "deaf-r2"]
    tokens = [serve.register_retrying(n) for n in names]
    random = [*BRIDGE[:3], "run", "random", "--game", "whist", "--server", serve.address]
    others = [subprocess.Popen([*random, "--matches", "1"], env=bot_env(t)) for t in tokens[1:]]
    (tmp_path / "deaf.py").write_text(DEAF)
    bridge = ProgramBridge([sys.executable, str(tmp_path / "deaf.py")], max_unread=20_000)
    client = BotClient(lambda *_: cast(Bot, None), serve.address, tokens[0], max_matches=1)
    bridge.attach(client)
    match_id = serve.create_retrying(
        "whist", names, options={}, move_ms=50, bank_ms=0, max_strikes=1000,
        resume_window_ms=500,
    )  # fmt: skip
    try:
        with pytest.raises(RuntimeError, match="has not read its last 20000 bytes of input"):
            asyncio.run(bridge.play())
        info = serve.wait(match_id, timeout=60)
    finally:
        bridge.close()
        for p in others:
            p.wait(timeout=30)
    assert info.result.forfeited == [0]
    assert "seat(s) 0 did not resume within the window" in _detail(serve, match_id)


def test_a_program_that_reads_nothing_does_not_hang_the_bridge(bridged):
    # A whole match of substitutes: far more lines than a pipe holds, none of them read.
    b = bridged(DEAF, options={}, move_ms=50, bank_ms=0, max_strikes=1000)
    info = b.wait_match(timeout=180)
    assert info.result.reason == "complete" and info.strikes[0] > 100
    started = time.monotonic()
    assert b.finish(timeout=20) == 0, b.bridge_said()
    assert time.monotonic() - started < 15  # closed, waited for, killed: not hung


#: Logs its process id, plays the first legal action of every request, and lingers after
#: its input ends.
LINGERS = """
import json, os, sys, time
open(os.path.join(sys.argv[1], "pid"), "w").write(str(os.getpid()))
for line in sys.stdin:
    message = json.loads(line)
    if "request" in message:
        print(json.dumps({"index": 0}), flush=True)
time.sleep(600)
"""


def test_a_bridge_killed_outright_takes_its_program_along(bridged, tmp_path):
    b = bridged(LINGERS, move_ms=5_000)
    pid_file = tmp_path / "pid"
    end = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < end, "the program never started"
        time.sleep(0.05)
    program = int(pid_file.read_text())
    b.proc.kill()  # SIGKILL: the bridge cleans nothing up itself
    b.proc.wait()
    end = time.monotonic() + 5
    try:
        while "zombie" not in _state(program):
            assert time.monotonic() < end, "the program outlived its bridge"
            time.sleep(0.05)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(program, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].splitlines()[0]
    except (OSError, IndexError):
        return "zombie"
