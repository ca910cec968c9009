"""A tournament's page on the web table: the HTML report (standings, crosstable, plots, every
match row linked to its replay at ``/match/ID``), and, while the tournament runs, pushed to the
browser as its matches finish: the page holds an event stream (server-sent events), and each
message carries the report's new body, which the page swaps in (no reload: the reader keeps
the place they scrolled to and the match lists they opened).

The tournament may be played by another process (``levata tournament`` beside ``levata web``):
the file is what says a match has finished. While someone watches, one small query every
:data:`POLL_S` tells whether the tournament moved on; only then is the report drawn again
(once, in a worker thread) and encoded once for every watcher.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import Any

from levata.server.database import open_read_only, tables_in
from levata.server.match.store import Store
from levata.server.web.feed import KEEPALIVE, KEEPALIVE_S, EventStream, Feed, sse
from levata.server.web.page import embed

__all__ = ["POLL_S", "Report", "Reports", "has_tournaments", "tournament_list"]

#: Seconds between two looks at a watched tournament's progress in the file.
POLL_S = 0.5

#: Swaps each pushed report into the page, keeping the match lists that were open.
LIVE_JS = r"""
(() => {
  const D = JSON.parse(document.getElementById("live-data").textContent);
  const box = document.getElementById("report"), said = document.getElementById("live");
  let version = D.version;
  const src = new EventSource(D.stream);
  src.onmessage = e => {
    const m = JSON.parse(e.data);
    if (m.version !== version) {
      version = m.version;
      const open = [...box.querySelectorAll("details[open]")].map(d => d.id);
      box.innerHTML = m.body;
      for (const id of open) {
        const d = document.getElementById(id);
        if (d) d.open = true;
      }
    }
    box.dataset.version = version;
    said.textContent = m.status === "finished" ? "the tournament is finished" :
      "live: updated as each match finishes";
    if (m.status === "finished") src.close();
  };
  src.onerror = () => { said.textContent = "live: reconnecting"; };
})();
"""


@dataclass(frozen=True)
class Report:
    """A tournament's page as drawn at one point of its progress."""

    progress: Any  # its status and its matches by status (the page changes only with these)
    finished: bool
    page: str  # the whole page, as served
    message: bytes  # the body as one event: what a watcher's page swaps in


def has_tournaments(store: Store) -> bool:
    """Whether the file holds tournaments at all (a referee's file may never have had one)."""
    return "tournaments" in tables_in(store.path)


def tournament_list(store: Store) -> list[dict[str, Any]]:
    """The latest 100 tournaments: id, game, status."""
    from levata.server.tournament.store import TourneyStore

    if not has_tournaments(store):
        return []
    tdb = TourneyStore(store.path)
    try:
        return [
            {"id": t["id"], "game": t["spec"].get("game", ""), "status": t["status"]}
            for t in tdb.tournaments()[:100]
        ]
    finally:
        tdb.close()


def _progress(store: Store, tid: str) -> Any:
    """Where a tournament stands: its status and its matches by status."""
    with contextlib.closing(open_read_only(store.path)) as db:
        status = db.execute("SELECT status FROM tournaments WHERE id = ?", (tid,)).fetchone()
        counts = db.execute(
            "SELECT status, COUNT(*) FROM tournament_matches WHERE tournament_id = ?"
            " GROUP BY status ORDER BY status",
            (tid,),
        ).fetchall()
    return (status, tuple(counts))


def _draw(store: Store, tid: str) -> tuple[str, bool] | None:
    """The tournament's HTML report, each match linked to its replay, and whether the
    tournament is finished; ``None``: no such tournament."""
    from levata.server.tournament.report import details_of, html_report, standings_of
    from levata.server.tournament.spec import TournamentSpec
    from levata.server.tournament.store import TourneyStore

    tdb = TourneyStore(store.path)
    try:
        t = tdb.tournament(tid)
        if t is None:
            return None
        spec = TournamentSpec.from_dict(t["spec"])
        st = standings_of(tdb, tid)
        details = details_of(tdb, tid, store.path)  # a file, or a server's URL
        page = html_report(
            tid,
            spec.describe(),
            st,
            details=details,
            move_ms=spec.policy.get("move_ms"),
            db=store.path,
            fmt=spec.format,
            replays="/match/{id}",
        )
    finally:
        tdb.close()
    return page, t["status"] == "finished"


