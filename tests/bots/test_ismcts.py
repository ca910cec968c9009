"""The generic IS-MCTS bot: where it plays, legal and reproducible play in every mode, its
budgets, and a match over real gRPC (the view's options arrive through MatchStart)."""

from __future__ import annotations

import random

import pytest

from levata.bots import bot_names, make_bot, play_match
from levata.bots.base import rebuilds_worlds
from levata.bots.search.ismcts import IsmctsBot
from levata.engine import Action, all_games, game
from levata.v1 import admin_pb2

from live import bot_process


def test_ismcts_is_listed_for_every_game_that_rebuilds_worlds() -> None:
    for spec in all_games():
        assert ("ismcts" in bot_names(spec.name)) == rebuilds_worlds(spec)
    assert "ismcts" in bot_names("macao") and "ismcts" in bot_names("repezita")
    assert isinstance(make_bot("ismcts", "macao", seed=1), IsmctsBot)


def test_every_registered_game_rebuilds_worlds_and_ismcts_plays_it() -> None:
    """``world_from_view`` exists for every game (the worlds module), so ismcts is listed for
    each and makes legal choices at positions of a seeded random match of each."""
    for spec in all_games():
        assert rebuilds_worlds(spec), spec.name
        assert "ismcts" in bot_names(spec.name), spec.name
        state = spec.new_match(players=spec.players[0], seed=3)
        rng = random.Random(3)
        bot = IsmctsBot(spec.name, seed=1, iterations=3, time_ms=0, horizon=8)
        asked = 0
        for step in range(60):
            if state.is_over():
                break
            seat = rng.choice(state.to_act())
            legal = state.legal_actions(seat)
            if step % 6 == 0 and len(legal) > 1:
                assert bot.act(state.view(seat), legal).without_payload() in legal  # Kemps' signal
                asked += 1
            state.apply(seat, rng.choice(legal))
        assert asked >= 2, spec.name


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="rollout"):
        IsmctsBot("macao", rollout="greedy")
    with pytest.raises(ValueError, match="iterations"):
        IsmctsBot("macao", iterations=0, time_ms=0)


def _moves(name: str, players: int, seed: int, **options: object) -> list[str]:
    state = game(name).new_match(players=players, options=options, seed=seed)
    bots = [IsmctsBot(name, seed=s, iterations=12, time_ms=0, horizon=40) for s in range(players)]
    moves: list[str] = []
    play_match(state, bots, on_action=lambda seat, a: moves.append(f"{seat}:{a}"))
    assert state.is_over()
    return moves


@pytest.mark.parametrize(
    ("name", "players", "options"),
    [
        ("macao", 3, {"request_scope": "next_player", "wild_changers": True}),
        ("macao", 5, {}),
        ("repezita", 3, {"tick_cap": 200}),
        ("repezita", 2, {"mode": "realtime", "time_cap_ms": 8_000}),  # about 80 moves
    ],
)
def test_plays_legal_matches_the_same_from_the_same_seed(name, players, options) -> None:
    first = _moves(name, players, 4, **options)
    assert first == _moves(name, players, 4, **options)


def test_the_time_budget_bounds_a_decision() -> None:
    state = game("macao").new_match(players=4, seed=2)
    seat = state.to_act()[0]
    bot = IsmctsBot("macao", seed=1, time_ms=30, rollout="random")
    action = bot.act(state.view(seat), state.legal_actions(seat))
    assert isinstance(action, Action) and action in state.legal_actions(seat)
    assert bot.stats.iterations >= 1 and bot.stats.decisions == 1


def test_realtime_answers_within_its_short_budget() -> None:
    spec = game("repezita")
    state = spec.new_match(players=3, options={"mode": "realtime"}, seed=5)
    bot = IsmctsBot("repezita", seed=1, time_ms=200, realtime_ms=10)
    for seat in state.to_act():
        bot.act(state.view(seat), state.legal_actions(seat))
    # The budget is 10 ms; one iteration may run past it, so allow one rollout's worth.
    assert max(bot.stats.times) < 0.5


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("macao", {"action_cap": "150", "wild_changers": "true", "request_scope": "next_player"}),
        ("repezita", {"tick_cap": "40", "idle_ticks": "2"}),
    ],
)
def test_ismcts_plays_over_grpc_with_the_match_options(server, tmp_path, name, options) -> None:
    """Bot processes over loopback gRPC: options that change the rules must reach the bot's
    worlds (a world under other rules disagrees with the referee's legal actions and the bot
    stops), and the match finishes with no strike."""
    kinds = ["ismcts", "heuristic", "ismcts"]
    names = [f"{k}{i}" for i, k in enumerate(kinds)]
    procs = [
        bot_process(k, name, server, server.add_bot(n), seed=i, log=tmp_path / f"{n}.log")
        for i, (k, n) in enumerate(zip(kinds, names, strict=True))
    ]
    match_id = server.create(name, names, seed=3, options=options)
    info = server.wait(match_id, timeout=240)
    for p in procs:
        assert p.wait(timeout=60) == 0, (tmp_path / "ismcts0.log").read_text()
    assert info.status == admin_pb2.MATCH_STATUS_FINISHED
    assert not info.result.forfeited
    assert list(info.strikes) == [0, 0, 0]


def test_a_corrected_guard_asks_more_of_a_pick_among_more_moves() -> None:
    """``corrected``: the luckiest of many moves no better than the heuristic's clears the
    margin as rarely as one move clears the plain guard (Šidák), so the margin grows with the
    moves weighed; two moves, no guard or no correction keep the plain margin."""
    plain, corrected = IsmctsBot("macao", guard=1.0), IsmctsBot("macao", corrected=True)
    margins = [corrected._guard(k) for k in (2, 3, 6, 26, 100)]
    assert margins[0] == 1.0 == plain._guard(26) and margins == sorted(margins)
    assert 2.4 < corrected._guard(26) < 2.5
    assert IsmctsBot("macao", guard=0.0, corrected=True)._guard(26) == 0.0
