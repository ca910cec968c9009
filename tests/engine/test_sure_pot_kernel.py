"""Differential test of the kernel's sure-pot duty (Bestia's rules 3 and 4) against the Python
rules, and of the solver under it against a plain minimax through those rules.

Random Bestia hands are played (seeded) by a player that mostly leads and follows high, so
that seats reach two and three tricks and the sure-pot and secured-pot duties bind often; at
every card play the kernel's legal moves (:func:`~levata.engine.rules.legal_moves`, fed the
tricks won and the cards out of play each seat has not seen) must be the game's
``playable``. On the endings of those hands the solver's value must be a plain minimax
through the Python rules (:func:`~levata.engine.family.tricks.duty_cards`, then
:func:`sure_pot_cards` / :func:`secured_cards` with what the seat to play has not seen).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from levata.bots.search.double_dummy import duty_facts, position
from levata.engine import game
from levata.engine.cardmask import cards_of, mask_of
from levata.engine.cards import Card
from levata.engine.family.tricks import PLAY, duty_cards, trick_taker
from levata.engine.games.bestia import BestiaState
from levata.engine.games.bestia.rules import POT_TRICKS, secured_cards, sure_pot_cards
from levata.engine.rules import TrickRules, legal_moves
from levata.engine.solver import Solver, tricks

SPEC = game("bestia")
#: Hands played for the legality check, and endings (cards left at most) solved both ways.
HANDS, ENDING = 150, 9


def _pick(state: BestiaState, seat: int, rng: random.Random) -> Card:
    """Mostly the highest playable card: seats take tricks in runs, the duties bind."""
    cards = state.playable(seat)
    return (
        max(cards, key=lambda c: (c.suit == state.trump, c.rank))
        if rng.random() < 0.7
        else rng.choice(cards)
    )


def _plays(hands: int = HANDS) -> Iterator[BestiaState]:
    """Every card-play node of ``hands`` seeded one-hand matches (4 and 5 players)."""
    for seed in range(hands):
        state = SPEC.new_match(players=4 + seed % 2, options={"deal": 1}, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            seat = state.to_act()[0]
            if state.phase == PLAY:
                yield state
                card = _pick(state, seat, rng)
                state.apply(seat, next(a for a in state.legal_actions(seat) if a.card == card))
                continue
            legal = state.legal_actions(seat)
            knock = [a for a in legal if a.kind == "knock"]
            state.apply(seat, knock[0] if knock and rng.random() < 0.8 else rng.choice(legal))


def test_kernel_legal_moves_are_the_python_rules_with_the_pot_duties():
    checked = sure = secured = 0
    for state in _plays():
        seat = state.player_to_play()
        pos = position(state)
        facts = duty_facts(state)
        kernel = cards_of(legal_moves(state.rules, pos.hands, pos.leader, pos.trick, **facts), True)
        playable = state.playable(seat)
        assert sorted(kernel) == sorted(playable), (state.seed, seat, pos, facts)
        if len(playable) < len(state.duty_cards(seat)):  # a pot duty narrowed the choice
            if state.tricks[seat] >= POT_TRICKS:
                secured += 1
            else:
                sure += 1
        checked += 1
    assert checked > 2500
    assert sure >= 5 and secured >= 20, (sure, secured)


def _allowed(rules, hands, trick, seat, won, hidden):
    """The Python rules' cards for ``seat``: the trick's duties, then the pot's."""
    allowed = duty_cards(rules, hands[seat], trick)
    if won >= POT_TRICKS:
        return secured_cards(rules, allowed, won)
    unseen = set(hidden).union(*(h for s, h in enumerate(hands) if s != seat))
    return sure_pot_cards(rules, hands[seat], allowed, trick, won, unseen)


