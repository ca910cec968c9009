"""Standings of a tournament: mean score per deal, a crosstable and Bradley-Terry ratings,
each with a 95% bootstrap interval.

Everything is computed from the finished matches of the schedule, and nothing else, so the
same results always give the same standings (the bootstrap draws from its own stream, seeded
by the tournament's seed).

* **Mean score per deal** of each entry: its total score over the deals it played. A whole
  game of ``d`` deals counts ``d`` deals.
* **Forfeits lose.** A seat that forfeits (crashed, struck out, never connected, gone past
  the resume window) finishes behind every seat that did not, as the referee ranks it, and
  is charged :func:`forfeit_score` per deal of the match: as far below the lowest score per
  deal that any seat *playing on* reached in the tournament as the highest is above it. So a
  forfeited match scores below every match anybody played out, on the same cards or not,
  and forfeiting never pays, not even on a deal that was going badly (short of a deal worse
  than the tournament's worst by its whole spread). The other seats keep what they scored
  (a match cut short before any deal was scored gives them 0, the same for each of them).
  An entry of several seats (a team) forfeits when any of its seats does.
* **Crosstable**: for each pair of entries, over the matches where both sat, the mean of
  ``score(a) - score(b)`` per deal (in duplicate, the same cards: a paired comparison) and the
  share of those matches where ``a`` finished ahead of ``b`` (ties count half).
* **Rating**: a Bradley-Terry model of who finished ahead of whom, every pair of seats of
  every match being one comparison (a tie is half a win each way): the maximum-likelihood
  fit (Newton's method), with one virtual tie per pair as a prior (so a bot that never wins
  still has a finite rating). Shown on the Elo scale (``400 log10`` of the strength), mean
  0: a 100-point gap means the stronger finishes ahead about 64% of the time.
* **Intervals**: bootstrap over *groups* (the seatings of one deal in duplicate, one round
  in round-robin): a resample draws as many groups as there are, with replacement, and
  recomputes every figure; the interval is the *expanded percentile* interval (see
  :func:`expanded_tail`), which keeps its coverage when there are few groups. A difference
  whose interval covers zero is *not significant*.

>>> rows = [
...     {"index": i, "group": g, "seats": seats, "result": {"scores": sc, "ranks": rk,
...      "forfeited": [], "deals": 1}}
...     for i, (g, seats, sc, rk) in enumerate([
...         (0, ["a", "b"], [7, -1], [1, 2]), (0, ["b", "a"], [5, 6], [2, 1]),
...         (1, ["a", "b"], [6, 5], [1, 2]), (1, ["b", "a"], [-2, 7], [2, 1])])]
>>> st = compute_standings(["a", "b"], rows, seed=1, resamples=200)
>>> [(b.name, b.mean.value) for b in st.bots]
[('a', 6.5), ('b', 1.75)]
>>> st.pair("a", "b").diff.value, st.pair("a", "b").ahead
(4.75, 1.0)
"""

from __future__ import annotations

import math
import operator
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from levata.engine.intervals import LEVEL, RESAMPLES, Interval, expanded_tail
from levata.engine.intervals import interval as _interval
from levata.engine.intervals import weighted_ratio as _ratio
from levata.engine.seeds import derive

__all__ = [
    "BotStanding",
    "Interval",
    "PairResult",
    "Standings",
    "bradley_terry",
    "compute_standings",
    "entry_results",
    "forfeit_score",
]


@dataclass(frozen=True)
class BotStanding:
    """One entry's line of the standings."""

    name: str
    matches: int
    deals: int
    forfeits: int
    wins: float  # share of its matches it finished first in (ties for first share)
    mean: Interval  # score per deal
    rating: Interval  # Bradley-Terry, Elo scale, mean 0
    scores: list[float] = field(default_factory=list)  # score per deal of each match

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "matches": self.matches,
            "deals": self.deals,
            "forfeits": self.forfeits,
            "wins": self.wins,
            "mean": self.mean.to_dict(),
            "rating": self.rating.to_dict(),
        }


@dataclass(frozen=True)
class PairResult:
    """How ``a`` fared against ``b`` over the matches where both sat."""

    a: str
    b: str
    matches: int
    diff: Interval  # mean of score(a) - score(b) per deal
    ahead: float  # share of those matches a finished ahead of b (ties half)
    rating_diff: Interval  # rating(a) - rating(b)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "matches": self.matches,
            "diff": self.diff.to_dict(),
            "ahead": self.ahead,
            "rating_diff": self.rating_diff.to_dict(),
        }


