"""Banking worlds of a match read from a position: no history of the session before it, only the
view. Every phase keeps the ``world_from_view`` contract; the worlds cover where every card
truly is; what the view says of the session's plan (the Surpriza turned up, the Perechiuțe
shown and asked, the Final Exchanges made, the Gunoi) places cards exactly as far as the rules
allow; and where the view says nothing, the cards are dealt uniformly."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest
from banking_positions import SPEC, act, new, to_phase

from levata.engine import Card, parse_cards
from levata.engine.games.banking import SESSION, BankingState
from levata.engine.games.banking import worlds as banking_worlds
from levata.engine.testing import check_world_from_view


def _read_back(state: BankingState, seed: int = 0) -> BankingState:
    again = SPEC.from_position(state.position(), seed=seed)
    assert isinstance(again, BankingState)
    return again


def _place(state: BankingState, card: Card) -> int | None:
    """Where ``card`` lies: a seat, ``N`` the face-down Surpriza, ``N + 1`` the Gunoi; None
    once it is played."""
    for s, hand in enumerate(state.hands):
        if card in hand:
            return s
    n = state.players
    return n if card in state.kitty else n + 1 if card in state.gunoi else None


def _places(state: BankingState, seat: int, worlds: int = 200) -> dict[Card, set[int]]:
    """Every place each card lies in over ``worlds`` worlds of ``seat``'s view."""
    view, seen = state.view(seat), defaultdict(set)
    for k in range(worlds):
        world = SPEC.world_from_view(view, random.Random(k))
        for c in world.deck:
            p = _place(world, c)
            if p is not None:
                seen[c].add(p)
    return seen


def _random_positions(players: int, seed: int, every: int = 2):
    """Positions of a random match with credits to exchange (every ``every``-th step)."""
    previous = {3: "4,-1,-3", 4: "3,-1,1,-3"}[players]
    state = SPEC.new_match(
        players=players, options={"previous": previous, "max_sessions": 2}, seed=seed
    )
    rng = random.Random(seed)
    step = 0
    while not state.is_over():
        if step % every == 0:
            yield state
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        step += 1


def test_the_phase_order_is_the_matchs():
    assert SESSION[SESSION.index("final") + 1 :] == banking_worlds._AFTER_FINAL


@pytest.mark.parametrize("players", [3, 4])
def test_every_phase_keeps_the_contract_and_covers_the_truth(players):
    phases: Counter[str] = Counter()
    for seed in range(2):
        for k, state in enumerate(_random_positions(players, seed, every=5)):
            again = _read_back(state, seed=k)
            for seat in range(players):
                check_world_from_view(again, seat, random.Random(seat), moves=4)
                phases[again.phase] += 1
                if k % 5 == 0:  # the worlds hold every card where it truly is, somewhere
                    seen = _places(again, seat, worlds=100)
                    missed = [c for c in again.deck if _place(again, c) not in seen[c]]
                    assert not [c for c in missed if _place(again, c) is not None], missed
    assert {"exchange", "declare", "final", "refuse_b", "gunoi", "play"} <= set(phases)


def _perechiuta(hands: dict[int, str], kitty: str, round_points: str) -> BankingState:
    """K = seat 2 (dealer 1), trump clubs, every Perechiuța shown, to the first request."""
    state = new(dealer=1, hands=hands, kitty=kitty, round_points=round_points)
    to_phase(state, "declare", "C")
    while state.phase == "declare":
        seat = state.to_act()[0]
        act(state, f"declare {state.quads(seat)[0]}" if state.quads(seat) else "pass")
    assert state.phase == "perechiuta"
    return state


def test_a_perechiuta_and_the_surpriza_before_the_position():
    """K (seat 2) shows its 7s and asks seat 1, offering a Surpriza card: to seat 0, any of
    K's non-trump 7s and Surpriza cards may now be with seat 1, never a trump, never seat 3."""
    state = _perechiuta({2: "7S 7H 7C 7D"}, kitty="QD 9S 8H 2C", round_points="5,5,-4,-6")
    assert state.asks == [(2, 1, 7)]
    act(state, "offer QD")
    again = _read_back(state)
    check_world_from_view(again, 0, random.Random(0), moves=6)
    seen = _places(again, 0)
    for c in parse_cards("7C 2C"):  # trumps: never offered, never given back
        assert seen[c] == {2}, c
    for c in parse_cards("QD 9S 8H 7S 7H 7D"):
        assert seen[c] == {1, 2}, c
    assert _place(again, Card.parse("QD")) == 1  # the truth is among them
    # Seat 3 saw nothing either: the same places.
    assert _places(again, 3, worlds=100)[Card.parse("9S")] == {1, 2}


