"""The referee against a real server on loopback, with real bot processes and raw clients."""

from __future__ import annotations

import queue
import signal
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from levata.engine import all_games
from levata.engine import game as game_spec
from levata.server.match.limits import Limits
from levata.server.match.replay import export_match, replay_match
from levata.v1 import admin_pb2, arena_pb2, arena_pb2_grpc, game_pb2

from live import LiveServer, RawBot, bot_process

GAMES = [s.name for s in all_games()]
E = arena_pb2.ReplyErrorCode


def whist_for(server: LiveServer, bot: str, **policy: int) -> tuple[str, RawBot]:
    """A 3-seat Whist deal whose every seat belongs to one raw client."""
    token = server.add_bot(bot)
    raw = RawBot(server, token)
    raw.next("welcome")
    match_id = server.create("whist", [bot] * 3, options={"deal_size": "2"}, **policy)
    return match_id, raw


@pytest.mark.parametrize("game", GAMES)
def test_full_match_with_bot_processes(server, game, tmp_path):
    """Every registered game, each bot its own process; the record replays identically."""
    counts = game_spec(game).players  # the smallest table the game seats, from 3 (66: 2)
    seats = max(3, counts[0]) if max(counts) >= 3 else counts[0]
    kinds = ["heuristic"] + ["random"] * (seats - 1)
    names = [f"{k}{i}" for i, k in enumerate(kinds)]
    procs = [
        bot_process(k, game, server, server.add_bot(n), seed=i, log=tmp_path / f"{n}.log")
        for i, (k, n) in enumerate(zip(kinds, names, strict=True))
    ]
    match_id = server.create(game, names, seed=11)
    info = server.wait(match_id)
    for p in procs:
        assert p.wait(timeout=30) == 0
    assert info.status == admin_pb2.MATCH_STATUS_FINISHED
    assert sorted(info.result.ranks)[0] == 1 and not info.result.forfeited
    assert list(info.strikes) == [0] * seats
    ok, why = replay_match(server.store, match_id)
    assert ok, why
    record = export_match(server.store, match_id)
    assert record["events"] and record["actions"] and record["replies"]


def test_bad_token_is_unauthenticated(server):
    raw = RawBot(server, "not-a-token")
    assert raw.error_code() == grpc.StatusCode.UNAUTHENTICATED


def test_wrong_protocol_version(server):
    token = server.add_bot("old")
    channel = grpc.insecure_channel(server.address)
    hello = arena_pb2.PlayRequest(hello=arena_pb2.Hello(token=token, protocol_version="0"))
    call = arena_pb2_grpc.ArenaServiceStub(channel).Play(iter([hello]))
    with pytest.raises(grpc.RpcError) as exc:
        list(call)
    assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "protocol version" in exc.value.details()
    channel.close()


def test_faults_are_messages_and_change_nothing(server):
    match_id, raw = whist_for(server, "faulty")
    req = raw.next("request")
    before = server.applied(match_id)
    cases = [
        (arena_pb2.ActionReply(match_id="nope", request_id=req.request_id), "UNKNOWN_MATCH"),
        (arena_pb2.ActionReply(match_id=match_id, request_id="nope", index=0), "UNKNOWN_REQUEST"),
        (
            arena_pb2.ActionReply(
                match_id=match_id,
                request_id=req.request_id,
                state_version=req.state_version + 5,
                index=0,
            ),
            "STALE_VERSION",
        ),
        (
            arena_pb2.ActionReply(
                match_id=match_id, request_id=req.request_id, state_version=req.state_version
            ),
            "MALFORMED",
        ),
        (
            arena_pb2.ActionReply(
                match_id=match_id,
                request_id=req.request_id,
                state_version=req.state_version,
                index=99,
            ),
            "ILLEGAL_ACTION",
        ),
        (
            arena_pb2.ActionReply(
                match_id=match_id,
                request_id=req.request_id,
                state_version=req.state_version,
                action=game_pb2.Action(notation="bid 7"),
            ),
            "ILLEGAL_ACTION",
        ),
        (
            arena_pb2.ActionReply(
                match_id=match_id,
                request_id=req.request_id,
                state_version=req.state_version,
                action=game_pb2.Action(notation=""),
            ),
            "MALFORMED",
        ),
    ]
    for reply, code in cases:
        raw.send(reply)
        err = raw.next("error")
        assert E.Name(err.code) == f"REPLY_ERROR_CODE_{code}", err.message
        assert err.message
    assert server.applied(match_id) == before  # nothing was applied
    raw.reply(req, index=0)  # the same request still takes a good answer
    applied = raw.next("applied")
    assert not applied.substituted and applied.request_id == req.request_id
    assert server.applied(match_id) == before + 1
    outcomes = [r["outcome"] for r in server.store.replies(match_id)]
    assert outcomes.count("applied") == 1 and "stale_version" in outcomes
    raw.close()


