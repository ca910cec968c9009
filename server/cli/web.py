"""``levata view`` (a recorded match as one offline HTML page) and ``levata web`` (the records
served to a browser, and with ``--referee`` a referee's live matches).

The web stack (Starlette on uvicorn) is imported only by ``levata web`` and the web table's
process of ``levata serve --web``: every other command starts without it.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Annotated

import typer

from levata.server.cli.common import DB_OPTION, EXIT_RUNTIME, fail, out
from levata.server.match.store import DEFAULT_DB, BrokenRecord, Store


def view(
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    html: Annotated[Path, typer.Option("--html", help="Write the page here.")],
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    seat: Annotated[
        list[int] | None,
        typer.Option(
            help="Only this seat's view (and the spectator's); repeat for several. Default:"
            " every seat's, the spectator's and the whole table."
        ),
    ] = None,
) -> None:
    """Write a recorded match as one self-contained HTML page (no network: open it from the
    file) that steps forward and back, jumps to a deal or a trick, from the spectator's view,
    each seat's (only what that seat saw) or the whole table's, with each reply's latency,
    its strikes and refused replies beside the move."""
    from levata.server.web.page import replay_page
    from levata.server.web.record import NotViewable, match_data

    store = _records(db)
    views = None if not seat else ["spectator", *(f"seat:{s}" for s in seat)]
    row = store.raw_match(match_id)
    if row is None:
        raise fail(f"no match {match_id!r} in {db}")
    if seat and any(not 0 <= s < int(row["players"]) for s in seat):
        raise fail(f"--seat: match {match_id} has seats 0 to {int(row['players']) - 1}")
    try:
        data = match_data(store, match_id, views)
    except (NotViewable, BrokenRecord) as exc:
        raise fail(str(exc), EXIT_RUNTIME) from None
    try:
        html.write_text(replay_page(data), encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {html}: {exc.strerror}") from None
    out.print(f"wrote {html} ({len(data['steps'])} steps)", markup=False, soft_wrap=True)


def web(
    db: Annotated[Path, DB_OPTION] = Path(DEFAULT_DB),
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).", min=0, max=65535)] = 8080,
    public: Annotated[
        bool,
        typer.Option(
            "--public/--private",
            help="Whether every finished record is public: anyone may then step through any"
            " seat's view and the whole table. Private (default): a seat's view needs that"
            " seat's bot token or the admin token.",
        ),
    ] = False,
    admin_token_file: Annotated[
        Path | None,
        typer.Option(help="The admin token's file (default: DB.admin-token, if there)."),
    ] = None,
    referee: Annotated[
        str | None,
        typer.Option(
            metavar="HOST:PORT",
            help="Also show the live matches of the referee there, as a spectator sees them"
            " (its admin service's WatchMatch; needs the admin token).",
        ),
    ] = None,
    referee_tls_ca: Annotated[
        Path | None,
        typer.Option(help="With --referee: the referee's TLS certificate (or its CA), PEM."),
    ] = None,
) -> None:
    """Serve the finished records of DB to a browser: the list of matches and tournaments,
    each match's replay, each tournament's page; with --referee, that referee's live matches
    too. See docs/web.md."""
    import asyncio

    from levata.server.cli.serve import check_port
    from levata.server.web.app import WebRules, make_app, serve_web
    from levata.server.web.live import RefereeLink

    store = _records(db)
    check_port(host, port)
    rules = WebRules.for_records(db, admin_token_file, public)
    link = None
    if referee is not None:
        if rules.admin_token is None:
            raise fail("--referee needs the admin token: --admin-token-file FILE")
        if not re.fullmatch(r"(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}", referee):
            raise fail(f"--referee {referee!r}: expected HOST:PORT")
        try:
            ca = referee_tls_ca.read_bytes() if referee_tls_ca else None
        except OSError as exc:
            raise fail(f"cannot read {referee_tls_ca}: {exc.strerror}") from None
        link = RefereeLink(referee, rules.admin_token, ca)
    app = make_app(store, rules, link)

    async def main() -> None:
        server, bound = await serve_web(app, host, port)
        out.print(f"levata web on http://{host}:{bound}/ (records in {db})", soft_wrap=True)
        await server.wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
    out.print("stopped")


def _records(db: Path) -> Store:
    if not db.exists():
        raise fail(f"no database at {db}")
    return Store(db)
