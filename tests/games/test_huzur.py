"""Huzur: every scenario of the rules' test list (§7), then the decisions, options and worlds.

Seats are named as in the spec: P1, P2, P3, P4 = 0, 1, 2, 3, clockwise.
"""

from __future__ import annotations

import pickle
import random

import pytest

from levata.engine import Action, Card, IllegalAction, parse_cards
from levata.engine.cards import Suit
from levata.engine.games.huzur import SPEC, HuzurState
from levata.engine.games.huzur.rules import beats, can_beat, deck, extends, is_lead
from levata.engine.testing import LeakWatch, check_position, check_world_from_view, random_steps

P1, P2, P3, P4 = range(4)
CLUBS = Suit.CLUBS


def pos(players: int, hands: list[str], turned: str, **kw) -> HuzurState:
    return HuzurState.from_position(players, hands, turned, **kw)


def act(state: HuzurState, seat: int, *moves: str) -> None:
    for move in moves:
        state.apply(seat, Action.parse(move))


def legal(state: HuzurState, seat: int) -> list[str]:
    return [str(a) for a in state.legal_actions(seat)]


def illegal(state: HuzurState, seat: int, move: str) -> None:
    before = pickle.dumps(state)
    with pytest.raises(IllegalAction):
        state.apply(seat, Action.parse(move))
    assert pickle.dumps(state) == before


def card(text: str) -> Card:
    return Card.parse(text)


def kinds_since(state: HuzurState, start: int) -> list[tuple[str, int | None]]:
    return [(e.kind, e.seat) for e in state.events(start)]


# -- §7 scenarios -------------------------------------------------------------------------------


def test_1_decks_and_the_deal():
    three, four = deck(3), deck(4)
    assert len(three) == 40 and not {4, 5, 6} & {c.rank for c in three}
    assert len(four) == 48 and 4 not in {c.rank for c in four} and 5 in {c.rank for c in four}
    for players, stock in ((3, 21), (4, 23)):
        state = SPEC.new_match(players, seed=11)
        assert not state.discard  # no four of a kind in this deal
        assert [len(h) for h in state.hands] == [6] * players
        assert len(state.stock) == stock and len(state.turned_pile) == 1  # + the turned card
        deal = state.events()[0]
        assert deal.kind == "deal" and deal.data["stock"] == stock + 1
        assert state.view(0).trump == state.turned_pile[0].suit.letter
        assert state.to_act() == ((state.dealer + 1) % players,)  # D1


def test_1_the_deal_order_is_honoured():
    order = list(deck(3))
    state = SPEC.new_match(3, seed=2, deal=order)
    first = (state.dealer + 1) % 3
    assert state.hands[first][0] == min(order[0::3][:6])
    assert state.turned == order[18]  # the card after the eighteen dealt is turned
    assert state.stock[-1] == order[19]  # and the next is the stock's top


def test_2_ranking():
    assert beats(card("2D"), card("KD"), CLUBS)
    assert beats(card("3D"), card("KD"), CLUBS)
    assert not beats(card("KD"), card("3D"), CLUBS)
    assert beats(card("7C"), card("AD"), CLUBS)
    assert not beats(card("AD"), card("7C"), CLUBS)
    assert beats(card("3C"), card("KC"), CLUBS)
    assert beats(card("AC"), card("2C"), CLUBS)
    assert not beats(card("9S"), card("8H"), CLUBS)  # another plain suit never beats


@pytest.mark.parametrize(
    ("cards", "ok"),
    [
        ("8H 8S JH", True),
        ("8H 9S JH", False),
        ("8H 8S", False),
        ("8H 8S JH JC 3D", True),
        ("8H 8S 8D JH 3D", False),
        ("8H 8S 8D JH JC", True),
    ],
)
def test_3_opening_legality(cards, ok):
    assert is_lead(parse_cards(cards)) is ok


