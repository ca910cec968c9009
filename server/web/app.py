"""The web table: an ASGI app (Starlette, served by uvicorn) beside the referee (``levata serve
--web PORT``) or over a file of finished records alone (``levata web --db FILE``).

Routes and who may use them (docs/web.md, docs/security.md):

* ``GET /``: matches and tournaments, each linked. Anyone.
* ``GET /live/{id}`` and ``GET /live/{id}/events`` (server-sent events): a running match as
  a spectator sees it: the public events and the public view the referee's ``WatchMatch``
  sends (:mod:`levata.server.web.live`), drawn as a frame. Anyone; nothing hidden.
* ``GET /match/{id}``: a finished match's replay. The spectator's view for anyone; a seat's
  view to the holder of that seat's bot token, the admin, or anyone when the records are
  public; the whole table to the admin or anyone when public.
* ``GET /tournament/{id}``: standings, crosstable and plots (the HTML report), each match
  linked to its replay; while the tournament runs, ``GET /tournament/{id}/events`` pushes
  the report anew as each match finishes (:mod:`levata.server.web.tournament`). Anyone.
* ``GET/POST /login``, ``GET /logout``: present a token (kept in an HttpOnly cookie), or drop it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import socket
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route

from levata.server.match import auth
from levata.server.match.store import BrokenRecord, Store
from levata.server.web.feed import EventStream
from levata.server.web.live import LiveMatch, RefereeLink
from levata.server.web.page import esc, listing_page, live_page, replay_page
from levata.server.web.record import NotViewable, match_data
from levata.server.web.tournament import Reports, tournament_list

__all__ = ["Site", "WebRules", "make_app", "serve_web"]

#: The cookie a presented token is kept in.
COOKIE = "levata_token"
#: Spectators of one live match at most (each holds a queue of a few messages).
MAX_SPECTATORS = 2000


@dataclass(frozen=True)
class WebRules:
    """Who may see what: the admin token (``None``: no admin), and whether finished records
    are public (then every seat's view and the whole table are anyone's)."""

    admin_token: str | None = None
    public: bool = False

    @classmethod
    def for_records(cls, db: Path, token_file: Path | None, public: bool) -> WebRules:
        """The rules of ``levata web``: the admin token from ``token_file``, else the one
        ``levata serve`` keeps beside ``db`` (if there)."""
        path = token_file or auth.admin_token_file_for(db)
        token = auth.read_secret(path, "admin token") if path.exists() else None
        return cls(token, public)


@dataclass(frozen=True)
class Viewer:
    """Who asks: the admin, or the holder of a bot's token (``bot``), or anyone."""

    admin: bool = False
    bot: str | None = None


def _presented(request: Request) -> str:
    header = request.headers.get("authorization", "")
    if header.startswith("Bearer "):
        return header[7:].strip()
    return request.cookies.get(COOKIE, "")


def viewer_of(request: Request, store: Store, rules: WebRules) -> Viewer:
    """The viewer a request's token makes (``Authorization: Bearer`` or the login cookie):
    compared in constant time with the admin token, and by digest with the bots'."""
    token = _presented(request)
    if not token or len(token) > auth.MAX_TOKEN_CHARS:
        return Viewer()
    if rules.admin_token and hmac.compare_digest(token.encode(), rules.admin_token.encode()):
        return Viewer(admin=True)
    wanted = auth.digest(token)
    for name, digest in store.bots().items():
        if hmac.compare_digest(digest, wanted):
            return Viewer(bot=name)
    return Viewer()


def allowed_views(row: dict[str, Any], viewer: Viewer, rules: WebRules) -> list[str]:
    """The views of a finished match ``viewer`` may step through.

    >>> row = {"players": 3, "seat_bots": ["a", "b", "a"]}
    >>> allowed_views(row, Viewer(bot="a"), WebRules())
    ['spectator', 'seat:0', 'seat:2']
    >>> allowed_views(row, Viewer(), WebRules(public=True))[-1]
    'table'
    """
    everything = viewer.admin or rules.public
    seats = [
        f"seat:{s}"
        for s, bot in enumerate(row["seat_bots"])
        if everything or (viewer.bot is not None and bot == viewer.bot)
    ]
    return ["spectator", *seats, *(["table"] if everything else [])]


def make_app(store: Store, rules: WebRules, referee: RefereeLink | None = None) -> Starlette:
    """The web app over ``store`` (beside a referee: a connection of its own to the referee's
    file); ``referee``: where the live matches are watched, through its admin service
    (``None``: finished records only)."""
    site = Site(store, rules, referee)
    routes = [
        Route("/", site.home),
        Route("/match/{match_id}", site.match_page),
        Route("/live/{match_id}", site.live_html),
        Route("/live/{match_id}/events", site.live_events),
        Route("/tournament/{tid}", site.tournament),
        Route("/tournament/{tid}/events", site.tournament_events),
        Route("/login", site.login, methods=["GET", "POST"]),
        Route("/logout", site.logout),
    ]
    app = Starlette(routes=routes)
    app.state.site = site
    return app