def test_reply_for_another_seat(server):
    tokens = [server.add_bot(f"p{i}") for i in range(3)]
    raws = [RawBot(server, t) for t in tokens]
    match_id = server.create("whist", ["p0", "p1", "p2"], options={"deal_size": "2"})
    reqs = {}
    for raw in raws:
        raw.next("match_start")
    seat_to_act = server.info(match_id)  # whoever is asked first
    assert seat_to_act.status == admin_pb2.MATCH_STATUS_RUNNING
    for i, raw in enumerate(raws):
        try:
            reqs[i] = raw.next("request", timeout=1)
        except Exception:
            continue
    ((seat, req),) = reqs.items()
    thief = raws[(seat + 1) % 3]
    thief.send(
        arena_pb2.ActionReply(
            match_id=match_id, request_id=req.request_id, state_version=req.state_version, index=0
        )
    )
    err = thief.next("error")
    assert err.code == E.REPLY_ERROR_CODE_WRONG_SEAT
    assert server.applied(match_id) == 0
    for raw in raws:
        raw.close()


def test_oversized_message_is_refused(tmp_path):
    live = LiveServer(tmp_path / "small.db", max_message_bytes=64 * 1024)
    try:
        match_id, raw = whist_for(live, "big")
        req = raw.next("request")
        raw.reply(req, index=None, action=game_pb2.Action(notation="x" * 200_000))
        assert raw.error_code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert live.applied(match_id) == 0
    finally:
        live.stop()


def test_late_bot_gets_a_default_move_and_a_strike(server):
    match_id, raw = whist_for(server, "sleepy", move_ms=150, bank_ms=100, max_strikes=5)
    req = raw.next("request")
    assert 0 < req.time_left_ms <= 250 and req.bank_left_ms == 100
    start = time.monotonic()
    applied = raw.next("applied")  # we never answer
    waited = time.monotonic() - start
    assert applied.substituted and applied.strikes == 1
    assert 0.15 <= waited < 2.0
    assert applied.request_id == req.request_id
    legal = [la.action.notation for la in req.legal]
    assert applied.action.notation in legal
    assert server.info(match_id).strikes[req.seat] == 1
    nxt = raw.next("request")
    while nxt.seat != req.seat:  # the other seats time out too; wait for this seat's turn
        nxt = raw.next("request")
    assert nxt.bank_left_ms == 0  # its bank was spent waiting
    raw.close()


def test_too_many_strikes_forfeit(server):
    match_id, raw = whist_for(server, "asleep", move_ms=50, bank_ms=0, max_strikes=2)
    info = server.wait(match_id, timeout=30)
    assert info.result.reason == "forfeit"
    assert len(info.result.forfeited) >= 1
    raw.close()


def test_slow_reply_spends_the_bank(server):
    _, raw = whist_for(server, "slow", move_ms=100, bank_ms=5000)
    req = raw.next("request")
    time.sleep(0.4)
    raw.reply(req, index=0)
    raw.next("applied")
    nxt = raw.next("request")
    while nxt.seat != req.seat:  # answer the other seats at once
        raw.reply(nxt, index=0)
        nxt = raw.next("request")
    assert 4500 <= nxt.bank_left_ms <= 4750
    raw.close()


