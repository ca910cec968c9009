"""The ``levata`` command line.

    levata games                         list the games, player counts and options
    levata bots                          list the reference bots of each game
    levata describe whist                what a bot of a game sees, key by key
    levata play --game whist --players 4 --bots heuristic,random,random,random --seed 7
    levata match --game whist --bots heuristic,random,random,random   refereed over gRPC
    levata serve --port 50051 --tokens-file tokens.txt                 run a referee
    levata admin health|list|get|watch|create|register|rotate  operate a running referee
    LEVATA_TOKEN=T levata bot run heuristic --game whist --server HOST:PORT
    levata bot bridge --server HOST:PORT --token-file T.txt -- PROGRAM ARGS
    levata replay ID / levata export ID   check or dump a recorded match
    levata tournament --game whist --bots heuristic,random,random --deals 12   a duplicate
    levata report ID --html report.html  a tournament's standings, as one HTML page
    levata view ID --html match.html     a recorded match to step through, offline
    levata web --db levata.db --port 8080   the records in a browser (docs/web.md)
    levata regret --game tarneeb --bots pimc,heuristic --deals 30   card play against the
                                         double-dummy optimum on the true deals

Bad input (an unknown game, a wrong player count, a bad option or bot, a value out of
range) prints one line starting with ``error:`` and exits with status 2; a failure at run
time (a database this levata cannot use) prints one such line
and exits with status 1; never a traceback.

Each command group is a module of this package; this one only assembles them.
"""

from __future__ import annotations

import os
import sys

# gRPC reads this once, as it loads (the imports below): its INFO lines ("Got goaway" as a
# referee stops) are not for the person at the terminal. A value of theirs is kept.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import typer

from levata.server.cli import (
    bot,
    catalog,
    ladder,
    play,
    records,
    regret,
    serve,
    tournament,
    web,
)
from levata.server.cli.admin import admin_app
from levata.server.cli.common import EXIT_RUNTIME, EXIT_USAGE, err, out
from levata.server.cli.help import HelpGroup
from levata.server.database import DatabaseError

__all__ = ["app", "main"]

app = typer.Typer(
    cls=HelpGroup,  # one help page for every command (server/cli/help.py)
    help="levata: refereed Romanian card games for bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("games")(catalog.list_games)
app.command("bots")(catalog.list_bots)
app.command("describe")(catalog.describe_game)
app.command()(play.play)
app.command()(serve.serve)
app.command()(play.match)
app.command()(records.replay)
app.command()(records.export)
app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)(bot.bot)
app.command()(tournament.tournament)
app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)(regret.regret)
app.command()(tournament.report)
app.command()(ladder.ladder)
app.command()(web.view)
app.command()(web.web)
app.add_typer(admin_app, name="admin")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``levata`` script: every failure is one ``error:`` line."""
    try:
        status = app(args=argv, prog_name="levata", standalone_mode=False)
    except DatabaseError as exc:  # a missing folder, a file of a newer levata
        err.print(f"error: {exc}", markup=False)
        sys.exit(EXIT_USAGE if exc.bad_path else EXIT_RUNTIME)
    except (KeyboardInterrupt, typer.Abort):
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:
        # Click's own errors (a missing option, a value out of range...), whichever Click
        # this Typer runs on (its own copy, or the click package): known by their interface.
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            out.print(ctx.get_help(), markup=False, highlight=False)
            sys.exit(EXIT_USAGE)
        hint = f" (see {ctx.command_path} --help)" if ctx is not None else ""
        err.print(f"error: {exc.format_message()}{hint}", markup=False)
        sys.exit(exc.exit_code)
    sys.exit(status if isinstance(status, int) else 0)
