"""Standings for people: tables in the terminal, and one self-contained HTML page.

``levata report ID --html report.html`` writes a page that needs nothing but itself: the
standings table, the crosstable, and three plots drawn here as inline SVG (mean score per
deal with its interval, ratings with their intervals, the distribution of each entry's score
per deal). No script, no stylesheet or font to fetch: it opens offline, and prints.

>>> from levata.server.tournament.standings import compute_standings
>>> rows = [{"index": 0, "group": 0, "seats": ["a", "b"],
...          "result": {"scores": [3, -1], "ranks": [1, 2], "forfeited": [], "deals": 1}}]
>>> page = html_report("t1", "whist, 2 players", compute_standings(["a", "b"], rows, 1, 50))
>>> page.startswith("<!doctype html>") and 'id="standings-table"' in page and "<svg" in page
True
"""

from __future__ import annotations

import html
import itertools
import json
import math
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from levata.server.database import tables_in
from levata.server.tournament.details import Details, tournament_details
from levata.server.tournament.spec import TournamentSpec
from levata.server.tournament.standings import (
    RESAMPLES,
    Interval,
    Standings,
    compute_standings,
)
from levata.server.tournament.store import TourneyStore

__all__ = [
    "REPLY_TIMES",
    "details_of",
    "fmt_interval",
    "forfeit_warnings",
    "html_report",
    "print_details",
    "print_standings",
    "standings_of",
    "summary_json",
]

# -- text --------------------------------------------------------------------------------------


def _num(x: float, digits: int = 2, sign: bool = True) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def fmt_interval(iv: Interval, digits: int = 2) -> str:
    """``+1.25 [+0.50, +2.00]``.

    >>> fmt_interval(Interval(1.25, 0.5, 2.0))
    '+1.25 [+0.50, +2.00]'
    """
    return f"{_num(iv.value, digits)} [{_num(iv.low, digits)}, {_num(iv.high, digits)}]"


def _vs_next(st: Standings, names: list[str], i: int, rating: bool) -> str:
    if i + 1 >= len(names):
        return ""
    p = st.pair(names[i], names[i + 1])
    iv = p.rating_diff if rating else p.diff
    return "yes" if iv.significant else "n.s."


def print_standings(console: Console, st: Standings, title: str = "standings") -> None:
    """The standings and the crosstable as ``rich`` tables."""
    pct = round(st.level * 100)
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    names = [b.name for b in st.bots]
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("bot", no_wrap=True, min_width=max(len(n) for n in names))
    heads = ["score/deal", f"{pct}% CI", "sig", "rating", f"{pct}% CI", "1st", "played"]
    forfeits = any(b.forfeits for b in st.bots)
    for name in heads + (["forfeits"] if forfeits else []):
        table.add_column(name, justify="right", no_wrap=True)
    for i, b in enumerate(st.bots):
        table.add_row(
            str(i + 1),
            b.name,
            _num(b.mean.value),
            f"[{_num(b.mean.low)}, {_num(b.mean.high)}]",
            _vs_next(st, names, i, rating=False),
            _num(b.rating.value, 0),
            f"[{_num(b.rating.low, 0)}, {_num(b.rating.high, 0)}]",
            f"{b.wins:.0%}" if not math.isnan(b.wins) else "-",
            str(b.matches),
            *([str(b.forfeits)] if forfeits else []),
        )
    console.print(table)
    if len(names) > 1:
        cross = Table(
            title=f"crosstable: row minus column, score per deal, {pct}% CI; ahead: row finished"
            " ahead (ties half)",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            collapse_padding=True,
        )
        cross.add_column("", no_wrap=True)
        for n in names:
            cross.add_column(n, justify="right")
        for a in names:
            cells = []
            for c in names:
                p = st.pairs.get((a, c))
                if p is None or not p.matches:
                    cells.append("")
                    continue
                text = f"{fmt_interval(p.diff)}\nahead {p.ahead:.0%}"
                cells.append(text if p.diff.significant else f"[dim]{text} n.s.[/dim]")
            cross.add_row(a, *cells)
        console.print(cross)
    console.print(
        f"{st.matches} of {st.scheduled} matches, {st.groups} deal groups. CI: {st.resamples}"
        " bootstrap resamples of whole deal groups. sig: is the paired score difference to the"
        " next line significant (n.s.: its CI covers 0). rating: Bradley-Terry on finishing"
        " order, Elo scale, mean 0. 1st: share of matches won.",
        soft_wrap=True,
    )


#: The title of the terminal's reply-times table, printed last: everything above it follows
#: from the match results alone (a resumed run prints it identically), the reply times do not.
REPLY_TIMES = "reply times (ms) and faults"


def _table(title: str) -> Table:
    return Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)


