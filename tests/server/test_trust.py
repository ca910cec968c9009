"""The referee against hostile clients and operators' mistakes, each against a real
``levata serve`` process: closed admin, tokens, hidden cards, bounded resources, resumes."""

from __future__ import annotations

import ast
import asyncio
import os
import queue
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from levata.engine import all_games, game
from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

from live import QUICK_OPTIONS, RawBot, ServeProcess, bot_env

ADMIN_CALLS = {
    "RegisterBot": admin_pb2.RegisterBotRequest(name="x"),
    "CreateMatch": admin_pb2.CreateMatchRequest(game="whist", players=3),
    "ListMatches": admin_pb2.ListMatchesRequest(),
    "GetMatch": admin_pb2.GetMatchRequest(match_id="m"),
    "WatchMatch": admin_pb2.WatchMatchRequest(match_id="m"),
}


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    live = ServeProcess(tmp_path_factory.mktemp("trust"), "--hello-timeout", "2")
    yield live
    live.stop()


def _code(call) -> grpc.StatusCode:
    try:
        result = call()
        if hasattr(result, "__iter__") and not hasattr(result, "ListFields"):
            list(result)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def _bot(serve: ServeProcess, kind: str, game_name: str, token: str, seed: int = 0):
    cmd = [sys.executable, "-m", "levata.bots", "run", kind, "--game", game_name]
    cmd += ["--server", serve.address, "--seed", str(seed), "--matches", "1", "--quiet"]
    return subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=bot_env(token)
    )


def _healthy(serve: ServeProcess) -> bool:
    with grpc.insecure_channel(serve.address) as ch:
        reply = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=10)
    return reply.status == health_pb2.HealthCheckResponse.SERVING


# -- 1. closed by default ---------------------------------------------------------------------


def test_every_admin_call_needs_the_admin_token(serve):
    assert oct(serve.token_file.stat().st_mode & 0o777) == "0o600"
    with grpc.insecure_channel(serve.address) as ch:
        stub = admin_pb2_grpc.AdminServiceStub(ch)
        for method, request in ADMIN_CALLS.items():
            call = getattr(stub, method)
            assert _code(lambda c=call, r=request: c(r, timeout=10)) == (
                grpc.StatusCode.UNAUTHENTICATED
            ), method
            bad = (("authorization", "Bearer " + "0" * len(serve.admin_token)),)
            assert _code(lambda c=call, r=request, w=bad: c(r, timeout=10, metadata=w)) == (
                grpc.StatusCode.UNAUTHENTICATED
            ), method
    assert serve.admin_token not in Path(f"/proc/{serve.proc.pid}/cmdline").read_text()


def test_a_taken_name_is_refused_unless_rotated(serve):
    first = serve.register("alice")
    with pytest.raises(grpc.RpcError) as exc:
        serve.register("alice")
    assert exc.value.code() == grpc.StatusCode.ALREADY_EXISTS
    second = serve.register("alice", rotate=True)
    assert second != first
    old = RawBot(serve.address, first)
    assert old.error_code() == grpc.StatusCode.UNAUTHENTICATED  # the old token is dead
    new = RawBot(serve.address, second)
    assert new.next("welcome").bot_name == "alice"
    new.close()
    # The database keeps digests, never the tokens themselves.
    raw = serve.db.read_bytes() + Path(f"{serve.db}-wal").read_bytes()
    assert first.encode() not in raw and second.encode() not in raw


# -- 2. nothing hidden before the end -------------------------------------------------------


