"""sb3-contrib's MaskablePPO against the random or the greedy bot, through the library's adapter.

The agent plays seat 0 of ``AmericanSniffGymEnv`` matches, the other seats
played by ``--opponent``, through :func:`american_sniff.envs.sb3.maskable_env`
(the observation flat and scaled, the legal actions from ``action_masks()``),
in ``--envs`` copies side by side (Stable-Baselines3's ``DummyVecEnv``). The
reward is ``"points"`` divided by 100 (Stable-Baselines3's ``VecNormalize``
is not needed). Training stops after ``--seconds`` or ``--steps``, whichever
comes first (60 seconds when neither is given). The model then plays,
choosing its most likely legal action, against the random and the greedy
bots over duplicate deals with seats swapped (:func:`american_sniff.evaluation.evaluate`, through
:func:`american_sniff.envs.sb3.model_policy`), as does the untrained model
before training.

Needs the ``learn`` extra (PyTorch, CPU build, pinned, and sb3-contrib;
docs/ai.md says how to install it). Run:

    python docs/examples/maskable_ppo.py --seconds 300 --opponent greedy
    python docs/examples/maskable_ppo.py --steps 2048 --deals 4      # what CI runs (a brief run)

With ``--check MARGIN`` the run fails (exit status 1) unless the trained
model's win rate against ``random`` is at least the untrained one's plus
``MARGIN``, and the lower end of its 95% interval is above the even rate.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import gymnasium  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from american_sniff.envs.sb3 import maskable_env, model_policy  # noqa: E402
from american_sniff.evaluation import Evaluation, evaluate  # noqa: E402


class Deadline(BaseCallback):
    """Stops training once the wall clock passes ``deadline`` (``time.monotonic()``)."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def _on_step(self) -> bool:
        return time.monotonic() < self.deadline


class PointsScaled(gymnasium.RewardWrapper):
    """The points reward divided by 100 (a match is won at 250)."""

    def reward(self, reward: Any) -> float:
        """The scaled reward."""
        return float(reward) / 100.0


def report(label: str, model: Any, run: Any) -> dict[str, Evaluation]:
    """The model (its most likely legal action) against the random and greedy bots."""
    results = {}
    for bot in ("random", "greedy"):
        results[bot] = evaluate(
            model_policy(model),
            bot,
            players=run.players,
            deals=run.deals,
            seed=run.seed + 1,
            scaled=True,
        )
        print(f"{label}, against {bot}: {results[bot].summary()}", flush=True)
    return results


def verdict(before: Evaluation, after: Evaluation, margin: float) -> str | None:
    """Why ``--check`` fails, or None: the rate must gain ``margin``, its interval clear even."""
    if after.win_rate < before.win_rate + margin or after.low <= after.even:
        return (
            f"CHECK FAILED: against random {after.win_rate:.1%} (lower end {after.low:.1%}), "
            f"untrained {before.win_rate:.1%}, margin {margin:.1%}"
        )
    return None


def main(argv: list[str] | None = None) -> int:
    """Train, print the evaluations before and after, and apply ``--check``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=None, help="training time (wall; 60 without --steps)"
    )
    parser.add_argument("--steps", type=int, default=None, help="stop after this many steps")
    parser.add_argument("--opponent", default="random", choices=("random", "greedy"))
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--envs", type=int, default=8, help="environments side by side")
    parser.add_argument("--rollout", type=int, default=64, help="steps an environment per update")
    parser.add_argument("--rate", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--deals", type=int, default=100, help="evaluation deals")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--check", type=float, default=None, metavar="MARGIN", help="fail unless it improved"
    )
    run = parser.parse_args(argv)
    if run.seconds is None:
        run.seconds = 60.0 if run.steps is None else float("inf")
    if run.steps is None:
        run.steps = 10**12
    if run.seconds <= 0 or run.steps < 1 or run.deals < 1:
        parser.error("--seconds, --steps and --deals must be positive")
    torch.set_num_threads(1)
    env = DummyVecEnv(
        [
            lambda: PointsScaled(maskable_env(run.players, opponent=run.opponent, reward="points"))
            for _ in range(run.envs)
        ]
    )
    env.seed(run.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=run.rollout,
        batch_size=128,
        n_epochs=4,
        learning_rate=run.rate,
        ent_coef=0.01,
        seed=run.seed,
        verbose=0,
    )
    before = report("before", model, run)
    start = time.monotonic()
    model.learn(total_timesteps=run.steps, callback=Deadline(start + run.seconds))
    elapsed = time.monotonic() - start
    steps = model.num_timesteps
    print(
        f"trained: {steps} steps in {elapsed:.1f}s ({steps / elapsed:,.0f} steps a second)",
        flush=True,
    )
    after = report("after", model, run)
    if run.check is not None:
        failure = verdict(before["random"], after["random"], run.check)
        if failure is not None:
            print(failure, file=sys.stderr)
            return 1
        print(
            f"check passed: {before['random'].win_rate:.1%} -> "
            f"{after['random'].win_rate:.1%} against random"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