def print_details(
    console: Console, details: Details, st: Standings, move_ms: int | None = None
) -> None:
    """The breakdowns as ``rich`` tables: score per deal by seat, by deal size when the
    sizes vary, and (last, under :data:`REPLY_TIMES`) the reply times, faults and strikes."""
    seats = _table("score per deal by seat")
    seats.add_column("bot", no_wrap=True)
    for seat in details.seats:
        seats.add_column(f"seat {seat}", justify="right", no_wrap=True)
    for b in st.bots:
        e = details.entries[b.name]
        name = f"{b.name} (forfeited {e.forfeits})" if e.forfeits else b.name
        seats.add_row(
            name, *(_num(e.by_seat[s][0]) if s in e.by_seat else "-" for s in details.seats)
        )
    console.print(seats)
    if details.unit and len(details.sizes) > 1:
        sizes = _table(f"score per deal by {details.unit}")
        sizes.add_column("bot", no_wrap=True)
        for v in details.sizes:
            sizes.add_column(v, justify="right", no_wrap=True)
        for b in st.bots:
            e = details.entries[b.name]
            sizes.add_row(
                b.name, *(_num(e.by_size[v][0]) if v in e.by_size else "-" for v in details.sizes)
            )
        console.print(sizes)
    if not details.records:
        console.print(
            "reply times: the referee's records of these matches are not in this file",
            soft_wrap=True,
        )
        return
    clocks = _table(REPLY_TIMES)
    clocks.add_column("bot", no_wrap=True)
    for head in ("replies", "median", "95%", "max", "late", "refused", "strikes"):
        clocks.add_column(head, justify="right", no_wrap=True)
    for b in st.bots:
        e = details.entries[b.name]
        c = e.clock
        if c is None:
            row = ["0", "-", "-", "-", "0", "0"]
        else:
            late = c.outcomes.get("timeout", 0)
            row = [
                str(c.replies),
                *(_num(c.quantile(q), 0, False) for q in (0.5, 0.95, 1.0)),
                str(late),
                str(c.faults - late),
            ]
        clocks.add_row(b.name, *row, str(e.strikes))
    console.print(clocks)
    console.print(
        (f"allowance: {move_ms} ms a move; " if move_ms else "")
        + "late: no reply by the deadline (a strike); refused: illegal, stale or malformed"
        " replies",
        soft_wrap=True,
    )


# -- SVG ---------------------------------------------------------------------------------------

_COLORS = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a"]


def _esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def _ticks(lo: float, hi: float, n: int = 6) -> list[float]:
    """Round tick values covering ``[lo, hi]``.

    >>> _ticks(-3.2, 7.9)
    [-4, -2, 0, 2, 4, 6, 8]
    """
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw)
    start = math.floor(lo / step) * step
    out = []
    v = start
    while v <= hi + step * 1e-9:
        out.append(round(v, 10))
        v += step
    if out[-1] < hi:
        out.append(round(v, 10))
    return out


def forest_plot(
    items: Sequence[tuple[str, Interval]],
    title: str,
    unit: str,
    svg_id: str,
    colors: dict[str, str] | None = None,
) -> str:
    """A horizontal interval plot: one row per item, a dot at the value, a bar for the
    interval, a dashed line at zero; items whose interval covers zero are drawn hollow.
    ``colors``: each label's colour (a bot keeps its colour on every plot)."""
    width, left, right, row, top = 720, 150, 30, 34, 40
    height = top + row * len(items) + 40
    lows = [iv.low for _, iv in items if not math.isnan(iv.low)] + [0.0]
    highs = [iv.high for _, iv in items if not math.isnan(iv.high)] + [0.0]
    ticks = _ticks(min(lows), max(highs))
    lo, hi = ticks[0], ticks[-1]

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (width - left - right)

    parts = [
        f'<svg id="{svg_id}" class="plot" xmlns="http://www.w3.org/2000/svg" role="img"'
        f' viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
        f"<title>{_esc(title)}</title>",
        f'<text x="{left}" y="20" class="ptitle">{_esc(title)}</text>',
    ]
    axis_y = top + row * len(items)
    for t in ticks:
        parts.append(
            f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top - 8}" y2="{axis_y}" class="grid"/>'
            f'<text x="{x(t):.1f}" y="{axis_y + 16}" class="tick">{t:g}</text>'
        )
    parts.append(
        f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{top - 8}" y2="{axis_y}" class="zero"/>'
        f'<text x="{(left + width - right) / 2:.0f}" y="{axis_y + 34}" class="tick">'
        f"{_esc(unit)}</text>"
    )
    for i, (label, iv) in enumerate(items):
        cy = top + row * i + row / 2
        color = (colors or {}).get(label, _COLORS[i % len(_COLORS)])
        fill = color if iv.significant else "white"
        parts.append(
            f'<g class="item" data-label="{_esc(label)}">'
            f'<text x="{left - 10}" y="{cy + 4:.1f}" class="label">{_esc(label)}</text>'
        )
        if not math.isnan(iv.low):
            parts.append(
                f'<line x1="{x(iv.low):.1f}" x2="{x(iv.high):.1f}" y1="{cy:.1f}" y2="{cy:.1f}"'
                f' stroke="{color}" stroke-width="3"/>'
            )
        if not math.isnan(iv.value):
            parts.append(
                f'<circle cx="{x(iv.value):.1f}" cy="{cy:.1f}" r="6" fill="{fill}"'
                f' stroke="{color}" stroke-width="2"><title>{_esc(label)}: '
                f"{_esc(fmt_interval(iv))}</title></circle>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def histograms(
    series: Sequence[tuple[str, Sequence[float]]],
    svg_id: str,
    colors: dict[str, str] | None = None,
    forfeited: dict[str, int] | None = None,
) -> str:
    """Small multiples: one histogram per entry on a shared axis (integer bins when every
    value is a whole number and the range is small, else 24 equal bins). The axis spans at
    least 4 points, so a distribution with a single value (all zeros, say) is a bar at that
    value, not a block across the page, and a panel with one value says so in words.
    ``forfeited``: matches forfeited by each entry (said on its panel)."""
    values = [v for _, vs in series for v in vs]
    width, left, right, panel, top = 720, 150, 30, 70, 30
    height = top + panel * len(series) + 40
    parts = [
        f'<svg id="{svg_id}" class="plot" xmlns="http://www.w3.org/2000/svg" role="img"'
        f' viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
        "<title>score per deal, each match</title>",
        f'<text x="{left}" y="18" class="ptitle">score per deal in each match</text>',
    ]
    if not values:
        parts.append("</svg>")
        return "".join(parts)
    edges = _bin_edges(values)
    nb = len(edges) - 1
    span = edges[-1] - edges[0]

    def x(v: float) -> float:
        return left + (v - edges[0]) / span * (width - left - right)

    for i, (label, vs) in enumerate(series):
        counts = [0] * nb
        for v in vs:
            k = min(max(int((v - edges[0]) / span * nb), 0), nb - 1)
            counts[k] += 1
        peak = max(counts) or 1
        base = top + panel * (i + 1) - 10
        color = (colors or {}).get(label, _COLORS[i % len(_COLORS)])
        parts.append(
            f'<g class="hist" data-label="{_esc(label)}">'
            f'<text x="{left - 10}" y="{base - 20}" class="label">{_esc(label)}</text>'
            f'<line x1="{left}" x2="{width - right}" y1="{base}" y2="{base}" class="grid"/>'
        )
        say = _panel_note(vs, (forfeited or {}).get(label, 0))
        if say:
            parts.append(
                f'<text x="{width - right}" y="{base - panel + 24}" class="sub"'
                f' text-anchor="end">{_esc(say)}</text>'
            )
        for k, c in enumerate(counts):
            if not c:
                continue
            h = max(c / peak * (panel - 18), 2.0)
            x0, x1 = x(edges[k]), x(edges[k + 1])
            parts.append(
                f'<rect x="{x0 + 0.5:.1f}" y="{base - h:.1f}" width="{max(x1 - x0 - 1, 1):.1f}"'
                f' height="{h:.1f}" fill="{color}"><title>{c} match(es) in '
                f"[{edges[k]:g}, {edges[k + 1]:g})</title></rect>"
            )
        if vs:
            mean = sum(vs) / len(vs)
            parts.append(
                f'<line x1="{x(mean):.1f}" x2="{x(mean):.1f}" y1="{base - panel + 14}"'
                f' y2="{base}" class="mean"><title>mean {mean:+.2f}</title></line>'
            )
        parts.append("</g>")
    axis_y = top + panel * len(series)
    for t in _ticks(edges[0], edges[-1]):
        if edges[0] <= t <= edges[-1]:
            parts.append(f'<text x="{x(t):.1f}" y="{axis_y + 16}" class="tick">{t:g}</text>')
    parts.append(
        f'<text x="{(left + width - right) / 2:.0f}" y="{axis_y + 34}" class="tick">'
        "score per deal (bar: matches; line: mean)</text></svg>"
    )
    return "".join(parts)