def test_killed_bot_reconnects_and_finishes(server, tmp_path):
    names = ["k0", "k1", "k2"]
    tokens = [server.add_bot(n) for n in names]
    procs = [bot_process("random", "whist", server, t, seed=i) for i, t in enumerate(tokens)]
    match_id = server.create("whist", names, options={"deal_size": "6"}, move_ms=3000)
    deadline = time.monotonic() + 30
    while server.applied(match_id) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    procs[0].send_signal(signal.SIGKILL)
    procs[0].wait()
    mid = server.applied(match_id)
    assert mid < 30, "the match ended before the kill"
    procs[0] = bot_process("random", "whist", server, tokens[0], seed=99)
    info = server.wait(match_id)
    assert info.status == admin_pb2.MATCH_STATUS_FINISHED
    assert info.result.reason == "complete" and not info.result.forfeited
    for p in procs:
        assert p.wait(timeout=30) == 0
    assert replay_match(server.store, match_id)[0]


def test_bot_that_never_returns_is_forfeited(server):
    names = ["g0", "g1", "g2"]
    tokens = [server.add_bot(n) for n in names]
    procs = [bot_process("random", "whist", server, t, seed=i) for i, t in enumerate(tokens)]
    match_id = server.create(
        "whist", names, options={"deal_size": "8"}, move_ms=5000, resume_window_ms=300
    )
    deadline = time.monotonic() + 30
    while server.applied(match_id) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    procs[1].send_signal(signal.SIGKILL)
    info = server.wait(match_id, timeout=30)
    assert info.result.reason == "forfeit" and list(info.result.forfeited) == [1]
    assert info.result.ranks[1] == 3
    for p in (procs[0], procs[2]):
        assert p.wait(timeout=30) == 0


def test_a_forfeit_is_ranked_by_the_games_forfeit_scores(server):
    """Banking with mal_on_forfeit: the seat that never returns is charged a MAL (-4 with
    three players, +2 to each other seat) in the result the referee records."""
    names = ["m0", "m1", "m2"]
    tokens = [server.add_bot(n) for n in names]
    procs = [bot_process("random", "banking", server, t, seed=i) for i, t in enumerate(tokens)]
    options = {"session": "1", "mal_on_forfeit": "true"}
    match_id = server.create("banking", names, options=options, move_ms=5000, resume_window_ms=300)
    deadline = time.monotonic() + 30
    while server.applied(match_id) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    procs[1].send_signal(signal.SIGKILL)
    info = server.wait(match_id, timeout=30)
    assert info.result.reason == "forfeit" and list(info.result.forfeited) == [1]
    assert list(info.result.scores) == [2.0, -4.0, 2.0]
    for p in (procs[0], procs[2]):
        assert p.wait(timeout=30) == 0


def test_resume_with_token_gets_missed_events_and_pending_request(server):
    match_id, raw = whist_for(server, "blinky", move_ms=10_000)
    welcome = next(m.welcome for m in raw.seen if m.WhichOneof("message") == "welcome")
    first = raw.next("request")
    raw.reply(first, index=0)
    raw.next("applied")
    pending = raw.next("request")
    seen = [m.event.event.seq for m in raw.seen if m.WhichOneof("message") == "event"]
    last = max(seen)
    raw.close()
    time.sleep(0.2)
    back = RawBot(
        server,
        _token_of(server, "blinky"),
        resume_token=welcome.resume_token,
        last_seen={match_id: last - 1},
    )
    assert back.next("welcome").resumed
    again = back.next("request")
    events = [m.event.event.seq for m in back.seen if m.WhichOneof("message") == "event"]
    assert events and min(events) == last  # only what it missed (here: the last one again)
    assert again.request_id == pending.request_id
    assert again.time_left_ms < pending.time_left_ms
    back.reply(again, index=0)
    assert not back.next("applied").substituted
    back.close()


def test_batched_events_ride_in_requests_and_a_waiting_seat_is_told_soon(server):
    """A seat that asked for batched events gets them inside its requests; while another
    seat thinks, what it has not been told yet comes as MatchEvents within the batch lag."""
    batcher = RawBot(server, server.add_bot("batcher"), batch_events=True)
    staller = RawBot(server, server.add_bot("staller"))
    batcher.next("welcome")
    staller.next("welcome")
    match_id = server.create(
        "whist", ["batcher", "staller", "staller"], options={"deal_size": "2"}, move_ms=8_000
    )
    stalled = threading.Event()
    stalled_at: list[float] = []

    def stall() -> None:  # take the first request and sit on it
        staller.next("request", timeout=30)
        stalled_at.append(time.monotonic())
        stalled.set()

    threading.Thread(target=stall, daemon=True).start()
    told = asked = 0
    while not stalled.is_set() or not told:
        msg = batcher.incoming.get(timeout=30)
        assert msg is not None and not isinstance(msg, grpc.RpcError), msg
        kind = msg.WhichOneof("message")
        if kind == "request":
            assert msg.request.events, "a batching seat's request carries its news"
            batcher.reply(msg.request, index=0)
            asked += 1
        elif kind == "event":
            told += 1
    late = time.monotonic() - stalled_at[0]
    assert asked, "the batching seat was never asked"
    assert late < 4.0, f"the waiting seat heard nothing for {late:.1f} s"
    assert list(server.info(match_id).strikes) == [0, 0, 0]
    batcher.close()
    staller.close()


