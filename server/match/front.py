"""The front of ``levata serve --workers N``: one port, N referee processes behind it.

A referee is one process with one event loop; a host with more cores runs N referee
*workers*, each the referee of today on a private Unix socket, all writing one database.
The front listens on the public port and speaks to bots and admin clients exactly as one
referee does: nothing about a bot or an admin client changes.

* **Matches.** ``CreateMatch`` goes to the worker running the fewest matches; that worker's
  match ids begin with its name (``w1-...``), so a reply, ``GetMatch`` or ``WatchMatch`` is
  routed by the id alone (:func:`owner`): the front keeps nothing per match. Ids without a
  worker's prefix (made by a plain referee, or by a worker beyond today's N) are the first
  worker's, which takes them up at start-up (:func:`owner` partitions the unfinished ones).
* **Bots.** Each bot stream gets one upstream ``Play`` stream per worker, opened with the
  bot's own ``Hello``; the bot gets one ``Welcome`` with the front's resume token, which maps
  to the workers' tokens. What a worker sends is forwarded as the bytes it sent (no parse,
  no re-encoding); a reply goes to its match's worker (a ``ReplyBundle`` is split per
  worker); what names no live worker's match goes to one worker, which answers it as a
  referee does (``ReplyError`` UNKNOWN_MATCH, MALFORMED, PROTOCOL: its allowance of
  refusals included). When a worker ends an upstream (its outbox full, the referee
  stopping, the worker gone) the bot's stream ends with that status, and the bot resumes.
* **Admin.** Every call needs the admin token, checked here as a referee checks it; then
  ``RegisterBot`` is registered by one worker and read again from the records by the others
  (one token, every worker); ``ListMatches`` merges each worker's view of its own matches.

>>> owner("w1-3fa9c0d2e4b61a7f", 2), owner("w7-3fa9c0d2e4b61a7f", 2), owner("3fa9c0d2", 2)
(1, 0, 0)
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

import grpc
from google.protobuf.message import DecodeError

from levata.engine import BadConfig
from levata.server.match import auth
from levata.server.match.doors import Door
from levata.server.match.limits import MAX_BUNDLED_REPLIES, Limits, check_hello
from levata.v1 import admin_pb2, arena_pb2

__all__ = ["Front", "WorkerLink", "owner", "worker_services"]

PLAY = "/levata.v1.ArenaService/Play"
ADMIN = "levata.v1.AdminService"
#: What the front asks of a worker beside the public services (its socket is owner-only).
INTERNAL = "levata.internal.Worker"
#: How long a dropped bot stream's resume token is kept: the longest resume window a match
#: may have (:data:`levata.server.match.limits` caps ``resume_window_ms`` at an hour).
RESUME_KEEP_S = 3600.0
#: Resume tokens kept at most (the oldest ended streams' go first): a bound on memory
#: however often bots reconnect.
MAX_RESUMES = 65_536
#: Downstream messages waiting for one bot's stream before the workers' streams wait: past
#: it, each worker's own outbox bound applies, as with one referee.
FORWARD_QUEUE = 64


def owner(match_id: str, workers: int) -> int:
    """The worker a match id belongs to: the one it names (``w<k>-...``), else the first."""
    if match_id[:1] == "w":
        head, dash, _ = match_id[1:5].partition("-")
        if dash and head.isascii() and head.isdigit() and int(head) < workers:
            return int(head)
    return 0


class _Context(Protocol):
    """What the handlers use of grpc's servicer context: ``abort`` never returns."""

    async def abort(self, code: Any, details: str) -> NoReturn: ...

    def __getattr__(self, name: str) -> Any: ...


def _meta(token: str) -> tuple[tuple[str, str], ...]:
    return auth.admin_metadata(token)


#: Seconds a worker's channel has to be ready when a bot connects (a live worker's is at once).
REACH_S = 1.0


async def _reachable(worker: WorkerLink) -> bool:
    """Whether ``worker``'s channel connects within :data:`REACH_S`."""
    try:
        await asyncio.wait_for(worker.channel.channel_ready(), REACH_S)
    except TimeoutError:
        return False
    except Exception:  # its channel closed: the worker was replaced meanwhile
        return False
    return True