def _report(tid: str, progress: Any, page: str, finished: bool) -> Report:
    """The served page and the pushed message of a drawn report: while the tournament runs,
    the report's body sits in a box the pushed bodies replace."""
    head, rest = page.split("<body>", 1)
    body = rest.rsplit("</body>", 1)[0]
    version = repr(progress)
    status = "finished" if finished else "running"
    nav = '<p><a href="/">all matches</a></p>'
    if finished:
        served = f"{head}<body>{nav}{body}</body></html>"
    else:
        data = {"stream": f"/tournament/{tid}/events", "version": version}
        served = (
            f'{head}<body>{nav}<p id="live" class="note">live: updated as each match'
            f' finishes</p><div id="report">{body}</div>'
            f'<script id="live-data" type="application/json">{embed(data)}</script>'
            f"<script>{LIVE_JS}</script></body></html>"
        )
    message = sse({"version": version, "status": status, "body": body})
    return Report(progress, finished, served, message)


class Reports:
    """The tournaments' pages over one file: each drawn again only once its tournament has
    moved on (the standings' bootstrap takes a while), and one feed per watched tournament."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.kept: dict[str, Report] = {}
        self.drawing: dict[str, asyncio.Lock] = {}
        self.feeds: dict[str, LiveTournament] = {}

    async def report(self, tid: str) -> Report | None:
        """The tournament's page as it stands now (``None``: no such tournament)."""
        if len(tid) > 64 or not has_tournaments(self.store):
            return None
        async with self.drawing.setdefault(tid, asyncio.Lock()):  # one drawing at a time
            progress = _progress(self.store, tid)
            kept = self.kept.get(tid)
            if kept is not None and kept.progress == progress:
                return kept
            drawn = await asyncio.to_thread(_draw, self.store, tid)
            if drawn is None:
                return None
            report = self.kept[tid] = _report(tid, progress, *drawn)
            return report

    async def stream(self, tid: str) -> EventStream | None:
        """A watcher's event stream of the tournament's page: where it stands, then each
        new body as matches finish, until it is finished."""
        report = await self.report(tid)
        if report is None:
            return None
        feed = self.feeds.get(tid)
        if feed is None and not report.finished:
            feed = self.feeds[tid] = LiveTournament(self, tid, report)
        latest = self.kept.get(tid, report)  # drawn meanwhile, perhaps: the newest
        if feed is None:
            return Feed().join(latest.message, ended=True)
        return feed.join(latest.message, ended=False)


class LiveTournament(Feed):
    """The watchers of one running tournament's page: while any watch, the file is looked at
    every :data:`POLL_S`; a new report goes to all of them, encoded once."""

    def __init__(self, reports: Reports, tid: str, first: Report) -> None:
        super().__init__()
        self.reports, self.tid, self.sent = reports, tid, first.progress
        self.task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        said = time.monotonic()
        try:
            while True:
                await asyncio.sleep(POLL_S)
                if not self.clients:  # nobody watches: stop looking (a new watcher restarts it)
                    break
                report = await self.reports.report(self.tid)
                if report is None:
                    break
                if report.progress != self.sent:
                    self.sent = report.progress
                    await self.spread(report.message)
                    said = time.monotonic()
                    if report.finished:
                        break
                elif time.monotonic() - said > KEEPALIVE_S:
                    self.send(KEEPALIVE)
                    said = time.monotonic()
        finally:
            # no await from the last look at the watchers to here: none can join unseen
            self.close()
            if self.reports.feeds.get(self.tid) is self:
                del self.reports.feeds[self.tid]
