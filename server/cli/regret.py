"""``levata regret``: the double-dummy card-play regret of trick-game bots
(:mod:`levata.bots.regret`, which also runs as ``python -m levata.bots.regret``)."""

from __future__ import annotations

import typer


def regret(ctx: typer.Context) -> None:
    """Score bots' card play against the double-dummy optimum on the true deal:
    `levata regret --game tarneeb --bots pimc,heuristic --deals 30` (see --help)."""
    from levata.bots.regret import main as regret_main

    raise typer.Exit(regret_main(list(ctx.args), prog="levata regret"))
