"""Let any program play: one JSON request per line on its stdin, one JSON reply per line back.

    levata bot bridge --server HOST:PORT --token-file my_bot.token -- python3 my_bot.py

Each line the program reads is a ``DecisionRequest`` in the standard protobuf JSON mapping
(field names in lowerCamelCase), with ``view.history`` filled with every event the seat has
seen in that match, so the program needs to keep no state. It answers with one line: an
``ActionReply`` in the same mapping; ``{"index": 2}`` or ``{"action": {"notation": "play
QH"}}`` is enough (the bridge fills in the match, request id and state version). Requests of
several matches may interleave; each names its ``matchId``.

Example exchange (abridged)::

    > {"matchId": "5f2c", "requestId": "a81e", "stateVersion": "12", "seat": 1,
    >  "view": {"game": "whist", "hand": [{"suit": "SUIT_HEARTS", "rank": 12,
    >           "notation": "QH"}], ...},
    >  "legal": [{"index": 0, "action": {"kind": "play", "notation": "play QH"}}, ...],
    >  "timeLeftMs": "1980"}
    < {"index": 0}
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Sequence

from google.protobuf import json_format

from levata.bots.sdk import MatchSession
from levata.v1 import arena_pb2

__all__ = ["ProgramBridge"]


class ProgramBridge:
    """A child program that decides; used as the SDK's ``decider``."""

    def __init__(self, argv: Sequence[str]) -> None:
        if not argv:
            raise ValueError("the bridge needs a program to run")
        self.proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self._lock = threading.Lock()

    def __call__(
        self, req: arena_pb2.DecisionRequest, session: MatchSession
    ) -> arena_pb2.ActionReply:
        full = arena_pb2.DecisionRequest()
        full.CopyFrom(req)
        full.ClearField("events")  # batched events: the program gets them in the history
        full.view.history.extend(session.received)
        line = json_format.MessageToJson(full, indent=None)
        with self._lock:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                self.proc.stdin.write(line + "\n")
                self.proc.stdin.flush()
                answer = self.proc.stdout.readline()
            except BrokenPipeError:
                answer = ""
        if not answer:
            try:
                status = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                status = None
            raise RuntimeError(f"the bridged program exited (status {status})")
        reply = arena_pb2.ActionReply()
        # Unreadable JSON leaves the reply empty: the referee answers MALFORMED, retry allowed.
        with contextlib.suppress(json_format.ParseError):
            json_format.Parse(answer, reply)
        return reply

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
