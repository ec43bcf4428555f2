"""Instruction counts of american-sniff and dominoes, under valgrind's callgrind.

Timings on a shared machine move with whatever else runs; instruction counts do
not. This script plays fixed, seeded workloads under ``valgrind
--tool=callgrind`` and reports the instructions each engine executes per action
and per round, after subtracting the cost of starting Python and importing the
engine (the same run with no work). The ratio of two counts tracks the ratio of
run times closely for pure-Python code, and repeats exactly on the same build.

Two workloads, both with 4 players and uniformly random legal moves:

* ``whole``: whole american-sniff matches, against whole ``dominoes`` games;
* ``first``: fresh matches played to the end of their first round (what a game
  app or a search does most), against fresh ``dominoes`` games.

Usage: ``python benchmarks/instructions.py [--matches N] [--games N]``;
``--profile N`` prints instead the N functions that cost american-sniff the
most instructions in each workload (their own instructions, start-up less).
It needs ``valgrind`` on the PATH and, for the comparison, ``dominoes`` 6.1.0
in the same interpreter; without ``dominoes`` it reports american-sniff alone. It
first prints the build it measures: ``american_sniff.COMPILED`` (mypyc-compiled
or pure Python) and the file of the imported ``american_sniff.engine``, which
the american-sniff runs under callgrind must report too.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

WORKLOADS = ("whole", "first")

#: The children run with one fixed string hash: Python's start-up and imports
#: then do the very same work in every run, and what is subtracted as start-up
#: is exact (with random hashing it varies by a few million instructions, some
#: per cent of a short workload's count).
CHILD_ENVIRONMENT = {**os.environ, "PYTHONHASHSEED": "0"}


def play(engine: str, workload: str, count: int) -> tuple[int, int]:
    """Play ``count`` matches (or games) of ``workload``; return (actions, rounds)."""
    actions = rounds = 0
    if engine == "american-sniff":
        from american_sniff import apply, legal_moves, new_match  # noqa: PLC0415

        for seed in range(count):
            rng = random.Random(seed)
            state = new_match(4, seed=seed)
            number = state.round
            while state.winner is None:
                moves = legal_moves(state)
                state = apply(state, moves[rng.randrange(len(moves))])
                actions += 1
                if state.round != number:
                    rounds += 1
                    number = state.round
                    if workload == "first":
                        break
    else:
        dominoes: Any = importlib.import_module("dominoes")  # untyped, and optional

        random.seed(0)  # dominoes deals from the global generator
        for seed in range(count):
            rng = random.Random(seed)
            game = dominoes.Game.new()
            while game.result is None:
                game.make_move(*rng.choice(game.valid_moves))
                actions += 1
            rounds += 1
    return actions, rounds


def build() -> tuple[bool, str]:
    """The american-sniff this interpreter imports: (``COMPILED``, the engine module's file)."""
    import american_sniff.engine  # noqa: PLC0415
    from american_sniff import COMPILED  # noqa: PLC0415

    path = american_sniff.engine.__file__
    return COMPILED, os.path.realpath(path) if path else "unknown"


def describe(compiled: bool, engine_file: str) -> str:
    """A build in words, as the report prints it."""
    kind = "mypyc-compiled" if compiled else "pure Python"
    return f"{kind} (american_sniff.COMPILED={compiled}) | engine {engine_file}"


def count_instructions(
    engine: str, workload: str, count: int, functions: dict[str, int] | None = None
) -> tuple[int, int, int]:
    """Run :func:`play` in a child Python under callgrind: (instructions, actions, rounds).

    With ``functions`` (a dict), also fill it with each function's own
    (exclusive) instruction count, as ``callgrind_annotate`` reports it.

    :raises RuntimeError: if callgrind gives no count, or an american-sniff
        child imported another build than this process.
    """
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        result = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--child",
                engine,
                workload,
                str(count),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=CHILD_ENVIRONMENT,
        )
        if functions is not None:
            functions.update(exclusive_counts(out))
    found = re.search(r"Collected : (\d+)", result.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count:\n{result.stderr}")
    lines = result.stdout.splitlines()
    actions, rounds = (int(n) for n in lines[0].split())
    if engine == "american-sniff":
        flag, engine_file = lines[1].split(maxsplit=1)
        if (flag == "True", engine_file) != build():
            raise RuntimeError(
                f"the child under callgrind measured another build: {lines[1]}"
                f" (this process imports {describe(*build())})"
            )
    return int(found.group(1)), actions, rounds


def exclusive_counts(callgrind_out: str) -> dict[str, int]:
    """Each function's own instructions in a callgrind output file, by ``file:function``."""
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", callgrind_out],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts: dict[str, int] = {}
    for line in text.splitlines():
        found = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\S.*?)(?: \[.*\])?$", line)
        if found and "PROGRAM TOTALS" not in line:
            # The build directory of Python's own sources is of no interest.
            name = re.sub(r"^.*?/Python-[\d.]+/", "", found.group(2))
            counts[name] = counts.get(name, 0) + int(found.group(1).replace(",", ""))
    return counts


