"""Whist's kernel state (``levata.engine.whist_table``) against the Python state it wraps.

The table answers ``to_act``, ``legal_actions``, ``apply``, ``clone`` and ``is_over`` in C
and leaves the rest to the Python state; these tests hold it to the Python state's answers
action by action, under every option that changes play, through clones, pickles, illegal
actions from clients that ignore the SDK, and the hand-over to Python for good.
"""

from __future__ import annotations

import pickle
import random

import pytest

from levata.engine import Action, GameState, IllegalAction, game
from levata.engine.cards import Card
from levata.engine.games.whist import WhistState, at_the_table
from levata.engine.whist_table import WhistTable

SPEC = game("whist")

#: (players, options): every option that changes play, each player count, the full schedule
#: and single deals of every size.
CASES = [
    (4, {"deal_size": 8}),
    (3, {"deal_size": 1}),
    (5, {"deal_size": 3, "must_trump": False}),
    (6, {"deal_size": 8, "scoring": "oh_hell"}),
    (4, {"deal_size": 5, "must_trump": False, "scoring": "oh_hell"}),
    (3, {"deal_size": 0}),
    (4, {"deal_size": 0, "one_card_mode": "forehead"}),
    (6, {"deal_size": 0, "must_trump": False}),
    (5, {"deal_size": 0, "scoring": "oh_hell", "zero_wins": False}),
    (3, {"deal_size": 1, "one_card_mode": "forehead"}),
]


def _pair(players: int, options: dict, seed: int) -> tuple[GameState, GameState]:
    fast = SPEC.new_match(players=players, options=options, seed=seed)
    plain = SPEC.new_match(players=players, options=options, seed=seed, kernel=False)
    assert type(fast) is WhistTable and type(plain) is WhistState
    return fast, plain


def _same_now(fast: GameState, plain: GameState) -> None:
    """Every hot answer agrees, for every seat (a seat not to act has no legal action)."""
    assert fast.is_over() == plain.is_over()
    assert fast.to_act() == plain.to_act()
    for seat in range(plain.players):
        assert fast.legal_actions(seat) == plain.legal_actions(seat)


def _same_match(fast: GameState, plain: GameState) -> None:
    """Everything the Python state keeps agrees (the table replays into its own)."""
    assert fast.events() == plain.events()
    assert fast.position() == plain.position()
    for seat in range(plain.players):
        assert fast.view(seat) == plain.view(seat)


def _advance(fast: GameState, plain: GameState, rng: random.Random, steps: int) -> None:
    """The same ``steps`` random actions on both."""
    for _ in range(steps):
        seat = plain.to_act()[0]
        action = rng.choice(plain.legal_actions(seat))
        fast.apply(seat, action)
        plain.apply(seat, action)


def _play_out(fast: GameState, plain: GameState, rng: random.Random, look: float) -> GameState:
    """Random play to the end on both, checked at every step; a clone of the table goes on
    now and then (the original dropped), and the whole match is compared with ``look``'s
    probability. Gives the table that finished."""
    steps = 0
    while not plain.is_over():
        _same_now(fast, plain)
        seat = plain.to_act()[0]
        legal = plain.legal_actions(seat)
        action = rng.choice(legal)
        pick = rng.random()
        if pick < 0.2:  # by value, as a client that parses its own actions sends it
            fast.apply(seat, Action.parse(str(action)))
        elif pick < 0.3:  # as a referee applies a reply it has just judged
            fast.apply_legal(seat, fast.legal_actions(seat)[legal.index(action)])
        else:
            fast.apply(seat, fast.legal_actions(seat)[legal.index(action)])
        plain.apply(seat, action)
        if rng.random() < 0.15:
            fast = fast.clone()
        if rng.random() < look:
            _same_match(fast, plain)
        steps += 1
    _same_now(fast, plain)
    _same_match(fast, plain)
    assert fast.result() == plain.result()
    return fast


@pytest.mark.parametrize(("players", "options"), CASES)
def test_the_table_plays_as_the_python_state(players, options):
    for seed in range(6 if options["deal_size"] else 2):
        fast, plain = _pair(players, options, seed)
        _play_out(fast, plain, random.Random(seed), look=0.05)


def test_the_table_keeps_the_match_in_c_but_for_forehead_deals():
    fast, plain = _pair(4, {"deal_size": 0}, 3)
    rng = random.Random(3)
    while not plain.is_over():
        assert fast.kernel_live  # asked only the hot calls, it never hands over
        seat = plain.to_act()[0]
        action = rng.choice(plain.legal_actions(seat))
        fast.apply(seat, action)
        plain.apply(seat, action)
    assert fast.kernel_live and fast.result() == plain.result()
    fast, plain = _pair(4, {"deal_size": 0, "one_card_mode": "forehead"}, 3)
    live = []
    while not plain.is_over():
        live.append(fast.kernel_live)
        seat = plain.to_act()[0]
        action = rng.choice(plain.legal_actions(seat))
        fast.apply(seat, action)
        plain.apply(seat, action)
    ones = 4 * (4 + 4)  # four one-card deals open the match: four bids, four cards each
    assert not any(live[:ones]) and all(live[ones : ones + 12])


