"""The wire encoder (``levata.wire.encode``) on the values games do not send every day: each
encoding, parsed, is the message protobuf itself builds from the same value."""

from __future__ import annotations

import enum

import pytest
from google.protobuf import struct_pb2

from levata.engine import Card, Event, SeatView, parse_cards
from levata.v1 import game_pb2
from levata.wire import encode
from levata.wire.codec import _to_struct, event_to_pb, view_to_pb


class Mode(enum.IntEnum):
    FAST = 3


def a_view(**changes) -> SeatView:
    fields = dict(
        game="test",
        seat=0,
        players=3,
        phase="play",
        to_act=(0, 2),
        hand=tuple(parse_cards("AS 10H 2C")),
        zones={"trick": tuple(parse_cards("KD")), "empty": ()},
        counts={"hand:1": 3, "stock": 0},
        counters={"bid:0": -1, "big": 2**62, "small": -(2**40), "zero": 0},
        trump="H",
        scores=(1.5, -2.0, 0.0),
        facts={"pending": None, "ok": True, "no": False, "n": 7, "x": 0.25},
        history=(),
    )
    fields.update(changes)
    return SeatView(**fields)


FACTS = [
    {},
    {"nested": {"a": [1, "b", None, [True, {"deep": 2}]]}, "card": Card.parse("QS")},
    {"seats": (0, 1), "set": frozenset({3}), "mode": Mode.FAST, 5: "int key"},
    {"text": "ţară şi «ghilimele»", "long": "x" * 300},  # non-ASCII, a field over 127 bytes
    {"many": list(range(200)), "neg": -3, "float": 1e300, "tiny": -0.0},
]


@pytest.mark.parametrize("facts", FACTS)
def test_a_view_is_the_message_protobuf_builds(facts):
    view = a_view(facts=facts)
    assert game_pb2.SeatView.FromString(encode.seat_view(view)) == view_to_pb(
        view, with_history=False
    )


def test_empty_and_large_fields():
    view = a_view(
        to_act=(),
        hand=(),
        zones={"played": tuple(parse_cards("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S") * 4)},
        counts={},
        counters={f"c{i}": i * 1000 for i in range(300)},
        trump=None,
        scores=(),
        facts={},
        phase="",
        seat=0,
    )
    assert game_pb2.SeatView.FromString(encode.seat_view(view)) == view_to_pb(
        view, with_history=False
    )


@pytest.mark.parametrize(
    "ev",
    [
        Event(0, "deal", None, None, (), {}),
        Event(1, "hand", frozenset({2, 0}), 0, tuple(parse_cards("AS 2H")), {"n": 2}),
        Event(2**40, "score", None, 3, (), {"scores": [1.0, -5], "note": "ţ"}),
    ],
)
def test_an_event_is_the_message_protobuf_builds(ev):
    assert game_pb2.Event.FromString(encode.event(ev)) == event_to_pb(ev)


@pytest.mark.parametrize("facts", FACTS)
def test_a_struct_is_the_struct_protobuf_builds(facts):
    assert struct_pb2.Struct.FromString(encode.struct(facts)) == _to_struct(facts)


def test_a_value_struct_cannot_hold_is_refused_as_protobuf_refuses_it():
    with pytest.raises(ValueError):
        _to_struct({"bad": object()})
    with pytest.raises(ValueError, match="object"):
        encode.struct({"bad": object()})
    with pytest.raises(ValueError):
        encode.seat_view(a_view(facts={"bad": b"bytes"}))


@pytest.mark.parametrize("deadline_ms", [0, 1, 999, 1_000, 1_700_000_000_250, -1_500])
@pytest.mark.parametrize("left_ms", [0, 1, 60_000, 2**40])
def test_a_request_clock_is_the_fields_protobuf_builds(left_ms, deadline_ms):
    from levata.v1 import arena_pb2

    want = arena_pb2.DecisionRequest(time_left_ms=left_ms)
    want.deadline.FromMilliseconds(deadline_ms)
    got = arena_pb2.DecisionRequest.FromString(encode.request_clock(left_ms, deadline_ms))
    assert got == want


@pytest.mark.parametrize("size", [0, 1, 127, 128, 300, 70_000])
def test_a_field_wraps_a_message(size):
    """Field 12 of a SeatView (facts, a Struct) wrapping a Struct of one long string."""
    facts = struct_pb2.Struct()
    facts.update({"s": "x" * size})
    view = game_pb2.SeatView.FromString(encode.field(12, facts.SerializeToString()))
    assert view.facts == facts