def test_bundles_carry_what_is_ready_and_a_reply_bundle_counts_as_its_replies(server):  # noqa: PLR0915  (one scenario, read top to bottom)
    """A connection that said Hello.bundle gets what is ready for it at once as one Bundle
    (both its seats' MatchStarts); a ReplyBundle is handled reply by reply (one applied, one
    refused); an oversized one is refused whole; a connection that did not ask never gets a
    Bundle."""
    from levata.server.match.limits import MAX_BUNDLED_REPLIES

    bundler = RawBot(server, server.add_bot("bundler"), batch_events=True, bundle=True)
    plain = RawBot(server, server.add_bot("plain"))
    bundler.next("welcome")
    plain.next("welcome")
    match_id = server.create(
        "whist", ["bundler", "bundler", "plain"], options={"deal_size": "2"}, move_ms=20_000
    )
    plain_kinds: list[str] = []
    stop = threading.Event()

    def answer_plain() -> None:  # the plain seat plays along; it must never see a bundle
        while not stop.is_set():
            try:
                msg = plain.incoming.get(timeout=0.2)
            except queue.Empty:
                continue
            if msg is None or isinstance(msg, grpc.RpcError):
                return
            plain_kinds.append(msg.WhichOneof("message"))
            if msg.WhichOneof("message") == "request":
                plain.reply(msg.request, index=0)

    threading.Thread(target=answer_plain, daemon=True).start()
    first = bundler.incoming.get(timeout=30)
    assert first.WhichOneof("message") == "bundle", first
    starts = [m.match_start.seat for m in first.bundle.messages if m.HasField("match_start")]
    assert sorted(starts) == [0, 1]
    assert not any(m.HasField("bundle") for m in first.bundle.messages)

    def bundler_messages():
        yield from first.bundle.messages
        while True:
            msg = bundler.incoming.get(timeout=30)
            assert msg is not None and not isinstance(msg, grpc.RpcError), msg
            yield from msg.bundle.messages if msg.HasField("bundle") else (msg,)

    got = bundler_messages()
    req = next(m.request for m in got if m.HasField("request"))
    before = server.applied(match_id)
    too_many = arena_pb2.ActionReply(match_id=match_id, request_id=req.request_id, index=0)
    bundler.outgoing.put(
        arena_pb2.PlayRequest(
            replies=arena_pb2.ReplyBundle(replies=[too_many] * (MAX_BUNDLED_REPLIES + 1))
        )
    )
    refused = next(m.error for m in got if m.HasField("error"))
    assert refused.code == arena_pb2.REPLY_ERROR_CODE_MALFORMED
    assert server.applied(match_id) == before  # none of them was used
    good = arena_pb2.ActionReply(
        match_id=match_id, request_id=req.request_id, state_version=req.state_version, index=0
    )
    unknown = arena_pb2.ActionReply(match_id=match_id, request_id="nope", index=0)
    both = arena_pb2.ReplyBundle(replies=[good, unknown])
    bundler.outgoing.put(arena_pb2.PlayRequest(replies=both))
    answers = []
    for m in got:
        if m.HasField("applied") or m.HasField("error"):
            answers.append(m)
        if len(answers) == 2:
            break
    applied = next(m.applied for m in answers if m.HasField("applied"))
    error = next(m.error for m in answers if m.HasField("error"))
    assert applied.request_id == req.request_id and not applied.substituted
    assert error.request_id == "nope" and error.code == arena_pb2.REPLY_ERROR_CODE_UNKNOWN_REQUEST
    assert server.applied(match_id) == before + 1
    stop.set()
    assert plain_kinds and "bundle" not in plain_kinds
    bundler.close()
    plain.close()