class Site:
    """The routes' handlers over one store (and the referee's admin service, when live)."""

    def __init__(self, store: Store, rules: WebRules, referee: RefereeLink | None) -> None:
        self.store, self.rules, self.referee = store, rules, referee
        self.live: dict[str, LiveMatch] = {}  # match id -> its onlookers' feed
        self.reports = Reports(store)  # the tournaments' pages, and their watchers' feeds

    async def live_of(self, match_id: str) -> LiveMatch | None:
        """The feed of a match the referee holds (live or just ended), its watch begun on
        first use; ``None``: no such match at the referee (or no referee)."""
        if self.referee is None or len(match_id) > 64:
            return None
        lm = self.live.get(match_id)
        if lm is None:
            lm = self.live[match_id] = LiveMatch(self.referee, match_id, self._ended)
        await lm.ready.wait()
        return None if lm.missing else lm

    def _ended(self, lm: LiveMatch) -> None:
        if self.live.get(lm.match_id) is lm:
            del self.live[lm.match_id]

    def row_of(self, match_id: str) -> dict[str, Any] | None:
        if len(match_id) > 64:
            return None
        try:
            return self.store.match(match_id)
        except BrokenRecord:
            return None

    async def home(self, request: Request) -> Response:
        matches = self.store.matches(limit=200)
        note = "beside a live referee" if self.referee is not None else "finished records only"
        return HTMLResponse(listing_page(matches, tournament_list(self.store), note))

    async def match_page(self, request: Request) -> Response:
        match_id = request.path_params["match_id"]
        row = self.row_of(match_id)
        if row is None:
            return _missing(f"no match {match_id!r}")
        if row["status"] in ("waiting", "running"):
            return RedirectResponse(f"/live/{match_id}", status_code=303)
        views = allowed_views(row, viewer_of(request, self.store, self.rules), self.rules)
        try:
            data = await asyncio.to_thread(match_data, self.store, match_id, views)
        except (NotViewable, BrokenRecord) as exc:
            return _missing(str(exc))
        return HTMLResponse(replay_page(data, back="/"))

    async def live_html(self, request: Request) -> Response:
        match_id = request.path_params["match_id"]
        lm = await self.live_of(match_id)
        if lm is None:
            row = self.row_of(match_id)
            if row is not None and row["status"] not in ("waiting", "running"):
                return RedirectResponse(f"/match/{match_id}", status_code=303)
            return _missing(f"no live match {match_id!r} here")
        first = lm.standing()[0]
        data = {
            "match_id": match_id,
            "game": lm.game,
            "title": lm.title,
            "seat_bots": lm.seat_bots,
            "frame": first["frame"],
            "first": first,
            "stream": f"/live/{match_id}/events",
            "replay": f"/match/{match_id}",
        }
        return HTMLResponse(live_page(data))

    async def live_events(self, request: Request) -> Response | EventStream:
        match_id = request.path_params["match_id"]
        lm = await self.live_of(match_id)
        if lm is None:
            return _missing(f"no live match {match_id!r} here")
        if len(lm.clients) >= MAX_SPECTATORS:
            return PlainTextResponse("too many spectators", status_code=503)
        return lm.join(lm.standing()[1], lm.ended)

    async def tournament(self, request: Request) -> Response:
        tid = request.path_params["tid"]
        report = await self.reports.report(tid)
        if report is None:
            return _missing(f"no tournament {tid!r}")
        return HTMLResponse(report.page)

    async def tournament_events(self, request: Request) -> Response | EventStream:
        tid = request.path_params["tid"]
        stream = await self.reports.stream(tid)
        if stream is None:
            return _missing(f"no tournament {tid!r}")
        return stream

    async def login(self, request: Request) -> Response:
        if request.method == "POST":
            # a plain form, read here: no multipart parser needed for two fields
            body = (await request.body())[:4096].decode("utf-8", "replace")
            form = {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}
            token = form.get("token", "")[: auth.MAX_TOKEN_CHARS]
            after = form.get("next", "/")
            # only a path of this site: never a redirect elsewhere
            safe = after if after.startswith("/") and not after.startswith("//") else "/"
            done = RedirectResponse(safe, status_code=303)
            done.set_cookie(COOKIE, token, httponly=True, samesite="strict")
            return done
        after = esc(request.query_params.get("next", "/"))
        return HTMLResponse(
            "<!doctype html><meta charset='utf-8'><title>levata: token</title>"
            "<form method='post'><p>Your bot's token (or the admin token): it is kept in a"
            " cookie this site alone reads.</p><input type='password' name='token'>"
            f"<input type='hidden' name='next' value='{after}'>"
            "<button>show me my seats</button></form>"
        )

    async def logout(self, request: Request) -> Response:
        done = RedirectResponse("/", status_code=303)
        done.delete_cookie(COOKIE)
        return done


def _missing(why: str) -> Response:
    return PlainTextResponse(why, status_code=404)


class _Beside(uvicorn.Server):
    """uvicorn's server without its own signal handling: the command that runs it stops it
    (uvicorn would take SIGINT and SIGTERM for itself)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebServer:
    """A running web app: :meth:`stop` ends it, :meth:`wait` until it ends."""

    def __init__(self, server: uvicorn.Server, task: asyncio.Task[None]) -> None:
        self.server, self.task = server, task

    async def wait(self) -> None:
        await self.task

    async def stop(self) -> None:
        self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def serve_web(app: Starlette, host: str, port: int) -> tuple[WebServer, int]:
    """Serve ``app`` on ``host:port`` (0: a free port) in the running loop; returns the
    server and the port bound."""
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,  # event streams stay open: they are cut, not waited for
    )
    server = _Beside(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if task.done():
        task.result()  # its error
    return WebServer(server, task), sock.getsockname()[1]
