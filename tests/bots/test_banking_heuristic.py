"""The Banking heuristic: it beats random play, and makes the choices a Banking player would
recognise in constructed positions."""

from __future__ import annotations

import dataclasses
import statistics

import pytest
from banking_positions import SPEC, act, keep_all, new, to_phase

from levata.bots.base import make_bot
from levata.bots.heuristic.banking import HeuristicBot, gunoi_value, trump_score
from levata.engine import Action, Card, Suit, parse_cards

BOT = HeuristicBot()


def choose(state, seat=None):
    seat = state.to_act()[0] if seat is None else seat
    return BOT.act(state.view(seat), state.legal_actions(seat))


@pytest.mark.parametrize("players", [3, 4])
def test_it_beats_random_play_over_seeded_sessions(players):
    """One heuristic seat among random ones, in every seat in turn, over one-session matches:
    its mean session points are clearly above 0 (random seats average below)."""
    points = []
    for k in range(12):
        for seat in range(players):
            state = SPEC.new_match(players=players, options={"session": 1 + k % 4}, seed=500 + k)
            bots = [
                make_bot("heuristic" if s == seat else "random", "banking", seed=31 * k + s)
                for s in range(players)
            ]
            while not state.is_over():
                s = state.to_act()[0]
                state.apply(s, bots[s].act(state.view(s), state.legal_actions(s)))
            points.append(state.result().scores[seat])
    assert statistics.mean(points) > 0.75


def test_offers_its_lowest_card_of_the_suit_the_target_is_likely_long_in():
    # A holds one spade (the 9) and long clubs: the others hold most spades.
    state = new(
        previous="1,-1,0,0",
        hands={0: "9S 3C 4C 5C 6C 7C 8C 2H 3H 4H 2D 3D"},
    )
    keep_all(state)
    assert choose(state) == Action("offer", card=Card.parse("9S"))


def test_keeps_a_cheap_figure_so_its_target_cannot_refuse():
    # A asks B twice; the first answer is B's King: the second offer is A's Jack, so that B
    # still holds a figure after the exchanges and cannot refuse them away.
    state = new(
        previous="2,-2,0,0",
        hands={0: "2S JH 3C 4C 5C 6C 7C 8C 9C 10C 2D 3D", 1: "KS"},
        avoid={1: lambda c: c.suit == Suit.SPADES},
    )
    keep_all(state)
    act(state, "offer 2S")
    assert Card.parse("KS") in state.hands[0]
    assert choose(state) == Action("offer", card=Card.parse("JH"))


def test_hunts_the_leader_and_withholds_when_it_leads_alone():
    hunt = new(dealer=1, hands={2: "7S 7H 7C 7D"}, round_points="5,5,-4,-6")
    to_phase(hunt, "declare")
    assert choose(hunt) == Action("declare", number=7)
    alone = new(dealer=1, hands={2: "7S 7H 7C 7D"}, round_points="-5,-5,16,-6")
    to_phase(alone, "declare")
    assert choose(alone) == Action("pass")


def test_names_trump_from_length_and_honours():
    hand = "AH KH QH 4H 3H 2S 3S 4S 5S 2D 9C JD"
    state = new(hands={0: hand})
    to_phase(state, "trump")
    assert choose(state) == Action("trump", choice="H")
    assert trump_score(parse_cards(hand), Suit.HEARTS) > trump_score(parse_cards(hand), Suit.SPADES)


def test_buries_losers_not_trumps_or_aces():
    state = new(hands={0: "AS KS QS JS 10S AH KH QH 2D 3C KD QC"}, kitty="9S 8S 7S 6S")
    to_phase(state, "gunoi", trump="S")
    buried = []
    for _ in range(4):
        action = choose(state)
        buried.append(action.card)
        state.apply(0, action)
    assert not [c for c in buried if c.suit == Suit.SPADES or c.rank == 14]
    assert Card.parse("2D") in buried and Card.parse("3C") in buried
    hand = parse_cards("3D AS 2S 9S")
    assert gunoi_value(Card.parse("3D"), hand, Suit.SPADES) < gunoi_value(
        Card.parse("AS"), hand, Suit.SPADES
    )


def test_plays_to_its_quota():
    state = new(hands={0: "AS 2S"})
    to_phase(state, "play")
    assert state.to_act() == (0,)
    view = state.view(0)
    spades = [a for a in state.legal_actions(0) if a.card and a.card.suit == Suit.SPADES]
    # Short of its quota of 6, K leads its strongest card: a trump or the Ace.
    pick = BOT.act(view, state.legal_actions(0))
    assert pick.card is not None and (pick.card.suit == state.trump or pick.card.rank == 14)
    assert spades
    # Over its quota, it leads low.
    made = dataclasses.replace(view, counters={**view.counters, "tricks:0": 6})
    low = BOT.act(made, state.legal_actions(0))
    assert low.card is not None and low.card.rank <= min(
        a.card.rank for a in state.legal_actions(0) if a.card and a.card.suit != state.trump
    )
