"""Narration: a full match of every registered game reads as lines, and odd events never fail.

The shared kinds and payload names live in ``levata.engine.events``; each game narrates its
own kinds (``GameSpec.narrate``). The games come from the registry, so a new game is narrated
here as soon as it registers.
"""

from __future__ import annotations

import pytest

from levata.bots import make_bot, play_match
from levata.engine import Card, Event, all_games, events, game
from levata.server.match.narrate import narrate

#: Options that reach a game's rarer events (Whist's forehead deals).
EXTRA = {"whist": [{"one_card_mode": "forehead"}]}

CASES = [
    (spec.name, players, opts)
    for spec in all_games()
    for players in sorted({spec.players[0], spec.players[-1]})
    for opts in [{}, *EXTRA.get(spec.name, [])]
]


@pytest.mark.parametrize(("name", "players", "opts"), CASES)
def test_a_full_seeded_match_of_every_game_is_narrated(name, players, opts):
    spec = game(name)
    state = spec.new_match(players, options={**spec.short_options, **opts}, seed=11)
    bots = [make_bot("random", name, seed=s) for s in range(players)]
    play_match(state, bots)
    assert state.is_over()
    plain = set()
    for ev in state.events():  # every event, private ones included, as the referee sees them
        line = narrate(ev, spec)
        assert isinstance(line, str) and line.strip()
        assert line == line.rstrip(), f"{name}: a line trails off: {line!r}"  # "holds " + none
        if line == str(ev):
            plain.add(ev.kind)
    # Every kind the game emits is said in words, by the shared vocabulary or by the game.
    assert not plain, f"{name} events without a line of their own: {sorted(plain)}"


def test_narration_by_the_games_name_is_the_same():
    ev = Event(seq=0, kind="foreheads", audience=frozenset({1}), cards=(Card.parse("AS"),))
    assert narrate(ev, "whist") == "   seat 1 sees AS (not its own)"
    assert narrate(ev) == str(ev)  # without the game, its own kind is said plainly


@pytest.mark.parametrize(
    "ev",
    [
        Event(seq=0, kind="juggle", seat=1, data={"balls": 3}),
        Event(seq=1, kind=events.SCORE, data={"points": [1, 2]}),  # no bids: not Whist's shape
        Event(seq=2, kind=events.SCORE, data={"bids": "many"}),
        Event(seq=3, kind=events.SCORE),
        Event(seq=4, kind=events.DEAL),
        Event(seq=5, kind=events.BID, seat=0),  # no number
        Event(seq=6, kind=events.END),
        Event(seq=7, kind=events.FINISH, seat=2),
        Event(seq=8, kind=events.TRICK),
    ],
    ids=lambda ev: f"{ev.kind}-{ev.seq}",
)
@pytest.mark.parametrize("game", [None, *(spec.name for spec in all_games())])
def test_unknown_kinds_and_odd_payloads_degrade_to_a_plain_line(ev, game):
    line = narrate(ev, game)
    assert isinstance(line, str) and line.strip()


def test_shared_kinds_read_alike_in_every_game():
    ev = Event(seq=0, kind=events.END, data={"scores": [3, 1], "winners": [0]})
    assert narrate(ev) == "== end: scores [3, 1], winners [0]"
    ev = Event(seq=1, kind=events.FINISH, seat=2, data={"place": 1})
    assert narrate(ev) == "seat 2 is out of cards: place 1"
    whist_score = {"bids": [1, 0], "tricks": [1, 1], "points": [6, -1], "totals": [6, -1]}
    line = narrate(Event(seq=2, kind=events.SCORE, data=whist_score))
    assert (
        line
        == "   score: seat 0: bid 1 took 1 -> +6 (total 6); seat 1: bid 0 took 1 -> -1 (total -1)"
    )
