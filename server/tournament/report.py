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
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table

from levata.server.tournament.spec import TournamentSpec
from levata.server.tournament.standings import (
    RESAMPLES,
    Interval,
    Standings,
    compute_standings,
)
from levata.server.tournament.store import TourneyStore

__all__ = ["fmt_interval", "html_report", "print_standings", "standings_of", "summary_json"]

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
            for b in names:
                p = st.pairs.get((a, b))
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


def forest_plot(items: Sequence[tuple[str, Interval]], title: str, unit: str, svg_id: str) -> str:
    """A horizontal interval plot: one row per item, a dot at the value, a bar for the
    interval, a dashed line at zero; items whose interval covers zero are drawn hollow."""
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
        color = _COLORS[i % len(_COLORS)]
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


def histograms(series: Sequence[tuple[str, Sequence[float]]], svg_id: str) -> str:
    """Small multiples: one histogram per entry on a shared axis (integer bins when every
    value is a whole number and the range is small, else 24 equal bins)."""
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
    lo, hi = min(values), max(values)
    whole = all(float(v).is_integer() for v in values) and hi - lo <= 60
    if whole:
        edges = [lo - 0.5 + k for k in range(int(hi - lo) + 2)]
    else:
        step = (hi - lo) / 24 or 1.0
        edges = [lo + step * k for k in range(25)]
    nb = len(edges) - 1
    span = edges[-1] - edges[0]

    def x(v: float) -> float:
        return left + (v - edges[0]) / span * (width - left - right)

    for i, (label, vs) in enumerate(series):
        counts = [0] * nb
        for v in vs:
            k = min(int((v - edges[0]) / span * nb), nb - 1)
            counts[k] += 1
        peak = max(counts) or 1
        base = top + panel * (i + 1) - 10
        color = _COLORS[i % len(_COLORS)]
        parts.append(
            f'<g class="hist" data-label="{_esc(label)}">'
            f'<text x="{left - 10}" y="{base - 20}" class="label">{_esc(label)}</text>'
            f'<line x1="{left}" x2="{width - right}" y1="{base}" y2="{base}" class="grid"/>'
        )
        for k, c in enumerate(counts):
            if not c:
                continue
            h = c / peak * (panel - 18)
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
    for t in _ticks(lo, hi):
        if edges[0] <= t <= edges[-1]:
            parts.append(f'<text x="{x(t):.1f}" y="{axis_y + 16}" class="tick">{t:g}</text>')
    parts.append("</svg>")
    return "".join(parts)


# -- the page ----------------------------------------------------------------------------------

_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 980px; color: #1f2328; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 1.8em; }
p.spec { color: #57606a; margin-top: 0; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border-bottom: 1px solid #d0d7de; padding: .35em .7em; text-align: right;
         white-space: nowrap; }
th:first-child, td:first-child, td.name, th.name { text-align: left; }
th { background: #f6f8fa; }
td.ns { color: #8c959f; } td.sig { font-weight: 600; }
td.diag { background: #f6f8fa; }
.plot text { font: 12px system-ui, sans-serif; fill: #1f2328; }
.plot .ptitle { font-weight: 600; font-size: 13px; }
.plot .label { text-anchor: end; } .plot .tick { text-anchor: middle; fill: #57606a; }
.plot .grid { stroke: #eaeef2; } .plot .zero { stroke: #57606a; stroke-dasharray: 4 3; }
.plot .mean { stroke: #1f2328; stroke-width: 2; }
.note { color: #57606a; font-size: .9em; }
"""


def html_report(
    tid: str, description: str, st: Standings, notes: Sequence[str] = (), generated: str = ""
) -> str:
    """The whole report page as one string."""
    pct = round(st.level * 100)
    names = [b.name for b in st.bots]
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>levata tournament {_esc(tid)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Tournament {_esc(tid)}</h1>",
        f'<p class="spec">{_esc(description)}</p>',
        '<section id="standings"><h2>Standings</h2>',
        '<table id="standings-table"><thead><tr><th>#</th><th class="name">bot</th>'
        f"<th>score per deal</th><th>{pct}% interval</th><th>ahead of next</th>"
        f"<th>rating</th><th>{pct}% interval</th><th>1st</th><th>matches</th><th>forfeits</th>"
        "</tr></thead><tbody>",
    ]
    for i, b in enumerate(st.bots):
        nxt = _vs_next(st, names, i, rating=False)
        out.append(
            f'<tr data-bot="{_esc(b.name)}"><td>{i + 1}</td><td class="name">{_esc(b.name)}</td>'
            f"<td>{_num(b.mean.value)}</td><td>[{_num(b.mean.low)}, {_num(b.mean.high)}]</td>"
            f'<td class="{"sig" if nxt == "yes" else "ns"}">{nxt}</td>'
            f"<td>{_num(b.rating.value, 0)}</td>"
            f"<td>[{_num(b.rating.low, 0)}, {_num(b.rating.high, 0)}]</td>"
            f"<td>{b.wins:.0%}</td><td>{b.matches}</td><td>{b.forfeits}</td></tr>"
        )
    out.append("</tbody></table>")
    out.append(
        f'<p class="note">{st.matches} of {st.scheduled} scheduled matches, {st.groups} deal '
        f"groups. Intervals: {st.resamples} bootstrap resamples of whole deal groups (every "
        "seating of a deal together), expanded percentile method (wider with few groups). "
        "<em>ahead of next</em>: whether the paired difference to the next line is "
        "significant (n.s.: its interval covers 0). "
        "Rating: Bradley-Terry on finishing order, Elo scale, mean 0. A forfeited seat scores "
        "its table's lowest score and ranks last.</p></section>"
    )
    out.append('<section id="means"><h2>Mean score per deal</h2>')
    out.append(
        forest_plot(
            [(b.name, b.mean) for b in st.bots],
            f"mean score per deal, {pct}% interval (hollow: the interval covers 0)",
            "score per deal",
            "plot-means",
        )
    )
    out.append("</section>")
    out.append('<section id="ratings"><h2>Ratings</h2>')
    out.append(
        forest_plot(
            [(b.name, b.rating) for b in st.by_rating()],
            f"Bradley-Terry rating (Elo scale, mean 0), {pct}% interval",
            "rating",
            "plot-ratings",
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
    if len(names) > 1:
        out.append(
            '<section id="crosstable"><h2>Crosstable</h2><p class="note">Row minus column: '
            f"mean score difference per deal over the matches both played, {pct}% interval, "
            "and how often the row finished ahead. Grey: not significant.</p>"
            '<table id="crosstable-table"><thead><tr><th></th>'
        )
        out.extend(f"<th>{_esc(n)}</th>" for n in names)
        out.append("</tr></thead><tbody>")
        for a in names:
            out.append(f'<tr><td class="name">{_esc(a)}</td>')
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
    out.append('<section id="distributions"><h2>Score distributions</h2>')
    out.append(histograms([(b.name, b.scores) for b in st.bots], "plot-distributions"))
    out.append("</section>")
    if notes:
        out.append('<section id="notes"><h2>Notes</h2><ul>')
        out.extend(f"<li>{_esc(n)}</li>" for n in notes)
        out.append("</ul></section>")
    out.append(f'<p class="note">levata {_esc(generated)}</p></body></html>')
    return "\n".join(out)


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
