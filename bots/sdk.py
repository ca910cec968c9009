"""Play a bot over gRPC: the same ``act(view, legal)`` that plays in-process.

    LEVATA_TOKEN=SECRET levata bot run heuristic --game whist --server localhost:50051

The client says Hello, then for every match the referee seats it in keeps the events it is
sent (so the view it hands the bot has the full history, exactly as in-process) and answers
each DecisionRequest with the index of the bot's action. It asks for batched events
(``Hello.batch_events``): they come inside requests and match ends, fewer messages to read;
and for bundles (``Hello.bundle``): what the referee has ready for it comes as one message,
and the answers to a bundle's requests go back as one (``ReplyBundle``).
If the stream breaks it reconnects with its resume token and the last event it saw, within
``reconnect_s``. A referee that is busy (``RESOURCE_EXHAUSTED``: too many streams without
Hello, this bot's streams all open, a full referee) is asked again after a jittered
exponential backoff (:class:`Backoff`), for connecting and for Hello alike, until
``busy_s`` has passed since the first refusal.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc

from levata.bots.base import Bot, as_bot
from levata.bots.clock import asked, waited_ms
from levata.engine import Action, Event
from levata.v1 import arena_pb2, arena_pb2_grpc, game_pb2
from levata.wire.codec import (
    action_from_pb,
    action_to_pb,
    event_from_pb,
    lazy_view_from_pb,
    options_from_pb,
)

__all__ = ["PROTOCOL_VERSION", "Backoff", "BotClient", "MatchSession"]

PROTOCOL_VERSION = "1"
#: Answers to a bundle's requests go out together, but none waits longer than this for the
#: rest of the bundle to be decided (its clock runs): seconds.
REPLY_HOLD_S = 0.002
log = logging.getLogger("levata.bots.sdk")


class Backoff:
    """Waits before asking a busy referee again: exponential from ``first`` (doubling, at
    most ``most``), each wait drawn uniformly between half of it and all of it (bots refused
    together do not come back together), from a seeded generator, and never past
    ``deadline`` (a ``loop.time()``; ``None`` when there is no time left).

    >>> b = Backoff(seed=1, first=0.1, most=1.0)
    >>> waits = [b.next(now=0.0, deadline=100.0) for _ in range(6)]
    >>> all(0.05 <= w <= 1.0 for w in waits), waits[-1] > waits[0]
    (True, True)
    >>> b.next(now=99.75, deadline=100.0) <= 0.25, b.next(now=100.0, deadline=100.0)
    (True, None)
    """

    def __init__(self, seed: int | str = 0, first: float = 0.05, most: float = 2.0) -> None:
        self._rng = random.Random(seed)
        self.first, self.most = first, most
        self.tries = 0

    def next(self, now: float, deadline: float) -> float | None:
        """The next wait in seconds, or ``None`` when the deadline has passed."""
        if now >= deadline:
            return None
        cap = min(self.most, self.first * 2**self.tries)
        self.tries += 1
        return min(deadline - now, self._rng.uniform(cap / 2, cap))

    def reset(self) -> None:
        """A stream was welcomed: the next refusal starts from ``first`` again."""
        self.tries = 0


BotFactory = Callable[[str, int, str], Bot]
"""Makes the bot for one match: ``factory(game, seat, name)``, ``name`` the match's label
(``MatchStart.label``) when its creator gave one, else its id: what a bot seeds from, so that
a match created again with the same label and seed is played alike."""


@dataclass
class MatchSession:
    """What the client knows of one match."""

    match_id: str
    game: str
    seat: int
    bot: Bot
    #: The match's rule options (typed), from ``MatchStart``: every view carries them.
    options: dict[str, Any] = field(default_factory=dict)
    last_seq: int = -1
    result: arena_pb2.MatchEnd | None = None
    received: list[game_pb2.Event] = field(default_factory=list)  # as sent, in order
    _decoded: list[Event] = field(default_factory=list, repr=False)

    @property
    def history(self) -> list[Event]:
        """The events received so far, decoded when first asked for (a bot that never reads
        its view's history costs no decoding)."""
        for ev in self.received[len(self._decoded) :]:
            self._decoded.append(event_from_pb(ev))
        return self._decoded

    def absorb(self, events: Iterable[game_pb2.Event]) -> None:
        """Keep the events not seen yet (a resumed stream may repeat some), in order."""
        for ev in events:
            if ev.seq > self.last_seq:
                kept = game_pb2.Event()
                kept.CopyFrom(ev)  # a copy: a part of a message would keep all of it alive
                self.received.append(kept)
                self.last_seq = ev.seq


class BotClient:
    """Connects one bot to a referee and plays until told to stop."""

    def __init__(  # noqa: PLR0913  (the SDK's public options, each a keyword with a default)
        self,
        factory: BotFactory,
        server: str,
        token: str,
        name: str = "",
        games: tuple[str, ...] = (),
        tls_ca: bytes | None = None,
        max_matches: int | None = None,
        reconnect_s: float = 10.0,
        on_message: Callable[[arena_pb2.PlayResponse], None] | None = None,
        decider: Decider | None = None,
        batch_events: bool = True,
        bundle: bool = True,
        busy_s: float = 60.0,
    ) -> None:
        self.factory = factory
        self.server = server
        self.token = token
        self.name = name
        self.games = games
        self.tls_ca = tls_ca
        self.max_matches = max_matches
        self.reconnect_s = reconnect_s
        self.on_message = on_message
        self.decider = decider or decide_with_bot
        self.batch_events = batch_events
        self.bundle = bundle
        #: How long a busy referee (RESOURCE_EXHAUSTED) is asked again, with :class:`Backoff`.
        self.busy_s = busy_s
        self.backoff = Backoff(seed=f"{name}/{token[:8]}")  # jitter differs between bots
        #: Per seat of each match: one connection may hold several seats of one match.
        self.sessions: dict[tuple[str, int], MatchSession] = {}
        self.finished: list[MatchSession] = []
        self.resume_token = ""
        self._welcomed = False  # a Welcome came on the current stream
        self._out: asyncio.Queue[arena_pb2.PlayRequest | None] | None = None
        #: Replies decided while handling one message from the stream, sent together after it.
        self._replies: list[arena_pb2.ActionReply] = []
        #: Requests of the bundle being read that a later one of it replaces: left unanswered.
        self._replaced: set[str] = set()

    def _channel(self) -> grpc.aio.Channel:
        if self.tls_ca is not None:
            return grpc.aio.secure_channel(self.server, grpc.ssl_channel_credentials(self.tls_ca))
        return grpc.aio.insecure_channel(self.server)

    async def run(self) -> list[MatchSession]:
        """Play until ``max_matches`` matches ended or the server closes the stream."""
        deadline = busy_until = None
        while True:
            try:
                await self._stream()
                return self.finished
            except grpc.aio.AioRpcError as exc:
                if exc.code() in (
                    grpc.StatusCode.UNAUTHENTICATED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    raise
                loop = asyncio.get_running_loop()
                if self._welcomed:  # the stream that broke was a good one: a fresh allowance
                    deadline = busy_until = None
                    self._welcomed = False
                    self.backoff.reset()
                if exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:  # busy: ask again later
                    busy_until = busy_until or loop.time() + self.busy_s
                    wait = self.backoff.next(loop.time(), busy_until)
                    if wait is None:
                        raise
                    log.warning("referee busy (%s); asking again in %.2f s", exc.details(), wait)
                    await asyncio.sleep(wait)
                    continue
                deadline = deadline or loop.time() + self.reconnect_s
                if loop.time() > deadline:
                    raise
                log.warning("stream lost (%s); reconnecting", exc.code().name)
                await asyncio.sleep(0.2)

    def _hello(self) -> arena_pb2.PlayRequest:
        return arena_pb2.PlayRequest(
            hello=arena_pb2.Hello(
                token=self.token,
                name=self.name,
                protocol_version=PROTOCOL_VERSION,
                games=list(self.games),
                resume_token=self.resume_token,
                last_seen=self._last_seen(),
                batch_events=self.batch_events,
                bundle=self.bundle,
            )
        )

    async def _stream(self) -> None:
        out: asyncio.Queue[arena_pb2.PlayRequest | None] = asyncio.Queue()
        self._out = out
        out.put_nowait(self._hello())

        async def outgoing():
            while (msg := await out.get()) is not None:
                yield msg

        async with self._channel() as channel:
            call = arena_pb2_grpc.ArenaServiceStub(channel).Play(outgoing())
            async for msg in call:
                done = False
                if msg.WhichOneof("message") == "bundle":
                    # a referee that bundles takes the answers to a bundle as one, too
                    since = time.perf_counter()
                    self._replaced = replaced_requests(msg.bundle.messages)
                    for part in msg.bundle.messages:
                        if done:  # the rest of a bundle after our last match is not ours
                            break
                        done = self._take(part)
                        if self._replies and time.perf_counter() - since > REPLY_HOLD_S:
                            self._send_replies(bundled=True)
                            await asyncio.sleep(0)  # the writer sends them now
                            since = time.perf_counter()
                    self._send_replies(bundled=True)
                else:
                    self._replaced = set()
                    done = self._take(msg)
                    self._send_replies(bundled=False)
                if done:
                    out.put_nowait(None)
                    call.cancel()
                    return

    def _take(self, msg: arena_pb2.PlayResponse) -> bool:
        if self.on_message is not None:
            self.on_message(msg)
        return self._handle(msg)

    def _send_replies(self, bundled: bool) -> None:
        """Send the replies decided for one message from the stream: one ``ReplyBundle``
        for several answers to a bundle (only a referee that bundles is sent one)."""
        replies, self._replies = self._replies, []
        if bundled and len(replies) > 1:
            self.send(arena_pb2.PlayRequest(replies=arena_pb2.ReplyBundle(replies=replies)))
        else:
            for reply in replies:
                self.send(arena_pb2.PlayRequest(reply=reply))

    def send(self, msg: arena_pb2.PlayRequest) -> None:
        """Queue a raw message on the current stream (tests use it to misbehave)."""
        assert self._out is not None
        self._out.put_nowait(msg)

    def _last_seen(self) -> dict[str, int]:
        """Per match, the last event seen: the least over its seats (a resumed seat's
        repeats are dropped by :meth:`MatchSession.absorb`)."""
        seen: dict[str, int] = {}
        for (match_id, _), s in self.sessions.items():
            seen[match_id] = min(seen.get(match_id, s.last_seq), s.last_seq)
        return seen

    def session(self, match_id: str, seat: int) -> MatchSession | None:
        """The session of ``seat`` in ``match_id``; a referee that names no seat (before
        protocol ``seat`` fields) means the connection's only seat of that match."""
        found = self.sessions.get((match_id, seat))
        if found is None:
            mine = [v for (m, _), v in self.sessions.items() if m == match_id]
            found = mine[0] if len(mine) == 1 else None
        return found

    def _handle(self, msg: arena_pb2.PlayResponse) -> bool:
        """Handle one message; True when the client is done."""
        kind = msg.WhichOneof("message")
        if kind == "welcome":
            self.resume_token = msg.welcome.resume_token
            self._welcomed = True
        elif kind == "match_start":
            self._open_session(msg.match_start)
        elif kind == "event":
            session = self.session(msg.event.match_id, msg.event.seat)
            if session is not None:
                session.absorb((msg.event.event,))
        elif kind == "request":
            session = self.session(msg.request.match_id, msg.request.seat)
            if session is not None and msg.request.events:
                session.absorb(msg.request.events)
            if msg.request.request_id not in self._replaced:  # else its answer would be stale
                self._decide(msg.request)
        elif kind == "error" and msg.error.code == arena_pb2.REPLY_ERROR_CODE_SUSPENDED:
            # Not about a reply: the referee cannot record, so the match waits, clocks stopped.
            log.warning("%s (match %s)", msg.error.message, msg.error.match_id)
        elif kind == "error":
            log.warning(
                "reply refused: %s %s",
                arena_pb2.ReplyErrorCode.Name(msg.error.code),
                msg.error.message,
            )
        elif kind == "match_end":
            return self._close_session(msg.match_end)
        return False

    def _open_session(self, s: arena_pb2.MatchStart) -> None:
        """A match starts (or a resumed stream says it again): a session and its bot."""
        if (s.match_id, s.seat) not in self.sessions:
            made = self.factory(s.game, s.seat, s.label or s.match_id)
            bot = made if made is None else as_bot(made)  # a function too; the bridge: none
            options = options_from_pb(s.game, s.options)
            self.sessions[(s.match_id, s.seat)] = MatchSession(
                s.match_id, s.game, s.seat, bot, options
            )

    def _close_session(self, end: arena_pb2.MatchEnd) -> bool:
        """A seat's match ended; True when the client has played its ``max_matches``."""
        session = self.session(end.match_id, end.seat)
        if session is not None:
            del self.sessions[(session.match_id, session.seat)]
            session.absorb(end.events)
            session.result = end
            self.finished.append(session)
        ended = {s.match_id for s in self.finished}  # a match, however many seats
        held = any(m == end.match_id for m, _ in self.sessions)
        return self.max_matches is not None and len(ended) >= self.max_matches and not held

    def _decide(self, req: arena_pb2.DecisionRequest) -> None:
        session = self.session(req.match_id, req.seat)
        if session is None:
            return
        reply = self.decider(req, session)
        if reply is None:  # the decider sends its reply later by itself (the JSON bridge)
            return
        reply.match_id, reply.request_id = req.match_id, req.request_id
        reply.state_version = req.state_version
        self._replies.append(reply)


Decider = Callable[[arena_pb2.DecisionRequest, MatchSession], arena_pb2.ActionReply | None]
"""Turns a request into a reply; the client fills in the match, request id and version.
``None``: no reply now (the decider sends one itself later, with :meth:`BotClient.send`)."""


def decide_with_bot(req: arena_pb2.DecisionRequest, session: MatchSession) -> arena_pb2.ActionReply:
    """Ask the session's bot with the full view (the events received so far as history),
    decoded only if the bot reads it."""
    seen = len(session.received)
    view = lazy_view_from_pb(req.view, lambda: session.history[:seen], session.options)
    legal = [_decoded_action(la.action) for la in req.legal]
    with asked(time.perf_counter() - request_wait_s(req)):  # its clock runs from the sending
        action = session.bot.act(view, legal)
    reply = arena_pb2.ActionReply()
    if action in legal and not req.realtime:
        reply.index = legal.index(action)
    else:  # let the referee say why it is wrong; in real time the request may be replaced
        # before the reply lands, and only the action itself still counts then
        reply.action.CopyFrom(action_to_pb(action))
    return reply


def replaced_requests(messages: Iterable[arena_pb2.PlayResponse]) -> set[str]:
    """The requests of a bundle that a later request of the bundle, for the same seat of the
    same match, replaces (real time: another seat moved first): answering them would only be
    refused as stale, and a fast bot's stale answers use up its allowance of refusals.

    >>> def ask(rid, seat):
    ...     return arena_pb2.PlayResponse(
    ...         request=arena_pb2.DecisionRequest(match_id="m", request_id=rid, seat=seat)
    ...     )
    >>> sorted(replaced_requests([ask("a", 0), ask("b", 1), ask("c", 0)]))
    ['a']
    """
    last: dict[tuple[str, int], str] = {}
    every: list[str] = []
    for m in messages:
        if m.WhichOneof("message") == "request":
            last[(m.request.match_id, m.request.seat)] = m.request.request_id
            every.append(m.request.request_id)
    kept = set(last.values())
    return {rid for rid in every if rid not in kept}


def request_wait_s(req: arena_pb2.DecisionRequest) -> float:
    """Seconds since the referee sent ``req`` (its ``deadline`` less ``time_left_ms``), by
    this machine's clock; 0 for a request without a clock or clocks that disagree.

    >>> req = arena_pb2.DecisionRequest(time_left_ms=2000)
    >>> req.deadline.FromMilliseconds(int(time.time() * 1000) + 1700)  # sent 300 ms ago
    >>> 0.29 <= request_wait_s(req) < 0.5, request_wait_s(arena_pb2.DecisionRequest())
    (True, 0.0)
    """
    if req.time_left_ms <= 0 or not req.HasField("deadline"):
        return 0.0
    sent_ms = req.deadline.ToMilliseconds() - req.time_left_ms
    return waited_ms(sent_ms, req.time_left_ms, time.time() * 1000) / 1000


#: Legal actions already decoded, by their encoding: a game has few distinct actions, and
#: equal bytes decode to equal actions.
_DECODED: dict[bytes, Action] = {}
_DECODED_MAX = 4096


def _decoded_action(msg: game_pb2.Action) -> Action:
    key = msg.SerializeToString(deterministic=True)
    action = _DECODED.get(key)
    if action is None:
        if len(_DECODED) >= _DECODED_MAX:
            _DECODED.clear()
        action = _DECODED[key] = action_from_pb(msg)
    return action


def run_client(client: BotClient, main: Coroutine[Any, Any, Any] | None = None) -> int:
    """Run a client to the end (or ``main``, a coroutine that runs it); exit status 0, or 1
    with one line on stderr."""
    try:
        asyncio.run(main if main is not None else client.run())
    except grpc.aio.AioRpcError as exc:
        print(f"error: {exc.code().name.lower()}: {exc.details()}", file=sys.stderr)
        return 1
    except RuntimeError as exc:  # e.g. a bridged program that died
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
