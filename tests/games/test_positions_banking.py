"""Banking Cards positions: a match started from a position in the middle of a Tour plays to
the end and scores the Tour points it carried; a position that cannot be a Banking match is
refused with a :class:`BadConfig` that says why; positions round-trip at every phase."""

from __future__ import annotations

import random

import pytest

from levata.bots import make_bot, play_match
from levata.engine import BadConfig, game
from levata.engine.games.banking import rules as br
from levata.engine.testing import check_position

SPEC = game("banking")

#: Round 2 of a 4-player Tour, its first session under way, the third trick about to be led:
#: seat 2 (K) named hearts, took the Surpriza and buried its Gunoi; seat 0 won round 1 (9
#: points, its top) and made its requests; each seat carries its Tour and round points.
MID_TOUR = (
    'banking/4; options={"dealer":0,"mal_literal_3p":false,"mal_on_forfeit":false,'
    '"max_sessions":400,"previous":"","round_points":"","rounds":0,"session":0}; phase="play"; '
    "hand:0=JD 4D 5S QC 7D 8S 8D KS 4S 10C; hand:1=9S 7C QS QH 6C 9D AS 6D AD 2D; "
    "hand:2=7H 10S 6H 9H 10H 9C 8C 8H AC KC; hand:3=3S QD 5D 10D JC 3D 5C 3C KD JS; "
    "trick=-; played=JH 2H AH 3H KH 4H 5H 2C; undealt=-; surpriza=-; gunoi=2S 4C 6S 7S; "
    "taken:0=JH 2H AH 3H KH 4H 5H 2C; taken:1=-; taken:2=-; taken:3=-; "
    'surpriza_taken=AC JH 6S KC; protected=KC AC; trump_suit="H"; '
    'voids=[[],[],[],["H"]]; last_taker=0; leader=0; tricks=[2,0,0,0]; round=2; rounds=4; '
    "session=3; dealer=1; kickoff=2; mals=0; step=0; quota=[2,1,6,3]; "
    "round_points=[3,-1,0,-2]; credit=[4,1,0,0]; debt=[0,0,4,1]; "
    "requests=[[0,2],[0,2],[0,2],[0,2],[1,3]]; finals=[0]; perechiute=[]; declared=[]; "
    "lapsed=[]; cancelled=false; tour_points=[12,-3,-4,-5]; start_points=[0,0,0,0]; "
    'tops=[1,0,0,0]; last_round=[9,-2,-4,-3]; commits=[]; reason="complete"'
)
CARRIED_TOUR = [12, -3, -4, -5]
CARRIED_ROUND = [3, -1, 0, -2]


def _expected_standing(text: str, seed: int, players: list[str]) -> None:
    """Play the position to the end with ``players`` (bot kinds) and check the result
    against the rules applied to the carried state and the events that followed."""
    state = SPEC.from_position(text, seed=seed)
    assert state.position() == text  # a hand-written position reads back to itself
    bots = [make_bot(kind, "banking", seed=seed + s) for s, kind in enumerate(players)]
    result = play_match(state, bots)
    assert state.is_over() and result.reason == "complete"

    tour, rnd, tops, last = list(CARRIED_TOUR), list(CARRIED_ROUND), [1, 0, 0, 0], None
    rounds = []
    for ev in state.events():
        if ev.kind == "score":
            rnd = [r + p for r, p in zip(rnd, ev.data["points"], strict=True)]
            tour = [t + p for t, p in zip(tour, ev.data["points"], strict=True)]
            assert ev.data["round_points"] == rnd and ev.data["totals"] == tour
        elif ev.kind == "round":
            assert ev.data["round_points"] == rnd
            rounds.append(ev.data["round"])
            tops = [t + (r == max(rnd)) for t, r in zip(tops, rnd, strict=True)]
            last, rnd = list(rnd), [0, 0, 0, 0]
    assert rounds == [2, 3, 4]  # the rounds left of the Tour, the one in progress first
    # The scores are the Tour points: those carried in and those scored from the position on.
    assert list(result.scores) == [float(t) for t in tour]
    keys = br.standing(tour, tops, last)
    assert list(result.winners) == [s for s, k in enumerate(keys) if k == max(keys)]
    # No history came with the position: the sessions reported are those played from it.
    assert len(result.deals) == sum(1 for ev in state.events() if ev.kind == "score")
    first = result.deals[0]
    assert first["round"] == 2 and first["deal"] == 3 and first["quotas"] == [2, 1, 6, 3]


