"""The referee of one match: asks seats to act, keeps their clocks, judges their replies.

Everything that changes a match happens in one asyncio task (:meth:`Referee.run`), fed by
a queue: replies, connections and disconnections are put on it by the arena. One consumer
means no locks and a deterministic order of effects.

Policies (per match, :class:`Policy`):

* **Clocks** are the server's. A request's deadline is ``move_ms`` plus the seat's bank left;
  time over ``move_ms`` comes out of the bank. The deadline is enforced while waiting.
* **Faults are messages.** A malformed, stale, misaddressed or illegal reply gets a
  ``ReplyError`` and changes nothing; the seat may retry until its deadline. At the deadline
  the referee plays a default move drawn from the match's own substitute stream (seeded from
  the match seed, apart from the cards' stream) and counts a strike; ``max_strikes`` strikes
  forfeit the match.
* **Disconnects.** A seat whose bot drops may resume within ``resume_window_ms`` (it gets the
  events it missed and any pending request with the time it has left); after the window its
  seat is forfeited. Its clock keeps running meanwhile.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from levata.bots.wire import action_from_pb, action_to_pb, event_to_pb, result_to_pb, view_to_pb
from levata.engine import Action, GameSpec, GameState, IllegalAction, Result
from levata.engine.contract import ranks_from_scores
from levata.engine.seeds import derive
from levata.server.store import Store
from levata.v1 import arena_pb2, game_pb2

__all__ = ["Outbox", "Policy", "Referee"]

Outbox = Callable[[arena_pb2.PlayResponse], None]
"""Where messages for one connection go: a non-blocking put on that connection's queue."""

E = arena_pb2.ReplyErrorCode

#: Real-time games: after a seat's action changed nothing (a pass), its next request waits
#: for news or this long, so a waiting bot does not spin the referee.
REALTIME_IDLE_S = 0.1


@dataclass(frozen=True)
class Policy:
    """Clocks and fault policy of a match (milliseconds)."""

    move_ms: int = 2_000
    bank_ms: int = 20_000
    startup_ms: int = 30_000
    max_strikes: int = 3
    resume_window_ms: int = 10_000

    def overlay(self, msg: arena_pb2.MatchPolicy | None) -> Policy:
        """This policy with the fields ``msg`` sets in place."""
        if msg is None:
            return self
        changes = {f: getattr(msg, f) for f in asdict(self) if msg.HasField(f)}
        return Policy(**{**asdict(self), **changes})

    def to_pb(self) -> arena_pb2.MatchPolicy:
        return arena_pb2.MatchPolicy(**asdict(self))


@dataclass
class Pending:
    """An outstanding decision request of one seat."""

    request_id: str
    seat: int
    version: int
    legal: list[Action]
    sent_at: float
    deadline: float


@dataclass
class Seat:
    """One seat: its bot, connection, clock and record."""

    bot: str
    outbox: Outbox | None = None
    bank_ms: float = 0.0
    strikes: int = 0
    pending: Pending | None = None
    superseded: set[str] = field(default_factory=set)
    retired: deque[str] = field(default_factory=lambda: deque(maxlen=64))  # answered ids
    idle_until: float = 0.0  # real-time: after a no-op, wait for news or this moment
    idle_version: int = -1
    sent_seq: int = -1  # last event sequence number sent to this seat
    gone_since: float | None = None  # when the connection dropped
    ever_connected: bool = False


@dataclass
class _Reply:
    seat_hint: frozenset[int]  # the seats the replying connection holds in this match
    msg: arena_pb2.ActionReply
    outbox: Outbox


@dataclass
class _Attach:
    seat: int
    outbox: Outbox
    last_seen: int | None


@dataclass
class _Detach:
    seat: int
    outbox: Outbox