def test_3_the_engine_builds_only_legal_leads():
    s = pos(3, ["8H 8S JH JC 3D 9S", "7H", "7S"], "10C")
    assert legal(s, P1) == [f"play {c}" for c in s.hands[P1]]
    act(s, P1, "play 8H")
    assert "play 9S" not in legal(s, P1)  # {8H, 9S} can never hold a pair
    act(s, P1, "play JH")  # {8H, JH}: 8S or JC would pair it
    assert "done" not in legal(s, P1)  # two cards are no lead
    assert legal(s, P1) == ["play 8S"]  # JC comes before JH in the hand's order
    act(s, P1, "play 8S")
    assert s.phase == "respond"  # 9S alone cannot make a second pair: the lead is complete
    s = pos(3, ["8H 8S JH JC 3D 9S", "7H", "7S"], "10C")
    act(s, P1, "play JC", "play 8H", "play JH")
    assert legal(s, P1) == ["play 8S", "done"]  # three with a pair, or on to five
    s = pos(3, ["8H 8S JH JC 3D 9S", "7H", "7S"], "10C")
    act(s, P1, "play JC", "play 3D", "play 8H", "play JH", "play 8S")  # two pairs, in order
    assert s.phase == "respond" and len(s.on_table) == 5
    illegal(pos(3, ["8H 9S JH", "7H", "7S"], "10C"), P1, "play 10H")


def test_3_a_lead_with_nothing_to_extend_it_ends_by_itself():
    s = pos(3, ["8H 9S JD", "7H 10H", "7S"], "10C")
    act(s, P1, "play 8H")
    assert s.phase == "respond" and s.to_act() == (P2,)


def test_4_the_seeds_example():
    s = pos(3, ["8H 8S JH 9D 10D KD", "10H JS 8C QD 7D 7S", "QH QS AC KS KH 9H"], "KC")
    stock = len(s.stock)
    act(s, P1, "play 8H", "play JH", "play 8S")
    assert len(s.hands[P1]) == 6 and len(s.stock) == stock - 3  # P1 drew 3
    assert legal(s, P2) == ["beat 10H", "take"]  # 8H first: the other cards beat nothing
    act(s, P2, "beat 10H", "beat 8C", "beat JS")
    assert len(s.hands[P2]) == 6 and len(s.stock) == stock - 6  # P2 drew 3
    assert s.to_act() == (P3,) and "beat QH" in legal(s, P3)  # P3 may beat QH, AC, QS
    twin = s.clone()
    act(twin, P3, "beat QH", "beat AC", "beat QS")
    assert twin.phase == "open" and len(twin.discard) == 9  # every seat beat
    act(s, P3, "take")
    assert len(s.hands[P3]) == 12 and len(s.stock) == stock - 6  # six taken, none drawn
    assert s.to_act() == (P1,) and s.phase == "open"  # the seat after the taker opens


def test_5_an_illegal_beat_is_refused_and_changes_nothing():
    s = pos(3, ["8H", "7H 9S 9H 7C", "QS"], "10C", stock="AD")
    act(s, P1, "play 8H")
    illegal(s, P2, "beat 7H")
    illegal(s, P2, "beat 9S")
    assert {"beat 9H", "beat 7C"} <= set(legal(s, P2))
    before = s.event_count()
    illegal(s, P2, "beat 7H")
    assert s.event_count() == before  # nothing is said of a refused action


def mid_beat() -> HuzurState:
    """P1 led 7H 9H 7S (the hand's order); P2 holds 8H 10H 8S 2S."""
    s = pos(3, ["7H 7S 9H", "8H 10H 8S 2S", "QS 7D"], "10C")
    act(s, P1, "play 7H", "play 9H", "play 7S")
    return s


