"""The viewer's pages: one HTML document each, CSS and JavaScript inline, no network (a replay
written by ``levata view`` opens from a file, offline, on a phone-sized screen too).

The data a page draws is embedded as JSON (``<script type="application/json">``); the same
drawing code serves a replay (steps forward and back) and a live match (frames pushed by
server-sent events).

>>> html = replay_page({"match_id": "m1", "game": "whist", "title": "Whist", "steps": []})
>>> html.startswith("<!doctype html>") and "http://" not in html and "https://" not in html
True
"""

from __future__ import annotations

import html as _html
import json
from typing import Any

__all__ = ["embed", "esc", "listing_page", "live_page", "replay_page"]


def esc(x: object) -> str:
    """Text for HTML.

    >>> esc("<b>&")
    '&lt;b&gt;&amp;'
    """
    return _html.escape(str(x), quote=True)


def embed(data: Any) -> str:
    """``data`` as JSON that cannot close the script element it sits in.

    >>> embed({"a": "</script>"})
    '{"a": "<\\\\/script>"}'
    """
    return json.dumps(data, separators=(", ", ": ")).replace("</", "<\\/")


STYLE = """
:root { --felt:#1f5f3f; --ink:#1d232b; --muted:#66707c; --line:#d5d9de; --hl:#ffe08a; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; color: var(--ink); margin: 0; background: #f4f5f7; }
header { padding: .6em 1em; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.15em; margin: 0; }
header .sub { color: var(--muted); font-size: .9em; }
main { padding: .6em; max-width: 1200px; margin: auto; }
.controls { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin: .4em 0; }
.controls button, .controls select { font-size: 1em; padding: .3em .6em; }
.controls input[type=range] { flex: 1 1 160px; }
#board { display: flex; flex-wrap: wrap; gap: .6em; }
#felt { flex: 3 1 520px; background: var(--felt); color: #fff; border-radius: 10px;
  padding: .6em; min-height: 300px; }
#side { flex: 1 1 260px; min-width: 240px; }
.seats { display: flex; flex-wrap: wrap; gap: .5em; }
.seat { flex: 1 1 220px; background: rgba(0,0,0,.18); border-radius: 8px; padding: .4em;
  border: 2px solid transparent; }
.seat.turn { border-color: var(--hl); }
.seat .who { font-weight: 600; } .seat .who small { font-weight: 400; opacity: .8; }
.zones { display: flex; flex-wrap: wrap; gap: .5em; margin: .6em 0; }
.zone { background: rgba(255,255,255,.08); border-radius: 8px; padding: .4em; min-width: 90px; }
.zone .name { font-size: .8em; opacity: .85; }
.zone.down .name::after { content: " (face down)"; }
.cards { display: flex; flex-wrap: wrap; gap: 3px; margin-top: .2em; }
.card { display: inline-flex; align-items: center; justify-content: center; width: 2.3em;
  height: 3.2em; border-radius: 5px; background: #fff; color: #111; font-weight: 700;
  border: 1px solid #999; font-size: .95em; }
.card.red { color: #c0152f; }
.card.back { background: repeating-linear-gradient(45deg,#2c4a8a,#2c4a8a 4px,#3d5fa8 4px,
  #3d5fa8 8px); border-color: #1b2f5c; }
.card.down { opacity: .7; }
.more { align-self: center; font-size: .85em; opacity: .85; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .5em;
  margin-bottom: .6em; }
.panel h2 { font-size: .95em; margin: 0 0 .3em; }
#move .strike { color: #b00020; font-weight: 700; } #move .refused { color: #9a5b00; }
#log { max-height: 260px; overflow: auto; font-family: ui-monospace, monospace; font-size: .85em;
  white-space: pre-wrap; margin: 0; }
#log .now { background: var(--hl); }
dl.kv { display: grid; grid-template-columns: auto 1fr; gap: 0 .6em; margin: 0; font-size: .85em; }
dl.kv dt { color: var(--muted); } dl.kv dd { margin: 0; word-break: break-word; }
table.list { border-collapse: collapse; width: 100%; background: #fff; }
table.list td, table.list th { border-bottom: 1px solid var(--line); padding: .3em .5em;
  text-align: left; }
.note { color: var(--muted); font-size: .9em; }
.badge { background: #eef; border-radius: 4px; padding: 0 .3em; font-size: .85em; }
"""

