"""Speed and memory benchmark for american-sniff, optionally against ``dominoes`` 6.1.0.

Plays random-legal matches through the public API only (``new_match``,
``legal_moves``, ``apply``), picking uniformly from the legal moves with a
seeded :class:`random.Random`, on two workloads (the same ones as
``benchmarks/instructions.py``):

* ``whole``: whole matches, each to its winner;
* ``first``: fresh matches, each only to the end of its first round (until
  ``state.round`` changes: the move that ends the round also deals the next);

and reports:

* the build it timed: ``american_sniff.COMPILED`` (mypyc-compiled or pure
  Python), the file of the imported ``american_sniff.engine``, Python and CPU;
* for each workload, actions per second (every ``apply``), the time per action
  and per round, as the median of several runs, by the wall clock and by the
  process's CPU time (which other processes disturb less);
* the median cost of one ``legal_moves`` call on a fresh mid-round state (its
  legal-move cache still empty) and of one ``apply`` of a legal move;
* the deep size of a mid-round state and how much of it is shared with the
  state before it.

``--compare`` also plays fresh ``dominoes`` games (the PyPI package, untyped and
mutable) in the same process, alternating the engines run by run, and prints
two ratios: for whole matches, of actions per second; for first rounds, of
rounds per second (a ``dominoes`` game is one round). ``--quick`` does all of
it in a few seconds for CI: it exits 0 whatever the timings, and non-zero only
when something is broken (the engine raises, a match does not finish, a check
fails).

See ``benchmarks/README.md`` for how to read the numbers.
"""

from __future__ import annotations

import argparse
import datetime
import enum
import gc
import importlib
import importlib.metadata
import json
import os
import platform
import random
import statistics
import sys
import time
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import american_sniff.engine
from american_sniff import (
    COMPILED,
    Draw,
    MatchState,
    Move,
    Pass,
    Place,
    __version__,
    apply,
    legal_moves,
    new_match,
)

#: A match that takes more actions than this is reported as broken. Random
#: 4-player play averages about 575 actions a match; the longest of 2,000
#: seeded matches took about 2,200.
MAX_MATCH_ACTIONS = 100_000
#: A ``dominoes`` game places at most all 28 tiles (passes are not moves there).
MAX_GAME_MOVES = 28
#: The fields of :class:`MatchState` an ``apply`` must never change.
STATE_FIELDS = (
    "info",
    "turn",
    "hands",
    "layout",
    "scores",
    "winner",
    "drawn",
    "drawn_count",
    "_log",
)
#: A state is "mid-round" once this many tiles lie on the table.
MID_ROUND_TILES = 3
#: The competitor's version the comparison was written for.
DOMINOES_VERSION = "6.1.0"

SNIFF = "american-sniff"
DOMINOES = "dominoes"

#: The workloads, by their ``--workload`` names, and how the report names them.
WHOLE = "whole"
FIRST = "first"
WORKLOADS = {WHOLE: "whole matches", FIRST: "first rounds"}
#: What a ``dominoes`` run plays: fresh games, each one whole game of one round,
#: which is the counterpart of both workloads; one series of runs serves both.
GAMES = "games"
#: The unit each workload's ratio counts: per action for whole matches, per
#: round for first rounds.
RATIO_UNIT = {WHOLE: "action", FIRST: "round"}


class BenchmarkError(Exception):
    """Something is broken (not merely slow): the benchmark must fail."""


# -- configuration -------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """How long one run lasts: whole matches until a time or an action count is reached."""

    seconds: float | None
    actions: int | None

    def reached(self, actions: int, elapsed: float) -> bool:
        """Whether a run that made ``actions`` actions in ``elapsed`` seconds is done."""
        if self.actions is not None:
            return actions >= self.actions
        return self.seconds is not None and elapsed >= self.seconds

    def describe(self) -> str:
        """The budget in words."""
        if self.actions is not None:
            return f"{self.actions} actions"
        return f"{self.seconds} s"


@dataclass(frozen=True)
class Config:
    """The resolved settings of one benchmark invocation."""

    players: int
    seed: int
    budget: Budget
    runs: int
    workloads: tuple[str, ...]
    compare: bool
    quick: bool
    samples: int
    memory_samples: int
    repeats: int
    warmup: Budget
    json_path: str | None