class Referee:
    """Runs one match between connected bots."""

    def __init__(
        self,
        match_id: str,
        spec: GameSpec,
        players: int,
        options: dict[str, Any],
        seed: int,
        seat_bots: list[str],
        policy: Policy,
        store: Store,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.match_id = match_id
        self.spec = spec
        self.options = options
        self.seed = seed
        self.policy = policy
        self.store = store
        self.clock = clock
        self.state: GameState = spec.new_match(players=players, options=options, seed=seed)
        self.seats = [Seat(bot=b, bank_ms=policy.bank_ms) for b in seat_bots]
        self.substitutes = random.Random(derive(seed, "substitute"))  # never the cards' stream
        self.version = 0
        self.applied = 0
        self.status = "waiting"
        self.result: Result | None = None
        self.forfeited: list[int] = []
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.started_at = clock()
        self.done = asyncio.Event()
        self.watchers: list[asyncio.Queue[Any]] = []
        self._stored_seq = 0
        self._encoded: dict[int, arena_pb2.PlayResponse] = {}
        self._store_events()

    # -- what the arena calls (never blocks; the run task does the work) --------------------

    def attach(self, seat: int, outbox: Outbox, last_seen: int | None = None) -> None:
        self.inbox.put_nowait(_Attach(seat, outbox, last_seen))

    def detach(self, seat: int, outbox: Outbox) -> None:
        self.inbox.put_nowait(_Detach(seat, outbox))

    def reply(self, seats: frozenset[int], msg: arena_pb2.ActionReply, outbox: Outbox) -> None:
        self.inbox.put_nowait(_Reply(seats, msg, outbox))

    # -- the match loop -------------------------------------------------------------------------

    async def run(self) -> None:
        try:
            await self._startup()
            while self.status == "running":
                self._ask()
                timeout = self._next_wakeup() - self.clock()
                try:
                    item = await self._next_item(timeout)
                except TimeoutError:
                    item = None
                if item is not None:
                    self._handle(item)
                self._expire()
                self.store.flush()
        finally:
            if self.status in ("waiting", "running"):
                self._abort("the referee stopped")
            self.done.set()

    async def _startup(self) -> None:
        deadline = self.started_at + self.policy.startup_ms / 1000
        while not all(s.outbox for s in self.seats):
            try:
                item = await self._next_item(deadline - self.clock())
            except TimeoutError:
                break
            if isinstance(item, _Attach):
                seat = self.seats[item.seat]
                seat.outbox, seat.ever_connected = item.outbox, True
                seat.sent_seq = -1
            elif isinstance(item, _Detach) and self.seats[item.seat].outbox == item.outbox:
                self.seats[item.seat].outbox = None
            elif isinstance(item, _Reply):
                self._error(
                    item.outbox,
                    item.msg,
                    E.REPLY_ERROR_CODE_UNKNOWN_REQUEST,
                    "the match has not started",
                )
        absent = [i for i, s in enumerate(self.seats) if s.outbox is None]
        self.status = "running"
        self.store.set_status(self.match_id, "running")
        self.started_at = self.clock()
        for i in range(len(self.seats)):
            self._send_start(i)
        if absent:
            self._forfeit(absent, "did not connect within the start-up allowance")

    async def _next_item(self, timeout: float) -> Any:
        """The next inbox item, waiting at most ``timeout`` seconds (TimeoutError after).

        An item already queued is taken even when no time is left (``wait_for`` with a zero
        timeout would give up before the queue is even read)."""
        if not self.inbox.empty():
            return self.inbox.get_nowait()
        if timeout <= 0:
            raise TimeoutError
        return await asyncio.wait_for(self.inbox.get(), timeout)

    def _clock_ms(self) -> int:
        return int((self.clock() - self.started_at) * 1000)

    def _next_wakeup(self) -> float:
        times = [s.pending.deadline for s in self.seats if s.pending is not None]
        window = self.policy.resume_window_ms / 1000
        times += [s.gone_since + window for s in self.seats if s.gone_since is not None]
        if self.state.realtime:
            times.append(self.clock() + 0.05)  # real-time stall timers need a heartbeat
            times += [s.idle_until for s in self.seats if s.idle_until > self.clock()]
        return min(times, default=self.clock() + 3600)

    # -- asking ---------------------------------------------------------------------------------

    def _ask(self) -> None:
        """Send a request to every seat that must act and has no valid one outstanding."""
        if self.state.realtime:
            self._tick_clock()
        if self.status != "running":
            return
        for i in self.state.to_act():
            seat = self.seats[i]
            legal = self.state.legal_actions(i)
            p = seat.pending
            if p is not None and p.legal == legal and not self.state.realtime:
                continue  # still valid: what the seat may do has not changed
            if p is not None and self.state.realtime and p.version == self.version:
                continue
            if p is None and seat.idle_version == self.version and seat.idle_until > self.clock():
                continue  # real-time: it just did nothing; ask again on news or a moment later
            self._request(i, legal, keep_clock=p)

    def _request(self, i: int, legal: list[Action], keep_clock: Pending | None) -> None:
        seat = self.seats[i]
        now = self.clock()
        if keep_clock is not None:  # a superseded request keeps its deadline
            seat.superseded.add(keep_clock.request_id)
            sent_at, deadline = keep_clock.sent_at, keep_clock.deadline
        else:
            sent_at = now
            deadline = now + (self.policy.move_ms + seat.bank_ms) / 1000
        seat.pending = Pending(uuid.uuid4().hex[:12], i, self.version, legal, sent_at, deadline)
        self._send_request(i)

    def _send_request(self, i: int) -> None:
        seat = self.seats[i]
        p = seat.pending
        if seat.outbox is None or p is None:
            return
        self._send_events(i)
        left_ms = max(0, int((p.deadline - self.clock()) * 1000))
        req = arena_pb2.DecisionRequest(
            match_id=self.match_id,
            request_id=p.request_id,
            state_version=p.version,
            seat=i,
            view=view_to_pb(self.state.view(i, history=False), with_history=False),
            legal=[
                game_pb2.LegalAction(index=k, action=action_to_pb(a)) for k, a in enumerate(p.legal)
            ],
            time_left_ms=left_ms,
            bank_left_ms=int(seat.bank_ms),
            realtime=self.state.realtime,
        )
        req.deadline.FromMilliseconds(int(time.time() * 1000) + left_ms)
        seat.outbox(arena_pb2.PlayResponse(request=req))

    # -- judging replies ------------------------------------------------------------------------

    def _handle(self, item: Any) -> None:
        if isinstance(item, _Attach):
            self._on_attach(item)
        elif isinstance(item, _Detach):
            seat = self.seats[item.seat]
            if seat.outbox == item.outbox:
                seat.outbox, seat.gone_since = None, self.clock()
        elif isinstance(item, _Reply):
            self._on_reply(item)

    def _on_reply(self, item: _Reply) -> None:
        msg = item.msg
        owner = self._owner(msg.request_id)
        if owner is None:
            self._reject(
                item,
                None,
                E.REPLY_ERROR_CODE_UNKNOWN_REQUEST,
                f"no request {msg.request_id!r} is waiting in this match",
            )
            return
        seat, standing = owner
        if standing == "answered":
            self._reject(
                item,
                seat,
                E.REPLY_ERROR_CODE_STALE_VERSION,
                f"request {msg.request_id} was already settled",
            )
            return
        current = standing == "current"
        if seat not in item.seat_hint:
            self._reject(
                item,
                seat,
                E.REPLY_ERROR_CODE_WRONG_SEAT,
                f"request {msg.request_id} belongs to seat {seat}, not yours",
            )
            return
        p = self.seats[seat].pending
        assert p is not None
        if not current and not self.state.realtime:
            self._reject(
                item,
                seat,
                E.REPLY_ERROR_CODE_STALE_VERSION,
                f"request {msg.request_id} was replaced by {p.request_id}",
            )
            return
        if current and msg.state_version != p.version:
            self._reject(
                item,
                seat,
                E.REPLY_ERROR_CODE_STALE_VERSION,
                f"state version {msg.state_version} is not {p.version}",
            )
            return
        action, problem = self._chosen(msg, p)
        if action is None:
            code = (
                E.REPLY_ERROR_CODE_MALFORMED
                if problem.startswith("malformed")
                else E.REPLY_ERROR_CODE_ILLEGAL_ACTION
            )
            self._reject(item, seat, code, problem)
            return
        latency = (self.clock() - p.sent_at) * 1000
        self.store.add_reply(
            self.match_id, msg.request_id, seat, msg.state_version, "applied", str(action), latency
        )
        over_ms = latency - self.policy.move_ms
        if over_ms > 0:
            self.seats[seat].bank_ms = max(0.0, self.seats[seat].bank_ms - over_ms)
        self._apply(seat, action, p.request_id, substituted=False)

    def _owner(self, request_id: str) -> tuple[int, str] | None:
        """The seat a request id belongs to, and its standing: ``current``, ``superseded``
        (replaced by a newer request) or ``answered`` (settled by an action already)."""
        for i, s in enumerate(self.seats):
            if s.pending is not None and s.pending.request_id == request_id:
                return i, "current"
            if request_id in s.superseded and s.pending is not None:
                return i, "superseded"
            if request_id in s.retired:
                return i, "answered"
        return None

    def _chosen(self, msg: arena_pb2.ActionReply, p: Pending) -> tuple[Action | None, str]:
        legal = self.state.legal_actions(p.seat)
        which = msg.WhichOneof("choice")
        if which == "index":
            if 0 <= msg.index < len(p.legal) and p.legal[msg.index] in legal:
                return p.legal[msg.index], ""
            return None, f"index {msg.index} is not one of 0..{len(p.legal) - 1}"
        if which == "action":
            try:
                action = action_from_pb(msg.action)
            except (ValueError, KeyError) as exc:
                return None, f"malformed action: {exc}"
            if action in legal:
                return action, ""
            return None, f"{action} is not legal now"
        return None, "malformed reply: it has neither an index nor an action"

    def _reject(self, item: _Reply, seat: int | None, code: int, why: str) -> None:
        self.store.add_reply(
            self.match_id,
            item.msg.request_id,
            seat,
            item.msg.state_version,
            E.Name(code).removeprefix("REPLY_ERROR_CODE_").lower(),
            why,
            None,
        )
        self._error(item.outbox, item.msg, code, why)

    def _error(self, outbox: Outbox, msg: arena_pb2.ActionReply, code: int, why: str) -> None:
        outbox(
            arena_pb2.PlayResponse(
                error=arena_pb2.ReplyError(
                    match_id=msg.match_id, request_id=msg.request_id, code=code, message=why
                )
            )
        )

    # -- applying -------------------------------------------------------------------------------

    def _apply(self, seat: int, action: Action, request_id: str, substituted: bool) -> None:
        now = self._clock_ms()  # one instant for the game, the record and a replay
        before = self.state.event_count()
        if self.state.realtime:
            self.state.advance_clock(now)
            if self.state.is_over():  # the clock ended the match before this action
                self._record_clock(now)
                return
        try:
            self.state.apply(seat, action)
        except IllegalAction:  # a real-time timer changed what is legal: a clock step
            self._record_clock(now)
            return
        self.store.add_action(
            self.match_id, self.applied, seat, str(action), now, substituted, request_id
        )
        self.applied += 1
        self.version += 1
        s = self.seats[seat]
        if s.pending is not None:
            s.retired.append(s.pending.request_id)
        s.retired.extend(s.superseded)
        s.pending = None
        s.superseded.clear()
        if self.state.realtime and self.state.event_count() == before:
            s.idle_until, s.idle_version = self.clock() + REALTIME_IDLE_S, self.version
        if s.outbox is not None:
            s.outbox(
                arena_pb2.PlayResponse(
                    applied=arena_pb2.ActionApplied(
                        match_id=self.match_id,
                        request_id=request_id,
                        seat=seat,
                        action=action_to_pb(action),
                        substituted=substituted,
                        strikes=s.strikes,
                        state_version=self.version,
                    )
                )
            )
        self._after_change()

    def _tick_clock(self) -> None:
        """Feed the referee's clock to a real-time game; record it if anything happened."""
        before = self.state.event_count()
        now = self._clock_ms()
        self.state.advance_clock(now)
        if self.state.event_count() != before or self.state.is_over():
            self._record_clock(now)

    def _record_clock(self, now: int) -> None:
        """A clock step changed the game: record it (replays feed it again) and tell all."""
        self.store.add_action(self.match_id, self.applied, None, None, now)
        self.applied += 1
        self.version += 1
        self._after_change()

    def _after_change(self) -> None:
        self._store_events()
        for i in range(len(self.seats)):
            self._send_events(i)
        if self.state.is_over():
            self._finish(self.state.result())

    def _store_events(self) -> None:
        new = self.state.events(since=self._stored_seq)
        self._stored_seq += len(new)
        self.store.add_events(self.match_id, new)
        for q in self.watchers:
            for ev in new:
                if ev.audience is None:
                    q.put_nowait(ev)

    def _send_events(self, i: int) -> None:
        seat = self.seats[i]
        if seat.outbox is None:
            return
        for ev in self.state.events(since=seat.sent_seq + 1, seat=i):
            seat.outbox(self._event_message(ev))
        seat.sent_seq = self.state.event_count() - 1

    def _event_message(self, ev: Any) -> arena_pb2.PlayResponse:
        """The message for one event, encoded once however many seats receive it."""
        msg = self._encoded.get(ev.seq)
        if msg is None:
            if len(self._encoded) > 512:  # keep only what a seat may still be sent soon
                oldest = min(s.sent_seq for s in self.seats)
                self._encoded = {k: v for k, v in self._encoded.items() if k > oldest}
            msg = arena_pb2.PlayResponse(
                event=arena_pb2.MatchEvent(match_id=self.match_id, event=event_to_pb(ev))
            )
            self._encoded[ev.seq] = msg
        return msg

    # -- deadlines, strikes, disconnects --------------------------------------------------------

    def _expire(self) -> None:
        now = self.clock()
        window = self.policy.resume_window_ms / 1000
        gone = [
            i
            for i, s in enumerate(self.seats)
            if s.gone_since is not None and now >= s.gone_since + window
        ]
        if gone and self.status == "running":
            self._forfeit(gone, "did not resume within the window")
            return
        for i, s in enumerate(self.seats):
            if self.status != "running":
                return
            p = s.pending
            if p is not None and now >= p.deadline:
                s.strikes += 1
                s.bank_ms = 0.0
                self.store.add_reply(
                    self.match_id,
                    p.request_id,
                    i,
                    p.version,
                    "timeout",
                    f"no legal reply by the deadline (strike {s.strikes})",
                    None,
                )
                if s.strikes >= self.policy.max_strikes:
                    self._forfeit([i], f"reached {s.strikes} strikes")
                    return
                self._apply(i, self.substitutes.choice(p.legal), p.request_id, substituted=True)

    def _on_attach(self, item: _Attach) -> None:
        seat = self.seats[item.seat]
        seat.outbox, seat.gone_since, seat.ever_connected = item.outbox, None, True
        # A resumed stream gets what it missed; a fresh one (a restarted bot) everything.
        seat.sent_seq = item.last_seen if item.last_seen is not None else -1
        self._send_start(item.seat)
        if seat.pending is not None:
            self._send_request(item.seat)

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
                )
            )
        )
        self._send_events(i)

    # -- endings ------------------------------------------------------------------------------

    def _forfeit(self, seats: list[int], why: str) -> None:
        """End the match: forfeiting seats rank last, the others by their scores so far."""
        self.forfeited = sorted(set(self.forfeited) | set(seats))
        scores = list(self.state.view(0).scores) or [0.0] * len(self.seats)
        alive = [i for i in range(len(self.seats)) if i not in self.forfeited]
        alive_ranks = ranks_from_scores([scores[i] for i in alive])
        ranks = [0] * len(self.seats)
        for i, r in zip(alive, alive_ranks, strict=True):
            ranks[i] = r
        for i in self.forfeited:
            ranks[i] = len(alive) + 1
        winners = tuple(i for i in alive if ranks[i] == 1)
        self._finish(
            Result(tuple(scores), tuple(ranks), winners, (), reason="forfeit"),
            detail=f"seat(s) {', '.join(map(str, seats))} {why}",
        )

    def _finish(self, result: Result, detail: str = "") -> None:
        self.status = "finished"
        self.result = result
        for s in self.seats:
            s.pending = None
        msg = result_to_pb(result, self.forfeited)
        if detail:
            msg.details.update({"forfeit": detail})
        for i in range(len(self.seats)):
            self._send_events(i)
            if self.seats[i].outbox is not None:
                self.seats[i].outbox(
                    arena_pb2.PlayResponse(
                        match_end=arena_pb2.MatchEnd(match_id=self.match_id, result=msg)
                    )
                )
        self._store_events()
        record = {**result.to_dict(), "forfeited": self.forfeited, "detail": detail}
        self.store.finish(self.match_id, "finished", record, [s.strikes for s in self.seats])
        for q in self.watchers:
            q.put_nowait(None)

    def _abort(self, why: str) -> None:
        self.status = "aborted"
        self.store.finish(
            self.match_id, "aborted", {"detail": why}, [s.strikes for s in self.seats]
        )
        for q in self.watchers:
            q.put_nowait(None)

    def result_pb(self) -> game_pb2.MatchResult | None:
        if self.result is None:
            return None
        return result_to_pb(self.result, self.forfeited)
