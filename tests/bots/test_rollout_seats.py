"""pimc's rollouts number the kernel's seats by the seats in play (Bestia's folded seats sit
the hand out): a card that ends the trick credits it to the seat that truly takes it."""

from __future__ import annotations

import random

from levata.bots.search.double_dummy import kernel_seat, position
from levata.bots.search.pimc import rollout_values
from levata.engine import game
from levata.engine.solver import tricks


def test_a_rollout_credits_the_last_trick_to_its_taker_among_the_seats_in_play():
    spec = game("bestia")
    checked = 0
    for seed in range(400):
        state = spec.new_match(players=5, options={"deal": 1}, seed=seed)
        rng = random.Random(seed)
        while not state.is_over() and checked < 12:
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            order = state.seats_in_play()
            last_card = (
                state.phase == "play"
                and order is not None
                and len(state.trick) == len(order) - 1
                and len(state.hands[seat]) == 1
                and order.index(state.leader) != state.leader  # numbering differs
            )
            if last_card:
                hands, _, trick = position(state)
                me = kernel_seat(state, seat)
                values = rollout_values(state, seat, tricks(me), hands, trick, 4, 1)
                after = state.clone()
                after.apply(seat, legal[0])
                taker = [e for e in after.events() if e.kind == "trick"][-1].seat
                assert list(values.values()) == [1.0 if taker == seat else 0.0], (seed, taker)
                checked += 1
            state.apply(seat, rng.choice(legal))
        if checked >= 12:
            break
    assert checked >= 12