def _bin_edges(values: Sequence[float]) -> list[float]:
    """A histogram's bin edges over ``values`` (not empty): integer bins when every value is
    a whole number and the range is small, else 24 equal bins; the axis spans at least 4.

    >>> _bin_edges([0.0, 0.0])
    [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]
    >>> len(_bin_edges([0.25, 9.5]))
    25
    """
    lo, hi = min(values), max(values)
    if hi - lo < 4:  # a narrow or single-valued spread: widen the axis around it
        mid = (lo + hi) / 2
        lo, hi = min(lo, math.floor(mid) - 2), max(hi, math.ceil(mid) + 2)
    whole = all(float(v).is_integer() for v in values) and hi - lo <= 60
    if whole:
        return [lo - 0.5 + k for k in range(int(hi - lo) + 2)]
    step = (hi - lo) / 24
    return [lo + step * k for k in range(25)]


def _panel_note(vs: Sequence[float], lost: int) -> str:
    """What a histogram's panel says in words: a single value, or the matches forfeited.

    >>> _panel_note([0.0, 0.0], 2), _panel_note([1.0, 2.0], 1), _panel_note([1.0, 2.0], 0)
    ('all 2 matches +0.00 per deal (all forfeited)', '1 of 2 matches forfeited', '')
    """
    if vs and min(vs) == max(vs):
        say = f"all {len(vs)} matches {vs[0]:+.2f} per deal"
        return say + (" (all forfeited)" if lost == len(vs) else "")
    if lost:
        return f"{lost} of {len(vs)} matches forfeited"
    return ""


