"""The trick-game base on a game of its own: the example of docs/writing-a-trick-game.md
passes the conformance checks, and teams, card points and layouts work as the rules say."""

from __future__ import annotations

import random
import re
from pathlib import Path

from levata.engine import events
from levata.engine.card_orders import trick_rules
from levata.engine.cards import Suit, french_deck, parse_cards
from levata.engine.contract import Action, GameSpec
from levata.engine.deal import shuffled
from levata.engine.family.tricks import PLAY, TrickGame
from levata.engine.testing import check_positions, play_checked

ROOT = Path(__file__).resolve().parents[2]


def _documented_example() -> type[TrickGame]:
    """The example of docs/writing-a-trick-game.md, run as written (its ``register`` call
    left out: the test builds its own spec, and the registry stays the project's)."""
    text = (ROOT / "docs" / "writing-a-trick-game.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    code = code.replace("register(GameSpec(", "_spec = (GameSpec(")
    scope: dict = {}
    exec(compile(code, "writing-a-trick-game.md", "exec"), scope)
    cls = scope["MostTricks"]
    cls.__module__ = __name__  # where pickle (clones, snapshots) finds the class
    return cls


MostTricks = _documented_example()


class PartnersFor66Points(MostTricks):
    """Partners opposite, 66's card order and points, head duty: what later games declare."""

    def __init__(self, spec, players, options, seed, deal=None):
        TrickGame.__init__(self, spec, players, options, seed)
        self.deck = tuple(c for c in french_deck() if c.rank >= 10)
        order = list(deal) if deal is not None else shuffled(self.deck, self.rng)
        self.deal_round_robin(order, first=1, each=5)
        self.set_trump(order[-1].suit, None)
        self.phase = PLAY
        self._emit(events.DEAL, trump=self.trump.letter)
        self.show_hands()

    def card_rules(self):
        return trick_rules("sixty-six", self.trump, 4, teams=(0, 1, 0, 1))

    def _settle(self):
        self.deck = tuple(c for c in french_deck() if c.rank >= 10)


def spec_of(factory, players=(4,)):
    return GameSpec("test-tricks", "test", players, (), factory)


def test_the_documented_example_passes_the_conformance_checks():
    for i in range(3):
        play_checked(spec_of(MostTricks), i, seed=i, sample_every=4)
    assert check_positions(spec_of(MostTricks), matches=2) > 0  # its positions, for free


def test_teams_points_layout_and_head_duty():
    spec = spec_of(PartnersFor66Points)
    for i in range(3):
        play_checked(spec, i, seed=10 + i, sample_every=4)
    state = spec.new_match(players=4, seed=3)
    rng = random.Random(3)
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.team_tricks(0) + state.team_tricks(1) == 5
    # 66's card points: 4 x (11 + 10 + 4 + 3 + 2) = 120, plus 10 for the last trick.
    assert sum(state.card_points(s) for s in range(4)) == 130
    assert state.card_points(state.last_taker) >= 10


def test_head_duty_and_voids_through_play():
    """Following, a seat must beat the winning card when it can; one that shows out is void."""
    state = spec_of(PartnersFor66Points).new_match(players=4, seed=0)
    state.set_trump(Suit.HEARTS)
    state.hands = [parse_cards(h) for h in ("KC KD", "10S JC", "AS QS", "JD JH")]
    state.leader = 1

    def legal(seat):
        return [str(a.card) for a in state.legal_actions(seat)]

    state.apply(1, Action.parse("play 10S"))
    assert legal(2) == ["AS"]  # in 66's order A > 10 > K > Q > J: only the ace beats
    state.apply(2, Action.parse("play AS"))
    assert legal(3) == ["JH"]  # void in spades: trump
    state.apply(3, Action.parse("play JH"))
    assert legal(0) == ["KC", "KD"]  # no spade, no trump: anything
    state.apply(0, Action.parse("play KC"))
    assert state.leader == 3 and state.team_tricks(1) == 1
    assert state.view(1).facts["voids"] == {"0": ["H", "S"], "1": [], "2": [], "3": ["S"]}
    assert state.card_points(3) == 11 + 10 + 4 + 2  # the last trick is still to come