class Refused(Exception):
    """A worker ended an upstream stream (``code``, ``details``) before its Welcome."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code, self.details = code, details


@dataclass(eq=False)
class WorkerLink:
    """One referee worker as the front reaches it: its channel, and whether it is up."""

    index: int
    channel: grpc.aio.Channel
    alive: bool = True

    def play(self) -> Any:
        return self.channel.stream_stream(PLAY)()

    def unary(self, method: str) -> Any:
        return self.channel.unary_unary(method)

    def stream(self, method: str) -> Any:
        return self.channel.unary_stream(method)


@dataclass
class _Resume:
    bot: str
    tokens: dict[int, str]  # worker -> its resume token
    until: float = float("inf")  # while its stream is live, kept


@dataclass(eq=False)
class _Link:
    """One bot stream at the front: its upstreams, and what waits to be written to it."""

    hello: arena_pb2.Hello
    ups: dict[int, Any] = field(default_factory=dict)  # worker -> its Play call
    out: asyncio.Queue[bytes | None] = field(default_factory=lambda: asyncio.Queue(FORWARD_QUEUE))
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    ended: tuple[grpc.StatusCode, str] | None = None
    resume_token: str = ""  # the front's, given in its Welcome
    writer: asyncio.Task[Any] | None = None
    writing: bool = False

    def end(self, code: grpc.StatusCode, details: str) -> None:
        """End the bot's stream with this status (the first one given wins); what waits
        unsent is dropped, and a write waiting on a bot that does not read is interrupted."""
        if self.ended is not None:
            return
        self.ended = (code, details)
        while not self.out.empty():
            self.out.get_nowait()
        self.out.put_nowait(None)
        if self.writing and self.writer is not None and not self.writer.done():
            self.writer.cancel()


class Front:
    """The services of the public port, routing to ``workers`` (see the module's text)."""

    def __init__(self, workers: list[WorkerLink], admin_token: str, limits: Limits) -> None:
        self.workers = workers
        self.admin_token = admin_token
        self.limits = limits
        self.door = Door(
            "tcp", limits.unauthenticated_per_listener, limits.unauthenticated_per_connection
        )
        self.links: set[_Link] = set()
        self.resumes: dict[str, _Resume] = {}
        self.streams = 0
        self.stopping = False
        self._next = 0  # ties in CreateMatch go round the workers

    # -- workers -------------------------------------------------------------------------------

    def live(self) -> list[WorkerLink]:
        return [w for w in self.workers if w.alive]

    def route(self, match_id: str, among: dict[int, Any] | None = None) -> int | None:
        """The worker to send something about ``match_id``: its owner when up (and, with
        ``among``, one of those), else the first that is."""
        k = owner(match_id, len(self.workers))
        if self.workers[k].alive and (among is None or k in among):
            return k
        for w in self.workers:
            if w.alive and (among is None or w.index in among):
                return w.index
        return None

    def worker_lost(self, k: int) -> None:
        """Worker ``k`` stopped: nothing more is routed to it (its streams end by themselves,
        and so the bots' streams that had one, which then resume)."""
        self.workers[k].alive = False

    async def worker_back(self, link: WorkerLink) -> None:
        """Worker ``link.index`` is up (again): every bot stream gets an upstream to it, with
        the Hello its bot sent (the matches it resumes seat their bots from it)."""
        old, self.workers[link.index] = self.workers[link.index], link
        await old.channel.close()
        for bot in list(self.links):
            if link.index not in bot.ups and bot.ended is None:
                with contextlib.suppress(Refused, grpc.RpcError):
                    call, _, rest = await self._open(bot.hello, link, "")
                    self._forward(bot, link.index, call, rest)

    # -- bots ----------------------------------------------------------------------------------

    async def play(
        self, requests: AsyncIterator[bytes], context: Any, door: Door | None = None
    ) -> None:
        """``ArenaService.Play``, as a referee answers it; ``door``: the listener's quota of
        streams without Hello (the port's by default)."""
        if self.stopping:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the referee is stopping; reconnect")
        if self.streams >= self.limits.streams_total:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "the referee is full")
        self.streams += 1
        link = None
        try:
            first = await self._first(requests, context, door or self.door)
            hello = await self._hello(first, context)
            link = _Link(hello)
            await self._connect(link, context)
            link.writer = asyncio.current_task()
            self.links.add(link)
            link.tasks.append(asyncio.create_task(self._read(link, requests)))
            await self._write(link, context)
        finally:
            self.streams -= 1
            if link is not None:
                self._close(link)

    async def _first(self, requests: AsyncIterator[bytes], context: Any, door: Door) -> bytes:
        """The stream's first message, within the Hello deadline and the door's quota of
        streams without Hello (:class:`~levata.server.match.doors.Door`)."""
        first = asyncio.ensure_future(anext(aiter(requests), None))
        evicted: list[bool] = []

        def evict() -> None:
            evicted.append(True)
            first.cancel()

        key = door.enter(context.peer(), evict)
        if key is None:
            first.cancel()
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"more than {door.per_connection} streams without Hello on one"
                " connection: say Hello in each stream's first message",
            )
        try:
            got = await asyncio.wait_for(first, self.limits.hello_timeout_s)
        except grpc.RpcError:  # the client went away
            raise asyncio.CancelledError from None
        except asyncio.CancelledError:
            if not evicted:
                raise
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"evicted: {door.per_listener} newer streams without Hello came; say"
                " Hello in your first message, and retry",
            )
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"say Hello within {self.limits.hello_timeout_s:g} s",
            )
        finally:
            door.leave(key)  # type: ignore[arg-type,unused-ignore]  # None: aborted above
        if got is None:  # the client went away
            raise asyncio.CancelledError
        return bytes(got)

    async def _hello(self, raw: bytes, context: Any) -> arena_pb2.Hello:
        try:
            first = arena_pb2.PlayRequest.FromString(raw)
        except DecodeError:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                "a message could not be decoded as a PlayRequest (DecodeError)",
            )
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "say Hello first")
        try:
            check_hello(first.hello)
        except BadConfig as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"Hello: {exc}")
        return first.hello

    async def _connect(self, link: _Link, context: Any) -> None:
        """Say the bot's Hello to every live worker and answer with one Welcome; a worker's
        refusal (an unknown token...) ends the stream with its status."""
        self._prune()
        live = self.live()
        if not live:
            await context.abort(
                grpc.StatusCode.UNAVAILABLE, "no referee worker is running; reconnect"
            )
        # Every worker reachable before any is told the Hello: one that is gone (killed, its
        # restart not yet noticed) would fail the Connect after the others had taken the
        # bot's seats and resume tokens for a stream that is then cancelled.
        reached = await asyncio.gather(*(_reachable(w) for w in live))
        for w, ok in zip(live, reached, strict=True):
            if not ok:
                await context.abort(
                    grpc.StatusCode.UNAVAILABLE, f"referee worker {w.index} is not up; reconnect"
                )
        old = self.resumes.get(link.hello.resume_token) if link.hello.resume_token else None
        tokens = old.tokens if old is not None else {}
        opened = await asyncio.gather(
            *(self._open(link.hello, w, tokens.get(w.index, "")) for w in live),
            return_exceptions=True,
        )
        failed = [(w, o) for w, o in zip(live, opened, strict=True) if isinstance(o, BaseException)]
        if failed:
            for w, o in zip(live, opened, strict=True):
                if not isinstance(o, BaseException):
                    o[0].cancel()
                    if old is not None and o[1].bot_name == old.bot:
                        # that worker took the Hello and gave a fresh token for its seats:
                        # kept, so the bot's next try with the same token still resumes
                        old.tokens[w.index] = o[1].resume_token
            worker, why = failed[0]
            if isinstance(why, Refused) and why.code == grpc.StatusCode.UNAVAILABLE:
                # not reached (killed, its restart not yet noticed): the bot reconnects, and
                # the channel's own words (the worker's socket path) stay here
                await context.abort(why.code, f"referee worker {worker.index} is not up; reconnect")
            if isinstance(why, Refused):
                await context.abort(why.code, why.details)
            raise why
        welcomes = [o[1] for o in opened if not isinstance(o, BaseException)]
        bot = welcomes[0].bot_name
        if old is not None and old.bot == bot:  # only its owner consumes a token
            self.resumes.pop(link.hello.resume_token, None)
        token = secrets.token_hex(12)
        self.resumes[token] = _Resume(
            bot, {w.index: wel.resume_token for w, wel in zip(live, welcomes, strict=True)}
        )
        link.resume_token = token
        welcome = arena_pb2.PlayResponse(
            welcome=arena_pb2.Welcome(
                bot_name=bot,
                resume_token=token,
                protocol_version=welcomes[0].protocol_version,
                resumed=any(w.resumed for w in welcomes),
            )
        )
        await context.write(welcome.SerializeToString())
        for w, o in zip(live, opened, strict=True):
            assert not isinstance(o, BaseException)
            self._forward(link, w.index, o[0], o[2])

    async def _open(
        self, hello: arena_pb2.Hello, worker: WorkerLink, resume_token: str
    ) -> tuple[Any, arena_pb2.Welcome, bytes | None]:
        """An upstream stream to ``worker`` with ``hello`` (its resume token swapped for the
        worker's own): the call, the worker's Welcome, and what came with it in a Bundle."""
        mine = arena_pb2.Hello()
        mine.CopyFrom(hello)
        mine.resume_token = resume_token
        call = worker.play()
        try:
            await call.write(arena_pb2.PlayRequest(hello=mine).SerializeToString())
            raw = await call.read()
        except grpc.RpcError:
            raw = grpc.aio.EOF
        if raw is grpc.aio.EOF:
            code, details = await call.code(), await call.details()
            raise Refused(code, details or f"referee worker {worker.index} is gone; reconnect")
        msg = arena_pb2.PlayResponse.FromString(raw)
        rest = None
        if msg.WhichOneof("message") == "bundle":  # the Welcome, and what was ready with it
            parts = list(msg.bundle.messages)
            msg = parts[0]
            if len(parts) > 1:
                rest = arena_pb2.PlayResponse(
                    bundle=arena_pb2.Bundle(messages=parts[1:])
                ).SerializeToString()
        return call, msg.welcome, rest

    def _forward(self, link: _Link, k: int, call: Any, first: bytes | None) -> None:
        link.ups[k] = call
        link.tasks.append(asyncio.create_task(self._down(link, k, call, first)))

    async def _down(self, link: _Link, k: int, call: Any, first: bytes | None) -> None:
        """Worker ``k``'s messages to the bot, as the bytes it sent; its stream's end ends
        the bot's, with its status."""
        out = link.out
        try:
            if first is not None:
                await out.put(first)
            read = call.read
            while (raw := await read()) is not grpc.aio.EOF:
                await out.put(raw)
            code, details = await call.code(), await call.details()
        except grpc.RpcError as exc:
            code, details = exc.code(), exc.details()
        if code == grpc.StatusCode.UNAVAILABLE and not details.startswith("the referee"):
            details = f"referee worker {k} stopped ({details}); reconnect: the matches resume"
        link.ups.pop(k, None)
        link.end(code, details)

    async def _read(self, link: _Link, requests: AsyncIterator[bytes]) -> None:
        """The bot's messages, each to the worker it is for."""
        try:
            async for raw in requests:
                await self._route(link, raw)
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        finally:
            link.end(grpc.StatusCode.OK, "")

    async def _route(self, link: _Link, raw: bytes) -> None:
        ups = link.ups
        try:
            req = arena_pb2.PlayRequest.FromString(raw)
            kind = req.WhichOneof("message")
        except DecodeError:
            kind = None  # a worker says so, as the referee does
        if kind == "reply":
            await self._send(link, self.route(req.reply.match_id, ups), raw)
        elif kind == "replies" and 0 < len(req.replies.replies) <= MAX_BUNDLED_REPLIES:
            groups: dict[int | None, list[arena_pb2.ActionReply]] = {}
            for reply in req.replies.replies:
                groups.setdefault(self.route(reply.match_id, ups), []).append(reply)
            if len(groups) == 1:
                await self._send(link, next(iter(groups)), raw)
                return
            for k, replies in groups.items():
                bundle = arena_pb2.PlayRequest(replies=arena_pb2.ReplyBundle(replies=replies))
                await self._send(link, k, bundle.SerializeToString())
        else:  # anything else is the referee's to answer (a second Hello, a bundle too big)
            await self._send(link, self.route("", ups), raw)

    async def _send(self, link: _Link, k: int | None, raw: bytes) -> None:
        call = link.ups.get(k) if k is not None else None
        if call is None:
            link.end(grpc.StatusCode.UNAVAILABLE, "no referee worker is running; reconnect")
            return
        with contextlib.suppress(grpc.RpcError, asyncio.InvalidStateError):
            await call.write(raw)  # a stream that ended says why in _down

    async def _write(self, link: _Link, context: Any) -> None:
        out = link.out
        try:
            while (raw := await out.get()) is not None:
                link.writing = True
                await context.write(raw)
                link.writing = False
        except asyncio.CancelledError:
            if link.ended is None:
                raise
        code, details = link.ended or (grpc.StatusCode.OK, "")
        if code != grpc.StatusCode.OK:
            await context.abort(code, details)

    def _close(self, link: _Link) -> None:
        """The bot's stream is over: its upstreams end (each worker starts its matches'
        resume windows), and its resume token is kept a while."""
        self.links.discard(link)
        for task in link.tasks:
            task.cancel()
        for call in link.ups.values():
            call.cancel()
        kept = self.resumes.get(link.resume_token)
        if kept is not None:
            kept.until = time.monotonic() + RESUME_KEEP_S

    def _prune(self) -> None:
        now = time.monotonic()
        for token in [t for t, r in self.resumes.items() if r.until <= now]:
            del self.resumes[token]
        if len(self.resumes) > MAX_RESUMES:  # oldest first, live streams' kept
            ended = [t for t, r in self.resumes.items() if r.until != float("inf")]
            for token in ended[: len(self.resumes) - MAX_RESUMES]:
                del self.resumes[token]

    # -- admin ---------------------------------------------------------------------------------

    async def _check(self, context: Any) -> None:
        if not auth.bearer_ok(context.invocation_metadata(), self.admin_token):
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "admin token required (metadata authorization: Bearer TOKEN)",
            )

    async def _call(self, k: int | None, method: str, raw: bytes, context: _Context) -> bytes:
        """Forward a unary admin call to worker ``k``; its failure is the caller's."""
        if k is None:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "no referee worker is running")
        left = context.time_remaining()
        try:
            got: bytes = await self.workers[k].unary(f"/{ADMIN}/{method}")(
                raw, metadata=_meta(self.admin_token), timeout=left
            )
        except grpc.aio.AioRpcError as exc:
            await context.abort(exc.code(), exc.details() or "")
        return got

    async def register_bot(self, raw: bytes, context: Any) -> bytes:
        await self._check(context)
        k = self.route("")
        got = await self._call(k, "RegisterBot", raw, context)
        others = [w for w in self.live() if w.index != k]  # one token, every worker
        await asyncio.gather(
            *(w.unary(f"/{INTERNAL}/Bots")(b"", metadata=_meta(self.admin_token)) for w in others),
            return_exceptions=True,
        )
        return got

    async def create_match(self, raw: bytes, context: Any) -> bytes:
        await self._check(context)
        live = self.live()
        loads = await asyncio.gather(
            *(w.unary(f"/{INTERNAL}/Load")(b"", metadata=_meta(self.admin_token)) for w in live),
            return_exceptions=True,
        )
        self._next += 1  # ties go round the workers
        best = min(
            zip(live, loads, strict=True),
            key=lambda wl: (
                int(wl[1]) if isinstance(wl[1], bytes) else 1 << 30,
                (wl[0].index - self._next) % len(self.workers),
            ),
            default=None,
        )
        return await self._call(best[0].index if best else None, "CreateMatch", raw, context)

    async def get_match(self, raw: bytes, context: Any) -> bytes:
        await self._check(context)
        match_id = admin_pb2.GetMatchRequest.FromString(raw).match_id
        return await self._call(self.route(match_id), "GetMatch", raw, context)

    async def list_matches(self, raw: bytes, context: Any) -> bytes:
        """One page of the shared records (the first live worker's), each match as its own
        worker sees it (its strikes and suspension live there)."""
        await self._check(context)
        live = self.live()
        first = await self._call(live[0].index if live else None, "ListMatches", raw, context)
        if len(live) == 1:
            return first
        page = admin_pb2.ListMatchesResponse.FromString(first)
        meta = _meta(self.admin_token)
        views = await asyncio.gather(
            *(w.unary(f"/{ADMIN}/ListMatches")(raw, metadata=meta) for w in live[1:]),
            return_exceptions=True,
        )
        seen: dict[int, dict[str, admin_pb2.MatchInfo]] = {live[0].index: {}}
        for w, view in zip(live[1:], views, strict=True):
            if isinstance(view, bytes):
                infos = admin_pb2.ListMatchesResponse.FromString(view).matches
                seen[w.index] = {i.match_id: i for i in infos}
        for info in page.matches:
            theirs = seen.get(owner(info.match_id, len(self.workers)), {}).get(info.match_id)
            if theirs is not None:
                info.CopyFrom(theirs)
        return page.SerializeToString()

    async def watch_match(self, raw: bytes, context: _Context) -> AsyncIterator[bytes]:
        await self._check(context)
        match_id = admin_pb2.WatchMatchRequest.FromString(raw).match_id
        k = self.route(match_id)
        if k is None:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "no referee worker is running")
        call = self.workers[k].stream(f"/{ADMIN}/WatchMatch")(raw, metadata=_meta(self.admin_token))
        try:
            async for msg in call:
                yield msg
        except grpc.aio.AioRpcError as exc:
            await context.abort(exc.code(), exc.details() or "")
        finally:
            call.cancel()

    async def get_health(self, raw: bytes, context: _Context) -> bytes:
        """Every live worker's health as one: matches and watchers summed, the bots counted
        once (they are connected to every worker through the front), the front's own streams,
        the first records problem any worker has (they share the records)."""
        await self._check(context)
        live = self.live()
        if not live:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "no referee worker is running")
        meta = _meta(self.admin_token)
        answers = await asyncio.gather(
            *(w.unary(f"/{ADMIN}/GetHealth")(raw, metadata=meta) for w in live),
            return_exceptions=True,
        )
        each = [admin_pb2.GetHealthResponse.FromString(a) for a in answers if isinstance(a, bytes)]
        if not each:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "no referee worker answered")
        down = len(self.workers) - len(each)
        problems = [h.records_problem for h in each if h.records_problem]
        if down:
            problems.append(f"{down} of {len(self.workers)} referee workers not answering")
        whole = admin_pb2.GetHealthResponse(
            records_problem="; ".join(problems),
            matches_waiting=sum(h.matches_waiting for h in each),
            matches_running=sum(h.matches_running for h in each),
            matches_suspended=sum(h.matches_suspended for h in each),
            bots_connected=max(h.bots_connected for h in each),
            bots_registered=max(h.bots_registered for h in each),
            streams=len(self.links),
            watchers=sum(h.watchers for h in each),
            protocol_version=each[0].protocol_version,
        )
        first = min((h.started_at for h in each), key=lambda t: t.ToNanoseconds())
        whole.started_at.CopyFrom(first)  # the earliest worker's start
        return whole.SerializeToString()

    def handlers(self, admin: bool = True) -> tuple[grpc.GenericRpcHandler, ...]:
        """The public services: the arena, and (unless ``admin`` is False, an entrants'
        socket) the admin service; every message passed on as bytes."""
        lim = self.limits
        door = self.door if admin else Door("unix", lim.unauthenticated_per_listener, 1)

        async def play(requests: AsyncIterator[bytes], context: Any) -> None:
            await self.play(requests, context, door)

        arena = grpc.method_handlers_generic_handler(
            "levata.v1.ArenaService", {"Play": grpc.stream_stream_rpc_method_handler(play)}
        )
        if not admin:
            return (arena,)
        unary = grpc.unary_unary_rpc_method_handler
        admin_handler = grpc.method_handlers_generic_handler(
            ADMIN,
            {
                "RegisterBot": unary(self.register_bot),
                "CreateMatch": unary(self.create_match),
                "ListMatches": unary(self.list_matches),
                "GetMatch": unary(self.get_match),
                "WatchMatch": grpc.unary_stream_rpc_method_handler(self.watch_match),
                "GetHealth": unary(self.get_health),
            },
        )
        return (arena, admin_handler)


def worker_services(arena: Any, admin_token: str) -> grpc.GenericRpcHandler:
    """What a worker answers the front beside the public services: ``Bots`` (read the
    registered bots again: another worker registered one) and ``Load`` (how many matches it
    runs, as text). The socket is reachable by its owner only; the admin token is asked too."""

    def checked(answer: Callable[[], bytes]) -> Any:
        async def handler(_raw: bytes, context: Any) -> bytes:
            if not auth.bearer_ok(context.invocation_metadata(), admin_token):
                await context.abort(grpc.StatusCode.UNAUTHENTICATED, "admin token required")
            return answer()

        return grpc.unary_unary_rpc_method_handler(handler)

    def bots() -> bytes:
        arena.reload_bots()
        return b""

    return grpc.method_handlers_generic_handler(
        INTERNAL,
        {
            "Bots": checked(bots),
            "Load": checked(lambda: str(len(arena.matches)).encode()),
        },
    )
