"""Cards in declared places, moved by one logged move (levata.engine.zones)."""

from __future__ import annotations

import random

import pytest

from levata.engine import all_games, game
from levata.engine.cards import Card
from levata.engine.testing import ConformanceError, MoveWatch, new_random_match, random_steps
from levata.engine.zones import Zoned, described

ZONED = [spec for spec in all_games() if issubclass(spec.factory, Zoned)]


def test_a_move_takes_puts_and_tells_whoever_sees_where_the_card_went():
    state = game("tarneeb").new_match(players=4, seed=4)
    card = state.hands[2][0]
    held = len(state.hands[2])
    event = state.move(card, "hand:2", "hand:0", kind="passed", seat=2)
    assert card in state.hands[0] and len(state.hands[2]) == held - 1
    assert event is not None and event.audience == frozenset({0}) and event.cards == (card,)
    assert state.events()[-1] == event


def test_a_move_without_a_kind_tells_nobody_and_one_with_an_audience_tells_it():
    state = game("tarneeb").new_match(players=4, seed=4)
    count = state.event_count()
    card = state.hands[1][-1]
    assert state.move(card, "hand:1", "undealt") is None
    assert state.event_count() == count and state.undealt[-1] == card
    event = state.move(card, "undealt", "trick", kind="shown", seen_by={0, 2})
    assert event is not None and event.audience == frozenset({0, 2})
    public = state.move(card, "trick", "played", kind="public", seen_by=None)
    assert public is not None and public.audience is None


def test_a_move_at_an_index_puts_the_card_there():
    state = game("tarneeb").new_match(players=4, seed=4)
    first, second = state.hands[0][0], state.hands[0][1]
    state.move([first, second], "hand:0", "played")
    card = state.hands[1][0]
    state.move(card, "hand:1", "played", at=1)
    assert state.played == [first, card, second]


def test_an_unknown_place_is_named_in_the_error():
    state = game("tarneeb").new_match(players=4, seed=4)
    with pytest.raises(KeyError, match="no place 'kitty'"):
        state.move(state.hands[0][0], "hand:0", "kitty")


def test_cards_shown_for_a_moment_go_back_where_they_were():
    state = game("banking").new_match(players=3, seed=2)
    hand = list(state.hands[1])
    shown = [hand[3], hand[0]]
    seen_during = []
    with state.showing(shown, "hand:1", {1, 2}):
        zone = next(z for z in state.table() if z.name == "shown")
        seen_during.append((zone.cards, zone.seen_by, tuple(state.hands[1])))
    assert seen_during == [(tuple(shown), frozenset({1, 2}), tuple(hand[1:3] + hand[4:]))]
    assert state.hands[1] == hand
    assert next(z for z in state.table() if z.name == "shown").cards == ()


@pytest.mark.parametrize("spec", ZONED, ids=lambda s: s.name)
def test_the_table_and_the_vocabulary_come_from_the_places(spec):
    state, _ = new_random_match(spec, 0, 11)
    names = [z.name for z in state.table()]
    expected = [
        p.key(s) if p.per_seat else p.name
        for p in state.PLACES
        for s in (range(state.players) if p.per_seat else [None])
    ]
    assert names == expected
    zones, counts = described(state.PLACES)
    vocab = spec.vocabulary
    assert set(counts) <= set(vocab.counts) and set(zones) <= set(vocab.zones)
    for seat in range(state.players):
        view = state.view(seat)
        assert set(state.view_counts()) <= set(view.counts)
        for name in view.zones:
            assert name in vocab.zones or name.split(":")[0] + ":SEAT" in vocab.zones


@pytest.mark.parametrize("spec", ZONED, ids=lambda s: s.name)
def test_every_card_that_changes_place_is_moved_by_move(spec):
    state, _ = new_random_match(spec, 1, 21)
    watch = MoveWatch(state)
    for _ in random_steps(state, random.Random(3)):
        watch.observe()
        if state.is_over():
            break
    watch.close()


def test_a_card_moved_behind_moves_back_is_caught():
    state = game("eight-five-three").new_match(players=3, seed=5)
    watch = MoveWatch(state)
    stolen: Card = state.hands[1].pop()
    state.hands[0].append(stolen)
    with pytest.raises(ConformanceError, match=f"without a move: \\['{stolen}'\\]"):
        watch.observe()
