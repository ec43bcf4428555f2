"""Steps per second of the Gymnasium vector environment (american_sniff.envs.vector).

N slots of :class:`~american_sniff.envs.vector.AmericanSniffVectorEnv`, the
learner at seat 0 of each, the other seats played by a random batched policy
(:class:`~american_sniff.envs.batched.RandomPolicy`, which does not look at
the observations, so none are made for it); the learner's actions are chosen
by another one. Both policies' calls are timed apart and taken out: what is
left is the environment (the batch kernel's steps, the observations' facts,
the learner's observation and mask, rewards, flags, auto-reset).

Two counts are given: *learner steps* (``env.step`` calls times N, the
steps a learner sees) and *engine steps* (every action applied, the
opponents' included, their forced actions too, which a policy opponent is
not asked for). Rates are by CPU time, the best of the runs.

With ``--opponent kernel`` (the default) the opponent is ``"random"``,
played inside the kernel (``BatchedMatches.play_random``), so there is no
opponent's time to take out; ``--opponent policy`` asks a ``RandomPolicy``
as any policy is asked, and takes its time out; ``--opponent frozen`` does
the same with a policy that looks (``observes`` True, as a frozen copy of a
learner does), so the opponents' observations are made and handed to it,
scaled with ``--scaled``; with ``--no-copy`` the environment returns its own
observation array each step (``copy=False``), as a trainer that copies the
observations into its rollout buffer would make it.

Usage: ``python benchmarks/vecenv.py [--players 2] [--envs 1024] [--steps 100]
[--runs 3] [--backend c|numpy|python] [--opponent kernel|policy|frozen]
[--scaled] [--no-copy] [--quick]``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from american_sniff.batch import BACKEND
from american_sniff.envs.batched import RandomPolicy
from american_sniff.envs.vector import AmericanSniffVectorEnv


class Timed:
    """A policy whose calls are timed (CPU) and counted."""

    def __init__(self, policy: Any, *, observes: bool | None = None) -> None:
        self.policy = policy
        self.observes = getattr(policy, "observes", True) if observes is None else observes
        self.seconds = 0.0
        self.rows = 0

    def __call__(self, observations: Any, masks: Any) -> Any:
        """The wrapped policy's actions, its time and rows counted."""
        start = time.process_time()
        actions = self.policy(observations, masks)
        self.seconds += time.process_time() - start
        self.rows += len(masks)
        return actions


class Counted:
    """``BatchedMatches.play_random`` or ``play_policy`` with the actions it applies counted."""

    def __init__(self, play: Any) -> None:
        self.play = play
        self.rows = 0

    def __call__(self, *args: Any, **options: Any) -> Any:
        """The wrapped method's result, its actions counted (forced ones included)."""
        result = self.play(*args, **options)
        self.rows += result.applied
        return result


def run_once(run: argparse.Namespace, seed: int) -> dict[str, float]:
    """One timed run: the rates of the environment, the policies' time taken out."""
    opponent = Timed(RandomPolicy(seed), observes=run.opponent == "frozen" or None)
    learner = Timed(RandomPolicy(seed + 1))
    env = AmericanSniffVectorEnv(
        run.envs,
        run.players,
        opponent="random" if run.opponent == "kernel" else opponent,
        backend=run.backend,
        reward="points",
        scaled=run.scaled,
        copy=not run.no_copy,
    )
    counted = Counted(env.matches.play_random)
    env.matches.play_random = counted  # type: ignore[method-assign]
    counted_policy = Counted(env.matches.play_policy)
    env.matches.play_policy = counted_policy  # type: ignore[method-assign]
    observations, infos = env.reset(seed=seed)
    opponent.seconds = 0.0
    opponent.rows = 0
    counted.rows = counted_policy.rows = 0
    start = time.process_time()
    for _ in range(run.steps):
        actions = learner(observations, infos["action_mask"])
        observations, _, _, _, infos = env.step(actions)
    total = time.process_time() - start
    environment = total - learner.seconds - opponent.seconds
    learner_steps = run.steps * run.envs
    engine_steps = learner_steps + counted_policy.rows + counted.rows
    return {
        "learner_steps_per_s": learner_steps / environment,
        "engine_steps_per_s": engine_steps / environment,
        "with_policies_learner_steps_per_s": learner_steps / total,
        "opponent_us_per_row": 1e6 * opponent.seconds / max(opponent.rows, 1),
        "opponent_share": opponent.seconds / total,
        "engine_steps_per_learner_step": engine_steps / learner_steps,
    }


def main() -> None:
    """Run the benchmark and print the best run's rates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backend", default=BACKEND, choices=("c", "numpy", "python"))
    parser.add_argument(
        "--opponent",
        default="kernel",
        choices=("kernel", "policy", "frozen"),
        help='"kernel": opponent="random", played inside the kernel (the default); '
        '"policy": a RandomPolicy asked as any policy is, its time taken out; '
        '"frozen": the same, given the observations, as a frozen learner is',
    )
    parser.add_argument("--scaled", action="store_true", help="scaled observations")
    parser.add_argument(
        "--no-copy", action="store_true", help="copy=False: the environment's own observation array"
    )
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    run = parser.parse_args()
    if run.quick:
        run.envs, run.steps, run.runs = 32, 10, 1
    results = [run_once(run, seed) for seed in range(run.runs)]
    best = max(results, key=lambda r: r["learner_steps_per_s"])
    print(
        f"vector env, {run.players} players, {run.envs} envs, {run.steps} steps, "
        f"{run.backend} kernel, {run.opponent} opponent{', scaled' if run.scaled else ''}"
        f"{', copy=False' if run.no_copy else ''} "
        f"(best of {run.runs}, CPU time, policies' time taken out):"
    )
    print(f"  learner steps/s:            {best['learner_steps_per_s']:,.0f}")
    print(f"  engine steps/s:             {best['engine_steps_per_s']:,.0f}")
    print(f"  engine steps a learner step: {best['engine_steps_per_learner_step']:.2f}")
    print(f"  with the policies, learner steps/s: {best['with_policies_learner_steps_per_s']:,.0f}")
    if run.opponent != "kernel":
        print(
            f"  the random opponent: {best['opponent_us_per_row']:.2f} us a row, "
            f"{best['opponent_share']:.0%} of the time"
        )
    assert np.isfinite(best["learner_steps_per_s"])


if __name__ == "__main__":
    main()
