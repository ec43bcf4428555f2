"""The batch kernel's speed by batch size, back to back and between a policy's calls.

For each number of slots, random legal play is recorded for ``--steps``
steps, then replayed twice by the C kernel, which steps every slot
(``step_facts_into``, masks written) and makes the observations of the seats
to move (``observe_into``, ``float32``):

* **alone**: the kernel's calls back to back, nothing between them;
* **MLP between**: between the kernel's calls a small MLP (375 -> 128 ->
  450, numpy, one thread) reads the observations and the masks, as a
  learner's policy would (its choices unused, so both replays play the same).

Only the kernel's own calls are timed (CPU time), so the difference between
the two is what the policy's arrays cost the kernel by pushing its data out
of the caches. The batch's own arrays grow with the slots: state 192 bytes,
facts 112, mask 450 and observation 1,500 a slot, about 2.2 KB, so 1,024
slots hold about 2.3 MB and 16,384 about 36 MB.

Usage: ``python benchmarks/batchsize.py [--players 2] [--sizes 256,1024,4096,16384]
[--steps 60] [--quick]``. Needs the C kernel (``python hatch_build.py
--batch-in-place`` in a clone).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

# One BLAS thread: the policy's products are small (set before numpy loads).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from american_sniff.batch import BACKENDS  # noqa: E402
from american_sniff.envs.batched import BatchedMatches  # noqa: E402
from american_sniff.observation import OBSERVATION_SIZE  # noqa: E402


class MLP:
    """A small two-layer policy: ReLU hidden layer, logits masked to the legal actions."""

    def __init__(self, seed: int, hidden: int = 128) -> None:
        generator = np.random.default_rng(seed)
        self.w1 = generator.normal(0, 0.05, (OBSERVATION_SIZE, hidden)).astype(np.float32)
        self.w2 = generator.normal(0, 0.05, (hidden, 450)).astype(np.float32)

    def __call__(self, observations: Any, masks: Any) -> Any:
        """The best legal action of each row by the network's logits."""
        hidden = np.maximum(observations @ self.w1, 0.0)
        logits = hidden @ self.w2
        return np.where(masks, logits, -np.inf).argmax(axis=1)


def record(players: int, slots: int, steps: int) -> tuple[Any, Any]:
    """A batch's starting state and facts, and ``steps`` rounds of random legal actions from it."""
    matches = BatchedMatches(slots, players)
    matches.reset(1)
    start = (matches.state.copy(), matches.facts.copy(), matches.mask.copy())
    generator = np.random.default_rng(2)
    actions = np.empty((steps, slots), np.int64)
    for t in range(steps):
        actions[t] = (generator.random(matches.mask.shape) * matches.mask).argmax(axis=1)
        matches.step(actions[t])  # (a finished slot refuses: it still costs a step)
    return start, actions


def rates(start: Any, actions: Any, policy: MLP | None) -> tuple[float, float]:
    """Kernel steps and observations a second (CPU time of the kernel's calls alone).

    The recorded actions are replayed from the starting state; with a
    policy, it runs between the kernel's calls (its choices unused).
    """
    kernel: Any = BACKENDS["c"]
    state, facts, mask = (array.copy() for array in start)
    slots = len(state)
    rewards = np.empty((slots, 4), np.int32)
    done = np.zeros(slots, np.bool_)
    errors = np.empty(slots, np.uint8)
    seen = np.empty((slots, OBSERVATION_SIZE), np.float32)
    kernel.observe_into(state, facts, seen)
    stepping = observing = 0.0
    for chosen in actions:
        if policy is not None:
            policy(seen, mask)
        begin = time.process_time()
        kernel.step_facts_into(state, facts, chosen, mask, rewards, done, errors)
        middle = time.process_time()
        kernel.observe_into(state, facts, seen)
        stepping += middle - begin
        observing += time.process_time() - middle
    count = actions.size
    return count / stepping, count / observing


def main() -> None:
    """Print the kernel's rate by batch size, back to back and between the MLP's calls."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--sizes", default="256,1024,4096,16384")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    run = parser.parse_args()
    if "c" not in BACKENDS:
        raise SystemExit("the C kernel is not built here (python hatch_build.py --batch-in-place)")
    sizes = [int(size) for size in run.sizes.split(",")]
    if run.quick:
        sizes, run.steps = [64, 256], 5
    policy = MLP(0)
    print(
        f"C kernel, {run.players} players, {run.steps} steps replayed "
        "(M a second, CPU time of the kernel's calls alone):"
    )
    print("   slots  step_facts_into        observe_into (float32)")
    print("          alone  MLP between     alone  MLP between")
    for slots in sizes:
        start, actions = record(run.players, slots, run.steps)
        step_alone, observe_alone = rates(start, actions, None)
        step_between, observe_between = rates(start, actions, policy)
        print(
            f"  {slots:>6}  {step_alone / 1e6:>5.2f}  {step_between / 1e6:>11.2f}"
            f"     {observe_alone / 1e6:>5.2f}  {observe_between / 1e6:>11.2f}"
        )


if __name__ == "__main__":
    main()
