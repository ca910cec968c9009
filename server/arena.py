"""The gRPC services: the arena bots play on, and the admin service that creates matches.

A connection says ``Hello`` with its token; the arena binds it to the bot name the token
belongs to and seats it in every match that waits for that bot. Replies are routed to the
match they name. Only a bad token or protocol version ends a stream with a gRPC error
(UNAUTHENTICATED, FAILED_PRECONDITION); game faults are ``ReplyError`` messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from levata.bots.wire import event_to_pb
from levata.engine import BadConfig, game
from levata.server.referee import Policy, Referee
from levata.server.store import Store
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

__all__ = ["PROTOCOL_VERSION", "AdminServicer", "Arena", "ArenaServicer"]

PROTOCOL_VERSION = "1"
#: Finished matches kept in memory for late watchers; older ones live in the store only.
RECENT_MATCHES = 64
_STATUS = {
    "waiting": admin_pb2.MATCH_STATUS_WAITING,
    "running": admin_pb2.MATCH_STATUS_RUNNING,
    "finished": admin_pb2.MATCH_STATUS_FINISHED,
    "aborted": admin_pb2.MATCH_STATUS_ABORTED,
}


@dataclass(eq=False)
class Connection:
    """One bot's stream: its outgoing queue and the seats it holds."""

    bot: str
    resume_token: str
    games: frozenset[str] = frozenset()  # games it says it plays; empty: any
    queue: asyncio.Queue[arena_pb2.PlayResponse | None] = field(default_factory=asyncio.Queue)
    seats: dict[str, set[int]] = field(default_factory=dict)  # match id -> seats
    closed: bool = False

    def send(self, msg: arena_pb2.PlayResponse) -> None:
        if not self.closed:
            self.queue.put_nowait(msg)