def test_kernel_legal_moves_on_random_positions():
    """Random positions (hands of one size, a partial trick, tricks won, cards out of play
    unseen), most of them late in a hand where the duties bind: the kernel agrees."""
    rng = random.Random(29)
    deck = list(SPEC.new_match(players=4, seed=0).deck)
    sure = secured = 0
    for i in range(5000):
        n = rng.choice((2, 3, 4, 5))
        left = rng.choice((1, 2, 2, 3, 3, 4, 5))
        trump = rng.choice((None, *{c.suit for c in deck}))
        rules = TrickRules(n, trump, must_trump=True, head=True, overtrump=True, sure_pot=True)
        cards = rng.sample(deck, n * left + rng.randrange(8))
        hands = [sorted(cards[s * left : (s + 1) * left]) for s in range(n)]
        out = cards[n * left :]
        leader, count = rng.randrange(n), rng.randrange(n)
        trick = []
        for k in range(count):
            s = (leader + k) % n
            card = rng.choice(_allowed(rules, hands, trick, s, 0, out))
            hands[s].remove(card)
            trick.append(card)
        seat = (leader + count) % n
        won = [0] * n
        for _ in range(5 - left):  # the seat to play took half of them, to meet the duties
            won[seat if rng.random() < 0.5 else rng.randrange(n)] += 1
        hidden = [rng.sample(out, rng.randrange(len(out) + 1)) for _ in range(n)]
        want = _allowed(rules, hands, trick, seat, won[seat], hidden[seat])
        masks = [mask_of(h) for h in hands]
        got = legal_moves(
            rules, masks, leader, [c.index for c in trick], won, [mask_of(h) for h in hidden]
        )
        assert cards_of(got, True) == sorted(want), (i, hands, trick, won, hidden)
        if len(want) < len(duty_cards(rules, hands[seat], trick)):
            if won[seat] >= POT_TRICKS:
                secured += 1
            else:
                sure += 1
    assert sure >= 150 and secured >= 150, (sure, secured)


def _minimax(
    rules: TrickRules,
    hands: list[list[Card]],
    leader: int,
    trick: list[Card],
    won: list[int],
    hidden: list[set[Card]],
    me: int,
) -> int:
    """The tricks ``me`` takes from here, every other seat against it, by the Python rules."""
    n = rules.seats
    seat = (leader + len(trick)) % n
    if not hands[seat]:
        return 0
    allowed = duty_cards(rules, hands[seat], trick)
    if won[seat] >= POT_TRICKS:
        allowed = secured_cards(rules, allowed, won[seat])
    else:
        unseen = set(hidden[seat]).union(*(hands[s] for s in range(n) if s != seat))
        allowed = sure_pot_cards(rules, hands[seat], allowed, trick, won[seat], unseen)
    values = []
    for card in allowed:
        hands[seat].remove(card)
        now = [*trick, card]
        if len(now) == n:
            taker = trick_taker(rules, [((leader + i) % n, c) for i, c in enumerate(now)])
            won[taker] += 1
            v = (taker == me) + _minimax(rules, hands, taker, [], won, hidden, me)
            won[taker] -= 1
        else:
            v = _minimax(rules, hands, leader, now, won, hidden, me)
        hands[seat].append(card)
        values.append(v)
    return max(values) if seat == me else min(values)


def test_solver_value_is_plain_minimax_under_the_pot_duties():
    """Endings of at most :data:`ENDING` cards: the solver (every search feature on, and
    with merging and the table off) against minimax, for the seat to play."""
    compared = differs = 0
    for state in _plays(90):
        pos = position(state)
        if pos.cards_left > ENDING or (not pos.trick and pos.cards_left < 2 * state.rules.seats):
            continue
        facts = duty_facts(state)
        order = state.in_play
        me = order.index(state.player_to_play())
        hands = [sorted(state.hands[s]) for s in order]
        trick = list(state.trick)
        hidden = [set(cards_of(h, True)) for h in facts["hidden"]]
        want = _minimax(state.rules, hands, pos.leader, trick, list(facts["won"]), hidden, me)
        for solver in (Solver(state.rules), Solver(state.rules, merge=False, transposition=False)):
            got = solver.solve(pos.hands, pos.leader, pos.trick, tricks(me), **facts)
            assert got == want, (state.seed, pos, facts)
        plain = Solver(
            TrickRules(state.rules.seats, state.trump, must_trump=True, head=True, overtrump=True)
        )
        differs += plain.solve(pos.hands, pos.leader, pos.trick, tricks(me)) != want
        compared += 1
    assert compared > 500
    assert differs > 0  # the duties change values here: without them the solver is wrong
