"""Kemps' model of the other seats (``levata.bots.strategy.kemps``): a seat seen taking three
cards of a rank holds the fourth, as clues the search's worlds are weighed by, in C."""

from __future__ import annotations

import random

import pytest

from levata.bots import make_bot
from levata.bots.inference import Clue
from levata.bots.search.ismcts import IsmctsBot
from levata.bots.strategy import strategy_for
from levata.bots.strategy.kemps import COLLECTOR, KempsStrategy, collector_clues
from levata.engine import Action, Card, game, parse_cards
from levata.engine.cardmask import mask_of
from levata.engine.evidence import Clues, Evidence
from levata.engine.games.kemps import KempsState

SPEC = game("kemps")
HANDS = ["2S 3S 4S 5S", "7S 7H 7D 7C", "8S 8H 9D 9C", "JS QS KS AS"]


def exchange(hands=HANDS, table="2H 3H 4H 5H") -> KempsState:
    return KempsState.from_position(len(hands), hands, table=table)


def test_the_spec_names_the_strategy():
    assert isinstance(strategy_for(SPEC), KempsStrategy)


def test_a_seat_seen_taking_three_of_a_rank_gives_a_clue_on_the_face_not_seen():
    state = exchange()
    state.known[1] = parse_cards("7S 7H 7D")
    assert collector_clues(state.view(0), state.deck()) == [
        Clue(1, mask_of([Card.parse("7C")]), COLLECTOR)
    ]
    likelihood = KempsStrategy().evidence(state.view(0), state)
    assert isinstance(likelihood, Clues) and Evidence.of(likelihood, 8).clues == likelihood.clues
    assert collector_clues(state.view(1), state.deck()) == []  # its own takes: no clue


@pytest.mark.parametrize(
    "known",
    [
        [[], "7S 7H", [], []],  # two: no more than any other seat's
        [[], "7S 7H 8C", [], []],
        [[], "7S 7H 7D 7C", [], []],  # every card seen: nothing hidden to weigh
    ],
)
def test_no_clue_without_three_of_a_rank_and_a_hidden_card(known):
    state = exchange()
    state.known = [parse_cards(k) if k else [] for k in known]
    assert collector_clues(state.view(0), state.deck()) == []
    assert KempsStrategy().evidence(state.view(0), state) is None


def test_with_two_decks_the_clue_is_on_every_copy_of_the_faces_not_seen():
    """Ten seats, two decks: the mask is of faces, a face's two copies one bit."""
    state = SPEC.new_match(players=10, seed=3)
    while state.phase != "exchange":
        for seat in state.to_act():
            state.apply(seat, state.legal_actions(seat)[0])
    state.known[2] = parse_cards("9S 9H 9D")
    (clue,) = collector_clues(state.view(0), state.deck())
    assert (clue.seat, clue.cards) == (2, mask_of([Card.parse("9C")]))
    likelihood = KempsStrategy().evidence(state.view(0), state)
    assert likelihood is not None
    world = SPEC.world_from_view(state.view(0), random.Random(1), Evidence.of(likelihood, 4))
    assert len(world.hands[2]) == 4  # the Python path reads hands with twin cards


def test_no_clue_outside_the_exchange():
    state = SPEC.new_match(players=4, seed=1)
    assert state.phase != "exchange"
    assert collector_clues(state.view(0), state.deck()) == []


def three_seen() -> KempsState:
    state = exchange()  # seat 1 holds the four sevens
    state.known[1] = parse_cards("7S 7H 7D")
    return state


def test_ismcts_infer_reads_the_clue_weighs_worlds_in_c_and_calls_contrakemps(monkeypatch):
    """The heuristic would swap at once (its ``settled``) and uniform worlds almost never
    deal seat 1 the fourth seven; with ``infer=1`` the tick is searched on worlds the C dealer
    weighs by the clue (a pool of 64), and the search calls CONTRAKEMPS."""
    view, legal = three_seen().view(0), three_seen().legal_actions(0)
    plain = make_bot("ismcts", "kemps", seed=3, iterations=30, time_ms=0, infer=0)
    assert plain.act(view, legal).kind == "swap" and plain.stats.decisions == 0
    weighed: list[tuple[tuple[Clue, ...], int]] = []
    dealer_of = KempsState.playout_dealer

    def spying(self: KempsState, seat: int, seed: int):
        dealer = dealer_of(self, seat, seed)
        weigh = dealer.weigh

        class Spy:
            def weigh(self, clues, pool):
                weighed.append((tuple(clues), pool))
                weigh(clues, pool)

            def deal(self, seed=0):
                return dealer.deal(seed)

        return Spy()

    monkeypatch.setattr(KempsState, "playout_dealer", spying)
    bot = make_bot("ismcts", "kemps", seed=3, iterations=30, time_ms=0, infer=1, pool=64)
    assert bot.act(view, legal).without_payload() == Action("contrakemps", number=1)
    assert bot.stats.decisions == 1
    assert weighed == [((Clue(1, mask_of([Card.parse("7C")]), COLLECTOR),), 64)]


def test_ismcts_infer_replays_from_its_seed():
    state = three_seen()
    view, legal = state.view(0), state.legal_actions(0)

    def run(seed: int) -> tuple[Action, int, int]:
        bot = make_bot("ismcts", "kemps", seed=seed, iterations=20, time_ms=0, infer=1, pool=16)
        assert isinstance(bot, IsmctsBot)
        return bot.act(view, legal), bot.stats.rollouts, bot.stats.actions

    assert run(5) == run(5)
    assert len({run(seed) for seed in range(5, 9)}) > 1  # the seed matters


def test_ismcts_infer_without_clues_plays_as_the_plain_search():
    """No seat seen taking three: no evidence, the moves settled as without ``infer``."""
    state = exchange()
    state.known[1] = parse_cards("7S 7H")
    view, legal = state.view(0), state.legal_actions(0)
    plain = make_bot("ismcts", "kemps", seed=3, iterations=20, time_ms=0, infer=0)
    inferring = make_bot("ismcts", "kemps", seed=3, iterations=20, time_ms=0, infer=1)
    assert inferring.act(view, legal) == plain.act(view, legal)
    assert inferring.stats.decisions == plain.stats.decisions == 0
