"""Romanian Whist: every test scenario of rules/whist.md section 6, and the deal mechanics."""

from __future__ import annotations

import random

import pytest

from levata.bots.strategy import aim_playout
from levata.bots.strategy.whist import BID_EVIDENCE, LINES, STEER, WhistStrategy, counted_bid
from levata.engine import Action, BadConfig, Card, IllegalAction, game, parse_cards
from levata.engine.cardmask import mask_of
from levata.engine.family.tricks import duty_cards
from levata.engine.games.whist import (
    WhistState,
    deal_points,
    schedule,
    whist_deck,
    whist_rules,
)
from levata.engine.playouts import aim_reach

SPEC = game("whist")
WHIST = WhistStrategy()  # the search's side of Whist (bids, evidence, card lines)


def seed_with_first(players: int, first: int) -> int:
    """A seed whose first deal starts at seat ``first``."""
    for seed in range(1000):
        if random.Random(seed).randrange(players) == first:
            return seed
    raise AssertionError("no seed found")


def deck_order(players: int, first: int, hands: dict[int, str], trump: str | None) -> list[Card]:
    """A deck order that deals ``hands`` (by seat) from ``first`` and turns ``trump``."""
    held = {s: parse_cards(h) for s, h in hands.items()}
    size = len(next(iter(held.values())))
    order = [held[(first + i) % players][i // players] for i in range(size * players)]
    if trump:
        order.append(Card.parse(trump))
    rest = [c for c in whist_deck(players) if c not in order]
    return order + rest


def new_deal(
    players: int, first: int, hands: dict[int, str], trump: str | None, **options
) -> WhistState:
    size = len(hands[first].split())
    return SPEC.new_match(
        players=players,
        options={"deal_size": size, **options},
        seed=seed_with_first(players, first),
        deal=deck_order(players, first, hands, trump),
    )


def play(state: WhistState, seat: int, text: str) -> None:
    state.apply(seat, Action.parse(text))


# 1. Deck
def test_deck_sizes_and_ranks():
    five = whist_deck(5)
    assert len(five) == 40 and {c.rank for c in five} == set(range(5, 15))
    three = whist_deck(3)
    assert len(three) == 24 and {c.rank for c in three} == set(range(9, 15))
    state = SPEC.new_match(players=5, seed=1)
    assert sum(len(z.cards) for z in state.table()) == 40


# 2. Schedule
def test_schedule_and_no_trump_on_eight_card_deals():
    assert schedule(3) == [1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1]
    assert schedule(4) == [1] * 4 + [2, 3, 4, 5, 6, 7] + [8] * 4 + [7, 6, 5, 4, 3, 2] + [1] * 4
    state = SPEC.new_match(players=3, seed=9)
    rng = random.Random(0)
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    deals = [e for e in state.events() if e.kind == "deal"]
    assert [e.data["size"] for e in deals] == schedule(3)
    for e in deals:
        assert (e.data["trump"] is None) == (e.data["size"] == 8)
        assert (len(e.cards) == 0) == (e.data["size"] == 8)
    assert len(state.result().deals) == 21


# 3. Bid constraint
def test_last_bidder_constraint():
    state = SPEC.new_match(players=3, options={"deal_size": 4}, seed=seed_with_first(3, 0))
    play(state, 0, "bid 2")
    play(state, 1, "bid 1")
    assert [a.number for a in state.legal_actions(2)] == [0, 2, 3, 4]
    with pytest.raises(IllegalAction):
        play(state, 2, "bid 1")
    state4 = SPEC.new_match(players=4, options={"deal_size": 1}, seed=seed_with_first(4, 0))
    for s in range(3):
        play(state4, s, "bid 0")
    assert state4.legal_actions(3) == [Action("bid", number=0)]
    with pytest.raises(IllegalAction):
        play(state4, 3, "bid 1")


def test_only_the_last_bidder_is_constrained():
    state = SPEC.new_match(players=3, options={"deal_size": 2}, seed=seed_with_first(3, 1))
    assert [a.number for a in state.legal_actions(1)] == [0, 1, 2]
    play(state, 1, "bid 2")
    assert [a.number for a in state.legal_actions(2)] == [0, 1, 2]
    play(state, 2, "bid 0")
    assert [a.number for a in state.legal_actions(0)] == [1, 2]  # the dealer (seat 0) bids last


# 4. Must trump, no over-trump duty
def test_must_trump_without_overtrumping():
    hand = parse_cards("9H JH AD")
    trump = Card.parse("10H").suit
    rules = whist_rules(3, trump)
    assert duty_cards(rules, hand, parse_cards("AS")) == parse_cards("9H JH")
    assert duty_cards(rules, hand, parse_cards("AS JS")) == parse_cards("9H JH")
    # Through the engine: seat 0 leads a spade, seat 1 trumps high, seat 2 (void) must trump.
    state = new_deal(3, 0, {0: "KS QC KC", 1: "QH AS 10C", 2: "9H JH AD"}, trump="10H")
    for s in range(3):
        play(state, s, "bid 1" if s < 2 else "bid 0")
    play(state, 0, "play KS")
    assert [str(a) for a in state.legal_actions(1)] == ["play AS"]
    play(state, 1, "play AS")
    assert [str(a) for a in state.legal_actions(2)] == ["play 9H", "play JH"]
    with pytest.raises(IllegalAction):
        play(state, 2, "play AD")


def test_trump_played_higher_still_allows_any_trump():
    state = new_deal(3, 0, {0: "KS QC KC", 1: "QH 9C 10C", 2: "9H JH AD"}, trump="10H")
    for s, b in enumerate((1, 1, 0)):
        play(state, s, f"bid {b}")
    play(state, 0, "play KS")
    play(state, 1, "play QH")  # trumps, higher than anything seat 2 holds
    assert [str(a) for a in state.legal_actions(2)] == ["play 9H", "play JH"]


# 5. No-trump deal
def test_no_trump_deal_void_player_plays_anything():
    hands = {
        0: "AC KC QC JC 10C 9C AD KD",
        1: "AH KH QH JH 10H 9H QD JD",
        2: "AS KS QS JS 10S 9S 10D 9D",
    }
    state = new_deal(3, 0, hands, trump=None)
    assert state.trump is None and state.view(0).trump is None
    for s, b in enumerate((3, 3, 3)):
        play(state, s, f"bid {b}")
    play(state, 0, "play AC")
    assert len(state.legal_actions(1)) == 8


# 6. Scoring
def test_deal_points():
    assert deal_points(2, 2) == 7
    assert deal_points(0, 0) == 5
    assert deal_points(4, 1) == -3
    assert deal_points(1, 3) == -2


def test_trick_winner_and_points_through_play():
    state = new_deal(3, 0, {0: "AS 9C", 1: "KS 9D", 2: "QS 10H"}, trump="JH")
    for s, b in enumerate((2, 0, 1)):
        play(state, s, f"bid {b}")
    for s, c in ((0, "AS"), (1, "KS"), (2, "QS")):
        play(state, s, f"play {c}")
    assert state.tricks == [1, 0, 0] and state.leader == 0
    play(state, 0, "play 9C")
    play(state, 1, "play 9D")  # void in clubs, no trump: discards
    play(state, 2, "play 10H")  # trumps and wins
    assert state.is_over()
    assert state.result().scores == (-1.0, 5.0, 6.0)


# 7. Streaks
def score_as(state: WhistState, exact: dict[int, bool]) -> None:
    """Finish the current deal with the given seats exact (bid 0, 0 tricks) or not."""
    state.bids = [0] * state.players
    state.tricks = [0 if exact.get(s, True) else 1 for s in range(state.players)]
    state._score_deal()


def test_streak_bonus_skips_one_card_deals():
    state = SPEC.new_match(players=4, seed=1)
    points = []
    for _ in range(8):  # four 1-card deals, then 2, 3, 4, 5
        score_as(state, {})
        points.append(state.deal_log[-1]["points"][0])
    assert state.hits[0] == 4 and points == [5] * 8
    score_as(state, {})  # c = 6: the fifth exact deal of two cards or more
    assert state.deal_log[-1]["size"] == 6
    assert state.deal_log[-1]["points"][0] == 5 + 10 and state.hits[0] == 0
    score_as(state, {0: False})  # c = 7, a miss resets hits
    assert state.hits[0] == 0 and state.misses[0] == 1


def test_streak_not_completed_by_closing_one_card_deals():
    state = SPEC.new_match(players=4, seed=1)
    for _ in range(16):  # up to and including the descending c = 6
        score_as(state, {0: state.cards != 6})
    assert state.hits[0] == 0 and state.deal_log[-1]["size"] == 6
    while not state.is_over():  # exact on 5, 4, 3, 2 and the four closing 1-card deals
        score_as(state, {})
    assert state.hits[0] == 4
    assert all(d["points"][0] == 5 for d in state.deal_log[-8:])


def test_five_misses_cost_ten():
    state = SPEC.new_match(players=4, seed=1)
    for _ in range(4):
        score_as(state, {})
    for _ in range(5):  # c = 2..6 all missed by one
        score_as(state, {0: False})
    assert state.deal_log[-1]["points"][0] == -1 - 10 and state.misses[0] == 0


# 8. Rotation
def test_first_player_rotates_clockwise():
    state = SPEC.new_match(players=4, seed=seed_with_first(4, 2))
    assert state.first == 2 and state.to_act() == (2,)
    score_as(state, {})
    assert state.first == 3 and state.dealer == 2
    assert state.view(0).counters["first"] == 3 and state.view(0).counters["dealer"] == 2


# 9. Forehead
def test_forehead_seat_sees_others_not_its_own():
    state = SPEC.new_match(
        players=4, options={"one_card_mode": "forehead"}, seed=seed_with_first(4, 1)
    )
    own = state.hands[0][0]
    view = state.view(0)
    assert view.hand == ()
    assert view.counts["hand:0"] == 1
    assert {view.zones[f"hand:{t}"][0] for t in (1, 2, 3)} == {state.hands[t][0] for t in (1, 2, 3)}
    assert own not in view.cards_named()
    for s in (1, 2, 3, 0):
        play(state, s, "bid 0" if s != 0 else f"bid {state.legal_actions(0)[0].number}")
    assert state.legal_actions(1) == [Action("play_own")]
    for s in (1, 2, 3):
        play(state, s, "play_own")
        assert own not in state.view(0).cards_named()
    play(state, 0, "play_own")
    assert own in state.view(0).cards_named()  # public once played


def test_forehead_only_on_one_card_deals():
    state = SPEC.new_match(players=3, options={"one_card_mode": "forehead", "deal_size": 2})
    assert len(state.view(0).hand) == 2


# 10. Zero wins
def test_zero_total_also_wins():
    for zero_wins, expected in ((True, (0, 1)), (False, (0,))):
        state = SPEC.new_match(players=3, options={"zero_wins": zero_wins})
        state.totals, state.over = [40, 0, 35], True
        assert state.result().winners == expected
        assert state.result().ranks == (1, 3, 2)


def test_options_are_validated():
    with pytest.raises(BadConfig, match="one_card_mode"):
        SPEC.new_match(players=4, options={"one_card_mode": "sideways"})
    with pytest.raises(BadConfig, match="deal_size"):
        SPEC.new_match(players=4, options={"deal_size": 9})
    with pytest.raises(BadConfig, match="3-6 players"):
        SPEC.new_match(players=7)
    with pytest.raises(BadConfig, match="no option"):
        SPEC.new_match(players=4, options={"colour": "red"})
    with pytest.raises(BadConfig, match="deck"):
        SPEC.new_match(players=4, deal=parse_cards("AS KS"))


def test_voids_are_public_and_constrain_sampled_worlds():
    state = new_deal(3, 0, {0: "AS KS", 1: "9C 10C", 2: "QS JS"}, trump="9H")
    for s, b in enumerate((2, 0, 1)):
        play(state, s, f"bid {b}")
    play(state, 0, "play AS")
    play(state, 1, "play 9C")  # shows out of spades (and of hearts: it could not trump)
    assert state.view(2).facts["voids"]["1"] == ["H", "S"]
    for k in range(50):
        world = state.sample_world(2, random.Random(k))
        assert all(c.suit.letter not in "HS" for c in world.hands[1])


def test_every_trump_suit_reaches_the_view_the_wire_and_the_bots():
    """Clubs is suit 0: a trump tested for truth would read as no trump. Each of the four
    suits turned for trump is the view's trump, survives the wire, and is the bots' trump."""
    from levata.bots.heuristic.whist import _suit
    from levata.engine.cards import Suit
    from levata.wire.codec import view_from_pb, view_to_pb

    found: dict[Suit, WhistState] = {}
    for seed in range(500):
        state = game("whist").new_match(players=3, options={"deal_size": 3}, seed=seed)
        assert isinstance(state, WhistState) and state.trump_card is not None
        found.setdefault(state.trump_card.suit, state)
        if len(found) == 4:
            break
    assert set(found) == {Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES}
    for suit, state in found.items():
        view = state.view(0)
        assert view.trump == suit.letter
        assert view_from_pb(view_to_pb(view)).trump == suit.letter
        assert _suit(view.trump) == suit
        assert game("whist").world_from_view(view, random.Random(0)).rules.trump == suit  # pimc's


# Options of the wider Oh Hell family: must_trump and scoring


def test_without_must_trump_a_void_seat_may_discard_and_is_void_in_the_led_suit_only():
    state = new_deal(3, 0, {0: "AS KS", 1: "9C 10H", 2: "QS JS"}, trump="9H", must_trump=False)
    assert state.view(1).facts["must_trump"] is False
    for s, b in enumerate((2, 0, 1)):
        play(state, s, f"bid {b}")
    play(state, 0, "play AS")
    assert [str(a) for a in state.legal_actions(1)] == ["play 9C", "play 10H"]
    play(state, 1, "play 9C")  # a discard, not a trump: it may still hold hearts
    assert state.view(2).facts["voids"]["1"] == ["S"]
    worlds = [state.sample_world(2, random.Random(k)) for k in range(60)]
    assert any(c.suit.letter == "H" for w in worlds for c in w.hands[1])
    assert all(c.suit.letter != "S" for w in worlds for c in w.hands[1])


def test_with_must_trump_the_same_discard_is_refused():
    state = new_deal(3, 0, {0: "AS KS", 1: "9C 10H", 2: "QS JS"}, trump="9H")
    for s, b in enumerate((2, 0, 1)):
        play(state, s, f"bid {b}")
    play(state, 0, "play AS")
    assert [str(a) for a in state.legal_actions(1)] == ["play 10H"]


def test_oh_hell_scoring_counts_tricks_plus_ten_if_exact_and_no_streaks():
    assert [deal_points(b, t, "oh_hell") for b, t in ((2, 2), (0, 0), (3, 1), (0, 2))] == [
        12,
        10,
        1,
        2,
    ]
    state = SPEC.new_match(players=4, options={"scoring": "oh_hell"}, seed=3)
    rng = random.Random(3)
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    for record in state.result().deals:
        pairs = zip(record["bids"], record["tricks"], strict=True)
        want = [t + (10 if b == t else 0) for b, t in pairs]
        assert record["points"] == want  # never a streak bonus
    assert state.view(0).facts["scoring"] == "oh_hell"
    with pytest.raises(BadConfig, match="scoring"):
        SPEC.new_match(players=4, options={"scoring": "bridge"})


def test_the_heuristic_discards_when_it_may_and_needs_no_trick():
    from levata.bots.heuristic.whist import HeuristicBot

    state = new_deal(3, 0, {0: "AS KS", 1: "9C 10H", 2: "QS JS"}, trump="9H", must_trump=False)
    for s, b in enumerate((2, 0, 1)):
        play(state, s, f"bid {b}")
    play(state, 0, "play AS")
    action = HeuristicBot().act(state.view(1), state.legal_actions(1))
    assert str(action) == "play 9C"  # bid 0: a discard loses, the trump would win


# 14. What the search bot reads: bids rated by the tricks a seat can steer to

#: Seat 0 leads with the three top trumps (JH is turned) and the lowest cards of the other
#: suits, which the others outnumber in every suit: three tricks, however it plays against
#: seats that aim at their likely bids (a fourth only where all three greedily run
#: themselves out of a suit).
SURE_THREE = {
    0: "AH KH QH 7S 8S 7C 7D",
    1: "9S 10S 8C 9C 10C 8D 7H",
    2: "JS QS JC QC 9D 10D 8H",
    3: "KS AS KC AC JD QD 9H",
}


def test_a_hand_that_surely_takes_three_tricks_rates_a_bid_of_three_best():
    state = new_deal(4, 0, SURE_THREE, "JH")
    hands = [mask_of(h) for h in state.hands]
    for targets in ([0, 0, 0, 0], [3, 0, 7, 0], [3, 0, 0, 7]):
        assert aim_reach(state.rules, hands, 0, (), targets, 0) == 1 << 3
    # Against the bids the others count (3 for the dealer, who then ducks), a fourth too.
    assert aim_reach(state.rules, hands, 0, (), WHIST.likely_bids(state), 0) == 1 << 3 | 1 << 4
    assert aim_reach(state.rules, hands, 0, (), [7, 7, 7, 7], 0) == 1 << 3 | 1 << 4
    rated = {a.number: v for a, v in WHIST.rate_calls(state, 0, state.calls(0), None).items()}
    assert rated == {b: 8.0 if b == 3 else -abs(b - 3) for b in range(8)}


def test_a_bid_the_aiming_playout_misses_counts_by_steer_where_the_seat_can_steer_to_it():
    found = 0
    for seed in range(40):
        state = SPEC.new_match(players=4, options={"deal_size": 5}, seed=seed)
        seat = state.to_act()[0]
        rated = WHIST.rate_calls(state, seat, state.calls(seat), None)
        hands = [mask_of(h) for h in state.hands]
        for a, value in rated.items():
            bids = list(state.bids)
            bids[seat] = a.number
            targets = WHIST.likely_bids(state, bids)
            reach = aim_reach(state.rules, hands, state.leader, (), targets, seat)
            took = aim_playout(state.rules, state.hands, state.leader, (), targets)[seat]
            assert reach >> took & 1  # the plain playout is one of the seat's lines
            missed = deal_points(a.number, took)
            if took != a.number and reach >> a.number & 1:
                found += 1
                assert value == pytest.approx(STEER * (5 + a.number) + (1 - STEER) * missed)
            else:
                assert value == missed
    assert found  # the case arises


def test_seats_still_to_bid_are_taken_to_count_their_winners_the_dealer_off_the_total():
    # Counted: seat 0 2.7, seat 1 0.45, seat 2 0.45, seat 3 (the dealer) 3.45.
    state = new_deal(4, 0, SURE_THREE, "JH")
    assert [counted_bid(h, state.trump, 4, range(8)) for h in state.hands] == [3, 0, 0, 3]
    assert WHIST.likely_bids(state) == [3, 0, 0, 3]
    # Seat 0 bids 4: 4 + 0 + 0 + 3 would be 7, so the dealer bids 4, the next closest.
    assert WHIST.likely_bids(state, [4, None, None, None]) == [4, 0, 0, 4]
    assert WHIST.likely_bids(state, [2, 1, None, None]) == [2, 1, 0, 3]


def test_a_world_is_less_likely_by_bid_evidence_for_each_trick_a_bid_is_off_the_count():
    state = new_deal(4, 0, SURE_THREE, "JH")
    play(state, 0, "bid 3")
    play(state, 1, "bid 2")  # seat 1 counts 0
    state.dealt_hands = [list(h) for h in state.hands]  # as a world drawn from a view has
    assert WHIST.plausibility(state, 2) == BID_EVIDENCE**2
    assert WHIST.plausibility(state, 1) == 1.0  # its own bid is no evidence to it
    play(state, 2, "bid 0")
    assert WHIST.plausibility(state, 3) == BID_EVIDENCE**2


def test_bids_of_another_style_weigh_a_world_off_the_count_less_and_random_ones_not_at_all():
    def after(bids: list[int]) -> WhistState:
        state = new_deal(4, 0, SURE_THREE, "JH")
        for seat, bid in enumerate(bids):
            play(state, seat, f"bid {bid}")
        state.dealt_hands = [list(h) for h in state.hands]
        return state

    on, off = after([3, 0]), after([3, 2])  # seat 1 counts 0: its bid on it, two off
    unknown, wild = WHIST.assuming("unknown"), WHIST.assuming("random")
    assert WHIST.assuming("counting") is WHIST
    assert WHIST.plausibility(off, 2) / WHIST.plausibility(on, 2) == BID_EVIDENCE**2
    # Half a counting bidder, half any of 8 numbers alike (3 / 8 of a bid on the count).
    ratio = unknown.plausibility(off, 2) / unknown.plausibility(on, 2)
    assert ratio == pytest.approx((0.5 * BID_EVIDENCE**2 + 0.5 * 3 / 8) / (0.5 + 0.5 * 3 / 8))
    assert BID_EVIDENCE**2 < ratio < 1  # a bid off the count still says something
    assert wild.plausibility(off, 2) == wild.plausibility(on, 2) == 1.0


def test_bids_to_come_of_another_style_are_drawn_world_by_world_around_the_count():
    counted_alike = spread = 0
    for seed in range(30):
        state = SPEC.new_match(players=4, options={"deal_size": 7}, seed=seed)
        seat = state.to_act()[0]
        bids: list[int | None] = [None] * 4
        bids[seat] = 1
        counted = WHIST.likely_bids(state, bids)
        for name in ("unknown", "random"):
            drawn = WHIST.assuming(name).likely_bids(state, bids)
            assert drawn == WHIST.assuming(name).likely_bids(state, bids)  # the world's own
            assert drawn[seat] == 1 and sum(drawn) != 7  # the hook rule still holds
            if name == "unknown":  # within one of the count (the dealer's answer aside)
                counted_alike += drawn == counted
                dealer = (state.first + 3) % 4
                assert all(
                    abs(d - c) <= 1
                    for s, (d, c) in enumerate(zip(drawn, counted, strict=True))
                    if s != dealer
                )
            spread += drawn != counted
    assert 0 < counted_alike < 30 and spread > 20
    assert WHIST.likely_bids(state, bids) == counted  # counting draws none


def test_the_search_reads_bids_as_its_bidders_option_says():
    from levata.bots import make_bot
    from levata.bots.strategy import strategy_for

    ours = strategy_for(SPEC)
    assert make_bot("pimc", "whist", bidders="counting").strategy is ours  # the model as it was
    assert make_bot("pimc", "whist").strategy is ours.assuming("random")  # the default
    unknown = make_bot("pimc", "whist", bidders="unknown").strategy
    assert isinstance(unknown, WhistStrategy) and unknown.trust == 0.5
    assert unknown is ours.assuming("unknown")  # one per assumption
    with pytest.raises(BadConfig, match="bidders must be counting, unknown or random"):
        make_bot("pimc", "whist", bidders="wild")


def test_rating_a_bid_reads_the_dealers_answer_to_it():
    # Seat 0 bidding 4 forces the dealer (counting 3.45) to 4: the dealer then plays for
    # four tricks, and seat 0's rating of 4 is the one against that dealer.
    state = new_deal(4, 0, SURE_THREE, "JH")
    rated = {a.number: v for a, v in WHIST.rate_calls(state, 0, state.calls(0), None).items()}
    took = aim_playout(state.rules, state.hands, 0, (), [4, 0, 0, 4])[0]
    hands = [mask_of(h) for h in state.hands]
    reach = aim_reach(state.rules, hands, 0, (), [0, 0, 0, 4], 0)
    expect = deal_points(4, took)
    if took != 4 and reach >> 4 & 1:
        expect = STEER * 9 + (1 - STEER) * expect
    assert rated[4] == pytest.approx(expect)


def test_each_cards_first_line_is_the_aiming_playouts_rating():
    """rate_lines gives every playable card a value per line (LINES); the first line is
    the aiming playout's own play, so it is rate_cards' value; the lines differ somewhere."""
    differ = 0
    for seed in range(12):
        state = SPEC.new_match(players=4, options={"deal_size": 6}, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            seat = state.to_act()[0]
            if state.phase == "play" and len(state.playable(seat)) > 1:
                lines, cards = WHIST.rate_lines(state, seat), WHIST.rate_cards(state, seat)
                assert sorted(lines) == sorted(cards)
                for i, values in lines.items():
                    assert len(values) == len(LINES)
                    assert values[0] == pytest.approx(cards[i])
                    differ += len(set(values)) > 1
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert differ
