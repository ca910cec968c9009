"""The PIMC bot: one searcher for every game on the trick base, through the game's hooks."""

from __future__ import annotations

import importlib.util
import random
import time
from pathlib import Path

import pytest

from levata.bots import make_bot, play_match
from levata.bots.clock import asked
from levata.bots.search.pimc import PimcBot
from levata.engine import BadConfig, game, parse_cards
from levata.engine import registry as registry_module
from levata.engine.contract import GameSpec
from levata.engine.games.whist import whist_deck


@pytest.mark.parametrize(("players", "size"), [(3, 0), (4, 0), (5, 5), (6, 4)])
def test_plays_whole_matches_legally(players, size):
    # Full schedules for 3-4 players; one deal for 5-6.
    state = game("whist").new_match(players=players, options={"deal_size": size}, seed=players)
    bots = [PimcBot(seed=s, worlds=8) for s in range(players)]
    assert play_match(state, bots).reason == "complete"


@pytest.mark.parametrize("options", [{"must_trump": False}, {"scoring": "oh_hell"}])
def test_plays_under_the_matchs_rules(options):
    state = game("whist").new_match(players=4, options={"deal_size": 5, **options}, seed=3)
    bots = [PimcBot(seed=s, worlds=8) for s in range(4)]
    assert play_match(state, bots).reason == "complete"


def test_forehead_deals():
    state = game("whist").new_match(players=4, options={"one_card_mode": "forehead"}, seed=2)
    seat = state.to_act()[0]
    action = PimcBot(seed=1, worlds=20).act(state.view(seat), state.legal_actions(seat))
    assert action in state.legal_actions(seat)


def test_same_seed_same_moves():
    def moves(seed):
        state = game("whist").new_match(players=3, options={"deal_size": 4}, seed=9)
        play_match(state, [PimcBot(seed=seed, worlds=6) for _ in range(3)])
        return [str(e) for e in state.events()]

    assert moves(1) == moves(1)


def test_time_budget_bounds_the_worlds():
    state = game("whist").new_match(players=4, options={"deal_size": 7}, seed=4)
    seat = state.to_act()[0]
    bot = PimcBot(seed=0, worlds=10_000, time_ms=1, min_worlds=3)
    bot.act(state.view(seat), state.legal_actions(seat))
    assert 3 <= bot.last_worlds < 10_000
    full = PimcBot(seed=0, worlds=12, time_ms=0)
    full.act(state.view(seat), state.legal_actions(seat))
    assert full.last_worlds == 12


def test_the_budget_runs_from_when_the_request_was_sent():
    """A request that waited behind another match's search (one bot process holds its seats
    in every match) has only what is left of its budget: one world, not the full 500 ms."""
    state = game("whist").new_match(players=4, options={"deal_size": 7}, seed=4)
    seat = state.to_act()[0]
    bot = PimcBot(seed=0, worlds=10_000, time_ms=500)
    with asked(time.perf_counter() - 0.49):
        start = time.perf_counter()
        bot.act(state.view(seat), state.legal_actions(seat))
        spent = time.perf_counter() - start
    assert bot.last_worlds == 1 and spent < 0.3  # it searched ~475 ms before the clock
    bot.act(state.view(seat), state.legal_actions(seat))  # asked now: the whole budget
    assert bot.last_worlds > 1


def test_rollouts_above_the_solve_limit_play_legally():
    state = game("whist").new_match(players=6, options={"deal_size": 5}, seed=5)
    bots = [PimcBot(seed=s, worlds=3, solve_cards=12, rollouts=4) for s in range(6)]
    assert play_match(state, bots).reason == "complete"


def test_beats_the_heuristic_and_random_on_duplicate_deals():
    """A small duplicate check (the full measurement is benchmarks/whist_search.py)."""
    spec = game("whist")
    totals = {"pimc": 0.0, "heuristic": 0.0, "random": 0.0}
    for deal in range(12):
        for rot in range(3):
            names = ["pimc", "heuristic", "random"]
            names = names[rot:] + names[:rot]
            state = spec.new_match(players=3, options={"deal_size": 3 + deal % 5}, seed=deal)
            bots = [
                PimcBot(seed=deal, worlds=30) if n == "pimc" else make_bot(n, "whist", deal)
                for n in names
            ]
            result = play_match(state, bots)
            for s, n in enumerate(names):
                totals[n] += result.scores[s]
    assert totals["pimc"] > totals["random"]
    assert totals["pimc"] >= totals["heuristic"] - 10  # at least on par on this small sample


