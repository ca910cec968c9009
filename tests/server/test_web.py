"""The web table over a real referee: live matches as a spectator sees them (nothing hidden,
for every registered game), replays built from the record exactly as each seat saw the
match, and the access rules of every route.

A real referee on loopback, the web app on uvicorn in the referee's loop, in-process SDK bots
on their own streams; the browser tests are in test_web_browser.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from levata.bots import make_bot
from levata.bots.sdk import BotClient
from levata.engine import Action, all_games, game
from levata.engine.seeds import derive
from levata.server.match.store import Store
from levata.server.web.app import WebRules, make_app, serve_web
from levata.server.web.live import RefereeLink
from levata.server.web.record import match_data

from live import QUICK_OPTIONS, LiveServer

GAMES = [s.name for s in all_games()]


class WebTable:
    """A referee with the web table beside it, as ``levata serve --web``: a connection of its
    own to the file, the live matches watched through the referee's admin service over gRPC
    (here on a loop of its own in this process; ``levata serve`` runs it as a process)."""

    def __init__(self, tmp_path: Path, public: bool = False) -> None:
        self.server = LiveServer(tmp_path / "web.db")
        reads = Store(self.server.store.path)
        link = RefereeLink(self.server.address, self.server.admin_token)
        app = make_app(reads, WebRules(self.server.admin_token, public), link)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.site, port = self.run(serve_web(app, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{port}"

    def run(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def get(self, path: str, token: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.get(self.url + path, headers=headers, timeout=30)

    def stop(self) -> None:
        self.run(self.site.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.server.stop()


@pytest.fixture
def table(tmp_path):
    t = WebTable(tmp_path)
    yield t
    t.stop()


def quick_options(name: str) -> dict[str, str]:
    """A short match of ``name``: its short options, and the referee tests' quick ones."""
    spec = game(name)
    return {**{k: str(v) for k, v in spec.short_options.items()}, **QUICK_OPTIONS.get(name, {})}


def players_of(name: str) -> int:
    spec = game(name)
    return 3 if 3 in spec.players else spec.players[0]


def create_waiting(server: LiveServer, name: str, seed: int = 21) -> tuple[str, list[str]]:
    """A match of ``name`` created with its bots registered but not yet connected."""
    bots = [f"{name}-{s}" for s in range(players_of(name))]
    for b in bots:
        if b not in server.tokens:
            server.add_bot(b)
    return server.create(name, bots, seed=seed, options=quick_options(name)), bots


class Slow:
    """A random bot that takes ``think_s`` before each answer."""

    def __init__(self, game: str, seed: int, think_s: float) -> None:
        self.bot, self.think_s = make_bot("random", game, seed=seed), think_s

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def act(self, view: Any, legal: Any) -> Any:
        time.sleep(self.think_s)
        return self.bot.act(view, legal)


def connect(server: LiveServer, bots: list[str], think_s: float = 0.0) -> list[Any]:
    """Each bot as an SDK client (a random bot, taking ``think_s`` a move) on its own stream,
    for one match."""
    clients = [
        BotClient(
            lambda g, s, m: Slow(g, derive(7, m, s), think_s),
            server.address,
            server.tokens[b],
            max_matches=1,
        )
        for b in bots
    ]
    return [asyncio.run_coroutine_threadsafe(c.run(), server.loop) for c in clients]


def sse_reader(url: str, into: list[dict[str, Any]]) -> threading.Thread:
    """Read a server-sent event stream into ``into`` (one dict per message) until it ends."""

    def read() -> None:
        with httpx.stream("GET", url, timeout=60) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("data: "):
                    into.append(json.loads(line[6:]))

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


def page_data(html: str) -> dict[str, Any]:
    """The JSON a page draws from."""
    found = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S)
    assert found, "no data in the page"
    return json.loads(found.group(1).replace("<\\/", "</"))


# -- what every seat knows alike, action by action ------------------------------------------


