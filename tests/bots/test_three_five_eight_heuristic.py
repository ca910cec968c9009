"""The 3-5-8 heuristic: it beats random play, and makes the choices a 3-5-8 player would
recognise in constructed positions."""

from __future__ import annotations

import statistics

from three_five_eight_positions import SPEC, act, keep_kitty, new

from levata.bots.base import make_bot
from levata.bots.heuristic.three_five_eight import NT_STRONG, HeuristicBot, contract_score
from levata.engine import Action, Card, Suit, parse_cards

BOT = HeuristicBot()


def choose(state, seat=None):
    seat = state.to_act()[0] if seat is None else seat
    return BOT.act(state.view(seat), state.legal_actions(seat))


def test_it_beats_random_play_over_seeded_deals():
    """One heuristic seat among random ones, in every seat in turn, over one-deal matches:
    its mean points a deal are clearly above 0 (the random seats' average below)."""
    points = []
    for k in range(15):
        for seat in range(3):
            state = SPEC.new_match(players=3, options={"deal": 1 + k}, seed=700 + k)
            bots = [
                make_bot("heuristic" if s == seat else "random", SPEC.name, seed=31 * k + s)
                for s in range(3)
            ]
            while not state.is_over():
                s = state.to_act()[0]
                state.apply(s, bots[s].act(state.view(s), state.legal_actions(s)))
            points.append(state.result().scores[seat])
    assert statistics.mean(points) > 1.5


def test_it_names_its_long_strong_suit_and_keeps_no_trump_for_balanced_hands():
    long_hearts = "AH KH QH 9H 7H 5H 3H 2H AS KS 2C 3C 4D 5D 6D 7S"
    state = new(eight=0, hands={0: long_hearts})
    assert choose(state) == Action("contract", choice="H")
    balanced = parse_cards("AS KS QS 2S AH KH QH 2H AC KC 3C 2C AD KD 3D 2D")
    assert contract_score(balanced, "NT") >= NT_STRONG
    state = new(eight=0, hands={0: " ".join(map(str, balanced))})
    assert choose(state) == Action("contract", choice="NT")


def test_it_says_pas_with_a_hopeless_hand_and_a_pas_left():
    weak = "2S 3S 4S 5S 2H 3H 4H 6H 2C 3C 4C 6C 2D 3D 4D 6D"
    state = new(eight=0, hands={0: weak})
    assert choose(state) == Action("pas")
    state = new(eight=0, hands={0: weak}, max_pas=0)
    assert choose(state).kind == "contract"


def test_it_swaps_low_losers_for_good_kitty_cards():
    hand = "AS KS QS 9S 8S 2H 3H 4H 9H KH 2C 5C 9C QD 8D 3D"
    state = new(eight=0, hands={0: hand}, kitty="AH AC JS 10S")
    act(state, "contract S")
    given = []
    while state.phase == "kitty":
        pick = choose(state)
        assert pick.kind == "swap" and pick.card is not None
        given.append(pick.card)
        act(state, str(pick))
    assert set(parse_cards("AH AC JS 10S")) <= set(state.hands[0])
    assert all(c.suit != Suit.SPADES and c.rank <= 3 for c in given)
    honours = "AS KS QS JS AH KH QH JH AC KC QC JC AD KD QD JD"
    state = new(eight=0, hands={0: honours}, kitty="2C 3C 4D 5H")
    act(state, "contract S")
    assert [choose(state) for _ in range(1)] == [Action("keep")]
    keep_kitty(state)
    assert sorted(state.hands[0]) == sorted(parse_cards(honours))


def test_it_draws_where_it_holds_a_low_card_and_avoids_a_shown_void():
    state = new(
        eight=0,
        previous="2,-1,-1",
        hands={0: "2H AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S AD KD"},
        kitty="2C 3C 4C 5C",
        avoid={1: lambda c: c.suit == Suit.HEARTS},
    )
    act(state, "contract S")
    keep_kitty(state)
    first = choose(state)
    assert first.kind == "draw" and first.choice is not None and first.choice.endswith(":H")
    act(state, str(first))
    if first.choice == "1:H":  # seat 1 was void: nothing moved, and it does not ask again
        assert choose(state).choice != "1:H"


def test_it_wins_a_trick_with_its_cheapest_winner_when_last():
    state = new(eight=1, hands={0: "KH AH 2C", 1: "9H", 2: "QH"}, kitty="2S 3S 4S 5S")
    act(state, "contract C")
    keep_kitty(state)
    while state.phase != "play":
        act(state, "stop")
    act(state, "play 9H")
    act(state, "play QH")
    assert choose(state) == Action("play", card=Card.parse("KH"))
