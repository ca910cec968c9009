"""What the referee tells the seats of a match, encoded once: requests, events, the start
and the end, refusals.

The referee's hottest path: a seat's view and the events are written straight to the wire
format (:mod:`levata.wire.encode`) and concatenated into the message's bytes, an event once
however many seats receive it. A request is encoded but for its clock (:class:`EncodedRequest`),
which the connection's writer fills in as it hands the request to gRPC.

A connection that said ``Hello.batch_events`` gets its seats' events inside its requests and
its ``MatchEnd`` (see :mod:`levata.server.match.referee`): at most :data:`BATCH_MAX_EVENTS`
wait, and none waits longer than its seat's lag.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from levata.engine import Event, GameSpec, GameState
from levata.server.match.clocks import Policy
from levata.server.match.seats import Outbox, Seat, Turn
from levata.v1 import arena_pb2, game_pb2
from levata.wire.codec import event_bytes, field_bytes, legal_bytes, view_bytes
from levata.wire.encode import request_clock

__all__ = ["BATCH_MAX_EVENTS", "Encoded", "EncodedRequest", "Messages"]

E = arena_pb2.ReplyErrorCode

#: Batched events wait at most their seat's lag (:func:`~levata.server.match.seats.batch_lag`)
#: and at most this many of them, which bounds a request's size.
BATCH_MAX_EVENTS = 256


class Messages:
    """The referee's messages to the seats (a part of
    :class:`~levata.server.match.referee.Referee`)."""

    match_id: str
    label: str
    spec: GameSpec
    options: dict[str, Any]
    policy: Policy
    clock: Callable[[], float]
    state: GameState
    seats: list[Seat]
    watchers: list[asyncio.Queue[Any]]
    _event_bytes: dict[int, bytes]

    if TYPE_CHECKING:  # the other parts of the referee's

        def _start(self, turn: Turn, now: float) -> None: ...
        def _hold(self, send: Callable[..., None], *args: Any) -> None: ...

    def _send_request(self, i: int) -> None:
        """Send seat ``i`` its pending request (a batching seat's unsent events inside it)."""
        seat = self.seats[i]
        p = seat.pending
        if seat.outbox is None or p is None:
            return
        if not seat.batch:
            self._send_events(i)
        head = arena_pb2.DecisionRequest(
            match_id=self.match_id,
            request_id=p.request_id,
            state_version=p.version,
            seat=i,
            bank_left_ms=int(seat.bank_ms),
            realtime=self.state.realtime,
        )
        parts = [
            head.SerializeToString(),
            field_bytes(5, view_bytes(self.state.view(i, history=False))),
            legal_bytes(p.legal),
        ]
        if seat.batch:
            parts += [self._event_field(ev) for ev in self._take_events(i)]
        req = EncodedRequest(b"".join(parts))  # the writer fills in its clock
        seat.outbox(req, partial(self._written, p.turn, req))

    def _event_field(self, ev: Event) -> bytes:
        """An event as an entry of ``DecisionRequest.events``."""
        return field_bytes(11, self._encoded_event(ev))

    def _written(self, turn: Turn, req: EncodedRequest) -> None:
        """The connection's writer hands ``req`` to gRPC now: the seat's clock starts (if this
        is the turn's first request written) and the request says truly how long is left."""
        now = self.clock()
        if turn.started_at is None:
            self._start(turn, now)
        req.time_left_ms = max(0, int((turn.deadline - now) * 1000))
        req.deadline_ms = int(time.time() * 1000) + req.time_left_ms

    def _send_events(self, i: int) -> None:
        """Send seat ``i`` the events it may see and was not sent yet; a batching seat's wait
        for its next request or end (or its lag, or :data:`BATCH_MAX_EVENTS`)."""
        seat = self.seats[i]
        if seat.outbox is None:
            return
        if seat.batch:
            waiting = self.state.event_count() - 1 - seat.sent_seq
            if waiting > BATCH_MAX_EVENTS:
                self._flush_events(i)
            elif waiting and seat.unsent_since is None:
                seat.unsent_since = self.clock()
            return
        self._flush_events(i)

    def _flush_events(self, i: int) -> None:
        """Send seat ``i``'s unsent events now, one ``MatchEvent`` each."""
        seat = self.seats[i]
        if seat.outbox is None:
            seat.unsent_since = None  # nothing to send them on: a reconnect catches up
            return
        for ev in self.state.events(since=seat.sent_seq + 1, seat=i):
            seat.outbox(self._event_message(ev, i))
        seat.sent_seq, seat.unsent_since = self.state.event_count() - 1, None

    def _take_events(self, i: int) -> list[Event]:
        """A batching seat's unsent events, counted as sent: they ride in its next message."""
        seat = self.seats[i]
        evs = self.state.events(since=seat.sent_seq + 1, seat=i)
        seat.sent_seq, seat.unsent_since = self.state.event_count() - 1, None
        return evs

    def _event_message(self, ev: Event, seat: int) -> Encoded:
        """The message for one event to one seat (it names the seat: a connection may hold
        several), the event encoded once however many seats receive it."""
        head = arena_pb2.MatchEvent(match_id=self.match_id, seat=seat).SerializeToString()
        body = head + field_bytes(2, self._encoded_event(ev))  # MatchEvent.event
        return Encoded(field_bytes(3, body))  # PlayResponse.event

    def _encoded_event(self, ev: Event) -> bytes:
        """One event encoded, once however many seats receive it."""
        data = self._event_bytes.get(ev.seq)
        if data is None:
            if len(self._event_bytes) > 512:  # keep only what a seat may still be sent soon
                oldest = min(s.sent_seq for s in self.seats)
                self._event_bytes = {k: v for k, v in self._event_bytes.items() if k > oldest}
            data = self._event_bytes[ev.seq] = event_bytes(ev)
        return data

    def _send_start(self, i: int) -> None:
        seat = self.seats[i]
        if seat.outbox is None:
            return
        seat.outbox(
            arena_pb2.PlayResponse(
                match_start=arena_pb2.MatchStart(
                    match_id=self.match_id,
                    game=self.spec.name,
                    seat=i,
                    players=len(self.seats),
                    options={k: str(v) for k, v in self.options.items()},
                    seat_bots=[s.bot for s in self.seats],
                    policy=self.policy.to_pb(),
                    label=self.label,
                )
            )
        )
        self._send_events(i)

    def _tell_end(self, result: game_pb2.MatchResult) -> None:
        """Every seat's last events and the MatchEnd (a batching seat's events inside it),
        and the watchers' end (held)."""
        outcome = field_bytes(2, result.SerializeToString())  # MatchEnd.result, encoded once
        for i, seat in enumerate(self.seats):
            if seat.outbox is None:
                continue
            if not seat.batch:
                self._send_events(i)
            head = arena_pb2.MatchEnd(match_id=self.match_id, seat=i).SerializeToString()
            events = (
                [field_bytes(3, event_bytes(e)) for e in self._take_events(i)] if seat.batch else []
            )
            body = b"".join([head, outcome, *events])
            seat.outbox(Encoded(field_bytes(7, body)))  # PlayResponse.match_end
        for q in self.watchers:
            self._hold(q.put_nowait, None)

    def _error(self, outbox: Outbox, msg: arena_pb2.ActionReply, code: E, why: str) -> None:
        outbox(
            arena_pb2.PlayResponse(
                error=arena_pb2.ReplyError(
                    match_id=msg.match_id, request_id=msg.request_id, code=code, message=why
                )
            )
        )


class Encoded:
    """A ``PlayResponse`` already encoded, for a connection's writer (which asks each message
    for ``SerializeToString``)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def SerializeToString(self) -> bytes:  # the name gRPC's serializer calls
        return self.data


class EncodedRequest:
    """A ``PlayResponse`` with a ``DecisionRequest``, encoded but for its clock: the writer
    sets ``time_left_ms`` and ``deadline_ms`` as it hands it to gRPC, and gRPC serializes it
    (``SerializeToString``) like a message.

    >>> req = EncodedRequest(arena_pb2.DecisionRequest(request_id="r1").SerializeToString())
    >>> req.time_left_ms, req.deadline_ms = 1500, 1_700_000_000_000
    >>> msg = arena_pb2.PlayResponse.FromString(req.SerializeToString())
    >>> msg.request.request_id, msg.request.time_left_ms, msg.request.deadline.seconds
    ('r1', 1500, 1700000000)
    """

    __slots__ = ("body", "deadline_ms", "time_left_ms")

    def __init__(self, body: bytes) -> None:
        self.body = body  # every field of the request but the two below
        self.time_left_ms = 0
        self.deadline_ms = 0

    def SerializeToString(self) -> bytes:  # the name gRPC's serializer calls
        clock = request_clock(self.time_left_ms, self.deadline_ms)
        return field_bytes(4, self.body + clock)  # PlayResponse.request