class Arena:
    """Bots, tokens, connections and running matches: the state both services share."""

    def __init__(self, store: Store, policy: Policy | None = None) -> None:
        self.store = store
        self.policy = policy or Policy()
        self.tokens: dict[str, str] = {}  # token -> bot name
        self.connections: dict[str, list[Connection]] = {}  # bot -> live connections
        self.by_resume: dict[str, Connection] = {}
        self.matches: dict[str, Referee] = {}  # live matches
        self.recent: dict[str, Referee] = {}  # the last few finished, oldest first
        self.tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    def add_bot(self, name: str, token: str | None = None) -> str:
        """Register a bot name and return its token (a fresh secret unless given)."""
        token = token or secrets.token_hex(16)  # hex: never starts with "-"
        self.tokens[token] = name
        return token

    def create_match(
        self,
        game_name: str,
        players: int,
        options: dict[str, str],
        seed: int,
        seat_bots: list[str],
        policy: arena_pb2.MatchPolicy | None = None,
    ) -> Referee:
        """Create and start a match; raises :class:`BadConfig` on bad input."""
        spec = game(game_name)
        if len(seat_bots) != players:
            raise BadConfig(f"{players} seats need {players} bot names, got {len(seat_bots)}")
        known = set(self.tokens.values())
        unknown = [b for b in seat_bots if b not in known]
        if unknown:
            raise BadConfig(f"unknown bot(s): {', '.join(unknown)} (register them first)")
        resolved = spec.resolve_options(options)
        match_id = uuid.uuid4().hex[:16]
        pol = self.policy.overlay(policy)
        self.store.create_match(
            match_id, spec.name, players, resolved, seed, seat_bots, pol.__dict__
        )
        ref = Referee(match_id, spec, players, resolved, seed, seat_bots, pol, self.store)
        self.matches[match_id] = ref
        task = asyncio.get_running_loop().create_task(ref.run())
        self.tasks.add(task)
        task.add_done_callback(lambda t, ref=ref: self._retire(t, ref))
        for bot in set(seat_bots):
            for conn in self.connections.get(bot, []):
                self._seat(conn, ref)
        return ref

    def _retire(self, task: asyncio.Task[None], ref: Referee) -> None:
        """A match ended: free its state, keeping the last few for late watchers."""
        self.tasks.discard(task)
        self.matches.pop(ref.match_id, None)
        self.recent[ref.match_id] = ref
        while len(self.recent) > RECENT_MATCHES:
            self.recent.pop(next(iter(self.recent)))
        for conns in self.connections.values():
            for conn in conns:
                conn.seats.pop(ref.match_id, None)

    def referee(self, match_id: str) -> Referee | None:
        """A live or recently finished match."""
        return self.matches.get(match_id) or self.recent.get(match_id)

    def _seat(self, conn: Connection, ref: Referee) -> None:
        """Give ``conn`` every free seat of its bot in ``ref``."""
        if conn.games and ref.spec.name not in conn.games:
            return  # this connection said it does not play this game
        taken = {
            s for c in self.connections.get(conn.bot, []) for s in c.seats.get(ref.match_id, ())
        }
        for i, s in enumerate(ref.seats):
            if s.bot == conn.bot and i not in taken and ref.status in ("waiting", "running"):
                conn.seats.setdefault(ref.match_id, set()).add(i)
                ref.attach(i, conn.send)

    def connect(
        self, conn: Connection, resumed: Connection | None, last_seen: dict[str, int]
    ) -> None:
        self.connections.setdefault(conn.bot, []).append(conn)
        self.by_resume[conn.resume_token] = conn
        if resumed is not None:  # take over the dropped connection's seats
            for match_id, seats in resumed.seats.items():
                ref = self.matches.get(match_id)
                if ref is None or ref.status not in ("waiting", "running"):
                    continue
                conn.seats[match_id] = set(seats)
                for i in seats:
                    ref.attach(i, conn.send, last_seen.get(match_id))
            resumed.seats.clear()
        for ref in list(self.matches.values()):
            if ref.status in ("waiting", "running"):
                self._seat(conn, ref)

    def disconnect(self, conn: Connection) -> None:
        conn.closed = True
        with contextlib.suppress(ValueError):
            self.connections.get(conn.bot, []).remove(conn)
        for match_id, seats in conn.seats.items():
            ref = self.matches.get(match_id)
            if ref is not None:
                for i in seats:
                    ref.detach(i, conn.send)

    def match_info(self, match_id: str) -> admin_pb2.MatchInfo | None:
        row = self.store.match(match_id)
        if row is None:
            return None
        info = admin_pb2.MatchInfo(
            match_id=row["id"],
            game=row["game"],
            players=row["players"],
            options={k: str(v) for k, v in row["options"].items()},
            seed=row["seed"],
            seat_bots=row["seat_bots"],
            status=_STATUS[row["status"]],
            strikes=row["strikes"],
            policy=arena_pb2.MatchPolicy(**row["policy"]),
        )
        info.created_at.FromMilliseconds(int(row["created_at"] * 1000))
        ref = self.referee(match_id)
        if ref is not None:
            info.strikes[:] = [s.strikes for s in ref.seats]
            if ref.result is not None:
                info.result.CopyFrom(ref.result_pb())
        elif row["result"] and "ranks" in row["result"]:
            r = row["result"]
            info.result.scores[:] = r["scores"]
            info.result.ranks[:] = r["ranks"]
            info.result.winners[:] = r["winners"]
            info.result.reason = r["reason"]
            info.result.forfeited[:] = r.get("forfeited", [])
        return info

    async def close(self) -> None:
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        if tasks:  # a cancellation swallowed by wait_for must not hang the shutdown
            await asyncio.wait(tasks, timeout=5)
        self.store.flush()


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``ArenaService.Play``: one stream per bot connection."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def Play(
        self, request_iterator: AsyncIterator[arena_pb2.PlayRequest], context: Any
    ) -> AsyncIterator[arena_pb2.PlayResponse]:
        first = await anext(aiter(request_iterator), None)
        if first is None:
            return
        conn = await self._hello(first, context)
        reader = asyncio.create_task(self._read(request_iterator, conn))
        try:
            while True:
                msg = await conn.queue.get()
                if msg is None:
                    return
                yield msg
        finally:
            reader.cancel()
            self.arena.disconnect(conn)

    async def _hello(self, first: arena_pb2.PlayRequest, context: Any) -> Connection:
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "say Hello first")
        hello = first.hello
        bot = self.arena.tokens.get(hello.token)
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        if hello.protocol_version and hello.protocol_version != PROTOCOL_VERSION:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version!r} is not {PROTOCOL_VERSION!r}",
            )
        resumed = self.arena.by_resume.pop(hello.resume_token, None) if hello.resume_token else None
        if resumed is not None and resumed.bot != bot:
            resumed = None
        conn = Connection(bot=bot, resume_token=secrets.token_hex(12), games=frozenset(hello.games))
        conn.send(
            arena_pb2.PlayResponse(
                welcome=arena_pb2.Welcome(
                    bot_name=bot,
                    resume_token=conn.resume_token,
                    protocol_version=PROTOCOL_VERSION,
                    resumed=resumed is not None,
                )
            )
        )
        self.arena.connect(conn, resumed, dict(hello.last_seen))
        return conn

    async def _read(self, requests: AsyncIterator[arena_pb2.PlayRequest], conn: Connection) -> None:
        try:
            async for req in requests:
                kind = req.WhichOneof("message")
                if kind == "reply":
                    self._route(conn, req.reply)
                else:
                    conn.send(
                        arena_pb2.PlayResponse(
                            error=arena_pb2.ReplyError(
                                code=arena_pb2.REPLY_ERROR_CODE_PROTOCOL,
                                message="only ActionReply messages may follow Hello",
                            )
                        )
                    )
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        finally:
            conn.send(None)  # type: ignore[arg-type]  # wakes the writer: the stream is over
            conn.closed = True

    def _route(self, conn: Connection, reply: arena_pb2.ActionReply) -> None:
        ref = self.arena.matches.get(reply.match_id)
        seats = conn.seats.get(reply.match_id)
        if ref is None or not seats:
            conn.send(
                arena_pb2.PlayResponse(
                    error=arena_pb2.ReplyError(
                        match_id=reply.match_id,
                        request_id=reply.request_id,
                        code=arena_pb2.REPLY_ERROR_CODE_UNKNOWN_MATCH,
                        message=f"no match {reply.match_id!r} on this connection",
                    )
                )
            )
            return
        ref.reply(frozenset(seats), reply, conn.send)