def line_plot(
    series: Sequence[tuple[str, Sequence[tuple[int, float]]]],
    title: str,
    xlabel: str,
    svg_id: str,
    colors: dict[str, str] | None = None,
) -> str:
    """Lines of (x, y) points sharing axes, one per entry, a legend above, a dashed zero."""
    width, left, right, top, bottom = 720, 60, 20, 56, 46
    inner = 260
    height = top + inner + bottom
    xs = [p[0] for _, pts in series for p in pts]
    ys = [p[1] for _, pts in series for p in pts] + [0.0]
    parts = [
        f'<svg id="{svg_id}" class="plot" xmlns="http://www.w3.org/2000/svg" role="img"'
        f' viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
        f"<title>{_esc(title)}</title>",
        f'<text x="{left}" y="18" class="ptitle">{_esc(title)}</text>',
    ]
    if not xs:
        parts.append("</svg>")
        return "".join(parts)
    yt = _ticks(min(ys), max(ys), 5)
    x0, x1 = min(xs), max(xs)
    x1 = x1 if x1 > x0 else x0 + 1
    ylo, yhi = yt[0], yt[-1]

    def px(v: float) -> float:
        return left + (v - x0) / (x1 - x0) * (width - left - right)

    def py(v: float) -> float:
        return top + inner - (v - ylo) / (yhi - ylo) * inner

    for t in yt:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{py(t):.1f}" y2="{py(t):.1f}"'
            f' class="{"zero" if t == 0 else "grid"}"/>'
            f'<text x="{left - 6}" y="{py(t) + 4:.1f}" class="label">{t:g}</text>'
        )
    for t in _ticks(x0, x1, 8):
        if x0 <= t <= x1 and float(t).is_integer():
            parts.append(
                f'<text x="{px(t):.1f}" y="{top + inner + 16}" class="tick">{t + 1:g}</text>'
            )
    parts.append(
        f'<text x="{(left + width - right) / 2:.0f}" y="{top + inner + 34}" class="tick">'
        f"{_esc(xlabel)}</text>"
    )
    lx: float = left
    for i, (label, pts) in enumerate(series):
        color = (colors or {}).get(label, _COLORS[i % len(_COLORS)])
        parts.append(
            f'<g class="legend"><rect x="{lx}" y="30" width="14" height="4" fill="{color}"/>'
            f'<text x="{lx + 18}" y="36">{_esc(label)}</text></g>'
        )
        lx += 26 + 7.5 * len(label)
        if not pts:
            continue
        path = " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b in pts)
        last = pts[-1]
        parts.append(
            f'<g class="series" data-label="{_esc(label)}">'
            f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>'
            f'<circle cx="{px(last[0]):.1f}" cy="{py(last[1]):.1f}" r="3.5" fill="{color}">'
            f"<title>{_esc(label)}: {last[1]:+.2f} after {last[0] + 1}</title></circle></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


# -- the page ----------------------------------------------------------------------------------

_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1040px; color: #1f2328; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 1.8em;
     border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
p.spec { color: #57606a; margin-top: 0; }
nav { font-size: .9em; margin: .8em 0 1.2em; } nav a { margin-right: 1em; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border-bottom: 1px solid #d0d7de; padding: .35em .6em; text-align: right;
         white-space: nowrap; }
th:first-child, td:first-child, td.name, th.name { text-align: left; }
th { background: #f6f8fa; font-weight: 600; }
td.ns { color: #8c959f; } td.sig { font-weight: 600; }
td.diag { background: #f6f8fa; } th.over { text-align: center; font-weight: 400; }
tr.forfeit td { background: #fff5f5; }
.badge { display: inline-block; font-size: .75em; font-weight: 600; padding: 0 .5em;
         border-radius: 1em; margin-left: .4em; vertical-align: 1px; }
.badge.bad { background: #ffebe9; color: #a40e26; border: 1px solid #ff8182; }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: 50%;
          margin-right: .45em; vertical-align: -1px; }
.warn { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px;
        padding: .6em 1em; margin: 1em 0; }
.warn p { margin: .2em 0; }
.summary { display: flex; gap: 1em; margin: 1em 0; flex-wrap: wrap; }
.summary div { border: 1px solid #d0d7de; border-radius: 6px; padding: .5em 1em;
               min-width: 9em; }
.summary b { display: block; font-size: 1.35em; }
.summary span { color: #57606a; font-size: .85em; }
.plot { max-width: 100%; height: auto; display: block; margin: .4em 0; }
.plot text { font: 12px system-ui, sans-serif; fill: #1f2328; }
.plot .ptitle { font-weight: 600; font-size: 13px; }
.plot .label { text-anchor: end; } .plot .tick { text-anchor: middle; fill: #57606a; }
.plot .sub { fill: #57606a; font-size: 11px; }
.plot .grid { stroke: #eaeef2; } .plot .zero { stroke: #57606a; stroke-dasharray: 4 3; }
.plot .mean { stroke: #1f2328; stroke-width: 2; }
.note { color: #57606a; font-size: .9em; }
details { margin: .3em 0; } summary { cursor: pointer; font-weight: 600; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
td.bar { min-width: 7em; text-align: left; }
table.matches td { padding: .15em .6em; font-size: .92em; }
td.bar span { display: inline-block; height: .7em; background: #54aeff; border-radius: 2px; }
td.bar span.over { background: #ff8182; }
"""


def _heat(value: float, scale: float) -> str:
    """A cell's background: blue above zero, red below, as strong as ``value`` is far out.

    >>> _heat(2.0, 4.0), _heat(-4.0, 4.0), _heat(float("nan"), 1.0)
    (' style="background: rgba(31,111,235,0.225)"', ' style="background: rgba(209,36,47,0.45)"', '')
    """
    if math.isnan(value) or not scale:
        return ""
    alpha = min(abs(value) / scale, 1.0) * 0.45
    rgb = "31,111,235" if value > 0 else "209,36,47"
    return f' style="background: rgba({rgb},{alpha:.3g})"' if value else ""


def _bot_cell(name: str, colors: dict[str, str], forfeits: int, link: bool = True) -> str:
    swatch = f'<span class="swatch" style="background:{colors.get(name, "#57606a")}"></span>'
    text = f'<a href="#matches-{_esc(name)}">{_esc(name)}</a>' if link else _esc(name)
    badge = f'<span class="badge bad">{forfeits} forfeited</span>' if forfeits else ""
    return f'<td class="name">{swatch}{text}{badge}</td>'


def forfeit_warnings(
    st: Standings, rows: Sequence[dict[str, Any]] = (), logs: dict[str, Path] | None = None
) -> list[str]:
    """One line per entry that forfeited, with the first reason the referee gave and, from
    ``logs``, where its log is.

    >>> from levata.server.tournament.standings import compute_standings
    >>> rows = [{"index": 0, "group": 0, "seats": ["a", "b"], "result": {"scores": [0, 0],
    ...          "ranks": [1, 2], "forfeited": [1], "deals": 0,
    ...          "detail": "seat(s) 1 did not connect (1: b)"}}]
    >>> (line,) = forfeit_warnings(compute_standings(["a", "b"], rows, 1, 20), rows)
    >>> print(line.replace("; ", ";\\n"))
    warning: b forfeited 1 of 1 matches (first: seat(s) 1 did not connect);
    each forfeit ranks last and scores -1.00 per deal
    """
    first: dict[str, str] = {}
    for r in rows:
        res = r.get("result") or {}
        for s in res.get("forfeited", ()):
            first.setdefault(r["seats"][s], res.get("detail", ""))
    return _forfeit_lines(st, first, logs or {})


def _forfeit_lines(st: Standings, first: dict[str, str], logs: dict[str, Path]) -> list[str]:
    out = []
    for b in st.bots:
        if b.forfeits:
            said = re.sub(r" \([^()]*\)$", "", first.get(b.name, ""))  # less "(1: b)"
            why = f" (first: {said})" if said else ""
            log = f"; its log: {logs[b.name]}" if b.name in logs else ""
            out.append(
                f"warning: {b.name} forfeited {b.forfeits} of {b.matches} matches{why}; each"
                f" forfeit ranks last and scores {_num(st.forfeit_score)} per deal{log}"
            )
    return out


def _standings_table(st: Standings, colors: dict[str, str], details: Details | None) -> list[str]:
    pct = round(st.level * 100)
    names = [b.name for b in st.bots]
    out = [
        '<table id="standings-table"><thead><tr><th>#</th><th class="name">bot</th>'
        f"<th>score per deal</th><th>{pct}% interval</th><th>ahead of next</th>"
        f"<th>rating</th><th>{pct}% interval</th><th>1st</th><th>matches</th>"
        "<th>forfeits</th></tr></thead><tbody>",
    ]
    for i, b in enumerate(st.bots):
        nxt = _vs_next(st, names, i, rating=False)
        out.append(
            f'<tr data-bot="{_esc(b.name)}"{" class=forfeit" if b.forfeits else ""}>'
            f"<td>{i + 1}</td>{_bot_cell(b.name, colors, b.forfeits, details is not None)}"
            f"<td><b>{_num(b.mean.value)}</b></td>"
            f"<td>[{_num(b.mean.low)}, {_num(b.mean.high)}]</td>"
            f'<td class="{"sig" if nxt == "yes" else "ns"}">{nxt}</td>'
            f"<td>{_num(b.rating.value, 0)}</td>"
            f"<td>[{_num(b.rating.low, 0)}, {_num(b.rating.high, 0)}]</td>"
            f"<td>{b.wins:.0%}</td><td>{b.matches}</td><td>{b.forfeits}</td></tr>"
            if not math.isnan(b.wins)
            else f'<tr data-bot="{_esc(b.name)}"><td>{i + 1}</td>'
            f"{_bot_cell(b.name, colors, 0, False)}" + "<td>-</td>" * 8 + "</tr>"
        )
    out.append("</tbody></table>")
    return out


def _breakdown_table(
    table_id: str,
    heads: Sequence[str],
    rows: Sequence[tuple[str, Sequence[tuple[float, int]]]],
    colors: dict[str, str],
    forfeits: dict[str, int],
    over: str = "",
) -> list[str]:
    """Bots by columns of (score per deal, deals), each cell shaded by its value (on the
    scale of the bots that played: one that forfeited everything would wash out the rest)."""
    played = [cells for name, cells in rows if not forfeits.get(name)] or [c for _, c in rows]
    scale = max((abs(v) for cells in played for v, n in cells if n), default=0.0)
    out = [f'<table id="{table_id}"><thead>']
    if over:  # what the columns are, above them
        out.append(f'<tr><th></th><th colspan="{len(heads)}" class="over">{over}</th></tr>')
    out.append('<tr><th class="name">bot</th>')
    out.extend(f"<th>{_esc(h)}</th>" for h in heads)
    out.append("</tr></thead><tbody>")
    for name, cells in rows:
        out.append(f"<tr>{_bot_cell(name, colors, forfeits.get(name, 0))}")
        for v, n in cells:
            out.append(
                f'<td{_heat(v, scale)} title="{n} deals">{_num(v)}</td>' if n else "<td>-</td>"
            )
        out.append("</tr>")
    out.append("</tbody></table>")
    return out


def _clock_section(details: Details, st: Standings, move_ms: int | None) -> list[str]:
    out = ['<section id="clocks"><h2>Reply times and faults</h2>']
    if not details.records:
        out.append(
            '<p class="note">The referee\'s records of these matches are not in this file'
            " (they were refereed elsewhere): reply times are on that referee.</p></section>"
        )
        return out
    allowed = f"{move_ms} ms a move" if move_ms else "the allowance"
    out.append(
        f'<p class="note">Every reply the referee received, from its records. Time: from the'
        f" request sent to the reply received. Bar: the 95th percentile against {allowed}."
        " Late: no reply by the deadline (a strike; the referee moved for the bot). Refused:"
        " illegal, stale or malformed replies. Strikes: as the matches recorded them.</p>"
        '<table id="clock-table"><thead><tr><th class="name">bot</th><th>replies</th>'
        "<th>median ms</th><th>95% ms</th><th>max ms</th>"
        '<th class="name">95% of allowance</th><th>late</th>'
        "<th>refused</th><th>strikes</th><th>forfeits</th></tr></thead><tbody>"
    )
    colors = _colors(st)
    for b in st.bots:
        e = details.entries[b.name]
        c = e.clock
        if c is None or not c.replies:
            out.append(
                f"<tr>{_bot_cell(b.name, colors, e.forfeits)}<td>0</td>"
                + "<td>-</td>" * 4
                + f"<td>0</td><td>0</td><td>{e.strikes}</td><td>{e.forfeits}</td></tr>"
            )
            continue
        p95 = c.quantile(0.95)
        share = p95 / move_ms if move_ms else 0.0
        bar = (
            f'<span{" class=over" if share > 0.8 else ""} style="width:'
            f'{max(min(share, 1.0) * 7, 0.1):.2f}em"></span> {share:.0%}'
            if move_ms and not math.isnan(p95)
            else ""
        )
        late = c.outcomes.get("timeout", 0)
        out.append(
            f"<tr>{_bot_cell(b.name, colors, e.forfeits)}<td>{c.replies}</td>"
            f"<td>{_num(c.quantile(0.5), 1, False)}</td><td>{_num(p95, 1, False)}</td>"
            f"<td>{_num(c.quantile(1.0), 1, False)}</td><td class=bar>{bar}</td>"
            f"<td>{late}</td><td>{c.faults - late}</td><td>{e.strikes}</td>"
            f"<td>{e.forfeits}</td></tr>"
        )
    out.append("</tbody></table></section>")
    return out


def _match_lists(
    details: Details, st: Standings, db: str, replays: str = "", unit_word: str = "deal"
) -> list[str]:
    colors = _colors(st)
    where = f" --db {db}" if db else ""
    out = [
        '<section id="matches"><h2>Matches</h2><p class="note">Every match of each bot, in'
        " schedule order. Replay one, checking every recorded action against the rules:"
        f" <code>levata replay MATCH_ID{_esc(where)}</code>; export it:"
        f" <code>levata export MATCH_ID{_esc(where)} -o match.json</code>.</p>"
    ]
    unit = details.unit
    # The game's duplicate unit is an option (Tarneeb's is called ``deal``, as the first
    # column, the deal of the schedule): its column says it is the option's value.
    unit_head = f"-o {unit}" if unit == unit_word else unit
    for b in st.bots:
        e = details.entries[b.name]
        badge = f'<span class="badge bad">{e.forfeits} forfeited</span>' if e.forfeits else ""
        out.append(
            f'<details id="matches-{_esc(b.name)}"><summary>'
            f'<span class="swatch" style="background:{colors[b.name]}"></span>'
            f"{_esc(b.name)}: {len(e.matches)} matches{badge}</summary>"
            f'<table class="matches"><thead><tr><th>#</th><th>{unit_word}</th><th>seat</th>'
            + (f"<th>{_esc(unit_head)}</th>" if unit else "")
            + '<th>score per deal</th><th>place</th><th class="name">table (by seat)</th>'
            '<th class="name">match id</th>'
            '<th class="name"></th></tr></thead><tbody>'
        )
        for m in e.matches:
            cls = ' class="forfeit"' if m.forfeited else ""
            why = f"forfeited: {m.detail}" if m.forfeited else ""
            out.append(
                f"<tr{cls}><td>{m.index}</td><td>{m.group + 1}</td><td>{_esc(m.seats)}</td>"
                + (f"<td>{_esc(m.size)}</td>" if unit else "")
                + f"<td>{_num(m.per_deal)}</td><td>{m.rank}</td>"
                f'<td class="name">{_esc(", ".join(m.table))}</td>'
                f'<td class="name"><code id="m-{_esc(m.match_id)}-{_esc(b.name)}">'
                f"{_esc(m.match_id)}</code>{_replay_link(replays, m.match_id)}</td>"
                f'<td class="name note">{_esc(why)}</td></tr>'
            )
        out.append("</tbody></table></details>")
    out.append("</section>")
    return out


def _replay_link(replays: str, match_id: str) -> str:
    """A link to the match's replay (``replays``: its address, ``{id}`` standing for the
    match id), or '' without one.

    >>> _replay_link("replays/{id}.html", "ab12")
    ' <a class="replay" href="replays/ab12.html">replay</a>'
    """
    if not replays:
        return ""
    return f' <a class="replay" href="{_esc(replays.replace("{id}", match_id))}">replay</a>'


def _colors(st: Standings) -> dict[str, str]:
    return {b.name: _COLORS[i % len(_COLORS)] for i, b in enumerate(st.bots)}


def html_report(  # noqa: PLR0913  (the page's parts, each by keyword but the first three)
    tid: str,
    description: str,
    st: Standings,
    notes: Sequence[str] = (),
    generated: str = "",
    details: Details | None = None,
    move_ms: int | None = None,
    db: str = "",
    fmt: str = "duplicate",
    replays: str = "",
    ladders: str = "",
) -> str:
    """The whole report page as one string. ``details`` (:func:`~levata.server.tournament.
    details.tournament_details`) adds the progression, the breakdowns by deal size and
    seat, the reply times and the match lists; ``move_ms`` is the per-move allowance the
    reply times are set against, ``db`` the file ``levata replay`` reads; ``replays`` the address
    of a match's replay page, ``{id}`` standing for its id (each match row links to it);
    ``ladders`` the section of the ladders the tournament is in
    (:func:`~levata.server.tournament.ladder.ladders_html`)."""
    pct = round(st.level * 100)
    names = [b.name for b in st.bots]
    colors = _colors(st)
    forfeits = {b.name: b.forfeits for b in st.bots}
    unit_word = "deal" if fmt == "duplicate" else "round"
    sections = _sections(names, details)
    if ladders:
        sections.insert(sections.index(("ratings", "Ratings")) + 1, ("ladders", "Ladders"))
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>levata tournament {_esc(tid)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Tournament {_esc(tid)}</h1>",
        f'<p class="spec">{_esc(description)}</p>',
        "<nav>" + "".join(f'<a href="#{k}">{v}</a>' for k, v in sections) + "</nav>",
    ]
    out.extend(_forfeit_warning(st, details))
    out.extend(_summary(st, names, unit_word))
    out.append('<section id="standings"><h2>Standings</h2>')
    out.extend(_standings_table(st, colors, details))
    out.append(
        f'<p class="note">{st.matches} of {st.scheduled} scheduled matches, {st.groups} '
        f"{unit_word} groups. Intervals: {st.resamples} bootstrap resamples of whole groups "
        f"(every seating of a {unit_word} together), expanded percentile method (wider with few "
        "groups). <em>ahead of next</em>: whether the paired difference to the next line is "
        "significant (n.s.: its interval covers 0). Rating: Bradley-Terry on finishing order, "
        "Elo scale, mean 0. A bot's name links to its matches.</p></section>"
    )
    out.append('<section id="means"><h2>Mean score per deal</h2>')
    out.append(
        forest_plot(
            [(b.name, b.mean) for b in st.bots],
            f"mean score per deal, {pct}% interval (hollow: the interval covers 0)",
            "score per deal",
            "plot-means",
            colors,
        )
    )
    out.append("</section>")
    if details is not None:
        out.extend(_detail_sections(details, st, colors, move_ms, unit_word))
    out.extend(_ratings_section(st, names, colors, pct))
    if ladders:
        out.append(ladders)
    if len(names) > 1:
        out.extend(_crosstable(st, names, colors, pct, details is not None))
    out.append('<section id="distributions"><h2>Score distributions</h2>')
    out.append(
        histograms([(b.name, b.scores) for b in st.bots], "plot-distributions", colors, forfeits)
    )
    out.append("</section>")
    if details is not None:
        out.extend(_match_lists(details, st, db, replays, unit_word))
    out.extend(_notes_section(notes))
    out.append(f'<p class="note">levata {_esc(generated)}</p></body></html>')
    return "\n".join(out)


def _sections(names: list[str], details: Details | None) -> list[tuple[str, str]]:
    """The page's sections, ``(anchor, title)``, for its table of contents."""
    sections = [("standings", "Standings"), ("means", "Score per deal")]
    if details is not None:
        by = f"By {details.unit} and seat" if details.unit else "By seat"
        sections += [("progression", "Progression"), ("breakdown", by)]
        sections += [("clocks", "Reply times")]
    sections += [("ratings", "Ratings")]
    if len(names) > 1:
        sections.append(("crosstable", "Crosstable"))
    sections.append(("distributions", "Distributions"))
    if details is not None:
        sections.append(("matches", "Matches"))
    return sections


def _forfeit_warning(st: Standings, details: Details | None) -> list[str]:
    """The warning above everything when a bot forfeited (nothing when none did)."""
    out: list[str] = []
    first = {
        n: next((m.detail for m in e.matches if m.forfeited and m.detail), "")
        for n, e in (details.entries.items() if details else ())
    }
    warnings = _forfeit_lines(st, first, {})
    if warnings:
        out.append('<div class="warn" id="forfeit-warning">')
        out.extend(f"<p>&#9888; {_esc(w.removeprefix('warning: '))}</p>" for w in warnings)
        out.append(
            "<p>A forfeited seat finishes behind every seat that played on and is charged the"
            " tournament's lowest played score per deal minus the spread of played scores. "
            '<a href="#notes">Why each match was forfeited</a>.</p></div>'
        )
    return out


def _summary(st: Standings, names: list[str], unit_word: str) -> list[str]:
    """The leader, its score, the matches and groups played, at a glance."""
    out: list[str] = []
    if st.bots and not math.isnan(st.bots[0].mean.value):
        lead = st.bots[0]
        ahead = _vs_next(st, names, 0, rating=False) == "yes" if len(names) > 1 else False
        out.append(
            '<div class="summary">'
            f"<div><span>leader</span><b>{_esc(lead.name)}</b><span>"
            f"{'ahead of the next, significantly' if ahead else 'not clearly ahead of the next'}"
            f"</span></div>"
            f"<div><span>its score per deal</span><b>{_num(lead.mean.value)}</b>"
            f"<span>[{_num(lead.mean.low)}, {_num(lead.mean.high)}]</span></div>"
            f"<div><span>matches played</span><b>{st.matches}</b>"
            f"<span>of {st.scheduled} scheduled</span></div>"
            f"<div><span>{unit_word}s</span><b>{st.groups}</b>"
            f"<span>the bootstrap's unit</span></div></div>"
        )
    return out


def _detail_sections(
    details: Details, st: Standings, colors: dict[str, str], move_ms: int | None, unit_word: str
) -> list[str]:
    """The sections the details add: the progression, the breakdowns by deal size and seat,
    the reply times."""
    forfeits = {b.name: b.forfeits for b in st.bots}
    out: list[str] = []
    pos = {g: i for i, g in enumerate(details.groups)}
    out.append(
        '<section id="progression"><h2>Progression</h2><p class="note">Each bot\'s mean'
        f" score per deal after each {unit_word} (every seating of it), as the standings"
        " count it: where the lines settle is the standings' score.</p>"
    )
    gone = [b.name for b in st.bots if b.matches and b.forfeits == b.matches]
    if gone:
        out.append(
            f'<p class="note">Not drawn: {_esc(", ".join(gone))}, which forfeited every'
            f" match ({_num(st.forfeit_score)} per deal throughout).</p>"
        )
    out.append(
        line_plot(
            [
                (b.name, [(pos[g], v) for g, v in details.entries[b.name].progression])
                for b in st.bots
                if b.forfeits < b.matches
            ],
            f"mean score per deal so far, after each {unit_word}",
            unit_word,
            "plot-progression",
            colors,
        )
    )
    by = f"By {details.unit} and by seat" if details.unit else "By seat"
    out.append(f'</section><section id="breakdown"><h2>{by}</h2>')
    if details.unit:
        out.append(
            '<p class="note">Mean score per deal by the value of the game\'s duplicate'
            f" unit, <code>{_esc(details.unit)}</code> (each match one deal with that"
            " value). Blue: above zero; red: below; the stronger, the further.</p>"
        )
        out.extend(
            _breakdown_table(
                "size-table",
                details.sizes,
                [
                    (
                        b.name,
                        [details.entries[b.name].by_size.get(v, (0.0, 0)) for v in details.sizes],
                    )
                    for b in st.bots
                ],
                colors,
                forfeits,
                f"<code>{_esc(details.unit)}</code>",
            )
        )
    else:
        out.append('<p class="note">Each match is a whole game: no deal sizes.</p>')
    out.append(
        '<p class="note">Mean score per deal by the seat the bot sat in (partners: each'
        " of their seats). Every seating of a deal is played, so each bot sits in each seat"
        " as often; a seat that favours everyone shows in every row.</p>"
    )
    out.extend(
        _breakdown_table(
            "seat-table",
            [f"seat {s}" for s in details.seats],
            [
                (
                    b.name,
                    [details.entries[b.name].by_seat.get(s, (0.0, 0)) for s in details.seats],
                )
                for b in st.bots
            ],
            colors,
            forfeits,
        )
    )
    out.append("</section>")
    out.extend(_clock_section(details, st, move_ms))
    return out


def _ratings_section(
    st: Standings, names: list[str], colors: dict[str, str], pct: int
) -> list[str]:
    """The ratings and the rating differences of neighbours."""
    out: list[str] = []
    out.append('<section id="ratings"><h2>Ratings</h2>')
    out.append(
        forest_plot(
            [(b.name, b.rating) for b in st.by_rating()],
            f"Bradley-Terry rating (Elo scale, mean 0), {pct}% interval",
            "rating",
            "plot-ratings",
            colors,
        )
    )
    if len(names) > 1:
        rnames = [b.name for b in st.by_rating()]
        out.append(
            forest_plot(
                [(f"{a} - {b}", st.pair(a, b).rating_diff) for a, b in itertools.pairwise(rnames)],
                f"rating differences of neighbours, {pct}% interval (hollow: n.s.)",
                "rating difference",
                "plot-rating-diffs",
            )
        )
    out.append("</section>")
    return out


def _crosstable(
    st: Standings, names: list[str], colors: dict[str, str], pct: int, linked: bool
) -> list[str]:
    """Row minus column, for every pair that met; ``linked``: names link to match lists."""
    forfeits = {b.name: b.forfeits for b in st.bots}
    out: list[str] = []
    out.append(
        '<section id="crosstable"><h2>Crosstable</h2><p class="note">Row minus column: '
        f"mean score difference per deal over the matches both played, {pct}% interval, "
        "and how often the row finished ahead. Grey: not significant.</p>"
        '<table id="crosstable-table"><thead><tr><th></th>'
    )
    out.extend(f"<th>{_esc(n)}</th>" for n in names)
    out.append("</tr></thead><tbody>")
    for a in names:
        out.append(f"<tr>{_bot_cell(a, colors, forfeits[a], linked)}")
        for b in names:
            if a == b:
                out.append('<td class="diag"></td>')
                continue
            p = st.pair(a, b)
            cls = "sig" if p.diff.significant else "ns"
            mark = "" if p.diff.significant else " n.s."
            out.append(
                f'<td class="{cls}" data-pair="{_esc(a)}|{_esc(b)}">'
                f"{_esc(fmt_interval(p.diff))}<br>ahead {p.ahead:.0%}{mark}</td>"
                if p.matches
                else "<td>-</td>"
            )
        out.append("</tr>")
    out.append("</tbody></table></section>")
    return out


def _notes_section(notes: Sequence[str]) -> list[str]:
    """Why each match was forfeited (folded when there are many)."""
    if not notes:
        return []
    out: list[str] = []
    many = len(notes) > 8
    out.append('<section id="notes"><h2>Notes</h2>')
    if many:
        out.append(f"<details><summary>{len(notes)} forfeited matches</summary>")
    out.append("<ul>")
    out.extend(f"<li>{_esc(n)}</li>" for n in notes)
    out.append("</ul>" + ("</details>" if many else "") + "</section>")
    return out


def standings_of(tdb: TourneyStore, tid: str, resamples: int | None = None) -> Standings:
    """The :class:`~levata.server.tournament.standings.Standings` of a tournament (its finished
    matches)."""
    t = tdb.tournament(tid)
    if t is None:
        raise KeyError(tid)
    spec = TournamentSpec.from_dict(t["spec"])
    rows = tdb.rows(tid)
    return compute_standings(
        spec.names, rows, spec.seed, resamples or RESAMPLES, scheduled=len(rows)
    )


def details_of(tdb: TourneyStore, tid: str, db: Path | str | None = None) -> Details:
    """The :class:`~levata.server.tournament.details.Details` of a tournament, reply times
    from the referee's records in ``db`` when that file holds them."""
    from levata.engine import game
    from levata.server.match.store import Store

    t = tdb.tournament(tid)
    if t is None:
        raise KeyError(tid)
    spec = TournamentSpec.from_dict(t["spec"])
    unit = game(spec.game).duplicate_unit if spec.unit == "deal" else None
    store = None
    if db is not None and _has_matches(db):
        try:
            store = Store(db)
        except (OSError, RuntimeError, sqlite3.Error):  # unreadable here: no reply times
            store = None
    try:
        return tournament_details(spec.names, tdb.rows(tid), unit, store)
    finally:
        if store is not None:
            store.close()


def _has_matches(db: Path | str) -> bool:
    """Whether ``db`` holds a referee's records (a tournament run on an external referee's
    keeps only its own tables)."""
    return "replies" in tables_in(db)


def summary_json(tdb: TourneyStore, tid: str) -> str:
    """Spec, schedule results and standings of a tournament as JSON."""
    t = tdb.tournament(tid)
    assert t is not None
    return json.dumps(
        {
            "id": tid,
            "status": t["status"],
            "spec": t["spec"],
            "standings": standings_of(tdb, tid).to_dict(),
        },
        indent=2,
    )
