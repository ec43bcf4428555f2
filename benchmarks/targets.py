"""Issue 29's speed targets, side by side in one run: each measured, each against its target.

One process measures, in turn:

* ``c-2p`` / ``c-4p``: the C batch kernel, 1,024 slots, steps a second with
  the legal masks written (``batch.py``'s workload: random legal actions
  recorded first, then ``step_into`` alone timed); target 10 million;
* ``numpy-2p`` / ``numpy-4p``: the same with the numpy kernel, the fallback
  without a compiler, at ``--numpy-slots`` (4,096 by default: numpy's fixed
  cost a call is most of a step's at 1,024, whose rate is given beside it);
  target 1 million;
* ``vector-2p`` / ``vector-4p``: the Gymnasium ``AmericanSniffVectorEnv``
  with 1,024 matches against the ``"random"`` opponent (played inside the
  kernel), learner steps a second with the learner's time taken out
  (``vecenv.py``'s workload); target 1 million;
* ``openspiel``: OpenSpiel's ``python_team_dominoes`` (4 players, chance
  steps included, ``envs.py``'s workload) and the C kernel's ratio to it;
  target 100;
* ``pure``, with ``--pure``: ``bench.py --compare`` in a child process with
  the sources first on ``sys.path`` (the pure build), against ``dominoes``
  6.1.0 on whole matches and on first rounds; target 1.0 each.

The cost of choosing the actions is given apart, as issue 29 asks: from the
masks with numpy (``batch.py``'s measure), per slot.

Rates are by CPU time, the best of ``--runs`` runs. A target not met is
printed as such; the exit status is 0 whatever the timings (it is 1 only if
a measurement could not run). ``--json PATH`` writes every number with the
date, the load average and the kernels present. ::

    python hatch_build.py --batch-in-place     # the C kernel, for an editable install
    python benchmarks/targets.py --runs 3 --pure --json targets.json
    python benchmarks/targets.py --quick       # a few seconds: that it all runs
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

HERE = Path(__file__).resolve().parent

#: Each measurement's target, and its unit.
TARGETS: dict[str, tuple[float, str]] = {
    "c-2p": (10e6, "steps/s"),
    "c-4p": (10e6, "steps/s"),
    "numpy-2p": (1e6, "steps/s"),
    "numpy-4p": (1e6, "steps/s"),
    "vector-2p": (1e6, "learner steps/s"),
    "vector-4p": (1e6, "learner steps/s"),
    "openspiel-ratio": (100.0, "x python_team_dominoes"),
    "pure-whole": (1.0, "x dominoes"),
    "pure-first": (1.0, "x dominoes"),
}


def _sibling(name: str) -> ModuleType:
    """The benchmark script ``name``.py next to this one, imported as a module."""
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", HERE / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@attrs.frozen
class Plan:
    """How much each measurement plays."""

    #: Slots of the kernels, and matches of the vector environment.
    slots: int
    #: Slots of the numpy kernel's target row.
    numpy_slots: int
    #: Steps of a kernel's recording and of each of its replays.
    steps: int
    #: Steps of the vector environment a run (each one a step of every match).
    vector_steps: int
    #: Runs of each measurement; the best one counts.
    runs: int


def kernel_rate(
    batch: ModuleType, backend: str, players: int, plan: Plan, slots: int | None = None
) -> float:
    """Best steps a CPU-second of ``backend`` over ``plan.runs`` replays of one recording.

    ``slots`` defaults to ``plan.slots``.
    """
    slots = plan.slots if slots is None else slots
    recorded = batch.record(backend, players, slots, plan.steps)
    best = 0.0
    for _ in range(plan.runs):
        taken, spent = batch.replay(backend, players, slots, recorded)
        best = max(best, taken / spent if spent else 0.0)
    return best


def vector_rate(vecenv: ModuleType, backend: str, players: int, plan: Plan) -> dict[str, float]:
    """The vector environment's best run (by learner steps a second), as ``vecenv.py`` gives it."""
    run = argparse.Namespace(
        players=players,
        envs=plan.slots,
        steps=plan.vector_steps,
        backend=backend,
        opponent="kernel",
        scaled=False,
        no_copy=False,
    )
    results = [vecenv.run_once(run, seed) for seed in range(plan.runs)]
    best: dict[str, float] = max(results, key=lambda r: r["learner_steps_per_s"])
    return best


def openspiel_rate(seconds: float) -> float | None:
    """``python_team_dominoes``' steps a CPU-second (4 players), or None without open_spiel."""
    if importlib.util.find_spec("pyspiel") is None:
        return None
    envs = _sibling("envs")
    workload = envs.WORKLOADS["team_dominoes"][0]
    steps, spent = workload(4, seconds, 1)
    return float(steps / spent)