@dataclass
class Standings:
    """The standings: entries best first (by mean score per deal), pairs, totals."""

    bots: list[BotStanding]
    pairs: dict[tuple[str, str], PairResult]
    matches: int
    scheduled: int
    groups: int
    resamples: int
    level: float = LEVEL
    forfeit_score: float = math.nan  # what a forfeited seat is charged per deal

    def pair(self, a: str, b: str) -> PairResult:
        return self.pairs[(a, b)]

    def by_rating(self) -> list[BotStanding]:
        return sorted(self.bots, key=lambda b: (-b.rating.value, b.name))

    def to_dict(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "scheduled": self.scheduled,
            "groups": self.groups,
            "resamples": self.resamples,
            "level": self.level,
            "forfeit_score": self.forfeit_score,
            "bots": [b.to_dict() for b in self.bots],
            "pairs": [p.to_dict() for p in self.pairs.values()],
        }


def bradley_terry(
    names: Sequence[str],
    wins: dict[tuple[str, str], float],
    prior: float = 0.5,
    start: dict[str, float] | None = None,
) -> dict[str, float]:
    """Bradley-Terry strengths (geometric mean 1) from ``wins[(a, b)]`` (times a finished
    ahead of b, ties counted half): the maximum-likelihood fit by Newton's method on the log
    strengths, with step halving. ``prior`` virtual wins each way for every pair keep every
    strength finite (a bot that never wins still gets a rating); ``start`` warm-starts it.

    >>> s = bradley_terry(["a", "b"], {("a", "b"): 3.0, ("b", "a"): 1.0}, prior=0)
    >>> round(s["a"] / s["b"], 6)
    3.0
    """
    n = len(names)
    idx = {name: i for i, name in enumerate(names)}
    w = [[prior if i != j else 0.0 for j in range(n)] for i in range(n)]
    for (a, b), v in wins.items():
        w[idx[a]][idx[b]] += v
    games = [[w[i][j] + w[j][i] for j in range(n)] for i in range(n)]
    total = [sum(row) for row in w]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if games[i][j] > 0]

    def loglik(t: list[float]) -> float:
        out = 0.0
        for i, j in pairs:
            d = t[i] - t[j]
            soft = max(d, 0.0) + math.log1p(math.exp(-abs(d)))  # log(1 + e^d), stably
            out += w[i][j] * (d - soft) - w[j][i] * soft
        return out

    theta = [math.log(start[x]) for x in names] if start else [0.0] * n
    current = loglik(theta)
    for _ in range(100):
        grad = list(total)
        hess = [[0.0] * n for _ in range(n)]
        for i, j in pairs:
            pij = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            grad[i] -= games[i][j] * pij
            grad[j] -= games[i][j] * (1.0 - pij)
            h = games[i][j] * pij * (1.0 - pij)
            hess[i][i] -= h
            hess[j][j] -= h
            hess[i][j] += h
            hess[j][i] += h
        # the last strength is the reference: solve the other n - 1 Newton equations
        step = _solve([row[: n - 1] for row in hess[: n - 1]], [-g for g in grad[: n - 1]])
        if step is None:
            break
        step.append(0.0)
        scale = 1.0
        while scale > 1e-6:
            trial = [t + scale * d for t, d in zip(theta, step, strict=True)]
            value = loglik(trial)
            if value >= current - 1e-12:
                break
            scale /= 2
        else:
            break
        theta, current = trial, value
        if max(abs(d) for d in step) * scale < 1e-10:
            break
    mean = sum(theta) / n
    return {name: math.exp(theta[i] - mean) for i, name in enumerate(names)}


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; ``None`` when singular.

    >>> [round(v, 9) for v in _solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0])]
    [0.8, 1.4]
    """
    n = len(b)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-300:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def _elo(strengths: dict[str, float]) -> dict[str, float]:
    r = {k: 400 * math.log10(v) for k, v in strengths.items()}
    mean = sum(r.values()) / len(r)
    return {k: v - mean for k, v in r.items()}


def usual_deals(rows: Sequence[dict[str, Any]]) -> int:
    """The deals of a match that records none (one cut short): the commonest count of the
    finished matches that do, else 1.

    >>> usual_deals([{"result": {"deals": 3}}, {"result": {"deals": 0}}])
    3
    """
    counts = Counter(r["result"]["deals"] for r in rows if r["result"].get("deals"))
    return counts.most_common(1)[0][0] if counts else 1


def forfeit_score(rows: Sequence[dict[str, Any]], usual: int = 1) -> float:
    """The score per deal a forfeited seat is charged: the lowest score per deal of any seat
    that did not forfeit, over every finished match of ``rows``, minus the spread of those
    scores (highest minus lowest, or 1 when they are all equal). Strictly below anything a
    seat that played on got, so a forfeit loses to every result on every board. The figure
    comes from the whole tournament, not from the forfeited match, so a crash at a bad
    moment cannot pick it: a seat would gain by forfeiting only a match it would otherwise
    have finished further below the tournament's worst result than the best is above it.

    >>> rows = [{"result": {"scores": [7, -3, 2], "forfeited": [], "deals": 1}},
    ...         {"result": {"scores": [0, 0, 0], "forfeited": [1], "deals": 0}}]
    >>> forfeit_score(rows)  # lowest -3, spread 10
    -13.0
    >>> forfeit_score([])
    -1.0
    """
    played = [
        float(x) / (r["result"].get("deals") or usual)
        for r in rows
        for s, x in enumerate(r["result"]["scores"])
        if s not in r["result"].get("forfeited", ())
    ]
    if not played:
        return -1.0
    lo, hi = min(played), max(played)
    return lo - ((hi - lo) or 1.0)


@dataclass(frozen=True)
class EntryResult:
    """What one entry got in one match, as the standings count it."""

    score: float  # its match score (the mean of its seats'), a forfeit charged per deal
    rank: int  # its finishing place: its best seat's, or its forfeited seat's
    forfeited: bool


def entry_results(row: dict[str, Any], floor: float, usual: int = 1) -> dict[str, EntryResult]:
    """Each entry's result in a finished schedule row, forfeits charged ``floor`` per deal
    (:func:`forfeit_score`). An entry with several seats (partners) counts once.

    >>> row = {"seats": ["a", "b", "c"], "result": {"scores": [5, 9, -1], "ranks": [2, 3, 1],
    ...        "forfeited": [1], "deals": 1}}
    >>> {k: (v.score, v.rank, v.forfeited) for k, v in entry_results(row, -20.0).items()}
    {'a': (5.0, 2, False), 'b': (-20.0, 3, True), 'c': (-1.0, 1, False)}
    """
    res = row["result"]
    d = res.get("deals") or usual
    lost = set(res.get("forfeited", ()))
    where: dict[str, list[int]] = {}
    for s, who in enumerate(row["seats"]):
        where.setdefault(who, []).append(s)
    out = {}
    for who, ss in where.items():
        if lost.intersection(ss):
            out[who] = EntryResult(floor * d, max(res["ranks"][s] for s in ss), True)
        else:
            score = sum(float(res["scores"][s]) for s in ss) / len(ss)
            out[who] = EntryResult(score, min(res["ranks"][s] for s in ss), False)
    return out


class _Tally:
    """The finished matches summed per group: score and deals per entry; score difference,
    deals and being ahead per ordered pair; each entry's matches, forfeits, first places (a
    tie shares the first place) and score per deal in each match."""

    def __init__(self, names: list[str], pairs: list[tuple[str, str]], groups: int) -> None:
        self.names, self.pairs = names, pairs
        self.score = {n: [0.0] * groups for n in names}
        self.deals = {n: [0.0] * groups for n in names}
        self.pdiff = {p: [0.0] * groups for p in pairs}
        self.pdeals = {p: [0.0] * groups for p in pairs}
        self.wins = {p: [0.0] * groups for p in pairs}
        self.matches: Counter[str] = Counter()
        self.forfeits: Counter[str] = Counter()
        self.firsts: defaultdict[str, float] = defaultdict(float)
        self.per_match: dict[str, list[float]] = {n: [] for n in names}

    def add(self, r: dict[str, Any], g: int, usual: int, floor: float) -> None:
        """Count finished row ``r`` in group ``g`` (forfeits charged ``floor`` per deal)."""
        d = r["result"].get("deals") or usual
        res = entry_results(r, floor, usual)
        score_of = {w: x.score for w, x in res.items()}
        rank_of = {w: x.rank for w, x in res.items()}
        top = sum(1 for w in res if rank_of[w] == 1)
        for who, x in res.items():
            self.score[who][g] += x.score
            self.deals[who][g] += d
            self.matches[who] += 1
            self.forfeits[who] += x.forfeited
            if rank_of[who] == 1:
                self.firsts[who] += 1 / top
            self.per_match[who].append(x.score / d)
        for a in res:
            for b in res:
                if a == b:
                    continue
                self.pdiff[(a, b)][g] += score_of[a] - score_of[b]
                self.pdeals[(a, b)][g] += d
                if rank_of[a] < rank_of[b]:
                    self.wins[(a, b)][g] += 1.0
                elif rank_of[a] == rank_of[b]:
                    self.wins[(a, b)][g] += 0.5

    def stats(
        self, weights: Sequence[int] | None, start: dict[str, float] | None = None
    ) -> tuple[dict, dict, dict]:
        """Mean scores, pair differences and ratings, the groups weighted by ``weights`` (a
        bootstrap resample; None: each once); the ratings' fit starts from ``start``."""
        names, pairs = self.names, self.pairs
        means = {n: _ratio(self.score[n], self.deals[n], weights) for n in names}
        diffs = {p: _ratio(self.pdiff[p], self.pdeals[p], weights) for p in pairs}
        w = {
            p: (sum(map(operator.mul, weights, self.wins[p])) if weights else sum(self.wins[p]))
            for p in pairs
        }
        if len(names) > 1:
            ratings = _elo(bradley_terry(names, w, start=start))
        else:
            ratings = dict.fromkeys(names, 0.0)
        return means, diffs, ratings


