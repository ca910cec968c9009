"""Every ``--help`` of the ``levata`` command, rendered at 80 columns in this process (one
walk of the command tree): one look, no reStructuredText, no type tags, nothing cut."""

from __future__ import annotations

import re

import typer
import typer.testing
from typer.testing import CliRunner

from levata.server.cli import app
from levata.server.cli.play import BOTS_HELP

#: What a help page must not show: markup of docstrings, Typer's type tags, a cut word.
NOT_SHOWN = ("``", ":class:", ":mod:", ":func:", "::", "<bool>", "<list[", "<str>", "<int",
             "<path>", "…", "\b")  # fmt: skip


def _pages() -> list[list[str]]:
    """Every command's path: the top, each command, each subcommand of a group (``admin``),
    and the bot processes' subcommands."""
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    nested = [[name, sub] for name, c in commands.items() for sub in getattr(c, "commands", {})]
    return [[], *([name] for name in commands), *nested, ["bot", "run"], ["bot", "bridge"]]


def test_every_help_page_reads_well_at_80_columns(monkeypatch):
    runner = CliRunner()
    command = typer.main.get_command(app)  # built once: Typer builds it anew per invoke
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: command)
    pages = {}
    for path in _pages():
        run = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"}, prog_name="levata")
        assert run.exit_code == 0, (path, run.output)
        page = pages[" ".join(path)] = run.output
        assert page.startswith(f"Usage: {' '.join(['levata', *path])} "), page[:80]
        for bad in NOT_SHOWN:
            assert bad not in page, (path, bad)
        assert max(len(line.rstrip()) for line in page.splitlines()) <= 80, path
        assert "Options:" in page and "Show this message and exit." in page
    assert len(pages) == len(typer.main.get_command(app).commands) + 3 + 7  # type: ignore[attr-defined]
    assert "levata admin rotate" in pages["admin rotate"]  # a group's subcommands have pages
    # --bots is shown whole, its words in order, however it wraps
    assert " ".join(BOTS_HELP.split()) in " ".join(pages["play"].split())
    assert "--seed INTEGER" in pages["play"] and "--seed INTEGER" in pages["bot run"]
    assert re.search(r"--quiet +Only the final", pages["play"])  # a flag takes no value
    assert "levata bot run KIND ..." in pages[""]  # the quotes are gone, the words are not


def test_levata_bots_cuts_no_class_short(levata_cli):
    status, out, err = levata_cli("bots")
    assert status == 0, err
    assert "…" not in out
    assert "HeuristicB" in out and "levata.bots.search" in out
