"""One referee worker of ``levata serve --workers N`` (:mod:`levata.server.cli.workers`):
the referee of ``levata serve`` on a Unix socket, for the front alone.

Its settings come as one JSON line on stdin, which stays open while the front lives (its end
stops the worker). It says ``ready`` on stdout once it listens, after taking up the
unfinished matches that are its own. SIGTERM stops it in order; Ctrl-C is the front's.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path

from levata.server.cli.common import db_location
from levata.server.cli.workers import WorkerSettings


def worker_main() -> None:
    """One referee worker: settings from stdin, then serve until told to stop."""
    from levata.server.match.front import owner
    from levata.server.match.log import configure as configure_logging

    s = WorkerSettings(**json.loads(sys.stdin.readline()))
    configure_logging(s.log_level, s.log_format)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the front's: it stops us in order

    async def main() -> None:
        from levata.server.cli.serve import _shut_down, open_writable, say_recovered
        from levata.server.match.app import start_server
        from levata.server.match.auth import read_tokens_file
        from levata.server.match.clocks import Policy
        from levata.server.match.front import worker_services
        from levata.server.match.limits import Limits, raise_open_file_limit

        raise_open_file_limit()
        limits = Limits.for_open_files(hello_timeout_s=s.hello_timeout, outbox_bytes=s.outbox_bytes)
        # One connection, the front's, carries every bot's stream, each opened with its Hello
        # already said to the front: the quotas of streams without Hello are the front's
        # (:class:`~levata.server.match.doors.Door`), not to be met again here in a burst.
        quota = limits.streams_total
        limits = replace(
            limits, unauthenticated_per_listener=quota, unauthenticated_per_connection=quota
        )
        store = open_writable(db_location(s.db))  # a file, or a server's URL
        server, arena = await start_server(
            store,
            f"unix:{s.socket}",
            0,
            Policy(move_ms=s.move_ms, bank_ms=s.bank_ms),
            s.admin_token,
            limits=limits,
            resume=False,
            more=lambda arena: (worker_services(arena, s.admin_token),),
        )
        arena.id_prefix = f"w{s.index}-"
        pairs = read_tokens_file(Path(s.tokens_file)) if s.tokens_file else {}
        for name, secret in pairs.items():
            arena.add_bot(name, secret, rotate=True)
        arena.recovered = arena.resume_unfinished(only=lambda m: owner(m, s.workers) == s.index)
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        say_recovered(arena.recovered)
        print("ready", flush=True)
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stopping.set)
        # stdin stays open while the front lives: its end means the front is gone
        threading.Thread(
            target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stopping.set)),
            daemon=True,
        ).start()
        try:
            await stopping.wait()
        finally:
            await _shut_down(arena, server, None)
            with contextlib.suppress(OSError):  # a killed front leaves no folder behind
                os.unlink(s.socket)
                os.rmdir(os.path.dirname(s.socket))  # once the last worker's socket is gone

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())


if __name__ == "__main__":
    worker_main()
