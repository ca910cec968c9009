"""Tournaments without the referee: schedules, statistics, manifests, specs, bad input.

The refereed tournaments (real server, real bot processes, SIGKILL and resume, a crashing
bot, the HTML report in a browser) are in ``test_tournament_live.py``.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import re
import subprocess
import sys
from collections import Counter

import pytest

from levata.engine import BadConfig
from levata.engine.seeds import derive
from levata.server.tournament.details import tournament_details
from levata.server.tournament.entries import parse_entries, parse_manifest
from levata.server.tournament.report import histograms, html_report
from levata.server.tournament.schedule import make_schedule
from levata.server.tournament.spec import Unfinished, build_spec, prepare
from levata.server.tournament.standings import (
    bradley_terry,
    compute_standings,
    entry_results,
    forfeit_score,
)
from levata.server.tournament.store import TourneyStore

# -- schedules -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seating", ["rotate", "permute"])
def test_duplicate_every_entry_plays_every_seat_of_every_deal(seating):
    entries = ["a", "b", "c"]
    schedule = make_schedule(entries, 3, deals=5, seed=9, seating=seating)
    per_deal = 3 if seating == "rotate" else 6
    assert len(schedule) == 5 * per_deal
    for k in range(5):
        deal = [m for m in schedule if m.group == k]
        assert len(deal) == per_deal
        assert {m.seed for m in deal} == {derive(9, "deal", k)}  # the same cards
        seen = Counter((who, seat) for m in deal for seat, who in enumerate(m.seats))
        assert set(seen) == {(e, s) for e in entries for s in range(3)}
        assert len(set(seen.values())) == 1  # each entry equally often in each seat
        if seating == "permute":
            assert sorted(m.seats for m in deal) == sorted(itertools.permutations(entries))
    assert [m.index for m in schedule] == list(range(len(schedule)))


def test_more_entries_than_seats_play_every_combination():
    schedule = make_schedule(list("abcd"), 3, deals=2, seed=1, seating="rotate")
    tables = {frozenset(m.seats) for m in schedule}
    assert tables == {frozenset(t) for t in itertools.combinations("abcd", 3)}
    assert len(schedule) == 2 * 4 * 3


def test_roundrobin_deals_fresh_cards_to_every_match():
    schedule = make_schedule(["a", "b", "c"], 3, deals=4, seed=2, fmt="roundrobin")
    assert len({m.seed for m in schedule}) == len(schedule)
    assert Counter(m.group for m in schedule) == dict.fromkeys(range(4), 3)


def test_two_table_method_swaps_partnerships_on_the_same_deal():
    schedule = make_schedule(["ns", "ew"], 4, deals=3, seed=5, teams=((0, 2), (1, 3)))
    for k in range(3):
        one, two = [m for m in schedule if m.group == k]
        assert one.seed == two.seed
        assert one.seats == ("ns", "ew", "ns", "ew") and two.seats == ("ew", "ns", "ew", "ns")


def test_single_deal_sizes_cycle_through_the_schedule():
    spec = build_spec("whist", "heuristic,random,random", deals=10, seed=3, seating="rotate")
    sizes = [m.options["deal_size"] for m in spec.schedule()[::3]]
    assert sizes == [1, 2, 3, 4, 5, 6, 7, 8, 1, 2]
    fixed = build_spec("whist", "random", players=3, deals=2, options=["deal_size=2"])
    assert {m.options["deal_size"] for m in fixed.schedule()} == {2}


def test_the_description_names_the_games_duplicate_unit():
    # Whist's unit counts cards, Banking's counts credits carried: each is named by its option.
    whist = build_spec("whist", "heuristic,random,random", deals=10, seed=3, seating="rotate")
    assert "each match one deal, deal_size 1-8" in whist.describe()
    banking = build_spec("banking", "heuristic,random,random,random", deals=3, seating="rotate")
    assert "each match one deal, session 1-3" in banking.describe()
    assert (
        "each match a whole game"
        in build_spec("whist", "random,random,random", unit="game").describe()
    )


def test_the_schedule_is_a_function_of_the_spec():
    a = build_spec("whist", "heuristic,random,random", deals=4, seed=8).schedule()
    b = build_spec("whist", "heuristic,random,random", deals=4, seed=8).schedule()
    c = build_spec("whist", "heuristic,random,random", deals=4, seed=9).schedule()
    assert a == b and a != c


# -- statistics ----------------------------------------------------------------------------------


def _row(index, group, seats, scores, forfeited=(), deals=1):
    from levata.engine.contract import ranks_from_scores

    alive = [s for s in range(len(seats)) if s not in forfeited]  # the referee's rule
    ranks = [len(alive) + 1] * len(seats)
    for s, r in zip(alive, ranks_from_scores([scores[s] for s in alive]), strict=True):
        ranks[s] = r
    return {
        "index": index,
        "group": group,
        "seats": list(seats),
        "result": {"scores": scores, "ranks": ranks, "forfeited": list(forfeited), "deals": deals},
    }


def test_bradley_terry_recovers_known_strengths():
    rng = random.Random(4)
    true = {"a": 4.0, "b": 2.0, "c": 1.0}
    wins: Counter = Counter()
    for _ in range(20_000):
        x, y = rng.sample(sorted(true), 2)
        winner = x if rng.random() < true[x] / (true[x] + true[y]) else y
        wins[(winner, y if winner == x else x)] += 1
    fit = bradley_terry(list(true), dict(wins), prior=0)
    assert fit["a"] / fit["c"] == pytest.approx(4.0, rel=0.08)
    assert fit["b"] / fit["c"] == pytest.approx(2.0, rel=0.08)


def test_standings_means_intervals_and_significance():
    rng = random.Random(1)
    rows = []
    for k in range(60):  # "good" scores 2 more than "bad" on the same deal, "mid" in between
        base = rng.randint(-3, 3)
        for _r, seats in enumerate(itertools.permutations(["good", "mid", "bad"])):
            scores = [
                float(base + {"good": 2, "mid": 1, "bad": 0}[w] + rng.random()) for w in seats
            ]
            rows.append(_row(len(rows), k, seats, scores))
    st = compute_standings(["bad", "mid", "good"], rows, seed=5, resamples=300)
    assert [b.name for b in st.bots] == ["good", "mid", "bad"]
    good, mid, bad = st.bots
    assert good.mean.low < good.mean.value < good.mean.high
    assert st.pair("good", "bad").diff.value == pytest.approx(2.0, abs=0.2)
    assert st.pair("good", "bad").diff.significant and st.pair("good", "bad").ahead == 1.0
    assert st.pair("bad", "good").diff.value == -st.pair("good", "bad").diff.value
    assert good.rating.value > mid.rating.value > bad.rating.value
    assert st.pair("good", "mid").rating_diff.significant
    assert good.matches == 360 and good.deals == 360 and st.groups == 60
    # the same rows give the same standings, whatever their order
    again = compute_standings(["bad", "mid", "good"], rows[::-1], seed=5, resamples=300)
    assert again.to_dict() == st.to_dict()


def test_intervals_cover_zero_for_identical_bots_95_percent_of_the_time():
    """Three identical bots (iid scores) over 40 deal groups, 60 tournaments: the interval of
    the x-y difference has the width theory gives and excludes 0 about 5% of the time."""
    false_alarms, widths = 0, []
    for t in range(60):
        rng = random.Random(1000 + t)
        rows = []
        for k in range(40):
            for seats in itertools.permutations(["x", "y", "z"]):
                rows.append(_row(len(rows), k, seats, [float(rng.randint(-5, 8)) for _ in seats]))
        diff = compute_standings(["x", "y", "z"], rows, seed=t, resamples=200).pair("x", "y").diff
        false_alarms += diff.significant
        widths.append(diff.high - diff.low)
    # scores uniform on -5..8: variance 16.25; a difference per match 32.5; 240 matches
    assert sum(widths) / len(widths) == pytest.approx(2 * 1.96 * math.sqrt(32.5 / 240), rel=0.15)
    assert false_alarms <= 8  # 5% of 60 is 3


def test_a_forfeit_never_pays():
    rows = [
        _row(0, 0, ["a", "b", "c"], [-4.0, 0.0, 0.0], forfeited=[1]),  # b forfeited at 0
        _row(1, 0, ["b", "c", "a"], [3.0, 1.0, 2.0]),
    ]
    st = compute_standings(["a", "b", "c"], rows, seed=1, resamples=50)
    b = next(x for x in st.bots if x.name == "b")
    # played on: -4 (the lowest), 0, 3, 1, 2 (the highest 3): a forfeit is -4 - 7 per deal
    assert forfeit_score(rows) == -11.0
    assert b.forfeits == 1 and b.mean.value == pytest.approx((-11.0 + 3.0) / 2)
    first = compute_standings(["a", "b", "c"], rows[:1], seed=1, resamples=50)
    assert first.pair("a", "b").ahead == 1.0  # a ranks ahead of a forfeited b
    assert first.pair("a", "b").diff.value == 4.0  # b is charged -4 - 4, below a's -4
    assert [x.name for x in first.bots][-1] == "b"


def test_a_bot_that_forfeits_everything_ranks_last_below_a_losing_bot():
    """The start-up crash: every match of ``crashy`` ends before a deal is scored (all seats
    0), while ``random`` loses points on every deal it plays out."""
    rows = []
    for k in range(6):
        for seats in itertools.permutations(["good", "random", "crashy"]):
            if k % 2:  # half the deals without crashy: a two-seat table
                seats = tuple(w for w in seats if w != "crashy")
                scores = [{"good": 2.0, "random": -3.0}[w] for w in seats]
                rows.append(_row(len(rows), k, seats, scores))
            else:
                lost = [seats.index("crashy")]
                rows.append(_row(len(rows), k, seats, [0.0] * 3, forfeited=lost, deals=0))
    st = compute_standings(["good", "random", "crashy"], rows, seed=2, resamples=100)
    assert [b.name for b in st.bots] == ["good", "random", "crashy"]
    assert [b.name for b in st.by_rating()][-1] == "crashy"
    crashy = st.bots[-1]
    assert crashy.forfeits == crashy.matches == 18
    assert crashy.mean.value == forfeit_score(rows) == -3.0 - 5.0
    for other in ("good", "random"):
        assert st.pair(other, "crashy").ahead == 1.0 and st.pair(other, "crashy").diff.value > 0
        assert st.pair(other, "crashy").rating_diff.value > 0


def test_a_team_with_a_forfeited_partner_forfeits():
    seats = ["a", "b", "a", "b"]
    row = _row(0, 0, seats, [5.0, 1.0, 5.0, 1.0], forfeited=[2])  # a's second partner left
    assert row["result"]["ranks"] == [1, 2, 4, 2]
    res = entry_results(row, floor=-9.0)
    assert (res["a"].forfeited, res["a"].rank, res["a"].score) == (True, 4, -9.0)
    assert (res["b"].forfeited, res["b"].rank, res["b"].score) == (False, 2, 1.0)
    st = compute_standings(["a", "b"], [row], seed=1, resamples=20)
    assert [b.name for b in st.bots] == ["b", "a"] and st.pair("b", "a").ahead == 1.0


def test_whole_games_count_their_deals():
    rows = [_row(0, 0, ["a", "b", "c"], [42.0, 21.0, 0.0], deals=21)]
    st = compute_standings(["a", "b", "c"], rows, seed=1, resamples=20)
    assert st.bots[0].mean.value == pytest.approx(2.0) and st.bots[0].deals == 21


def test_report_page_is_self_contained():
    rows = [_row(i, i // 2, ["a", "b", "c"][:: 1 - 2 * (i % 2)], [i, 1.0, -1.0]) for i in range(8)]
    page = html_report("t1", "whist <3>", compute_standings(["a", "b", "c"], rows, 1, 50))
    assert "whist &lt;3&gt;" in page
    for bad in ("<script", "http://", "https://", "src=", "@import", "url("):
        assert bad not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert page.count("<svg") == 4
    assert not math.isnan(compute_standings(["a", "b", "c"], rows, 1, 50).bots[0].mean.value)


# -- manifests, specs, stores --------------------------------------------------------------------


def test_manifest_fields_and_defaults(tmp_path):
    m = parse_manifest('name = "x"\ncommand = ["python3", "x.py"]\nworkdir = "sub"\n', tmp_path)
    assert m["command"] == ["python3", "x.py"] and m["protocol"] == "json"
    assert m["workdir"] == str((tmp_path / "sub").resolve())
    assert m["cpu_seconds"] > 0 and m["memory_mb"] > 0 and m["move_ms"] is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = ", "not valid TOML"),
        ('command = "x"', "needs a name"),
        ('name = "has space"\ncommand = "x"', "needs a name"),
        ('name = "x"', "command must be"),
        ('name = "x"\ncommand = "x"\nprotocol = "carrier-pigeon"', "protocol must be"),
        ('name = "x"\ncommand = "x"\ncpu_seconds = -1', "cpu_seconds must be"),
        ('name = "x"\ncommand = "x"\ncolour = "red"', "unknown field(s): colour"),
        ('name = "x"\ncommand = "bot --token={token}"', "no {token} in the command"),
    ],
)
def test_bad_manifests_are_one_clear_error(text, message, tmp_path):
    with pytest.raises(BadConfig, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_manifest(text, tmp_path)


def test_entries_get_distinct_names(tmp_path):
    (tmp_path / "m.toml").write_text('name = "heuristic"\ncommand = "x"\n')
    entries = parse_entries(f"heuristic,{tmp_path / 'm.toml'},random,random", "whist", None)
    assert [e.name for e in entries] == ["heuristic", "heuristic-2", "random", "random-2"]
    assert [e.kind for e in entries] == ["bot", "manifest", "bot", "bot"]


def test_same_spec_same_id_and_resume_finds_it(tmp_path):
    tdb = TourneyStore(tmp_path / "t.db")
    spec = build_spec("whist", "heuristic,random,random", deals=2, seed=1)
    tid, resumed = prepare(tdb, spec, resume=False)
    assert not resumed and tid.startswith("t")
    assert prepare(tdb, spec, resume=True) == (tid, True)
    with pytest.raises(Unfinished, match=f"tournament {tid} of this spec is unfinished"):
        prepare(tdb, spec, resume=False)  # not silently a second one beside it
    tid2, _ = prepare(tdb, spec, resume=False, fresh=True)  # asked for: a second tournament
    assert tid2 == f"{tid}-2"
    tdb.set_finished(tid)
    tdb.set_finished(tid2)
    assert prepare(tdb, spec, resume=False) == (f"{tid}-3", False)  # run again once finished
    assert prepare(tdb, spec, resume=True) == (f"{tid}-3", True)
    other = build_spec("whist", "heuristic,random,random", deals=2, seed=2)
    assert prepare(tdb, other, resume=True)[0] not in (tid, tid2)
    assert tdb.resolve(tid[:5]) is None  # ambiguous prefix
    assert tdb.resolve("latest") is not None


def levata(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "levata.server.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--game", "poker", "--bots", "random"), "unknown game 'poker'"),
        (("--game", "whist", "--bots", "genius,random,random"), "unknown bot 'genius'"),
        (("--game", "whist", "--bots", "random,random"), "3 seats need at least 3 entries"),
        (("--game", "whist", "--bots", ",".join(["random"] * 7)), "give --players"),
        (("--game", "whist", "--bots", "random", "-n", "8"), "not 8"),
        (("--game", "whist", "--bots", "random", "-n", "3", "--format", "swiss"), "format"),
        (("--game", "whist", "--bots", "random", "-n", "3", "--seating", "x"), "seating"),
        (("--game", "whist", "--bots", "random", "-n", "3", "--deals", "0"), "--deals"),
        (("--game", "whist", "--bots", "random", "-n", "3", "-o", "deal_size=9"), "above 8"),
        (("--game", "whist", "--bots", "random", "-n", "3", "-o", "deal_size=0"), "unit deal"),
        (("--game", "macao", "--bots", "random,random", "--unit", "deal"), "no single-deal"),
        (("--game", "whist", "--bots", "@alice,random,random"), "needs --server"),
        (("--game", "whist", "--bots", "missing.toml,random,random"), "cannot read manifest"),
        (("--game", "whist", "--bots", "random", "-n", "3", "--parallel", "0"), "--parallel"),
        (("--game", "whist", "--bots", "random", "-n", "4", "--teams", "0+1"), "teams must"),
    ],
)
def test_bad_tournament_input_is_one_clear_line_and_status_2(args, message, tmp_path):
    run = levata("tournament", *args, "--db", str(tmp_path / "t.db"))
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_a_tournament_prints_no_grpc_log_lines(tmp_path):
    """gRPC's own INFO lines (``I1206 ... Got goaway`` as the referee stops) are not shown
    to the person at the terminal (the command quiets gRPC before it loads)."""
    env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "tournament", "--game", "macao", "--bots",
         "random,random", "-n", "2", "--deals", "2", "--quiet", "--db", str(tmp_path / "t.db")],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    grpc_lines = re.findall(r"^[IWE]\d{4} \d\d:\d\d:\d\d.*$", run.stdout + run.stderr, re.M)
    assert not grpc_lines, grpc_lines


GRPC_LOADS = """
import os, sys
seen = []
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "grpc":
            seen.append(os.environ.get("GRPC_VERBOSITY"))
