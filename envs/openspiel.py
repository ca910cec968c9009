"""Every levata game as an OpenSpiel Python game, registered with ``pyspiel`` on import.

Each game ``G`` registers as ``python_levata_G`` (``-`` as ``_``: ``python_levata_sixty_six``)
with the parameters ``players`` and every rule option that has a plain default (the
registry's names: ``pyspiel.load_game("python_levata_whist", {"players": 4,
"deal_size": 3})``). The game is sequential (one seat decides at a time, as
:class:`~levata.envs.table.Table` picks it), of imperfect information, general-sum, rewarded
at the end with each seat's standing (1 first, 0 last).

Chance is explicit: the first node is a chance node whose outcome is the seed of the match
(uniformly one of ``seeds``, a parameter, :data:`SEEDS` by default); the engine's every later
shuffle flows from that seed, so each state after it is a function of the seed and the
actions. Observations (the only
observation type offered: no perfect-recall information state) are the shared
:class:`~levata.envs.encoding.Encoding`.

>>> import pyspiel
>>> spiel = pyspiel.load_game("python_levata_whist", {"players": 3, "deal_size": 1})
>>> state = spiel.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes()) == SEEDS
(True, True)
>>> state.apply_action(3)
>>> state.current_player(), [state.action_to_string(a) for a in state.legal_actions()]
(0, ['bid 0', 'bid 1'])
>>> len(state.observation_tensor(0)) == spiel.observation_tensor_size()
True
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pyspiel

from levata.engine import GameSpec, all_games
from levata.engine.testing import MAX_ACTIONS
from levata.envs.encoding import Encoding
from levata.envs.table import Table

__all__ = ["SEEDS", "game_name", "register_all"]

#: How many seeds the opening chance node draws from by default (the parameter ``seeds``):
#: distinct deals enough for training, few enough that its list of outcomes is cheap.
SEEDS = 1 << 16

_PLAIN = (bool, int, float, str)


def game_name(spec: GameSpec) -> str:
    """The name a levata game registers under.

    >>> from levata.engine import game
    >>> game_name(game("sixty-six"))
    'python_levata_sixty_six'
    """
    return "python_levata_" + spec.name.replace("-", "_")


def _parameters(spec: GameSpec) -> dict[str, Any]:
    params: dict[str, Any] = {"players": spec.players[0], "seeds": SEEDS}
    params.update({o.name: o.default for o in spec.options if type(o.default) in _PLAIN})
    return params


def _game_type(spec: GameSpec) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=game_name(spec),
        long_name=f"levata {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(spec.players),
        min_num_players=min(spec.players),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(spec),
    )


class LevataGame(pyspiel.Game):
    """One levata game at the table size and options of ``params``."""

    spec: GameSpec  # set per game by register_all

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**_parameters(self.spec), **(params or {})}
        players = int(given.pop("players"))
        self.seeds = int(given.pop("seeds"))
        self.encoding = Encoding(self.spec, players, given)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.actions,
            max_chance_outcomes=self.seeds,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_ACTIONS,
        )
        super().__init__(_game_type(self.spec), info, params or {})

    def new_initial_state(self) -> LevataState:
        return LevataState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Observer:
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("levata games offer observations, not perfect-recall states")
        return Observer(self.encoding)


class LevataState(pyspiel.State):
    """A match: a chance node (its seed), then the seats' decisions."""

    def __init__(self, game: LevataGame) -> None:
        super().__init__(game)
        self.encoding, self.seeds = game.encoding, game.seeds
        self.table: Table | None = None

    def current_player(self) -> int:
        table = self.table
        if table is None:
            return int(pyspiel.PlayerId.CHANCE)
        if table.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return table.seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.table is not None
        return [int(i) for i in np.flatnonzero(self.table.mask(player))]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self.seeds
        return [(seed, p) for seed in range(self.seeds)]

    def _apply_action(self, action: int) -> None:
        if self.table is None:
            enc = self.encoding
            self.table = Table(enc.spec, enc.players, seed=action, encoding=enc)
        else:
            self.table.play(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal from seed {action}"
        return str(self.encoding.action(action))

    def is_terminal(self) -> bool:
        return self.table is not None and self.table.over

    def returns(self) -> list[float]:
        if self.table is None or not self.table.over:
            return [0.0] * self.encoding.players
        return list(self.table.standing())

    def __deepcopy__(self, memo: dict[int, Any]) -> LevataState:
        # OpenSpiel clones a Python state by deep copy: the match is copied, the encoding
        # (the same for every state of the game) shared.
        other = object.__new__(type(self))
        pyspiel.State.__init__(other, self.get_game())
        other.encoding, other.seeds = self.encoding, self.seeds
        other.table = copy.deepcopy(self.table, memo)
        return other

    def __str__(self) -> str:
        # For debugging only (OpenSpiel's word): the last events, not the whole position,
        # since its checks print every state they visit.
        if self.table is None:
            return "(the deal to come)"
        return "; ".join(str(e) for e in self.table.state.events()[-4:])


class Observer:
    """OpenSpiel's Python observer: ``tensor`` (a flat float32 vector) and ``dict`` (its
    one view, ``observation``), set from a state for a player."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        self.tensor = np.zeros(encoding.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: LevataState, player: int) -> None:
        if state.table is None:
            self.tensor.fill(0)
        else:
            state.table.observe(player, out=self.tensor)

    def string_from(self, state: LevataState, player: int) -> str:
        """What the seat sees, in short: the phase, its hand, the zones and counters."""
        if state.table is None:
            return "(the deal to come)"
        view = state.table.state.view(player, history=False)
        zones = " ".join(f"{k}=" + ",".join(map(str, v)) for k, v in view.zones.items())
        counters = " ".join(f"{k}={v}" for k, v in view.counters.items())
        hand = ",".join(map(str, view.hand))
        return f"{view.phase} seat {player}: hand={hand} {zones} {counters}"


def register_all() -> list[str]:
    """Register every game (done on import; a game registered already is left as it is)."""
    known = set(pyspiel.registered_names())
    names = []
    for spec in all_games():
        name = game_name(spec)
        if name not in known:
            cls = type(f"Levata_{name}", (LevataGame,), {"spec": spec})
            pyspiel.register_game(_game_type(spec), cls)
        names.append(name)
    return names


GAMES = register_all()