def parse_args(argv: Sequence[str] | None = None) -> Config:
    """Read the command line into a :class:`Config`, filling in the quick or full defaults."""
    parser = argparse.ArgumentParser(
        description="Benchmark american-sniff (optionally against dominoes 6.1.0).",
    )
    parser.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=4, help="american-sniff seats"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of every run (default 1)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--seconds", type=float, help="length of each run in seconds (default 2; 0.25 quick)"
    )
    budget.add_argument("--actions", type=int, help="actions per run instead of --seconds")
    parser.add_argument(
        "--runs", type=int, help="runs per engine, alternating engines (default 5; 2 quick)"
    )
    parser.add_argument(
        "--samples",
        type=int,
        help="mid-round states for the legal_moves/apply timings (default 1000; 60 quick)",
    )
    parser.add_argument(
        "--workload",
        choices=(WHOLE, FIRST, "both"),
        default="both",
        help="whole matches, fresh matches to the end of their first round, or both (default)",
    )
    parser.add_argument("--compare", action="store_true", help="also time dominoes, if importable")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a few seconds in all, for CI: every measurement, no timing can fail",
    )
    parser.add_argument("--json", metavar="PATH", help="write the results to PATH as JSON")
    args = parser.parse_args(argv)

    quick: bool = args.quick
    seconds: float | None = args.seconds
    actions: int | None = args.actions
    if seconds is None and actions is None:
        seconds = 0.25 if quick else 2.0
    if seconds is not None and not seconds > 0:
        parser.error("--seconds must be positive")
    if actions is not None and actions < 1:
        parser.error("--actions must be at least 1")
    runs: int = args.runs if args.runs is not None else (2 if quick else 5)
    if runs < 1:
        parser.error("--runs must be at least 1")
    samples: int = args.samples if args.samples is not None else (60 if quick else 1000)
    if samples < 1:
        parser.error("--samples must be at least 1")
    workload: str = args.workload
    return Config(
        players=args.players,
        seed=args.seed,
        budget=Budget(seconds, actions),
        runs=runs,
        workloads=(WHOLE, FIRST) if workload == "both" else (workload,),
        compare=args.compare,
        quick=quick,
        samples=samples,
        memory_samples=min(samples, 20 if quick else 200),
        repeats=5 if quick else 20,
        warmup=Budget(None, 1) if quick else Budget(0.3, None),
        json_path=args.json,
    )


