"""One entry syntax for every command that takes bots, run as real ``levata`` processes:
reference bots with options, manifests, ``@NAME`` and ``module:Class``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from levata.engine import all_games
from levata.server.tournament.spec import build_spec
from levata.server.tournament.store import TourneyStore, spec_hash

RECORDER = '''
import random


class Recorder:
    """Plays at random; on construction notes its game and its `note` option in `path`."""

    name = "recorder"

    def __init__(self, game="", seed=0, *, note: str = "", path: str = "", greedy: bool = False):
        if path:
            with open(path, "a") as f:
                f.write(f"{game} {note} {greedy}\\n")
        self.greedy = greedy
        self.rng = random.Random(seed)

    def act(self, view, legal):
        return legal[0] if self.greedy else self.rng.choice(list(legal))
'''

FIRST_LEGAL = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"index": 0}), flush=True)
"""


def levata(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 180):
    return subprocess.run(
        [sys.executable, "-m", "levata.server.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


@pytest.fixture
def author(tmp_path):
    """An author's folder: a Python bot class and a JSON-lines program with its manifest."""
    (tmp_path / "recbots.py").write_text(RECORDER)
    (tmp_path / "first.py").write_text(FIRST_LEGAL)
    (tmp_path / "first.toml").write_text('name = "first"\ncommand = ["python3", "first.py"]\n')
    return tmp_path


def notes(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def one_error_line(run: subprocess.CompletedProcess[str], status: int = 2) -> str:
    assert run.returncode == status, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    return lines[0]


def test_play_takes_reference_bots_with_options():
    run = levata(
        "play", "--game", "whist", "-o", "deal_size=2", "--seed", "1", "-q",
        "--bots", "pimc:worlds=4:time_ms=30,heuristic,random",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "final standings" in run.stdout and "pimc" in run.stdout


@pytest.mark.parametrize(
    ("command", "bots", "message"),
    [
        ("play", "pimc:depth=3,heuristic,random", "bot pimc has no option 'depth' (its options:"),
        ("play", "pimc:worlds=lots,random,random", "worlds=lots is not a whole number"),
        ("match", "pimc:worlds=lots,random,random", "worlds=lots is not a whole number"),
        ("tournament", "pimc:c=0.7,random,random", "its options: worlds=100, time_ms=500"),
        ("play", "nosuchmod_q:Bot,random,random", "cannot import nosuchmod_q"),
        ("play", "pimc:worlds,random,random", "each option after ':' is key=value"),
    ],
)
def test_a_bad_entry_is_one_error_line_naming_the_options(command, bots, message, tmp_path):
    db = () if command == "play" else ("--db", tmp_path / "x.db")
    run = levata(command, "--game", "whist", "--bots", bots, *db)
    assert message in one_error_line(run)


def test_bot_run_takes_the_same_entries():
    env = {**os.environ, "LEVATA_TOKEN": "t" * 32}
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "bot", "run", "pimc:wrolds=3",
         "--game", "whist"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert "bot pimc has no option 'wrolds' (its options: worlds=100" in one_error_line(run)
    helped = levata("bot", "run", "--help")
    assert helped.returncode == 0 and "pimc:worlds=40:time_ms=150" in helped.stdout
    assert "module:Class" in helped.stdout


def test_help_documents_the_entries():
    for command in ("play", "match", "tournament"):
        run = levata(command, "--help")
        assert run.returncode == 0
        text = " ".join(run.stdout.split())
        assert "KIND[:key=value" in text and "module:Class" in text, command


def test_play_with_your_own_class_in_process(author):
    path = author / "made.txt"
    run = levata(
        "play", "--game", "macao", "--seed", "3", "-q",
        "--bots", f"recbots:Recorder:note=inproc:path={path}:greedy=yes,heuristic",
        cwd=author,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert notes(path) == ["macao inproc True"]


def test_match_seats_a_class_with_options_and_a_manifest(author):
    """Over gRPC: the class gets its options in its own bot process, and the manifest's
    program plays through the bridge."""
    path = author / "made.txt"
    db = author / "m.db"
    run = levata(
        "match", "--game", "macao", "--seed", "5", "-q", "-o", "action_cap=400", "--db", db,
        "--bots", f"recbots:Recorder:note=grpc:path={path},first.toml",
        cwd=author,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "refereed over gRPC" in run.stdout and "first" in run.stdout
    assert "forfeit" not in run.stdout
    assert "macao grpc False" in notes(path)
    assert f"record: {db}" in run.stdout


def test_play_with_a_manifest_is_refereed(author):
    run = levata(
        "play", "--game", "macao", "--seed", "2", "-q", "-o", "action_cap=400",
        "--bots", "first.toml,random",
        cwd=author,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "refereed over gRPC" in run.stdout and "forfeit" not in run.stdout


def test_tournament_entries_carry_their_options_into_the_bot_processes(author):
    path = author / "made.txt"
    db = author / "t.db"
    entry = f"recbots:Recorder:note=tour:path={path}"
    run = levata(
        "tournament", "--game", "whist", "--bots", f"{entry},pimc:worlds=3:time_ms=20,random",
        "--deals", "1", "-o", "deal_size=1", "--db", db, "-q",
        cwd=author,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    made = notes(path)
    assert made and set(made) == {"whist tour False"}  # one per match it played
    (t,) = TourneyStore(db).tournaments()
    written = [entry, "pimc:worlds=3:time_ms=20", "random"]
    assert [e["bot"] for e in t["spec"]["entries"]] == written
    assert [e["name"] for e in t["spec"]["entries"]] == written
    assert "pimc:worlds=3:time_ms=20" in run.stdout  # the standings name the entry as written


def test_the_tournament_id_hashes_the_options():
    a = build_spec("whist", "pimc:worlds=3,heuristic,random", deals=2, seed=1)
    b = build_spec("whist", "pimc:worlds=4,heuristic,random", deals=2, seed=1)
    c = build_spec("whist", "pimc,heuristic,random", deals=2, seed=1)
    hashes = {spec_hash(s.to_dict()) for s in (a, b, c)}
    assert len(hashes) == 3


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_match_seats_a_connected_bot_by_name(tmp_path):
    """``@NAME`` in ``levata match --server``: a bot already connected under that name plays
    its seat; the record is the referee's, and the command says so."""
    port = free_port()
    tokens = tmp_path / "tokens.txt"
    secret = "s" * 40
    fd = os.open(tokens, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, f"alice {secret}\n".encode())
    os.close(fd)
    db = tmp_path / "s.db"
    serve = subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", "serve", "--port", str(port), "--db", db,
         "--tokens-file", tokens],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    alice = None
    try:
        token_file = tmp_path / "s.db.admin-token"
        end = time.monotonic() + 30
        while not (token_file.exists() and token_file.read_text().strip()):
            assert time.monotonic() < end and serve.poll() is None, "serve did not start"
            time.sleep(0.1)
        time.sleep(0.5)
        alice = subprocess.Popen(
            [sys.executable, "-m", "levata.server.cli", "bot", "run", "heuristic", "--game",
             "macao", "--server", f"127.0.0.1:{port}", "--matches", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "LEVATA_TOKEN": secret},
        )  # fmt: skip
        time.sleep(1.5)
        run = levata(
            "match", "--game", "macao", "--bots", "@alice,random", "-o", "action_cap=400",
            "--server", f"127.0.0.1:{port}", "--admin-token-file", token_file, "-q",
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        assert "alice" in run.stdout and "forfeit" not in run.stdout
        assert f"record: in the database of the referee at 127.0.0.1:{port}" in run.stdout
        assert "levata.db" not in run.stdout  # not a local file it never wrote
        out, _ = alice.communicate(timeout=30)
        assert "rank" in out
        refused = levata(
            "match", "--game", "macao", "--bots", "@alice,random", "--db", tmp_path / "x.db",
            "--server", f"127.0.0.1:{port}", "--admin-token-file", token_file,
        )  # fmt: skip
        assert "--db is the local referee's file" in one_error_line(refused)
    finally:
        for p in (alice, serve):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(timeout=10)


def test_play_refuses_a_connected_bot_with_a_pointer():
    run = levata("play", "--game", "macao", "--bots", "@alice,random")
    assert "levata match --server" in one_error_line(run)


def test_export_writes_seeds_as_strings(tmp_path):
    db = tmp_path / "m.db"
    seed = 2**62 + 12345  # beyond what a JSON number holds exactly (2**53)
    run = levata("match", "--game", "macao", "--bots", "random", "-o", "action_cap=200",
                 "--seed", seed, "--db", db, "-q")  # fmt: skip
    assert run.returncode == 0, run.stderr
    match_id = run.stdout.split("levata replay ")[1].split()[0]
    export = levata("export", match_id, "--db", db)
    assert export.returncode == 0, export.stderr
    record = json.loads(export.stdout)
    assert record["match"]["seed"] == str(seed)


def test_levata_bots_lists_each_bots_options():
    run = subprocess.run(
        [sys.executable, "-m", "levata.server.cli", "bots"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "160"},
    )
    assert run.returncode == 0, run.stderr
    # One row per game that pimc plays, each with its defaults and its class.
    rows = [line for line in run.stdout.splitlines() if " pimc " in line]
    assert len(rows) == sum("pimc" in g.bots for g in all_games()) >= 2
    for row in rows:
        assert "worlds=100, time_ms=500" in row and "levata.bots.search.pimc:PimcBot" in row
