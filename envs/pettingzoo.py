"""Every levata game as a PettingZoo AEC environment (``pip install levata[envs]``).

Agents are ``seat_0``, ``seat_1``...; one acts at a time (:class:`~levata.envs.table.Table`
picks it when the rules let several act). An observation is PettingZoo's masked form,
``{"observation": float32 vector, "action_mask": int8 vector}``, laid out by
:class:`~levata.envs.encoding.Encoding` (``python -m levata.envs describe GAME``). Chance
stays inside the environment: ``reset(seed=s)`` deals the same cards for the same ``s``;
``reset()`` without a seed deals the next match of the seed given last (0 at first), so
every deal flows from a seed. Rewards come at the end: each seat's standing (1 first, 0
last) or, with ``reward="score"``, its final score on the game's own scale.

>>> env = LevataEnv("whist", players=3, options={"deal_size": 1})
>>> env.reset(seed=3)
>>> env.agent_selection
'seat_0'
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()), info["legal"]
((221,), 2, ['bid 0', 'bid 1'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from levata.engine import game
from levata.envs.encoding import Encoding
from levata.envs.table import Table

__all__ = ["LevataEnv", "env"]


class LevataEnv(AECEnv):
    """A match of ``game_name`` at ``players`` seats under ``options`` (short options make
    short matches); ``max_steps`` truncates a match that runs longer (``None``: never)."""

    metadata = {"render_modes": ["ansi"], "name": "levata", "is_parallelizable": False}

    def __init__(
        self,
        game_name: str,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        reward: str = "standing",
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in ("standing", "score"):
            raise ValueError(f"reward is standing or score, not {reward!r}")
        self.spec = game(game_name)
        self.players = players or self.spec.players[0]
        self.encoding = Encoding(self.spec, self.players, options)
        self.reward_kind, self.max_steps, self.render_mode = reward, max_steps, render_mode
        self.metadata = {**self.metadata, "name": f"levata_{self.spec.name}"}
        self.possible_agents = [f"seat_{s}" for s in range(self.players)]
        enc = self.encoding
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (enc.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (enc.actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(enc.actions) for a in self.possible_agents}
        self._seed = 0
        self.table: Table | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed = seed
        else:
            self._seed += 1  # the next match of the same series
        self.table = Table(self.spec, self.players, seed=self._seed, encoding=self.encoding)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        assert self.table is not None
        seat = self.table.seat
        if seat >= 0:
            self.agent_selection = self.possible_agents[seat]
            legal = self.table.state.legal_actions(seat)
            self.infos[self.agent_selection]["legal"] = [str(a) for a in legal]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.table is not None
        seat = self.possible_agents.index(agent)
        return {"observation": self.table.observe(seat), "action_mask": self.table.mask(seat)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        assert table is not None and action is not None
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent].pop("legal", None)
        table.play(int(action))
        if table.over:
            ends = table.standing() if self.reward_kind == "standing" else table.scores()
            self.rewards = {a: float(r) for a, r in zip(self.agents, ends, strict=True)}
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_steps is not None and table.steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
        self._accumulate_rewards()
        if table.over or self.truncations[agent]:
            self.agent_selection = agent  # the dead steps start with the seat that just played
        else:
            self._select()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.table is None:
            return None
        state = self.table.state
        return "\n".join(str(e) for e in state.events()[-8:])

    def close(self) -> None:
        self.table = None


def env(game_name: str, **kwargs: Any) -> LevataEnv:
    """PettingZoo's usual constructor, wrapped as its classic games are: an illegal action
    ends the match with a penalty, and actions are checked against the action space."""
    from pettingzoo.utils import wrappers

    wrapped = wrappers.TerminateIllegalWrapper(LevataEnv(game_name, **kwargs), illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
