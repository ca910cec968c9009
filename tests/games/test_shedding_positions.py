"""Positions of the two games that are not trick games: Macao (a shedding game) and Repezita
(simultaneous play, in ticks or in real time). ``state.position()`` writes every card where it
lies and every number the rules read later; ``spec.from_position`` reads it back, and play on
from it equals play on from the original (``levata.engine.testing.check_position``)."""

from __future__ import annotations

import random

import pytest

from levata.engine import Action, BadConfig, game
from levata.engine.games.macao import MacaoState
from levata.engine.games.repezita import RepezitaState
from levata.engine.testing import check_position, random_steps

MACAO, REPEZITA = game("macao"), game("repezita")


def walk(state, seed: int, steps: int):
    """``state`` after ``steps`` random actions (clock moved as the conformance suite does)."""
    rng = random.Random(seed)
    for i, _ in enumerate(random_steps(state, rng)):
        if i + 1 >= steps:
            break
    return state


# -- Macao -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", MACAO.players)
def test_macao_positions_round_trip_at_every_player_count(players):
    """Every phase of a few random matches: the same text back, the same views and legal
    actions, and the same play to the end of the match."""
    for i in range(2):
        options = {"wild_changers": bool(i), "request_scope": ("lap", "next_player")[i]}
        state = MACAO.new_match(players=players, seed=40 + i, options=options)
        rng = random.Random(i)
        for step, _ in enumerate(random_steps(state, rng)):
            if step % 9 == 0:
                check_position(state, rng, moves=None if step == 0 else 20)


def test_macao_position_holds_all_that_play_reads():
    """What the C playouts are built from (``_fields()``: hands, stock order, penalty,
    request, phase, actor, drawn card, passes...) comes back whole from the position."""
    phases = set()
    for seed in range(6):
        state = MACAO.new_match(players=2 + seed % 5, seed=seed)
        rng = random.Random(seed)
        for _ in random_steps(state, rng):
            again = MACAO.from_position(state.position())
            assert again._fields() == state._fields()
            assert again.dealer == state.dealer and again.reason == state.reason
            phases.add(state.phase)
    assert phases >= {"turn", "drawn", "group", "request", "respond", "over"}


def test_macao_over_position_reads_back_with_its_result():
    state = walk(MACAO.new_match(players=3, seed=2), seed=3, steps=10_000)
    assert state.is_over()
    again = MACAO.from_position(state.position())
    assert again.is_over() and again.to_act() == ()
    assert again.result().ranks == state.result().ranks
    assert again.result().reason == state.result().reason


def test_macao_example_position():
    """A black K's penalty waits for the previous seat, out of turn: the position says so."""
    pending = {"kind": "draw", "amount": 5, "target": 0, "dir": "back", "last": 1}
    state = MacaoState.from_position(
        3, ["9S 3H", "2C KD", "5D 6D 7D"], "KS", pending=pending, turn=1
    )
    text = state.position()
    assert 'phase="respond"' in text and "discard=KS" in text
    assert '"dir":"back"' in text and "turn=1; cursor=1; dealer=0; actor=0" in text
    again = MACAO.from_position(text)
    assert again.to_act() == (0,)
    assert [str(a) for a in again.legal_actions(0)] == ["accept"]
    again.apply(0, Action.parse("accept"))
    assert len(again.hands[0]) == 7 and again.to_act() == (2,)


def test_macao_position_reads_and_rejects():
    state = MACAO.new_match(players=2, seed=11)
    text = state.position()
    full = MACAO.from_position(text)
    assert full.view(0, history=False) == state.view(0, history=False)
    # A position carries no history: it opens one, as a deal does (the pile, each hand).
    assert [e.kind for e in full.events()] == ["position", "hand", "hand"]
    with pytest.raises(BadConfig, match="missing"):
        MACAO.from_position(text.replace("hand:0=", "hand:0=-; x:0="))
    with pytest.raises(BadConfig, match="unknown field"):
        MACAO.from_position(text + '; colour="red"')
    with pytest.raises(BadConfig, match="no field 'actor'"):
        MACAO.from_position(text.replace("; actor=0", ""))
    with pytest.raises(BadConfig, match="not 'tarneeb'"):
        game("tarneeb").from_position(text)


