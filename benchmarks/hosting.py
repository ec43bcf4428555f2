"""Instruction counts of the hosting step: views, events, saving and loading, under callgrind.

A server that hosts matches does more per action than ``apply``: it makes a
view or an event for each client, and may save and load the state. This
script counts the instructions of each step, by valgrind's callgrind (the
counts repeat exactly on the same build, unlike timings on a shared machine),
at two points of a round: its **start** (its first five actions) and **late**
(its 20th action on), in round 3 of seeded random matches, for 2 and 4
players. A step that costs the same at both points costs the same at any
point of a round.

Each count is the difference of two runs of a child Python that builds the
same positions: one that then runs the step once on each position, and one
that does not (both with string hashing fixed and the cyclic garbage
collector off, so that the runs differ by the step alone). The steps:

* ``apply``: the engine's move (a legal move handed out for the state);
* ``view``: ``view_for`` of the seat to move, when that seat's view of the
  state before was already made and the engine has listed the legal moves
  (as in a loop that views every state);
* ``view_cold``: ``view_for`` of a state that the engine made and no view
  has seen: it walks the round once;
* ``view_loaded``: ``view_for`` of a state just loaded from the server's own
  signed save (``from_json(text, key=KEY)``), in a server that loaded and
  viewed each state before it the same way;
* ``view_json``: ``view.to_json()``, when the view of the state before was
  written too (as in a loop that sends every view);
* ``event``: ``event_for(state, seat).to_json()``, the per-action message;
* ``state_json``: ``state.to_json()``, when the state before was written too
  (as in a loop that saves every state);
* ``load``: ``MatchState.from_json(text)``, untrusted text, fully validated;
* ``load_signed``: ``MatchState.from_json(text, key=KEY)``, the server's own
  signed save, no replay;
* ``hosting``: the whole hosting step of a server that keeps no state in
  memory, on untrusted text: ``from_json(text)`` of the state before, the
  view of the seat to move and its ``to_json()``, ``apply`` of its first
  legal move, and ``to_json()`` of the state after;
* ``hosting_signed``: the same on the server's own path: ``from_json(text,
  key=KEY)`` and ``to_json(key=KEY)``;
* ``hosting_memory``: the whole hosting step of a server that keeps its
  states in memory and an append-only log of actions (``docs/embedding.md``,
  "The server pattern"): the view of the seat to move and its ``to_json()``,
  ``apply`` of its first legal move, and the append of the action's log line
  (``{"seat":0,"move":"[0|3] opens"}``, the seat and the move's text, which
  the guide's ``resume`` replays), as in a loop that has done the same for
  every state of the round before.

The untrusted loads run once on every text in the setup, so that what a
running process keeps (the moves read by their text, the round before) is
there, as in a server. A signed load runs after the load of the save of the
state before (not of the same text), as in a server that loads each state
in turn (and views the seat to move): it then reads only the action that
save did not have, and the view walks only that action. With
``--method brackets`` every step runs once on other positions first, to the
same end.

It also plays whole random matches (``simulate``): the raw engine loop
against the loop of ``american-sniff simulate`` (random bots choosing from a
view whenever there is a choice), and prints the ratio.

**Two ways of counting.** By default (``--method brackets``, when a C
compiler and valgrind's ``callgrind.h`` are there) one child process runs
every step under callgrind with instrumentation off, and turns it on around
each step alone, through callgrind's client requests from a small helper
library compiled on the fly; the count of an empty bracket is taken off.
That takes a minute or two. ``--method twins`` is the older way, and needs
no compiler: each count is the difference of two child runs (below); it
takes much longer (each run plays its matches under callgrind).

Usage: ``python benchmarks/hosting.py [--positions N] [--matches N]``; it
needs ``valgrind`` on the PATH.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

STEPS = (
    "apply",
    "view",
    "view_cold",
    "view_loaded",
    "view_json",
    "event",
    "state_json",
    "load",
    "load_signed",
    "hosting",
    "hosting_signed",
    "hosting_memory",
)
WHERE = ("start", "late")
#: The key of the signed saves measured (any 32 bytes).
KEY = bytes(range(32))


def positions(players: int, where: str, count: int) -> list[tuple[Any, Any]]:
    """``count`` pairs (state before, state after one random action) of round 3.

    ``where`` is ``start`` (the after-state is among the round's first five
    actions) or ``late`` (its 20th action on). Each pair is from another
    match, so that no view made for one pair serves another.
    """
    return [(states[-1], after) for states, after in rounds(players, where, count)]


#: The states of round 3 up to each state before of :func:`rounds` (and so of
#: :func:`positions`), by that state's id (the state lives as long as its pair).
_ROUND_OF: dict[int, list[Any]] = {}


def rounds(players: int, where: str, count: int) -> list[tuple[list[Any], Any]]:
    """The pairs of :func:`positions`, each with the states of round 3 up to the state before.

    The states are the round's from its first, as a loop met them.
    """
    from american_sniff import apply, legal_moves, new_match  # noqa: PLC0415

    found: list[tuple[list[Any], Any]] = []
    seed = 0
    while len(found) < count:
        rng = random.Random(seed)
        state = new_match(players, seed=seed)
        seed += 1
        index = 0
        met = [state]
        while state.winner is None and state.round <= 3:
            moves = legal_moves(state)
            after = apply(state, moves[rng.randrange(len(moves))])
            index = index + 1 if after.round == state.round else 0
            wanted = (where == "start" and 3 <= index <= 5) or (where == "late" and index >= 20)
            if after.round == 3 and state.round == 3 and after.winner is None and wanted:
                found.append((met, after))
                _ROUND_OF[id(state)] = met
                break
            state = after
            if index:
                met.append(state)
            else:
                met = [state]
    return found[:count]


def _serve_signed(states: list[Any]) -> None:
    """What a server that keeps only signed saves did for ``states``, one after the other.

    Each state's save is loaded, and the view of the seat to move made and
    written (the apply and the save that follow are the next state's text).
    """
    from american_sniff import MatchState, view_for  # noqa: PLC0415

    for state in states:
        loaded = MatchState.from_json(state.to_json(key=KEY), key=KEY)
        view_for(loaded, loaded.turn).to_json()


def prepare(step: str, pairs: list[tuple[Any, Any]]) -> Callable[[], None]:
    """Do the setup ``step`` needs, and return the step: one run on each pair."""
    from american_sniff import MatchState, apply, event_for, legal_moves, view_for  # noqa: PLC0415

    afters = [after for _, after in pairs]
    if step in ("view", "event"):
        # As in a loop that views every state: the view of the state before,
        # for the same seat, is made, and the engine has listed the legal moves.
        for before, after in pairs:
            view_for(before, after.turn)
            legal_moves(after)
    steps: dict[str, Callable[[], object]] = {
        "apply": lambda: [apply(s, move) for s, move in [(s, legal_moves(s)[0]) for s, _ in pairs]],
        "view": lambda: [view_for(s, s.turn) for s in afters],
        "view_cold": lambda: [view_for(s, s.turn) for s in afters],
        "event": lambda: [event_for(s, s.turn).to_json() for s in afters],
        "state_json": lambda: [s.to_json() for s in afters],
    }
    if step == "view_json":
        views = [view_for(s, s.turn) for s in afters]
        steps[step] = lambda: [v.to_json() for v in views]
        for before, after in pairs:
            view_for(before, after.turn).to_json()
    elif step == "state_json":
        for before, _ in pairs:
            before.to_json()
    elif step == "load":
        texts = [s.to_json() for s in afters]
        steps[step] = lambda: [MatchState.from_json(t) for t in texts]
        steps[step]()
    elif step == "view_loaded":
        for before, _ in pairs:  # the server's steps so far (see _serve_signed)
            _serve_signed(_ROUND_OF[id(before)])
        loaded = [MatchState.from_json(s.to_json(key=KEY), key=KEY) for s in afters]
        steps[step] = lambda: [view_for(s, s.turn) for s in loaded]
    elif step == "load_signed":
        # As a server that loads each state in turn: the save of the state
        # before was loaded, not this very text.
        signed = [s.to_json(key=KEY) for s in afters]
        for before, _ in pairs:
            _serve_signed(_ROUND_OF[id(before)])
        steps[step] = lambda: [MatchState.from_json(t, key=KEY) for t in signed]
    elif step in ("hosting", "hosting_signed"):
        key = KEY if step == "hosting_signed" else None
        saved = [before.to_json(key=key) for before, _ in pairs]
        if key is None:
            for text in saved:
                MatchState.from_json(text)
        else:  # the server's steps so far, up to the state before ``before``
            for before, _ in pairs:
                _serve_signed(_ROUND_OF[id(before)][:-1])

        def host(text: str) -> str:
            state = MatchState.from_json(text, key=key)
            view_for(state, state.turn).to_json()
            return apply(state, legal_moves(state)[0]).to_json(key=key)

        steps[step] = lambda: [host(text) for text in saved]
    elif step == "hosting_memory":
        # The loop so far: every state of the round before this one viewed for
        # the seat to move, the view written, and its action logged.
        log: list[str] = []
        for before, _ in pairs:
            states = _ROUND_OF[id(before)]
            for earlier, following in itertools.pairwise(states):
                view_for(earlier, earlier.turn).to_json()
                log.append(f'{{"seat":{earlier.turn},"move":"{following.last_action.move}"}}')

        def in_memory(state: Any) -> Any:
            view_for(state, state.turn).to_json()
            move = legal_moves(state)[0]
            after = apply(state, move)
            log.append(f'{{"seat":{state.turn},"move":"{move}"}}')
            return after

        steps[step] = lambda: [in_memory(before) for before, _ in pairs]
    if step == "apply":  # the legal moves are listed in the setup, as a loop does
        for state, _ in pairs:
            legal_moves(state)
    work = steps[step]

    def run() -> None:
        work()

    return run


def simulate(players: int, matches: int, with_views: bool) -> int:
    """Play ``matches`` random matches; return the number of actions.

    Without views, moves are chosen uniformly from ``legal_moves``; with
    views, as ``american-sniff simulate`` does: a random bot chooses whenever
    there is more than one legal move, from the legal moves alone
    (``RandomBot.choose_from_moves``, what ``choose(view_for(...))`` would
    choose) if the library has that, else from the seat's view.
    """
    from american_sniff import RandomBot, apply, legal_moves, new_match, view_for  # noqa: PLC0415

    actions = 0
    for seed in range(matches):
        state = new_match(players, seed=seed)
        rng = random.Random(seed)
        bots = [RandomBot(seed=seed * 8 + seat) for seat in range(players)]
        quick = hasattr(RandomBot, "choose_from_moves")
        while state.winner is None:
            moves = legal_moves(state)
            if len(moves) == 1:
                move = moves[0]
            elif with_views and quick:
                move = bots[state.turn].choose_from_moves(moves)
            elif with_views:
                move = bots[state.turn].choose(view_for(state, state.turn))
            else:
                move = moves[rng.randrange(len(moves))]
            state = apply(state, move)
            actions += 1
    return actions


def child(args: list[str]) -> None:
    """The measured process: build the work, and run it unless told ``--setup-only``."""
    # A collection of the cyclic garbage collector falls where the allocations
    # so far put it, so a run and its setup-only twin would not collect at the
    # same points; without it the difference is the step's own cost.
    gc.disable()
    kind, players, count, work = args[0], int(args[1]), int(args[2]), args[3]
    setup_only = args[4:] == ["--setup-only"]
    if kind == "step":
        step, where = work.split(":")
        pairs = positions(players, where, count)
        run = prepare(step, pairs)
        if not setup_only:
            run()
        print(len(pairs))
    else:
        # Both runs play the raw matches once (so the setup is the same); the
        # measured one then plays them as asked, and counts those actions.
        simulate(players, count, False)
        print(1 if setup_only else simulate(players, count, work == "views"))


def instructions(args: list[str]) -> tuple[int, int]:
    """Instructions of one child run, and the count it printed."""
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
                *args,
            ],
            capture_output=True,
            text=True,
            check=True,
            # String hashing is randomised per process, which moves the counts.
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    found = re.search(r"Collected : (\d+)", result.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count:\n{result.stderr}")
    return int(found.group(1)), int(result.stdout.split()[0])


def per_item(args: list[str]) -> float:
    """Instructions per item of a work: the run less its setup-only twin."""
    total, items = instructions(args)
    base, _ = instructions([*args, "--setup-only"])
    return (total - base) / items


_HELPER = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void cg_stop(const char *name) { CALLGRIND_DUMP_STATS_AT(name); CALLGRIND_STOP_INSTRUMENTATION; }
"""


def helper(folder: str) -> str | None:
    """Compile the client-request helper into ``folder``; its path, or None if it cannot be."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    source = os.path.join(folder, "brackets.c")
    library = os.path.join(folder, "libbrackets.so")
    with open(source, "w", encoding="utf-8") as out:
        out.write(_HELPER)
    built = subprocess.run(
        [compiler, "-O1", "-shared", "-fPIC", "-o", library, source],
        capture_output=True,
        check=False,
    )
    return library if built.returncode == 0 else None


def bracketed_child(args: list[str]) -> None:
    """The measured process of ``--method brackets``: each step between client requests."""
    import ctypes  # noqa: PLC0415

    library, players, count, matches = args[0], int(args[1]), int(args[2]), int(args[3])
    lib = ctypes.CDLL(library)
    lib.cg_stop.argtypes = [ctypes.c_char_p]
    gc.disable()  # see child()
    for _ in range(3):
        lib.cg_start()
        lib.cg_stop(b"empty:-:1")
    # What a running process keeps for good (each move's text, the moves read
    # by their text) is made first, by a round of every step on other positions.
    for step in STEPS:
        prepare(step, positions(players, "late", 4))()
    for step in args[4].split(","):
        for where in WHERE:
            pairs = positions(players, where, count)
            run = prepare(step, pairs)
            lib.cg_start()
            run()
            lib.cg_stop(f"{step}:{where}:{len(pairs)}".encode())
    for kind in ("raw", "views"):
        simulate(players, matches, False)  # the same warm-up before both
        lib.cg_start()
        actions = simulate(players, matches, kind == "views")
        lib.cg_stop(f"simulate:{kind}:{actions}".encode())


def bracketed(
    library: str, folder: str, players: int, options: argparse.Namespace
) -> dict[tuple[str, str], float]:
    """Instructions per item of each bracket of one ``bracketed_child`` run."""
    count, steps, matches = options.positions, options.steps, options.matches
    out = os.path.join(folder, f"callgrind-{players}.out")
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--bracketed-child",
            library,
            str(players),
            str(count),
            str(matches),
            steps,
        ],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    counts: list[tuple[str, int]] = []
    for name in os.listdir(folder):
        if not name.startswith(f"callgrind-{players}.out."):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as dump:
            text = dump.read()
        named = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.MULTILINE)
        summed = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
        if named and summed:
            counts.append((named.group(1), int(summed.group(1))))
    empty = min(count for name, count in counts if name.startswith("empty:"))
    result = {}
    for name, count in counts:
        step, where, items = name.split(":")
        if step != "empty":
            result[(step, where)] = (count - empty) / int(items)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Print the instructions of each hosting step, and the simulate ratio."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        child(args[1:])
        return 0
    if args[:1] == ["--bracketed-child"]:
        bracketed_child(args[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=30, help="positions per point")
    parser.add_argument("--matches", type=int, default=6, help="matches for simulate")
    parser.add_argument("--steps", default=",".join(STEPS), help="the steps to measure")
    parser.add_argument("--players", default="2,4", help="the player counts")
    parser.add_argument(
        "--method", choices=("brackets", "twins"), default="brackets", help="how to count"
    )
    options = parser.parse_args(args)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 1
    from american_sniff import COMPILED  # noqa: PLC0415

    print(f"build: {'mypyc-compiled' if COMPILED else 'pure Python'}")
    if options.method == "brackets":
        with tempfile.TemporaryDirectory() as folder:
            library = helper(folder)
            if library is not None:
                for players in (int(p) for p in options.players.split(",")):
                    found = bracketed(library, folder, players, options)
                    for step in options.steps.split(","):
                        start, late = found[(step, "start")], found[(step, "late")]
                        print(
                            f"{players} players {step:<14} start {start:>11,.0f}"
                            f"   late {late:>11,.0f} instructions"
                        )
                    raw, views = found[("simulate", "raw")], found[("simulate", "views")]
                    print(
                        f"{players} players simulate: raw {raw:,.0f}, with bots {views:,.0f} "
                        f"instructions/action; ratio {views / raw:.2f}"
                    )
                return 0
        print("no C compiler for the helper: counting with --method twins", file=sys.stderr)
    for players in (int(p) for p in options.players.split(",")):
        for step in options.steps.split(","):
            counts = [
                per_item(["step", str(players), str(options.positions), f"{step}:{where}"])
                for where in WHERE
            ]
            print(
                f"{players} players {step:<12} start {counts[0]:>11,.0f}"
                f"   late {counts[1]:>11,.0f} instructions"
            )
        raw = per_item(["simulate", str(players), str(options.matches), "raw"])
        views = per_item(["simulate", str(players), str(options.matches), "views"])
        print(
            f"{players} players simulate: raw {raw:,.0f}, with bots and views {views:,.0f} "
            f"instructions/action; ratio {views / raw:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