def _token_of(server: LiveServer, bot: str) -> str:
    return server.tokens[bot]


def test_health_and_reflection(server):
    health = health_pb2_grpc.HealthStub(server.channel)
    for name in ("", "levata.v1.ArenaService", "levata.v1.AdminService"):
        resp = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
        assert resp.status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(server.channel)
    answers = refl.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5
    )
    names = {s.name for a in answers for s in a.list_services_response.service}
    assert {"levata.v1.ArenaService", "levata.v1.AdminService"} <= names


def test_admin_lists_gets_and_validates(server):
    server.add_bot("a")
    with pytest.raises(grpc.RpcError) as exc:
        server.create("poker", ["a"] * 3)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown game" in exc.value.details()
    with pytest.raises(grpc.RpcError) as exc:
        server.create("whist", ["a", "stranger", "a"])
    assert "unknown bot" in exc.value.details()
    match_id = server.create("whist", ["a"] * 3)
    listed = server.admin.ListMatches(admin_pb2.ListMatchesRequest(), timeout=5)
    assert match_id in [m.match_id for m in listed.matches]
    with pytest.raises(grpc.RpcError) as exc:
        server.admin.GetMatch(admin_pb2.GetMatchRequest(match_id="missing"), timeout=5)
    assert exc.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_two_player_filcau_team_is_one_bot(server):
    """Filcău's ``two_player``: one player holds both seats of a team and sees both hands, so
    two different bots there would see each other's cards: the referee refuses that seating
    (the spec's ``held_together`` trait, no game name in the server), and takes one bot per
    team."""
    for bot in ("a", "b", "c"):
        server.add_bot(bot)
    with pytest.raises(grpc.RpcError) as exc:
        server.create("filcau", ["a", "b", "c", "b"], options={"two_player": "true"})
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "seats 0, 2 are one player's" in exc.value.details(), exc.value.details()
    assert server.create("filcau", ["a", "b", "a", "b"], options={"two_player": "true"})
    assert server.create("filcau", ["a", "b", "c", "b"])  # four players: four bots may sit


def test_startup_allowance_forfeits_a_no_show(server):
    server.add_bot("present")
    server.add_bot("absent")
    raw = RawBot(server, _token_of(server, "present"))
    match_id = server.create("whist", ["present", "absent", "present"], startup_ms=300)
    info = server.wait(match_id, timeout=10)
    assert info.result.reason == "forfeit" and list(info.result.forfeited) == [1]
    # no deal was scored (all 0), yet the no-show ranks below both seats that came: in the
    # record, in the admin's result and in the MatchEnd the seats were told
    assert list(info.result.ranks) == [1, 3, 1] and list(info.result.winners) == [0, 2]
    assert server.store.match(match_id)["result"]["ranks"] == [1, 3, 1]
    told = raw.next("match_end")
    assert told.match_id == match_id and list(told.result.ranks) == [1, 3, 1]
    assert list(told.result.forfeited) == [1]
    raw.close()


def test_realtime_match_is_refereed_and_replays(server):
    """Real-time Repezita: plays applied on arrival at the referee's clock, replayable."""
    names = ["rt0", "rt1", "rt2"]
    procs = [
        bot_process(k, "repezita", server, server.add_bot(n), seed=i)
        for i, (k, n) in enumerate(zip(["heuristic", "random", "random"], names, strict=True))
    ]
    match_id = server.create("repezita", names, options={"mode": "realtime", "time_cap_ms": "5000"})
    info = server.wait(match_id, timeout=60)
    assert info.status == admin_pb2.MATCH_STATUS_FINISHED and not info.result.forfeited
    for p in procs:
        assert p.wait(timeout=30) == 0
    clocks = [a["clock_ms"] for a in server.store.actions(match_id)]
    assert clocks == sorted(clocks) and clocks[-1] > 0
    ok, why = replay_match(server.store, match_id)
    assert ok, why