class AdminServicer(admin_pb2_grpc.AdminServiceServicer):
    """Create, list, get and watch matches; register bots."""

    def __init__(self, arena: Arena, admin_token: str | None = None) -> None:
        self.arena = arena
        self.admin_token = admin_token

    async def _check(self, context: Any) -> None:
        if self.admin_token is None:
            return
        meta = dict(context.invocation_metadata() or ())
        if meta.get("authorization") != f"Bearer {self.admin_token}":
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "admin token required")

    async def RegisterBot(self, request, context):
        await self._check(context)
        if not request.name:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "a bot needs a name")
        token = self.arena.add_bot(request.name)
        return admin_pb2.RegisterBotResponse(name=request.name, token=token)

    async def CreateMatch(self, request, context):
        await self._check(context)
        try:
            ref = self.arena.create_match(
                request.game,
                request.players,
                dict(request.options),
                request.seed,
                list(request.seat_bots),
                request.policy if request.HasField("policy") else None,
            )
        except BadConfig as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return admin_pb2.CreateMatchResponse(match=self.arena.match_info(ref.match_id))

    async def ListMatches(self, request, context):
        await self._check(context)
        status = {v: k for k, v in _STATUS.items()}.get(request.status)
        rows = self.arena.store.matches(status, request.limit or 100)
        return admin_pb2.ListMatchesResponse(matches=[self.arena.match_info(r["id"]) for r in rows])

    async def GetMatch(self, request, context):
        await self._check(context)
        info = self.arena.match_info(request.match_id)
        if info is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        return admin_pb2.GetMatchResponse(match=info)

    async def WatchMatch(self, request, context):
        await self._check(context)
        ref = self.arena.referee(request.match_id)
        if ref is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no live match {request.match_id!r}")
        queue: asyncio.Queue[Any] = asyncio.Queue()
        for ev in ref.state.events():
            if ev.seq > request.after_seq and ev.audience is None:
                queue.put_nowait(ev)
        if ref.result is not None or ref.status == "aborted":
            queue.put_nowait(None)
        else:
            ref.watchers.append(queue)
        try:
            while True:
                ev = await queue.get()
                if ev is None:
                    break
                yield admin_pb2.WatchMatchResponse(event=event_to_pb(ev))
            if ref.result is not None:  # the full deal is public once the match is over
                for ev in ref.state.events():
                    if ev.audience is not None and ev.seq > request.after_seq:
                        yield admin_pb2.WatchMatchResponse(event=event_to_pb(ev))
            yield admin_pb2.WatchMatchResponse(finished=self.arena.match_info(ref.match_id))
        finally:
            with contextlib.suppress(ValueError):
                ref.watchers.remove(queue)
