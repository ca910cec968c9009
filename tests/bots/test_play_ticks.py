"""In-process play asks the seats of a tick as the referee does: all on the views from before
anyone submits, so that no seat learns another is already in."""

from __future__ import annotations

from levata.bots import make_bot
from levata.bots.play import play_match
from levata.engine import Action, SeatView, game


def _asked(players: int, seed: int) -> list[tuple[set[int], set[int]]]:
    """Per decision of a random Repezita match in tick mode: the seats its view showed still to
    submit, and the seats in play in that tick."""
    state = game("repezita").new_match(players=players, seed=seed)
    asked: list[tuple[set[int], set[int]]] = []

    def watching(seat: int):
        bot = make_bot("random", "repezita", seed=seat)

        def act(view: SeatView, legal: list[Action]) -> Action:
            asked.append((set(view.to_act), set(state.seats_in_play())))
            return bot.act(view, legal)

        return act

    play_match(state, [watching(s) for s in range(players)])
    return asked


def test_every_seat_of_a_tick_decides_before_anyone_is_in():
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        asked = _asked(players, seed)
        assert len(asked) > 20
        assert all(shown == playing for shown, playing in asked)


def test_a_real_time_match_still_plays_to_its_end():
    state = game("repezita").new_match(players=3, options={"mode": "realtime"}, seed=4)
    bots = [make_bot("random", "repezita", seed=s) for s in range(3)]
    assert play_match(state, bots).winners
