"""``levata bot``: run a bot process (``levata bot run KIND`` or ``levata bot bridge``)."""

from __future__ import annotations

import typer


def bot(ctx: typer.Context) -> None:
    """Run a bot process: `levata bot run KIND ...` or `levata bot bridge ... -- PROGRAM`."""
    from levata.bots.runner import main as bot_main

    raise typer.Exit(bot_main(list(ctx.args)))
