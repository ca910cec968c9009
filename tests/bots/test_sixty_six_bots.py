"""Sixty-six's bots: the memory the heuristic counts with, the exact endgame, the search's
claims and budget."""

from __future__ import annotations

import random
import time

import pytest

from levata.bots.clock import asked
from levata.bots.heuristic.sixty_six import HeuristicBot
from levata.bots.strategy.sixty_six import (
    CLAIM,
    CLOSE,
    MARRY,
    Deal,
    SearchBot,
    deal_from_view,
    deal_from_world,
    move_of,
    next_choice,
    plans_of,
    solve,
)
from levata.engine import Action, game
from levata.engine.testing import random_steps

SPEC = game("sixty-six")


def test_the_memory_counts_both_seats_points_from_the_events_alone():
    """What a seat reconstructs from its view (the trick zones show only the last trick) is
    what the engine counts, for both seats, at every step of random matches."""
    checked = 0
    for seed in range(3):
        state = SPEC.new_match(players=2, options={"max_deals": 2}, seed=seed)
        for _ in random_steps(state, random.Random(seed)):
            if state.is_over() or state.phase != "play":
                continue
            for seat in range(2):
                d = deal_from_view(state.view(seat))
                truth = deal_from_world(state)
                assert [d.points(s) for s in range(2)] == [state.points(s) for s in range(2)]
                assert d.played == truth.played and d.stock_count() == truth.stock_count()
                assert d.unseen(seat) == truth.unseen(seat)
                checked += 1
    assert checked > 50


def test_the_exact_endgame_wins_what_can_be_won():
    # Trumps are clubs (slot 0). Seat 0 leads with A♣ 10♥ against K♣ A♥: leading the ace of
    # trumps draws the king and the 10♥ then loses to the A♥; leading the 10♥ loses it to
    # the A♥ and the K♣ is then led into the A♣. Seat 0 has 50, seat 1 40 (two tricks each).
    d = Deal([[14, 32 + 10], [13, 32 + 14]], [], -1, 0, leader=0, last_taker=0)
    d.pts, d.tricks = [50, 40], [2, 2]
    after_ace = d.copy()
    after_ace.apply(14)
    after_ten = d.copy()
    after_ten.apply(32 + 10)
    # A♣ then K♣: 50 + 15 = 65, then 10♥ to the A♥: seat 1 has 40 + 21 + 10 = 71 and wins 1.
    assert solve(after_ace, 0) == -1
    # 10♥ to the A♥ (seat 1: 61), K♣ led into A♣: seat 0 65 + 10 = 75, claims: seat 1 has
    # 61 points and tricks, so 1 game point.
    assert solve(after_ten, 0) == 1
    assert solve(d, 0) == 1


def _minimax(d: Deal, seat: int) -> float:
    """The exact ending by brute force over copies of the deal (what :func:`solve` computes
    faster): every card tried, a seat on lead with 66 claims."""
    if d.over:
        return d.value(seat)
    a = d.actor()
    if d.trick < 0 and d.last_taker == a and d.points(a) >= 66:
        d = d.copy()
        d.apply(CLAIM)
        return d.value(seat)
    values = []
    for m in [m for m in d.legal() if m < MARRY]:
        child = d.copy()
        child.apply(m)
        values.append(_minimax(child, seat))
    return max(values) if a == seat else min(values)


@pytest.mark.parametrize("schnapsen", [False, True])
def test_the_fast_ending_search_agrees_with_brute_force(schnapsen):
    """Strict endings met in random play (closed or exhausted stock, mid-trick too) and
    closings at the first lead: the memo and cutoffs change nothing."""
    endings = []
    for seed in range(10):
        state = SPEC.new_match(players=2, options={"deal": 1, "schnapsen": schnapsen}, seed=seed)
        first = deal_from_world(state)
        first.apply(CLOSE)
        endings.append(first)
        for _ in random_steps(state, random.Random(seed)):
            if not state.is_over() and state.phase == "play":
                d = deal_from_world(state)
                if d.strict() and len(d.hands[0]) <= 4:
                    endings.append(d)
    assert len(endings) > 40
    for d in endings:
        assert solve(d, 0) == _minimax(d, 0) == -solve(d, 1)


