"""Train a small agent in levata's PettingZoo environment: REINFORCE with a linear softmax
policy (numpy only) at Romanian Whist, one 3-card deal, 3 players, against two heuristic bots.

    python examples/rl/reinforce_whist.py --minutes 3

It measures the learner on the same evaluation deals before training (a random policy over
the legal actions: its weights start at zero) and after, and prints both mean scores (the
game's own points for the deal: 5 + bid when exact, minus the miss otherwise) with their
standard errors; docs/envs.md quotes a run. ``--episodes`` bounds the training instead of
the clock (the test suite runs a few steps so).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from levata.bots.base import make_bot
from levata.envs.pettingzoo import LevataEnv

GAME, PLAYERS, OPTIONS = "whist", 3, {"deal_size": 3}
LEARNER = "seat_0"
#: Evaluation deals: seeds the training never uses.
EVAL_SEED = 10_000_000


class LinearPolicy:
    """Softmax over the legal slots of ``W @ obs + b``."""

    def __init__(self, size: int, actions: int, rng: np.random.Generator) -> None:
        self.w = np.zeros((actions, size))
        self.b = np.zeros(actions)
        self.rng = rng

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.w @ obs + self.b
        logits = np.where(mask > 0, logits, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum()

    def sample(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return int(self.rng.choice(len(mask), p=self.probabilities(obs, mask)))


def features(obs: np.ndarray) -> np.ndarray:
    """The observation, scaled: counters and scores are raw numbers (a score of -8, a deal
    number), cards are 0/1, so a linear policy takes them a tenth as large."""
    return np.clip(obs, -20, 20) / 10.0


def play_episode(
    env: LevataEnv,
    seed: int,
    choose: Callable[[np.ndarray, np.ndarray], int],
    bots: dict[str, object],
    trace: list[tuple[np.ndarray, np.ndarray, int]] | None = None,
) -> float:
    """One deal from ``seed``: the learner chooses with ``choose``, the bots as they do; the
    learner's decisions go to ``trace``; its score comes back."""
    env.reset(seed=seed)
    reward = 0.0
    for agent in env.agent_iter():
        obs, rew, terminated, truncated, _ = env.last()
        if agent == LEARNER:
            reward += rew
        if terminated or truncated:
            env.step(None)
            continue
        if agent == LEARNER and agent not in bots:
            x = features(obs["observation"])
            action = choose(x, obs["action_mask"])
            if trace is not None:
                trace.append((x, obs["action_mask"], action))
        else:
            seat = env.possible_agents.index(agent)
            state = env.table.state  # type: ignore[union-attr]
            chosen = bots[agent].act(state.view(seat), state.legal_actions(seat))  # type: ignore[attr-defined]
            action = env.encoding.index(chosen)
        env.step(action)
    return reward


def evaluate(
    env: LevataEnv, policy: LinearPolicy, bots: dict[str, object], deals: int
) -> tuple[float, float]:
    """Mean score and its standard error over ``deals`` fixed deals, the policy greedy-free
    (it samples, as it was trained)."""
    scores = [play_episode(env, EVAL_SEED + i, policy.sample, bots) for i in range(deals)]
    return float(np.mean(scores)), float(np.std(scores) / np.sqrt(len(scores)))


def train(minutes: float, episodes: int | None, lr: float, seed: int, eval_deals: int) -> None:
    env = LevataEnv(GAME, players=PLAYERS, options=OPTIONS, reward="score")
    bots = {
        a: make_bot("heuristic", GAME, seed=seed + i)
        for i, a in enumerate(env.possible_agents)
        if a != LEARNER
    }
    rng = np.random.default_rng(seed)
    policy = LinearPolicy(env.encoding.size, env.encoding.actions, rng)
    reference = {**bots, LEARNER: make_bot("heuristic", GAME, seed=seed)}
    ref, ref_se = evaluate(env, policy, reference, eval_deals)
    print(f"the heuristic bot in the learner's seat: {ref:+.2f} ± {ref_se:.2f} points a deal")
    before, before_se = evaluate(env, policy, bots, eval_deals)
    print(f"before training (random legal play): {before:+.2f} ± {before_se:.2f} points a deal")
    baseline, done, start = 0.0, 0, time.monotonic()
    while (episodes is None and time.monotonic() - start < minutes * 60) or (
        episodes is not None and done < episodes
    ):
        trace: list[tuple[np.ndarray, np.ndarray, int]] = []
        ret = play_episode(env, seed * 1_000_000 + done, policy.sample, bots, trace)
        advantage = ret - baseline
        baseline += 0.01 * (ret - baseline)
        for x, mask, a in trace:  # the gradient of log softmax: one-hot minus probabilities
            g = -policy.probabilities(x, mask)
            g[a] += 1.0
            policy.w += lr * advantage * np.outer(g, x)
            policy.b += lr * advantage * g
        done += 1
        if done % 2000 == 0:
            print(f"  {done} deals, {time.monotonic() - start:.0f} s, running mean {baseline:+.2f}")
    after, after_se = evaluate(env, policy, bots, eval_deals)
    print(f"after {done} training deals: {after:+.2f} ± {after_se:.2f} points a deal")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--episodes", type=int, help="train this many deals (not the clock)")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-deals", type=int, default=1000)
    args = parser.parse_args()
    train(args.minutes, args.episodes, args.lr, args.seed, args.eval_deals)


if __name__ == "__main__":
    main()
