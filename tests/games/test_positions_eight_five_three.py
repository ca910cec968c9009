"""8-5-3 positions: a match started from a position in the middle of the match (totals and
credits carried, a request under way) plays to the end and scores what it carried; a bad
position is refused with a clear :class:`BadConfig`; positions round-trip at every phase."""

from __future__ import annotations

import random

import pytest

from levata.bots import make_bot, play_match
from levata.engine import BadConfig, game
from levata.engine.testing import check_position

SPEC = game("eight-five-three")

#: Deal 3 of 12, 3 players: seat 2 (F) made 2 over-tricks last deal and has named seat 0 for
#: its first request, seat 1 asks next; each seat carries its total of the two deals before.
MID_MATCH = (
    'eight-five-three/3; options={"deal":0,"match_deals":0,"previous":"","rotation":"seed",'
    '"shuffler":0,"surpriza_shown":false,"win_at_12":false}; phase="exchange"; '
    "hand:0=9D QS 10S 2S JH 10C KS AD QD AH 7H KH JD 4H 8D 5S; "
    "hand:1=3H 2C 9H 10D 2D 10H 4C AC 8S 8C 9C 5H KD QH 5C 7S; "
    "hand:2=3S KC JS 6S 5D 2H 3D 4D 8H JC 9S QC 3C 7D 4S AS; trick=-; played=-; "
    "undealt=-; surpriza=6H 6D 7C 6C; discards=-; taken:0=-; taken:1=-; taken:2=-; "
    "surpriza_taken=-; trump_suit=null; voids=[[],[],[]]; last_taker=null; leader=2; "
    "tricks=[0,0,0]; deal=3; deals=12; first=2; target=0; quota=[5,3,8]; score=[-10,7,3]; "
    "credit=[0,2,2]; debt=[4,0,0]; requesters=[2,1]; asked=[]; stopped=[]; champion=null"
)
CARRIED = [-10, 7, 3]


@pytest.mark.parametrize(("kind", "seed"), [("heuristic", 5), ("random", 1), ("random", 2)])
def test_a_mid_match_position_plays_to_the_end(kind, seed):
    state = SPEC.from_position(MID_MATCH, seed=seed)
    assert state.position() == MID_MATCH
    assert state.to_act() == (2,) and {a.kind for a in state.legal_actions(2)} == {"offer"}
    bots = [make_bot(kind, "eight-five-three", seed=seed + s) for s in range(3)]
    result = play_match(state, bots)
    first = next(ev for ev in state.events() if ev.kind == "exchanged")
    assert (first.seat, first.data["target"]) == (2, 0)  # the request under way is made
    scored = [ev.data for ev in state.events() if ev.kind == "score"]
    assert [d["deal"] for d in scored] == list(range(3, 13))  # the deals left, no more
    totals = list(CARRIED)
    for d in scored:
        totals = [t + p for t, p in zip(totals, d["points"], strict=True)]
        assert d["totals"] == totals
    assert list(result.scores) == [float(t) for t in totals]
    assert list(result.winners) == [s for s, t in enumerate(totals) if t == max(totals)]
    assert len(result.deals) == len(scored)  # no history came with the position


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (("hand:1=3H", "hand:1=9D"), "extra [Card('9D')], missing [Card('3H')]"),
        (("surpriza=6H ", "surpriza="), "missing [Card('6H')]"),
        (("champion=null", "champion=null; kitty=[]"), "unknown field(s) for eight-five-three"),
        (("eight-five-three/3", "eight-five-three/4"), "the position has no field 'hand:3'"),
        (("target=0", "target=3"), "a seat number is not one of the 3 seats"),
        (("credit=[0,2,2]", "credit=[0,0,0]"), "phase exchange with no request due"),
        (
            ('phase="exchange"', 'phase="gunoi"'),
            "phase 'gunoi' is not one of exchange, trump, discard",
        ),
    ],
)
def test_a_bad_position_is_refused_with_a_clear_reason(edit, says):
    old, new = edit
    assert old in MID_MATCH
    with pytest.raises(BadConfig) as err:
        SPEC.from_position(MID_MATCH.replace(old, new, 1))
    assert says in str(err.value)


@pytest.mark.parametrize("players", [3, 4])
def test_positions_round_trip_at_every_phase(players):
    previous = {3: "2,-1,-1", 4: "2,-1,1,-2"}[players]
    seen = set()
    for seed, shown in ((0, False), (1, True)):
        options = {"previous": previous, "match_deals": 2, "surpriza_shown": shown}
        state = SPEC.new_match(players=players, options=options, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            seen.add(state.phase)
            check_position(state, rng, moves=3)
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert seen == {"exchange", "trump", "discard", "play"}


def test_a_finished_match_keeps_its_champion():
    """``champion`` is no view's: the position carries it, and the result ranks by it."""
    state = SPEC.new_match(players=3, options={"match_deals": 1}, seed=3)
    rng = random.Random(3)
    while not state.is_over():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    text = state.position()
    assert SPEC.from_position(text).result().scores == state.result().scores
    crowned = SPEC.from_position(text.replace("champion=null", "champion=1")).result()
    assert crowned.reason == "twelve" and crowned.winners == (1,) and crowned.ranks[1] == 1