def test_a_mid_tour_position_plays_to_the_end_with_the_reference_bots():
    _expected_standing(MID_TOUR, seed=5, players=["heuristic"] * 4)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_mid_tour_position_plays_to_the_end_with_random_play(seed):
    _expected_standing(MID_TOUR, seed=seed, players=["random"] * 4)


def test_credits_carried_in_a_position_make_the_exchanges():
    """A session dealt without credits, its position edited to carry last session's over-
    and under-tricks: the exchanges the rules make of them are asked."""
    state = SPEC.new_match(players=4, options={"dealer": 3}, seed=4)
    text = state.position()
    blank = "credit=[0,0,0,0]; debt=[0,0,0,0]; requests=[]"
    assert blank in text
    credit, debt = [2, 0, 1, 0], [0, 1, 0, 2]
    asks = br.requests(credit, debt, declarant=0)
    carried = f"credit={credit}; debt={debt}; requests={[list(r) for r in asks]}"
    again = SPEC.from_position(text.replace(blank, carried.replace(" ", "").replace(";", "; ")))
    while again.phase in ("refuse_a", "exchange"):
        seat = again.to_act()[0]
        again.apply(seat, again.legal_actions(seat)[0])  # keep; then offer a card
    asked = [(ev.seat, ev.data["target"]) for ev in again.events() if ev.kind == "exchange"]
    assert asked == [(0, 1), (0, 3), (2, 3)]


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (("hand:1=9S", "hand:1=JD"), "extra [Card('JD')], missing [Card('9S')]"),  # JD twice
        (("hand:3=3S ", "hand:3="), "missing [Card('3S')]"),
        (("reason=", "colour=1; reason="), "unknown field(s) for banking: colour"),
        (("banking/4", "banking/5"), "players, not 5"),
        (("banking/4", "banking/3"), "tricks needs one value per seat (3), not [2, 0, 0, 0]"),
        (("quota=[2,1,6,3]", "quota=[2,1,6]"), "quota needs one value per seat (4)"),
        (("tour_points=[12,-3,-4,-5]", "tour_points=[12,-3]"), "tour_points needs one value"),
        (("dealer=1", "dealer=4"), "a seat number is not one of the 4 seats"),
        (("step=0", "step=9"), "step 9 is past what phase play goes through"),
        (('phase="play"', 'phase="bidding"'), "phase 'bidding' is not one of refuse_a, exchange"),
        (("; tops=[1,0,0,0]", ""), "the position has no field 'tops'"),
        (("hand:0=JD", "hand:0=ZZ"), "field hand:0"),
        (("banking/4", "whist/4"), "the position is of 'whist', not 'banking'"),
    ],
)
def test_a_bad_position_is_refused_with_a_clear_reason(edit, says):
    old, new = edit
    assert old in MID_TOUR
    with pytest.raises(BadConfig) as err:
        SPEC.from_position(MID_TOUR.replace(old, new, 1))
    assert says in str(err.value)


@pytest.mark.parametrize("players", [3, 4])
def test_positions_round_trip_at_every_phase(players):
    """Every step of matches that go through the exchanges, the Perechiuțe and the Final
    Exchange: the position reads back and plays on as the original does."""
    previous = {3: "4,-1,-3", 4: "3,-1,1,-3"}[players]
    seen = set()
    for seed in range(2):
        state = SPEC.new_match(
            players=players, options={"previous": previous, "max_sessions": 2}, seed=seed
        )
        rng = random.Random(seed)
        while not state.is_over():
            seen.add(state.phase)
            check_position(state, rng, moves=3)
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert {"refuse_a", "exchange", "trump", "declare", "final", "gunoi", "play"} <= seen


@pytest.mark.parametrize(
    ("options", "reason"), [({"max_sessions": 2}, "cap"), ({"rounds": 1}, "complete")]
)
def test_a_finished_match_reads_back_with_its_result(options, reason):
    state = SPEC.new_match(players=3, options=options, seed=2)
    rng = random.Random(2)
    while not state.is_over():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    again = SPEC.from_position(state.position())
    a, b = state.result(), again.result()
    assert again.is_over() and b.reason == a.reason == reason
    assert (b.scores, b.ranks, b.winners) == (a.scores, a.ranks, a.winners)
    assert b.deals == ()  # no history came with it
