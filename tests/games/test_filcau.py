"""Filcău: every scenario of the rules specification (numbered as there), and the decisions
the engine takes where the rules leave room (``docs/games/filcau.md``)."""

from __future__ import annotations

import pytest

from levata.engine import Action, game
from levata.engine.cards import Card, Suit, parse_cards
from levata.engine.contract import IllegalAction
from levata.engine.family.tricks import duty_cards, trick_taker
from levata.engine.games.filcau import FilcauState, trick_rules
from levata.engine.games.filcau.rules import (
    EGAL,
    SEF,
    SLUGA,
    SUITS,
    binding_value,
    closed,
    fris_trump,
    next_dealer,
    statuses_after,
)

SPEC = game("filcau")
HEARTS = Suit.HEARTS.slot


def new(hands: dict[int, str], dealer: int = 3, **options) -> FilcauState:
    """A match whose first deal gives each seat the five cards named (the first three first:
    a cut deals those before the fris window)."""
    order: list[Card] = []
    for k in range(4):
        order += parse_cards(hands[(dealer + 1 + k) % 4])
    state = SPEC.new_match(players=4, options={"dealer": dealer, **options}, seed=1, deal=order)
    assert isinstance(state, FilcauState)
    return state


def act(state: FilcauState, seat: int, text: str) -> None:
    state.apply(seat, Action.parse(text))


def legal(state: FilcauState, seat: int) -> list[str]:
    return sorted(str(a) for a in state.legal_actions(seat))


def playable(state: FilcauState, seat: int) -> list[str]:
    return sorted(str(c) for c in state.playable(seat))


# -- 1, 2: the order of the cards and the effective suit -------------------------------------


def test_1_filcai_rank_above_the_trump_suit():
    rules = trick_rules(HEARTS)
    assert trick_taker(rules, [(0, Card.parse("QD")), (1, Card.parse("AH"))]) == 0
    for card in ("AH", "QC", "AS", "QD"):
        assert trick_taker(rules, [(0, Card.parse(card)), (1, Card.parse("QS"))]) == 1
    assert trick_taker(rules, [(0, Card.parse("KS")), (1, Card.parse("AS"))]) == 1
    assert trick_taker(rules, [(0, Card.parse("AS")), (1, Card.parse("JH"))]) == 1


def test_2_a_filcau_is_no_card_of_its_printed_suit():
    allowed = duty_cards(trick_rules(HEARTS), parse_cards("QS JH KD"), parse_cards("AS"))
    assert sorted(map(str, allowed)) == ["JH", "QS"]


# -- 3, 4, 5: binding ------------------------------------------------------------------------


def test_3_what_a_hand_may_bind():
    assert binding_value(parse_cards("QS AH 10H KH JC"), Suit.HEARTS) == (4, 1)
    ace_beside = parse_cards("QS AH 10H KH AC")
    assert all(binding_value(ace_beside, s) is None for s in SUITS)
    five = parse_cards("QS QC AH 10H KH")
    assert closed(five) and binding_value(five, Suit.HEARTS) is None
    state = new(
        {0: "QS AH 10H KH JC", 1: "QC QD AD 10D KD", 2: "QH 10S KS JS JD", 3: "AS 10C KC JH AC"}
    )
    act(state, 2, "knock")
    assert legal(state, 0) == ["bind H", "pass"]
    act(state, 0, "bind H")
    assert legal(state, 1) == ["inchis"]  # five diamonds with the filcăi
    act(state, 1, "inchis")
    assert state.view(0).facts["calls"][-1] == [1, "inchis", None]


def test_3_an_ace_beside_four_trumps_cannot_bind():
    state = new(
        {0: "QS AH 10H KH AC", 1: "QC JD KS 10S AS", 2: "QH 10D KD JS JC", 3: "QD AD 10C KC JH"}
    )
    act(state, 2, "knock")
    assert legal(state, 0) == ["pass"]


