"""Strategy lives on the bots' side: each game's spec names its strategy (``GameSpec.strategy``),
the search bots find it there, and the engine's game states carry rules only."""

from __future__ import annotations

import dataclasses

import pytest

from levata.bots.search.pimc import PimcBot
from levata.bots.strategy import Strategy, strategy_for
from levata.engine import BadConfig, all_games, game
from levata.engine import registry as game_registry

#: The search hooks that once sat on the trick base and the games' states.
HOOKS = (
    "search_goal",
    "plausibility",
    "rate_cards",
    "rate_lines",
    "rate_calls",
    "rate_call_lines",
    "likely_bids",
)


@pytest.mark.parametrize("spec", all_games(), ids=lambda s: s.name)
def test_every_game_the_search_plays_names_a_strategy_on_the_bots_side(spec):
    if "pimc" not in spec.bots:  # a strategy only for the evidence the search reads (Kemps')
        if spec.strategy is not None:
            assert type(strategy_for(spec)).evidence is not Strategy.evidence
        return
    assert spec.strategy is not None and spec.strategy.startswith("levata.bots.strategy.")
    strategy = strategy_for(spec)
    assert isinstance(strategy, Strategy) and type(strategy) is not Strategy
    assert strategy_for(spec) is strategy  # loaded once: strategies hold no state


@pytest.mark.parametrize("spec", all_games(), ids=lambda s: s.name)
def test_the_engine_keeps_rules_only(spec):
    for hook in HOOKS:
        assert not hasattr(spec.factory, hook), f"{spec.name}'s state still has {hook}"


def test_a_spec_without_a_strategy_gets_the_plain_one_and_a_bad_name_is_refused():
    plain = dataclasses.replace(game("whist"), strategy=None)
    assert type(strategy_for(plain)) is Strategy
    with pytest.raises(BadConfig, match="no-such-module"):
        strategy_for(dataclasses.replace(plain, strategy="no-such-module:Nobody"))
    with pytest.raises(BadConfig, match="is not a Strategy"):
        strategy_for(dataclasses.replace(plain, strategy="levata.bots.search.pimc:PimcBot"))


def test_pimc_reads_the_strategy_its_spec_names_not_the_games_name(monkeypatch):
    """The same rules under another name and with the plain strategy: pimc no longer rates
    the bids (it leaves them to its fallback) and plays cards for tricks, not an exact bid."""
    whist = game("whist")
    plain = dataclasses.replace(whist, name="plain-whist", strategy=None)
    monkeypatch.setitem(game_registry._REGISTRY, "plain-whist", plain)
    state = whist.new_match(players=3, options={"deal_size": 4}, seed=2)
    seat = state.to_act()[0]
    view, legal = state.view(seat), state.legal_actions(seat)
    searched = PimcBot("whist", seed=1, worlds=6, time_ms=0)
    searched.act(view, legal)
    assert searched.last_worlds == 6  # the bids were rated in every world
    unrated = PimcBot("plain-whist", seed=1, worlds=6, time_ms=0)
    unrated.act(view, legal)
    assert unrated.last_worlds == 1  # nothing rated: the fallback decides at once
