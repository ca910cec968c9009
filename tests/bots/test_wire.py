"""Views, events and actions survive the trip through protocol messages exactly."""

from __future__ import annotations

import random

import pytest

from levata.engine import all_games, game
from levata.wire.codec import (
    action_from_pb,
    action_to_pb,
    event_bytes,
    event_from_pb,
    event_to_pb,
    legal_bytes,
    legal_to_pb,
    options_from_pb,
    view_bytes,
    view_from_pb,
    view_to_pb,
)

GAMES = [s.name for s in all_games()]


@pytest.mark.parametrize("name", GAMES)
def test_views_round_trip_through_protobuf(name):
    spec = game(name)
    for i, players in enumerate(spec.players[:2]):
        state = spec.new_match(players=players, options=dict(spec.short_options), seed=i)
        rng = random.Random(i)
        step = 0
        while not state.is_over() and step < 150:
            for seat in range(players):
                view = state.view(seat)
                wire = view_to_pb(view)
                # options travel once, in MatchStart, as strings: the SDK types them back
                sent = {k: str(v) for k, v in state.options.items()}
                options = options_from_pb(name, sent)
                again = type(wire).FromString(wire.SerializeToString())
                assert view_from_pb(again, options=options) == view
                light = view_from_pb(
                    view_to_pb(view, with_history=False), history=view.history, options=options
                )
                assert light == view
            seat = rng.choice(state.to_act())
            for action in state.legal_actions(seat):
                assert action_from_pb(action_to_pb(action)) == action
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            state.advance_clock(step * 100)
            step += 1
        for ev in state.events():
            assert event_from_pb(event_to_pb(ev)) == ev


@pytest.mark.parametrize("name", GAMES)
def test_the_referees_fast_encodings_are_the_messages(name):
    """The referee's fast encodings (views and events written straight to bytes, legal
    lists joined from cached pieces) decode to exactly the messages the plain encoders
    build, for every seat of every game along random matches."""
    from levata.v1 import arena_pb2, game_pb2

    spec = game(name)
    for i, players in enumerate(spec.players[:2]):
        state = spec.new_match(players=players, options=dict(spec.short_options), seed=10 + i)
        rng = random.Random(i)
        step = 0
        while not state.is_over() and step < 150:
            for seat in range(players):
                view = state.view(seat, history=False)
                assert game_pb2.SeatView.FromString(view_bytes(view)) == view_to_pb(
                    view, with_history=False
                )
                legal = state.legal_actions(seat)
                req = arena_pb2.DecisionRequest.FromString(legal_bytes(legal))
                assert list(req.legal) == legal_to_pb(legal)
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            state.advance_clock(step * 100)
            step += 1
        for ev in state.events():
            assert game_pb2.Event.FromString(event_bytes(ev)) == event_to_pb(ev)


def test_action_from_notation_alone():
    from levata.v1 import game_pb2

    assert str(action_from_pb(game_pb2.Action(notation="bid 3"))) == "bid 3"
    assert str(action_from_pb(game_pb2.Action(notation="play 10S"))) == "play 10S"