# -- throughput ----------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    """What one run of one engine did on one workload, and in how long."""

    engine: str
    #: :data:`WHOLE` or :data:`FIRST` for american-sniff, :data:`GAMES` for dominoes.
    workload: str
    run: int
    actions: int
    #: Finished rounds: how often ``state.round`` went up (dominoes: games).
    rounds: int
    matches: int
    #: Rounds dealt and played to their end, the last round of each match
    #: included: the unit of the time per round (dominoes: games).
    rounds_played: int
    seconds: float
    #: CPU time of the process during the run: less disturbed by other processes.
    cpu_seconds: float

    @property
    def actions_per_second(self) -> float:
        """Actions (``apply`` or ``make_move`` calls) per second."""
        return self.actions / self.seconds

    @property
    def actions_per_cpu_second(self) -> float:
        """Actions per second of process CPU time."""
        return self.actions / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    @property
    def rounds_per_second(self) -> float:
        """Finished rounds (american-sniff) or games (dominoes) per second."""
        return self.rounds / self.seconds

    @property
    def rounds_played_per_second(self) -> float:
        """Rounds played to their end per second."""
        return self.rounds_played / self.seconds

    @property
    def rounds_played_per_cpu_second(self) -> float:
        """Rounds played to their end per second of process CPU time."""
        return self.rounds_played / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The run as plain data for the JSON report."""
        return {
            "engine": self.engine,
            "workload": self.workload,
            "run": self.run,
            "actions": self.actions,
            "rounds": self.rounds,
            "matches": self.matches,
            "rounds_played": self.rounds_played,
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
            "actions_per_second": self.actions_per_second,
            "actions_per_cpu_second": self.actions_per_cpu_second,
            "rounds_per_second": self.rounds_per_second,
            "rounds_played_per_second": self.rounds_played_per_second,
        }


def check_finished(state: MatchState) -> None:
    """Raise :class:`BenchmarkError` unless ``state`` is a properly won match."""
    winner = state.winner
    if winner is None or not state.is_over:
        raise BenchmarkError(f"the match loop stopped on an unfinished match: {state!r}")
    if not 0 <= winner < state.sides or state.scores[winner] < state.target:
        raise BenchmarkError(f"side {winner} won without reaching the target: {state!r}")
    if legal_moves(state) != ():
        raise BenchmarkError(f"a finished match still offers moves: {state!r}")


def check_first_round(state: MatchState) -> None:
    """Raise :class:`BenchmarkError` unless ``state`` is how a first round can end.

    Either the next round has been dealt (round 2, nothing on the table, no
    winner), or the first round ended the match, which must then be properly
    won. (No seeded 4-player match of the first thousands does the latter.)
    """
    if state.winner is not None:
        check_finished(state)
    elif state.round != 2 or state.layout.count != 0:
        raise BenchmarkError(f"the first round ended without a fresh deal of round 2: {state!r}")


def play_sniff(
    players: int, seed: int, budget: Budget, run: int = 0, workload: str = WHOLE
) -> RunResult:
    """Play random-legal american-sniff matches until ``budget`` is reached.

    Every match is dealt from a seed drawn from ``random.Random(seed)``, which
    also picks each move uniformly from ``legal_moves``. With ``workload``
    :data:`WHOLE` each match is played to its winner; with :data:`FIRST` only
    until ``state.round`` changes (the move that ends the first round also
    deals the second), or, should the first round end the match, to its winner.

    An action is one ``apply``; a round is counted each time ``state.round``
    goes up (the last round of a match, ended by reaching the target, does not
    go up, so it counts as a match, not as a finished round).
    ``rounds_played`` counts every round played to its end, the last included.

    :raises BenchmarkError: if a match does not finish or the round skips a number.
    """
    first = workload == FIRST
    rng = random.Random(seed)
    choice = rng.choice
    clock = time.perf_counter
    actions = rounds = matches = played = 0
    cpu = time.process_time()
    start = clock()
    while True:
        state = new_match(players, seed=rng.getrandbits(64))
        number = state.round
        limit = actions + MAX_MATCH_ACTIONS
        while state.winner is None:
            state = apply(state, choice(legal_moves(state)))
            actions += 1
            if state.round != number:
                number += 1
                rounds += 1
                if state.round != number:
                    raise BenchmarkError(f"round went from {number - 1} to {state.round}")
                if first:
                    break
            if actions > limit:
                raise BenchmarkError(f"a match did not finish in {MAX_MATCH_ACTIONS} actions")
        matches += 1
        if first:
            check_first_round(state)
            played += 1
        else:
            check_finished(state)
            played += state.round
        elapsed = clock() - start
        if budget.reached(actions, elapsed):
            cpu = time.process_time() - cpu
            return RunResult(SNIFF, workload, run, actions, rounds, matches, played, elapsed, cpu)


def play_dominoes(module: Any, seed: int, budget: Budget, run: int = 0) -> RunResult:
    """Play fresh random 4-player ``dominoes`` games until ``budget`` is reached.

    ``dominoes.Game.new()`` shuffles with the global :mod:`random` generator,
    so it is seeded with ``seed`` for the run (and restored afterwards); moves
    are picked uniformly from ``game.valid_moves`` by ``random.Random(seed)``
    until ``game.result`` is set. Each ``make_move`` is an action and each game
    a round (and a match): the counterpart of american-sniff's whole matches
    and of its first rounds alike. The game passes for stuck players itself, so
    passes are not actions there.

    :raises BenchmarkError: if a game does not end after all 28 tiles.
    """
    saved = random.getstate()
    random.seed(seed)
    try:
        rng = random.Random(seed)
        choice = rng.choice
        new_game = module.Game.new
        clock = time.perf_counter
        actions = games = 0
        cpu = time.process_time()
        start = clock()
        while True:
            game = new_game()
            moves = 0
            while game.result is None:
                game.make_move(*choice(game.valid_moves))
                moves += 1
                if moves > MAX_GAME_MOVES:
                    raise BenchmarkError(f"a dominoes game did not end in {moves} moves")
            actions += moves
            games += 1
            elapsed = clock() - start
            if budget.reached(actions, elapsed):
                cpu = time.process_time() - cpu
                return RunResult(DOMINOES, GAMES, run, actions, games, games, games, elapsed, cpu)
    finally:
        random.setstate(saved)


# -- mid-round samples -------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """A mid-round state, how it was reached, and a legal move to apply to it."""

    #: The state before (its legal-move cache filled, as in play).
    parent: MatchState
    #: The move that led from ``parent`` to ``state``.
    move: Move
    #: The mid-round state (its legal-move cache filled).
    state: MatchState
    #: A legal move in ``state``, picked uniformly.
    next_move: Move


def check_unchanged(before: tuple[object, ...], state: MatchState) -> None:
    """Raise :class:`BenchmarkError` if ``apply`` changed a field of ``state``."""
    after = tuple(getattr(state, name) for name in STATE_FIELDS)
    for name, old, new in zip(STATE_FIELDS, before, after, strict=True):
        if old is not new:
            raise BenchmarkError(f"apply changed field {name} of the state it was given")


def collect_samples(
    players: int, seed: int, count: int, *, keep: float = 0.1
) -> tuple[list[Sample], dict[str, int]]:
    """Play seeded random matches and keep ``count`` mid-round states, spread over many matches.

    A state qualifies when the match is not over and at least
    :data:`MID_ROUND_TILES` tiles lie on the table; each one is kept with
    probability ``keep``. Also returns how often each kind of move was played,
    and checks on the way that ``apply`` never changes the state it is given.
    """
    rng = random.Random(f"samples-{seed}")
    mix = {"place": 0, "draw": 0, "pass": 0}
    kinds: dict[type, str] = {Place: "place", Draw: "draw", Pass: "pass"}
    samples: list[Sample] = []
    while len(samples) < count:
        state = new_match(players, seed=rng.getrandbits(64))
        parent: MatchState | None = None
        move: Move | None = None
        steps = 0
        while state.winner is None:
            moves = legal_moves(state)
            chosen = rng.choice(moves)
            if (
                parent is not None
                and move is not None
                and state.layout.count >= MID_ROUND_TILES
                and len(samples) < count
                and rng.random() < keep
            ):
                samples.append(Sample(parent, move, state, chosen))
            before = tuple(getattr(state, name) for name in STATE_FIELDS)
            parent, move = state, chosen
            state = apply(state, chosen)
            check_unchanged(before, parent)
            if state is parent:
                raise BenchmarkError("apply returned the state it was given")
            mix[kinds[type(chosen)]] += 1
            steps += 1
            if steps > MAX_MATCH_ACTIONS:
                raise BenchmarkError(f"a match did not finish in {MAX_MATCH_ACTIONS} actions")
        check_finished(state)
    return samples, mix


# -- micro-benchmarks --------------------------------------------------------------


@dataclass(frozen=True)
class MicroResult:
    """Median microseconds per call of each timed operation, over the sampled states."""

    legal_moves_fresh: float
    legal_moves_cached: float
    apply_after_legal_moves: float
    apply_fresh: float

    def as_dict(self) -> dict[str, float]:
        """The timings as plain data for the JSON report."""
        return {
            "legal_moves_fresh_us": self.legal_moves_fresh,
            "legal_moves_cached_us": self.legal_moves_cached,
            "apply_after_legal_moves_us": self.apply_after_legal_moves,
            "apply_fresh_us": self.apply_fresh,
        }


def time_calls(samples: Sequence[Sample], repeats: int) -> MicroResult:
    """One pass of the micro-benchmarks over ``samples``; each time is per call, in µs.

    The engine caches ``legal_moves`` inside a state on its first call, so a
    second call on the same state costs almost nothing. To time the real work,
    each sample is rebuilt ``repeats`` times with ``apply(parent, move)`` (an
    equal state with an empty cache each time, built outside the timed loop),
    and the first ``legal_moves`` call on each copy is timed; the loop over the
    copies is then timed again for the cached call. ``apply`` is timed
    ``repeats`` times on the sampled state, whose cache is filled as it is in
    play (``apply`` takes a fast path for a move ``legal_moves`` handed out),
    and once on each fresh copy, where it validates the move from scratch.

    Each sample's time is the mean of its ``repeats`` calls (one call is too
    short for the clock); the result is the median over the samples. The cost
    of the ``for`` loop, some tens of nanoseconds, is included.
    """
    clock = time.perf_counter_ns
    fresh_lm: list[float] = []
    cached_lm: list[float] = []
    applied: list[float] = []
    applied_fresh: list[float] = []
    loop = range(repeats)
    for sample in samples:
        parent, move, state, next_move = sample.parent, sample.move, sample.state, sample.next_move
        copies = [apply(parent, move) for _ in loop]
        t0 = clock()
        for copy in copies:
            legal_moves(copy)
        t1 = clock()
        for copy in copies:
            legal_moves(copy)
        t2 = clock()
        for _ in loop:
            apply(state, next_move)
        t3 = clock()
        copies = [apply(parent, move) for _ in loop]
        t4 = clock()
        for copy in copies:
            apply(copy, next_move)
        t5 = clock()
        fresh_lm.append((t1 - t0) / repeats / 1000)
        cached_lm.append((t2 - t1) / repeats / 1000)
        applied.append((t3 - t2) / repeats / 1000)
        applied_fresh.append((t5 - t4) / repeats / 1000)
        if legal_moves(copies[0]) != legal_moves(state):
            raise BenchmarkError("equal states gave different legal moves")
    return MicroResult(
        statistics.median(fresh_lm),
        statistics.median(cached_lm),
        statistics.median(applied),
        statistics.median(applied_fresh),
    )


# -- memory --------------------------------------------------------------------------


_SLOT_NAMES: dict[type, tuple[str, ...]] = {}
_UNSET = object()


def _slot_names(cls: type) -> tuple[str, ...]:
    names = _SLOT_NAMES.get(cls)
    if names is None:
        found: list[str] = []
        for klass in cls.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            if isinstance(slots, str):
                slots = (slots,)
            found.extend(name for name in slots if name not in ("__weakref__", "__dict__"))
        if not found and cls.__module__.startswith("american_sniff"):
            # A native class of the compiled build keeps no __slots__: its
            # fields are attrs' fields (or the match args), and its private
            # stores (the logs, the kept hash) are descriptors of its type.
            fields = getattr(cls, "__attrs_attrs__", None)
            found = (
                [field.name for field in fields]
                if fields is not None
                else list(getattr(cls, "__match_args__", ()))
            )
            found += [
                name
                for name in ("_log", "_legal", "_hash")
                if name not in found and isinstance(vars(cls).get(name), types.GetSetDescriptorType)
            ]
        names = _SLOT_NAMES[cls] = tuple(found)
    return names


def reachable(root: object) -> dict[int, object]:
    """Every object reachable from ``root``, each once, keyed by ``id``.

    The walk follows tuples, lists, sets, dicts, ``__slots__`` (attrs classes)
    and the values of an instance ``__dict__``; ints, strings, ``None`` and enum members are
    leaves, and classes, functions and modules are not counted at all. Holding
    the objects keeps their ids valid while the result is alive.
    """
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        key = id(obj)
        if key in seen or isinstance(obj, type) or callable(obj):
            continue
        seen[key] = obj
        if isinstance(obj, (tuple, list, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif not isinstance(obj, enum.Enum):
            for name in _slot_names(type(obj)):
                # An unset slot (a hash not cached yet) gives the sentinel.
                value = getattr(obj, name, _UNSET)
                if value is not _UNSET:
                    stack.append(value)
            stack.extend(getattr(obj, "__dict__", {}).values())
    return seen


def size_of(objects: Iterable[object]) -> int:
    """The total ``sys.getsizeof`` of ``objects``."""
    return sum(sys.getsizeof(obj) for obj in objects)


def deep_size(root: object) -> int:
    """The bytes of every object reachable from ``root``, each counted once."""
    return size_of(reachable(root).values())


@dataclass(frozen=True)
class MemoryResult:
    """Medians over the sampled mid-round states of their memory figures."""

    deep_size: float
    deep_size_cached: float
    objects: float
    shared_fraction: float
    new_bytes: float
    samples: int

    def as_dict(self) -> dict[str, float]:
        """The figures as plain data for the JSON report."""
        return {
            "deep_size_bytes": self.deep_size,
            "deep_size_with_cache_bytes": self.deep_size_cached,
            "objects": self.objects,
            "shared_fraction": self.shared_fraction,
            "new_bytes_per_action": self.new_bytes,
            "samples": self.samples,
        }


def measure_memory(samples: Sequence[Sample]) -> MemoryResult:
    """The deep size of mid-round states and what they share with the state before.

    The state measured is ``apply(parent, move)`` as ``apply`` returns it (cache
    empty), and again with its legal-move cache filled. Its sharing is the
    fraction of its deep size made of objects (by identity) that are also
    reachable from ``parent``, as ``parent`` stood in play (cache filled); the
    rest is what the action newly allocated and keeps alive.
    """
    sizes: list[int] = []
    cached_sizes: list[int] = []
    counts: list[int] = []
    fractions: list[float] = []
    new_bytes: list[int] = []
    for sample in samples:
        state = apply(sample.parent, sample.move)
        before = reachable(sample.parent)
        after = reachable(state)
        total = size_of(after.values())
        shared = size_of(obj for key, obj in after.items() if key in before)
        sizes.append(total)
        counts.append(len(after))
        fractions.append(shared / total)
        new_bytes.append(total - shared)
        legal_moves(state)
        cached_sizes.append(deep_size(state))
    return MemoryResult(
        statistics.median(sizes),
        statistics.median(cached_sizes),
        statistics.median(counts),
        statistics.median(fractions),
        statistics.median(new_bytes),
        len(samples),
    )


# -- the whole benchmark -----------------------------------------------------------


def load_dominoes() -> tuple[Any, str | None]:
    """The ``dominoes`` module and its version, or ``(None, None)`` if it is not importable."""
    try:
        module: Any = importlib.import_module("dominoes")
    except ImportError:
        return None, None
    try:
        version = importlib.metadata.version("dominoes")
    except importlib.metadata.PackageNotFoundError:
        version = str(getattr(module, "__version__", "unknown"))
    return module, version


def cpu_model() -> str:
    """The CPU model name, as the OS reports it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def median_of(values: Iterable[float]) -> float:
    """The median of ``values``."""
    return statistics.median(list(values))


