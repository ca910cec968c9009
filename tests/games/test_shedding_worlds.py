"""``world_from_view`` for Macao and Repezita: the contract on many positions of random play
(every player count, every phase, penalties and requests pending, after reshuffles; tick and
real-time Repezita), worlds that cover the truth, and a broken world the check catches."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from world_checks import check_world, coverage, positions

from levata.engine import Action, game
from levata.engine.games.macao import MacaoState
from levata.engine.testing import check_worlds_from_view

MACAO, REPEZITA = game("macao"), game("repezita")


def test_macao_worlds_keep_the_contract_in_every_phase() -> None:
    phases, pending, request, reshuffled, players = set(), 0, 0, 0, set()
    rng = random.Random(3)
    for state, seat in positions(MACAO, matches=15, every=9, seed=10):
        check_world(MACAO, state, seat, rng)
        view = state.view(seat)
        phases.add(view.phase)
        pending += view.facts["pending"] is not None
        request += view.facts["request"] is not None
        reshuffled += state.epoch > 0
        players.add(state.players)
    assert phases == {"turn", "drawn", "group", "request", "respond"}
    assert pending and request and reshuffled
    assert players == set(MACAO.players)


def test_macao_worlds_from_the_heuristic_seat_hold_its_cards_only() -> None:
    state = MACAO.new_match(players=4, seed=5)
    view = state.view(2)
    world = MACAO.world_from_view(view, random.Random(1))
    assert world.hands[2] == state.hands[2]
    assert [len(h) for h in world.hands] == [len(h) for h in state.hands]


def test_macao_worlds_cover_where_the_cards_truly_are() -> None:
    rng = random.Random(8)
    for state, seat in positions(MACAO, matches=3, every=40, seed=70):
        if state.is_over():
            continue
        seen = coverage(MACAO, state, seat, worlds=300)
        missed = [k for k, v in seen.items() if v == 0]
        # 300 worlds: a uniform deal misses a true place of a card with odds far below 1e-3
        # unless its epoch holds very many slots; allow a few such misses, never most.
        assert len(missed) <= max(2, len(seen) // 10), missed[:5]
        check_world(MACAO, state, seat, rng)


def test_macao_drawn_card_kept_on_a_turn_matched_the_table() -> None:
    """A seat that drew and kept its card (``end_turn``) drew a matching card in every world."""
    from levata.engine.games.macao import WORLD_RULES, matches
    from levata.engine.games.macao.world import skeleton

    checked = 0
    for state, seat in positions(MACAO, matches=6, every=5, seed=200):
        view = state.view(seat)
        skel = skeleton(view, WORLD_RULES)
        bound = [i for i, s in enumerate(skel.slots) if s.must_match is not None and s.top]
        if not bound:
            continue
        for k in range(5):
            world = MACAO.world_from_view(view, random.Random(k))
            for ev in world.events():
                for i in bound:
                    slot = skel.slots[i]
                    if ev.seq == slot.seq and ev.kind == "drawn":
                        card = ev.cards[0]
                        fits = matches(card, slot.top, slot.request, skel.wild)
                        checked += fits == slot.must_match
        if checked > 50:
            break
    assert checked > 50


@pytest.mark.parametrize("mode", ["tick", "realtime"])
def test_repezita_worlds_keep_the_contract(mode: str) -> None:
    rng = random.Random(4)
    players, known = set(), 0
    for state, seat in positions(REPEZITA, matches=13, every=7, seed=30, options={"mode": mode}):
        check_world(REPEZITA, state, seat, rng)
        players.add(state.players)
        known += any(state.known[s] for s in range(state.players) if s != seat)
    assert players == set(REPEZITA.players)
    assert known


def test_repezita_bounce_means_the_seat_holds_a_neighbour() -> None:
    from levata.engine.games.repezita import RepezitaState

    state = RepezitaState.from_position(3, ["8C 9H 3S", "6H 2C 3C", "QS KD"], pile="AD 7D")
    for seat, move in ((0, "play 8C"), (1, "play 6H"), (2, "pass")):
        state.apply(seat, Action.parse(move))
    assert [e.kind for e in state.events()][-2:] == ["landed", "bounced"]
    view = state.view(0)
    held = Counter()
    for k in range(60):
        world = check_world(REPEZITA, state, 0, random.Random(k))
        assert any(c.rank in (6, 8) for c in world.hands[1]), world.hands[1]
        held.update(str(c) for c in world.hands[1])
    assert held["6H"] < 60  # a 6 or an 8: not always the very card
    assert REPEZITA.world_from_view(view, random.Random(0)).view(0) == view


def test_the_check_catches_a_broken_world() -> None:
    state = MACAO.new_match(players=3, seed=9)
    rng = random.Random(0)
    for _ in range(12):
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    seat = state.to_act()[0]

    def swaps_a_card(spec, view, rng):  # the world hands the seat another card
        world = MacaoState.from_view(spec, view, rng)
        mine, other = world.hands[seat], world.stock
        mine[0], other[0] = other[0], mine[0]
        mine.sort()
        return world

    def forgets_history(spec, view, rng):
        world = MacaoState.from_view(spec, view, rng)
        world._seen[seat] = world._seen[seat][:-1]
        return world

    def wrong_count(spec, view, rng):
        return MacaoState.from_view(spec, replace(view, counts={**view.counts, "stock": 0}), rng)

    for broken in (swaps_a_card, forgets_history):
        with pytest.raises(AssertionError):
            check_world(MACAO, state, seat, random.Random(1), rebuild=broken)
    with pytest.raises((AssertionError, ValueError)):
        check_world(MACAO, state, seat, random.Random(1), rebuild=wrong_count)
    check_world(MACAO, state, seat, random.Random(1))  # the real one passes


@pytest.mark.parametrize("spec", [MACAO, REPEZITA], ids=lambda s: s.name)
def test_the_engine_check_passes_every_seat_and_phase(spec) -> None:
    """The generic check of :mod:`levata.engine.testing` too, on every seat."""
    phases = check_worlds_from_view(spec, matches=4, seed=900, every=13)
    assert sum(phases.values()) > 20