def test_4_counts_then_the_lowest_trump_and_the_earlier_seat_keeps_a_tie():
    state = new(
        {0: "QS AH 10H JC KC", 1: "QC QD AD JS KS", 2: "QH KH JH AC 10C", 3: "10D KD JD AS 10S"}
    )
    act(state, 2, "knock")
    act(state, 0, "bind H")  # trei 10
    assert state.view(3).facts["calls"] == [[0, "trei", "10"]]
    assert "bind D" in legal(state, 1)  # trei A beats trei 10
    act(state, 1, "bind D")
    assert legal(state, 2) == ["pass"]  # trei J or trei 10 cannot beat it
    tie = new(
        {0: "QS AH 10H JC KC", 1: "QC 10D AD JS KS", 2: "QH QD AS 10S JD", 3: "KH JH AC 10C KD"}
    )
    act(tie, 2, "knock")
    act(tie, 0, "bind H")
    assert legal(tie, 1) == ["pass"]  # trei 10 again: the earlier seat keeps it [D12]
    act(tie, 1, "pass")
    assert legal(tie, 2) == ["bind S", "pass"]  # any farbă beats any trei
    act(tie, 2, "bind S")
    assert tie.view(1).facts["calls"][-1] == [2, "farba", None]


@pytest.mark.parametrize(
    ("c_hand", "best", "low"), [("QC QD AS 10S KD", 2, "10"), ("QC QD AS JS KD", 0, "K")]
)
def test_5_a_farba_challenged_by_patru(c_hand, best, low):
    rest = "QH KS 10S AD 10D" if "JS" in c_hand else "QH KS JS AD 10D"
    state = new({0: "QS AH KH 10H JC", 1: "JH AC 10C KC JD", 2: c_hand, 3: rest})
    act(state, 2, "knock")
    act(state, 0, "bind H")
    assert state.view(1).facts["low"] is None  # the farbă's low is hidden...
    assert state.view(0).facts["farba_low"] == "K"  # ...but from its binder
    assert "farba_low" not in state.view(2).facts
    act(state, 1, "pass")
    act(state, 2, "bind S")
    bind = state.events()[-1]
    assert bind.data["call"] == "patru" and bind.data["against"] == "K"
    view = state.view(3)
    assert view.counters["binder"] == best and view.facts["low"] == low
    act(state, 3, "pass")
    assert state.to_act() == (best,)
    assert legal(state, best) == ["trump H" if best == 0 else "trump S"]


# -- 6, 7: fris ------------------------------------------------------------------------------


def test_6_which_three_cards_may_fris():
    assert fris_trump(parse_cards("QD KH JH")) == Suit.HEARTS
    assert fris_trump(parse_cards("QD KH JS")) is None
    assert fris_trump(parse_cards("QS QC 10D")) == Suit.DIAMONDS
    assert fris_trump(parse_cards("QS QC QH")) == Suit.HEARTS


def test_6_the_fris_window_asks_every_seat_once():
    state = new(
        {0: "QD KH JH AS 10S", 1: "QC 10C JD KC AC", 2: "QH KS JS 10H AH", 3: "QS AD KD JC 10D"}
    )
    act(state, 2, "cut")
    assert state.phase == "fris" and len(state.view(0).hand) == 3
    assert legal(state, 0) == ["fris QD", "pass"]
    act(state, 0, "pass")
    assert legal(state, 1) == ["pass"]  # QC 10C JD: not eligible, asked all the same
    for seat in (1, 2, 3):
        act(state, seat, "pass")
    assert state.phase == "bind" and all(len(state.view(s).hand) == 5 for s in range(4))


FRIS_QH = {0: "10H JH KD AD 10D", 1: "QC 10C JD KC AC", 2: "QH KS JS AS 10S", 3: "QS AH KH QD JC"}


def test_7_a_fris_leads_trick_1_and_earlier_seats_may_not_overtake_it():
    state = new(FRIS_QH)
    act(state, 2, "cut")
    act(state, 0, "pass")
    act(state, 1, "pass")
    act(state, 2, "fris QH")
    view = state.view(3)
    assert view.trump == "S" and view.zones["trick"] == (Card.parse("QH"),)
    assert view.counts["hand:2"] == 4 and view.counts["hand:3"] == 5
    assert "QS" in playable(state, 3)  # D was asked after C
    act(state, 3, "play QS")
    assert playable(state, 0) == sorted(["10H", "JH", "KD", "AD", "10D"])  # any card
    act(state, 0, "play 10H")
    assert "QC" not in playable(state, 1) and len(playable(state, 1)) == 4
    with pytest.raises(IllegalAction):
        act(state, 1, "play QC")
    act(state, 1, "play AC")
    assert state.events()[-1].kind == "trick" and state.events()[-1].seat == 3


