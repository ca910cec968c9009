"""The three-hand means of the solver (issue 13) change no value.

Every search means added for three hands has a switch; each test compares the solver with
all of them on against the solver with all of them off *and* the winning-ranks table off
(the plain relative-rank table, itself checked against plain minimax in ``test_solver.py``)
on random 3- and 4-hand deals of the 52-card deck, larger than minimax can check: trick
starts and mid-trick roots, the tricks objective of one seat or two, best_cards, and one
solver kept warm across many deals (as PIMC keeps it across worlds).
"""

from __future__ import annotations

import random

import pytest

from levata.engine.rules import TrickRules, legal_cards, trick_winner
from levata.engine.solver import Solver, tricks

#: The switches of the three-hand means, each on by default.
MEANS = ("fast_probe", "suit_buckets")
PLAIN = {"winning_ranks": False, **{m: False for m in MEANS}}


def random_deal(rng: random.Random, seats: int, size: int, rules: TrickRules | None = None):
    """Rules, hands (masks), leader and a trick in progress of a random deal from 52."""
    if rules is None:
        duties = rng.choice([{}, {"must_trump": True}, {"must_trump": True}])
        rules = TrickRules(seats, rng.choice([None, 0, 1, 2, 3, 3]), **duties)
    deck = [16 * s + r for s in range(4) for r in range(2, 15)]
    rng.shuffle(deck)
    hands = [set(deck[size * i : size * i + size]) for i in range(seats)]
    leader = rng.randrange(seats)
    trick: list[int] = []
    # a few random legal plays, so that roots sit mid-trick and after finished tricks
    for _ in range(rng.randrange(2 * seats)):
        seat = (leader + len(trick)) % seats
        mask = sum(1 << c for c in hands[seat])
        legal = [c for c in range(64) if legal_cards(rules, mask, trick) >> c & 1]
        card = rng.choice(legal)
        hands[seat].discard(card)
        trick.append(card)
        if len(trick) == seats:
            leader = trick_winner(rules, leader, trick)
            trick = []
    return rules, [sum(1 << c for c in h) for h in hands], leader, trick


def objective_for(rng: random.Random, seats: int, leader: int):
    if seats == 4 and rng.random() < 0.5:
        return tricks((leader, (leader + 2) % 4))
    return tricks(rng.randrange(seats))


@pytest.mark.parametrize("seats", [3, 4])
def test_three_hand_means_change_no_value(seats):
    rng = random.Random(1300 + seats)
    sizes = [6, 7, 8, 9, 10] if seats == 3 else [5, 6, 7, 8]
    for i in range(400):
        rules, hands, leader, trick = random_deal(rng, seats, rng.choice(sizes))
        objective = objective_for(rng, seats, leader)
        want = Solver(rules, **PLAIN).solve(hands, leader, trick, objective)
        options = {m: rng.random() < 0.5 for m in MEANS} if i % 4 == 0 else {}
        got = Solver(rules, **options).solve(hands, leader, trick, objective)
        assert got == want, (i, rules, hands, leader, trick, objective, options)


def test_best_cards_on_three_hands():
    rng = random.Random(77)
    for _ in range(60):
        rules, hands, leader, trick = random_deal(rng, 3, rng.choice([6, 7, 8]))
        seat = (leader + len(trick)) % 3
        objective = tricks(rng.randrange(3))
        want = Solver(rules, **PLAIN).best_cards(hands, leader, trick, seat, objective)
        assert Solver(rules).best_cards(hands, leader, trick, seat, objective) == want


def test_a_warm_solver_across_deals():
    """One small solver over many deals of one rules value: entries from earlier deals
    (and the ring overwriting them) must never change a value."""
    rng = random.Random(5)
    rules = TrickRules(3, 2, must_trump=True)
    warm = Solver(rules, tt_bits=12)
    for _ in range(200):
        _, hands, leader, trick = random_deal(rng, 3, rng.choice([7, 8, 9]), rules)
        objective = tricks(rng.randrange(3))
        want = Solver(rules, **PLAIN).solve(hands, leader, trick, objective)
        assert warm.solve(hands, leader, trick, objective) == want


def test_a_node_limit_stops_the_search_and_leaves_the_table_sound():
    """``max_nodes``: a search that runs out raises SearchLimit; whatever it stored before
    stopping is proven, so the same solver then solves exactly."""
    from levata.engine.solver import SearchLimit

    rng = random.Random(21)
    stopped = 0
    for _ in range(40):
        rules, hands, leader, trick = random_deal(rng, 3, rng.choice([8, 9, 10]))
        seat = (leader + len(trick)) % 3
        objective = tricks(rng.randrange(3))
        solver = Solver(rules)
        limit = rng.choice([1, 50, 500, 5000])
        try:
            solver.best_cards(hands, leader, trick, seat, objective, max_nodes=limit)
        except SearchLimit:
            stopped += 1
            assert solver.nodes <= limit + 1
        try:
            solver.solve(hands, leader, trick, objective, max_nodes=limit)
        except SearchLimit:
            stopped += 1
        want = Solver(rules, **PLAIN).best_cards(hands, leader, trick, seat, objective)
        assert solver.best_cards(hands, leader, trick, seat, objective) == want
        assert solver.solve(hands, leader, trick, objective) == Solver(rules, **PLAIN).solve(
            hands, leader, trick, objective
        )
    assert stopped > 20
