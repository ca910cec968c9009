"""Command line of a bot process: ``python -m levata.bots run KIND ...`` or ``bridge -- PROG``.

``levata bot run`` and ``levata bot bridge`` call the same code. A bot process imports only
the engine, the bots and the protocol stubs, never the server.

    LEVATA_TOKEN=T python -m levata.bots run heuristic --game whist --server localhost:50051
    python -m levata.bots bridge --server localhost:50051 --token-file T.txt -- python3 bot.py

The token comes from ``$LEVATA_TOKEN`` or an owner-only ``--token-file``, never from the
command line, which every local user can read (:mod:`levata.wire.credentials`).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, cast

from levata.bots.base import Bot, bot_names, make_bot, parse_bot
from levata.bots.sdk import BotClient, run_client
from levata.engine import BadConfig
from levata.engine.seeds import check_seed, derive
from levata.v1 import arena_pb2
from levata.wire.credentials import TLS_CA_ENV, TOKEN_ENV, bot_token

__all__ = ["main"]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="localhost:50051", help="referee HOST:PORT")
    p.add_argument(
        "--token-file",
        type=Path,
        help=f"file holding this bot's token (default: ${TOKEN_ENV})",
    )
    p.add_argument("--token", help=argparse.SUPPRESS)  # refused with a reason, see main()
    p.add_argument("--name", default="", help="display name")
    p.add_argument("--matches", type=int, help="stop after this many matches")
    p.add_argument(
        "--tls-ca",
        type=Path,
        default=Path(os.environ[TLS_CA_ENV]) if os.environ.get(TLS_CA_ENV) else None,
        help=f"CA certificate to trust (enables TLS; default: ${TLS_CA_ENV} where set)",
    )
    p.add_argument("--quiet", action="store_true", help="no line per finished match")
    p.add_argument(
        "--reconnect",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="keep reconnecting this long after the stream is lost, e.g. while the referee"
        " restarts (default 10)",
    )


ENTRY_HELP = """Bot entries:
  KIND[:key=value...]          a reference bot and its options, e.g.
                               pimc:worlds=40:time_ms=150
  module:Class[:key=value...]  your Python class implementing Bot, made as
                               Class(game, seed, **options): mybot:MyBot:depth=3
  module:function              your function act(view, legal): mybot:act

Each option's type is its constructor default's (int, float, bool, str); a bad
name or value is one error line naming the bot's options. Python bots:
docs/python-bots.md.
"""


def _seed(text: str) -> int:
    """``--seed``: the one range every command takes (:func:`levata.engine.seeds.check_seed`)."""
    try:
        return check_seed(int(text))
    except (ValueError, BadConfig) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one ``error:`` line, status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="levata bot", description="Run a bot against a referee.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser(
        "run",
        help="play a reference bot over gRPC",
        description="Play a bot over gRPC: a reference kind with options, or your own Python"
        " class or function.",
        epilog=ENTRY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "kind",
        metavar="BOT",
        help=f"KIND[:key=value...] (kinds: {', '.join(bot_names())}), module:Class[:key=value]"
        " or module:function",
    )
    run.add_argument("--game", required=True, help="the game the bot plays")
    run.add_argument(
        "--seed",
        type=_seed,
        default=0,
        metavar="INTEGER",
        help="seed of the bot's own choices (0 to 2^63 - 1)",
    )
    _common(run)
    bridge = sub.add_parser(
        "bridge",
        help="let a JSON-lines program play (docs/bots.md)",
        description="Let a program that reads one JSON request per line on its stdin and"
        " writes one JSON reply per line play over gRPC (docs/bots.md).",
    )
    _common(bridge)
    bridge.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    if args.token is not None:
        print(
            f"error: --token is not accepted: a command line is readable by every local user;"
            f" set {TOKEN_ENV} or use --token-file FILE",
            file=sys.stderr,
        )
        return 2
    try:
        token = bot_token(args.token_file)
        tls = args.tls_ca.read_bytes() if args.tls_ca else None
    except BadConfig as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot read {args.tls_ca}: {exc.strerror}", file=sys.stderr)
        return 2
    if args.command == "run":
        try:  # fail early and clearly on a bad kind, option or game
            kind, options = parse_bot(args.kind, args.game)
            make_bot(kind, args.game, 0, **options)
        except BadConfig as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except Exception as exc:  # an author's class may refuse in any way: one line
            print(f"error: bot {args.kind} cannot play {args.game}: {exc}", file=sys.stderr)
            return 2
        client = BotClient(
            # seeded from the match's label (levata match gives one), else from its id
            lambda game, seat, name: make_bot(kind, game, derive(args.seed, name, seat), **options),
            args.server,
            token,
            args.name or args.kind,
            (args.game,),
            tls,
            args.matches,
            reconnect_s=args.reconnect,
        )
        _announce(client, args.quiet)
        return _until_terminated(lambda: run_client(client))
    from levata.bots.bridge import BRIDGED_ENV, ProgramBridge

    program = [a for a in args.program if a != "--"] if args.program else []
    if not program:
        print("error: give the program after --", file=sys.stderr)
        return 2
    if os.environ.get(BRIDGED_ENV):
        print(
            "error: levata bot bridge is running under a bridge already: it would wait for"
            " requests that never come; give the outer bridge the program alone (in a"
            ' manifest: command = the program, protocol = "json")',
            file=sys.stderr,
        )
        return 2
    try:
        bridge = ProgramBridge(program)
    except OSError as exc:
        print(f"error: cannot start {program[0]}: {exc.strerror}", file=sys.stderr)
        return 2
    client = BotClient(
        lambda *_: cast(Bot, None),  # never asked: the program decides, through the bridge
        args.server,
        token,
        args.name or program[0],
        (),
        tls,
        args.matches,
        reconnect_s=args.reconnect,
    )
    _announce(client, args.quiet)
    bridge.attach(client)
    try:
        return _until_terminated(lambda: run_client(client, bridge.play()))
    finally:
        bridge.close()


def _announce(client: BotClient, quiet: bool) -> None:
    # A line per match as it ends, flushed: a bot stopped by SIGTERM has lost none of them.
    if not quiet:
        client.on_message = _match_ends(client)


class _Terminated(Exception):
    """SIGTERM, raised in the main thread so that the bridge and the program close cleanly."""


def _until_terminated(play: Callable[[], int]) -> int:
    """Run ``play``; on SIGTERM stop it and exit with 143 (128 + SIGTERM)."""

    def terminated(signum: int, frame: object) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        return play()
    except _Terminated:
        return 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)


def _match_ends(client: BotClient) -> Callable[[arena_pb2.PlayResponse], None]:
    """A line per match of ``client`` as it ends: its seat, rank and score."""

    def say(msg: arena_pb2.PlayResponse) -> None:
        if msg.WhichOneof("message") != "match_end":
            return
        end = msg.match_end
        session = client.session(end.match_id, end.seat)  # still there: before _handle
        r = end.result
        if session is None or session.seat >= len(r.ranks):
            return
        print(
            f"match {end.match_id} seat {session.seat}: rank {r.ranks[session.seat]} of "
            f"{len(r.ranks)}, score {r.scores[session.seat]:g}",
            flush=True,
        )

    return say


if __name__ == "__main__":
    sys.exit(main())
