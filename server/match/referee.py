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
* **Batched events.** A connection that said ``Hello.batch_events`` gets its seats' events
  inside their messages: a seat's events not yet sent ride in its next ``DecisionRequest``
  or its ``MatchEnd`` (the ``events`` field), in order, instead of one ``MatchEvent`` each.
  So that a seat that is not asked for a while (a slow opponent, a seat out of the play) is
  not left uninformed, its waiting events are sent as ``MatchEvent`` messages once the oldest
  has waited its *lag*, once more than :data:`BATCH_MAX_EVENTS` wait, and when it reconnects
  with no request pending. The lag follows the seat's own pace: three times the usual time between
  its requests, at least :data:`BATCH_LAG_S` and at most :data:`BATCH_LAG_MAX_S`. A seat asked
  every 0.3 s (a busy referee, or bots that think) is not sent its events alone just before
  the request that would have carried them; a seat left waiting is still told soon. Either
  way a seat gets each event it may see exactly once, in sequence order; other connections
  get today's stream.
* **Durable before told.** Every message a round produces for a seat or a watcher is held
  until the round's records are committed (:meth:`Referee._commit`): nobody hears of an
  action, an event or a result that is not on disk, so a referee killed at any moment can be
  restarted from its file without contradicting what anyone was told. When the file cannot be
  written the match is *suspended*: every seat is told why (a ``ReplyError`` with code
  SUSPENDED, no request id), nothing more happens in it and no clock runs, and it goes on
  when a write succeeds. A restarted referee resumes a match from its record (:class:`Resume`,
  :mod:`levata.server.match.recovery`); an aborted match tells every seat why (``MatchEnd`` with
  reason ``aborted`` and ``details["aborted"]``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from levata.engine import Action, Event, GameSpec, GameState, IllegalAction, Result
from levata.engine.contract import ranks_from_scores
from levata.engine.seeds import derive
from levata.server.match.commit import GroupCommit
from levata.server.match.inbox import Inbox
from levata.server.match.store import RETRY_S, Store, StoreUnavailable
from levata.v1 import arena_pb2, game_pb2
from levata.wire.codec import (
    action_field,
    action_from_pb,
    event_bytes,
    field_bytes,
    legal_bytes,
    result_to_pb,
    view_bytes,
)
from levata.wire.encode import request_clock

__all__ = ["Outbox", "Policy", "Referee", "Resume", "Substitutes", "aborted_record"]

log = logging.getLogger("levata.server.match.referee")

Outbox = Callable[..., None]
"""Where messages for one connection go: a non-blocking put on that connection's queue,
``outbox(msg)`` or ``outbox(msg, on_written)``: the connection's writer calls ``on_written()``
just before it hands ``msg`` to gRPC (the moment a request's clock starts)."""

E = arena_pb2.ReplyErrorCode

#: Real-time games: after a seat's action changed nothing (a pass), its next request waits
#: for news or this long, so a waiting bot does not spin the referee.
REALTIME_IDLE_S = 0.1
#: A seat's clock starts when its request is written to its stream, not when the referee
#: built it: queueing inside a loaded referee is not the bot's time. A request still unwritten
#: this long after it was built starts the clock anyway, so a bot that never reads its stream
#: (its requests are never written: gRPC flow control holds them) is still timed out. Far
#: above any queueing measured at 1,000 concurrent matches, and a bound on what a non-reading
#: bot can add to a match: this much per decision, on top of its clock.
DELIVERY_ALLOWANCE_S = 5.0
#: Batched events (``Hello.batch_events``) wait for the seat's next request or the end at
#: most three times the seat's usual time between requests, within these bounds; then they go as
#: separate messages (see the module's docstring).
BATCH_LAG_S = 0.25
BATCH_LAG_MAX_S = 1.0
#: ... and at most this many events wait, which bounds a request's size.
BATCH_MAX_EVENTS = 256


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


@dataclass(slots=True)
class Turn:
    """A seat's clock for one decision, shared by the requests that supersede each other.

    It starts when the first of them is written to the seat's stream (:meth:`start`), or
    :data:`DELIVERY_ALLOWANCE_S` after the first was built if none is written by then; until
    it starts, ``deadline`` is that latest possible start plus the budget. The match waits
    towards ``deadline``, and starting the clock moves its alarm earlier
    (:meth:`Referee._start`): it never wakes for a deadline that cannot have come yet."""

    built_at: float
    budget_s: float  # move_ms plus the bank left, when the first request was built
    deadline: float = 0.0
    started_at: float | None = None

    def __post_init__(self) -> None:
        if not self.deadline:
            self.deadline = self.built_at + DELIVERY_ALLOWANCE_S + self.budget_s

    def start(self, now: float) -> None:
        """The clock runs from ``now`` (a request was written), or from the allowance's end."""
        if self.started_at is None:
            self.started_at = min(now, self.built_at + DELIVERY_ALLOWANCE_S)
            self.deadline = self.started_at + self.budget_s


@dataclass(slots=True)
class Pending:
    """An outstanding decision request of one seat."""

    request_id: str
    seat: int
    version: int
    legal: list[Action]
    turn: Turn

    @property
    def deadline(self) -> float:
        return self.turn.deadline


@dataclass(slots=True)
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
    batch: bool = False  # its connection takes events inside requests and the end
    unsent_since: float | None = None  # batch: when events began waiting to be sent
    asked_at: float | None = None  # when its last decision was first asked
    ask_gap: float = 0.0  # the usual time between its decisions (a moving average)
    lag: float = BATCH_LAG_S  # how long its batched events may wait (:func:`_lag`)
    gone_since: float | None = None  # when the connection dropped
    ever_connected: bool = False


def _lag(seat: Seat) -> float:
    """How long a batching seat's events may wait for its next request: three times its usual
    time between requests, within :data:`BATCH_LAG_S` .. :data:`BATCH_LAG_MAX_S`.

    >>> [round(_lag(Seat("b", ask_gap=gap)), 3) for gap in (0.05, 0.2, 9.0)]
    [0.25, 0.6, 1.0]
    """
    return min(BATCH_LAG_MAX_S, max(BATCH_LAG_S, 3 * seat.ask_gap))


@dataclass(slots=True)
class _Reply:
    seat_hint: frozenset[int]  # the seats the replying connection holds in this match
    msg: arena_pb2.ActionReply
    outbox: Outbox
    received_at: float  # when it was read from the stream: what the clock judges


#: An inbox item: a group commit of this match's round failed (:meth:`Referee._commit_soon`).
_SUSPEND = object()


@dataclass
class _Attach:
    seat: int
    outbox: Outbox
    last_seen: int | None
    batch: bool = False


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
        resume: Resume | None = None,
        label: str = "",
        commits: GroupCommit | None = None,
    ) -> None:
        self.match_id = match_id
        self.label = label  # the creator's name for it, told to the bots in MatchStart
        self.spec = spec
        self.options = options
        self.seed = seed
        self.policy = policy
        self.store = store
        self.commits = commits or GroupCommit(store)  # the arena's: shared by its matches
        self._commit_asked = False
        self.clock = clock
        self.state: GameState = (
            resume.state
            if resume is not None
            else spec.new_match(players=players, options=options, seed=seed)
        )
        self.seats = [Seat(bot=b, bank_ms=policy.bank_ms) for b in seat_bots]
        self.substitutes = Substitutes(seed)  # never the cards' stream
        self.version = 0
        self.applied = 0
        self.status = "waiting"
        self.result: Result | None = None
        self.forfeited: list[int] = []
        self.inbox = Inbox(clock)
        self.started_at = clock()
        self.done = asyncio.Event()
        self.watchers: list[asyncio.Queue[Any]] = []
        self._stored_seq = 0
        self._event_bytes: dict[int, bytes] = {}  # seq -> the event encoded
        self.resumed_ms: int | None = None  # a resumed match's clock goes on from here
        self.abort_reason: str | None = None  # set: tell the seats it is aborted, play nothing
        self.resumable = False  # a graceful shutdown leaves the match to the next start
        self.suspended: str | None = None  # why the records cannot be written now
        self._held: list[tuple[Callable[..., None], Any, tuple[Any, ...]]] = []
        self._gates: dict[Outbox, _Gate] = {}
        self._saved_seats: tuple[Any, ...] | None = None
        self._legal: dict[int, list[Action]] = {}  # seat -> its legal actions at _legal_version
        self._legal_version = -1
        self._request_prefix = secrets.token_hex(3)  # a restarted referee's ids differ
        self._asked = 0
        if resume is not None:
            self._resume_from(resume)
        if self.abort_reason is None:
            self._store_events()

    def _resume_from(self, resume: Resume) -> None:
        """Take a match up where its record leaves it: actions applied, events stored, the
        referee clock, and each seat's strikes and time bank."""
        self.version = self.applied = resume.applied
        self._stored_seq = resume.events_stored
        self.resumed_ms = resume.clock_ms
        self.abort_reason = resume.abort
        rec = resume.seats or {}
        banks, strikes = rec.get("banks") or [], rec.get("strikes") or []
        for i, seat in enumerate(self.seats):
            if i < len(banks):
                seat.bank_ms = float(banks[i])
            if i < len(strikes):
                seat.strikes = int(strikes[i])
        self.substitutes.drawn = int(rec.get("substitutes", 0))
        self._saved_seats = self._seat_record()

    # -- what the arena calls (never blocks; the run task does the work) --------------------

    def attach(
        self, seat: int, outbox: Outbox, last_seen: int | None = None, batch: bool = False
    ) -> None:
        """Seat a connection; ``batch``: it said ``Hello.batch_events``."""
        self.inbox.put_nowait(_Attach(seat, self._gate(outbox), last_seen, batch))

    def detach(self, seat: int, outbox: Outbox) -> None:
        self.inbox.put_nowait(_Detach(seat, self._gate(outbox)))

    def reply(self, seats: frozenset[int], msg: arena_pb2.ActionReply, outbox: Outbox) -> None:
        self.inbox.put_nowait(_Reply(seats, msg, self._gate(outbox), self.clock()))

    # -- the match loop -------------------------------------------------------------------------

    async def run(self) -> None:
        """The match task: start-up, then rounds (ask, take one inbox item, expire) each
        committed before what it says is delivered, until the match ends."""
        try:
            await self._startup()
            while True:
                if self.status == "running":
                    self._ask()  # its requests are held until the round is committed
                if self.status != "running":
                    await self._durable()  # the last round: on disk before the task ends
                    break
                self._commit_soon()
                timeout = self._next_wakeup() - self.clock()
                try:
                    item = await self._next_item(timeout)
                except TimeoutError:
                    item = None
                if item is _SUSPEND:
                    await self._durable()
                elif item is not None:
                    self._handle(item)
                self._expire()
        except Exception as exc:  # a bug must not end a match silently: say it, tell the seats
            log.exception("match %s: the referee failed", self.match_id)
            if self.status in ("waiting", "running"):
                self._abort(f"the referee failed ({type(exc).__name__}: {exc})")
        finally:
            if self.status in ("waiting", "running") and not self.resumable:
                self._abort("the referee stopped")
            self.inbox.close()
            self.done.set()

    async def _startup(self) -> None:
        """Wait for every seat, at most the start-up allowance (counted afresh when a
        restarted referee resumes the match), then start the match, or resume it where its
        record leaves it, or (:attr:`abort_reason`) tell the seats why it is aborted."""
        deadline = self.started_at + self.policy.startup_ms / 1000
        while not all(s.outbox for s in self.seats):
            try:
                item = await self._next_item(deadline - self.clock())
            except TimeoutError:
                if self.clock() >= deadline:
                    break
                continue  # an early look
            if isinstance(item, _Attach):
                seat = self.seats[item.seat]
                seat.outbox, seat.ever_connected = item.outbox, True
                seat.sent_seq, seat.batch, seat.unsent_since = -1, item.batch, None
            elif isinstance(item, _Detach) and self.seats[item.seat].outbox == item.outbox:
                self.seats[item.seat].outbox = None
            elif isinstance(item, _Reply):
                self._error(
                    item.outbox,
                    item.msg,
                    E.REPLY_ERROR_CODE_UNKNOWN_REQUEST,
                    "the match has not started",
                )
            self._commit()  # deliver what the wait said (nothing was recorded: no failure)
        if self.abort_reason is not None:
            for i, seat in enumerate(self.seats):  # the start (a fresh bot needs it) and the end
                seat.sent_seq = self.state.event_count() - 1
                self._send_start(i)
            self._abort(self.abort_reason, record=False)  # recorded by the recovery already
            return
        absent = [i for i, s in enumerate(self.seats) if s.outbox is None]
        self.status = "running"
        self.store.set_status(self.match_id, "running")
        self.started_at = self.clock() - (self.resumed_ms or 0) / 1000
        for i in range(len(self.seats)):
            self._send_start(i)
        if absent:
            again = " after the referee restarted" if self.resumed_ms is not None else ""
            self._forfeit(absent, f"did not connect within the start-up allowance{again}")
        elif self.state.is_over():  # a resumed record that ends with its last action
            self._finish(self.state.result())

    # -- durability: commit, then tell; suspend while the records cannot be written -----------

    def _gate(self, outbox: Outbox) -> _Gate:
        """The held form of a connection's outbox (one per connection, so it compares equal
        to itself in attach, detach and replies)."""
        gate = self._gates.get(outbox)
        if gate is None:
            gate = self._gates[outbox] = _Gate(outbox, self._held)
        return gate

    def _hold(self, send: Callable[..., None], *args: Any) -> None:
        """Say something (``send(*args)``) once the round is committed."""
        self._held.append((send, args[0], args[1:]))

    def _commit(self) -> bool:
        """Commit the round (its actions, events, replies and the seats' clocks together),
        then deliver what it held; False, nothing delivered, when the write fails."""
        self._save_seats()
        try:
            self.store.flush()
        except StoreUnavailable:
            return False
        self._deliver()
        return True

    def _save_seats(self) -> None:
        """Queue the seats' clocks and strikes if they changed since last saved."""
        record = self._seat_record()
        if record != self._saved_seats:
            self._saved_seats = record
            banks, strikes, drawn = record
            self.store.save_seats(
                self.match_id,
                list(strikes),
                {"banks": list(banks), "strikes": list(strikes), "substitutes": drawn},
            )

    def _deliver(self) -> None:
        """Say what the committed rounds held, in order."""
        held, self._held[:] = list(self._held), []
        for send, msg, args in held:
            send(msg, *args)

    def _seat_record(self) -> tuple[Any, ...]:
        return (
            tuple(s.bank_ms for s in self.seats),
            tuple(s.strikes for s in self.seats),
            self.substitutes.drawn,
        )

    def _commit_soon(self) -> None:
        """Have the round committed with every other match's ready in this turn of the event
        loop (:class:`GroupCommit`), and what it held delivered then; the match task waits for
        its next item meanwhile. A failed write puts :data:`_SUSPEND` on the inbox."""
        self._save_seats()
        if self._commit_asked or (not self._held and not self.store.queued):
            return
        self._commit_asked = True
        self.commits.after(self._committed)

    def _committed(self, ok: bool) -> None:
        self._commit_asked = False
        if ok:
            self._deliver()
        else:
            self.inbox.put_nowait(_SUSPEND)

    async def _durable(self) -> None:
        """Commit the round now. While that fails the match is suspended: every seat is told
        why, nothing more happens in it (its inbox waits), no clock runs; it goes on, its
        clocks shifted by the pause, once the write succeeds."""
        if self._commit():
            return
        self.suspended = self.store.failure or "the records cannot be written"
        log.warning("match %s suspended: %s", self.match_id, self.suspended)
        notice = arena_pb2.PlayResponse(
            error=arena_pb2.ReplyError(
                match_id=self.match_id,
                code=E.REPLY_ERROR_CODE_SUSPENDED,
                message=f"match suspended: the referee cannot write its records"
                f" ({self.suspended}); it goes on when it can, no clock runs meanwhile",
            )
        )
        for seat in self.seats:
            if isinstance(seat.outbox, _Gate):
                seat.outbox.send(notice)  # not held: this is the news that nothing is stored
        since = self.clock()
        while not self._commit():
            await asyncio.sleep(RETRY_S)
        self._shift_clocks(self.clock() - since)
        log.warning("match %s goes on: its records are written", self.match_id)
        self.suspended = None

    def _shift_clocks(self, pause: float) -> None:
        """Nobody's clock ran while the match was suspended: move every running time on."""
        self.started_at += pause
        for seat in self.seats:
            if seat.gone_since is not None:
                seat.gone_since += pause
            if seat.idle_until:
                seat.idle_until += pause
            turn = getattr(seat.pending, "turn", None)
            if turn is not None:
                turn.built_at += pause
                turn.deadline += pause
                if turn.started_at is not None:
                    turn.started_at += pause

    async def _next_item(self, timeout: float) -> Any:
        """The next inbox item, waiting at most ``timeout`` seconds (TimeoutError after, or
        earlier when a clock that started moved the alarm); an item already queued is taken
        even when no time is left."""
        return await self.inbox.get(timeout)

    def _clock_ms(self) -> int:
        return int((self.clock() - self.started_at) * 1000)

    def _next_wakeup(self) -> float:
        times = []
        for s in self.seats:
            if s.pending is not None:
                times.append(s.pending.turn.deadline)
            if s.gone_since is not None:
                times.append(s.gone_since + self.policy.resume_window_ms / 1000)
            if s.unsent_since is not None:
                times.append(s.unsent_since + s.lag)
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
            legal = self._legal_actions(i)
            p = seat.pending
            if p is not None and p.legal == legal and not self.state.realtime:
                continue  # still valid: what the seat may do has not changed
            if p is not None and self.state.realtime and p.version == self.version:
                continue
            if p is None and seat.idle_version == self.version and seat.idle_until > self.clock():
                continue  # real-time: it just did nothing; ask again on news or a moment later
            self._request(i, legal, keep_clock=p)

    def _legal_actions(self, i: int) -> list[Action]:
        """What seat ``i`` may do now. A turn-based game changes only by an applied action,
        which moves the version on: its lists are kept for the version they were made at."""
        if self.state.realtime:  # the clock changes it between versions
            return self.state.legal_actions(i)
        if self._legal_version != self.version:
            self._legal_version, self._legal = self.version, {}
        legal = self._legal.get(i)
        if legal is None:
            legal = self._legal[i] = self.state.legal_actions(i)
        return legal

    def _request(self, i: int, legal: list[Action], keep_clock: Pending | None) -> None:
        seat = self.seats[i]
        if keep_clock is not None:  # a superseded request keeps its clock
            seat.superseded.add(keep_clock.request_id)
            turn = keep_clock.turn
        else:
            turn = Turn(self.clock(), (self.policy.move_ms + seat.bank_ms) / 1000)
            if seat.asked_at is not None:  # the seat's pace, for its batch lag
                gap = turn.built_at - seat.asked_at
                seat.ask_gap = gap if not seat.ask_gap else 0.75 * seat.ask_gap + 0.25 * gap
                seat.lag = _lag(seat)
            seat.asked_at = turn.built_at
            if seat.outbox is None:  # nothing to deliver to: its clock runs (resume window)
                self._start(turn, turn.built_at)
        self._asked += 1  # ids: unique in the match, no system call each (uuid4 made one)
        request_id = f"{self._request_prefix}{self._asked:06x}"
        seat.pending = Pending(request_id, i, self.version, legal, turn)
        self._send_request(i)

    def _send_request(self, i: int) -> None:
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

    def _start(self, turn: Turn, now: float) -> None:
        """Start a turn's clock, and have the match look at its deadline: the match task
        waited towards the latest the deadline could be, and wakes at this one instead.

        (Waking at the earliest it could be, as if the clock had started when the request was
        built, made a match whose request was still queued at that moment look again and
        again without a pause, keeping the writer that would send the request from running:
        at 1,000 matches on unbundled streams every seat then timed out.)"""
        turn.start(now)
        if self.status == "running":
            self.inbox.ring_by(turn.deadline)

    # -- judging replies ------------------------------------------------------------------------

    def _handle(self, item: Any) -> None:
        if isinstance(item, _Attach):
            self._on_attach(item)
        elif isinstance(item, _Detach):
            seat = self.seats[item.seat]
            if seat.outbox == item.outbox:
                seat.outbox, seat.gone_since, seat.unsent_since = None, self.clock(), None
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
        started = p.turn.started_at if p.turn.started_at is not None else p.turn.built_at
        latency = max(0.0, (item.received_at - started) * 1000)  # not the inbox's wait
        self.store.add_reply(
            self.match_id, msg.request_id, seat, msg.state_version, "applied", str(action), latency
        )
        over_ms = latency - self.policy.move_ms
        if over_ms > 0:
            self.seats[seat].bank_ms = max(0.0, self.seats[seat].bank_ms - over_ms)
        self._apply(seat, action, p.request_id, substituted=False, judged=True)

    def _owner(self, request_id: str) -> tuple[int, str] | None:
        """The seat a request id belongs to, and its standing: ``current``, ``superseded``
        (replaced by a newer request) or ``answered`` (settled by an action already)."""
        for i, s in enumerate(self.seats):  # the usual case first: a current request
            if s.pending is not None and s.pending.request_id == request_id:
                return i, "current"
        for i, s in enumerate(self.seats):
            if request_id in s.superseded and s.pending is not None:
                return i, "superseded"
            if request_id in s.retired:
                return i, "answered"
        return None

    def _chosen(self, msg: arena_pb2.ActionReply, p: Pending) -> tuple[Action | None, str]:
        legal = self._legal_actions(p.seat)
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

    def _reject(self, item: _Reply, seat: int | None, code: E, why: str) -> None:
        """Refuse a reply: counted in the match's record (one row per seat and reason, not
        one per reply: a flood must not grow the file), and answered through the replying
        seat's allowance of refusals (the arena's ``Refusals``: past it, no answer)."""
        outcome = E.Name(code).removeprefix("REPLY_ERROR_CODE_").lower()
        self.store.count_refused(self.match_id, seat, outcome, why)
        self._error(item.outbox, item.msg, code, why)

    def _error(self, outbox: Outbox, msg: arena_pb2.ActionReply, code: E, why: str) -> None:
        outbox(
            arena_pb2.PlayResponse(
                error=arena_pb2.ReplyError(
                    match_id=msg.match_id, request_id=msg.request_id, code=code, message=why
                )
            )
        )

    # -- applying -------------------------------------------------------------------------------

    def _apply(
        self, seat: int, action: Action, request_id: str, substituted: bool, judged: bool = False
    ) -> None:
        """Apply ``action`` for ``seat``; ``judged``: it was found in this version's legal
        list (:meth:`_chosen`), so the game need not build that list again."""
        now = self._clock_ms()  # one instant for the game, the record and a replay
        before = self.state.event_count()
        if self.state.realtime:
            self.state.advance_clock(now)
            if self.state.is_over():  # the clock ended the match before this action
                self._record_clock(now)
                return
        try:
            if judged and not self.state.realtime:  # (a clock step may change what is legal)
                self.state.apply_legal(seat, action)
            else:
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
            notice = arena_pb2.ActionApplied(
                match_id=self.match_id,
                request_id=request_id,
                seat=seat,
                substituted=substituted,
                strikes=s.strikes,
                state_version=self.version,
            )
            s.outbox(_Encoded(field_bytes(5, notice.SerializeToString() + action_field(action))))
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
                    self._hold(q.put_nowait, ev)

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

    def _event_message(self, ev: Event, seat: int) -> _Encoded:
        """The message for one event to one seat (it names the seat: a connection may hold
        several), the event encoded once however many seats receive it."""
        head = arena_pb2.MatchEvent(match_id=self.match_id, seat=seat).SerializeToString()
        body = head + field_bytes(2, self._encoded_event(ev))  # MatchEvent.event
        return _Encoded(field_bytes(3, body))  # PlayResponse.event

    def _encoded_event(self, ev: Event) -> bytes:
        """One event encoded, once however many seats receive it."""
        data = self._event_bytes.get(ev.seq)
        if data is None:
            if len(self._event_bytes) > 512:  # keep only what a seat may still be sent soon
                oldest = min(s.sent_seq for s in self.seats)
                self._event_bytes = {k: v for k, v in self._event_bytes.items() if k > oldest}
            data = self._event_bytes[ev.seq] = event_bytes(ev)
        return data

    # -- deadlines, strikes, disconnects --------------------------------------------------------

    def _expire(self) -> None:
        now = self.clock()
        for i, s in enumerate(self.seats):
            if s.unsent_since is not None and now >= s.unsent_since + s.lag:
                self._flush_events(i)  # batched events waited long enough for a request
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
            if p is not None and now >= p.deadline and not self._read_in_time(p):
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

    def _read_in_time(self, p: Pending) -> bool:
        """Whether a reply to ``p`` read before its deadline waits in the inbox (behind
        another item): it is judged next, not struck because the match reached the deadline
        first. The clock stops where the reply is read, not where the match takes it up."""
        return any(
            type(item) is _Reply
            and item.msg.request_id == p.request_id
            and item.received_at < p.deadline
            for item in self.inbox.queued()
        )

    def _on_attach(self, item: _Attach) -> None:
        seat = self.seats[item.seat]
        seat.outbox, seat.gone_since, seat.ever_connected = item.outbox, None, True
        # A resumed stream gets what it missed; a fresh one (a restarted bot) everything.
        seat.sent_seq = item.last_seen if item.last_seen is not None else -1
        seat.batch, seat.unsent_since = item.batch, None
        self._send_start(item.seat)
        if seat.pending is not None:
            self._send_request(item.seat)
        elif seat.batch:  # no request to carry them: a reconnected seat catches up now
            self._flush_events(item.seat)

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

    # -- endings ------------------------------------------------------------------------------

    def _forfeit(self, seats: list[int], why: str) -> None:
        """End the match: forfeiting seats rank last, the others by their scores so far."""
        self.forfeited = sorted(set(self.forfeited) | set(seats))
        scores = list(self.state.forfeit_scores(seats)) or [0.0] * len(self.seats)
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
        """End the match with ``result``: recorded first; the MatchEnd and the watchers' end
        are held until that record is committed (a failed commit tells nobody)."""
        self.status = "finished"
        self.result = result
        for s in self.seats:
            s.pending = None
        self._store_events()
        record = {**result.to_dict(), "forfeited": self.forfeited, "detail": detail}
        self.store.finish(self.match_id, "finished", record, [s.strikes for s in self.seats])
        msg = result_to_pb(result, self.forfeited)
        if detail:
            msg.details.update({"forfeit": detail})
        self._tell_end(msg)

    def _abort(self, why: str, record: bool = True) -> None:
        """End the match without a result: recorded as ``aborted`` with ``why`` (unless
        ``record`` is False: already on disk), then every connected seat gets a MatchEnd
        with reason ``aborted`` and ``details["aborted"] = why``. Committed here: an abort
        may be the last thing the match task does."""
        self.status = "aborted"
        for s in self.seats:
            s.pending = None
        scores = list(self.state.view(0).scores) or [0.0] * len(self.seats)
        if record:
            self._store_events()
            self.store.finish(
                self.match_id,
                "aborted",
                aborted_record(why, scores),
                [s.strikes for s in self.seats],
            )
        msg = game_pb2.MatchResult(
            scores=scores, ranks=[0] * len(self.seats), reason="aborted", forfeited=[]
        )
        msg.details.update({"aborted": why})
        self._tell_end(msg)
        self._commit()

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
            seat.outbox(_Encoded(field_bytes(7, body)))  # PlayResponse.match_end
        for q in self.watchers:
            self._hold(q.put_nowait, None)

    def result_pb(self) -> game_pb2.MatchResult | None:
        if self.result is None:
            return None
        return result_to_pb(self.result, self.forfeited)


