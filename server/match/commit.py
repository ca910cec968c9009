"""Durable before told: a match's round is committed before anything it says is delivered.

* :class:`GroupCommit`: the rounds of every match ready in one turn of the event loop, in one
  transaction.
* :class:`Gate`: a connection's outbox as a match uses it, holding each message until the
  round that produced it is committed.
* :class:`Durable`: the match's side (a part of
  :class:`~levata.server.match.referee.Referee`): commit the round, then deliver what it held;
  suspend the match while its records cannot be written.

A match's round (an action applied, the next request built) is held until its records are
on disk. Committing each round on its own would pay a transaction per decision; having each
match yield once so the others could join cost a task step per decision. Here a match asks
to be told when its round is committed and goes straight back to its inbox; one callback per
loop turn commits what every match queued and tells each of them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from levata.server.match.inbox import Inbox
from levata.server.match.log import faults, note
from levata.server.match.seats import Outbox, Seat
from levata.server.match.store import RETRY_S, Store, StoreUnavailable
from levata.v1 import arena_pb2

__all__ = ["SUSPEND", "Durable", "Gate", "GroupCommit", "Held"]

log = logging.getLogger("levata.server.match.commit")

#: What a match holds until its round is committed: ``(send, msg, args)``, said as
#: ``send(msg, *args)``.
Held = list[tuple[Callable[..., None], Any, tuple[Any, ...]]]

#: An inbox item: a group commit of this match's round failed (:meth:`Durable._commit_soon`).
SUSPEND = object()


class GroupCommit:
    """Commits a :class:`Store` once per turn of the event loop for whoever asked.

    >>> import tempfile, os
    >>> store = Store(os.path.join(tempfile.mkdtemp(), "m.db"))
    >>> told = []
    >>> async def demo():
    ...     group = GroupCommit(store)
    ...     group.after(told.append)
    ...     group.after(told.append)  # the same turn: the same transaction
    ...     await asyncio.sleep(0)
    >>> asyncio.run(demo())
    >>> told
    [True, True]
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._waiting: list[Callable[[bool], None]] = []
        self._scheduled = False

    def after(self, done: Callable[[bool], None]) -> None:
        """Call ``done(True)`` once everything queued in the store by then is committed, or
        ``done(False)`` if that write fails (the rows stay queued: see :meth:`Store.flush`).
        Soon: in this turn of the event loop, after what is ready to run now."""
        self._waiting.append(done)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._commit)

    def _commit(self) -> None:
        self._scheduled = False
        waiting, self._waiting = self._waiting, []
        try:
            self.store.flush()
            ok = True
        except StoreUnavailable:
            ok = False
        for done in waiting:
            try:
                done(ok)
            except Exception:  # one match's bug must not keep the others' news from them
                log.exception("group commit: telling a match failed")


class Gate:
    """A connection's outbox as the referee uses it: each message is held (in the match's
    one list, in order) until the round is committed; ``send`` is the outbox itself."""

    __slots__ = ("held", "send")

    def __init__(self, send: Outbox, held: Held):
        self.send = send
        self.held = held

    def __call__(self, msg: arena_pb2.PlayResponse, *args: Any) -> None:
        self.held.append((self.send, msg, args))

    def unmetered(self, msg: arena_pb2.PlayResponse, *args: Any) -> None:
        """Held like a call, then sent through the outbox's ``unmetered`` where it has one
        (the arena's ``Refusals``: a refusal the referee excuses spends no allowance)."""
        self.held.append((getattr(self.send, "unmetered", self.send), msg, args))


class Durable:
    """Commit, then tell: the round's records (its actions, events, replies and the seats'
    clocks) go to disk before any message of the round is delivered."""

    match_id: str
    store: Store
    commits: GroupCommit
    inbox: Inbox
    seats: list[Seat]
    clock: Callable[[], float]
    suspended: str | None
    _commit_asked: bool
    _held: Held
    _gates: dict[Outbox, Gate]
    _saved_seats: tuple[Any, ...] | None

    if TYPE_CHECKING:  # the other parts of the referee's

        def _shift_clocks(self, pause: float) -> None: ...
        def _seat_record(self) -> tuple[Any, ...]: ...

    def _gate(self, outbox: Outbox) -> Gate:
        """The held form of a connection's outbox (one per connection, so it compares equal
        to itself in attach, detach and replies)."""
        gate = self._gates.get(outbox)
        if gate is None:
            gate = self._gates[outbox] = Gate(outbox, self._held)
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

    def _commit_soon(self) -> None:
        """Have the round committed with every other match's ready in this turn of the event
        loop (:class:`GroupCommit`), and what it held delivered then; the match task waits for
        its next item meanwhile. A failed write puts :data:`SUSPEND` on the inbox."""
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
            self.inbox.put_nowait(SUSPEND)

    async def _durable(self) -> None:
        """Commit the round now. While that fails the match is suspended: every seat is told
        why, nothing more happens in it (its inbox waits), no clock runs; it goes on, its
        clocks shifted by the pause, once the write succeeds."""
        if self._commit():
            return
        self.suspended = self.store.failure or "the records cannot be written"
        note(
            faults,
            logging.WARNING,
            "match_suspended",
            "match %s suspended: %s",
            self.match_id,
            self.suspended,
            match=self.match_id,
            why=self.suspended,
        )
        notice = arena_pb2.PlayResponse(
            error=arena_pb2.ReplyError(
                match_id=self.match_id,
                code=arena_pb2.ReplyErrorCode.REPLY_ERROR_CODE_SUSPENDED,
                message=f"match suspended: the referee cannot write its records"
                f" ({self.suspended}); it goes on when it can, no clock runs meanwhile",
            )
        )
        for seat in self.seats:
            if isinstance(seat.outbox, Gate):
                seat.outbox.send(notice)  # not held: this is the news that nothing is stored
        since = self.clock()
        while not self._commit():
            await asyncio.sleep(RETRY_S)
        self._shift_clocks(self.clock() - since)
        note(
            faults,
            logging.WARNING,
            "match_goes_on",
            "match %s goes on: its records are written",
            self.match_id,
            match=self.match_id,
        )
        self.suspended = None