#: Draws a frame (see levata.server.web.frames) and an event log; shared by every page.
DRAW_JS = r"""
const SUITS = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function card(text, faceUp) {
  if (text === null) return el("span", "card back", "");
  const suit = text.slice(-1), rank = text.slice(0, -1);
  const c = el("span", "card" + (suit === "H" || suit === "D" ? " red" : "") +
    (faceUp === false ? " down" : ""), SUITS[suit] ? rank + SUITS[suit] : text);
  c.dataset.card = text;
  return c;
}
function cardRow(cards, count, faceUp) {
  const row = el("div", "cards");
  if (cards === null) {
    for (let i = 0; i < Math.min(count, 16); i++) row.appendChild(card(null));
    if (count > 16) row.appendChild(el("span", "more", "+" + (count - 16)));
  } else {
    for (const c of cards) row.appendChild(card(c, faceUp));
  }
  return row;
}
function kv(obj) {
  const dl = el("dl", "kv");
  for (const [k, v] of Object.entries(obj || {})) {
    dl.appendChild(el("dt", "", k));
    dl.appendChild(el("dd", "", typeof v === "string" ? v : JSON.stringify(v)));
  }
  return dl;
}
function drawFrame(felt, f, bots) {
  felt.replaceChildren();
  if (!f) return;
  const top = el("div", "sub", "phase " + f.phase + (f.trump ? " \u00b7 trump " + f.trump : ""));
  felt.appendChild(top);
  const zones = el("div", "zones");
  for (const [name, cards, up] of f.zones) {
    const z = el("div", "zone" + (up ? "" : " down"));
    z.dataset.zone = name;
    z.appendChild(el("div", "name", name + " (" + cards.length + ")"));
    z.appendChild(cardRow(cards, cards.length, up));
    zones.appendChild(z);
  }
  for (const [name, n] of Object.entries(f.counts || {})) {
    if (f.zones.some(z => z[0] === name)) continue;
    const z = el("div", "zone down");
    z.appendChild(el("div", "name", name + " (" + n + ")"));
    z.appendChild(cardRow(null, Math.min(n, 4), false));
    zones.appendChild(z);
  }
  const seats = el("div", "seats");
  for (const h of f.hands) {
    const s = el("div", "seat" + (f.to_act.includes(h.seat) ? " turn" : ""));
    s.dataset.seat = h.seat;
    const who = el("div", "who", "seat " + h.seat + " ");
    who.appendChild(el("small", "", (bots[h.seat] || "") + " \u00b7 score " +
      (f.scores[h.seat] ?? "") + (f.to_act.includes(h.seat) ? " \u00b7 to act" : "")));
    s.appendChild(who);
    s.appendChild(cardRow(h.cards, h.count, true));
    seats.appendChild(s);
  }
  felt.appendChild(seats);
  felt.appendChild(zones);
}
"""