def test_7_three_top_filcai_may_overtake_a_fris_with_the_lowest():
    state = new(
        {0: "QS QC QH 10H JH", 1: "10C JD KD KC AC", 2: "QD KS JS AS 10S", 3: "AH KH 10D AD JC"}
    )
    act(state, 2, "cut")
    assert "fris QS" in legal(state, 0)  # it could fris, and keeps its filcăi instead
    act(state, 0, "pass")
    act(state, 1, "pass")
    act(state, 2, "fris QD")
    act(state, 3, "play AH")
    assert {"QS", "QC", "QH"} <= set(playable(state, 0))


# -- 8, 9: the first trick led with the farbă, the second lead ---------------------------------

FARBA = {0: "QC QD AH KH JC", 1: "KD JD AS JH QH", 2: "AD 10D 10S QS 10H", 3: "AC 10C KC KS JS"}


def test_8_the_farba_lead_and_who_takes_it():
    state = new(FARBA)
    act(state, 2, "knock")
    act(state, 0, "bind H")
    for seat in (1, 2, 3):
        assert legal(state, seat) == ["pass"]
        act(state, seat, "pass")
    assert legal(state, 0) == ["trump H"]
    act(state, 0, "trump H")
    act(state, 0, "play JC")
    assert playable(state, 1) == ["JD", "KD"]  # a small plain card
    act(state, 1, "play KD")
    assert playable(state, 2) == ["10D", "10S", "AD", "QS"]  # no 10♥: big plain or filcău
    act(state, 2, "play QS")
    assert playable(state, 3) == ["10C", "AC", "KC"]
    act(state, 3, "play AC")
    taken = state.events()[-1]
    assert taken.kind == "trick" and taken.seat == 3  # the club wins over Q♠
    assert state.rules.must_trump and state.rules.trump is not None  # normal rules again


def test_9_the_winner_of_trick_1_leads_a_plain_card():
    state = new(
        {0: "QH AH KH 10S JS", 1: "AS 10H QC JH QS", 2: "JC KC 10C JD KD", 3: "AC QD 10D AD KS"}
    )
    act(state, 2, "knock")
    act(state, 0, "bind H")
    for seat in (1, 2, 3):
        act(state, seat, "pass")
    act(state, 0, "trump H")
    act(state, 0, "play AH")
    act(state, 1, "play QS")
    act(state, 2, "play JC")
    assert playable(state, 3) == ["QD"]  # must trump
    act(state, 3, "play QD")
    assert state.to_act() == (1,)
    assert playable(state, 1) == ["AS"]
    act(state, 1, "play AS")  # any card follows it again
    assert state.phase == "play"


# -- 10, 11, 12: status, Huda, the dealer ----------------------------------------------------


def scored(state: FilcauState, taken: dict[int, str], tricks: list[int], binder: int) -> None:
    """Score the deal in progress as if the seats had taken ``taken`` in ``tricks``."""
    state.set_trump(Suit.HEARTS)
    state.binder = binder
    state.hands = [[] for _ in range(4)]
    state.taken = [parse_cards(taken.get(s, "")) for s in range(4)]
    state.tricks = tricks
    state._score_deal()


def test_10_status_moves_with_six_points():
    assert statuses_after([EGAL, EGAL], [6, 2]) == [SEF, SLUGA]
    state = new(FARBA, dealer=0)
    scored(state, {0: "AH 10H AS 10S", 2: "AC 10C"}, [2, 1, 1, 1], binder=0)
    assert state.status == [SEF, SLUGA] and state.scores == [1, 0]
    scored(state, {1: "AH 10H AS 10S", 3: "AC 10C"}, [1, 2, 1, 1], binder=1)
    assert state.status == [EGAL, EGAL] and state.scores == [1, 0]
    scored(state, {0: "AH 10H AS 10S AC"}, [3, 1, 0, 1], binder=0)
    assert state.status == [EGAL, EGAL] and state.scores == [1, 0]
    scored(state, {0: "AH 10H AS 10S AC 10C"}, [3, 1, 0, 1], binder=0)
    scored(state, {0: "AH 10H AS"}, [3, 1, 0, 1], binder=0)  # the chief scores without 6
    assert state.status == [SEF, SLUGA] and state.scores == [3, 0]


