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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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

#: Bootstrap resamples by default, and the interval's coverage.
RESAMPLES = 1000
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval.

    >>> Interval(1.0, -0.5, 2.0).significant, Interval(1.0, 0.2, 2.0).significant
    (False, True)
    """

    value: float
    low: float
    high: float

    @property
    def significant(self) -> bool:
        """True when the interval lies wholly on one side of zero."""
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high}


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


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (type 7).

    >>> _quantile([1.0, 2.0, 3.0, 4.0], 0.5)
    2.5
    """
    if not sorted_values:
        return math.nan
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _normal_quantile(p: float) -> float:
    """The standard normal quantile, by bisection on ``erf`` (exact enough, and no scipy).

    >>> round(_normal_quantile(0.975), 4)
    1.96
    """
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _t_quantile(p: float, df: int) -> float:
    """Student's t quantile by its Cornish-Fisher expansion (within 0.2% for df >= 3).

    >>> round(_t_quantile(0.975, 11), 2), round(_t_quantile(0.975, 199), 3)
    (2.2, 1.972)
    """
    z = _normal_quantile(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def expanded_tail(level: float, groups: int) -> float:
    """The tail probability at which to read the bootstrap distribution: Hesterberg's
    *expanded percentile* interval, which widens the plain percentile interval so that it
    keeps its coverage with few groups (the plain one is too narrow: with 12 deal groups
    a nominal 95% interval of two identical bots excluded 0 in 13% of simulated
    tournaments). It reads percentiles at ``Phi(-sqrt(n/(n-1)) t(n-1))`` instead of
    ``(1 - level) / 2``; with 200 groups that is 2.4% instead of 2.5%.

    >>> round(expanded_tail(0.95, 12), 4), round(expanded_tail(0.95, 200), 4)
    (0.0108, 0.024)
    """
    tail = (1 - level) / 2
    if groups < 3:
        return tail
    t = _t_quantile(1 - tail, groups - 1) * math.sqrt(groups / (groups - 1))
    return 0.5 * (1 + math.erf(-t / math.sqrt(2)))


def _interval(value: float, samples: list[float], tail: float) -> Interval:
    s = sorted(x for x in samples if not math.isnan(x))
    return Interval(value, _quantile(s, tail), _quantile(s, 1 - tail))


def _ratio(num: Sequence[float], den: Sequence[float], weights: Sequence[int] | None) -> float:
    if weights is None:
        top, bottom = sum(num), sum(den)
    else:
        top = sum(map(operator.mul, weights, num))
        bottom = sum(map(operator.mul, weights, den))
    return top / bottom if bottom else math.nan


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
    # per group sums: score, deals per entry; diff, deals, ahead, count per ordered pair
    score = {n: [0.0] * ng for n in names}
    deals = {n: [0.0] * ng for n in names}
    pdiff = {p: [0.0] * ng for p in pairs}
    pdeals = {p: [0.0] * ng for p in pairs}
    wins = {p: [0.0] * ng for p in pairs}
    matches, forfeits, firsts = Counter(), Counter(), Counter()
    per_match: dict[str, list[float]] = {n: [] for n in names}
    usual = usual_deals(done)
    floor = forfeit_score(done, usual)
    for r in done:
        g = gpos[r["group"]]
        d = r["result"].get("deals") or usual
        res = entry_results(r, floor, usual)
        score_of = {w: x.score for w, x in res.items()}
        rank_of = {w: x.rank for w, x in res.items()}
        top = sum(1 for w in res if rank_of[w] == 1)
        for who, x in res.items():
            score[who][g] += x.score
            deals[who][g] += d
            matches[who] += 1
            forfeits[who] += x.forfeited
            if rank_of[who] == 1:
                firsts[who] += 1 / top
            per_match[who].append(x.score / d)
        for a in res:
            for b in res:
                if a == b:
                    continue
                pdiff[(a, b)][g] += score_of[a] - score_of[b]
                pdeals[(a, b)][g] += d
                if rank_of[a] < rank_of[b]:
                    wins[(a, b)][g] += 1.0
                elif rank_of[a] == rank_of[b]:
                    wins[(a, b)][g] += 0.5
    # the point estimates and the bootstrap
    rng = random.Random(derive(seed, "bootstrap"))

    def stats(weights: Sequence[int] | None) -> tuple[dict, dict, dict]:
        means = {n: _ratio(score[n], deals[n], weights) for n in names}
        diffs = {p: _ratio(pdiff[p], pdeals[p], weights) for p in pairs}
        w = {
            p: (sum(map(operator.mul, weights, wins[p])) if weights else sum(wins[p]))
            for p in pairs
        }
        if len(names) > 1:
            ratings = _elo(bradley_terry(names, w, start=warm.get("fit")))
        else:
            ratings = dict.fromkeys(names, 0.0)
        return means, diffs, ratings

    warm: dict[str, Any] = {}
    means, diffs, ratings = stats(None)
    warm["fit"] = {n: 10 ** (ratings[n] / 400) for n in names}  # resamples start from here
    boot_means: dict[str, list[float]] = {n: [] for n in names}
    boot_diffs: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}
    boot_ratings: dict[str, list[float]] = {n: [] for n in names}
    boot_rdiffs: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}
    for _ in range(resamples if ng else 0):
        c = Counter(rng.randrange(ng) for _ in range(ng))
        weights = [c.get(i, 0) for i in range(ng)]
        m, dd, rt = stats(weights)
        for n in names:
            boot_means[n].append(m[n])
            boot_ratings[n].append(rt[n])
        for p in pairs:
            boot_diffs[p].append(dd[p])
            boot_rdiffs[p].append(rt[p[0]] - rt[p[1]])
    tail = expanded_tail(level, ng)
    total_deals = {n: sum(deals[n]) for n in names}
    bots = [
        BotStanding(
            name=n,
            matches=matches[n],
            deals=round(total_deals[n]),
            forfeits=forfeits[n],
            wins=firsts[n] / matches[n] if matches[n] else math.nan,
            mean=_interval(means[n], boot_means[n], tail),
            rating=_interval(ratings[n], boot_ratings[n], tail),
            scores=per_match[n],
        )
        for n in names
    ]
    bots.sort(key=lambda b: (-b.mean.value if not math.isnan(b.mean.value) else math.inf, b.name))
    pair_results = {}
    for a, b in pairs:
        met = sum(1 for r in done if a in r["seats"] and b in r["seats"])
        ahead = sum(wins[(a, b)]) / met if met else math.nan
        pair_results[(a, b)] = PairResult(
            a,
            b,
            met,
            _interval(diffs[(a, b)], boot_diffs[(a, b)], tail),
            ahead,
            _interval(ratings[a] - ratings[b], boot_rdiffs[(a, b)], tail),
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
