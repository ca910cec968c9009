"""The gRPC services: the arena bots play on, and the admin service that creates matches.

A connection says ``Hello`` with its token; the arena binds it to the bot name the token
belongs to and seats it in every match that waits for that bot. Replies are routed to the
match they name. Only a bad token or protocol version ends a stream with a gRPC error
(UNAUTHENTICATED, FAILED_PRECONDITION); game faults are ``ReplyError`` messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

import grpc

from levata.engine import BadConfig, game
from levata.server.match import auth
from levata.server.match.clocks import Policy
from levata.server.match.commit import GroupCommit
from levata.server.match.doors import Door
from levata.server.match.limits import (
    MAX_BUNDLED_REPLIES,
    MAX_ID_CHARS,
    Bucket,
    Limits,
    check_create,
    check_hello,
    check_policy,
    reply_problem,
)
from levata.server.match.log import connections, matches, note
from levata.server.match.recovery import Recovered, plan_resume, policy_of, unfinished
from levata.server.match.referee import Referee
from levata.server.match.spectator import tables
from levata.server.match.store import BrokenRecord, Store, StoreUnavailable
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc
from levata.wire.codec import event_to_pb, field_bytes

__all__ = [
    "PROTOCOL_VERSION",
    "AdminServicer",
    "Arena",
    "ArenaServicer",
    "BotExists",
    "add_arena_to_server",
]

PROTOCOL_VERSION = "1"
#: Finished matches kept in memory for late watchers; older ones live in the store only.
RECENT_MATCHES = 64
#: Most matches in one ListMatches page.
MAX_PAGE = 1000
#: A Bundle holds at most this many messages and about this many bytes (far below the
#: message size limit: a bot's reader must be able to take it).
BUNDLE_MAX_MESSAGES = 256
BUNDLE_MAX_BYTES = 256 * 1024
_STATUS = {
    "waiting": admin_pb2.MATCH_STATUS_WAITING,
    "running": admin_pb2.MATCH_STATUS_RUNNING,
    "finished": admin_pb2.MATCH_STATUS_FINISHED,
    "aborted": admin_pb2.MATCH_STATUS_ABORTED,
}


_Queued = tuple[Any, Callable[[], None] | None, int]  # (message, on_written, its bytes)


class _Context(Protocol):
    """What the handlers use of grpc's servicer context (grpc ships no types): its
    ``abort`` never returns (it raises), which lets the checker narrow after it."""

    async def abort(self, code: Any, details: str) -> NoReturn: ...

    def __getattr__(self, name: str) -> Any: ...


def _text(value: Any) -> str:
    """``value`` when it is a string, else '' (a record's column that may hold anything)."""
    return value if isinstance(value, str) else ""


def _size(msg: Any) -> int:
    """About how many bytes ``msg`` takes on the wire (what an outbox counts): exact for the
    referee's pre-encoded messages, ``ByteSize`` for the rest."""
    data = getattr(msg, "body", None) or getattr(msg, "data", None)
    return len(data) if data is not None else msg.ByteSize()


@dataclass(eq=False)
class Connection:
    """One bot's stream: its outgoing queue (its *outbox*) and the seats it holds.

    The outbox is bounded (:attr:`Limits.outbox_messages`, :attr:`Limits.outbox_bytes`): a
    bot that does not read its stream is disconnected with RESOURCE_EXHAUSTED rather than
    buffered without end (gRPC's writer waits for the reader, so what is not read piles up
    here)."""

    bot: str
    resume_token: str
    games: frozenset[str] = frozenset()  # games it says it plays; empty: any
    batch_events: bool = False  # Hello.batch_events: events ride inside requests and ends
    bundle: bool = False  # Hello.bundle: what is ready goes out as one Bundle message
    # (message, called just before it is written, its bytes) in order; a None message ends
    # the stream
    queue: asyncio.Queue[_Queued] = field(default_factory=asyncio.Queue)
    seats: dict[str, set[int]] = field(default_factory=dict)  # match id -> seats
    closed: bool = False
    on_close: Callable[[], None] = lambda: None  # the arena's stream count, released once
    abort_with: tuple[grpc.StatusCode, str] | None = None  # end the stream with this status
    limits: Limits = field(default_factory=Limits)  # the outbox's and the refusals' bounds
    queued_bytes: int = 0  # what the outbox holds
    writer: asyncio.Task[Any] | None = None  # the stream's writer: interrupted by end()
    writing: bool = False  # it waits for gRPC to take a message
    refusals: dict[str, Refusals] = field(default_factory=dict)  # match id ("": none) ->
    drops: Bucket | None = None  # replies it may have dropped before the stream is closed
    dropped: int = 0  # replies dropped unread, over a seat's allowance of refusals
    peer: str = ""  # where it connects from (gRPC's peer: ipv4:HOST:PORT, unix:PATH), for logs

    def send(
        self, msg: arena_pb2.PlayResponse | None, on_written: Callable[[], None] | None = None
    ) -> None:
        """Queue ``msg`` for the writer, which calls ``on_written()`` just before it hands the
        message to gRPC (where a decision request's clock starts)."""
        if self.closed:
            return
        size = 0 if msg is None else _size(msg)
        self.queued_bytes += size
        self.queue.put_nowait((msg, on_written, size))
        lim = self.limits
        if self.queue.qsize() > lim.outbox_messages or self.queued_bytes > lim.outbox_bytes:
            self.end(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"outbox full: {self.queue.qsize()} messages ({self.queued_bytes} bytes) wait"
                f" unread, more than {lim.outbox_messages} or {lim.outbox_bytes} bytes: a bot"
                " that does not read its stream is disconnected",
            )

    def end(self, code: grpc.StatusCode, message: str) -> None:
        """End the stream now with ``code``: what waits unsent is dropped, and a writer that
        waits on a client that does not read is interrupted."""
        if self.abort_with is None:
            self.abort_with = (code, message)
        self.closed = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queued_bytes = 0
        self.queue.put_nowait((None, None, 0))  # a writer waiting for the queue ends
        if self.writing and self.writer is not None and not self.writer.done():
            self.writer.cancel()  # a writer waiting on a client that does not read ends too

    def refusals_for(self, match_id: str) -> Refusals:
        """The allowance of refused replies of this connection's seats in ``match_id`` (""
        for replies to no match of its own)."""
        got = self.refusals.get(match_id)
        if got is None:
            lim = self.limits
            bucket = Bucket(lim.refusals_burst, lim.refusals_per_s, time.monotonic())
            got = self.refusals[match_id] = Refusals(self, bucket)
        return got


class Refusals:
    """A seat's allowance of refused replies (a token bucket), and the outbox the referee
    answers them through: an answer past the allowance is not sent, and the arena drops that
    seat's next replies unread until the bucket refills (:meth:`ArenaServicer._route`). So a
    flood of bad replies costs the referee little, and nobody else anything."""

    __slots__ = ("bucket", "conn")

    def __init__(self, conn: Connection, bucket: Bucket) -> None:
        self.conn, self.bucket = conn, bucket

    def __call__(self, msg: Any, *args: Any) -> None:
        if self.bucket.take(time.monotonic()):
            self.conn.send(msg, *args)

    def unmetered(self, msg: Any, *args: Any) -> None:
        """Answer a refusal the referee excuses (a late reply to a real request: the
        referee's ``_late``), spending nothing."""
        self.conn.send(msg, *args)


class BotExists(BadConfig):
    """A bot of that name is registered already."""


class BotUnknown(BadConfig):
    """No bot of that name is registered (a rotation asked to replace only)."""


class Arena:
    """Bots, tokens, connections and running matches: the state both services share."""

    def __init__(
        self, store: Store, policy: Policy | None = None, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.commits = GroupCommit(store)  # one transaction per loop turn for every match
        self.policy = policy or Policy()
        self.limits = limits or Limits()
        self.bots: dict[str, str] = store.bots()  # bot name -> its token's digest
        self._by_digest = {d: name for name, d in self.bots.items()}
        self.connections: dict[str, list[Connection]] = {}  # bot -> live connections
        self.by_resume: dict[str, Connection] = {}  # dropped connections that may resume
        self._resume_until: dict[str, float] = {}  # resume token -> when it expires
        self.streams = 0  # open Play streams
        self.watchers = 0  # open WatchMatch streams
        self.admin_token = ""  # set by start_server
        self.matches: dict[str, Referee] = {}  # live matches
        self.recent: dict[str, Referee] = {}  # the last few finished, oldest first
        self.tasks: set[asyncio.Task[None]] = set()
        self.port = 0
        self.recovered: list[Recovered] = []  # what start-up did with unfinished matches
        self.stopping = False  # set by close(): new and Hello-less streams are turned away
        self.started_at = time.time()  # for GetHealth
        #: Starts every match id this arena makes: a referee worker's name (``w1-``), so that
        #: the front of ``levata serve --workers`` routes by the id alone
        #: (:mod:`levata.server.match.front`).
        self.id_prefix = ""

    def add_bot(
        self,
        name: str,
        token: str | None = None,
        rotate: bool = False,
        registered_only: bool = False,
    ) -> str:
        """Register a bot and return its token (a fresh secret unless given).

        A name already registered keeps its token unless ``rotate`` (then the old token stops
        working): a second caller cannot obtain a valid token for someone else's bot.
        ``registered_only`` (with ``rotate``) replaces and never registers: an operator
        revoking a leaked token who mistypes the name must hear so, not leave it live.
        Raises :class:`BadConfig` on a bad name, :class:`BotExists` on a taken one,
        :class:`BotUnknown` on a name ``registered_only`` finds free.
        """
        auth.check_bot_name(name)
        if name in self.bots and not rotate:
            raise BotExists(f"a bot named {name!r} is registered already (rotate to replace)")
        if registered_only and name not in self.bots:
            self.reload_bots()  # another worker on the same records may have registered it
            if name not in self.bots:
                raise BotUnknown(f"no bot named {name!r} is registered (register it first)")
        token = token or auth.new_token()
        if len(token) > auth.MAX_TOKEN_CHARS:
            raise BadConfig(f"a token is at most {auth.MAX_TOKEN_CHARS} characters")
        digest = auth.digest(token)
        self.store.save_bot(name, digest)
        self._by_digest.pop(self.bots.get(name, ""), None)
        self.bots[name] = digest
        self._by_digest[digest] = name
        return token

    def reload_bots(self) -> None:
        """Read the registered bots again from the store: another referee on the same
        records (a worker of ``levata serve --workers``) registered or rotated one."""
        self.bots = self.store.bots()
        self._by_digest = {d: name for name, d in self.bots.items()}

    def bot_for(self, token: str) -> str | None:
        """The bot a token belongs to: looked up by digest, so in time independent of it."""
        if not token or len(token) > auth.MAX_TOKEN_CHARS:
            return None
        return self._by_digest.get(auth.digest(token))

    def create_match(
        self,
        game_name: str,
        players: int,
        options: dict[str, str],
        seed: int,
        seat_bots: list[str],
        policy: arena_pb2.MatchPolicy | None = None,
        label: str = "",
    ) -> Referee:
        """Create and start a match; raises :class:`BadConfig` on bad input.

        Everything is checked, and the match built, before anything is stored: a rejected
        request leaves nothing behind."""
        check_create(game_name, players, options, seed, seat_bots, label)
        if policy is not None:
            check_policy(policy)
        spec = game(game_name)
        if len(seat_bots) != players:
            raise BadConfig(f"{players} seats need {players} bot names, got {len(seat_bots)}")
        unknown = sorted({b for b in seat_bots if b not in self.bots})
        if unknown:
            raise BadConfig(f"unknown bot(s): {', '.join(unknown)} (register them first)")
        resolved = spec.resolve_options(options)
        for group in spec.held_together(resolved, players):
            names = sorted({seat_bots[s] for s in group})
            if len(names) > 1:  # each would see the other's cards
                seats = ", ".join(map(str, group))
                raise BadConfig(
                    f"seats {seats} are one player's under these options (each sees the"
                    f" others' cards): seat one bot there, not {', '.join(names)}"
                )
        spec.new_match(players=players, options=resolved, seed=seed)  # BadConfig, nothing kept
        match_id = self.id_prefix + uuid.uuid4().hex[:16]
        pol = self.policy.overlay(policy)
        self.store.create_match(
            match_id, spec.name, players, resolved, seed, seat_bots, pol.__dict__, label
        )
        ref = Referee(
            match_id,
            spec,
            players,
            resolved,
            seed,
            seat_bots,
            pol,
            self.store,
            label=label,
            commits=self.commits,
        )
        self._launch(ref)
        note(
            matches,
            logging.INFO,
            "match_created",
            "match %s created: %s, %d players, bots %s",
            match_id,
            spec.name,
            players,
            ", ".join(seat_bots),
            match=match_id,
            game=spec.name,
            players=players,
            seat_bots=list(seat_bots),
            seed=seed,
            label=label,
        )
        return ref

    def _launch(self, ref: Referee) -> None:
        """Run a match's referee, and seat the connected bots it is waiting for."""
        self.matches[ref.match_id] = ref
        task = asyncio.get_running_loop().create_task(ref.run())
        self.tasks.add(task)
        task.add_done_callback(lambda t: self._retire(t, ref))
        for bot in {s.bot for s in ref.seats}:
            for conn in self.connections.get(bot, []):
                self._seat(conn, ref)

    def resume_unfinished(self, only: Callable[[str], bool] | None = None) -> list[Recovered]:
        """Take up the matches a previous referee on this file left waiting or running
        (:mod:`levata.server.match.recovery`): each goes on from its record when its bots
        reconnect, or is closed as aborted with the reason. Call once, before serving.
        ``only``: the match ids this referee takes (a referee worker's share of them)."""
        outcomes = []
        for row in unfinished(self.store):
            if only is not None and not only(row["id"]):
                continue
            plan = plan_resume(self.store, row)
            outcomes.append(plan)
            note(
                matches,
                logging.WARNING if plan.why else logging.INFO,
                "match_recovered",
                "match %s left by the previous referee: %s",
                row["id"],
                plan.why or "resumed from its record",
                match=row["id"],
                game=row["game"],
                resumed=not plan.why,
                why=plan.why or "",
            )
            if plan.resume is None:
                continue
            ref = Referee(
                row["id"],
                game(row["game"]),
                row["players"],
                row["options"],
                row["seed"],
                row["seat_bots"],
                policy_of(row),
                self.store,
                resume=plan.resume,
                label=row.get("label") or "",
                commits=self.commits,
            )
            self._launch(ref)
        return outcomes

    def end_streams(self, code: grpc.StatusCode, message: str) -> None:
        """End every bot stream with ``code`` and every watch, so that a stopping server has
        no call left to cancel."""
        for conns in self.connections.values():
            for conn in conns:
                conn.abort_with = (code, message)
                conn.send(None)
        for ref in [*self.matches.values(), *self.recent.values()]:
            for q in ref.watchers:
                q.put_nowait(None)

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
                conn.refusals.pop(ref.match_id, None)

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
                ref.attach(i, conn.send, batch=conn.batch_events)

    def claim_resume(self, resume_token: str, bot: str) -> Connection | None:
        """The dropped connection ``resume_token`` names, if it is ``bot``'s and not expired.

        Only the owner consumes it: another bot presenting the token gets nothing and
        leaves it in place for the owner."""
        self._prune_resumes()
        conn = self.by_resume.get(resume_token) if resume_token else None
        if conn is None or conn.bot != bot:
            return None
        self.by_resume.pop(resume_token)
        self._resume_until.pop(resume_token, None)
        return conn

    def _prune_resumes(self) -> None:
        now = time.monotonic()
        for token in [t for t, until in self._resume_until.items() if until <= now]:
            self._resume_until.pop(token)
            self.by_resume.pop(token, None)

    def connect(
        self, conn: Connection, resumed: Connection | None, last_seen: dict[str, int]
    ) -> None:
        self.connections.setdefault(conn.bot, []).append(conn)
        self.by_resume[conn.resume_token] = conn
        note(
            connections,
            logging.INFO,
            "bot_connected",
            "bot %s connected from %s%s",
            conn.bot,
            conn.peer or "?",
            " (resumed)" if resumed is not None else "",
            bot=conn.bot,
            peer=conn.peer,
            resumed=resumed is not None,
            games=sorted(conn.games),
            streams=len(self.connections[conn.bot]),
        )
        if resumed is not None:  # take over the dropped connection's seats
            for match_id, seats in resumed.seats.items():
                ref = self.matches.get(match_id)
                if ref is None or ref.status not in ("waiting", "running"):
                    continue
                conn.seats[match_id] = set(seats)
                for i in seats:
                    ref.attach(i, conn.send, last_seen.get(match_id), conn.batch_events)
            resumed.seats.clear()
        for ref in list(self.matches.values()):
            if ref.status in ("waiting", "running"):
                self._seat(conn, ref)

    def disconnect(self, conn: Connection) -> None:
        """A stream ended: release its seats; keep it for a resume only while one is useful."""
        conn.closed = True
        with contextlib.suppress(ValueError):
            self.connections.get(conn.bot, []).remove(conn)
        if not self.connections.get(conn.bot, True):
            del self.connections[conn.bot]
        window_ms = 0
        for match_id, seats in conn.seats.items():
            ref = self.matches.get(match_id)
            if ref is not None:
                window_ms = max(window_ms, ref.policy.resume_window_ms)
                for i in seats:
                    ref.detach(i, conn.send)
        while not conn.queue.empty():  # nobody will read what was not sent
            conn.queue.get_nowait()
        why = conn.abort_with[1] if conn.abort_with is not None else "the stream ended"
        note(
            connections,
            logging.INFO,
            "bot_disconnected",
            "bot %s disconnected from %s: %s",
            conn.bot,
            conn.peer or "?",
            why,
            bot=conn.bot,
            peer=conn.peer,
            why=why,
            matches=sorted(m for m, seats in conn.seats.items() if seats),
            resume_window_ms=window_ms,
        )
        if window_ms:
            self._resume_until[conn.resume_token] = time.monotonic() + window_ms / 1000
        else:  # nothing to resume: forget it now
            self.by_resume.pop(conn.resume_token, None)
        self._prune_resumes()

    def health(self) -> admin_pb2.GetHealthResponse:
        """What ``AdminService.GetHealth`` says: the records' state and the counts of now."""
        live = list(self.matches.values())
        reply = admin_pb2.GetHealthResponse(
            records_problem=self.store.failure or "",
            matches_waiting=sum(r.status == "waiting" for r in live),
            matches_running=sum(r.status == "running" for r in live),
            matches_suspended=sum(r.suspended is not None for r in live),
            bots_connected=len(self.connections),
            bots_registered=len(self.bots),
            streams=self.streams,
            watchers=self.watchers,
            protocol_version=PROTOCOL_VERSION,
        )
        reply.started_at.FromMilliseconds(int(self.started_at * 1000))
        return reply

    def match_info(self, match_id: str) -> admin_pb2.MatchInfo | None:
        """What the admin service says of a match; ``None`` when there is none. A record that
        cannot be read (a column edited into broken JSON, or out of its shape) is listed as
        stored, with a ``status_detail`` that says which column: one bad row never fails a
        whole ``ListMatches``."""
        try:
            row = self.store.match(match_id)
            return None if row is None else self._info(row)
        except BrokenRecord as exc:
            return self._unreadable(match_id, str(exc))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            return self._unreadable(match_id, f"match {match_id}: {type(exc).__name__}: {exc}")

    def _unreadable(self, match_id: str, why: str) -> admin_pb2.MatchInfo | None:
        """A record that cannot be read, as far as its plain columns go."""
        raw = self.store.raw_match(match_id)
        if raw is None:
            return None
        info = admin_pb2.MatchInfo(
            match_id=str(raw["id"]),
            game=str(raw.get("game") or ""),
            status=_STATUS.get(_text(raw.get("status")), admin_pb2.MATCH_STATUS_UNSPECIFIED),
            status_detail=f"unreadable record: {why}",
        )
        if isinstance(raw.get("players"), int):
            info.players = raw["players"]
        if isinstance(raw.get("created_at"), int | float):
            info.created_at.FromMilliseconds(int(raw["created_at"] * 1000))
        return info

    def _info(self, row: dict[str, Any]) -> admin_pb2.MatchInfo:
        match_id = row["id"]
        over = row["status"] in ("finished", "aborted")
        info = admin_pb2.MatchInfo(
            match_id=match_id,
            game=row["game"],
            players=row["players"],
            options={k: str(v) for k, v in row["options"].items()},
            seed=row["seed"] if over else 0,  # the deal follows from the seed: only at the end
            seat_bots=row["seat_bots"],
            status=_STATUS[row["status"]],
            strikes=row["strikes"],
            policy=arena_pb2.MatchPolicy(**row["policy"]),
        )
        info.created_at.FromMilliseconds(int(row["created_at"] * 1000))
        if isinstance(row["result"], dict):
            info.status_detail = str(row["result"].get("detail", ""))
        live = self.matches.get(match_id)
        if live is not None and live.suspended:
            info.status_detail = f"suspended: {live.suspended}"
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

    async def close(self, resumable: bool = False) -> None:
        """Stop every match. ``resumable`` (a referee that will be started again on this
        file): they stay unfinished in the records, and the next start takes them up where
        they stopped; otherwise each is aborted and its seats told why."""
        self.stopping = True
        tasks = list(self.tasks)
        for ref in self.matches.values():
            ref.resumable = resumable
        for task in tasks:
            task.cancel()
        if resumable:  # the bots reconnect to the next start and are seated again
            self.end_streams(grpc.StatusCode.UNAVAILABLE, "the referee is stopping; reconnect")
        if tasks:  # a cancellation swallowed by wait_for must not hang the shutdown
            await asyncio.wait(tasks, timeout=5)
        with contextlib.suppress(StoreUnavailable):  # Store.close names what is not written
            self.store.flush(force=True)


def _bundle(
    first: arena_pb2.PlayResponse, on_written: Callable[[], None] | None, queue: asyncio.Queue[Any]
) -> tuple[bytes, _Queued | None, int]:
    """``first`` and what else is queued now (up to :data:`BUNDLE_MAX_MESSAGES` and about
    :data:`BUNDLE_MAX_BYTES`), as one encoded ``PlayResponse`` with a ``Bundle``; the
    end of the stream if it was taken from the queue (it is never bundled); and the bytes the
    outbox counted for the messages taken from it. Each message's
    ``on_written`` is called just before it is encoded: its clock starts as it is handed to
    gRPC, as for a message written alone.

    The bundle is put together from its messages' encodings (a repeated field is its
    elements' encodings one after another), so nothing is encoded twice or copied:

    >>> q = asyncio.Queue()
    >>> q.put_nowait((arena_pb2.PlayResponse(error=arena_pb2.ReplyError(message="b")), None, 5))
    >>> a = arena_pb2.PlayResponse(error=arena_pb2.ReplyError(message="a"))
    >>> data, end, taken = _bundle(a, None, q)
    >>> [m.error.message for m in arena_pb2.PlayResponse.FromString(data).bundle.messages], taken
    (['a', 'b'], 5)
    """
    parts: list[bytes] = []
    size = count = taken = 0
    msg: arena_pb2.PlayResponse | None = first
    end: _Queued | None = None
    while True:
        assert msg is not None
        if on_written is not None:
            on_written()
        data = field_bytes(1, msg.SerializeToString())  # Bundle.messages
        parts.append(data)
        size += len(data)
        count += 1
        if queue.empty() or count >= BUNDLE_MAX_MESSAGES or size >= BUNDLE_MAX_BYTES:
            break
        msg, on_written, counted = item = queue.get_nowait()
        taken += counted
        if msg is None:
            end = item
            break
    return field_bytes(8, b"".join(parts)), end, taken  # PlayResponse.bundle


def _encode_response(msg: Any) -> bytes:
    """The Play stream's serializer: a message (or anything that serializes itself as one,
    like the referee's pre-encoded requests), or a bundle already encoded by :func:`_bundle`."""
    return msg if type(msg) is bytes else msg.SerializeToString()


def add_arena_to_server(arena: Arena, server: grpc.aio.Server, door: str = "tcp") -> None:
    """Serve ``ArenaService`` on ``server``: the generated registration, but with a serializer
    that also takes the bundles the writer encoded itself. ``door`` names the listener: each
    server has its own quota of streams without Hello (:mod:`levata.server.match.doors`)."""
    limits = arena.limits
    quota = Door(door, limits.unauthenticated_per_listener, limits.unauthenticated_per_connection)
    handlers = {
        "Play": grpc.stream_stream_rpc_method_handler(
            ArenaServicer(arena, quota).Play,
            request_deserializer=arena_pb2.PlayRequest.FromString,
            response_serializer=_encode_response,
        )
    }
    name = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)


def _undecodable(exc: BaseException) -> str:
    return f"a message could not be decoded as a PlayRequest ({type(exc).__name__})"


class ArenaServicer(arena_pb2_grpc.ArenaServiceServicer):
    """``ArenaService.Play``: one stream per bot connection, its streams without Hello
    counted at ``door`` (one per listener)."""

    def __init__(self, arena: Arena, door: Door | None = None) -> None:
        self.arena = arena
        lim = arena.limits
        self.door = door or Door(
            "tcp", lim.unauthenticated_per_listener, lim.unauthenticated_per_connection
        )

    async def Play(  # writes with context.write, so it can time out
        self, request_iterator: AsyncIterator[arena_pb2.PlayRequest], context: Any
    ) -> None:
        arena = self.arena
        conn = await self._admit(request_iterator, context)
        if conn is None:
            return
        reader = asyncio.create_task(self._read(request_iterator, conn, context))
        conn.on_close = lambda: setattr(arena, "streams", arena.streams - 1)
        # Written with context.write, not yielded: a write that waits on a bot that does not
        # read can then be interrupted (Connection.end) and the stream ended with a status.
        conn.writer = asyncio.current_task()
        gone = False
        try:
            await self._write(conn, context)
        except asyncio.CancelledError:
            if conn.abort_with is None:  # the client went away, or the server stops
                raise
            # Connection.end: its seats go now (their resume windows start), and it is told
            # why; the status waits behind what the bot has not read (HTTP/2 flow control),
            # so a bot that reads again learns it, one that never does loses the connection
            # (closed as idle).
            gone = True
            self.arena.disconnect(conn)
            await context.abort(*conn.abort_with)
        finally:
            reader.cancel()
            if not gone:
                self.arena.disconnect(conn)
            conn.on_close()

    async def _admit(
        self, request_iterator: AsyncIterator[arena_pb2.PlayRequest], context: Any
    ) -> Connection | None:
        """A new stream, counted among the arena's streams, up to its Hello: refused while the
        referee stops or is full; None when the client went away before its first message.
        A stream that ends before its Hello gives its count back here, however it ends; a
        connection returned keeps it until it closes (``Connection.on_close``)."""
        arena, limits = self.arena, self.arena.limits
        if arena.stopping:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the referee is stopping; reconnect")
        if arena.streams >= limits.streams_total:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "the referee is full")
        arena.streams += 1
        conn = None
        try:
            first = await self._first(request_iterator, context)
            if first is not None:
                conn = await self._hello(first, context)
            return conn
        finally:
            if conn is None:  # no connection to give the count back when it closes
                arena.streams -= 1

    async def _write(self, conn: Connection, context: Any) -> None:
        """Write what the connection's queue holds, in order, until its end (``None``); a
        bundling connection's messages ready together go as one bundle."""
        queue, carried = conn.queue, None
        while True:
            msg, on_written, size = carried or await queue.get()
            conn.queued_bytes -= size
            carried = None
            if conn.bundle and msg is not None:
                await asyncio.sleep(0)  # let the matches ready now add theirs: fewer writes
            if conn.bundle and msg is not None and not queue.empty():
                bundle, carried, taken = _bundle(msg, on_written, queue)  # all ready now
                conn.queued_bytes -= taken
                conn.writing = True
                await context.write(bundle)
                conn.writing = False
                continue
            if on_written is not None:
                on_written()
            if msg is None:
                if conn.abort_with is not None:
                    await context.abort(*conn.abort_with)
                return
            conn.writing = True
            await context.write(msg)
            conn.writing = False

    async def _first(
        self, requests: AsyncIterator[arena_pb2.PlayRequest], context: Any
    ) -> arena_pb2.PlayRequest | None:
        """The stream's first message, within the Hello deadline and this listener's quota of
        streams that have not said who they are (:class:`~levata.server.match.doors.Door`:
        a newcomer evicts the oldest; one TCP connection may hold only a few)."""
        first = asyncio.ensure_future(anext(aiter(requests), None))
        evicted: list[bool] = []

        def evict() -> None:
            evicted.append(True)
            first.cancel()

        key = self.door.enter(context.peer(), evict)
        if key is None:
            first.cancel()
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"more than {self.door.per_connection} streams without Hello on one"
                " connection: say Hello in each stream's first message",
            )
        try:
            return await self._before_hello_deadline(first, context)
        except asyncio.CancelledError:
            if not evicted:
                raise
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"evicted: {self.door.per_listener} newer streams without Hello came; say"
                " Hello in your first message, and retry",
            )
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"say Hello within {self.arena.limits.hello_timeout_s:g} s",
            )
        except grpc.RpcError:
            return None
        except Exception as exc:  # a message that does not decode: say so, end the stream
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, _undecodable(exc))
        finally:
            self.door.leave(key)  # type: ignore[arg-type]  # None aborted above
        return None  # not reached: abort raises

    async def _before_hello_deadline(self, first: Any, context: Any) -> Any:
        """Await ``first`` within the Hello deadline, looking every so often whether the
        referee is stopping (then the stream ends with UNAVAILABLE, not a cancellation)."""
        task = asyncio.ensure_future(first)
        end = asyncio.get_running_loop().time() + self.arena.limits.hello_timeout_s
        try:
            while not task.done():
                left = end - asyncio.get_running_loop().time()
                if left <= 0:
                    raise TimeoutError
                await asyncio.wait({task}, timeout=min(left, 0.25))
                if self.arena.stopping and not task.done():
                    await context.abort(
                        grpc.StatusCode.UNAVAILABLE, "the referee is stopping; reconnect"
                    )
            return task.result()
        finally:
            if not task.done():
                task.cancel()

    async def _hello(self, first: arena_pb2.PlayRequest, context: _Context) -> Connection:
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "say Hello first")
        hello = first.hello
        try:
            check_hello(hello)
        except BadConfig as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"Hello: {exc}")
        bot = self.arena.bot_for(hello.token)
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        if hello.protocol_version and hello.protocol_version != PROTOCOL_VERSION:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version!r} is not {PROTOCOL_VERSION!r}",
            )
        if len(self.arena.connections.get(bot, ())) >= self.arena.limits.streams_per_bot:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"bot {bot} has {self.arena.limits.streams_per_bot} streams open already",
            )
        resumed = self.arena.claim_resume(hello.resume_token, bot)
        conn = Connection(
            bot=bot,
            resume_token=secrets.token_hex(12),
            games=frozenset(hello.games),
            batch_events=hello.batch_events,
            bundle=hello.bundle,
            limits=self.arena.limits,
            peer=str(context.peer() or ""),
        )
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

    async def _read(
        self, requests: AsyncIterator[arena_pb2.PlayRequest], conn: Connection, context: Any
    ) -> None:
        try:
            async for req in requests:
                kind = req.WhichOneof("message")
                if kind == "reply":
                    self._route(conn, req.reply)
                elif kind == "replies" and len(req.replies.replies) <= MAX_BUNDLED_REPLIES:
                    for reply in req.replies.replies:
                        self._route(conn, reply)
                elif kind == "replies" and self._allowed(conn, "", None, None):
                    conn.refusals_for("")(
                        arena_pb2.PlayResponse(
                            error=arena_pb2.ReplyError(
                                code=arena_pb2.REPLY_ERROR_CODE_MALFORMED,
                                message=f"a ReplyBundle holds at most {MAX_BUNDLED_REPLIES}"
                                f" replies, not {len(req.replies.replies)}: none was used",
                            )
                        )
                    )
                elif kind != "replies" and self._allowed(conn, "", None, None):
                    conn.refusals_for("")(
                        arena_pb2.PlayResponse(
                            error=arena_pb2.ReplyError(
                                code=arena_pb2.REPLY_ERROR_CODE_PROTOCOL,
                                message="only ActionReply messages may follow Hello",
                            )
                        )
                    )
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        except Exception as exc:  # a message that does not decode
            conn.abort_with = (grpc.StatusCode.INVALID_ARGUMENT, _undecodable(exc))
        finally:
            conn.send(None)  # wakes the writer: the stream is over
            conn.closed = True

    def _allowed(
        self, conn: Connection, key: str, ref: Referee | None, seats: set[int] | None
    ) -> bool:
        """Whether a reply of ``conn`` to match ``key`` is read: not while that seat's
        allowance of refused replies is spent. A reply dropped unread is counted (in the
        match's record when it is a seat's), and a connection that has many dropped is closed
        with RESOURCE_EXHAUSTED: a flood of bad replies costs little, and nobody else."""
        refusals = conn.refusals.get(key)
        now = time.monotonic()
        if refusals is None or refusals.bucket.ready(now):
            return True
        conn.dropped += 1
        if ref is not None and seats:
            self.arena.store.count_refused(
                ref.match_id, min(seats), "dropped", "dropped unread: too many refused replies"
            )
        lim = self.arena.limits
        if conn.drops is None:
            per_s = lim.refusals_dropped_max / 60
            conn.drops = Bucket(lim.refusals_dropped_max, per_s, now)
        if not conn.drops.take(now):
            conn.end(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{conn.dropped} replies dropped unread: too many refused replies (a seat is"
                f" answered {lim.refusals_burst} at once, then {lim.refusals_per_s:g} a second)",
            )
        return False

    def _route(self, conn: Connection, reply: arena_pb2.ActionReply) -> None:
        problem = reply_problem(reply)
        seats = None if problem else conn.seats.get(reply.match_id)
        ref = self.arena.matches.get(reply.match_id) if seats else None
        key = reply.match_id if ref is not None else ""
        if not self._allowed(conn, key, ref, seats):
            return
        refused = conn.refusals_for(key)
        if problem:  # an oversized id is neither kept nor echoed back
            refused(
                arena_pb2.PlayResponse(
                    error=arena_pb2.ReplyError(
                        match_id=reply.match_id[:MAX_ID_CHARS],
                        request_id=reply.request_id[:MAX_ID_CHARS],
                        code=arena_pb2.REPLY_ERROR_CODE_MALFORMED,
                        message=problem,
                    )
                )
            )
            return
        if ref is None or not seats:
            refused(
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
        ref.reply(frozenset(seats), reply, refused)  # refused: how a rejection is answered


class AdminServicer(admin_pb2_grpc.AdminServiceServicer):
    """Create, list, get and watch matches; register bots. Every call needs the admin token.

    While a match runs nothing here carries its seed or a private event: ``MatchInfo.seed``
    is 0 until the end, and ``WatchMatch`` sends public events only, the rest once it is over.
    """

    def __init__(self, arena: Arena, admin_token: str) -> None:
        if not admin_token:
            raise ValueError("the admin service needs a token")
        self.arena = arena
        self.admin_token = admin_token

    async def _check(self, context: Any) -> None:
        if not auth.bearer_ok(context.invocation_metadata(), self.admin_token):
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "admin token required (metadata authorization: Bearer TOKEN)",
            )

    async def RegisterBot(self, request, context):
        await self._check(context)
        try:
            token = self.arena.add_bot(
                request.name,
                rotate=request.rotate,
                registered_only=request.rotate and request.registered_only,
            )
        except BotExists as exc:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(exc))
        except BotUnknown as exc:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
        except StoreUnavailable as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))
        except BadConfig as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
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
                request.label,
            )
        except BadConfig as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except StoreUnavailable as exc:  # nothing was created: try again when it is writable
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))
        return admin_pb2.CreateMatchResponse(match=self.arena.match_info(ref.match_id))

    async def ListMatches(self, request, context):
        await self._check(context)
        if not 0 <= request.limit <= MAX_PAGE:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"limit must be 0 to {MAX_PAGE}")
        before = None
        if request.page_token:
            if not request.page_token.isdigit() or len(request.page_token) > 19:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "page_token is not ours")
            before = int(request.page_token)
        status = {v: k for k, v in _STATUS.items()}.get(request.status)
        limit = request.limit or 100
        page = self.arena.store.match_page(status, limit + 1, before)
        more = len(page) > limit
        page = page[:limit]
        infos = [self.arena.match_info(match_id) for _, match_id in page]
        return admin_pb2.ListMatchesResponse(
            matches=[i for i in infos if i is not None],
            next_page_token=str(page[-1][0]) if more else "",
        )

    async def GetMatch(self, request, context):
        await self._check(context)
        info = self.arena.match_info(request.match_id[:MAX_ID_CHARS])
        if info is None or len(request.match_id) > MAX_ID_CHARS:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"no match {request.match_id[:MAX_ID_CHARS]!r}"
            )
        return admin_pb2.GetMatchResponse(match=info)

    async def WatchMatch(self, request, context: _Context):
        await self._check(context)
        ref = self.arena.referee(request.match_id) if len(request.match_id) <= 64 else None
        if ref is None:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"no live match {request.match_id[:MAX_ID_CHARS]!r}"
            )
        limits = self.arena.limits
        if self.arena.watchers >= limits.watchers_total or (
            len(ref.watchers) >= limits.watchers_per_match
        ):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many spectators")
        queue: asyncio.Queue[Any] = asyncio.Queue()
        # 0 is the unset default, and the first event is numbered 0: from the start too
        after = request.after_seq if request.after_seq > 0 else -1
        for ev in ref.state.events():
            if ev.seq > after and ev.audience is None:
                queue.put_nowait(ev)
        if ref.result is not None or ref.status == "aborted":
            queue.put_nowait(None)
        else:
            ref.watchers.append(queue)
        self.arena.watchers += 1
        try:
            async for table in self._tables(ref, queue, request, context):
                yield table  # asked for tables: the events in them, each with the public view
            while True:
                ev = await self._next_watched(ref, queue, context)
                if ev is None:
                    break
                yield admin_pb2.WatchMatchResponse(event=event_to_pb(ev))
            # the full deal is public once the match is over (tables end with the last one)
            if ref.result is not None and request.table_every_ms <= 0:
                for ev in ref.state.events():
                    if ev.audience is not None and ev.seq > after:
                        yield admin_pb2.WatchMatchResponse(event=event_to_pb(ev))
            yield admin_pb2.WatchMatchResponse(finished=self.arena.match_info(ref.match_id))
        finally:
            self.arena.watchers -= 1
            with contextlib.suppress(ValueError):
                ref.watchers.remove(queue)

    async def GetHealth(self, request, context):
        await self._check(context)
        return self.arena.health()

    async def _tables(
        self, ref: Referee, queue: asyncio.Queue[Any], request: Any, context: Any
    ) -> AsyncIterator[admin_pb2.WatchMatchResponse]:
        """With ``table_every_ms``: the watch's tables to the end (then the end is told again
        in ``queue``, for the events that follow it); without: nothing."""
        if request.table_every_ms <= 0:
            return
        every_s = request.table_every_ms / 1000
        async for table in tables(
            ref, queue, every_s, lambda: self._next_watched(ref, queue, context)
        ):
            yield table
        queue.put_nowait(None)

    async def _next_watched(self, ref: Referee, queue: asyncio.Queue[Any], context: Any) -> Any:
        """The next public event; a watch of a match that never starts does not wait forever."""
        if ref.status != "waiting":
            return await queue.get()
        grace = self.arena.limits.watch_waiting_grace_s
        wait = ref.started_at + ref.policy.startup_ms / 1000 + grace - ref.clock()
        try:
            return await asyncio.wait_for(queue.get(), max(wait, 0.01))
        except TimeoutError:
            if ref.status != "waiting" or not queue.empty():
                return await queue.get()
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"match {ref.match_id} never started"
            )