@pytest.mark.parametrize(("binder", "scores"), [(0, [2, 0]), (1, [2, -2])])
def test_11_huda(binder, scores):
    state = new(FARBA)
    scored(state, {0: "AH 10H", 2: "AS"}, [3, 0, 2, 0], binder=binder)
    assert state.status == [SEF, SLUGA] and state.scores == scores
    assert state.deal_log[-1]["huda"] == 0


def test_12_the_servants_deal_in_turn():
    assert next_dealer(1, [SEF, SLUGA]) == 3 and next_dealer(3, [SEF, SLUGA]) == 1
    assert next_dealer(3, [SLUGA, SEF]) == 0 and next_dealer(2, [EGAL, EGAL]) == 3
    state = new(FARBA, dealer=1)
    scored(state, {0: "AH 10H AS 10S AC 10C"}, [3, 1, 0, 1], binder=0)
    assert state.dealer == 3 and state.phase == "cut" and state.to_act() == (2,)


def test_the_race_ends_at_11():
    state = new(FARBA)
    state.scores = [10, 4]
    scored(state, {0: "AH 10H AS 10S AC 10C"}, [3, 1, 0, 1], binder=0)
    assert state.is_over() and state.result().winners == (0, 2)


# -- 13: what stays hidden -------------------------------------------------------------------


def test_13_nobody_learns_the_suit_bound_nor_the_cards_to_come():
    state = new(FARBA)
    act(state, 2, "cut")
    later = {c for s in range(4) for c in state.undealt}
    for seat in range(4):
        assert not later & set(state.view(seat).cards_named())
    for seat in range(4):
        act(state, seat, "pass")
    act(state, 0, "bind H")
    bind = state.events()[-1]
    assert bind.audience is None and set(bind.data) == {"call", "best"}
    for seat in (1, 2, 3):
        view = state.view(seat)
        assert view.trump is None and "farba_low" not in view.facts
        assert "H" not in str(view.facts["calls"])


# -- decisions beyond the scenarios ------------------------------------------------------------


def test_cut_and_knock_give_the_same_five_cards():
    hands = []
    for choice in ("cut", "knock"):
        state = new(FARBA)
        act(state, 2, choice)
        if choice == "cut":
            assert sorted(map(str, state.hands[0])) == ["AH", "QC", "QD"]
            for seat in range(4):
                act(state, seat, "pass")
        hands.append([sorted(state.hands[s]) for s in range(4)])
    assert hands[0] == hands[1]


def test_nobody_binds_the_same_dealer_deals_again():
    state = new(
        {0: "QS AH KC 10D JS", 1: "QH AS KD 10C JH", 2: "QC AD KH 10S JC", 3: "QD AC KS 10H JD"}
    )
    act(state, 2, "knock")
    for seat in range(4):
        assert legal(state, seat) == ["pass"]  # one filcău, no two cards of a suit
        act(state, seat, "pass")
    assert state.phase == "cut" and state.dealer == 3 and state.deal_no == 2
    assert state.scores == [0, 0] and state.status == [EGAL, EGAL]


def test_two_player_mode_shows_the_partners_hand():
    state = new(FARBA, two_player=True)
    act(state, 2, "knock")
    view = state.view(0)
    assert sorted(view.zones["hand:2"]) == sorted(state.hands[2])
    assert "hand:1" not in view.zones and "hand:3" not in view.zones
    act(state, 0, "bind H")
    assert state.view(2).facts["farba_low"] == "K"  # the same person bound it


def test_max_deals_ends_a_match_that_never_binds():
    state = new(FARBA, max_deals=1)
    act(state, 2, "knock")
    for seat in range(4):
        act(state, seat, "pass")
    assert state.is_over() and state.result().reason == "max_deals"
    assert state.result().winners == (0, 1, 2, 3)  # equal scores: a draw