REPLAY_JS = r"""
const D = JSON.parse(document.getElementById("data").textContent);
const $ = id => document.getElementById(id);
let at = 0, view = D.views[0];
function stepTo(i) {
  at = Math.max(0, Math.min(D.steps.length - 1, i));
  const s = D.steps[at];
  drawFrame($("felt"), s.frames[view], D.seat_bots);
  $("slider").value = at;
  $("where").textContent = "step " + at + " / " + (D.steps.length - 1) +
    " \u00b7 deal " + s.deal + " \u00b7 trick " + s.trick;
  $("deal").value = String(s.deal);
  const m = $("move");
  m.replaceChildren();
  if (s.move) {
    const mv = s.move;
    m.appendChild(el("div", "", (mv.seat === null ? "clock" : "seat " + mv.seat) + ": " +
      mv.action + " at " + (mv.clock_ms / 1000).toFixed(2) + " s"));
    if (mv.latency_ms !== null)
      m.appendChild(el("div", "", "reply in " + mv.latency_ms.toFixed(1) + " ms"));
    if (mv.strike) m.appendChild(el("div", "strike", "strike: default move" +
      (mv.why ? " (" + mv.why + ")" : "")));
    for (const r of mv.refusals)
      m.appendChild(el("div", "refused", "refused " + r.outcome + ": " + r.detail));
  } else {
    m.appendChild(el("div", "note", "the deal, before any move"));
  }
  m.appendChild(el("div", "note", "thinking so far (ms): " + s.thought_ms.join(", ")));
  m.appendChild(el("div", "note", "time bank left (ms): " + s.bank_ms.join(", ")));
  const log = $("log");
  log.replaceChildren();
  for (let k = Math.max(0, at - 40); k <= at; k++) {
    for (const q of D.steps[k].events[view] || []) {
      const line = el("div", k === at ? "now" : "", D.lines[String(q)]);
      line.dataset.seq = q;
      log.appendChild(line);
    }
  }
  log.scrollTop = log.scrollHeight;
  const f = s.frames[view];
  $("numbers").replaceChildren(kv(f ? f.counters : {}));
  $("facts").replaceChildren(kv(f ? f.facts : {}));
  history.replaceState(null, "", "#" + view + "@" + at);
}
function findStep(from, dir, key) {
  for (let i = from + dir; i >= 0 && i < D.steps.length; i += dir)
    if (D.steps[i][key] !== D.steps[i - dir]?.[key]) return i;
  return dir > 0 ? D.steps.length - 1 : 0;
}
function init() {
  const sel = $("view");
  for (const v of D.views) sel.appendChild(new Option(v === "spectator" ? "spectator" :
    v === "table" ? "whole table" : v.replace("seat:", "seat ") + " (" +
    D.seat_bots[+v.split(":")[1]] + ")", v));
  const deals = $("deal");
  const seen = new Set(D.steps.map(s => s.deal));
  for (const d of seen) deals.appendChild(new Option("deal " + d, String(d)));
  $("slider").max = Math.max(0, D.steps.length - 1);
  const [hv, hs] = location.hash.slice(1).split("@");
  if (D.views.includes(hv)) view = hv;
  sel.value = view;
  sel.onchange = () => { view = sel.value; stepTo(at); };
  deals.onchange = () => stepTo(D.steps.findIndex(s => String(s.deal) === deals.value));
  $("first").onclick = () => stepTo(0);
  $("back").onclick = () => stepTo(at - 1);
  $("fwd").onclick = () => stepTo(at + 1);
  $("last").onclick = () => stepTo(D.steps.length - 1);
  $("ptrick").onclick = () => stepTo(findStep(at, -1, "trick"));
  $("ntrick").onclick = () => stepTo(findStep(at, 1, "trick"));
  $("slider").oninput = e => stepTo(+e.target.value);
  document.onkeydown = e => {
    if (e.key === "ArrowRight") stepTo(at + 1);
    if (e.key === "ArrowLeft") stepTo(at - 1);
  };
  stepTo(hs ? +hs : 0);
}
init();
"""

LIVE_JS = r"""
const D = JSON.parse(document.getElementById("data").textContent);
const $ = id => document.getElementById(id);
let frame = D.frame, lastSeq = -1;
function show(msg) {
  if (msg.frame) frame = msg.frame;
  drawFrame($("felt"), frame, D.seat_bots);
  const log = $("log");
  for (const [seq, line] of msg.events || []) {
    if (seq <= lastSeq) continue;  // the stream starts with the match so far: shown already
    lastSeq = seq;
    const d = el("div", "", line);
    d.dataset.seq = seq;
    log.appendChild(d);
  }
  log.scrollTop = log.scrollHeight;
  $("where").textContent = msg.status + " \u00b7 " + msg.version + " moves";
  $("where").dataset.version = msg.version;
  $("numbers").replaceChildren(kv(frame.counters));
  $("facts").replaceChildren(kv(frame.facts));
  if (msg.status !== "running" && msg.status !== "waiting") {
    $("status").replaceChildren(el("span", "", "the match is " + msg.status + ": "));
    const a = el("a", "", "its replay");
    a.href = D.replay;
    $("status").appendChild(a);
  }
}
show(D.first);
if (window.EventSource && D.first.status !== "finished" && D.first.status !== "aborted") {
  const src = new EventSource(D.stream);
  src.onmessage = e => {
    const msg = JSON.parse(e.data);
    show(msg);
    if (msg.status === "finished" || msg.status === "aborted") src.close();
  };
}
"""


def _head(title: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>"
    )


def _seats_line(data: dict[str, Any]) -> str:
    bots = data.get("seat_bots") or []
    return ", ".join(f"seat {i}: {esc(b)}" for i, b in enumerate(bots))