def test_realtime_an_index_for_a_replaced_request_is_stale_an_action_still_counts(server):
    """Real time: another seat's move replaces a seat's request with a new list. A reply to
    the old request by index is refused as stale (read against the new list it could name
    another move); by its action it is judged against what is legal now."""
    raw = RawBot(server, server.add_bot("rt-idx"))
    raw.next("welcome")
    server.create(
        "repezita",
        ["rt-idx"] * 3,
        seed=3,
        options={"mode": "realtime", "time_cap_ms": "60000"},
        move_ms=20_000,
        bank_ms=0,
    )
    first = {}
    while len(first) < 3:
        req = raw.next("request")
        first[req.seat] = req
    raw.reply(first[0], index=0)  # seat 0 passes: seats 1 and 2 are asked again
    assert raw.next("applied").seat == 0
    while raw.next("request").seat != 1:
        pass
    raw.reply(first[1], index=1)
    error = raw.next("error")
    assert error.code == arena_pb2.REPLY_ERROR_CODE_STALE_VERSION, error.message
    assert "answer by action" in error.message
    raw.reply(first[1], index=None, action=first[1].legal[0].action)  # its pass, legal still
    assert raw.next("applied").seat == 1
    raw.close()


def _read_until(raw: RawBot, want: dict[str, int], timeout: float = 10) -> dict[str, list]:
    """Messages from ``raw`` until ``want`` counts of each kind (or ``timeout``): all kept."""
    got: dict[str, list] = {kind: [] for kind in want}
    end = time.monotonic() + timeout
    while any(len(got[k]) < n for k, n in want.items()) and time.monotonic() < end:
        try:
            msg = raw.incoming.get(timeout=max(end - time.monotonic(), 0.01))
        except queue.Empty:
            break
        if msg is None or isinstance(msg, grpc.RpcError):
            raise ConnectionError(f"stream ended: {msg}")
        kind = msg.WhichOneof("message")
        if kind in got:
            got[kind].append(getattr(msg, kind))
    return got


def test_a_late_reply_to_each_request_costs_no_allowance_a_second_one_does(tmp_path):
    """A fast bot's reply may cross the request's settlement: one late reply per request it
    was sent is refused without spending its allowance of refusals (here 4 at once, then one
    every 10 s), so 30 of them, far past the allowance, are each answered and the bot plays
    on. More late replies to one request than that are not excused: past the allowance they
    are dropped unread."""
    live = LiveServer(tmp_path / "r.db", limits=Limits(refusals_burst=4, refusals_per_s=0.1))
    try:
        raw = RawBot(live, live.add_bot("late"))
        raw.next("welcome")
        live.create("macao", ["late"] * 3, seed=2, move_ms=20_000)
        req = raw.next("request")
        for n in range(30):
            raw.reply(req, index=0)  # applied
            raw.reply(req, index=0)  # late: the request is settled
            got = _read_until(raw, {"error": 1, "request": 1})
            assert [e.code for e in got["error"]] == [arena_pb2.REPLY_ERROR_CODE_STALE_VERSION], (
                n,
                got["error"],
            )
            assert "already settled" in got["error"][0].message
            assert got["request"], f"no request after {n} late replies: the bot was cut off"
            req = got["request"][0]
        raw.reply(req, index=0)
        for _ in range(12):  # one excused, then the allowance of 4, then dropped unread
            raw.reply(req, index=0)
        got = _read_until(raw, {"error": 12}, timeout=3)
        assert 5 <= len(got["error"]) <= 6, len(got["error"])  # (a refill in 3 s at most)
        raw.close()
    finally:
        live.stop()


def test_another_bots_replays_of_a_seats_settled_requests_are_not_excused(tmp_path):
    """An attack on the excuse above: Mallory replays the ids of Alice's settled requests
    (sequential, so she could guess them). They are charged to Mallory's own allowance (4,
    then dropped unread), Alice's excused late replies stay untouched, and nobody is struck."""
    live = LiveServer(tmp_path / "r.db", limits=Limits(refusals_burst=4, refusals_per_s=0.1))
    try:
        alice = RawBot(live, live.add_bot("alice"))
        mallory = RawBot(live, live.add_bot("mallory"))
        alice.next("welcome")
        mallory.next("welcome")
        match_id = live.create("macao", ["alice", "mallory"], seed=1, move_ms=20_000)
        seats = live.arena.matches[match_id].seats
        settled: list = []
        end = time.monotonic() + 20
        while len(settled) < 6 and time.monotonic() < end:  # both answer what they are asked
            for bot in (alice, mallory):
                got = _read_until(bot, {"request": 1}, timeout=0.05)["request"]
                for req in got:
                    bot.reply(req, index=0)
                    if bot is alice:
                        settled.append(req)
        assert len(settled) == 6
        time.sleep(0.5)
        credit = seats[0].excused
        for _ in range(5):
            for req in settled:
                mallory.reply(req, index=0)
        answered = _read_until(mallory, {"error": 30}, timeout=3)["error"]
        assert 4 <= len(answered) <= 5, len(answered)  # her allowance (a refill in 3 s at most)
        assert seats[0].excused == credit
        info = live.info(match_id)
        assert info.status == admin_pb2.MATCH_STATUS_RUNNING and sum(info.strikes) == 0
        alice.close()
        mallory.close()
    finally:
        live.stop()


