"""Differential test: Whist's Python card-play rules and the Cython kernel agree.

The engine plays Whist with ``levata.engine.trick`` (readable rules); search uses the
``rules`` kernel. Over thousands of random games, at every card played, both give the same
legal cards and, at every trick's end, the same winner.
"""

from __future__ import annotations

import random

from levata.engine import game
from levata.engine.cardmask import cards_of, mask_of
from levata.engine.rules import TrickRules, legal_cards, trick_winner

GAMES = 2000


def test_python_rules_and_kernel_agree_on_thousands_of_games():
    spec = game("whist")
    rng = random.Random(7)
    checked_plays = checked_tricks = 0
    for g in range(GAMES):
        players = 3 + g % 4
        size = 1 + g % 8
        state = spec.new_match(players=players, options={"deal_size": size}, seed=g)
        rules = TrickRules(players, state.trump, must_trump=True)
        while not state.is_over():
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            if state.phase == "play":
                trick = [c.index for _, c in state.current]
                kernel = legal_cards(rules, mask_of(state.hands[seat]), trick)
                assert cards_of(kernel) == sorted(a.card for a in legal), (g, seat, trick)
                checked_plays += 1
            action = rng.choice(legal)
            if state.phase == "play" and len(state.current) == players - 1:
                trick = [c.index for _, c in state.current] + [action.card.index]
                leader = state.leader
                state.apply(seat, action)
                assert trick_winner(rules, leader, trick) == state.leader
                checked_tricks += 1
                continue
            state.apply(seat, action)
    assert checked_plays > 20_000 and checked_tricks > 5_000
