"""Differential test: every trick game's Python rules and the Cython kernel agree.

The engine plays a trick game with the readable rules of :mod:`levata.engine.family.tricks`;
search uses the ``tricks`` kernel. Both read the one :class:`TrickRules` the game declares.
Every registered game built on :class:`TrickGame` is found from the registry (registering a
trick game enrols it, as with the conformance suite) and played at random: at every card
played both give the same legal cards, and at every trick's end the same winner.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from levata.engine import GameSpec, all_games
from levata.engine.card_orders import trick_rules
from levata.engine.cardmask import cards_of, mask_of
from levata.engine.family import tricks as family
from levata.engine.family.tricks import PLAY, TrickGame
from levata.engine.rules import legal_cards, trick_winner
from levata.engine.testing import option_variants

#: Checked card plays and tricks each game must reach (the old Whist-only test's bar).
PLAYS, TRICKS = 20_000, 5_000
#: Matches played at most per game, to reach the bar.
MAX_MATCHES = 2_000


def trick_games() -> list[GameSpec]:
    """Registered games whose matches are built on the trick base (no names listed)."""
    found = []
    for spec in all_games():
        players = spec.players[0]
        state = spec.new_match(players=players, options=dict(spec.short_options), seed=0)
        if isinstance(state, TrickGame):
            found.append(spec)
    return found


GAMES = trick_games()


@dataclass
class Checked:
    plays: int = 0
    tricks: int = 0


def check_match(spec: GameSpec, i: int, seed: int, tally: Checked) -> None:
    """Play match ``i`` at random, checking every card play and trick against the kernel."""
    players = spec.players[i % len(spec.players)]
    state = spec.new_match(players=players, options=option_variants(spec, i), seed=seed)
    assert isinstance(state, TrickGame)
    rng = random.Random(seed)
    italian = state.deck[0].suit.italian
    while not state.is_over():
        seat = rng.choice(state.to_act())
        legal = state.legal_actions(seat)
        if state.phase != PLAY or seat != state.player_to_play():
            state.apply(seat, rng.choice(legal))
            continue
        rules, leader = state.rules, state.leader
        order = state.seats_in_play()  # seats that sit the deal out are not the kernel's
        k_leader = leader if order is None else order.index(leader)
        trick = [c.index for _, c in state.current]
        duties = state.duty_cards(seat)
        kernel = cards_of(legal_cards(rules, mask_of(state.hands[seat]), trick), italian)
        where = (spec.name, players, seed, seat, trick)
        assert kernel == sorted(duties), where
        assert set(state.playable(seat)) <= set(duties), where
        tally.plays += 1
        since = state.event_count()
        state.apply(seat, rng.choice(legal))
        for ev in state.events(since):
            if ev.kind == PLAY and ev.seat == seat:
                assert ev.cards[0] in duties, where
            if ev.kind == "trick":
                cards = [c.index for c in ev.cards]
                won = trick_winner(rules, k_leader, cards)
                assert (won if order is None else order[won]) == ev.seat, (*where, cards)
                tally.tricks += 1


def check_game(spec: GameSpec) -> Checked:
    tally = Checked()
    for i in range(MAX_MATCHES):
        if tally.plays >= PLAYS and tally.tricks >= TRICKS:
            break
        check_match(spec, i, seed=i, tally=tally)
    return tally


def test_the_whist_family_is_enrolled():
    assert GAMES, "no registered game is built on the trick base"


@pytest.mark.parametrize("spec", GAMES, ids=[g.name for g in GAMES])
def test_python_rules_and_kernel_agree(spec):
    tally = check_game(spec)
    assert tally.plays >= PLAYS and tally.tricks >= TRICKS


@pytest.mark.parametrize("spec", GAMES, ids=[g.name for g in GAMES])
def test_a_python_rule_that_drifts_is_caught(spec, monkeypatch):
    """The check cannot pass vacuously: a Python side that forgets every duty disagrees."""
    monkeypatch.setattr(family, "duty_cards", lambda rules, hand, trick: list(hand))
    with pytest.raises(AssertionError):
        check_game(spec)


@pytest.mark.parametrize("spec", GAMES, ids=[g.name for g in GAMES])
def test_a_wrong_trick_winner_is_caught(spec, monkeypatch):
    """A Python side that gives every trick to its leader disagrees with the kernel."""
    monkeypatch.setattr(family, "trick_taker", lambda rules, plays: plays[0][0])
    with pytest.raises(AssertionError):
        check_game(spec)


def _duty_sets():
    """Every combination of duties the kernel accepts, plain and with special card layouts."""
    from levata.engine.cards import Suit
    from levata.engine.rules import TRUMP_SUIT, TrickRules, rank_order_layout

    combos = [
        dict(follow=f, must_trump=m, head=h, overtrump=o)
        for f in (False, True)
        for m in (False, True)
        for h in (False, True)
        for o in (False, True)
        if f or not (m or h)
        if m or not o
    ]
    huzur = rank_order_layout([14, 10, 13, 12, 11, 9, 8, 7])
    for duties in combos:
        for seats in (2, 3, 4):
            for trump in (None, Suit.HEARTS):
                yield TrickRules(seats, trump, **duties), False
                yield TrickRules(seats, trump, layout=huzur, **duties), False
            yield trick_rules("filcau", 1, seats, teams=None, **duties), False
            yield trick_rules("sixty-six", trump=3, seats=seats, **duties), False
            yield TrickRules(seats, Suit.DENARI, **duties), True
    assert TRUMP_SUIT == 4


def test_python_duties_follow_the_kernel_for_every_duty_and_layout():
    """The duties no registered game uses yet (head, overtrump, layouts) agree too."""
    from levata.engine.cards import french_deck, italian_deck

    rng = random.Random(5)
    checked = 0
    for rules, italian in _duty_sets():
        if rules.layout is not None:
            deck = [c for c in french_deck() if c.index in rules.layout]
        else:
            deck = list(italian_deck() if italian else french_deck(lowest=7))
        n = rules.seats
        for _ in range(60):
            cards = rng.sample(deck, min(len(deck), 5 * n))
            hands = [cards[s::n] for s in range(n)]
            leader = rng.randrange(n)
            trick: list = []
            for k in range(n):
                seat = (leader + k) % n
                kernel = legal_cards(rules, mask_of(hands[seat]), [c.index for c in trick])
                python = family.duty_cards(rules, hands[seat], trick)
                assert cards_of(kernel, italian) == sorted(python), (rules, hands[seat], trick)
                card = rng.choice(python)
                hands[seat].remove(card)
                trick.append(card)
                checked += 1
            plays = [((leader + k) % n, c) for k, c in enumerate(trick)]
            assert family.trick_taker(rules, plays) == trick_winner(
                rules, leader, [c.index for c in trick]
            )
    assert checked > 10_000
