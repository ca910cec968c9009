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
JSON is refused (below).

No line stops the reader, and the bridge never stays seated for a program that cannot answer
(docs/bots.md, "When the program misbehaves", has the table):

* a line that is not UTF-8, not JSON (cut short, nested too deeply), not an object, not an
  ``ActionReply``, or longer than :data:`MAX_LINE_BYTES` (read in pieces and dropped, never
  held whole) is refused: the program gets an ``error`` line (``REPLY_ERROR_CODE_MALFORMED``,
  with the reason), the bridge's stderr one ``bridge: refused line N ...`` line, and the
  referee a reply for the request the line answered whose action notation is
  ``refused by the bridge: REASON``, which it refuses as malformed and records with that
  reason: no strike (the referee's policy for any refused reply), and the program may
  answer again until the deadline. The referee's error about it is not passed on: the
  program has the bridge's own. Past :data:`REFUSALS_REPORTED` lines for one request, only
  the program hears of them;
* a program that exits, or closes its stdout, makes the bridge leave its seats at once
  (the referee forfeits them when its resume window has passed, instead of waiting out
  clocks) and end with one ``error:`` line;
* a silent program stays seated: the referee strikes it at each deadline, as its policy
  says, and the bridge says so on stderr for each default move played for it;
* lines for the program are written by a thread of their own, so one that does not read
  never holds up the stream; past :data:`MAX_UNREAD_BYTES` unread the bridge leaves its
  seats. When the bridge is done, a program that does not exit within 5 s of its end of
  input is killed, with its process group.

The program runs with ``LEVATA_BRIDGED=1`` in its environment: a bridge refuses to start
under another bridge (a program that is itself ``levata bot bridge -- ...`` would wait for
requests that never come). ``docs/bots.md`` shows a whole session.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import json
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from levata.bots.sdk import BotClient, MatchSession
from levata.v1 import arena_pb2, game_pb2

__all__ = ["BRIDGED_ENV", "MAX_LINE_BYTES", "ProgramBridge", "read_lines", "to_json"]

#: Set in the bridged program's environment; a bridge started with it set refuses to run.
BRIDGED_ENV = "LEVATA_BRIDGED"
MIB = 1024 * 1024
#: The longest line the program may write (a reply is a few dozen bytes; a gRPC message is
#: at most 4 MiB): a longer one is refused, and never held in memory whole.
MAX_LINE_BYTES = 4 * MIB
#: How much of an over-long line is read at a time, to be dropped.
CHUNK_BYTES = 64 * 1024
#: Lines queued for a program that does not read them: past this, the bridge leaves its seats.
MAX_UNREAD_BYTES = 64 * MIB
#: Run as ``python -I -S -c FOLLOW PARENT ARGV...``: ask for SIGKILL when the bridge (PARENT)
#: dies, give back the signals Python ignores (SIGPIPE, SIGXFSZ: a program starts with the
#: defaults its author expects), then become the program (``exec``). The request is made in
#: the program's own process, not in a ``preexec_fn``: that runs Python code in a fork of the
#: bridge, whose gRPC threads make it unsafe (a child could hang or abort before it starts).
FOLLOW = """
import os, signal, sys
if sys.platform.startswith("linux"):
    import ctypes
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != int(sys.argv[1]):
        sys.exit(137)  # the bridge died before we could ask to follow it
for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores them, and exec would pass that on
    signal.signal(getattr(signal, name), signal.SIG_DFL)
argv = sys.argv[2:]
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    print(f"cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
    sys.exit(127)
"""
#: Refused lines per request reported on stderr and sent to the referee; the program is
#: told of every one.
REFUSALS_REPORTED = 3
#: How a refused line sent to the referee begins (see ProgramBridge._refuse).
REFUSED_MARK = "refused by the bridge:"


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

    def __init__(
        self,
        argv: Sequence[str],
        max_line: int = MAX_LINE_BYTES,
        max_unread: int = MAX_UNREAD_BYTES,
    ) -> None:
        if not argv:
            raise ValueError("the bridge needs a program to run")
        self.max_line, self.max_unread = max_line, max_unread
        if shutil.which(argv[0]) is None:  # said here: the wrapper below would only exit 127
            code = errno.EACCES if os.sep in argv[0] and os.path.exists(argv[0]) else errno.ENOENT
            raise OSError(code, os.strerror(code), argv[0])
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", FOLLOW, str(os.getpid()), *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, BRIDGED_ENV: "1"},
            # A group of its own: what it leaves running (a shell's background job holding its
            # stdout) goes with it when the bridge is done with it; and as it is no longer in
            # the bridge's group, a bridge killed outright takes it along (PDEATHSIG).
            process_group=0,
        )
        # Lines for the program wait here, written by a thread of their own: a program that
        # does not read must never block the stream (whose loop calls _send_line).
        self._to_program: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._unread = 0  # bytes queued for the program and not written to its stdin yet
        self._unread_lock = threading.Lock()
        # Requests given to the program: by id, and those it has written no line for yet, in
        # the order it got them (a line without ids answers the oldest of those).
        self._requests: dict[str, arena_pb2.DecisionRequest] = {}
        self._unanswered: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._latest: arena_pb2.DecisionRequest | None = None
        self._lock = threading.Lock()  # the loop thread adds requests, the reader takes them
        # Refused lines sent to the referee, per (match, request): the referee's error about
        # each is not passed on (the program was told the bridge's reason already).
        self._refused: collections.Counter[tuple[str, str]] = collections.Counter()
        self._settled: set[str] = set()  # requests an action was applied for: over
        # Lines refused per request ("" for lines that answer none): past REFUSALS_REPORTED
        # the program is still told, but neither stderr nor the referee hears of them.
        self._refusals: collections.Counter[str] = collections.Counter()
        self._client: BotClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._main: asyncio.Task[Any] | None = None
        self._stopping: asyncio.Future[None] | None = None
        self._why_stopped: str | None = None  # set when the bridge leaves its seats itself
        self._output_done = threading.Event()  # the reader reached the end of its stdout
        self.lines_read = 0
        self.exit_status: int | None = None  # set when the program exited

    def attach(self, client: BotClient) -> None:
        """Make ``client`` play through the program (it must have no decider of its own)."""
        self._client = client
        # The client logs each refused reply; the bridge said why it refused its own already.
        logging.getLogger("levata.bots.sdk").addFilter(_not_ours)
        client.decider = self._request
        earlier = client.on_message

        def on_message(msg: arena_pb2.PlayResponse) -> None:
            if earlier is not None:
                earlier(msg)
            self._forward(msg)

        client.on_message = on_message

    async def play(self) -> None:
        """Run the attached client until it ends; :class:`RuntimeError` (one line: why) if the
        program exits, closes its output or stops reading first: its seats are then left."""
        assert self._client is not None, "attach a client first"
        self._loop = asyncio.get_running_loop()
        self._main = asyncio.create_task(self._client.run())
        for target in (self._read_replies, self._write_lines, self._watch_exit):
            threading.Thread(target=self._guarded, args=(target,), daemon=True).start()
        try:
            await self._main
        except asyncio.CancelledError:
            if self._why_stopped is None:
                raise
            raise RuntimeError(f"{self._why_stopped}: its seats are left") from None

    def _guarded(self, target: Callable[[], None]) -> None:
        """Run one of the bridge's threads; should it fail, leave the seats rather than stay
        seated with nobody reading or writing for the program."""
        try:
            target()
        except Exception as exc:
            self._leave(f"the bridge failed ({target.__name__}: {exc!r})")

    # -- to the program -----------------------------------------------------------------------

    def _send_line(self, msg: arena_pb2.PlayResponse) -> None:
        line = (to_json(msg) + "\n").encode()
        with self._unread_lock:
            if self._unread + len(line) > self.max_unread:
                overflow = True
            else:
                overflow, self._unread = False, self._unread + len(line)
        if overflow:
            self._leave(
                f"the bridged program has not read its last {self.max_unread} bytes of input"
            )
            return
        self._to_program.put(line)

    def _write_lines(self) -> None:
        """Write the queued lines to the program's stdin, each as soon as it is queued; on
        ``None`` (:meth:`close`), close its stdin: the program's end of input."""
        stdin = self.proc.stdin
        assert stdin is not None
        broken = False
        while (line := self._to_program.get()) is not None:
            with self._unread_lock:
                self._unread -= len(line)
            if broken:
                continue
            try:
                stdin.write(line)
                stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                broken = True  # it exited: _watch_exit tells the referee
        with contextlib.suppress(OSError, ValueError):
            stdin.close()

    def _forward(self, msg: arena_pb2.PlayResponse) -> None:
        """Match starts, errors and match ends go to the program as they arrive; requests
        go from :meth:`_request`, once their events are in the session."""
        kind = msg.WhichOneof("message")
        if kind == "match_start":
            self._send_line(msg)
        elif kind == "error":
            if not self._our_refusal(msg.error):
                self._send_line(msg)
        elif kind == "applied":
            a = msg.applied
            with self._lock:
                self._settled.add(a.request_id)
            if not a.substituted:
                return
            _say(
                f"match {a.match_id} seat {a.seat}: no reply in time to request"
                f" {a.request_id}: the referee played for the program (strike {a.strikes})"
            )
        elif kind == "match_end":
            self._send_line(arena_pb2.PlayResponse(match_end=self._end(msg.match_end)))

    def _our_refusal(self, error: arena_pb2.ReplyError) -> bool:
        """Whether ``error`` answers a reply the bridge refused itself (counted off), not one
        of the program's."""
        key = (error.match_id, error.request_id)
        with self._lock:
            ours = self._refused[key] > 0 and REFUSED_MARK in error.message
            if ours:
                self._refused[key] -= 1
                if not self._refused[key]:
                    del self._refused[key]
        return ours

    def _end(self, match_end: arena_pb2.MatchEnd) -> arena_pb2.MatchEnd:
        """The match's end as the program gets it, with every event of the session, and the
        bridge's bookkeeping of the match dropped."""
        end = arena_pb2.MatchEnd()
        end.CopyFrom(match_end)
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
            for key in [k for k in self._refused if k[0] == end.match_id]:
                del self._refused[key]
            self._settled -= {r for r in self._settled if r not in self._requests}
            for rid in [r for r in self._refusals if r and r not in self._requests]:
                del self._refusals[rid]
        return end

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
        the program may answer late, retry after an error, or act unasked in real time).

        No line ends this reader but the end of the program's output: a line that cannot
        be used is refused (:meth:`_refuse`) and the next one is read."""
        assert self.proc.stdout is not None and self._loop is not None
        try:
            for line in read_lines(self.proc.stdout, self.max_line):
                self.lines_read += 1
                try:
                    reply, problem = self._reply_from(line)
                except Exception as exc:  # no line may end the reader
                    reply, problem = None, self._malformed(f"cannot be read: {exc!r}")
                if reply is None:
                    self._refuse(problem)
                else:
                    self._call(self._send_reply, reply)
        except OSError as exc:
            _say(f"cannot read the program's output any more: {exc.strerror or exc}")
        finally:
            self._output_done.set()
        try:  # the usual end: the program exited (_watch_exit says so)
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self._leave("the bridged program closed its output")

    def _watch_exit(self) -> None:
        """When the program exits, leave its seats at once: the referee records the
        disconnect now instead of waiting out the clocks of requests nobody will answer."""
        status = self.proc.wait()
        # Lines written before it exited are still in the pipe: read them first (a child it
        # left behind may hold the pipe open, so not for long).
        if not self._output_done.wait(0.5):
            self._kill_group()
        self._output_done.wait(1.0)
        self.exit_status = status
        self._leave(f"the bridged program exited ({_exit_status(status)})")

    def _leave(self, why: str) -> None:
        """Stop playing (the first reason given wins): the stream closes, its seats left."""
        if self._why_stopped is None:
            self._why_stopped = why
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
        """Send the replies the program wrote before it stopped, then stop."""
        if self._stopping is None:
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

    def _malformed(self, why: str) -> arena_pb2.ReplyError:
        return arena_pb2.ReplyError(code=arena_pb2.REPLY_ERROR_CODE_MALFORMED, message=why)

    def _refuse(self, problem: arena_pb2.ReplyError) -> None:
        """A line that is no reply: one line on stderr, the ``error`` line to the program,
        and, when it answers a request, a refused reply to the referee, which records it
        (with the bridge's reason) and judges it as any refused reply: no strike, the
        program may answer again until the deadline."""
        problem.message = _shortened(problem.message)
        self._send_line(arena_pb2.PlayResponse(error=problem))
        with self._lock:
            self._refusals[problem.request_id] += 1
            count = self._refusals[problem.request_id]
        if count > REFUSALS_REPORTED:
            return  # a program that floods: it alone is told of each
        where = f" (match {problem.match_id}, request {problem.request_id})"
        where = where if problem.request_id else ""
        more = ""
        if count == REFUSALS_REPORTED:
            which = "this request" if where else "no request"
            more = f" ({count} refused for {which}: the next are told to the program only)"
        _say(f"refused line {self.lines_read}{where}: {problem.message}{more}")
        if problem.code != arena_pb2.REPLY_ERROR_CODE_MALFORMED or not problem.request_id:
            return
        with self._lock:
            req = self._requests.get(problem.request_id)
            if req is None or req.request_id in self._settled:
                return  # nothing waits for it: the program alone needs to know
            self._refused[(req.match_id, req.request_id)] += 1
        # An action no game has (several words after the kind), so the referee refuses it
        # as malformed, and records the notation, the bridge's reason, with it.
        notation = f"{REFUSED_MARK} {problem.message}"
        refused = arena_pb2.ActionReply(
            match_id=req.match_id,
            request_id=req.request_id,
            state_version=req.state_version,
            action=game_pb2.Action(notation=notation),
        )
        self._call(self._send_reply, refused)

    def _reply_from(
        self, line: bytes | LongLine
    ) -> tuple[arena_pb2.ActionReply | None, arena_pb2.ReplyError]:
        """A program's line -> a reply with its ids filled in, or the error to tell it.

        A line naming a ``requestId`` answers that request; one naming none answers the
        oldest request the program has written no line for, or, when it has written one for
        each, the latest (a retry after an error)."""
        data: Any = None
        if isinstance(line, LongLine):
            size = f"{self.max_line // MIB} MiB ({line.size} bytes)"
            why = f"line longer than {size}: refused, not kept"
        else:
            why = ""
            excerpt = line.strip()[:80].decode(errors="replace")
            try:
                text = line.decode()
            except UnicodeDecodeError as exc:
                why = f"not UTF-8: byte 0x{line[exc.start]:02x} at offset {exc.start}"
        try:
            if why:
                raise ValueError(why)
            try:
                data = json.loads(text)
            except RecursionError:
                raise ValueError("not JSON: nested too deeply") from None
            except ValueError as exc:
                raise ValueError(f"not JSON: {exc}") from None
            if not isinstance(data, dict):
                raise ValueError('a reply is a JSON object, e.g. {"index": 0}')
            try:
                reply = json_format.ParseDict(data, arena_pb2.ActionReply())
            except (json_format.ParseError, RecursionError) as exc:
                raise ValueError(f"not an ActionReply: {exc}") from None
        except ValueError as exc:
            problem = self._malformed(
                str(exc)
                if isinstance(line, LongLine) or why
                else f"malformed reply line {excerpt!r}: {exc}"
            )
            req = self._answered(None)
            if req is not None:
                problem.match_id, problem.request_id = req.match_id, req.request_id
            return None, problem
        req = self._answered(reply.request_id or None)
        if req is None:
            problem = arena_pb2.ReplyError(
                code=arena_pb2.REPLY_ERROR_CODE_UNKNOWN_REQUEST,
                match_id=reply.match_id,
                request_id=reply.request_id,
                message="no request is waiting for this reply",
            )
            return None, problem
        reply.match_id = reply.match_id or req.match_id
        reply.request_id = req.request_id
        if "stateVersion" not in data and "state_version" not in data:
            reply.state_version = req.state_version
        return reply, arena_pb2.ReplyError()

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

    def _kill_group(self) -> None:
        """Kill the program and whatever it left running in its process group."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def close(self) -> None:
        """Close the program's stdin once the lines before it are written (its end of input)
        and wait for it; after 5 s (a program that neither reads nor exits), kill it and
        what it left running."""
        self._to_program.put(None)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _say("the bridged program did not exit within 5 s of its end of input: killed")
        self._kill_group()
        self.proc.wait()


@dataclass(frozen=True)
class LongLine:
    """A line over the bridge's cap: only its length was kept."""

    size: int


def read_lines(stream: IO[bytes], cap: int) -> Iterator[bytes | LongLine]:
    """The lines of ``stream``; one of more than ``cap`` bytes (its newline aside) comes as a
    :class:`LongLine`, read in pieces and dropped: no more than ``cap`` bytes of a line are
    ever held.

    >>> import io
    >>> list(read_lines(io.BytesIO(b'{"index": 0}\\n' + b"x" * 20 + b"\\nlast"), cap=12))
    [b'{"index": 0}\\n', LongLine(size=20), b'last']
    """
    while line := stream.readline(cap + 1):
        if line.endswith(b"\n") or len(line) <= cap:
            yield line
            continue
        size = len(line)
        del line  # the cap's worth read so far: dropped before the rest is read
        while (chunk := stream.readline(CHUNK_BYTES)) and not chunk.endswith(b"\n"):
            size += len(chunk)
        yield LongLine(size + len(chunk.rstrip(b"\n")))


def _exit_status(status: int) -> str:
    """A process's exit status as words.

    >>> _exit_status(3), _exit_status(-9), _exit_status(-99)
    ('status 3', 'killed by SIGKILL', 'killed by signal 99')
    """
    if status >= 0:
        return f"status {status}"
    try:
        return f"killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"killed by signal {-status}"


def _not_ours(record: logging.LogRecord) -> bool:
    """False for the client's note of a refused reply the bridge made (it said so itself)."""
    return not any(REFUSED_MARK in str(a) for a in record.args or ())


def _shortened(text: str, limit: int = 300) -> str:
    """``text`` cut to ``limit`` characters (an exception may quote a whole value)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _say(what: str) -> None:
    """One line on the bridge's stderr, prefixed so that it reads apart from the program's."""
    print(f"bridge: {what}", file=sys.stderr, flush=True)
