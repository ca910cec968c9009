"""Command line of a bot process: ``python -m levata.bots run KIND ...`` or ``bridge -- PROG``.

``levata bot run`` and ``levata bot bridge`` call the same code. A bot process imports only
the engine, the bots and the protocol stubs, never the server.

    python -m levata.bots run heuristic --game whist --server localhost:50051 --token T
    python -m levata.bots bridge --server localhost:50051 --token T -- python3 my_bot.py
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from levata.bots.base import bot_names, make_bot
from levata.bots.sdk import BotClient, run_client
from levata.engine import BadConfig
from levata.engine.seeds import derive

__all__ = ["main"]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default="localhost:50051", help="referee HOST:PORT")
    p.add_argument("--token", required=True, help="this bot's token")
    p.add_argument("--name", default="", help="display name")
    p.add_argument("--matches", type=int, help="stop after this many matches")
    p.add_argument("--tls-ca", type=Path, help="CA certificate to trust (enables TLS)")
    p.add_argument("--quiet", action="store_true", help="no line per finished match")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="levata bot", description="Run a bot against a referee.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="play a reference bot over gRPC")
    run.add_argument("kind", help=f"bot kind: {', '.join(bot_names())}")
    run.add_argument("--game", required=True, help="the game the bot plays")
    run.add_argument("--seed", type=int, default=0, help="seed of the bot's own choices")
    _common(run)
    bridge = sub.add_parser("bridge", help="let a JSON-lines program play (see levata.bots.bridge)")
    _common(bridge)
    bridge.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    tls = args.tls_ca.read_bytes() if args.tls_ca else None
    if args.command == "run":
        try:
            make_bot(args.kind, args.game)  # fail early and clearly on a bad kind or game
        except BadConfig as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        client = BotClient(
            lambda game, seat, match_id: make_bot(
                args.kind, game, seed=derive(args.seed, match_id, seat)
            ),
            args.server,
            args.token,
            args.name or args.kind,
            (args.game,),
            tls,
            args.matches,
        )
    else:
        program = [a for a in args.program if a != "--"] if args.program else []
        if not program:
            print("error: give the program after --", file=sys.stderr)
            return 2
        from levata.bots.bridge import ProgramBridge

        bridge = ProgramBridge(program)
        client = BotClient(
            lambda *_: None,
            args.server,
            args.token,
            args.name or program[0],
            (),
            tls,
            args.matches,
            decider=bridge,
        )  # type: ignore[arg-type]
    status = run_client(client)
    if not args.quiet:
        for s in client.finished:
            r = s.result.result if s.result else None
            if r is not None:
                print(
                    f"match {s.match_id} seat {s.seat}: rank {r.ranks[s.seat]} of "
                    f"{len(r.ranks)}, score {r.scores[s.seat]:g}"
                )
    return status


if __name__ == "__main__":
    sys.exit(main())