def public_timeline(server: LiveServer, match_id: str) -> tuple[list[frozenset[str]], set[str]]:
    """Per number of actions applied: the cards every seat has seen by then (at any event,
    as the table stood then) or a public event has named (what may be public); and every
    card of the match."""
    row = server.store.match(match_id)
    state = game(row["game"]).new_match(
        players=row["players"], options=row["options"], seed=row["seed"]
    )
    seats = range(state.players)
    seen: list[set[str]] = [set() for _ in seats]
    named: set[str] = set()  # by public events
    every: set[str] = set()

    def look(_state: Any = None, ev: Any = None) -> frozenset[str]:
        for zone in state.table():
            every.update(str(c) for c in zone.cards)
            for s in seats:
                if zone.visible_to(s):
                    seen[s].update(str(c) for c in zone.cards)
        if ev is not None and ev.audience is None:  # a public call may name a card too
            named.update([*(str(c) for c in ev.cards), *strings_in(json_of(ev.data))])
        return frozenset(set.intersection(*seen) | named)

    for ev in state.events():
        look(None, ev)
    timeline = [look()]
    state.watch(look)
    for a in server.store.actions(match_id):
        state.advance_clock(a["clock_ms"])
        if a["seat"] is not None:
            state.apply(a["seat"], Action.parse(a["action"]))
        timeline.append(look())
    state.watch(None)
    return timeline, every