def test_a_silent_realtime_seat_is_struck_with_moves_legal_when_applied(server):
    """Real time: a seat that never answers is struck, and its default move is drawn from
    what it may do at the strike (the clock may have changed it since the request); the
    record replays, so every substituted move was legal where it was applied. The honest
    seats may be late too on a loaded machine (struck as fairly): the mute one is struck most."""
    procs = [
        bot_process("heuristic", "repezita", server, server.add_bot(n), seed=i)
        for i, n in enumerate(["rt-a", "rt-b"])
    ]
    raw = RawBot(server, server.add_bot("mute"))
    raw.next("welcome")
    match_id = server.create(
        "repezita",
        ["rt-a", "rt-b", "mute"],
        options={"mode": "realtime", "time_cap_ms": "3000"},
        move_ms=100,
        bank_ms=0,
        max_strikes=1000,
    )
    info = server.wait(match_id, timeout=60)
    assert info.status == admin_pb2.MATCH_STATUS_FINISHED and not info.result.forfeited
    assert info.strikes[2] >= 1 and info.strikes[2] > max(info.strikes[0], info.strikes[1])
    subs = [a for a in server.store.actions(match_id) if a["substituted"]]
    assert any(a["seat"] == 2 for a in subs), subs
    ok, why = replay_match(server.store, match_id)
    assert ok, why
    raw.close()
    for p in procs:
        p.wait(timeout=30)


def test_a_bot_is_only_seated_in_games_it_plays(server):
    token = server.add_bot("picky")
    import levata.v1.arena_pb2_grpc as stubs

    channel = grpc.insecure_channel(server.address)
    hello = arena_pb2.PlayRequest(
        hello=arena_pb2.Hello(token=token, protocol_version="1", games=["macao"])
    )
    import queue as q

    outgoing: q.Queue = q.Queue()
    outgoing.put(hello)
    call = stubs.ArenaServiceStub(channel).Play(iter(outgoing.get, None))
    assert next(call).WhichOneof("message") == "welcome"
    match_id = server.create("whist", ["picky"] * 3, startup_ms=300)
    info = server.wait(match_id, timeout=10)
    assert info.result.reason == "forfeit" and list(info.result.forfeited) == [0, 1, 2]
    outgoing.put(None)
    call.cancel()
    channel.close()


def test_a_payload_beside_a_legal_choice_is_judged_by_the_game(server):
    """Kemps' signals ride as a payload in the action's notation: a token the game takes is
    applied with its choice, one it does not take is refused to the sender only."""
    token = server.add_bot("signaller")
    raw = RawBot(server, token)
    raw.next("welcome")
    match_id = server.create("kemps", ["signaller"] * 4)
    for _ in range(4):  # the convention: every seat registers G3 as its team's kemps token
        req = raw.next("request")
        raw.reply(req, index=None, action=game_pb2.Action(notation="register kemps=8"))
    req = raw.next("request")
    while req.view.phase != "exchange":
        req = raw.next("request")
    raw.reply(req, index=None, action=game_pb2.Action(notation="pass signal=G16"))
    assert raw.next("error").code == E.REPLY_ERROR_CODE_ILLEGAL_ACTION
    raw.reply(req, index=None, action=game_pb2.Action(kind="pass", notation="pass signal=G5"))
    applied = raw.next("applied")
    assert applied.action.notation == "pass signal=G5"
    assert "pass signal=G5" in [a["action"] for a in server.store.actions(match_id)]
    raw.close()