@dataclass(frozen=True)
class Build:
    """Which american-sniff the benchmark imported and timed, and on what."""

    #: ``american_sniff.COMPILED``: True for the mypyc-compiled build.
    compiled: bool
    #: The file of the imported ``american_sniff.engine`` module.
    engine_file: str
    #: Whether that file is this checkout's ``src/american_sniff/engine.py``.
    from_checkout: bool
    python: str
    implementation: str
    cpu: str

    @property
    def kind(self) -> str:
        """The build in words."""
        return "mypyc-compiled" if self.compiled else "pure Python"

    def as_dict(self) -> dict[str, Any]:
        """The build as plain data for the JSON report."""
        return {
            "compiled": self.compiled,
            "kind": self.kind,
            "engine_file": self.engine_file,
            "from_checkout": self.from_checkout,
            "python": self.python,
            "implementation": self.implementation,
            "cpu": self.cpu,
        }


def current_build() -> Build:
    """The build of the imported ``american_sniff``, with the Python and CPU running it."""
    path = american_sniff.engine.__file__
    engine_file = os.path.realpath(path) if path else "unknown"
    checkout = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    return Build(
        compiled=COMPILED,
        engine_file=engine_file,
        from_checkout=os.path.dirname(engine_file)
        == os.path.join(checkout, "src", "american_sniff"),
        python=platform.python_version(),
        implementation=platform.python_implementation(),
        cpu=cpu_model(),
    )