sys.meta_path.insert(0, Watch())
import levata.server.cli
print(seen[0] if seen else "not loaded")
"""


@pytest.mark.parametrize(("given", "loads_with"), [(None, "ERROR"), ("DEBUG", "DEBUG")])
def test_the_command_quiets_grpc_before_it_loads_unless_told(given, loads_with):
    """gRPC reads GRPC_VERBOSITY once, as it loads: the command sets ERROR before that (a
    value the user set is kept). Set later, it did nothing (INFO lines like "Got goaway"
    ended about two tournaments in three)."""
    env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}
    if given is not None:
        env["GRPC_VERBOSITY"] = given
    run = subprocess.run(
        [sys.executable, "-c", GRPC_LOADS], capture_output=True, text=True, timeout=60, env=env
    )
    assert run.returncode == 0 and run.stdout.strip() == loads_with, run.stdout + run.stderr


def test_report_of_an_unknown_tournament_is_status_2(tmp_path):
    assert levata("report", "x", "--db", str(tmp_path / "none.db")).returncode == 2
    TourneyStore(tmp_path / "t.db")
    run = levata("report", "nope", "--db", str(tmp_path / "t.db"))
    assert run.returncode == 2 and "no tournament 'nope'" in run.stderr


def test_details_add_up_to_the_standings():
    rng = random.Random(3)
    rows = []
    for k in range(6):
        for seats in itertools.permutations(["a", "b", "c"]):
            lost = [seats.index("c")] if k == 2 else []
            scores = [0.0] * 3 if lost else [float(rng.randint(-4, 6)) for _ in seats]
            row = _row(len(rows), k, seats, scores, forfeited=lost, deals=0 if lost else 1)
            row["options"] = {"deal_size": 1 + k % 3}
            row["match_id"] = f"m{len(rows)}"
            row["result"]["strikes"] = [1, 0, 0]
            rows.append(row)
    st = compute_standings(["a", "b", "c"], rows, seed=1, resamples=20)
    d = tournament_details(["a", "b", "c"], rows, unit="deal_size")
    assert d.sizes == ["1", "2", "3"] and d.seats == [0, 1, 2] and d.groups == list(range(6))
    for b in st.bots:
        e = d.entries[b.name]
        assert e.progression[-1][1] == pytest.approx(b.mean.value)
        for parts in (e.by_seat.values(), e.by_size.values()):
            assert sum(v * n for v, n in parts) / sum(n for _, n in parts) == pytest.approx(
                b.mean.value
            )
        assert len(e.matches) == b.matches == 36 and e.forfeits == b.forfeits
        assert e.strikes == 12 and e.clock is None  # seat 0 in 2 of 6 seatings; no records
    assert d.entries["c"].forfeits == 6
    assert {m.per_deal for m in d.entries["c"].matches if m.forfeited} == {st.forfeit_score}


def test_the_matches_table_names_each_column_once():
    """Tarneeb's duplicate unit is its option ``deal``: beside the schedule's deal column it
    reads ``-o deal`` (the report had two columns called ``deal``)."""
    rows = []
    for k in range(2):
        for seats in itertools.permutations(["a", "b"]):
            row = _row(len(rows), k, seats, [float(k), 1.0])
            row["options"], row["match_id"] = {"deal": k + 1}, f"m{len(rows)}"
            rows.append(row)
    st = compute_standings(["a", "b"], rows, seed=1, resamples=20)
    page = html_report("t1", "tarneeb", st, details=tournament_details(["a", "b"], rows, "deal"))
    heads = re.findall(r'<table class="matches"><thead><tr>(.*?)</tr>', page)
    assert heads
    for head in heads:
        names = re.findall(r"<th[^>]*>(.*?)</th>", head)
        assert "-o deal" in names and len(set(names)) == len(names), names


def test_a_distribution_of_zeros_reads_as_one():
    svg = histograms([("a", [0.0] * 5), ("b", [0.0, 2.0, -1.0])], "h")
    assert "all 5 matches +0.00 per deal" in svg
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)"', svg)]
    assert widths and max(widths) < (720 - 180) / 4  # a bar, not a block across the axis
    lone = histograms([("x", [0.0, 0.0])], "h", forfeited={"x": 2})
    assert "all 2 matches +0.00 per deal (all forfeited)" in lone
    assert "-2" in lone and "2</text>" in lone  # the axis spans around the value
