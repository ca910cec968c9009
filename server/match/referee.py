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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from levata.engine import Action, GameSpec, GameState, IllegalAction, Result
from levata.engine.contract import ranks_from_scores
from levata.engine.seeds import derive
from levata.server.match.clocks import REALTIME_IDLE_S, Clocks, Policy
from levata.server.match.commit import SUSPEND, Durable, Gate, GroupCommit, Held
from levata.server.match.inbox import Inbox
from levata.server.match.log import faults, matches, note
from levata.server.match.messages import Encoded, Messages
from levata.server.match.seats import EXCUSED_MAX, Outbox, Pending, Seat, Turn, batch_lag
from levata.server.match.store import Store
from levata.v1 import arena_pb2, game_pb2
from levata.wire.codec import action_field, action_from_pb, field_bytes, result_to_pb

__all__ = ["Referee", "Resume", "Substitutes", "aborted_record"]

log = logging.getLogger("levata.server.match.referee")

E = arena_pb2.ReplyErrorCode


@dataclass(slots=True)
class _Reply:
    seat_hint: frozenset[int]  # the seats the replying connection holds in this match
    msg: arena_pb2.ActionReply
    outbox: Outbox
    received_at: float  # when it was read from the stream: what the clock judges


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


@dataclass
class _Lost:
    """Whoever runs a seat's process saw it end (``why``: ``crashed, exit 1``)."""

    seat: int
    why: str