def _watch(serve: ServeProcess, match_id: str, into: list) -> threading.Thread:
    def follow() -> None:
        req = admin_pb2.WatchMatchRequest(match_id=match_id, after_seq=-1)
        for msg in serve.admin.WatchMatch(req, timeout=120):
            into.append((time.monotonic(), msg))

    t = threading.Thread(target=follow, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("game_name", [s.name for s in all_games()])
def test_no_hidden_card_is_reachable_while_a_match_runs(serve, game_name):  # noqa: PLR0915  (one scenario, read top to bottom)
    """Seat 0 is a raw client that stops at its first decisions while every admin and watch
    call is tried; nothing seen before the end gives the seed, and from nothing seen can a
    deal be rebuilt; every event watched before the end was public in the record."""
    spec = game(game_name)
    players = max(spec.players[0], 2)
    names = [f"probe-{game_name}", *(f"{game_name}-r{i}" for i in range(1, players))]
    tokens = [serve.register(n) for n in names]
    raw = RawBot(serve.address, tokens[0])
    raw.next("welcome")
    others = [_bot(serve, "random", game_name, t, seed=i) for i, t in enumerate(tokens[1:], 1)]
    seed = 0x5EC12E7 + len(game_name)
    options = QUICK_OPTIONS.get(game_name, {})
    match_id = serve.create(game_name, names, seed=seed, options=options)
    watched: list = []
    watcher = _watch(serve, match_id, watched)
    seen: list[admin_pb2.MatchInfo] = []
    probes, over = 0, False
    while not over:
        msg = raw.incoming.get(timeout=60)
        assert msg is not None and not isinstance(msg, grpc.RpcError), msg
        kind = msg.WhichOneof("message")
        if kind == "match_end":
            over = True
        elif kind == "request":
            if probes < 4:  # the match is running and waits on us: ask everything now
                probes += 1
                seen.append(serve.info(match_id))
                for status in (0, 1, 2):
                    listed = serve.admin.ListMatches(
                        admin_pb2.ListMatchesRequest(status=status, limit=1000), timeout=10
                    )
                    seen += [m for m in listed.matches if m.match_id == match_id]
                assert seen[-1].status == admin_pb2.MATCH_STATUS_RUNNING
            raw.reply(msg.request)
    raw.close()
    watcher.join(30)
    for p in others:
        p.wait(timeout=60)
    assert probes and seen
    # Everything an admin or spectator got while the match ran:
    assert {m.seed for m in seen} == {0}
    candidates = {int(match_id, 16), 0}
    for m in seen:
        candidates |= {m.seed, m.created_at.seconds, m.created_at.nanos, *m.strikes}
        candidates |= {m.policy.move_ms, m.policy.bank_ms, m.policy.startup_ms}
        candidates |= {int(v) for v in m.options.values() if v.isdigit()}
    true_deal = spec.new_match(players=players, options=options, seed=seed).table()
    rebuilt = [
        c
        for c in candidates
        if spec.new_match(players=players, options=options, seed=c).table() == true_deal
    ]
    assert rebuilt == []  # hands reconstructed: 0
    db = sqlite3.connect(f"file:{serve.db}?mode=ro", uri=True)
    audience = dict(db.execute("SELECT seq, audience FROM events WHERE match_id = ?", (match_id,)))
    db.close()
    # While the match runs the stream carries public events in order; once it is over it
    # replays the private ones from the start: the first step back in seq marks the end.
    during: list = []
    for _, m in watched:
        if m.WhichOneof("message") != "event" or (during and m.event.seq <= during[-1].seq):
            break
        during.append(m.event)
    assert during
    assert all(audience[ev.seq] is None for ev in during)  # every one public
    final = serve.info(match_id)
    assert final.seed == seed  # after the end: the full record


# -- 5. bounded resources -------------------------------------------------------------------

FLOOD = textwrap.dedent(
    """
    import asyncio, sys, grpc
    from levata.v1 import arena_pb2

    async def one(address, hold, out):
        # A pool of its own per channel: one TCP connection each, as a flood would open.
        ch = grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        play = ch.stream_stream("/levata.v1.ArenaService/Play", request_serializer=lambda b: b,
                                response_deserializer=arena_pb2.PlayResponse.FromString)
        call = play(_never())
        try:
            async for _ in call:
                pass
            out.append("OK")
        except grpc.aio.AioRpcError as exc:
            out.append(exc.code().name)
        await asyncio.sleep(hold)
        await ch.close()

    async def _never():
        await asyncio.sleep(3600)
        yield b""

    async def main(address, n, hold):
        out = []
        await asyncio.gather(*(one(address, hold, out) for _ in range(n)))
        from collections import Counter
        print(dict(Counter(out)))

    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
    """
)


def test_a_stream_flood_under_a_low_file_limit_locks_nobody_out(tmp_path):
    """1,100 silent streams on a referee limited to 1,024 files: refused or timed out, the
    referee keeps serving, an honest match and admin calls get through."""
    live = ServeProcess(tmp_path, "--hello-timeout", "2", prefix=("prlimit", "--nofile=1024:1024"))
    try:
        base = live.open_files()
        script = tmp_path / "flood.py"
        script.write_text(FLOOD)
        flood = subprocess.Popen(
            [sys.executable, str(script), live.address, "1100", "8"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(3)
        assert live.proc.poll() is None
        names = ["honest-a", "honest-b", "honest-c"]
        tokens = [live.register_retrying(n) for n in names]
        bots = [_bot(live, "random", "whist", t, seed=i) for i, t in enumerate(tokens)]
        info = live.wait(live.create_retrying("whist", names), timeout=90)
        assert info.status == admin_pb2.MATCH_STATUS_FINISHED and not info.result.forfeited
        for p in bots:
            assert p.wait(timeout=60) == 0
        out, err = flood.communicate(timeout=120)
        assert flood.returncode == 0, err
        outcomes = ast.literal_eval(out.strip().splitlines()[-1])  # {status name: count}
        assert sum(outcomes.values()) == 1100 and "OK" not in outcomes, outcomes
        assert live.proc.poll() is None and _healthy(live)
        end = time.monotonic() + 30
        while live.open_files() > base + 16 and time.monotonic() < end:
            time.sleep(0.5)
        assert live.open_files() <= base + 16  # the flood's connections are let go
    finally:
        live.stop()


def test_hello_deadline_ends_a_silent_stream(serve):
    ch = grpc.insecure_channel(serve.address)
    never: queue.Queue = queue.Queue()
    call = arena_pb2_grpc.ArenaServiceStub(ch).Play(iter(never.get, None))
    start = time.monotonic()
    with pytest.raises(grpc.RpcError) as exc:
        list(call)
    assert exc.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert 1.5 < time.monotonic() - start < 30 and "Hello" in exc.value.details()
    never.put(None)
    ch.close()


def test_hello_and_leave_does_not_grow_the_referee(serve):
    token = serve.register("leaver")

    async def churn(n: int) -> None:
        async with grpc.aio.insecure_channel(serve.address) as ch:
            stub = arena_pb2_grpc.ArenaServiceStub(ch)
            for _ in range(n):
                hello = arena_pb2.PlayRequest(hello=arena_pb2.Hello(token=token))
                call = stub.Play(iter([hello]))
                await call.read()  # the Welcome
                call.cancel()

    asyncio.run(churn(1500))
    first = serve.rss_kb()
    asyncio.run(churn(3000))
    grown = serve.rss_kb() - first
    assert grown < 8 * 1024, f"RSS grew {grown} KB over 3,000 hello-and-leave streams"


def test_oversized_and_out_of_range_fields_get_clear_errors(serve):
    token = serve.register("big")
    raw = RawBot(serve.address, token)
    raw.next("welcome")
    raw.send(arena_pb2.ActionReply(match_id="m", request_id="r" * (1 << 20), index=0))
    err = raw.next("error")
    assert err.code == arena_pb2.REPLY_ERROR_CODE_MALFORMED and "request_id" in err.message
    assert len(err.request_id) <= 64 and len(err.match_id) <= 64
    raw.close()
    bad_hello = RawBot(serve.address, token, last_seen={"x" * 100: 1})
    assert bad_hello.error_code() == grpc.StatusCode.INVALID_ARGUMENT
    for name in ("n" * (2 << 20), "has space", ""):
        with pytest.raises(grpc.RpcError) as exc:
            serve.register(name)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    before = len(serve.admin.ListMatches(admin_pb2.ListMatchesRequest(limit=1000)).matches)
    bots = [serve.register(f"seat{i}") and f"seat{i}" for i in range(3)]
    bad = [
        ({"seed": 2**63}, "seed"),
        ({"seed": 2**64 - 1}, "seed"),
        ({"policy": arena_pb2.MatchPolicy(move_ms=2**63 - 1)}, "move_ms"),
        ({"policy": arena_pb2.MatchPolicy(max_strikes=0)}, "max_strikes"),
        ({"options": {f"o{i}": "v" for i in range(100)}}, "options"),
        ({"options": {"deal_size": "9" * 1000}}, "deal_size"),
        ({"players": 1000}, "players"),
        ({"game": "g" * 1000}, "game"),
        ({"options": {"deal_size": "99"}}, "deal_size"),
    ]
    for fields, word in bad:
        req = admin_pb2.CreateMatchRequest(game="whist", players=3, seat_bots=bots)
        for k, v in fields.items():
            if k == "policy":
                req.policy.CopyFrom(v)
            elif k == "options":
                req.options.update(v)
            else:
                setattr(req, k, v)
        with pytest.raises(grpc.RpcError) as exc:
            serve.admin.CreateMatch(req, timeout=10)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT, fields
        assert word in exc.value.details(), (fields, exc.value.details())
    after = serve.admin.ListMatches(admin_pb2.ListMatchesRequest(limit=1000)).matches
    assert len(after) == before  # a rejected CreateMatch leaves nothing behind
    with pytest.raises(grpc.RpcError) as exc:
        serve.admin.ListMatches(admin_pb2.ListMatchesRequest(limit=5000))
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert _healthy(serve)


def test_undecodable_messages_get_an_error_status(serve):
    token = serve.register("garbled")
    ch = grpc.insecure_channel(serve.address)
    play = ch.stream_stream(
        "/levata.v1.ArenaService/Play",
        request_serializer=lambda b: b,
        response_deserializer=arena_pb2.PlayResponse.FromString,
    )
    garbage = b"\xff\xff\xff\xff\x0f"
    with pytest.raises(grpc.RpcError) as exc:
        list(play(iter([garbage]), timeout=20))
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    hello = arena_pb2.PlayRequest(hello=arena_pb2.Hello(token=token)).SerializeToString()
    gate = threading.Event()

    def then_garbage():
        yield hello
        gate.wait(10)
        yield garbage

    call = play(then_garbage(), timeout=20)
    assert next(call).WhichOneof("message") == "welcome"
    gate.set()
    with pytest.raises(grpc.RpcError) as exc:
        list(call)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    ch.close()


def test_list_matches_is_paginated(tmp_path):
    live = ServeProcess(tmp_path)
    try:
        names = [f"p{i}" for i in range(3)]
        for n in names:
            live.register(n)
        made = [live.create("whist", names, seed=i, startup_ms=60_000) for i in range(7)]
        pages, token = [], ""
        while True:
            page = live.admin.ListMatches(
                admin_pb2.ListMatchesRequest(limit=3, page_token=token), timeout=10
            )
            pages.append([m.match_id for m in page.matches])
            token = page.next_page_token
            if not token:
                break
        assert [len(p) for p in pages] == [3, 3, 1]
        assert [m for p in pages for m in p] == made[::-1]  # newest first, each once
        with pytest.raises(grpc.RpcError) as exc:
            live.admin.ListMatches(admin_pb2.ListMatchesRequest(page_token="x" * 100))
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        live.stop()


def test_watching_a_match_that_never_starts_ends(serve):
    names = ["ghost-a", "ghost-b", "ghost-c"]
    for n in names:
        serve.register(n)
    match_id = serve.create("whist", names, startup_ms=500)
    start = time.monotonic()
    got = list(serve.admin.WatchMatch(admin_pb2.WatchMatchRequest(match_id=match_id), timeout=60))
    assert time.monotonic() - start < 40
    assert got and got[-1].WhichOneof("message") == "finished"
    assert got[-1].finished.result.reason == "forfeit"


# -- 8. resume tokens -------------------------------------------------------------------------


def test_a_resume_token_presented_by_another_bot_is_not_consumed(serve):
    owner, thief = serve.register("owner"), serve.register("thief")
    names = ["owner", "owner", "owner"]
    raw = RawBot(serve.address, owner)
    welcome = raw.next("welcome")
    match_id = serve.create("whist", names, options={"deal_size": "2"})
    req = raw.next("request")
    raw.close()
    time.sleep(0.3)
    stolen = RawBot(serve.address, thief, resume_token=welcome.resume_token)
    assert stolen.next("welcome").resumed is False
    stolen.close()
    back = RawBot(serve.address, owner, resume_token=welcome.resume_token)
    assert back.next("welcome").resumed is True
    again = back.next("request")
    assert again.request_id == req.request_id
    back.close()
    assert match_id


def test_tokens_never_come_from_a_command_line(tmp_path):
    """Bots refuse --token; serve refuses a tokens file others can read; a good one works."""
    env = {k: v for k, v in os.environ.items() if k != "LEVATA_TOKEN"}
    run = [sys.executable, "-m", "levata.bots", "run", "random", "--game", "whist"]
    refused = subprocess.run([*run, "--token", "abc"], capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and "LEVATA_TOKEN" in refused.stderr
    missing = subprocess.run(run, capture_output=True, text=True, env=env)
    assert missing.returncode == 2 and "no token" in missing.stderr
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("carol c4r0l-s3cret\n")
    tokens.chmod(0o644)
    serve = [sys.executable, "-m", "levata.server.cli", "serve", "--port", "0"]
    serve += ["--db", str(tmp_path / "t.db"), "--tokens-file", str(tokens)]
    shared = subprocess.run(serve, capture_output=True, text=True, timeout=60)
    assert shared.returncode == 2 and "chmod 600" in shared.stderr
    assert "Traceback" not in shared.stderr + refused.stderr + missing.stderr
    tokens.chmod(0o600)
    live = ServeProcess(tmp_path, "--tokens-file", str(tokens))
    try:
        bot = RawBot(live.address, "c4r0l-s3cret")
        assert bot.next("welcome").bot_name == "carol"
        bot.close()
    finally:
        live.stop()