def test_the_search_claims_with_66_and_stays_in_its_budget():
    bot = SearchBot(seed=2, time_ms=150, min_worlds=2, worlds=10_000)  # the clock stops it
    times = []
    state = SPEC.new_match(players=2, options={"deal": 1}, seed=5)
    other = HeuristicBot()
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        if seat == 0:
            start = time.perf_counter()
            action = bot.act(state.view(seat), legal)
            times.append(time.perf_counter() - start)
            if Action("claim") in legal and state.points(0) >= 66:
                assert action == Action("claim")
        else:
            action = other.act(state.view(seat), legal)
        state.apply(seat, action)
    assert times and sorted(times)[len(times) // 2] < 1.0  # a loaded machine: a loose bound


def test_a_closed_ending_is_solved_exactly_where_the_mode_says_so():
    """``presumed-exact`` plays the open stock from each seat's own cards but solves a closed
    stock's ending exactly, as plain PIMC does; ``presumed`` plays it by the policy."""
    exact = SearchBot(seed=1, mode="presumed-exact")
    policy = SearchBot(seed=1, mode="presumed")
    differ = 0
    for seed in range(12):
        d = deal_from_world(SPEC.new_match(players=2, options={"deal": 1}, seed=seed))
        d.apply(CLOSE)
        assert exact._playout(d.copy(), 0) == solve(d, 0)
        differ += policy._playout(d.copy(), 0) != solve(d, 0)
    assert differ  # the policy is not the solver


def test_after_a_close_the_card_led_is_one_choice_for_every_world():
    """With ``plans`` a close is searched as a close followed by each card the seat could
    lead after it (each valued over every world), and the bot plays legally."""
    state = SPEC.new_match(players=2, options={"deal": 1, "first": 0}, seed=3)
    view, legal = state.view(0), state.legal_actions(0)
    assert Action("close") in legal
    known = deal_from_view(view)
    plans = plans_of(known, [move_of(a) for a in legal])
    assert sorted(p[1] for p in plans if p[0] == CLOSE) == sorted(known.hands[0])
    assert all(len(p) == 1 for p in plans if p[0] != CLOSE)
    bot = SearchBot(seed=4, time_ms=0, worlds=12, plans=1, mode="plain")
    assert bot.act(view, legal) in legal


def test_postponed_makes_our_next_choice_once_for_the_worlds_that_look_alike():
    """``postponed`` (EPIMC): in a closed ending our next card is one choice for the worlds
    whose play we would see alike; each world's own best (plain PIMC's strategy fusion)
    never values a move lower, and here it values some higher. Same seed: same worlds."""
    state = SPEC.new_match(players=2, options={"deal": 1, "first": 0}, seed=4)
    state.apply(0, Action("close"))
    view, legal = state.view(0), state.legal_actions(0)
    fused = SearchBot(seed=5, time_ms=0, worlds=16, min_worlds=16, mode="presumed-exact")
    postponed = SearchBot(seed=5, time_ms=0, worlds=16, min_worlds=16, mode="postponed")
    assert fused.act(view, legal) in legal and postponed.act(view, legal) in legal
    assert postponed.last_values.keys() == fused.last_values.keys() == set(map(move_of, legal))
    lower = [m for m, v in postponed.last_values.items() if v < fused.last_values[m] - 1e-9]
    assert all(v <= fused.last_values[m] + 1e-9 for m, v in postponed.last_values.items())
    assert lower


def test_next_choice_follows_the_other_seats_best_cards_to_ours():
    """In one world the other seat's moves are its exact best; ours are each valued."""
    d = deal_from_world(SPEC.new_match(players=2, options={"deal": 1, "first": 0}, seed=3))
    d.apply(CLOSE)
    d.apply(d.hands[0][0])
    path, choices = next_choice(d, 0)
    after = d.copy()
    for m in path:
        assert m in after.legal()
        after.apply(m)
    assert after.over or (after.actor() == 0 and set(choices) <= set(after.legal()))
    assert max(choices.values()) == solve(d, 0)  # its best reply, then our best card


def test_presumed_replies_and_a_late_request():
    """``replies``: the other seat's answer is judged over deals it cannot tell apart (the
    bot still plays legally); a request that waited out its budget searches ``min_worlds``."""
    state = SPEC.new_match(players=2, options={"deal": 1, "first": 0}, seed=6)
    view, legal = state.view(0), state.legal_actions(0)
    bot = SearchBot(seed=2, time_ms=0, worlds=3, replies=2)
    assert bot.act(view, legal) in legal and bot.last_worlds == 3
    hurried = SearchBot(seed=2, time_ms=300, worlds=500)
    with asked(time.perf_counter() - 0.3):
        hurried.act(view, legal)
    assert hurried.last_worlds == hurried.min_worlds