def test_5_beating_is_pruned_so_no_choice_is_a_dead_end():
    s = mid_beat()
    # 8H or 10H beat the 7H, but only 10H beats the 9H: 10H on the 7H is not offered.
    assert legal(s, P2) == ["beat 8H", "take"]
    act(s, P2, "beat 8H")
    assert legal(s, P2) == ["beat 10H"]  # no take once a beat has begun
    act(s, P2, "beat 10H")
    assert legal(s, P2) == ["beat 2S", "beat 8S"]
    act(s, P2, "beat 2S")
    assert s.to_act() == (P3,) and [str(c) for c in s.on_table[3:]] == ["8H", "10H", "2S"]


def test_6_a_full_round_discards_the_table_and_the_opener_opens_again():
    s = pos(3, ["8H 7S", "9H 7D", "10H 8D"], "10C", stock="KS QS JS")
    act(s, P1, "play 8H")
    act(s, P2, "beat 9H")
    act(s, P3, "beat 10H")
    assert [str(c) for c in s.discard[-3:]] == ["8H", "9H", "10H"]
    assert s.on_table == [] and s.phase == "open" and s.to_act() == (P1,)
    assert s.hand_no == 2


def test_7_four_of_a_kind_leave_and_the_seat_finishes():
    s = pos(3, ["QH 7S", "QS QD QC", "9S"], "10C", stock="", turned_drawn=True)
    start = s.event_count()
    act(s, P1, "play QH")
    act(s, P2, "take")
    quad = [e for e in s.events(start) if e.kind == "quad"]
    assert len(quad) == 1 and quad[0].audience is None and quad[0].seat == P2
    assert {str(c) for c in quad[0].cards} == {"QH", "QS", "QD", "QC"}
    assert s.finished == [P2] and s.to_act() == (P3,)  # the seat after the taker opens


def test_7_four_of_a_kind_leave_and_the_seat_refills():
    s = pos(3, ["QH 7S 8S 9S 10S JS", "QS QD QC 7H", "9H"], "10C", stock="8D 9D 10D KD AD 2D JD")
    act(s, P1, "play QH")  # P1 draws the 8D
    act(s, P2, "take")
    assert s.hands[P2] == sorted(parse_cards("7H 9D 10D KD AD 2D"))
    assert not s.finished


def test_7_four_of_a_kind_after_the_deal_leave_at_once():
    # Cards go one at a time from the seat after the dealer: every third card is its.
    order = [card(c) for c in ("QH", "7H", "7S", "QS", "8H", "8S", "QD", "9H", "9S", "QC")]
    order += [c for c in deck(3) if c not in order]
    state = SPEC.new_match(3, seed=1, deal=order)
    first = (state.dealer + 1) % 3
    quads = [e for e in state.events() if e.kind == "quad"]
    assert [e.seat for e in quads] == [first]
    assert all(len(h) == 6 for h in state.hands)  # the seat drew four more at once
    assert not any(c.rank == 12 for h in state.hands for c in h)


def test_8_the_lowest_trump_swap():
    s = pos(3, ["8H", "7C 9S", "QS"], "10C", stock="AD KD QD JD 9D 8D 7D")
    act(s, P1, "play 8H")
    assert legal(s, P2)[0] == "swap"
    act(s, P2, "swap")
    assert card("10C") in s.hands[P2] and s.turned_pile == [card("7C")]
    assert s.view(P3).zones["trump"] == (card("7C"),)
    assert "swap" not in legal(s, P2) and s.view(P3).facts["known"][P2] == ["10C"]
    swap = s.events()[-1]
    assert swap.kind == "swap" and swap.audience is None and swap.cards == (card("7C"), card("10C"))
    act(s, P2, "beat 10C")
    assert "swap" not in legal(s, P3)  # nobody holds the lowest trump now


def test_8_no_swap_when_the_turned_card_is_the_lowest_trump():
    s = pos(3, ["8H 9C", "9S", "QS"], "7C", stock="AD")
    assert "swap" not in legal(s, P1)
    s = pos(4, ["8H 6C", "9S", "QS", "JS"], "5C", stock="AD")
    assert "swap" not in legal(s, P1)
    s = pos(4, ["8H 5C", "9S", "QS", "JS"], "6C", stock="AD")
    assert legal(s, P1)[0] == "swap"


