"""Sixty-six: every scenario of the rules specification (§6), the deal, the draws, the
Schnapsen option set, and what a seat may learn of the face-down tricks."""

from __future__ import annotations

import random

import pytest

from levata.bots import play_match
from levata.bots.base import make_bot
from levata.engine import Action, Card, IllegalAction, events, game, parse_cards
from levata.engine.games.sixty_six import CLAIMING, SixtySixState
from levata.engine.games.sixty_six.rules import DECK
from levata.engine.testing import LeakWatch, check_positions, random_steps

SPEC = game("sixty-six")
C = Card.parse


def new(order: str | None = None, **options) -> SixtySixState:
    """A match whose first deal is ``order`` (top card first; seat 0 leads)."""
    deal = parse_cards(order) if order else None
    state = SPEC.new_match(players=2, options={"first": 0, **options}, seed=1, deal=deal)
    assert isinstance(state, SixtySixState)
    return state


# L gets 10C JC QC, the dealer KC AC 10D, the trump JD is turned, L gets QD KD, the dealer
# AD 10H, and the stock is JH QH KH AH 10S JS QS KS AS (top first) on the JD.
ORDER = "10C JC QC KC AC 10D JD QD KD AD 10H JH QH KH AH 10S JS QS KS AS"


def arrange(state, hands, *, turned=None, stock=(), taken=((), ()), leader=0, last_taker=None):
    """Put the deal in progress in a position of the scenario: hands, the turned card and
    the stock, the cards each seat took (a trick per two cards), who leads."""
    state.hands = [parse_cards(h) for h in hands]
    state.trump_card = C(turned) if turned else None
    state.stock = parse_cards(" ".join(stock)) if stock else []
    state.taken = [parse_cards(t) for t in taken]
    state.tricks = [len(t) // 2 for t in state.taken]
    state.leader, state.last_taker, state.trick = leader, last_taker, []
    state._rules_changed()


def act(state, seat, text):
    state.apply(seat, Action.parse(text))


def kinds(state):
    return [str(a) for a in state.legal_actions(state.to_act()[0])]


# -- the deal and the draws ------------------------------------------------------------------


def test_the_deal_is_three_turn_two_and_the_stock_lies_on_the_trump():
    state = new(ORDER)
    assert sorted(map(str, state.hands[0])) == sorted(["10C", "JC", "QC", "QD", "KD"])
    assert sorted(map(str, state.hands[1])) == sorted(["KC", "AC", "10D", "AD", "10H"])
    assert state.trump_card == C("JD") and state.view(1).trump == "D"
    assert [str(c) for c in state.stock] == ["JH", "QH", "KH", "AH", "10S", "JS", "QS", "KS", "AS"]
    assert state.view(0).counts["stock"] == 10 and state.to_act() == (0,)
    assert len(DECK) == 20 and not state.strict


def test_the_winner_draws_first_and_the_loser_takes_the_turned_trump_last():
    state = new(ORDER)
    act(state, 0, "play JC")
    act(state, 1, "play AC")  # seat 1 wins: it draws JH, seat 0 QH
    assert C("JH") in state.hands[1] and C("QH") in state.hands[0]
    drawn = [ev for ev in state.events() if ev.kind == events.DRAW]
    assert [(ev.seat, ev.audience) for ev in drawn] == [(1, {1}), (0, {0})]
    arrange(state, ["10C QC", "KC 10D"], turned="JD", stock=["AS"], leader=0)
    act(state, 0, "play 10C")
    act(state, 1, "play 10D")  # a trump takes it: seat 1 draws AS, seat 0 the turned JD
    assert C("AS") in state.hands[1] and C("JD") in state.hands[0]
    last = state.events()[-1]
    assert last.kind == events.DRAW and last.audience is None and last.cards == (C("JD"),)
    assert state.strict and state.view(0).facts["strict"] and "trump" not in state.view(0).zones


# -- §6 scenarios -------------------------------------------------------------------------------


def test_1_open_play_any_card_follows():
    state = new(ORDER)
    arrange(state, ["KH 10C", "JS QC AD"], turned="JD", stock=["AS", "KS"], leader=0)
    act(state, 0, "play KH")
    assert kinds(state) == ["play QC", "play AD", "play JS"]  # no duty while the stock is open
    act(state, 1, "play JS")
    assert state.tricks == [1, 0]  # a non-trump off-suit card loses


@pytest.mark.parametrize(("follow", "taker"), [("AD", 1), ("JC", 1), ("AS", 0)])
def test_2_trick_winner(follow, taker):
    state = new(ORDER)
    arrange(state, ["10D KH", f"{follow} QH"], turned="KC", stock=["AH", "QS"], leader=0)
    state.set_trump(C("KC").suit)
    act(state, 0, "play 10D")
    act(state, 1, f"play {follow}")
    assert state.tricks[taker] == 1


@pytest.mark.parametrize(
    ("held", "allowed"),
    [("AH JH QC", ["AH"]), ("JH QC", ["JH"]), ("QC AS", ["QC"]), ("AS KD", ["KD", "AS"])],
)
def test_3_strict_play_head_follow_trump(held, allowed):
    state = new(ORDER)
    state.set_trump(C("JC").suit)
    arrange(state, ["10H QS KS", held], leader=0)
    assert state.strict
    act(state, 0, "play 10H")
    got = kinds(state)
    assert sorted(got) == sorted(f"play {c}" for c in allowed)


def test_4_marriage_shown_counted_after_a_trick_forty_in_trumps_none_in_strict():
    state = new(ORDER)
    state.set_trump(C("JC").suit)
    stock = ["JS", "KD", "QD", "10S", "JD", "KH", "10C", "AC", "AH"]
    arrange(state, ["KS QS KC QC 10H", "AS JH 10D AD QH"], turned="JC", stock=stock)
    assert "marry KS" in kinds(state) and "marry QC" in kinds(state)
    act(state, 0, "marry KS")
    view = state.view(1)
    assert view.zones["married:0"] == (C("KS"), C("QS"))
    assert view.facts["marriages"] == [[0, "S", 20]]
    assert kinds(state) == ["play KS"]  # no trick yet: no claim, the married card is led
    assert state.points(0) == 0  # pending until a trick
    act(state, 0, "play KS")
    act(state, 1, "play AS")  # seat 1 wins: seat 0 still has no trick
    assert state.points(0) == 0
    act(state, 1, "play JH")
    act(state, 0, "play 10H")  # seat 0 wins 12 + its marriage 20
    assert state.points(0) == 12 + 20 and state.view(1).zones["married:0"] == (C("QS"),)
    act(state, 0, "marry QC")
    assert state.marriages[-1] == [0, "C", 40]
    assert "claim" in kinds(state)  # after a trick it may claim right after marrying
    state.closed_by = 1
    state.marrying = None
    state._rules_changed()
    assert not any(k.startswith("marry") for k in kinds(state))
    with pytest.raises(IllegalAction):
        act(state, 0, "marry KC")


def test_5_trump_jack_exchange_after_winning_a_trick_not_at_first_lead_nor_closed():
    state = new(ORDER)
    state.set_trump(C("AC").suit)
    arrange(state, ["JC KH QD", "AH JH 10D"], turned="AC", stock=["AS", "JS", "KD", "QS", "10S"])
    assert "exchange JC" not in kinds(state)  # the first lead of the deal
    state.last_taker = 0
    assert state.view(0).counts["stock"] == 6 and "exchange JC" in kinds(state)
    act(state, 0, "exchange JC")
    assert state.trump_card == C("JC") and C("AC") in state.hands[0]
    ev = state.events()[-1]
    assert ev.kind == "exchange" and ev.audience is None and ev.cards == (C("JC"), C("AC"))
    state2 = new(ORDER)
    state2.set_trump(C("AC").suit)
    arrange(state2, ["JC KH QD", "AH JH 10D"], turned="AC", stock=["AS", "JS"], last_taker=0)
    act(state2, 0, "close")
    assert "exchange JC" not in kinds(state2) and state2.view(1).facts["closed_by"] == 0


def _claim_state(w_pts, o_pts, o_tricks, **options):
    """Seat 0 on lead after winning a trick with ``w_pts`` card points, seat 1 with
    ``o_pts`` in ``o_tricks`` tricks (the cards only make up the numbers)."""
    state = new(ORDER, **options)
    arrange(state, ["JS", "QS"], turned="JD", stock=["AS"], last_taker=0)
    state.tricks = [3, o_tricks]
    state.taken = [[], []]
    state.points = lambda s: (w_pts, o_pts)[s]  # type: ignore[method-assign]
    return state


@pytest.mark.parametrize(("o_pts", "o_tricks", "award"), [(40, 2, 1), (30, 2, 2), (0, 0, 3)])
def test_6_a_correct_claim_scores_one_two_or_three(o_pts, o_tricks, award):
    state = _claim_state(70, o_pts, o_tricks)
    act(state, 0, "claim")
    assert state.scores == [award, 0]
    claim = [ev for ev in state.events() if ev.kind == "claim"][-1]
    assert claim.data["correct"] is True


@pytest.mark.parametrize(("o_tricks", "award"), [(2, 2), (0, 3)])
def test_7_a_false_claim_gives_the_other_two_or_three(o_tricks, award):
    state = _claim_state(60, 30, o_tricks)
    act(state, 0, "claim")
    assert state.scores == [0, award]


def _closed_ending(b_tricks_at_close, b_wins_after, schnapsen=False, a_claims=False):
    """Seat 0 (A) closes with seat 1 (B) holding ``b_tricks_at_close`` tricks; B then takes
    the last trick or not; A claims (falsely) or nobody does."""
    state = new(ORDER, schnapsen=schnapsen)
    state.set_trump(C("JC").suit)
    b_taken = "10H JH" if b_tricks_at_close else ""
    arrange(
        state,
        ["AS", "KS" if b_wins_after else "QD"],
        turned="JC",
        stock=["QS", "10S", "KH"],
        taken=("AD JS", b_taken),
        last_taker=0,
    )
    act(state, 0, "close")
    if b_wins_after:
        state.hands[1] = [C("AC")]  # a trump takes the last trick
    act(state, 0, "play AS")
    act(state, 1, f"play {state.hands[1][0]}")
    taker = state.last_taker
    assert state.phase == CLAIMING
    act(state, taker, "claim" if a_claims and taker == 0 else "pass")
    return state


def test_8_closing_fails_the_other_seat_scores_two_or_three():
    assert _closed_ending(1, False).scores == [0, 2]  # B had a trick
    assert _closed_ending(0, False).scores == [0, 3]  # B never took one
    assert _closed_ending(0, True).scores == [0, 2]  # none at the close, one at the end [D8]
    assert _closed_ending(0, False, a_claims=True).scores == [0, 3]  # a false claim [D12]
    # Schnapsen counts B's tricks at the close: none then is 3 whatever follows.
    assert _closed_ending(0, True, schnapsen=True).scores == [0, 3]


def test_9_the_last_trick_is_worth_ten_closed_or_not_but_not_in_schnapsen():
    for closed in (False, True):
        state = new(ORDER)
        state.set_trump(C("JC").suit)
        arrange(
            state,
            ["AS", "JS"],
            turned="JC" if closed else None,
            stock=["QS", "10S"] if closed else (),
            taken=("AD 10D AH 10H KC KD JD", ""),
            last_taker=0,
        )
        state.tricks = [8, 1]
        if closed:
            act(state, 0, "close")
        assert state.points(0) == 11 + 10 + 11 + 10 + 4 + 4 + 2 + 0  # 52: card points so far
        act(state, 0, "play AS")
        act(state, 1, "play JS")
        assert state.points(0) == 52 + 13 + 10 and state.phase == CLAIMING
        act(state, 0, "claim")
        assert state.deal_log[-1]["reason"] == "claim"
    state = new(ORDER, schnapsen=True)
    arrange(state, ["AS", "JS"], taken=("AD 10D", ""), last_taker=0)
    act(state, 0, "play AS")
    act(state, 1, "play JS")
    assert state.points(0) == 21 + 13


def test_10_no_claim_the_higher_total_wins_one_a_tie_nobody():
    state = new(ORDER)
    arrange(state, ["AS", "JS"], taken=("", ""), last_taker=0)
    state.points = lambda s: (70, 60)[s]  # type: ignore[method-assign]
    act(state, 0, "play AS")
    act(state, 1, "play JS")
    act(state, 0, "pass")
    assert state.scores == [1, 0] and state.deal_log[-1]["reason"] == "more points"
    state = new(ORDER)
    arrange(state, ["AS", "JS"], taken=("", ""), last_taker=0)
    state.points = lambda s: 65  # type: ignore[method-assign]
    act(state, 0, "play AS")
    act(state, 1, "play JS")
    act(state, 0, "pass")
    assert state.scores == [0, 0] and state.deal_log[-1]["reason"] == "tie"
    state = new(ORDER, schnapsen=True)  # Schnapsen: the last trick wins the deal
    arrange(state, ["JS", "AS"], taken=("", ""), last_taker=0)
    act(state, 0, "play JS")
    act(state, 1, "play AS")
    act(state, 1, "pass")
    assert state.scores == [0, 1] and state.deal_log[-1]["reason"] == "last trick"


def test_11_the_match_ends_at_seven():
    state = _claim_state(70, 30, 2)
    state.scores = [5, 6]
    act(state, 0, "claim")  # 2 game points: 7-6
    assert state.over and state.result().winners == (0,) and state.result().scores == (7.0, 6.0)
    assert state.to_act() == ()


def test_12_no_leak_of_the_other_hand_the_stock_or_the_running_points():
    state = new(ORDER)
    leader, follower = state.view(0), state.view(1)
    named = set(follower.cards_named())
    assert not named & set(state.hands[0]) and C("JH") not in named  # the next stock card
    assert not any(k.startswith("deal_points") for k in leader.counters)
    shown = new(ORDER, running_points=True).view(0).counters
    assert shown["deal_points:0"] == 0 and shown["deal_points:1"] == 0


# -- face-down tricks ---------------------------------------------------------------------------


def test_a_view_shows_the_trick_and_the_last_one_never_older_tricks():
    state = new(ORDER)
    act(state, 0, "play JC")
    act(state, 1, "play AC")
    act(state, 1, "play 10D")
    act(state, 0, "play QC")  # trick 2 to seat 1
    view = state.view(0, history=False)
    assert view.zones["last"] == (C("10D"), C("QC"))
    assert not {C("JC"), C("AC")} & set(view.cards_named())  # the first trick lies face down
    act(state, 1, "play JH")
    assert "last" not in state.view(0).zones  # led to the next: the last trick turns over


@pytest.mark.parametrize("seed", range(4))
def test_no_seat_learns_a_face_down_trick_it_did_not_see_played(seed):
    """A seat is told only the cards it saw (its hand, cards played while it watched, the
    turned and shown cards): the conformance leak watch, and a check that its view without
    history names no card of an older trick."""
    state = SPEC.new_match(players=2, options={"max_deals": 2}, seed=seed)
    watch = LeakWatch(state)
    rng = random.Random(seed)
    for _ in random_steps(state, rng):
        watch.observe()
        if state.is_over():
            break
        older = set(state.played[: -2 if not state.current else None])
        for seat in range(2):
            view = state.view(seat, history=False)
            assert not older & set(view.cards_named()), "a face-down trick was shown"
    watch.close()


# -- positions, worlds, bots ---------------------------------------------------------------------


def test_positions_round_trip():
    assert check_positions(SPEC, matches=2) > 0


def test_a_world_keeps_what_the_seat_saw_and_deals_only_unseen_cards():
    state = new(ORDER)
    act(state, 0, "play JC")
    act(state, 1, "play AC")
    act(state, 1, "close")  # the turned JD is face down now, and still known
    for _ in range(3):
        world = SPEC.world_from_view(state.view(0), random.Random(_))
        assert world.view(0) == state.view(0)
        assert not {C("JC"), C("AC")} & set(world.hands[1] + world.stock)
        assert world.trump_card == C("JD") and world.closed_by == 1


def test_the_bots_play_matches_to_the_end():
    for kinds_ in (("heuristic", "random"), ("search", "heuristic")):
        state = SPEC.new_match(players=2, options={"deal": 1}, seed=3)
        bots = [
            make_bot(
                k, "sixty-six", seed=1, **({"time_ms": 0, "worlds": 3} if k == "search" else {})
            )
            for k in kinds_
        ]
        assert play_match(state, bots).reason == "complete"
