"""Self-play on the vector environment: a masked linear softmax policy trained by REINFORCE.

The learner plays seat 0 of every slot of an
:class:`~american_sniff.envs.vector.AmericanSniffVectorEnv`; the other seats
are played by a frozen copy of the learner, refreshed every ``--refresh``
updates. Numpy only (no deep-learning framework): the policy is one matrix,
its logits masked to the legal actions. It sees the observations as the
library scales them (:func:`american_sniff.observation.scaled`): the
environment gives them so (``scaled=True``), to the learner and to the frozen
opponent alike, and so does the evaluation harness
(:func:`american_sniff.evaluation.evaluate`, ``scaled=True``), which plays the
learner against the random and the greedy bots over duplicate deals before
and after training.

    python docs/examples/selfplay.py --seconds 60
    python docs/examples/selfplay.py --seconds 3 --envs 64 --deals 4    # what CI runs
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from typing import Any

# The policy's products are small: BLAS's threads would only contend with each
# other (and, on a shared machine, with everything else). Set before numpy loads.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from american_sniff.envs.vector import AmericanSniffVectorEnv  # noqa: E402
from american_sniff.evaluation import evaluate  # noqa: E402
from american_sniff.observation import OBSERVATION_SIZE  # noqa: E402

ACTIONS = 450


class LinearPolicy:
    """A softmax over the legal actions of ``observation @ weights + bias``, sampled.

    The observations it is given are scaled ones (see the module).
    """

    def __init__(self, seed: int) -> None:
        self.weights = np.zeros((OBSERVATION_SIZE, ACTIONS), np.float32)
        self.bias = np.zeros(ACTIONS, np.float32)
        self.generator = np.random.default_rng(seed)

    def probabilities(self, observations: Any, masks: Any) -> Any:
        """Each row's distribution over its legal actions."""
        logits = np.asarray(observations, np.float32) @ self.weights + self.bias
        logits = np.where(masks, logits, -np.inf)
        logits -= np.where(masks, logits, -1e30).max(axis=1, keepdims=True)
        weights = np.where(masks, np.exp(np.where(masks, logits, 0.0)), 0.0)
        return weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-30)

    def __call__(self, observations: Any, masks: Any) -> Any:
        """One sampled action a row (the batched policy that the environment and harness call).

        (A row with no legal action, a slot being reset, gets 0, which is ignored.)
        """
        cumulative = self.probabilities(observations, masks).cumsum(axis=1)
        draws = self.generator.random((len(cumulative), 1)) * cumulative[:, -1:]
        # The first action whose cumulative weight passes the draw has a weight: it is legal.
        return np.argmax(cumulative > draws, axis=1)


def train(policy: LinearPolicy, run: argparse.Namespace) -> tuple[int, int]:
    """REINFORCE for ``run.seconds``; returns (updates, learner steps)."""
    env = AmericanSniffVectorEnv(
        run.envs, run.players, opponent=copy.deepcopy(policy), reward="points", scaled=True
    )
    observations, infos = env.reset(seed=run.seed)
    fresh = np.zeros(run.envs, bool)  # a slot whose next action is ignored (it is being reset)
    updates = steps = 0
    deadline = time.monotonic() + run.seconds
    while time.monotonic() < deadline:
        batch_x, batch_mask, batch_a, rewards, valid, ends = [], [], [], [], [], []
        for _ in range(run.horizon):
            masks = infos["action_mask"]
            actions = policy(observations, masks)
            batch_x.append(observations)
            batch_mask.append(masks)
            batch_a.append(actions)
            valid.append(~fresh & masks.any(axis=1))
            observations, reward, terminated, truncated, infos = env.step(actions)
            rewards.append(reward / 10.0)
            ends.append(terminated | truncated)
            fresh = terminated | truncated
            steps += run.envs
        # The return of each step: the rewards that follow it, up to its episode's end.
        returns = np.zeros((run.horizon, run.envs))
        following = np.zeros(run.envs)
        for t in reversed(range(run.horizon)):
            following = rewards[t] + np.where(ends[t], 0.0, following)
            returns[t] = following
        advantage = (returns - returns.mean()) / (returns.std() + 1e-6)
        x = np.concatenate(batch_x)
        m = np.concatenate(batch_mask)
        a = np.concatenate(batch_a)
        keep = np.concatenate(valid)
        weight = (advantage.reshape(-1) * keep).astype(np.float32)
        p = policy.probabilities(x, m)
        grad = -p
        grad[np.arange(len(a)), a] += 1.0  # d log p(a) / d logits
        grad *= weight[:, None] / max(int(keep.sum()), 1)
        policy.weights += run.rate * (x.T @ grad).astype(np.float32)
        policy.bias += run.rate * grad.sum(axis=0).astype(np.float32)
        updates += 1
        if updates % run.refresh == 0:
            env.set_opponent(copy.deepcopy(policy))
    return updates, steps


def report(label: str, policy: LinearPolicy, run: argparse.Namespace) -> None:
    """The policy against the random and the greedy bots, over duplicate deals."""
    for bot in ("random", "greedy"):
        result = evaluate(
            policy, bot, players=run.players, deals=run.deals, seed=run.seed + 1, scaled=True
        )
        print(f"{label}, against {bot}: {result.summary()}")


def main(argv: list[str] | None = None) -> int:
    """Train for ``--seconds`` and print the evaluations before and after."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="training time")
    parser.add_argument("--envs", type=int, default=256, help="matches played at once")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--horizon", type=int, default=16, help="steps a slot per update")
    parser.add_argument("--rate", type=float, default=0.05, help="learning rate")
    parser.add_argument("--refresh", type=int, default=10, help="updates between opponents")
    parser.add_argument("--deals", type=int, default=20, help="evaluation deals")
    parser.add_argument("--seed", type=int, default=0)
    run = parser.parse_args(argv)
    policy = LinearPolicy(run.seed)
    report("before", policy, run)
    start = time.monotonic()
    updates, steps = train(policy, run)
    elapsed = time.monotonic() - start
    print(f"trained: {updates} updates, {steps} learner steps in {elapsed:.1f}s")
    report("after", policy, run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