def summarize(runs: Sequence[RunResult]) -> dict[str, float]:
    """The medians over ``runs`` of their rates, and of their times per action and per round."""
    return {
        "runs": len(runs),
        "actions_per_second": median_of(r.actions_per_second for r in runs),
        "rounds_per_second": median_of(r.rounds_per_second for r in runs),
        "rounds_played_per_second": median_of(r.rounds_played_per_second for r in runs),
        "actions_per_cpu_second": median_of(r.actions_per_cpu_second for r in runs),
        "rounds_played_per_cpu_second": median_of(r.rounds_played_per_cpu_second for r in runs),
        "us_per_action": median_of(1e6 * r.seconds / r.actions for r in runs),
        "us_per_round": median_of(1e6 * r.seconds / r.rounds_played for r in runs),
        "cpu_us_per_action": median_of(1e6 * r.cpu_seconds / r.actions for r in runs),
        "cpu_us_per_round": median_of(1e6 * r.cpu_seconds / r.rounds_played for r in runs),
    }


def compare_runs(
    workload: str, sniff_runs: Sequence[RunResult], other_runs: Sequence[RunResult]
) -> dict[str, Any]:
    """The speed ratios american-sniff / dominoes on ``workload``: >1 is faster than dominoes.

    For whole matches the unit is the action, for first rounds the round (a
    ``dominoes`` game is one round): each ratio is american-sniff's median
    units per second over ``dominoes``'s, which is ``dominoes``'s time per unit
    over american-sniff's. The run-by-run ratios pair run *i* of each engine.
    """
    unit = RATIO_UNIT[workload]
    result: dict[str, Any] = {}
    for label, attribute in (
        ("", "actions_per_second" if unit == "action" else "rounds_played_per_second"),
        ("cpu_", "actions_per_cpu_second" if unit == "action" else "rounds_played_per_cpu_second"),
    ):
        ours = median_of(getattr(r, attribute) for r in sniff_runs)
        theirs = median_of(getattr(r, attribute) for r in other_runs)
        paired = [
            getattr(s, attribute) / getattr(d, attribute) if getattr(d, attribute) > 0 else 0.0
            for s, d in zip(sniff_runs, other_runs, strict=True)
        ]
        result[f"{label}ratio"] = ours / theirs if theirs > 0 else 0.0
        result[f"{label}paired_ratios"] = paired
    return result