def test_plays_a_trick_game_it_has_never_seen(monkeypatch):
    """The documented example game, registered for the test: PIMC needs nothing but the
    trick base (13 cards a hand: rollouts first, solves once few cards are left)."""
    path = Path(__file__).resolve().parents[1] / "engine" / "test_trick_base.py"
    module_spec = importlib.util.spec_from_file_location("trick_base_example", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    MostTricks = module.MostTricks

    spec = GameSpec("most-tricks", "Most tricks", (4,), (), MostTricks)
    monkeypatch.setitem(registry_module._REGISTRY, spec.name, spec)
    state = spec.new_match(players=4, seed=1)
    bots = [PimcBot("most-tricks", seed=s, worlds=4, rollouts=4) for s in range(4)]
    result = play_match(state, bots)
    assert sum(result.scores) == 13


def test_pimc_is_for_trick_games():
    with pytest.raises(BadConfig, match="no pimc bot"):
        make_bot("pimc", "macao")
    with pytest.raises(BadConfig, match="trick base"):
        PimcBot("macao")


@pytest.mark.parametrize("solve_nodes", [1, 200, 1_000_000])
def test_tried_solves_fall_back_to_rollouts(solve_nodes):
    """Between solve_cards and try_cards each world is solved within solve_nodes nodes or
    valued by rollouts; the bot plays legally either way and counts its exact worlds."""
    state = game("whist").new_match(players=4, options={"deal_size": 6}, seed=8)
    bot = PimcBot(seed=1, worlds=6, time_ms=0, solve_cards=8, try_cards=24, solve_nodes=solve_nodes)
    solved = []
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        action = bot.act(state.view(seat), legal)
        assert action in legal
        if len(legal) > 1 and legal[0].kind != "bid":
            assert 0 <= bot.last_solved <= bot.last_worlds
            solved.append(bot.last_solved / bot.last_worlds)
        state.apply(seat, action)
    if solve_nodes == 1:
        assert min(solved) == 0  # every try ran out: rollouts (after three tries, no more)
    if solve_nodes == 1_000_000:
        assert min(solved) == 1


def test_bids_the_tricks_a_hand_surely_takes():
    """Three top trumps (JH turned) and the lowest cards of the other suits, which the other
    seats outnumber in every suit: the bid is 3 (test_whist's SURE_THREE deal)."""
    hands = ["AH KH QH 7S 8S 7C 7D", "9S 10S 8C 9C 10C 8D 7H"]
    hands += ["JS QS JC QC 9D 10D 8H", "KS AS KC AC JD QD 9H"]
    cards = [parse_cards(h) for h in hands]
    order = [cards[i % 4][i // 4] for i in range(28)] + parse_cards("JH")
    order += [c for c in whist_deck(4) if c not in order]
    seed = next(s for s in range(100) if random.Random(s).randrange(4) == 0)  # seat 0 first
    state = game("whist").new_match(players=4, options={"deal_size": 7}, seed=seed, deal=order)
    assert state.to_act() == (0,) and set(state.hands[0]) == set(cards[0])
    bot = PimcBot(seed=3, worlds=40, time_ms=0)
    assert bot.act(state.view(0), state.legal_actions(0)).number == 3


def test_worlds_that_fit_the_bids_are_drawn_for_in_proportion_not_only_weighed():
    """After three bids far from what most hands count, most drawn worlds are unlikely:
    with ``resample`` the bot draws more worlds than it searches (each kept with its
    plausibility); with ``resample=0`` every drawn world is searched, weighed."""
    state = game("whist").new_match(players=4, options={"deal_size": 5}, seed=7)
    for _ in range(3):
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[-1])  # bid 5 three times
    seat = state.to_act()[0]
    view, legal = state.view(seat), state.legal_actions(seat)
    drawing = PimcBot(seed=1, worlds=20, time_ms=0, bidders="counting")  # bids read
    assert drawing.act(view, legal) in legal
    assert drawing.last_worlds == 20 and drawing.last_draws > 20
    weighing = PimcBot(seed=1, worlds=20, time_ms=0, resample=0, bidders="counting")
    assert weighing.act(view, legal) in legal
    assert weighing.last_worlds == weighing.last_draws == 20


def test_a_card_is_worth_its_best_line_summed_over_worlds_not_each_worlds_best(monkeypatch):
    """Card A's first line is good in half the worlds and its second in the other half;
    card B's lines are fair in every world. Each world's best would pick A (1 against
    0.6); one way of playing across the worlds is worth 0.5 with A, 0.6 with B."""
    from levata.bots.strategy.whist import WhistStrategy

    state = game("whist").new_match(players=4, options={"deal_size": 5}, seed=3)
    while state.phase == "bid":
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[1])
    seat = state.to_act()[0]
    playable = sorted(c.index for c in state.playable(seat))
    a, b = playable[:2]
    drawn = []

    def lines(self, world, seat):
        drawn.append(1)
        odd = len(drawn) % 2
        out = {i: [-10.0, -10.0] for i in playable}
        out[a], out[b] = [float(odd), float(1 - odd)], [0.6, 0.6]
        return out

    monkeypatch.setattr(WhistStrategy, "rate_lines", lines)
    bot = PimcBot(seed=1, worlds=40, time_ms=0, blend=1000)
    assert bot.act(state.view(seat), state.legal_actions(seat)).card.index == b
    monkeypatch.setattr(WhistStrategy, "rate_lines", lambda self, world, seat: {})
    monkeypatch.setattr(
        WhistStrategy,
        "rate_cards",
        lambda self, world, seat: {i: max(lines(self, world, seat)[i]) for i in playable},
    )
    bot = PimcBot(seed=1, worlds=40, time_ms=0, blend=1000)
    assert bot.act(state.view(seat), state.legal_actions(seat)).card.index == a