def json_of(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def check_public(
    server: LiveServer, match_id: str, messages: list[dict[str, Any]], stream: bool = True
) -> None:
    """Each message names only cards every seat had seen by its version, and only public
    events; together (those of one ``stream``) they carry every public event once, in order."""
    timeline, every = public_timeline(server, match_id)
    public = {e["seq"]: e["audience"] is None for e in server.store.events(match_id)}
    name = server.store.match(match_id)["game"]
    got = []
    for msg in messages:
        v = msg["version"]
        cards = {s for s in strings_in(msg["frame"]) if s in every}
        leaked = sorted(cards - timeline[v])
        assert not leaked, f"{name}: the spectator was shown {leaked} after {v} actions"
        for seq, _line in msg["events"]:
            assert public[seq], f"{name}: the spectator was sent private event {seq}"
            got.append(seq)
    if stream:
        assert got == [q for q, p in sorted(public.items()) if p], (
            "each public event once, in order"
        )


def watch_live(table: WebTable, name: str) -> tuple[str, list[dict[str, Any]], str]:
    """A match of ``name`` watched from before it starts to its end: its id, the messages
    of its event stream, the live page fetched as it began."""
    server = table.server
    match_id, bots = create_waiting(server, name)
    messages: list[dict[str, Any]] = []
    reader = sse_reader(f"{table.url}/live/{match_id}/events", messages)
    page = table.get(f"/live/{match_id}")
    assert page.status_code == 200
    end = time.monotonic() + 20
    while not messages and time.monotonic() < end:  # watching before the bots come
        time.sleep(0.01)
    for f in connect(server, bots):
        f.result(timeout=60)
    server.wait(match_id)
    reader.join(30)
    assert not reader.is_alive(), "the event stream did not end with the match"
    return match_id, messages, page.text


@pytest.mark.parametrize("name", GAMES)
def test_a_spectator_never_sees_a_hidden_card(table, name):
    match_id, messages, page = watch_live(table, name)
    assert messages[0]["status"] == "waiting" and messages[-1]["status"] == "finished"
    assert len(messages) > 2 and any(m["status"] == "running" for m in messages)
    versions = [m["version"] for m in messages]
    assert versions == sorted(versions) and versions[-1] == table.server.applied(match_id)
    check_public(table.server, match_id, messages)
    check_public(table.server, match_id, [page_data(page)["first"]], stream=False)


def test_the_check_catches_a_leaking_spectator_page(table, monkeypatch):
    """Let the referee's public view name every hand: the check must fail."""
    import levata.server.match.spectator as spectator

    public_view = spectator.public_view

    def leaking(state: Any, views: Any = None) -> Any:
        hands = {f"hand:{s}": state.view(s, history=False).hand for s in range(state.players)}
        view = public_view(state, views)
        return dataclasses.replace(view, zones={**view.zones, **hands})

    monkeypatch.setattr(spectator, "public_view", leaking)
    match_id, messages, _ = watch_live(table, "whist")
    with pytest.raises(AssertionError, match="was shown"):
        check_public(table.server, match_id, messages)


def test_spectators_who_join_together_cost_one_drawing(table, monkeypatch):
    """Where the match stands is drawn and encoded once for every page and stream that
    joins before it moves on: a crowd arriving costs the referee's loop no work each."""
    import levata.server.web.live as live

    drawn: list[int] = []
    encoded: list[int] = []
    draw, encode = live.watched_frame, live.sse
    monkeypatch.setattr(live, "watched_frame", lambda *a: drawn.append(1) or draw(*a))
    monkeypatch.setattr(live, "sse", lambda m: encoded.append(1) or encode(m))
    match_id, _ = create_waiting(table.server, "whist")
    firsts = set()
    for _ in range(4):
        with httpx.stream("GET", f"{table.url}/live/{match_id}/events", timeout=30) as r:
            firsts.add(next(r.iter_lines()))
    assert table.get(f"/live/{match_id}").status_code == 200
    assert len(firsts) == 1 and json.loads(firsts.pop()[6:])["status"] == "waiting"
    assert (len(drawn), len(encoded)) == (1, 1)


# -- replays and their access rules ----------------------------------------------------------


def finished_match(table: WebTable, name: str = "whist") -> tuple[str, list[str]]:
    match_id, bots = create_waiting(table.server, name)
    for f in connect(table.server, bots):
        f.result(timeout=60)
    table.server.wait(match_id)
    return match_id, bots


def test_a_replay_shows_each_seat_what_the_referee_showed_it(table):
    match_id, _ = finished_match(table, "tarneeb")
    store = table.server.store
    data = match_data(store, match_id)
    row = store.match(match_id)
    assert data["views"] == ["spectator", "seat:0", "seat:1", "seat:2", "seat:3", "table"]
    actions = store.actions(match_id)
    assert len(data["steps"]) == len(actions) + 1
    state = game("tarneeb").new_match(players=4, options=row["options"], seed=row["seed"])
    for k, step in enumerate(data["steps"]):
        if k:
            a = actions[k - 1]
            state.apply(a["seat"], Action.parse(a["action"]))
            assert step["move"]["action"] == a["action"] and step["move"]["seat"] == a["seat"]
            assert step["move"]["latency_ms"] is not None  # the reply's, from the record
        for s in range(4):
            frame = step["frames"][f"seat:{s}"]
            view = state.view(s, history=False)
            assert frame["hands"][s]["cards"] == [str(c) for c in view.hand]
            assert all(h["cards"] is None for h in frame["hands"] if h["seat"] != s)
            assert frame["to_act"] == list(view.to_act)
        assert all(h["cards"] is None for h in step["frames"]["spectator"]["hands"])
        # the whole table: every hand face up
        hands = {z.owner: [str(c) for c in z.cards] for z in state.table() if z.owner is not None}
        table_hands = [h["cards"] for h in step["frames"]["table"]["hands"]]
        assert table_hands == [hands[s] for s in range(4)]
    # events: a seat's own, and public ones; the spectator public ones only
    private = {e["seq"] for e in store.events(match_id) if e["audience"] is not None}
    shown = {q for step in data["steps"] for q in step["events"]["spectator"]}
    assert shown and not shown & private
    assert data["steps"][-1]["deal"] >= 1 and data["steps"][-1]["trick"] >= 13
    # the clocks: the banks left after the last move are those the referee recorded
    recorded = row["seats"]["banks"]
    assert all(abs(a - b) <= 1 for a, b in zip(data["steps"][-1]["bank_ms"], recorded, strict=True))


def test_who_may_see_which_view(table, tmp_path):
    match_id, bots = finished_match(table)
    tokens = table.server.tokens

    def views(token: str | None) -> list[str]:
        r = table.get(f"/match/{match_id}", token)
        assert r.status_code == 200
        return page_data(r.text)["views"]

    assert views(None) == ["spectator"]
    assert views("not-a-token") == ["spectator"]
    assert views(tokens[bots[1]]) == ["spectator", "seat:1"]
    assert views(table.server.admin_token) == ["spectator", "seat:0", "seat:1", "seat:2", "table"]
    spectator = page_data(table.get(f"/match/{match_id}").text)
    assert all(set(s["frames"]) == {"spectator"} for s in spectator["steps"])
    # the login form's cookie works as the header does
    with httpx.Client(base_url=table.url) as c:
        c.post("/login", data={"token": tokens[bots[2]], "next": "/"})
        assert page_data(c.get(f"/match/{match_id}").text)["views"] == ["spectator", "seat:2"]

    # public records: every view for anyone
    async def fetch() -> httpx.Response:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=make_app(table.server.store, WebRules(None, True))),
            base_url="http://web",
        ) as c:
            return await c.get(f"/match/{match_id}")

    assert page_data(asyncio.run(fetch()).text)["views"][-1] == "table"
    # the list links the match to its replay
    home = table.get("/").text
    assert f'href="/match/{match_id}"' in home
    assert table.get("/match/nope").status_code == 404


