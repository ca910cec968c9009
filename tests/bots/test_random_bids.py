"""The random-bid baseline: calls at random, cards as the game's heuristic plays them."""

from __future__ import annotations

from levata.bots import make_bot
from levata.bots.random_bids import RandomBidsBot
from levata.engine import actions, game


def test_bids_at_random_and_plays_its_cards_as_the_heuristic():
    spec = game("whist")
    bids, plays = set(), 0
    for seed in range(12):
        state = spec.new_match(players=4, options={"deal_size": 5}, seed=seed)
        bot, heuristic = RandomBidsBot("whist", seed), make_bot("heuristic", "whist", seed)
        while not state.is_over():
            seat = state.to_act()[0]
            view, legal = state.view(seat), state.legal_actions(seat)
            action = bot.act(view, legal)
            if action.kind == actions.PLAY:
                assert action == heuristic.act(view, legal)
                plays += 1
            else:
                bids.add(action.number)
            state.apply(seat, action)
    assert plays and bids == set(range(6))  # every number, not the count alone
