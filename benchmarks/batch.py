"""Steps per second of the batched engine (american_sniff.batch): the C kernel and the Python one.

The workload is random legal play in N slots at once. The actions are chosen
first, in a recording run (uniformly among each slot's legal actions, from
the masks), and then the timed run replays them from a fresh reset: what is
timed is ``step_into`` alone, which applies the actions and writes every
slot's legal mask, rewards, done flag and error code. Only the steps a slot
takes count (a slot whose match ended refuses the rest of its actions, and
those refusals are not counted). The cost of choosing the actions from the
masks is measured apart, with numpy where it is installed.

Usage: ``python benchmarks/batch.py [--players 2] [--slots 1024] [--steps 200]
[--runs 3] [--quick]``. The C kernel needs the extension (the compiled wheel,
or ``python hatch_build.py --batch-in-place``); without it only the Python
kernel is measured. Rates are by CPU time, the best of the runs (timing on
a shared machine varies).
"""

from __future__ import annotations

import argparse
import random
import time
from array import array
from pathlib import Path
from typing import Any

from american_sniff.actions import NUM_ACTIONS
from american_sniff.batch import BACKENDS, OK, STATE_WORDS, reset, step_into


def record(backend: str, players: int, slots: int, steps: int) -> list[array[int]]:
    """The actions of ``steps`` steps of random legal play, one array per step."""
    chooser = random.Random(players)
    out = reset(list(range(slots)), players, backend=backend)
    state, mask = out.state, out.mask
    rewards, done, errors = out.rewards, out.done, out.errors
    recorded = []
    for _ in range(steps):
        actions = array("q")
        for legal in _legal_lists(mask, slots):
            actions.append(chooser.choice(legal) if legal else 0)
        step_into(state, actions, mask, rewards, done, errors, backend=backend)
        recorded.append(actions)
    return recorded


def _legal_lists(mask: Any, slots: int) -> list[list[int]]:
    """Each slot's legal actions, in increasing order (with numpy where it is installed)."""
    try:
        import numpy as np  # noqa: PLC0415
    except ImportError:
        return [
            [a for a in range(NUM_ACTIONS) if mask[slot * NUM_ACTIONS + a]] for slot in range(slots)
        ]
    rows = np.frombuffer(mask, dtype=np.uint8).reshape(slots, NUM_ACTIONS)
    found = np.nonzero(rows)
    cuts = np.searchsorted(found[0], np.arange(1, slots))
    return [part.tolist() for part in np.split(found[1], cuts)]


def replay(backend: str, players: int, slots: int, recorded: list[array[int]]) -> tuple[int, float]:
    """Replay the recorded actions from a fresh reset: (steps taken, CPU seconds in step_into)."""
    out = reset(list(range(slots)), players, backend=backend)
    state, mask = out.state, out.mask
    rewards, done, errors = out.rewards, out.done, out.errors
    taken = 0
    spent = 0.0
    for actions in recorded:
        start = time.process_time()
        step_into(state, actions, mask, rewards, done, errors, backend=backend)
        spent += time.process_time() - start
        taken += sum(1 for code in errors if code == OK)
    return taken, spent


def choosing_cost(slots: int, repeats: int) -> float | None:
    """Seconds a slot to choose a random legal action from a mask with numpy, or None."""
    try:
        import numpy  # noqa: PLC0415
    except ImportError:
        return None
    out = reset(numpy.arange(slots, dtype=numpy.uint64), 2)
    mask: Any = out.mask
    generator = numpy.random.default_rng(0)
    start = time.process_time()
    for _ in range(repeats):
        (generator.random(mask.shape, dtype=numpy.float32) * mask).argmax(axis=1)
    return (time.process_time() - start) / (repeats * slots)


def against_openspiel(rates: dict[str, float], seconds: float) -> None:
    """Time OpenSpiel's ``python_team_dominoes`` in this run, and print each kernel's ratio to it.

    It is ``benchmarks/envs.py``'s workload (random play through the OpenSpiel
    API, chance steps included, by CPU time). It needs the ``openspiel`` extra.
    """
    import importlib.util  # noqa: PLC0415

    if importlib.util.find_spec("pyspiel") is None:
        print("python_team_dominoes: open_spiel is not installed, not measured")
        return
    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location("envs_benchmark", here / "envs.py")
    assert spec is not None
    assert spec.loader is not None
    envs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(envs)
    workload = envs.WORKLOADS["team_dominoes"][0]
    steps, spent = workload(4, seconds, 1)
    theirs = steps / spent
    print(f"python_team_dominoes: {theirs:,.0f} steps/s (4 players, chance steps included)")
    for backend, rate in rates.items():
        print(f"  {backend} / python_team_dominoes: {rate / theirs:,.1f}x")


def main() -> None:
    """Measure and print steps per second for each kernel."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--slots", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a short run that checks it works")
    parser.add_argument(
        "--against-openspiel",
        action="store_true",
        help="also time OpenSpiel's python_team_dominoes (4 players) and give the ratios",
    )
    options = parser.parse_args()
    if options.quick:
        options.slots, options.steps, options.runs = 64, 20, 1
    print(f"players {options.players}, {options.slots} slots, {options.steps} steps a run")
    print(f"state {STATE_WORDS * 4} bytes a slot; kernels here: {', '.join(BACKENDS)}")
    rates: dict[str, float] = {}
    for backend in ("c", "numpy", "python"):
        if backend not in BACKENDS:
            print(f"{backend}: not available here, skipped")
            continue
        slots = options.slots if backend != "python" else max(1, options.slots // 16)
        recorded = record(backend, options.players, slots, options.steps)
        best = 0.0
        for _ in range(options.runs):
            taken, spent = replay(backend, options.players, slots, recorded)
            best = max(best, taken / spent if spent else 0.0)
        rates[backend] = best
        print(f"{backend}: {best:,.0f} steps/s with masks ({slots} slots)")
    if options.against_openspiel:
        against_openspiel(rates, 0.5 if options.quick else 3.0)
    cost = choosing_cost(options.slots, 3 if options.quick else 50)
    if cost is None:
        print("choosing from the masks: numpy is not installed, not measured")
    else:
        print(
            f"choosing from the masks with numpy: {1 / cost:,.0f} choices/s ({cost * 1e9:.0f} ns)"
        )


if __name__ == "__main__":
    main()
