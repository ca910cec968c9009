"""``python -m levata.envs describe GAME [--players N] [-o NAME=VALUE ...]``: print the
observation tensor's layout and the action space of a game (docs/envs.md explains them)."""

from __future__ import annotations

import argparse
import sys

from levata.engine import BadConfig, game
from levata.envs.encoding import Encoding


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m levata.envs")
    commands = parser.add_subparsers(dest="command", required=True)
    describe = commands.add_parser("describe", help="print a game's observation and actions")
    describe.add_argument("game", help="game name (see levata games)")
    describe.add_argument("--players", type=int, help="seats (default: the fewest the game takes)")
    describe.add_argument(
        "-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="rule option"
    )
    args = parser.parse_args(argv)
    try:
        spec = game(args.game)
        options = dict(_pair(o) for o in args.option)
        print(Encoding(spec, args.players or spec.players[0], options).describe())
    except BadConfig as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def _pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep:
        raise BadConfig(f"an option is NAME=VALUE, not {text!r}")
    return name, value


if __name__ == "__main__":
    sys.exit(main())
