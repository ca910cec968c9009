"""Group commit: the rounds of every match ready in one turn of the event loop, in one
transaction.

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

from levata.server.match.store import Store, StoreUnavailable

__all__ = ["GroupCommit"]

log = logging.getLogger("levata.server.match.commit")


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
