"""``levata bot``: run a bot process (``levata bot run KIND`` or ``levata bot bridge``).

The arguments go to the bot process's own parser (:mod:`levata.bots.runner`, which also runs
as ``python -m levata.bots``); its help is shown in the look of every other command.
"""

from __future__ import annotations

import typer

from levata.server.cli.help import passed_on_help


def bot(ctx: typer.Context) -> None:
    """Run a bot process against a referee: `levata bot run KIND ...` (a reference bot, your
    Python class or function) or `levata bot bridge ... -- PROGRAM` (a JSON-lines program)."""
    from levata.bots.runner import main as bot_main
    from levata.bots.runner import parser

    page = passed_on_help(parser(), list(ctx.args), "levata bot")
    if page is not None:
        typer.echo(page, nl=False)
        raise typer.Exit(0 if ctx.args else 2)
    raise typer.Exit(bot_main(list(ctx.args)))


__all__ = ["bot"]
