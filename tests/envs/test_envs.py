"""Every game as a PettingZoo AEC environment and an OpenSpiel game: each passes its own
library's conformance checks (PettingZoo's ``api_test``, OpenSpiel's ``random_sim_test``),
on short matches so the whole file stays a few seconds."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from levata.engine import Action, GameSpec, all_games, game
from levata.envs.encoding import Encoding
from levata.envs.table import Table

pettingzoo = pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")

from pettingzoo.test import api_test, seed_test  # noqa: E402  (after the skip: an extra)

from levata.envs import openspiel  # noqa: E402
from levata.envs.__main__ import main  # noqa: E402
from levata.envs.pettingzoo import LevataEnv, env  # noqa: E402

GAMES = [spec.name for spec in all_games()]


def tight(spec: GameSpec) -> dict[str, Any]:
    """Options for a quick match: one board of a game that has one (a single deal), else
    the conformance suite's short options with their caps halved."""
    if spec.duplicate_unit is not None:
        return {spec.duplicate_unit: max(1, spec.option(spec.duplicate_unit).minimum or 0)}
    return {k: max(1, v // 2) if type(v) is int else v for k, v in spec.short_options.items()}


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_test(name):
    spec = game(name)
    with warnings.catch_warnings():  # its advice on Dict observation spaces, by design here
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(name, options=tight(spec)), num_cycles=60)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_seed_test(name):
    spec = game(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        seed_test(lambda: env(name, options=tight(spec)), num_cycles=20)


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_random_sim_test(name):
    spec = game(name)
    spiel = pyspiel.load_game(openspiel.game_name(spec), {**tight(spec), "seeds": 64})
    pyspiel.random_sim_test(spiel, num_sims=1, serialize=False, verbose=False)


def test_every_game_is_registered_with_pyspiel():
    names = set(pyspiel.registered_names())
    assert {openspiel.game_name(spec) for spec in all_games()} <= names


def _episode(e: LevataEnv, seed: int, steps: int) -> list[np.ndarray]:
    """The observations of the first ``steps`` decisions, each taking its first legal slot."""
    e.reset(seed=seed)
    seen = []
    for _ in range(steps):
        obs = e.observe(e.agent_selection)
        seen.append(obs["observation"])
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    return seen


def test_the_same_seed_deals_the_same_cards():
    e = LevataEnv("tarneeb", options={"max_deals": 1})
    first, again, other = _episode(e, 7, 5), _episode(e, 7, 5), _episode(e, 8, 5)
    assert all((a == b).all() for a, b in zip(first, again, strict=True))
    assert not (first[0] == other[0]).all()


def test_an_unseeded_reset_deals_the_next_match_of_the_series():
    e = LevataEnv("whist", players=3, options={"deal_size": 2})
    e.reset(seed=5)
    e.reset()
    again = LevataEnv("whist", players=3, options={"deal_size": 2})
    again.reset(seed=6)
    assert (e.observe("seat_0")["observation"] == again.observe("seat_0")["observation"]).all()


def test_the_observation_reads_the_view_seat_relative():
    spec = game("tarneeb")
    enc = Encoding(spec, 4)
    state = spec.new_match(players=4, seed=3)
    view = state.view(2, history=False)
    obs = enc.observe(view)
    hand = obs[enc.offset("hand") : enc.offset("hand") + len(enc.deck)]
    assert [enc.deck[i] for i in np.flatnonzero(hand)] == sorted(view.hand)
    # the seat's own count first, then the next seats in turn order
    assert obs[enc.offset("count hand:+0")] == view.counts["hand:2"]
    # a counter that is a seat is relative: the leader is seat (leader - 2) % 4 for seat 2
    leader = view.counters["leader"]
    assert obs[enc.offset("counter leader")] == (leader - 2) % 4
    assert obs[enc.offset("counter leader") + 1] == 1.0  # shown
    to_act = obs[enc.offset("to_act") : enc.offset("to_act") + 4]
    assert list(np.flatnonzero(to_act)) == [(s - 2) % 4 for s in view.to_act]


def test_legal_actions_map_to_slots_and_back():
    spec = game("kemps")
    enc = Encoding(spec, 4)
    swap = Action.parse("swap 7C@2 signal=G3")
    assert enc.action(enc.index(swap)) == swap.without_payload()
    with pytest.raises(ValueError, match="no slot"):
        enc.index(Action("swap", choice="7C@9"))


def test_the_table_lets_every_seat_of_a_simultaneous_tick_act_in_turn():
    spec = game("repezita")
    table = Table(spec, 3, dict(spec.short_options), seed=1)
    seats = []
    for _ in range(6):
        seats.append(table.seat)
        table.play(int(np.flatnonzero(table.mask(table.seat))[-1]))
    assert set(seats) == {0, 1, 2}


def test_describe_prints_the_layout(capsys):
    assert main(["describe", "whist", "--players", "4"]) == 0
    out = capsys.readouterr().out
    assert "whist, 4 players" in out and "zone trick" in out and "play_own" in out
    assert main(["describe", "whist", "--players", "2"]) == 2
    assert capsys.readouterr().err.strip() == "error: whist is played by 3-6 players, not 2"


def test_the_training_example_runs_a_few_deals(capsys):
    path = Path(__file__).resolve().parents[2] / "examples" / "rl" / "reinforce_whist.py"
    spec = importlib.util.spec_from_file_location("reinforce_whist", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.train(minutes=0, episodes=3, lr=0.01, seed=1, eval_deals=2)
    out = capsys.readouterr().out
    assert "before training" in out and "after 3 training deals" in out