def test_8_no_swap_once_the_turned_card_is_drawn():
    s = pos(3, ["8H", "7C 9S", "QS"], "10C", stock="")  # the turned card is all that is left
    act(s, P1, "play 8H")
    assert s.hands[P1] == [card("10C")] and s.trump_holder == P1
    assert s.view(P2).facts["known"][P1] == ["10C"] and "swap" not in legal(s, P2)


def test_9_finishing_order_and_the_loser():
    s = pos(3, ["9H", "10H", "8H 7S"], "10C", stock="", turned_drawn=True, opener=P3)
    act(s, P3, "play 8H")
    act(s, P1, "beat 9H")
    assert s.finished == [P1] and s.to_act() == (P2,)
    assert legal(s, P2) == ["beat 10H", "take"]  # P2 must beat the finisher's 9H
    act(s, P2, "beat 10H")
    assert s.is_over() and s.result().ranks == (1, 2, 3)
    assert s.result().deals[0]["losers"] == [P3] and s.result().winners == (P1,)
    assert s.result().scores == (2.0, 1.0, 0.0)


def test_9_an_opener_that_finishes_on_its_lead_is_still_answered():
    s = pos(4, ["8H", "9H 7S", "10H 8S", "JS"], "10C", stock="", turned_drawn=True)
    act(s, P1, "play 8H")
    assert s.finished == [P1] and s.responders == [P2, P3, P4]
    act(s, P2, "beat 9H")
    act(s, P3, "beat 10H")
    act(s, P4, "take")
    assert s.to_act() == (P2,)  # the seat after the taker


def test_10_a_big_hand_does_not_draw():
    s = pos(3, ["8H", "9H 7S 8S 9S 10S JS QS KS 2S", "QD"], "10C", stock="AD KD")
    act(s, P1, "play 8H")
    act(s, P2, "beat 9H")
    assert len(s.hands[P2]) == 8 and len(s.stock) == 0  # P1 drew both; P2 none


def test_11_no_leak_and_the_turned_card_is_public():
    state = SPEC.new_match(3, seed=5)
    watch = LeakWatch(state)
    rng = random.Random(3)
    for _ in zip(range(400), random_steps(state, rng), strict=False):
        watch.observe()
        view = state.view(0)
        assert "stock" not in view.zones  # the stock's order is never shown
        others = [c for s in (1, 2) for c in state.hands[s] if str(c) not in view.facts["known"][s]]
        assert not set(others) & set(view.cards_named())
        if state.turned_pile:
            assert view.zones["trump"] == tuple(state.turned_pile)
        elif state.trump_holder is not None and state.turned in state.hands[state.trump_holder]:
            assert str(state.turned) in view.facts["known"][state.trump_holder]
    watch.close()


# -- decisions and options ------------------------------------------------------------------------


def test_refills_happen_in_order_of_play_and_the_turned_card_comes_last():
    s = pos(3, ["8H 7S", "9H 7D", "10H 8D"], "10C", stock="KS QS JS 9S 8S AD 2D")
    start = s.event_count()
    act(s, P1, "play 8H")
    act(s, P2, "beat 9H")
    draws = [(e.kind, e.seat) for e in s.events(start) if "draw" in e.kind]
    assert draws == [("draw", P1), ("drawn", P1), ("draw", P2), ("drawn", P2), ("trump_drawn", P2)]
    assert s.hands[P2] == sorted(parse_cards("7D AD 2D 10C")) and s.trump_holder == P2