def replay_page(data: dict[str, Any], back: str = "") -> str:
    """A finished match stepped through (``data``: :func:`levata.server.web.record.
    match_data`); ``back`` a link to the list it came from, if any."""
    result = data.get("result") or {}
    said = ""
    if result:
        said = f" \u00b7 scores {esc(result.get('scores'))}"
        if result.get("reason") == "forfeit":
            said += f" \u00b7 forfeit: {esc(result.get('detail', ''))}"
    refused = "".join(
        f"<li>seat {esc(r['seat'])}: {esc(r['count'])} \u00d7 {esc(r['outcome'])}"
        f" ({esc(r['detail'])})</li>"
        for r in data.get("refused", [])
    )
    broken = f'<p class="note">{esc(data["broken"])}</p>' if data.get("broken") else ""
    nav = f'<a href="{esc(back)}">all matches</a> \u00b7 ' if back else ""
    return "".join(
        [
            _head(f"levata replay {data['match_id']}"),
            f"<header><h1>{esc(data.get('title', data['game']))} \u00b7 match "
            f"<code>{esc(data['match_id'])}</code></h1>",
            f'<div class="sub">{nav}{esc(data.get("status", ""))} \u00b7 '
            f"{_seats_line(data)}{said} \u00b7 strikes {esc(data.get('strikes', []))}</div>"
            f"{broken}</header><main>",
            '<div class="controls"><button id="first" title="first">|\u25c0</button>'
            '<button id="back" title="back (\u2190)">\u25c0</button>'
            '<button id="fwd" title="forward (\u2192)">\u25b6</button>'
            '<button id="last" title="last">\u25b6|</button>'
            '<input id="slider" type="range" min="0" value="0">'
            '<button id="ptrick">\u2190 trick</button><button id="ntrick">trick \u2192</button>'
            '<select id="deal"></select><select id="view"></select>'
            '<span id="where" class="note"></span></div>',
            '<div id="board"><div id="felt"></div><div id="side">',
            '<div class="panel"><h2>move</h2><div id="move"></div></div>',
            '<div class="panel"><h2>events</h2><pre id="log"></pre></div>',
            '<div class="panel"><h2>numbers</h2><div id="numbers"></div></div>',
            '<div class="panel"><h2>facts</h2><div id="facts"></div></div>',
            (
                f'<div class="panel"><h2>refused replies</h2><ul>{refused}</ul></div>'
                if refused
                else ""
            ),
            "</div></div></main>",
            f'<script id="data" type="application/json">{embed(data)}</script>',
            f"<script>{DRAW_JS}{REPLAY_JS}</script></body></html>",
        ]
    )


def live_page(data: dict[str, Any]) -> str:
    """A live match as a spectator sees it: ``data`` holds the header, the first message
    (``first``: frame, events, status, version), the stream's and the replay's addresses."""
    return "".join(
        [
            _head(f"levata live {data['match_id']}"),
            f"<header><h1>{esc(data['title'])} \u00b7 live match "
            f"<code>{esc(data['match_id'])}</code></h1>",
            f'<div class="sub"><a href="/">all matches</a> \u00b7 {_seats_line(data)} \u00b7 '
            'public information only</div><div id="status" class="sub"></div></header><main>',
            '<div class="controls"><span id="where" class="note"></span></div>',
            '<div id="board"><div id="felt"></div><div id="side">',
            '<div class="panel"><h2>events</h2><pre id="log"></pre></div>',
            '<div class="panel"><h2>numbers</h2><div id="numbers"></div></div>',
            '<div class="panel"><h2>facts</h2><div id="facts"></div></div>',
            "</div></div></main>",
            f'<script id="data" type="application/json">{embed(data)}</script>',
            f"<script>{DRAW_JS}{LIVE_JS}</script></body></html>",
        ]
    )


def listing_page(
    matches: list[dict[str, Any]], tournaments: list[dict[str, Any]], note: str = ""
) -> str:
    """The front page: tournaments, then matches (newest first), each linked."""
    rows = []
    for m in matches:
        link = f"/live/{m['id']}" if m["status"] in ("waiting", "running") else f"/match/{m['id']}"
        rows.append(
            f'<tr data-match="{esc(m["id"])}"><td><a href="{esc(link)}"><code>{esc(m["id"])}'
            f"</code></a></td><td>{esc(m['game'])}</td><td>{esc(m['status'])}</td>"
            f"<td>{esc(', '.join(m['seat_bots']))}</td><td>{esc(m.get('label') or '')}</td></tr>"
        )
    tours = [
        f'<tr><td><a href="/tournament/{esc(t["id"])}"><code>{esc(t["id"])}</code></a></td>'
        f"<td>{esc(t['game'])}</td><td>{esc(t['status'])}</td></tr>"
        for t in tournaments
    ]
    return "".join(
        [
            _head("levata"),
            f'<header><h1>levata</h1><div class="sub">{esc(note)}</div></header><main>',
            '<h2>Tournaments</h2><table class="list" id="tournaments"><tr><th>id</th>'
            "<th>game</th><th>status</th></tr>",
            *tours,
            '</table><h2>Matches</h2><table class="list" id="matches"><tr><th>id</th>'
            "<th>game</th><th>status</th><th>seats</th><th>label</th></tr>",
            *rows,
            "</table></main></body></html>",
        ]
    )