@dataclass
class Resume:
    """Where a restarted referee takes a match up (built by :mod:`levata.server.match.recovery`
    with :func:`levata.server.match.replay.rebuild`, the code ``levata replay`` runs)."""

    state: GameState  # the seed's match with every recorded action applied
    applied: int  # actions recorded (clock steps included): the state version
    clock_ms: int  # the referee clock of the last recorded action
    events_stored: int  # events on disk (those after are stored on resume)
    seats: dict[str, Any] | None = None  # the per-seat record: banks, strikes, substitutes
    abort: str | None = None  # set: the match cannot go on; tell the seats why


def aborted_record(why: str, scores: list[float]) -> dict[str, Any]:
    """The result column of an aborted match: the reason, and the scores when it stopped.

    >>> aborted_record("the referee stopped", [1.0, 0.0])["detail"]
    'the referee stopped'
    """
    return {"reason": "aborted", "detail": why, "aborted": why, "scores": scores, "forfeited": []}


class Substitutes:
    """The match's default moves for late seats: draw ``k`` comes from a stream of its own,
    seeded from the match seed and ``k``, so a resumed match goes on from the count alone.

    >>> fresh = Substitutes(7)
    >>> draws = [fresh.choice("wxyz") for _ in range(5)]
    >>> resumed = Substitutes(7, drawn=3)
    >>> [resumed.choice("wxyz") for _ in range(2)] == draws[3:]
    True
    """

    def __init__(self, seed: int, drawn: int = 0) -> None:
        self.seed = seed
        self.drawn = drawn

    def choice(self, options: list[Any]) -> Any:
        pick = random.Random(derive(self.seed, "substitute", self.drawn)).choice(options)
        self.drawn += 1
        return pick


class _Encoded:
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


class _Gate:
    """A connection's outbox as the referee uses it: each message is held (in the match's
    one list, in order) until the round is committed; ``send`` is the outbox itself."""

    __slots__ = ("held", "send")

    def __init__(self, send: Outbox, held: list[tuple[Callable[..., None], Any, tuple[Any, ...]]]):
        self.send = send
        self.held = held

    def __call__(self, msg: arena_pb2.PlayResponse, *args: Any) -> None:
        self.held.append((self.send, msg, args))
