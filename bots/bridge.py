"""Let any program play: JSON lines on its stdin, one JSON reply per line on its stdout.

    levata bot bridge --server HOST:PORT --token-file my_bot.token -- ./my_bot

Each line the program reads is one ``PlayResponse`` in the protobuf JSON mapping (field
names in lowerCamelCase, 64-bit integers as strings, enums by name), with every field
present, zeros and empty lists included. It holds exactly one of:

* ``matchStart``: a match begins (its id, game, seat, players, options, policy);
* ``request``: the seat must act. ``request.view.history`` holds every event the seat has
  seen in that match, so the program needs to keep no state;
* ``error``: a reply of the program could not be used (``code``, ``message``); nothing was
  applied, and the program may answer the same request again until its deadline;
* ``matchEnd``: the match is over (``result``; ``events`` holds the seat's whole history).

The program answers each ``request`` with one line: an ``ActionReply`` in the same mapping.
``{"index": 2}`` or ``{"action": {"notation": "play QH"}}`` is enough: the bridge fills in the
match, request id and state version. A line that names no ``requestId`` answers the oldest
request the program has written no line for (so a program that answers its requests in the
order it reads them never needs an id, however many matches interleave), or, when it has
written a line for each, the latest request (a retry after an error). A line that is not such
JSON is answered with an ``error`` line (code ``REPLY_ERROR_CODE_MALFORMED``) and sent nowhere.

The program runs with ``LEVATA_BRIDGED=1`` in its environment: a bridge refuses to start
under another bridge (a program that is itself ``levata bot bridge -- ...`` would wait for
requests that never come). ``docs/bots.md`` shows a whole session.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from levata.bots.sdk import BotClient, MatchSession
from levata.v1 import arena_pb2

__all__ = ["BRIDGED_ENV", "ProgramBridge", "to_json"]

#: Set in the bridged program's environment; a bridge started with it set refuses to run.
BRIDGED_ENV = "LEVATA_BRIDGED"


def to_json(msg: Message) -> str:
    """One message as one line of protobuf JSON, with every field present, in the order the
    ``.proto`` file declares them (map and struct keys sorted): lines easy to read and diff.

    >>> to_json(arena_pb2.ActionReply(index=0))
    '{"matchId": "", "requestId": "", "stateVersion": "0", "index": 0}'
    """
    data = json_format.MessageToDict(msg, always_print_fields_with_no_presence=True)
    return json.dumps(_in_order(data, msg.DESCRIPTOR))


def _in_order(data: dict[str, Any], descriptor: Descriptor) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in descriptor.fields:
        if f.json_name not in data:
            continue
        value = data[f.json_name]
        sub = f.message_type
        if sub is not None and sub.GetOptions().map_entry:
            entry = sub.fields_by_name["value"].message_type
            value = {k: _walk(value[k], entry) for k in sorted(value)}
        elif sub is not None:
            value = [_walk(v, sub) for v in value] if isinstance(value, list) else _walk(value, sub)
        out[f.json_name] = value
    return out


def _walk(value: Any, descriptor: Descriptor | None) -> Any:
    # Well-known types (Timestamp, Struct) have JSON forms of their own: a Struct's keys
    # are sorted, like a map's.
    if descriptor is None or descriptor.full_name.startswith("google.protobuf."):
        return _keys_sorted(value)
    return _in_order(value, descriptor)


def _keys_sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _keys_sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_keys_sorted(v) for v in value]
    return value


class ProgramBridge:
    """A child program that decides. :meth:`attach` it to a :class:`BotClient`: it forwards
    the client's messages to the program and sends the program's replies as they come."""

    def __init__(self, argv: Sequence[str]) -> None:
        if not argv:
            raise ValueError("the bridge needs a program to run")
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,  # line-buffered: every line reaches the program when written
            env={**os.environ, BRIDGED_ENV: "1"},
        )
        self._write_lock = threading.Lock()
        # Requests given to the program: by id, and those it has written no line for yet, in
        # the order it got them (a line without ids answers the oldest of those).
        self._requests: dict[str, arena_pb2.DecisionRequest] = {}
        self._unanswered: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._latest: arena_pb2.DecisionRequest | None = None
        self._lock = threading.Lock()  # the loop thread adds requests, the reader takes them
        self._client: BotClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._main: asyncio.Task[Any] | None = None
        self._stopping: asyncio.Future[None] | None = None
        self.exit_status: int | None = None  # set when the program's stdout closed

    def attach(self, client: BotClient) -> None:
        """Make ``client`` play through the program (it must have no decider of its own)."""
        self._client = client
        client.decider = self._request
        earlier = client.on_message

        def on_message(msg: arena_pb2.PlayResponse) -> None:
            if earlier is not None:
                earlier(msg)
            self._forward(msg)

        client.on_message = on_message

    async def play(self) -> None:
        """Run the attached client until it ends; :class:`RuntimeError` if the program exits
        first."""
        assert self._client is not None, "attach a client first"
        self._loop = asyncio.get_running_loop()
        self._main = asyncio.create_task(self._client.run())
        threading.Thread(target=self._read_replies, daemon=True, name="bridge-replies").start()
        try:
            await self._main
        except asyncio.CancelledError:
            if self.exit_status is None:
                raise
            raise RuntimeError(f"the bridged program exited (status {self.exit_status})") from None

    # -- to the program -----------------------------------------------------------------------

    def _send_line(self, msg: arena_pb2.PlayResponse) -> None:
        line = to_json(msg)
        with self._write_lock:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(line + "\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass  # it exited: its closed stdout ends the bridge (see _read_replies)

    def _forward(self, msg: arena_pb2.PlayResponse) -> None:
        """Match starts, errors and match ends go to the program as they arrive; requests
        go from :meth:`_request`, once their events are in the session."""
        kind = msg.WhichOneof("message")
        if kind in ("match_start", "error"):
            self._send_line(msg)
        elif kind == "match_end":
            end = arena_pb2.MatchEnd()
            end.CopyFrom(msg.match_end)
            assert self._client is not None
            session = self._client.session(end.match_id, end.seat)
            if session is not None:
                late = [e for e in end.events if e.seq > session.last_seq]
                del end.events[:]
                end.events.extend(session.received)
                end.events.extend(late)
            with self._lock:
                for rid in [r for r, q in self._requests.items() if q.match_id == end.match_id]:
                    if rid not in self._unanswered:  # a late line may still name the others
                        del self._requests[rid]
            self._send_line(arena_pb2.PlayResponse(match_end=end))

    def _request(
        self, req: arena_pb2.DecisionRequest, session: MatchSession
    ) -> arena_pb2.ActionReply | None:
        full = arena_pb2.DecisionRequest()
        full.CopyFrom(req)
        full.ClearField("events")  # batched events: the program gets them in the history
        full.view.history.extend(session.received)
        with self._lock:
            self._requests[req.request_id] = req
            self._unanswered[req.request_id] = None
            self._latest = req
        self._send_line(arena_pb2.PlayResponse(request=full))
        return None  # the program's reply is sent when it comes (_read_replies)

    # -- from the program ---------------------------------------------------------------------

    def _read_replies(self) -> None:
        """Each line the program writes becomes a reply on the stream (a thread of its own:
        the program may answer late, retry after an error, or act unasked in real time)."""
        assert self.proc.stdout is not None and self._loop is not None
        for line in self.proc.stdout:
            reply, problem = self._reply_from(line)
            if reply is None:
                self._send_line(arena_pb2.PlayResponse(error=problem))
            else:
                self._call(self._send_reply, reply)
        self.exit_status = self.proc.wait()
        self._call(self._stop)

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # a closed loop: the client is done already
            self._loop.call_soon_threadsafe(fn, *args)

    def _send_reply(self, reply: arena_pb2.ActionReply) -> None:
        assert self._client is not None
        if self._client._out is not None:
            self._client.send(arena_pb2.PlayRequest(reply=reply))

    def _stop(self) -> None:
        """The program exited: send the replies it wrote before it did, then stop."""
        self._stopping = asyncio.ensure_future(self._drain_then_stop())

    async def _drain_then_stop(self) -> None:
        assert self._client is not None
        out = self._client._out
        for _ in range(100):  # at most a second for gRPC to take the queued replies
            if out is None or out.empty():
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # and to write the last one
        if self._main is not None and not self._main.done():
            self._main.cancel()

    def _reply_from(self, line: str) -> tuple[arena_pb2.ActionReply | None, arena_pb2.ReplyError]:
        """A program's line -> a reply with its ids filled in, or the error to tell it.

        A line naming a ``requestId`` answers that request; one naming none answers the
        oldest request the program has written no line for, or, when it has written one for
        each, the latest (a retry after an error)."""
        problem = arena_pb2.ReplyError(code=arena_pb2.REPLY_ERROR_CODE_MALFORMED)
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError('a reply is a JSON object, e.g. {"index": 0}')
            reply = json_format.ParseDict(data, arena_pb2.ActionReply())
        except (ValueError, json_format.ParseError) as exc:
            req = self._answered(None)
            if req is not None:
                problem.match_id, problem.request_id = req.match_id, req.request_id
            problem.message = f"malformed reply line {line.strip()[:80]!r}: {exc}"
            return None, problem
        req = self._answered(reply.request_id or None)
        if req is None:
            problem.code = arena_pb2.REPLY_ERROR_CODE_UNKNOWN_REQUEST
            problem.match_id, problem.request_id = reply.match_id, reply.request_id
            problem.message = "no request is waiting for this reply"
            return None, problem
        reply.match_id = reply.match_id or req.match_id
        reply.request_id = req.request_id
        if "stateVersion" not in data and "state_version" not in data:
            reply.state_version = req.state_version
        return reply, problem

    def _answered(self, request_id: str | None) -> arena_pb2.DecisionRequest | None:
        """The request a line answers (see :meth:`_reply_from`), marked as answered."""
        with self._lock:
            if request_id is not None:
                self._unanswered.pop(request_id, None)
                return self._requests.get(request_id)
            if self._unanswered:
                oldest, _ = self._unanswered.popitem(last=False)
                return self._requests.get(oldest)
            return self._latest

    def close(self) -> None:
        """Close the program's stdin (its end of input) and wait for it; kill it after 5 s."""
        with self._write_lock:
            if self.proc.stdin:
                with contextlib.suppress(BrokenPipeError):
                    self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