def test_levata_view_writes_an_offline_page(table, tmp_path):
    from levata.server.cli import main

    match_id, _ = finished_match(table, "macao")
    out = tmp_path / "m.html"
    with pytest.raises(SystemExit) as done:
        main(["view", match_id, "--db", table.server.store.path, "--html", str(out)])
    assert done.value.code == 0
    html = out.read_text()
    assert "http://" not in html and "https://" not in html and "<link" not in html
    data = page_data(html)
    assert data["views"][0] == "spectator" and data["views"][-1] == "table"
    assert len(data["steps"]) == table.server.applied(match_id) + 1
    # one seat's page, for its author: that seat's view and the spectator's only
    with pytest.raises(SystemExit) as done:
        main(["view", match_id, "--db", table.server.store.path, "--html", str(out), "--seat", "1"])
    assert done.value.code == 0
    data = page_data(out.read_text())
    assert data["views"] == ["spectator", "seat:1"]
    seq_of_hands = {
        str(e["seq"]) for e in table.server.store.events(match_id) if e["audience"] == [0]
    }
    assert seq_of_hands and not seq_of_hands & set(data["lines"])  # seat 0's events left out
    with pytest.raises(SystemExit) as done:
        main(["view", match_id, "--db", table.server.store.path, "--html", str(out), "--seat", "7"])
    assert done.value.code == 2


def test_the_replay_keeps_the_clocks_as_the_referee_did(table):
    """A tight move allowance: replies over it come out of the banks, as the referee counts."""
    server = table.server
    bots = ["clock-0", "clock-1", "clock-2"]
    for b in bots:
        server.add_bot(b)
    match_id = server.create("whist", bots, seed=5, move_ms=1, bank_ms=60_000)
    for f in connect(server, bots, think_s=0.003):
        f.result(timeout=60)
    server.wait(match_id)
    last = match_data(server.store, match_id)["steps"][-1]["bank_ms"]
    recorded = server.store.match(match_id)["seats"]["banks"]
    assert min(last) < 60_000, "no reply went over a 1 ms allowance"
    assert all(abs(a - b) <= 1 for a, b in zip(last, recorded, strict=True)), (last, recorded)
