"""``levata regret``: the double-dummy card-play regret of trick-game bots
(:mod:`levata.bots.regret`, which also runs as ``python -m levata.bots.regret``)."""

from __future__ import annotations

import typer

from levata.server.cli.help import passed_on_help


def regret(ctx: typer.Context) -> None:
    """Score bots' card play against the double-dummy optimum on the true deal:
    `levata regret --game tarneeb --bots pimc,heuristic --deals 30` (see --help)."""
    from levata.bots.regret import main as regret_main
    from levata.bots.regret import parser

    page = passed_on_help(parser("levata regret"), list(ctx.args), "levata regret")
    if page is not None:
        typer.echo(page, nl=False)
        raise typer.Exit(0 if ctx.args else 2)
    raise typer.Exit(regret_main(list(ctx.args), prog="levata regret"))
