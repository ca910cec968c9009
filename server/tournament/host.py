"""The process a tournament runs one reference bot in: one gRPC connection, every match.

    LEVATA_TOKEN=T python -m levata.server.tournament.host KIND --game G --server ADDR --seed S

It is ``levata bot run`` (the same SDK, the same ``make_bot``) with one difference that makes
a tournament reproducible: the bot of each match is seeded from the tournament's *schedule
label* of that match, not from its match id. Match ids are fresh random ids, so a bot seeded
from them (``derive(seed, match_id, seat)``, as ``levata bot run`` does) would choose
differently when a match is replayed, and a resumed tournament could not equal an
uninterrupted one. The runner writes one line per match it creates on this process's stdin::

    MATCH_ID LABEL

and the bot of that match is ``make_bot(KIND, game, seed=derive(S, LABEL, seat))``. The label
is read when the bot first has to act (the line follows ``CreateMatch`` by a millisecond); a
match never labelled within ``--label-wait`` seconds falls back to its match id. End of stdin
(the runner finished, or died) ends the process. Its token comes from ``$LEVATA_TOKEN``, never
from the command line (which any local user can read).

Like every bot process it imports the engine, the bots and the protocol stubs, never the
rest of the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Sequence
from typing import TextIO

import grpc

from levata.bots.base import Bot, make_bot, parse_bot
from levata.bots.sdk import BotClient
from levata.engine import Action, BadConfig, SeatView
from levata.engine.seeds import derive
from levata.wire.credentials import bot_token

__all__ = ["LabelBook", "LabelledBot", "main"]

log = logging.getLogger("levata.tournament.host")


class LabelBook:
    """Match id -> schedule label, filled from a stream of ``MATCH_ID LABEL`` lines.

    >>> import io
    >>> book = LabelBook()
    >>> book.read(io.StringIO("m1 17\\nm2 18\\n"))
    >>> book.get("m2", wait=0), book.get("m3", wait=0), book.closed
    ('18', None, True)
    """

    def __init__(self) -> None:
        self._labels: dict[str, str] = {}
        self._cond = threading.Condition()
        self.closed = False

    def read(self, stream: TextIO) -> None:
        for line in stream:
            match_id, _, label = line.strip().partition(" ")
            if match_id and label:
                with self._cond:
                    self._labels[match_id] = label
                    self._cond.notify_all()
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def get(self, match_id: str, wait: float) -> str | None:
        """The label of ``match_id``, waiting up to ``wait`` seconds for its line."""
        with self._cond:
            self._cond.wait_for(lambda: match_id in self._labels or self.closed, timeout=wait)
            return self._labels.get(match_id)


class LabelledBot:
    """A reference bot made when it first acts, seeded from its match's schedule label."""

    def __init__(  # noqa: PLR0913  (a seat of a match, and when its label comes)
        self,
        kind: str,
        game: str,
        seat: int,
        match_id: str,
        seed: int,
        book: LabelBook,
        wait: float,
        options: dict[str, object] | None = None,
    ) -> None:
        self.name = kind
        self.kind, self.game, self.seat, self.match_id = kind, game, seat, match_id
        self.options = options or {}
        self.seed, self.book, self.wait = seed, book, wait
        self.bot: Bot | None = None

    def act(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if self.bot is None:
            # The runner's label (TID/INDEX, in MatchStart), else the line it sent us.
            if "/" in self.match_id:
                label: str | None = self.match_id.rsplit("/", 1)[1]
            else:
                label = self.book.get(self.match_id, self.wait)
            if label is None:
                log.warning("match %s has no schedule label: seeding from its id", self.match_id)
                label = self.match_id
            seed = derive(self.seed, label, self.seat)
            self.bot = make_bot(self.kind, self.game, seed, **self.options)
        return self.bot.act(view, legal)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m levata.server.tournament.host",
        description="A tournament's reference bot: one connection, seeded by schedule labels.",
    )
    p.add_argument("kind", help="bot entry: KIND[:key=value...] or module:Class[:key=value...]")
    p.add_argument("--game", required=True)
    p.add_argument("--server", required=True, help="referee HOST:PORT")
    p.add_argument("--seed", type=int, default=0, help="this entry's seed")
    p.add_argument("--name", default="", help="display name")
    p.add_argument("--label-wait", type=float, default=30.0, help="seconds to wait for a label")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    try:
        kind, options = parse_bot(args.kind, args.game)
        make_bot(kind, args.game, 0, **options)
        token = bot_token(None)
    except BadConfig as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    book = LabelBook()
    client = BotClient(
        lambda game, seat, match_id: LabelledBot(
            kind, game, seat, match_id, args.seed, book, args.label_wait, options
        ),
        args.server,
        token,
        args.name or args.kind,
        (args.game,),
    )

    async def play() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(client.run())
        done = asyncio.Event()

        def read_stdin() -> None:
            book.read(sys.stdin)
            loop.call_soon_threadsafe(done.set)

        threading.Thread(target=read_stdin, daemon=True).start()
        ender = asyncio.create_task(done.wait())
        await asyncio.wait({task, ender}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():  # stdin closed: the tournament is over (or its runner is gone)
            with contextlib.suppress(AssertionError):
                client.send(None)  # type: ignore[arg-type]  # half-close: the referee ends it
            with contextlib.suppress(TimeoutError, grpc.aio.AioRpcError):
                await asyncio.wait_for(task, 2)
            return 0
        ender.cancel()
        task.result()  # raises the stream's error, if any
        return 0

    try:
        return asyncio.run(play())
    except grpc.aio.AioRpcError as exc:
        print(f"error: {exc.code().name.lower()}: {exc.details()}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        return 130


if __name__ == "__main__":
    sys.exit(main())
