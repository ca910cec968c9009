"""The web table in a real browser: headless Chromium (driven over the DevTools protocol,
tests/browser.py) watches a live match advance, steps a replay forward and back, shows a seat
only its own cards once its token is presented, and follows a tournament page as it updates.
Screenshots are written to the test's temp folder (kept by pytest for a look)."""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from levata.bots.sdk import BotClient
from levata.engine.seeds import derive
from levata.server.match.store import Store

from browser import Browser
from test_web import Slow, WebTable, connect, create_waiting

#: Seconds each bot of the live match waits before it answers: the page must see it advance.
THINK_S = 0.12


def connect_slowly(table: WebTable, bots: list[str]) -> list[threading.Thread]:
    threads = []
    for b in bots:
        client = BotClient(
            lambda g, s, m: Slow(g, derive(7, m, s), THINK_S),
            table.server.address,
            table.server.tokens[b],
            max_matches=1,
        )
        t = threading.Thread(target=asyncio.run, args=(client.run(),), daemon=True)
        t.start()
        threads.append(t)
    return threads


@pytest.fixture
def browser(tmp_path):
    b = Browser(tmp_path)
    yield b
    b.close()


def shot(browser: Browser, tmp_path: Path, name: str) -> None:
    path = browser.screenshot(tmp_path / f"{name}.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000  # drawn, not blank
    keep = os.environ.get("LEVATA_SCREENS")  # a folder to copy them to, for a look
    if keep:
        Path(keep, path.name).write_bytes(data)


def test_live_match_replay_and_seat_view(tmp_path, browser):
    table = WebTable(tmp_path)
    try:
        match_id, bots = create_waiting(table.server, "whist")
        browser.go(f"{table.url}/live/{match_id}")
        assert browser.js("document.title") == f"levata live {match_id}"
        assert browser.js("document.querySelectorAll('.seat').length") == 3
        threads = connect_slowly(table, bots)
        # the page advances by itself, pushed by the referee's events
        browser.wait("+document.getElementById('where').dataset.version >= 2")
        assert browser.js("document.querySelectorAll('.seat .card:not(.back)').length") == 0
        first = browser.js("document.getElementById('log').children.length")
        shot(browser, tmp_path, "live-whist")
        browser.wait("document.getElementById('status').textContent.includes('finished')", 60)
        assert browser.js("document.getElementById('log').children.length") > first
        seqs = browser.js("[...document.getElementById('log').children].map(d => +d.dataset.seq)")
        assert seqs == sorted(set(seqs)), "each event once, in order"
        for t in threads:
            t.join(30)

        # the replay: the spectator's view, stepped forward and back
        browser.go(f"{table.url}/match/{match_id}")
        assert browser.js("[...document.getElementById('view').options].map(o => o.value)") == [
            "spectator"
        ]
        where = "document.getElementById('where').textContent"
        assert browser.js(where).startswith("step 0 /")
        for _ in range(3):
            browser.js("document.getElementById('fwd').click()")
        assert browser.js(where).startswith("step 3 /")
        browser.js("document.getElementById('back').click()")
        assert browser.js(where).startswith("step 2 /")
        assert browser.js("document.querySelector('#move').textContent").startswith("seat ")
        assert "reply in" in browser.js("document.querySelector('#move').textContent")

        # seat 1's view, once its token is presented: its cards, the others' backs only
        browser.go(f"{table.url}/login?next=/match/{match_id}")
        token = table.server.tokens[bots[1]]
        browser.js(
            f"document.querySelector('input[name=token]').value = '{token}';"
            " document.forms[0].submit()"
        )
        browser.wait(
            f"location.pathname === '/match/{match_id}' && !!document.getElementById('view')"
        )
        assert browser.js("[...document.getElementById('view').options].map(o => o.value)") == [
            "spectator",
            "seat:1",
        ]
        browser.js("const v = document.getElementById('view'); v.value = 'seat:1';"
                   " v.dispatchEvent(new Event('change'))")  # fmt: skip
        mine = browser.js(
            "[...document.querySelectorAll('.seat[data-seat=\"1\"] .card')]"
            ".map(c => c.dataset.card)"
        )
        assert mine and all(mine)  # faces
        others = "document.querySelectorAll('.seat:not([data-seat=\"1\"]) .card:not(.back)').length"
        assert browser.js(others) == 0
        shot(browser, tmp_path, "seat-view-whist")
        # a phone-sized screen: everything wraps, nothing runs off to the side
        browser.page("Emulation.setDeviceMetricsOverride", width=390, height=800,
                     deviceScaleFactor=1, mobile=True)  # fmt: skip
        assert browser.js("document.documentElement.scrollWidth") <= 390
        shot(browser, tmp_path, "phone-seat-view-whist")
    finally:
        table.stop()


def test_a_macao_replay_and_a_tarneeb_seat(tmp_path, browser):
    table = WebTable(tmp_path, public=True)
    try:
        match_id, bots = create_waiting(table.server, "macao")
        for f in connect(table.server, bots):
            f.result(timeout=60)
        table.server.wait(match_id)
        browser.go(f"{table.url}/match/{match_id}#spectator@5")
        assert browser.js("document.getElementById('where').textContent").startswith("step 5 /")
        # records are public here: the whole table is offered, every hand face up
        browser.js("const v = document.getElementById('view'); v.value = 'table';"
                   " v.dispatchEvent(new Event('change'))")  # fmt: skip
        assert browser.js("document.querySelectorAll('.seat .card.back').length") == 0
        assert browser.js("document.querySelectorAll('.zone').length") >= 1
        shot(browser, tmp_path, "replay-macao")

        # a Tarneeb seat's view, mid-deal: its own cards face up, the other hands' backs
        match_id, bots = create_waiting(table.server, "tarneeb")
        for f in connect(table.server, bots):
            f.result(timeout=60)
        table.server.wait(match_id)
        browser.go(f"{table.url}/match/{match_id}#seat:2@12")
        assert browser.js("document.getElementById('view').value") == "seat:2"
        mine = "document.querySelectorAll('.seat[data-seat=\"2\"] .card:not(.back)').length"
        assert browser.js(mine) > 0
        others = "document.querySelectorAll('.seat:not([data-seat=\"2\"]) .card:not(.back)').length"
        assert browser.js(others) == 0
        shot(browser, tmp_path, "seat-view-tarneeb")
    finally:
        table.stop()


def finished_matches(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
            (n,) = c.execute(
                "SELECT count(*) FROM tournament_matches WHERE status = 'finished'"
            ).fetchone()
            return int(n)
    except sqlite3.OperationalError:
        return 0


def test_a_tournament_page_updates_while_it_runs(tmp_path, browser):
    db = tmp_path / "t.db"
    Store(db).close()  # the file levata web serves, before the tournament writes to it
    web = subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", "web", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    run = None
    try:
        assert web.stdout is not None
        said = web.stdout.readline()
        url = re.search(r"http://\S+/", said)
        assert url, said
        run = subprocess.Popen(
            [sys.executable, "-m", "levata.server.cli", "tournament", "--game", "whist",
             "--bots", "heuristic,random,random", "--deals", "4", "--db", str(db), "--quiet"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        end = time.monotonic() + 60
        while finished_matches(db) < 1 and time.monotonic() < end:
            time.sleep(0.02)
        tid = sqlite3.connect(db).execute("SELECT id FROM tournaments").fetchone()[0]
        browser.go(f"{url.group(0)}tournament/{tid}")
        html = browser.js("document.documentElement.outerHTML")
        assert "http-equiv" not in html and "location.reload" not in html
        browser.js("window.stayed = true")  # gone if the page were loaded again
        # a bot's match list, opened by the reader: still open after each push
        opened = browser.js("const d = document.querySelector('#matches details');"
                            " d.open = true; d.id")  # fmt: skip
        played = "+document.body.textContent.match(/(\\d+) of (\\d+) scheduled/)[1]"
        before = browser.js(played)
        assert before < 24, "the tournament ended before its page was seen"
        browser.wait(f"{played} > {before}", 60)  # pushed as matches end
        shot(browser, tmp_path, "tournament-live-whist")
        assert run.wait(60) == 0, run.stderr.read() if run.stderr else ""
        browser.wait(f"{played} === 24", 60)
        browser.wait("document.getElementById('live').textContent.endsWith('finished')", 30)
        assert browser.js("window.stayed === true"), "the page was reloaded, not pushed"
        assert browser.js(f"document.getElementById('{opened}').open")
        shot(browser, tmp_path, "tournament-whist")
        links = browser.js("[...document.querySelectorAll('a.replay')].map(a => a.href)")
        assert len(links) == 24 * 3  # each bot's list links each of its matches
        assert all(re.search(r"/match/[0-9a-f]+$", h) for h in links)
        browser.go(links[0])
        assert browser.js("document.title").startswith("levata replay ")
    finally:
        for p in (run, web):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(10)

    the_report_file_links_each_match_to_its_replay(browser, tmp_path, db, tid)


def the_report_file_links_each_match_to_its_replay(
    browser: Browser, tmp_path: Path, db: Path, tid: str
) -> None:
    """``levata report --html``: every match row links to its replay page, written beside
    the report by default; a person opening the file follows one to that match."""
    report = tmp_path / "out" / "report.html"
    report.parent.mkdir()  # a missing folder is refused before any work (test_cli_failures)
    from levata.server.cli import main

    with pytest.raises(SystemExit) as made:
        main(["report", tid, "--db", str(db), "--html", str(report), "--resamples", "10"])
    assert made.value.code == 0
    hrefs = re.findall(r'class="replay" href="([^"]+)"', report.read_text())
    assert len(hrefs) == 24 * 3 and all((report.parent / h).is_file() for h in hrefs)
    browser.go(report.as_uri())  # as a person opens it: from the file
    row = "document.querySelector('#matches tbody tr')"
    match_id = browser.js(f"{row}.querySelector('code').textContent")
    browser.js(f"{row}.querySelector('a.replay').click()")
    browser.wait(f"document.title === 'levata replay {match_id}'")
    assert browser.js("document.getElementById('where').textContent").startswith("step 0 /")
    shown = browser.js("JSON.parse(document.getElementById('data').textContent).match_id")
    assert shown == match_id
    # --no-replays: a report that links to none, and no folder beside it
    bare = tmp_path / "bare" / "report.html"
    bare.parent.mkdir()
    with pytest.raises(SystemExit) as made:
        main(["report", tid, "--db", str(db), "--html", str(bare), "--no-replays",
              "--resamples", "10"])  # fmt: skip
    assert made.value.code == 0
    assert 'class="replay"' not in bare.read_text() and os.listdir(bare.parent) == [bare.name]