def test_macao_world_sampled_from_a_position():
    """A state read from a position has no event naming the cards held then: a sampled world
    redeals the hidden cards (straight away, or after play went on) and rewrites only the
    events that named cards drawn since."""
    state = walk(MACAO.new_match(players=3, seed=5), seed=6, steps=9)
    again = MACAO.from_position(state.position(), seed=1)
    for steps in (0, 6):
        walk(again, seed=7, steps=steps) if steps else None
        mine = [e for e in again.events() if e.visible_to(0)]
        for k in range(4):
            world = again.sample_world(0, random.Random(k))
            assert world.view(0) == again.view(0)
            assert [e for e in world.events() if e.visible_to(0)] == mine
            assert sorted(c for z in world.table() for c in z.cards) == sorted(
                c for z in again.table() for c in z.cards
            )


def test_macao_test_helper_still_sets_positions_up():
    """``MacaoState.from_position(players, hands, top, ...)`` (tests, puzzles) writes a position
    like any state."""
    state = MacaoState.from_position(2, ["9S 3H KC 7C", "5D 6D"], top="9H")
    again = MACAO.from_position(state.position())
    assert [str(a) for a in again.legal_actions(0)] == ["play 3H", "play 9S", "draw"]


# -- Repezita ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["tick", "realtime"])
def test_repezita_positions_round_trip(mode):
    for players in (2, 3, 7):
        options = {"mode": mode, "tick_cap": 40, "time_cap_ms": 4000}
        state = REPEZITA.new_match(players=players, seed=players, options=options)
        rng = random.Random(players)
        for step, _ in enumerate(random_steps(state, rng)):
            if step % 13 == 0:
                check_position(state, rng, moves=None if step == 0 else 20)


def test_repezita_position_keeps_the_tick_buffer():
    """A seat already in this tick: its hidden submission travels in the position, the seats
    still to submit are the others, and the tick resolves alike."""
    state = RepezitaState.from_position(3, ["AD 2C", "KH 5S", "9C 10C"])
    state.apply(1, Action.parse("play KH"))
    text = state.position()
    assert 'submissions=[null,"play KH",null]' in text
    again = REPEZITA.from_position(text)
    assert again.to_act() == (0, 2) == state.to_act()
    assert again.view(1, history=False).counters["submitted"] == 1
    for s in (state, again):
        s.apply(0, Action.parse("play AD"))
        s.apply(2, Action.parse("pass"))
    assert [str(e) for e in again.events()] == [str(e) for e in state.events()[-3:]]


def test_repezita_position_keeps_the_race_window_and_timers():
    """Real time: the clock, when the pile last changed and the pile states of the race
    window come back, so a late play bounces and the stall timer fires alike."""
    state = RepezitaState.from_position(
        2, ["AD 3C 9S", "2C KH 5S"], options={"mode": "realtime", "race_ms": 300}
    )
    state.advance_clock(100)
    state.apply(0, Action.parse("play AD"))
    state.advance_clock(500)
    state.apply(0, Action.parse("play 9S"))  # wrong on AD: seat 0 takes the pile
    again = REPEZITA.from_position(state.position(), seed=4)
    assert again.pile_states == state.pile_states and again.last_change_ms == 500
    for s in (state, again):
        s.advance_clock(650)
        s.apply(1, Action.parse("play 2C"))  # good on AD, within 300 ms: bounces
        s.advance_clock(4000)  # idle_ms: the empty pile opens
    tail = [str(e) for e in state.events()][-len(again.events()) :]
    assert [str(e) for e in again.events()] == tail
    assert again.events()[0].kind == "bounced" and again.open_start


def test_repezita_position_rejects_a_known_card_not_held():
    text = RepezitaState.from_position(2, ["AD 2C", "KH 5S"]).position()
    bad = text.replace("known=[[],[]]", 'known=[["KH"],[]]')
    with pytest.raises(BadConfig, match="known"):
        REPEZITA.from_position(bad)
    with pytest.raises(BadConfig, match="extra 2C"):
        REPEZITA.from_position(text.replace("hand:1=", "hand:1=2C "))