def pure_ratios(runs: int, quick: bool) -> dict[str, Any] | None:
    """``bench.py --compare`` on the pure build, in a child process: ratios and build, or None."""
    if importlib.util.find_spec("dominoes") is None:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        report_path = Path(scratch) / "bench.json"
        command = [sys.executable, str(HERE / "bench.py"), "--compare", "--json", str(report_path)]
        command += ["--quick"] if quick else ["--runs", str(runs)]
        environment = dict(os.environ, AMERICAN_SNIFF_PURE="1")
        source = str(HERE.parent / "src")
        environment["PYTHONPATH"] = os.pathsep.join(
            [source, *filter(None, [environment.get("PYTHONPATH")])]
        )
        subprocess.run(command, check=True, env=environment, stdout=subprocess.DEVNULL)
        report = json.loads(report_path.read_text(encoding="utf-8"))
    return {"ratios": report["ratios"], "build": report["meta"]["build"]}


def _line(name: str, value: float | None, note: str = "") -> dict[str, Any]:
    target, unit = TARGETS[name]
    if value is None:
        print(f"  {name:<16} not measured here {note}")
        return {"value": None, "target": target, "unit": unit, "met": None}
    met = value >= target
    shown = f"{value:,.0f}" if value >= 1000 else f"{value:,.3f}"
    print(
        f"  {name:<16} {shown:>14} {unit:<24} target {target:,g}: "
        f"{'met' if met else 'NOT met'} {note}"
    )
    return {"value": value, "target": target, "unit": unit, "met": met}


def main(argv: list[str] | None = None) -> int:
    """Measure every target and print the table; 0 unless a measurement could not run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=1024, help="slots and envs (default 1024)")
    parser.add_argument(
        "--numpy-slots", type=int, default=4096, help="the numpy kernel's slots (default 4096)"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pure", action="store_true", help="also bench.py --compare, pure build")
    parser.add_argument("--quick", action="store_true", help="a short run that checks it works")
    parser.add_argument("--json", metavar="PATH", help="write the results to PATH as JSON")
    options = parser.parse_args(argv)
    plan = Plan(options.slots, options.numpy_slots, 200, 100, options.runs)
    if options.quick:
        plan = Plan(64, 128, 20, 10, 1)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from american_sniff.batch import BACKENDS  # noqa: PLC0415

    batch, vecenv = _sibling("batch"), _sibling("vecenv")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"issue 29's targets: {plan.slots} slots ({plan.numpy_slots} for numpy), "
        f"best of {plan.runs} runs by CPU time; "
        f"kernels {', '.join(BACKENDS)}; load average {load:.2f}"
    )
    results: dict[str, Any] = {}
    rates: dict[str, float] = {}
    for backend in ("c", "numpy"):
        for players in (2, 4):
            name = f"{backend}-{players}p"
            if backend not in BACKENDS:
                results[name] = _line(name, None, f"(no {backend} kernel)")
                continue
            if backend != "numpy":
                rates[name] = kernel_rate(batch, backend, players, plan)
                results[name] = _line(name, rates[name])
                continue
            rates[name] = kernel_rate(batch, backend, players, plan, plan.numpy_slots)
            note = f"({plan.numpy_slots:,} slots)"
            at_slots = None
            if plan.numpy_slots != plan.slots:
                at_slots = kernel_rate(batch, backend, players, plan)
                note = f"({plan.numpy_slots:,} slots; {at_slots:,.0f} at {plan.slots:,})"
            results[name] = _line(name, rates[name], note)
            results[name]["slots"] = plan.numpy_slots
            results[name]["at_slots"] = at_slots
    vector_backend = "c" if "c" in BACKENDS else "numpy" if "numpy" in BACKENDS else "python"
    if importlib.util.find_spec("gymnasium") is None:
        for players in (2, 4):
            results[f"vector-{players}p"] = _line(f"vector-{players}p", None, "(no gymnasium)")
    else:
        for players in (2, 4):
            name = f"vector-{players}p"
            best = vector_rate(vecenv, vector_backend, players, plan)
            results[name] = _line(
                name,
                best["learner_steps_per_s"],
                f"({vector_backend} kernel; engine steps {best['engine_steps_per_s']:,.0f}/s)",
            )
            results[name]["detail"] = best
    theirs = openspiel_rate(0.5 if options.quick else 3.0)
    ours = rates.get("c-4p")
    results["openspiel-ratio"] = _line(
        "openspiel-ratio",
        None if theirs is None or ours is None else ours / theirs,
        "" if theirs is None else f"(python_team_dominoes {theirs:,.0f} steps/s, C kernel 4p)",
    )
    results["openspiel-ratio"]["python_team_dominoes"] = theirs
    if options.pure:
        pure = pure_ratios(plan.runs, options.quick)
        kind = None if pure is None else pure["build"].get("kind")
        for workload in ("whole", "first"):
            value = None if pure is None else pure["ratios"].get(workload)
            results[f"pure-{workload}"] = _line(f"pure-{workload}", value, f"({kind} build)")
    cost = batch.choosing_cost(plan.slots, 3 if options.quick else 50)
    if cost is not None:
        print(f"  choosing an action from the masks with numpy: {cost * 1e9:,.0f} ns a slot")
    results["choosing_ns_per_slot"] = None if cost is None else cost * 1e9
    if options.json:
        report = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "load_average": load,
            "kernels": list(BACKENDS),
            "slots": plan.slots,
            "numpy_slots": plan.numpy_slots,
            "runs": plan.runs,
            "unix_time": time.time(),
            "results": results,
        }
        Path(options.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {options.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