def test_declared_and_turned_cards_are_where_the_view_says_before_any_request():
    state = _perechiuta({2: "7S 7H 7C 7D"}, kitty="QD 9S 8H 2C", round_points="5,5,-4,-6")
    again = _read_back(state)  # the request not made yet
    seen = _places(again, 0, worlds=60)
    for c in parse_cards("QD 9S 8H 2C 7S 7H 7C 7D"):
        assert seen[c] == {2}, c
    act(again, "offer QD")  # made after the position: its events tell, not the plan
    before = banking_worlds._before_position(again, again.view(0))
    assert before.turned and before.declared == [(2, 7)] and before.asks == []
    assert _places(again, 0, worlds=60)[Card.parse("8H")] == {1, 2}


def test_a_protected_surpriza_card_never_leaves_the_declarant():
    """Seat 1 shows its 2s and asks K (seat 0), the round's lone leader: K answers with a
    card of its own, never a Surpriza card it still holds (scenario 9 of the rules)."""
    state = new(
        hands={0: "9D", 1: "2S 2H 2C 2D 5D"},
        kitty="QD JD",
        avoid={0: lambda c: c.suit.letter == "D"},
        round_points="3,0,0,0",
    )
    to_phase(state, "declare", "C")
    while state.phase == "declare":
        seat = state.to_act()[0]
        act(state, "declare 2" if seat == 1 and state.quads(1) else "pass")
    assert state.asks == [(1, 0, 2)]
    act(state, "offer 5D")
    assert Card.parse("9D") in state.hands[1]
    again = _read_back(state)
    for seat in (2, 3):
        seen = _places(again, seat, worlds=120)
        assert seen[Card.parse("QD")] == seen[Card.parse("JD")] == {0}
        assert seen[Card.parse("2S")] == seen[Card.parse("2D")] == {0, 1}  # one may be K's
        assert seen[Card.parse("2C")] == {1}  # a trump stays
    k_view = _places(again, 0, worlds=40)  # K holds none of the 2s: all still seat 1's
    assert all(k_view[c] == {1} for c in parse_cards("2S 2H 2C 2D"))


def test_a_final_exchange_before_the_position_moves_cards_one_participant_on():
    """Seat 0 has 3 credits: seats 1 (K), 2 and 3 pass one card each to the next."""
    state = new(dealer=0, previous="3,-1,-1,-1", kitty="QD 9S 8H 2C")
    assert state.finals == [0] and state.declarant == 1
    to_phase(state, "final", "C")
    for s in (1, 2, 3):
        act(state, f"give {sorted(state.hands[s])[0]}", seat=s)
    assert state.phase == "refuse_b"
    again = _read_back(state)
    seen = _places(again, 0)
    for c in parse_cards("QD 9S 8H 2C"):  # K gives to seat 2; seat 3 gives K a card
        assert seen[c] == {1, 2}, c
    assert all(_place(again, c) in seen[c] for c in again.deck if _place(again, c) != 0)


def test_the_gunoi_from_a_position():
    """Seat 0's worlds bury any card K may hold; K's worlds keep its own Gunoi."""
    state = new(dealer=3, hands={0: "AS"}, kitty="KD QD JD 10D")
    to_phase(state, "gunoi", "C")
    for _ in range(2):
        act(state, f"discard {sorted(state.hands[0])[0]}")
    again = _read_back(state)
    check_world_from_view(again, 2, random.Random(1), moves=8)
    seen = _places(again, 2)
    for c in parse_cards("KD QD JD 10D"):
        assert seen[c] == {0, 5}, c  # in K's hand, or buried (5: the Gunoi of 4 seats)
    assert seen[Card.parse("AS")] == {0, 1, 3, 5}  # K's at the deal: no view says so
    worlds = [SPEC.world_from_view(again.view(0), random.Random(k)) for k in range(5)]
    assert all(w.gunoi == again.gunoi for w in worlds)


def test_before_the_surpriza_every_unseen_card_is_dealt_uniformly():
    """No history and no plan yet: each unseen card is in each other hand or the Surpriza as
    often as the sizes say (12, 12, 12 and 4 of 40 places)."""
    state = SPEC.new_match(players=4, options={"dealer": 3}, seed=8)
    again = _read_back(state)
    view, worlds = again.view(0), 400
    count: Counter[tuple[Card, int]] = Counter()
    for k in range(worlds):
        world = SPEC.world_from_view(view, random.Random(k))
        for c in world.deck:
            if c not in view.hand:
                count[c, _place(world, c)] += 1  # type: ignore[index]
    unseen = [c for c in again.deck if c not in view.hand]
    for c in unseen:
        for place, share in ((1, 0.3), (2, 0.3), (3, 0.3), (4, 0.1)):
            expected = worlds * share
            sd = (worlds * share * (1 - share)) ** 0.5
            assert abs(count[c, place] - expected) < 5 * sd, (c, place, count[c, place])
