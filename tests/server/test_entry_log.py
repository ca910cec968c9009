"""An entry's stderr log: a real process flooding its stderr pipe leaves at most the cap on
disk, the newest lines kept, and is slowed to the reader's rate (its writes wait), not the
reader to its."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from levata.server.tournament.entry_log import RATE, EntryLog

FLOOD = """
import os, sys
line = b"x" * 1023 + b"\\n"
for _ in range(int(sys.argv[1]) * 1024):
    os.write(2, line)
os.write(2, b"THE LAST LINE\\n")
"""


def test_a_stderr_flood_leaves_at_most_the_cap_and_the_newest_lines(tmp_path):
    mb, cap = 10, 2 << 20
    log = EntryLog(tmp_path / "flood.log", cap)
    log.start("== the flood's command line\n")
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", FLOOD, str(mb)], stderr=write_end)
    os.close(write_end)
    log.follow(read_end)
    assert proc.wait(timeout=60) == 0
    took = time.monotonic() - started
    log.close(10)
    files = {p.name: p.stat().st_size for p in tmp_path.iterdir()}
    assert set(files) == {"flood.log", "flood.log.1"}
    assert sum(files.values()) <= cap + 4096, files
    newest = (tmp_path / "flood.log").read_text()
    assert newest.startswith("== the flood's command line\n")  # every file says what ran
    assert newest.endswith("THE LAST LINE\n") and log.rotations >= 8 and log.dropped == 0
    assert took >= (mb << 20) / RATE - 1.5, took  # the flood waited for the reader
