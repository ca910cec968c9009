"""The levata command line, run as a real process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def levata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "levata.server.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_games_lists_every_game_with_options():
    run = levata("games")
    assert run.returncode == 0, run.stderr
    for name in ("whist", "macao", "repezita", "one_card_mode", "deal_size"):
        assert name in run.stdout


def test_play_whist_prints_a_readable_log_and_standings():
    run = levata(
        "play",
        "--game",
        "whist",
        "--players",
        "4",
        "--bots",
        "heuristic,random,random,random",
        "--seed",
        "7",
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "-- deal 1: 1 card(s) each" in out and "-- deal 24: 1 card(s) each" in out
    assert "bids" in out and "trick to seat" in out and "score:" in out
    assert "final standings" in out and "winner" in out
    assert "Traceback" not in run.stderr


def test_same_seed_same_log():
    args = ("play", "--game", "whist", "--bots", "heuristic", "--seed", "3", "-n", "5")
    assert levata(*args).stdout == levata(*args).stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--game", "poker"), "unknown game 'poker'"),
        (("--game", "whist", "--players", "8"), "whist is played by 3-6 players, not 8"),
        (("--game", "whist", "-o", "deal_size=9"), "option deal_size: 9 is above 8"),
        (("--game", "whist", "-o", "one_card_mode=upside"), "option one_card_mode"),
        (("--game", "whist", "-o", "trumps"), "is not NAME=VALUE"),
        (("--game", "whist", "-o", "colour=red"), "has no option 'colour'"),
        (("--game", "whist", "--bots", "genius,random,random"), "unknown bot 'genius'"),
        (("--game", "whist", "--players", "4", "--bots", "random,random"), "4 players need 4"),
    ],
)
def test_bad_input_is_one_clear_line_and_status_2(args, message):
    run = levata("play", *args)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("game", ["macao", "repezita"])
def test_play_other_games(game):
    run = levata("play", "--game", game, "--bots", "heuristic,random,random", "--seed", "2")
    assert run.returncode == 0, run.stderr
    assert "final standings" in run.stdout


@pytest.mark.parametrize("players", ["3", "4"])
def test_play_banking_a_whole_tour(players):
    run = levata("play", "--game", "banking", "-n", players, "--bots", "heuristic", "--seed", "1")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "-- session 1 (round 1)" in out and "names trump" in out and "the Surpriza" in out
    assert f"== round {players} ends" in out and "final standings" in out


def test_play_as_one_seat_sees_only_what_that_seat_sees():
    args = ("play", "--game", "banking", "-n", "4", "--bots", "heuristic", "--seed", "1")
    whole, seat2 = levata(*args).stdout, levata(*args, "--seat", "2").stdout
    assert "seat 0 holds" in whole and "seat 0 holds" not in seat2 and "seat 2 holds" in seat2
    mine = [ln for ln in seat2.splitlines() if " offers " in ln or " passes " in ln]
    others = [ln for ln in whole.splitlines() if " offers " in ln or " passes " in ln]
    assert 0 < len(mine) < len(others)
    assert all("seat 2" in ln for ln in mine)  # its own exchanges only
    buries = [ln for ln in seat2.splitlines() if " buries " in ln]
    assert buries and all(ln.strip().startswith("seat 2 buries") for ln in buries)
    assert len(buries) < whole.count(" buries ")
    assert levata(*args, "--seat", "4").returncode == 2


def test_match_is_refereed_over_grpc_with_bot_processes(tmp_path):
    db = tmp_path / "m.db"
    run = levata(
        "match",
        "--game",
        "whist",
        "--bots",
        "heuristic,random,random,random",
        "-o",
        "deal_size=3",
        "--seed",
        "4",
        "--db",
        str(db),
    )
    assert run.returncode == 0, run.stderr
    assert "refereed over gRPC" in run.stdout and "winner" in run.stdout
    match_id = run.stdout.split("levata replay ")[1].split()[0]
    replay = levata("replay", match_id, "--db", str(db))
    assert replay.returncode == 0 and "identical" in replay.stdout
    export = levata("export", match_id, "--db", str(db), "-o", str(tmp_path / "m.json"))
    assert export.returncode == 0
    import json

    record = json.loads((tmp_path / "m.json").read_text())
    assert record["match"]["game"] == "whist" and record["events"] and record["replies"]


def test_match_against_a_running_server(tmp_path):
    """``serve`` makes an owner-only admin token file; ``match --server`` needs that token."""
    import os
    import socket
    import stat
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "s.db"
    serve = subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    token_file = tmp_path / "s.db.admin-token"
    try:
        end = time.monotonic() + 30
        while not (token_file.exists() and token_file.read_text().strip()):
            assert time.monotonic() < end and serve.poll() is None, "serve did not start"
            time.sleep(0.1)
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert token not in Path(f"/proc/{serve.pid}/cmdline").read_text()
        time.sleep(0.5)
        where = ("--server", f"127.0.0.1:{port}")
        run = levata(
            "match", "--game", "macao", "--bots", "heuristic,random", *where,
            "--admin-token-file", str(token_file), "-q",
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert "Macao, refereed over gRPC" in run.stdout
        via_env = subprocess.run(
            [sys.executable, "-m", "levata.server.cli", "match", "--game", "macao",
             "--bots", "random,random", *where, "-q"],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "LEVATA_ADMIN_TOKEN": token},
        )  # fmt: skip
        assert via_env.returncode == 0, via_env.stderr
        env = {k: v for k, v in os.environ.items() if k != "LEVATA_ADMIN_TOKEN"}
        denied = subprocess.run(
            [sys.executable, "-m", "levata.server.cli", "match", "--game", "macao",
             "--bots", "random,random", *where, "-q"],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert denied.returncode == 2 and "admin token" in denied.stderr
        wrong = subprocess.run(
            [sys.executable, "-m", "levata.server.cli", "match", "--game", "macao",
             "--bots", "random,random", *where, "-q"],
            capture_output=True, text=True, timeout=60,
            env={**env, "LEVATA_ADMIN_TOKEN": "guess"},
        )  # fmt: skip
        assert wrong.returncode == 2 and "admin token required" in wrong.stderr
        assert "Traceback" not in denied.stderr + wrong.stderr
    finally:
        serve.terminate()
        serve.wait(timeout=10)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("replay", "nope", "--db", "/nonexistent/x.db"), "no database"),
        (("match", "--game", "poker"), "unknown game"),
    ],
)
def test_referee_commands_fail_clearly(args, message):
    run = levata(*args)
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr


def test_play_from_a_position_plays_on_from_it(tmp_path):
    """``--position`` starts from a written-down state: here Tarneeb with team 1 already at
    95 points and team 0 idle for two deals, so one deal decides the match."""
    from levata.engine import game

    text = game("tarneeb").new_match(players=4, seed=5).position()
    text = text.replace("team_score=[0,0]", "team_score=[40,95]").replace(
        "team_idle=[0,0]", "team_idle=[2,0]"
    )
    path = tmp_path / "late.txt"
    path.write_text(text + "\n")
    run = levata("play", "-g", "tarneeb", "--bots", "heuristic", "--position", f"@{path}")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.count("   score: ") == 1 and "-- deal" not in out  # the dealt deal decides
    assert "idle penalties [-10, 0]" in out and "final standings" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--position", 'whist/4; phase="bid"'), "the position is of 'whist', not 'tarneeb'"),
        (("--position", 'tarneeb/4; phase="bid"'), "the position has no field 'hand:0'"),
        (("--position", "@/nonexistent/pos.txt"), "cannot read it"),
        (("--position", "tarneeb/4", "-o", "max_deals=3"), "the options are the position's"),
    ],
)
def test_play_refuses_a_bad_position_in_one_line(args, says):
    run = levata("play", "-g", "tarneeb", "--bots", "random", *args)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("error:") and says in run.stderr, run.stderr