def print_times(engine: str, rates: dict[str, float], round_word: str) -> None:
    """Print one engine's median times per action and per round, by the clock and by CPU time."""
    print(
        f"  {engine:<15}{rates['us_per_action']:>9.3f} us/action"
        f"{rates['us_per_round']:>10.1f} us/{round_word:<6}"
        f" (CPU time: {rates['cpu_us_per_action']:.3f} us/action,"
        f" {rates['cpu_us_per_round']:.1f} us/{round_word})"
    )


def ratio_line(workload: str, ratio: float) -> str:
    """The headline ratio of ``workload``, e.g. ``whole matches: 1.204x dominoes per action``."""
    return f"{WORKLOADS[workload] + ':':<15}{ratio:.3f}x dominoes per {RATIO_UNIT[workload]}"


def _timed(engine: Callable[[], RunResult]) -> RunResult:
    gc.collect()
    return engine()


def run_benchmark(config: Config) -> dict[str, Any]:
    """Run every measurement ``config`` asks for, print a report and return it as data."""
    dominoes: Any = None
    dominoes_version: str | None = None
    if config.compare:
        dominoes, dominoes_version = load_dominoes()
    build = current_build()
    print(
        f"american-sniff {__version__}"
        + (f" vs dominoes {dominoes_version}" if dominoes is not None else "")
    )
    print(
        f"build: {build.kind} (american_sniff.COMPILED={build.compiled})"
        f" | engine {build.engine_file}"
    )
    print(f"Python {build.python} ({build.implementation}) | CPU {build.cpu}")
    if not build.from_checkout:
        print("note: that engine is not this checkout's src/; it is the one Python imports")
    print(
        f"players={config.players} seed={config.seed} runs={config.runs} "
        f"per run={config.budget.describe()} workloads={','.join(config.workloads)} "
        f"quick={config.quick}"
    )
    if config.compare and dominoes is None:
        print("--compare: dominoes is not importable; comparison skipped")
    elif dominoes is not None:
        if dominoes_version != DOMINOES_VERSION:
            print(f"warning: dominoes {dominoes_version} installed, written for {DOMINOES_VERSION}")
        if config.players != 4:
            print(f"note: dominoes is always 4 players; american-sniff plays {config.players}")

    def sniff(workload: str, budget: Budget, run: int) -> Callable[[], RunResult]:
        return lambda: play_sniff(config.players, config.seed, budget, run, workload)

    def other(budget: Budget, run: int) -> Callable[[], RunResult]:
        return lambda: play_dominoes(dominoes, config.seed, budget, run)

    def series(budget: Budget, run: int) -> list[Callable[[], RunResult]]:
        order = [sniff(workload, budget, run) for workload in config.workloads]
        if dominoes is not None:
            order.append(other(budget, run))
        return order

    # Warm up each series once, untimed, then alternate: odd runs play
    # american-sniff first (whole matches, then first rounds) and dominoes
    # last, even runs the reverse. One series of dominoes games serves both
    # workloads: a fresh game is both its whole match and its first round.
    for engine in series(config.warmup, 0):
        _timed(engine)
    results: list[RunResult] = []
    print(
        f"\n{'run':>3}  {'engine':<15}{'workload':<9}{'actions':>9}{'rounds':>8}{'matches':>8}"
        f"{'seconds':>8}{'actions/s':>11}{'rounds/s':>10}{'act/cpu-s':>11}"
    )
    for run in range(1, config.runs + 1):
        order = series(config.budget, run)
        if run % 2 == 0:
            order.reverse()
        for engine in order:
            result = _timed(engine)
            results.append(result)
            print(
                f"{result.run:>3}  {result.engine:<15}{result.workload:<9}{result.actions:>9}"
                f"{result.rounds:>8}{result.matches:>8}{result.seconds:>8.3f}"
                f"{result.actions_per_second:>11,.0f}{result.rounds_per_second:>10,.1f}"
                f"{result.actions_per_cpu_second:>11,.0f}"
            )

    other_runs = [r for r in results if r.engine == DOMINOES]
    other_summary = summarize(other_runs) if other_runs else None
    workloads: dict[str, Any] = {}
    for workload in config.workloads:
        sniff_runs = [r for r in results if r.engine == SNIFF and r.workload == workload]
        entry: dict[str, Any] = {
            "name": WORKLOADS[workload],
            "unit": RATIO_UNIT[workload],
            SNIFF: summarize(sniff_runs),
        }
        print(
            f"\n{WORKLOADS[workload]}, median of {config.runs} runs"
            f" (per round: {'every round played' if workload == WHOLE else 'the first round'}"
            + ("; dominoes: per game" if other_summary is not None else "")
            + "):"
        )
        print_times(SNIFF, entry[SNIFF], "round")
        if other_summary is not None:
            entry[DOMINOES] = other_summary
            print_times(DOMINOES, other_summary, "game")
            comparison = compare_runs(workload, sniff_runs, other_runs)
            entry.update(comparison)
            paired = comparison["paired_ratios"]
            print(
                f"  {ratio_line(workload, comparison['ratio'])}"
                f" (by CPU time {comparison['cpu_ratio']:.3f}x)"
                f"  [run by run: median {statistics.median(paired):.3f},"
                f" range {min(paired):.3f}-{max(paired):.3f}]"
            )
        workloads[workload] = entry

    # Micro-benchmarks and memory, on mid-round states.
    samples, mix = collect_samples(config.players, config.seed, config.samples)
    passes = [time_calls(samples, config.repeats) for _ in range(config.runs)]
    micro = MicroResult(
        median_of(p.legal_moves_fresh for p in passes),
        median_of(p.legal_moves_cached for p in passes),
        median_of(p.apply_after_legal_moves for p in passes),
        median_of(p.apply_fresh for p in passes),
    )
    print(
        f"\nper call, median over {len(samples)} mid-round states "
        f"(mean of {config.repeats} calls each; median of {config.runs} passes):"
    )
    print(f"  legal_moves, fresh state (first call)    {micro.legal_moves_fresh:8.2f} us")
    print(f"  legal_moves, cached (second call)        {micro.legal_moves_cached:8.2f} us")
    print(f"  apply, after legal_moves (fast path)     {micro.apply_after_legal_moves:8.2f} us")
    print(f"  apply, fresh state (validating path)     {micro.apply_fresh:8.2f} us")

    memory = measure_memory(samples[: config.memory_samples])
    print(f"\nmemory, median over {memory.samples} mid-round states:")
    print(
        f"  deep size of a state                     {memory.deep_size:8,.0f} bytes"
        f" ({memory.objects:,.0f} objects)"
    )
    print(f"  ... with its legal-move cache filled     {memory.deep_size_cached:8,.0f} bytes")
    print(f"  shared with the previous state           {memory.shared_fraction:8.1%}")
    print(f"  new bytes per action                     {memory.new_bytes:8,.0f} bytes")
    played = sum(mix.values())
    print(
        "\naction mix: "
        + ", ".join(f"{kind} {count / played:.1%}" for kind, count in mix.items())
        + f" (of {played:,} actions)"
    )

    # The headline: the build, then one line per workload.
    print(
        f"\n== american-sniff {__version__}, {build.kind} build"
        f" (COMPILED={build.compiled}), Python {build.python}"
        + (f", against dominoes {dominoes_version}" if other_summary is not None else "")
        + " =="
    )
    for workload, entry in workloads.items():
        ours = entry[SNIFF]
        unit = RATIO_UNIT[workload]
        key = "us_per_action" if unit == "action" else "us_per_round"
        if other_summary is None:
            print(
                f"{WORKLOADS[workload] + ':':<15}{ours['us_per_action']:.3f} us per action,"
                f" {ours['us_per_round']:.1f} us per round"
            )
        else:
            print(
                f"{ratio_line(workload, entry['ratio'])}"
                f"  ({SNIFF} {ours[key]:.{3 if unit == 'action' else 1}f} us,"
                f" {DOMINOES} {other_summary[key]:.{3 if unit == 'action' else 1}f} us;"
                f" by CPU time {entry['cpu_ratio']:.3f}x)"
            )
    return {
        "meta": {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": sys.version,
            "platform": platform.platform(),
            "cpu": build.cpu,
            "american_sniff": __version__,
            "dominoes": dominoes_version,
            "build": build.as_dict(),
        },
        "config": {
            "players": config.players,
            "seed": config.seed,
            "runs": config.runs,
            "seconds": config.budget.seconds,
            "actions": config.budget.actions,
            "workloads": list(config.workloads),
            "compare": config.compare,
            "quick": config.quick,
            "samples": len(samples),
            "repeats": config.repeats,
        },
        "runs": [r.as_dict() for r in results],
        "workloads": workloads,
        "ratios": {
            workload: entry["ratio"] for workload, entry in workloads.items() if "ratio" in entry
        },
        "micro": micro.as_dict(),
        "memory": memory.as_dict(),
        "action_mix": mix,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 0 on success, 1 if something is broken (never for slowness)."""
    config = parse_args(argv)
    start = time.perf_counter()
    try:
        report = run_benchmark(config)
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    report["meta"]["wall_seconds"] = time.perf_counter() - start
    if config.json_path is not None:
        with open(config.json_path, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=2)
            out.write("\n")
        print(f"\nwrote {config.json_path}")
    print(f"\ntotal {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
