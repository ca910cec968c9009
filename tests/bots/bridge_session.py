"""Record a real bridge session, as docs/bots.md shows it: ``python tests/bots/bridge_session.py``.

A referee on loopback, two random bots, and at seat 0 a bridged program that logs every line
it reads and writes. Its first reply is refused on purpose (a card played during bidding), so
the session shows an ``error`` line and the retry.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: live.py
from live import LiveServer, bot_env, bot_process

BRIDGE = [sys.executable, "-m", "levata.bots", "bridge"]

#: The bridged program: it logs "> line" for what it reads and "< line" for what it writes.
RECORDER = r"""
import json, sys
log = open(sys.argv[1], "a")
request = None
for line in sys.stdin:
    log.write("> " + line)
    message = json.loads(line)
    if "request" in message and request is None:
        reply = {"action": {"notation": "play 2C"}}  # refused: it is time to bid
    elif "request" in message or "error" in message:
        reply = {"index": message.get("request", request)["legal"][0]["index"]}
    else:
        continue
    request = message.get("request", request)
    out = json.dumps(reply)
    log.write("< " + out + "\n")
    log.flush()
    print(out, flush=True)
"""


def record(workdir: Path, options: dict[str, str] | None = None) -> list[str]:
    """The session's lines: ``> `` read by the program, ``< `` written by it."""
    log = workdir / "session.log"
    program = workdir / "recorder.py"
    program.write_text(RECORDER)
    bot = [sys.executable, str(program), str(log)]
    server = LiveServer(workdir / "session.db")
    try:
        names = ["mybot", "r1", "r2"]
        tokens = [server.add_bot(n) for n in names]
        bridge = subprocess.Popen(
            [*BRIDGE, "--server", server.address, "--matches", "1", "--quiet", "--", *bot],
            env=bot_env(tokens[0]),
            stderr=subprocess.PIPE,
        )
        others = [
            bot_process("random", "whist", server, t, seed=i) for i, t in enumerate(tokens[1:])
        ]
        match_id = server.create("whist", names, seed=3, options=options or {"deal_size": "1"})
        server.wait(match_id)
        _, err = bridge.communicate(timeout=30)
        assert bridge.returncode == 0, err
        for p in others:
            p.wait(timeout=30)
    finally:
        server.stop()
    return log.read_text().splitlines()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        print("\n".join(record(Path(tmp))))
