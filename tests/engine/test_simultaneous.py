"""The simultaneous-play base and action payloads, on a tiny test-only game.

``Signals``: every seat holds the numbers 1-3 and, each tick, submits ``show N`` (or
``pass``), optionally with a payload ``signal=high|low`` for its partner (the seat across, in a
4-seat game). The highest number shown wins the tick; ties go to the first in the rotating
priority. Three ticks, then the match ends. Signals reach only the partner, when the tick
resolves (Kemps' signals, in miniature).
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Collection, Mapping, Sequence

import pytest

from levata.engine import Action, IllegalAction, Result, SeatView, Zone
from levata.engine.contract import GameSpec
from levata.engine.family.simultaneous import Simultaneous

SHOW, PASS = "show", "pass"
SIGNALS = ("high", "low")


class Signals(Simultaneous):
    def __init__(self, spec: GameSpec, players: int, options: dict, seed: int, deal=None):
        super().__init__(spec, players, options, seed)
        self.wins = [0] * players
        self.over = False
        self._start_ticks()

    # the base's hooks
    def seats_in_play(self) -> list[int]:
        return list(range(self.players))

    def _resolve(self, order: Sequence[int]) -> bool:
        self._emit("tick", tick=self.tick, priority=list(order))
        best, winner = 0, None
        for seat in order:
            action = self.submissions[seat]
            assert action is not None
            signal = action.payload_value("signal")
            if signal is not None:
                partner = (seat + 2) % self.players
                self._emit("signal", audience={partner}, seat=seat, signal=signal)
            if action.kind == SHOW and action.number > best:
                best, winner = action.number, seat
        if winner is not None:
            self.wins[winner] += 1
            self._emit("won", seat=winner, number=best)
        return winner is not None

    def _cap_reached(self) -> None:
        self.over = True
        self._stop_ticks()
        self._emit("end")

    # the game's own rules
    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        return [Action(PASS), *(Action(SHOW, number=n) for n in (1, 2, 3))]

    def payload_schema(self, seat: int, choice: Action) -> Mapping[str, Collection[str | int]]:
        return {"signal": SIGNALS} if choice.kind == SHOW and self.players == 4 else {}

    def view(self, seat: int, history: bool = True) -> SeatView:
        return SeatView(
            game="signals",
            seat=seat,
            players=self.players,
            phase="over" if self.over else "show",
            to_act=self.to_act(),
            hand=(),
            zones={},
            counts={},
            counters={"tick": self.tick, "submitted": self.submitted(seat)},
            trump=None,
            scores=tuple(float(w) for w in self.wins),
            facts={"priority": self.priority()},
            history=self.history(seat) if history else (),
        )

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        return Result(scores=tuple(map(float, self.wins)), ranks=(1,) * self.players, winners=())

    def table(self) -> tuple[Zone, ...]:
        return ()

    def sample_world(self, seat: int, rng: random.Random) -> Signals:
        world = self.clone()
        world._blank_submissions(seat, Action(PASS))
        return world


SPEC = GameSpec(name="signals", title="Signals", players=(3, 4), options=(), factory=Signals)


def new(players: int = 4) -> Signals:
    state = Signals(SPEC, players, {"tick_cap": 3}, seed=0)
    return state


def show(n: int, **payload: str) -> Action:
    return Action(SHOW, number=n).with_payload(**payload)


def test_every_seat_submits_once_and_the_tick_resolves_when_the_last_is_in():
    state = new()
    assert state.to_act() == (0, 1, 2, 3)
    state.apply(2, show(3))
    state.apply(0, show(3))
    assert state.to_act() == (1, 3)
    with pytest.raises(IllegalAction):
        state.apply(0, show(1))  # once per tick
    assert [e.kind for e in state.events()] == []  # a submission emits nothing
    assert state.view(1).counters["submitted"] == 0 and state.view(0).counters["submitted"] == 1
    state.apply(1, Action(PASS))
    state.apply(3, show(2))
    tick, won = state.events()
    assert tick.data == {"tick": 0, "priority": [0, 1, 2, 3]}
    assert won.seat == 0  # seat 0 and seat 2 both showed 3: seat 0 comes first in P_0
    assert state.tick == 1 and state.to_act() == (0, 1, 2, 3)
    assert state.priority() == [1, 2, 3, 0]  # P_1: (seat - 1) mod 4


def test_priority_rotates_and_the_tick_cap_ends_the_match():
    state = new()
    winners = []
    for _ in range(3):
        start = state.event_count()
        for seat in state.to_act():
            state.apply(seat, show(3))
        winners += [e.seat for e in state.events(since=start) if e.kind == "won"]
    assert winners == [0, 1, 2]  # ties go to the first in P_t, which rotates
    assert state.is_over() and state.to_act() == () and state.events()[-1].kind == "end"


def test_a_payload_rides_beside_the_choice_and_the_game_checks_it():
    state = new()
    legal = state.legal_actions(0)
    assert all(not a.payload for a in legal)  # the legal list holds the choices alone
    state.apply(0, show(3, signal="high"))
    assert state.submissions[0] == Action.parse("show 3 signal=high")
    before = pickle.dumps(state)
    for bad in (
        show(2, signal="maybe"),  # a value the schema does not allow
        show(2, colour="red"),  # a key the schema does not have
        Action(PASS).with_payload(signal="low"),  # pass takes no payload
        Action(SHOW, number=7).with_payload(signal="low"),  # the choice is not legal
    ):
        with pytest.raises(IllegalAction):
            state.apply(1, bad)
        assert pickle.dumps(state) == before
    for seat in (1, 2, 3):
        state.apply(seat, Action(PASS))
    signal = [e for e in state.events() if e.kind == "signal"]
    assert [(e.seat, e.data["signal"], sorted(e.audience)) for e in signal] == [(0, "high", [2])]
    assert [e.kind for e in state.history(1)] == ["tick", "won"]  # seat 1 never sees it


def test_a_game_without_a_payload_schema_refuses_every_payload():
    state = new(players=3)
    with pytest.raises(IllegalAction, match="takes no signal="):
        state.apply(0, show(1, signal="high"))
    state.apply(0, show(1))


def test_payload_notation_round_trips_and_leaves_plain_actions_as_they_were():
    action = Action.parse("show 3 signal=high level=2")
    assert action.payload == (("level", 2), ("signal", "high"))  # sorted by key
    assert str(action) == "show 3 level=2 signal=high"
    assert Action.parse(str(action)) == action
    assert action.to_dict() == {
        "kind": "show",
        "number": 3,
        "payload": {"level": 2, "signal": "high"},
    }
    assert action.payload_value("signal") == "high" and action.payload_value("x", 0) == 0
    assert action.without_payload() == Action(SHOW, number=3)
    plain = Action.parse("play QH")
    assert plain.without_payload() is plain and plain.to_dict() == {"kind": "play", "card": "QH"}
    assert Action.parse("pass signal=low") == Action(PASS).with_payload(signal="low")
    for bad in ("show 3 signal=", "show 3 =x", "show 3 a=1 a=2", "show 3 4 a=1"):
        with pytest.raises(ValueError):
            Action.parse(bad)


def test_sampled_worlds_hide_the_other_seats_submissions():
    state = new()
    state.apply(0, show(3, signal="high"))
    state.apply(1, show(2))
    world = state.sample_world(1, random.Random(0))
    assert world.submissions == [Action(PASS), show(2), None, None]
    assert world.view(1) == state.view(1)
    assert state.submissions[0] == show(3, signal="high")  # the copy has its own buffer


class Alarm(Signals):
    """Real time: a game whose timer ends the match, and whose ``_next_timer`` carelessly
    keeps naming one after the end."""

    realtime = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fired = 0

    def _next_timer(self) -> int | None:
        return self.clock_ms + 10

    def _fire_timer(self) -> None:
        self.fired += 1
        self._cap_reached()


def test_no_timer_fires_once_the_match_is_over():
    state = Alarm(SPEC, 4, {}, seed=0)
    state.advance_clock(1_000)
    assert state.is_over() and state.fired == 1