def test_a_taker_below_six_cards_draws_up_to_six():
    s = pos(3, ["8H 7S 9S 10S JS KS", "7H", "QD"], "10C", stock="AD KD QS JD 9D 8D 7D")
    act(s, P1, "play 8H")  # P1 draws the AD
    act(s, P2, "take")  # two cards: P2 draws four (D16)
    assert s.hands[P2] == sorted(parse_cards("7H 8H KD QS JD 9D"))
    assert s.view(P3).facts["known"][P2] == ["8H"]


def test_the_hand_cap_ranks_by_fewest_cards():
    s = pos(
        3,
        ["8H 7S", "9H 7D 8D", "10H 9D"],
        "10C",
        stock="",
        turned_drawn=True,
        options={"hand_cap": 1},
    )
    act(s, P1, "play 8H")
    act(s, P2, "beat 9H")
    act(s, P3, "beat 10H")
    assert s.is_over() and s.result().reason == "cap"
    assert s.result().ranks == (1, 3, 1)  # one card, two cards, one card: ties share


def test_first_opener_lowest_trump_option():
    for seed in range(6):
        state = SPEC.new_match(3, seed=seed, options={"first_opener": "lowest_trump"})
        trumps = [(c, s) for s in range(3) for c in state.hands[s] if c.suit == state.trump]
        if trumps:
            from levata.engine.games.huzur.rules import power

            assert state.to_act() == (min((power(c), s) for c, s in trumps)[1],)


def test_cap_lead_to_min_hand_option():
    hands = ["8H 8S JH JC 3D", "9S", "QS 7H"]
    s = pos(3, hands, "10C", stock="", turned_drawn=True, options={"cap_lead_to_min_hand": True})
    act(s, P1, "play JC")
    assert s.phase == "respond" and len(s.on_table) == 1  # one card: P2 holds one
    s = pos(3, hands, "10C", stock="", turned_drawn=True)
    act(s, P1, "play JC")
    assert s.phase == "lead"


def test_extends_and_can_beat_helpers():
    assert extends(parse_cards("8H"), card("8S"), parse_cards("9D"))
    assert not extends(parse_cards("8H 8S JH"), card("QS"), parse_cards("KS"))
    assert extends(parse_cards("8H 8S JH"), card("QS"), parse_cards("QD"))
    assert can_beat(parse_cards("8H 9H"), parse_cards("9H 10H"), CLUBS)
    assert not can_beat(parse_cards("AC"), parse_cards("2C 3C"), CLUBS)


# -- worlds, positions and bots ------------------------------------------------------------------


def test_positions_round_trip_mid_beat():
    s = mid_beat()
    act(s, P2, "beat 8H")
    again = SPEC.from_position(s.position())
    assert again.position() == s.position()
    check_position(s, random.Random(1), moves=None)


def test_worlds_keep_what_a_seat_knows():
    s = pos(3, ["QH 7S", "QS QD 8C", "9S 10S"], "10C", stock="AD KD JD 9D 8D 7D")
    act(s, P1, "play QH")
    act(s, P2, "take")
    for k in range(10):
        world = check_world_from_view(s, P3, random.Random(k), moves=20)
        assert card("QH") in world.hands[P2]  # taken face up: known to every seat
        assert world.hands[P3] == s.hands[P3]


def test_a_world_lets_a_seat_in_the_middle_of_a_beat_finish_it():
    s = mid_beat()
    act(s, P2, "beat 8H")
    for k in range(20):
        world = s.sample_world(P3, random.Random(k))
        assert world.legal_actions(P2)


def test_heuristic_plays_complete_matches():
    from levata.bots import play_match
    from levata.bots.heuristic.huzur import HeuristicBot

    state = SPEC.new_match(4, seed=9)
    result = play_match(state, [HeuristicBot(seed=s) for s in range(4)])
    assert sorted(result.ranks) == [1, 2, 3, 4]