class _Bootstrap:
    """Each resample's estimates, for the intervals."""

    def __init__(self, names: list[str], pairs: list[tuple[str, str]]) -> None:
        self.means: dict[str, list[float]] = {n: [] for n in names}
        self.diffs: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}
        self.ratings: dict[str, list[float]] = {n: [] for n in names}
        self.rdiffs: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}

    def add(self, means: dict, diffs: dict, ratings: dict) -> None:
        for n in self.means:
            self.means[n].append(means[n])
            self.ratings[n].append(ratings[n])
        for p in self.diffs:
            self.diffs[p].append(diffs[p])
            self.rdiffs[p].append(ratings[p[0]] - ratings[p[1]])


def compute_standings(
    names: Sequence[str],
    rows: Sequence[dict[str, Any]],
    seed: int,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    scheduled: int | None = None,
) -> Standings:
    """Standings of entries ``names`` from finished schedule rows (``group``, ``seats``,
    ``result`` with ``scores``, ``ranks``, ``forfeited`` and ``deals``)."""
    names = list(names)
    done = sorted(
        (r for r in rows if r.get("result") is not None), key=lambda r: (r["group"], r["index"])
    )
    groups = sorted({r["group"] for r in done})
    gpos = {g: i for i, g in enumerate(groups)}
    ng = len(groups)
    pairs = [(a, b) for a in names for b in names if a != b]
    tally = _Tally(names, pairs, ng)
    usual = usual_deals(done)
    floor = forfeit_score(done, usual)
    for r in done:
        tally.add(r, gpos[r["group"]], usual, floor)
    # the point estimates and the bootstrap
    rng = random.Random(derive(seed, "bootstrap"))
    means, diffs, ratings = tally.stats(None)
    fit = {n: 10 ** (ratings[n] / 400) for n in names}  # resamples start from here
    boot = _Bootstrap(names, pairs)
    for _ in range(resamples if ng else 0):
        c = Counter(rng.randrange(ng) for _ in range(ng))
        boot.add(*tally.stats([c.get(i, 0) for i in range(ng)], fit))
    tail = expanded_tail(level, ng)
    bots = [
        BotStanding(
            name=n,
            matches=tally.matches[n],
            deals=round(sum(tally.deals[n])),
            forfeits=tally.forfeits[n],
            wins=tally.firsts[n] / tally.matches[n] if tally.matches[n] else math.nan,
            mean=_interval(means[n], boot.means[n], tail),
            rating=_interval(ratings[n], boot.ratings[n], tail),
            scores=tally.per_match[n],
        )
        for n in names
    ]
    bots.sort(key=lambda b: (-b.mean.value if not math.isnan(b.mean.value) else math.inf, b.name))
    pair_results = {}
    for a, b in pairs:
        met = sum(1 for r in done if a in r["seats"] and b in r["seats"])
        ahead = sum(tally.wins[(a, b)]) / met if met else math.nan
        pair_results[(a, b)] = PairResult(
            a,
            b,
            met,
            _interval(diffs[(a, b)], boot.diffs[(a, b)], tail),
            ahead,
            _interval(ratings[a] - ratings[b], boot.rdiffs[(a, b)], tail),
        )
    return Standings(
        bots=bots,
        pairs=pair_results,
        matches=len(done),
        scheduled=len(rows) if scheduled is None else scheduled,
        groups=ng,
        resamples=resamples,
        level=level,
        forfeit_score=floor,
    )