class Referee(Clocks, Messages, Durable):
    """Runs one match between connected bots: the match flow (start-up, asking, judging
    replies, applying actions, strikes, forfeits, the end), on its clocks
    (:class:`~levata.server.match.clocks.Clocks`), its messages
    (:class:`~levata.server.match.messages.Messages`) and its commit gate
    (:class:`~levata.server.match.commit.Durable`)."""

    def __init__(  # noqa: PLR0913  (the match's setup and the arena's parts; built in one place)
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
        self._held: Held = []
        self._gates: dict[Outbox, Gate] = {}
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

    def lost(self, seat: int, why: str) -> None:
        """The process of ``seat`` ended (its runner saw it: ``levata match``): the seat
        forfeits now, recorded with ``why``, not after a resume window that cannot help, nor
        as a seat that never connected."""
        self.inbox.put_nowait(_Lost(seat, why))

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
                if item is SUSPEND:
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
        lost = await self._wait_for_seats()
        if self.abort_reason is not None:
            for i, seat in enumerate(self.seats):  # the start (a fresh bot needs it) and the end
                seat.sent_seq = self.state.event_count() - 1
                self._send_start(i)
            self._abort(self.abort_reason, record=False)  # recorded by the recovery already
            return
        absent = [i for i, s in enumerate(self.seats) if s.outbox is None or i in lost]
        self.status = "running"
        self.store.set_status(self.match_id, "running")
        self.started_at = self.clock() - (self.resumed_ms or 0) / 1000
        for i in range(len(self.seats)):
            self._send_start(i)
        note(
            matches,
            logging.INFO,
            "match_started",
            "match %s %s: %s, bots %s",
            self.match_id,
            "resumed" if self.resumed_ms is not None else "started",
            self.spec.name,
            ", ".join(s.bot for s in self.seats),
            match=self.match_id,
            game=self.spec.name,
            seat_bots=[s.bot for s in self.seats],
            resumed=self.resumed_ms is not None,
            absent=absent,
        )
        if absent:
            again = " after the referee restarted" if self.resumed_ms is not None else ""
            absent_why = f"did not connect within the start-up allowance{again}"
            whys = {lost.get(i, absent_why) for i in absent}
            if len(whys) > 1:  # one forfeit for all: each seat's reason in its words
                whys = {"; ".join(f"seat {i}: {lost.get(i, absent_why)}" for i in absent)}
            self._forfeit(absent, whys.pop())
        elif self.state.is_over():  # a resumed record that ends with its last action
            self._finish(self.state.result())

    async def _wait_for_seats(self) -> dict[int, str]:
        """Wait until every seat is connected, or its process is known to have ended
        (:meth:`lost`: those, and why), or the start-up allowance is spent."""
        deadline = self.started_at + self.policy.startup_ms / 1000
        lost: dict[int, str] = {}  # seats whose process ended: they will not come
        while not all(s.outbox or i in lost for i, s in enumerate(self.seats)):
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
            elif isinstance(item, _Lost):
                lost[item.seat] = item.why
            elif isinstance(item, _Reply):
                self._error(
                    item.outbox,
                    item.msg,
                    E.REPLY_ERROR_CODE_UNKNOWN_REQUEST,
                    "the match has not started",
                )
            self._commit()  # deliver what the wait said (nothing was recorded: no failure)
        return lost

    async def _next_item(self, timeout: float) -> Any:
        """The next inbox item, waiting at most ``timeout`` seconds (TimeoutError after, or
        earlier when a clock that started moved the alarm); an item already queued is taken
        even when no time is left."""
        return await self.inbox.get(timeout)

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
                seat.lag = batch_lag(seat)
            seat.asked_at = turn.built_at
            if seat.outbox is None:  # nothing to deliver to: its clock runs (resume window)
                self._start(turn, turn.built_at)
        self._asked += 1  # ids: unique in the match, no system call each (uuid4 made one)
        request_id = f"{self._request_prefix}{self._asked:06x}"
        seat.pending = Pending(request_id, i, self.version, legal, turn)
        seat.excused = min(seat.excused + 1, EXCUSED_MAX)
        self._send_request(i)

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
        elif isinstance(item, _Lost) and self.status == "running":
            self._forfeit([item.seat], item.why)

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
                excused=self._late(item, seat),
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
        # In real time a reply to a replaced request still counts when it names its action
        # (judged against what is legal now); an index names a place in a list the referee
        # no longer holds, and read against the new list it could be another move.
        if not current and (not self.state.realtime or msg.WhichOneof("choice") == "index"):
            how = ": answer by action, or the new request" if self.state.realtime else ""
            self._reject(
                item,
                seat,
                E.REPLY_ERROR_CODE_STALE_VERSION,
                f"request {msg.request_id} was replaced by {p.request_id}{how}",
                excused=self._late(item, seat),
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
        if item.received_at >= p.deadline:  # read too late, judged before the clock looked
            late_ms = (item.received_at - p.deadline) * 1000
            self._reject(
                item,
                seat,
                E.REPLY_ERROR_CODE_UNKNOWN_REQUEST,
                f"request {msg.request_id} timed out: the reply was read {late_ms:.0f} ms after"
                " its deadline",
                excused=self._late(item, seat),
            )
            return  # the clock strikes it next (_expire)
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
            choice = action.without_payload()
            if choice is not action and choice in legal:  # a payload beside a legal choice
                return self._payload_judged(p.seat, action, choice)
            return None, f"{action} is not legal now"
        return None, "malformed reply: it has neither an index nor an action"

    def _payload_judged(
        self, seat: int, action: Action, choice: Action
    ) -> tuple[Action | None, str]:
        """``action`` when the game takes its payload beside ``choice`` now (the game's
        :meth:`~levata.engine.GameState.payload_schema`), else why not."""
        schema = self.state.payload_schema(seat, choice)
        for key, value in action.payload:
            allowed = schema.get(key)
            if allowed is None:
                return None, f"{choice} takes no {key}= now"
            if value not in allowed:
                return None, f"{key}={value} is not allowed with {choice}"
        return action, ""

    def _reject(
        self, item: _Reply, seat: int | None, code: E, why: str, excused: bool = False
    ) -> None:
        """Refuse a reply: counted in the match's record (one row per seat and reason, not
        one per reply: a flood must not grow the file), and answered through the replying
        seat's allowance of refusals (the arena's ``Refusals``: past it, no answer), unless
        it is ``excused`` (:meth:`_late`): then answered without spending it."""
        outcome = E.Name(code).removeprefix("REPLY_ERROR_CODE_").lower()
        self.store.count_refused(self.match_id, seat, outcome, why)
        outbox = getattr(item.outbox, "unmetered", item.outbox) if excused else item.outbox
        self._error(outbox, item.msg, code, why)

    def _late(self, item: _Reply, seat: int) -> bool:
        """Whether the refusal of a late reply of ``seat`` to a request it was really sent
        (settled, replaced or timed out in the meantime) spends no allowance: one such
        refusal is owed per request sent (:attr:`Seat.excused`), and only to the connection
        that holds the seat. In real time a fast bot's replies cross the referee's changes,
        and an honest bot must not lose its later replies to them."""
        s = self.seats[seat]
        if seat not in item.seat_hint or s.excused <= 0:
            return False
        s.excused -= 1
        return True

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
            s.outbox(Encoded(field_bytes(5, notice.SerializeToString() + action_field(action))))
        self._after_change()

    def _record_clock(self, now: int) -> None:
        """A clock step changed the game: record it (replays feed it again) and tell all."""
        self.store.add_action(self.match_id, self.applied, None, None, now)
        self.applied += 1
        self.version += 1
        self._after_change()

    def _after_change(self) -> None:
        self._store_events()
        if self.state.realtime:
            self._settle_unasked()
        for i in range(len(self.seats)):
            self._send_events(i)
        if self.state.is_over():
            self._finish(self.state.result())

    def _settle_unasked(self) -> None:
        """Real time: a seat no longer to act that did not act (another's move ended what it
        could do, as a call window closed by the first call) has its request settled, never
        struck; a late reply to it is stale. (Its clock would else run on into the next
        request, which keeps a superseded request's clock.)"""
        to_act = self.state.to_act()
        for i, s in enumerate(self.seats):
            if s.pending is not None and i not in to_act:
                s.retired.append(s.pending.request_id)
                s.retired.extend(s.superseded)
                s.superseded.clear()
                s.pending = None

    def _store_events(self) -> None:
        new = self.state.events(since=self._stored_seq)
        self._stored_seq += len(new)
        self.store.add_events(self.match_id, new)
        for q in self.watchers:
            for ev in new:
                if ev.audience is None:
                    self._hold(q.put_nowait, ev)

    # -- deadlines, strikes, disconnects --------------------------------------------------------

    def _strike(self, i: int, p: Pending) -> None:
        """Seat ``i`` gave no legal reply to ``p`` by its deadline: a strike, its bank spent;
        then a forfeit at ``max_strikes``, else a default move from the substitutes' stream."""
        s = self.seats[i]
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
        note(
            faults,
            logging.INFO,
            "strike",
            "match %s: seat %d (%s) gave no legal reply in time: strike %d of %d",
            self.match_id,
            i,
            s.bot,
            s.strikes,
            self.policy.max_strikes,
            match=self.match_id,
            seat=i,
            bot=s.bot,
            strikes=s.strikes,
            max_strikes=self.policy.max_strikes,
        )
        if s.strikes >= self.policy.max_strikes:
            self._forfeit([i], f"reached {s.strikes} strikes")
            return
        # The default comes from what the seat may do now: in real time the clock may have
        # changed it since the request was made (in turn-based play the two are the same).
        legal = self._legal_actions(i) if i in self.state.to_act() else []
        if legal:
            self._apply(i, self.substitutes.choice(legal), p.request_id, substituted=True)
        if s.pending is p:  # nothing was applied (a timer moved first): this request is over,
            s.retired.append(p.request_id)  # else it would be struck again at once
            s.pending = None

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

    def _seat_record(self) -> tuple[Any, ...]:
        """The seats' banks and strikes and the substitutes drawn: what a resumed match needs."""
        return (
            tuple(s.bank_ms for s in self.seats),
            tuple(s.strikes for s in self.seats),
            self.substitutes.drawn,
        )

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
        note(
            faults,
            logging.INFO,
            "forfeit",
            "match %s: seat(s) %s (%s) forfeit: %s",
            self.match_id,
            ", ".join(map(str, seats)),
            ", ".join(self.seats[i].bot for i in seats),
            why,
            match=self.match_id,
            seats=list(seats),
            bots=[self.seats[i].bot for i in seats],
            why=why,
        )
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
        note(
            matches,
            logging.INFO,
            "match_ended",
            "match %s ended (%s): winners %s, scores %s%s",
            self.match_id,
            result.reason,
            ", ".join(f"seat {i} ({self.seats[i].bot})" for i in result.winners) or "none",
            " ".join(f"{x:g}" for x in result.scores),
            f"; {detail}" if detail else "",
            match=self.match_id,
            game=self.spec.name,
            reason=result.reason,
            scores=list(result.scores),
            ranks=list(result.ranks),
            winners=list(result.winners),
            forfeited=list(self.forfeited),
            detail=detail,
        )

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
        note(
            matches,
            logging.INFO,
            "match_aborted",
            "match %s aborted: %s",
            self.match_id,
            why,
            match=self.match_id,
            game=self.spec.name,
            why=why,
        )

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