@pytest.mark.parametrize("players", [3, 4])
def test_the_fast_copy_plays_by_the_games_rules(players):
    """Action for action over random matches, the Python playout copy offers the game's
    legal actions and reaches its positions (hands, stock, table, out of play, the result).
    The C kernel the search runs on is proven against this copy in
    ``tests/engine/test_huzur_kernel.py``."""
    for i in range(4):
        options = {"cap_lead_to_min_hand": i % 2 == 1}
        state = SPEC.new_match(players, seed=40 + i, options=options)
        fast = state.python_playout_state(seed=i)
        rng = random.Random(i)
        while not state.is_over():
            seat = state.to_act()[0]
            assert fast.to_act() == state.to_act()
            moves = state.legal_actions(seat)
            assert fast.legal_actions(seat) == moves
            move = rng.choice(moves)
            state.apply(seat, move)
            fast._apply(seat, move)
            assert (fast.hands, fast.stock, fast.table) == (
                state.hands,
                state.stock,
                state.on_table,
            )
            assert sorted(fast.discard) == sorted(state.discard)
        assert fast.is_over() and fast.estimate() == tuple(state.result().scores)


def test_the_fast_copys_policy_is_the_heuristics():
    """Its heuristic choices are legal, and the heuristic bot's (it may keep a plan the bot
    revises mid-move: that is rare)."""
    from levata.bots.heuristic.huzur import HeuristicBot

    agree = total = 0
    for i in range(4):
        state = SPEC.new_match(3 + i % 2, seed=60 + i)
        bot = HeuristicBot()
        while not state.is_over():
            seat = state.to_act()[0]
            legal_now = state.legal_actions(seat)
            fast = state.playout_state(seed=i)
            mine = bot.act(state.view(seat, history=False), legal_now)
            theirs = fast.choose(seat)
            assert theirs in legal_now
            agree += theirs == mine
            total += 1
            state.apply(seat, mine)
    assert agree >= 0.97 * total


def test_search_plays_a_match_on_the_fast_copy():
    from levata.bots import play_match
    from levata.bots.search.ismcts import IsmctsBot

    state = SPEC.new_match(3, seed=4)
    bots = [IsmctsBot("huzur", seed=s, iterations=4, time_ms=0) for s in range(3)]
    result = play_match(state, bots)
    assert sorted(result.ranks) == [1, 2, 3] and bots[0].stats.rollouts > 0


def test_search_deals_its_worlds_in_the_kernel_and_replays_from_its_seed(monkeypatch):
    """One world is rebuilt from the view in Python, the rest come from the kernel's dealer;
    the same seed makes the same decision."""
    from levata.bots.heuristic.huzur import HeuristicBot
    from levata.bots.search.ismcts import IsmctsBot

    state = SPEC.new_match(3, seed=8)
    heuristic = HeuristicBot()
    while len(state.legal_actions(state.to_act()[0])) < 3:  # a decision worth searching
        seat = state.to_act()[0]
        state.apply(seat, heuristic.act(state.view(seat), state.legal_actions(seat)))
    seat = state.to_act()[0]
    view, legal = state.view(seat), state.legal_actions(seat)
    calls = {"from_view": 0, "playout_dealer": 0}
    from_view, playout_dealer = HuzurState.from_view.__func__, HuzurState.playout_dealer

    def counted_from_view(cls, *args):
        calls["from_view"] += 1
        return from_view(cls, *args)

    def counted_dealer(self, *args):
        calls["playout_dealer"] += 1
        return playout_dealer(self, *args)

    monkeypatch.setattr(HuzurState, "from_view", classmethod(counted_from_view))
    monkeypatch.setattr(HuzurState, "playout_dealer", counted_dealer)
    picks = []
    for _ in range(2):
        bot = IsmctsBot("huzur", seed=5, iterations=40, time_ms=0)
        picks.append(bot.act(view, legal))
        assert bot.stats.iterations == 40
    assert calls == {"from_view": 2, "playout_dealer": 2}  # once a decision each
    assert picks[0] == picks[1] and picks[0] in legal