def profile(workload: str, count: int, top: int) -> None:
    """Print the ``top`` functions by their own instructions in ``workload``, start-up less.

    The counts are those of a run of ``count`` matches less those of the run
    with none, function by function, so Python's start-up and the imports drop out.
    """
    empty: dict[str, int] = {}
    full: dict[str, int] = {}
    count_instructions("american-sniff", workload, 0, empty)
    _, actions, rounds = count_instructions("american-sniff", workload, count, full)
    costs = {name: full.get(name, 0) - empty.get(name, 0) for name in set(full) | set(empty)}
    total = sum(costs.values())
    print(
        f"profile of {workload}: {total:,} instructions for {actions:,} actions and {rounds:,}"
        f" rounds ({total / actions:,.0f} an action); each function's own instructions:"
    )
    for name, cost in sorted(costs.items(), key=lambda item: -item[1])[:top]:
        print(f"{cost:>13,} {100 * cost / total:5.1f}%  {name}")


def measure(engine: str, workload: str, count: int) -> tuple[float, float]:
    """Instructions per action and per round, less the start-up cost."""
    base, _, _ = count_instructions(engine, workload, 0)
    total, actions, rounds = count_instructions(engine, workload, count)
    return (total - base) / actions, (total - base) / rounds


def main(argv: Sequence[str] | None = None) -> int:
    """Print instructions per action and per round for each engine and workload."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        actions, rounds = play(args[1], args[2], int(args[3]))
        print(actions, rounds)
        if args[1] == "american-sniff":
            compiled, engine_file = build()
            print(compiled, engine_file)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10, help="american-sniff whole matches")
    parser.add_argument("--games", type=int, default=300, help="fresh matches or dominoes games")
    parser.add_argument(
        "--profile",
        type=int,
        metavar="N",
        help="instead, print american-sniff's N costliest functions in each workload",
    )
    options = parser.parse_args(args)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 1
    counts = {"whole": options.matches, "first": options.games}
    if options.profile:
        print(f"build: {describe(*build())}")
        for workload in WORKLOADS:
            profile(workload, counts[workload], options.profile)
        return 0
    try:
        importlib.import_module("dominoes")
    except ImportError:
        engines = ["american-sniff"]
    else:
        engines = ["american-sniff", "dominoes"]
    print(f"build: {describe(*build())}")
    print(f"Python {platform.python_version()} ({platform.python_implementation()})")
    for workload in WORKLOADS:
        results = {}
        for engine in engines:
            count = counts[workload] if engine == "american-sniff" else options.games
            results[engine] = measure(engine, workload, count)
            per_action, per_round = results[engine]
            print(
                f"{workload:<6} {engine:<15} {per_action:>10,.0f} instructions/action"
                f" {per_round:>13,.0f} instructions/round"
            )
        if len(results) == 2:
            ours, theirs = results["american-sniff"], results["dominoes"]
            key = 0 if workload == "whole" else 1
            print(
                f"{workload:<6} speed ratio american-sniff/dominoes: {theirs[key] / ours[key]:.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
