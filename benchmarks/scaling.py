"""How the server's CPU per action changes with its workers on PostgreSQL, and why.

Runs ``benchmarks/serve.py --load-only --pictures --db URL --workers N`` (the
load client that asks for exactly what the shipped page asks for) for
several numbers of workers and of matches, in rounds, each configuration
once a round in turn (so that a slower minute of the machine falls on all
of them alike), and prints the median of each configuration's server CPU
per action (summed over the supervisor and every worker; the database's
own CPU beside it) with the actions a second and the round trip's p99.

Three comparisons come out of one run:

* **one worker's own load**: one worker with ``M/4``, ``M/2`` and ``M``
  matches. A worker's CPU per action falls as its load grows, since each
  wake of its event loop, each commit and each announcement then serves
  more actions at once;
* **the same total load**: ``M`` matches on 1, 2 and 4 workers. Each of
  N workers carries ``1/N`` of the load, so this mixes the cost of the
  workers' coordination (hand-off, listening, shared limits, leases) with
  the effect above;
* **the same load on each worker**: ``M`` matches on N workers against
  ``M/N`` matches on one worker, which is what adding a worker with a core
  of its own gives: this is the coordination's own cost.

Usage (from the repository root; about 25 s a run, so 8 runs a round)::

    PYTHONPATH=src python benchmarks/scaling.py --db postgresql://127.0.0.1:5432/test
    PYTHONPATH=src python benchmarks/scaling.py --db ... --rounds 3 --json scaling.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_SERVE = Path(__file__).with_name("serve.py")


def _run(db: str, workers: int, matches: int, seconds: float, think: float) -> dict[str, Any]:
    """One load run of ``serve.py``: its ``load`` numbers (and the refused appends)."""
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "run.json"
        done = subprocess.run(
            [
                sys.executable,
                str(_SERVE),
                "--load-only",
                "--pictures",
                "--db",
                db,
                "--workers",
                str(workers),
                "--matches",
                str(matches),
                "--seconds",
                str(seconds),
                "--think",
                str(think),
                "--json",
                str(out),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not out.exists():
            raise SystemExit(
                f"serve.py failed ({workers} workers, {matches} matches):\n{done.stderr}"
            )
        result = json.loads(out.read_text())
    load: dict[str, Any] = result["load"]
    load["refused_appends"] = result.get("refused_appends", 0)
    return load


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return round(float(statistics.median(run[key] for run in runs)), 3)


def main() -> int:
    """Run the rounds and print the three comparisons."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--db", required=True, metavar="URL", help="postgresql://...")
    parser.add_argument("--matches", type=int, default=200, metavar="M")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--think", type=float, default=0.15)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    m = args.matches
    configurations = [(1, m // 4), (1, m // 2), (1, m), (2, m // 2), (2, m), (4, m)]
    runs: dict[tuple[int, int], list[dict[str, Any]]] = {c: [] for c in configurations}
    for number in range(args.rounds):
        for workers, matches in configurations:
            load = _run(args.db, workers, matches, args.seconds, args.think)
            runs[workers, matches].append(load)
            print(
                f"round {number + 1}: {workers} worker(s), {matches} matches: "
                f"{load['actions_per_s']} actions/s, "
                f"{load['server_cpu_ms_per_action']} ms CPU an action",
                file=sys.stderr,
                flush=True,
            )
    table = {
        f"{workers} worker(s), {matches} matches": {
            "actions_per_s": _median(found, "actions_per_s"),
            "server_cpu_ms_per_action": _median(found, "server_cpu_ms_per_action"),
            "each_run_ms": [run["server_cpu_ms_per_action"] for run in found],
            "database_cpu_ms_per_action": _median(found, "database_cpu_ms_per_action"),
            "trip_p99_ms": _median(found, "trip_p99_ms"),
            "refused_appends": sum(run["refused_appends"] for run in found),
        }
        for (workers, matches), found in runs.items()
    }

    def cpu(workers: int, matches: int) -> float:
        return _median(runs[workers, matches], "server_cpu_ms_per_action")

    def growth(more: float, one: float) -> str:
        return f"{(more / one - 1) * 100:+.0f}%"

    comparisons = {
        "same total load": {
            f"{n} workers, {m} matches against 1 worker, {m} matches": growth(cpu(n, m), cpu(1, m))
            for n in (2, 4)
        },
        "same load on each worker": {
            f"{n} workers, {m} matches against 1 worker, {m // n} matches": growth(
                cpu(n, m), cpu(1, m // n)
            )
            for n in (2, 4)
        }
        | {
            f"2 workers, {m // 2} matches against 1 worker, {m // 4} matches": growth(
                cpu(2, m // 2), cpu(1, m // 4)
            )
        },
        "one worker's own load": {
            f"1 worker, {k} matches against {m}": growth(cpu(1, k), cpu(1, m))
            for k in (m // 4, m // 2)
        },
    }
    report = {
        "runs": table,
        "comparisons": comparisons,
        "meta": {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "rounds": args.rounds,
            "seconds": args.seconds,
            "think": args.think,
        },
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