def test_clones_are_independent_and_share_until_written():
    fast, plain = _pair(4, {"deal_size": 8}, 7)
    rng = random.Random(7)
    _advance(fast, plain, rng, 10)
    copies = [fast.clone() for _ in range(3)]
    for k, copy in enumerate(copies):  # each plays out its own way; the root is untouched
        _play_out(copy, plain.clone(), random.Random(k), look=0.3)
    _same_now(fast, plain)
    _same_match(fast, plain)
    _play_out(fast, plain, rng, look=0.1)


def test_illegal_actions_are_refused_in_the_python_states_words():
    fast, plain = _pair(4, {"deal_size": 3}, 2)
    rng = random.Random(2)
    italian = Card.parse("5D").index  # a card of another deck, as a hostile client may send
    while not plain.is_over():
        seat = plain.to_act()[0]
        other = (seat + 1) % 4
        wrong = [
            (other, plain.legal_actions(seat)[0]),  # not its turn
            (seat, Action.parse("bid 9")),
            (seat, Action.parse("bid 3").with_payload(note="x")),
            (seat, Action.parse("play 2C")),  # not in the deck of four
            (seat, Action.parse("pass")),
            (seat, "play AS"),  # not an action at all
            (7, plain.legal_actions(seat)[0]),
            ("0", plain.legal_actions(seat)[0]),
            (seat, Action("play", card=Card.from_index(italian, italian=True))),
        ]
        held = [c for s in range(4) for c in plain.hands[s]]
        wrong += [(seat, Action("play", card=c)) for c in held]  # most are not legal now
        for who, action in wrong:
            try:
                plain.clone().apply(who, action)
            except (IllegalAction, AttributeError, TypeError) as err:
                expected: BaseException | None = err
            else:
                expected = None
            if expected is None:
                continue  # legal after all: not a wrong action
            with pytest.raises(type(expected)) as got:
                fast.apply(who, action)
            assert str(got.value) == str(expected)
            _same_now(fast, plain)
        action = rng.choice(plain.legal_actions(seat))
        fast.apply(seat, action)
        plain.apply(seat, action)
    with pytest.raises(IllegalAction, match="the match is over"):
        fast.apply(0, Action.parse("bid 0"))
    _same_match(fast, plain)


def test_any_other_attribute_hands_the_match_to_python_for_good():
    fast, plain = _pair(5, {"deal_size": 0}, 4)
    rng = random.Random(4)
    _advance(fast, plain, rng, 17)
    copy = fast.clone()
    assert fast.hands == plain.hands and not fast.kernel_live  # read from the Python state
    assert copy.kernel_live  # a clone taken before is not concerned
    fast.totals = [1, 2, 3, 4, 5]  # written to the Python state, which now plays alone
    plain.totals = [1, 2, 3, 4, 5]
    assert fast.clone().kernel_live  # a clone starts afresh in C, from the state as it is
    _play_out(fast, plain, rng, look=0.1)
    assert not fast.kernel_live


def test_it_passes_for_the_python_state():
    fast, _ = _pair(4, {"deal_size": 2}, 1)
    assert isinstance(fast, WhistState) and isinstance(fast, GameState)
    assert fast.__class__ is WhistState and repr(fast).startswith("<WhistState whist")
    assert fast.spec is SPEC and fast.players == 4 and fast.options["deal_size"] == 2


def test_a_pickled_table_reads_back_as_a_table_mid_deal():
    fast, plain = _pair(4, {"deal_size": 0}, 9)
    rng = random.Random(9)
    _advance(fast, plain, rng, 30)
    back = pickle.loads(pickle.dumps(fast))
    assert type(back) is WhistTable and back.kernel_live
    _same_now(back, plain)
    _same_match(back, plain)
    _play_out(back, plain, rng, look=0.05)


def test_only_whist_itself_goes_to_the_table():
    class Changed(WhistState):
        pass

    plain = SPEC.new_match(players=4, seed=1, kernel=False)
    assert type(at_the_table(plain)) is WhistTable
    other = Changed(SPEC, 4, SPEC.resolve_options({}), 1)
    assert at_the_table(other) is other  # a subclass may change a rule the table restates


def test_a_world_from_a_view_plays_the_same_at_the_table():
    # What docs/python-bots.md tells a bot's own search to do with its worlds
    for seed in range(8):
        plain = SPEC.new_match(players=3 + seed % 4, options={"deal_size": 1 + seed}, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(3 * (2 + seed))):  # somewhere in the bids or the play
            seat = plain.to_act()[0]
            plain.apply(seat, rng.choice(plain.legal_actions(seat)))
        seat = rng.randrange(plain.players)
        world = SPEC.world_from_view(plain.view(seat), rng)
        fast = SPEC.kernel_state(world.clone())
        assert type(fast) is WhistTable and fast.kernel_live
        _same_now(fast, world)
        _same_match(fast, world)
        _play_out(fast, world, rng, look=0.2)
