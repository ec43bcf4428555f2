"""Head-to-head strength of two bots, with seats swapped and CPU time per decision.

Each *pair* of matches shares one deal seed: in the first match bot A holds
side 0 (seat 0, or seats 0 and 2 with four players), in the second side 1, so
the luck of the deal cancels out as far as it can. Deal seeds are the
SplitMix64 outputs of ``--seed``; in a match dealt from ``s``, the bot at seat
``k`` is seeded ``(s + k + 1) mod 2**64``. Every match is whole (to the
target). The CPU time of each decision with two legal moves or more is
measured with ``time.process_time`` around ``choose`` and reported per bot, so
that "equal CPU time per decision" can be checked in the same run.

Bots are written ``kind[:option=value,...]``: any name of ``make_bot``
(``search:playouts=8``, ``hard``, ``greedy``, ``random``), ``dmc:deals=5``
(:mod:`dmc_bot`), or ``search0:playouts=8``, the search bot sampling from the
seat-wide voids only, or ``search1:playouts=8``, the search bot whose
playouts count no settlement when cut short, or a variant of
:mod:`search_variants` (``searchg``, ``searchw``, ``sir``, ``search2``), or ``oracle:playouts=8``,
the search given the true hands (a cheat: it is shown the state before each
choice, outside the timed part, to measure the ceiling). ``py-`` before any
spec (``py-expert``) makes that bot's search play its playouts and its exact
endgame in Python where the C ones are built: the bot as it was before
them. ``endgame=N`` in the options of the search or of a variant gives it N
nodes of exact endgame a playout (``search:playouts=64,endgame=256``). (The
experiments of commit 5e9812c, reported in ``bots-results.md``, were run
with its ``searchx`` kind.)

    python benchmarks/versus.py search:playouts=8 dmc:deals=3 --players 2 --pairs 200
    python benchmarks/versus.py --calibrate search:playouts=8 dmc --players 4
    python benchmarks/versus.py ... --jobs 2 --json benchmarks/results.jsonl

``--table FILE`` prints the cells of a JSON-lines file as a Markdown table
(the seeds of a cell merged). ``--calibrate A B`` times A on a fixed set of
positions and prints the budget of B (its ``deals``, or ``playouts``) whose
mean CPU time per decision is closest to A's on the same positions (it tries
the budgets next to a first guess, then walks on until A's time lies between
two of them); with ``--repeat N`` each budget is timed N times over the
positions and the fastest pass counts, which steadies the times on a
loaded machine.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from typing import Any, ClassVar

import attrs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from american_sniff import (
    Bot,
    GreedyBot,
    PlayerView,
    SearchBot,
    apply,
    make_bot,
    new_match,
    view_for,
)
from american_sniff.bots import _playouts
from american_sniff.rng import MASK64
from american_sniff.tournament import match_seeds, wilson_interval
from dmc_bot import DmcBot
from search_variants import VARIANTS


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of ``wins`` successes in ``n`` trials.

    (The public :func:`american_sniff.tournament.wilson_interval`, which the
    evaluation harness uses too.)
    """
    return wilson_interval(wins, n, z)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:playouts=8,depth=3"`` -> ``("search", {"playouts": 8, "depth": 3})``."""
    kind, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        key, _, value = part.partition("=")
        try:
            options[key] = int(value)
        except ValueError:
            try:
                options[key] = float(value)
            except ValueError:
                options[key] = value
    return kind, options


@attrs.define(eq=False)
class SeatVoidSearch(SearchBot):
    """The search bot sampling from the seat-wide voids only: ``search0`` in a spec.

    It measures what reading each tile's voids from the history is worth.
    """

    history: ClassVar[bool] = False


@attrs.define(eq=False)
class UnsettledSearch(SearchBot):
    """The search bot whose playouts cut short count no settlement: ``search1`` in a spec.

    It measures what counting the hands' pips at the cut is worth.
    """

    settle: ClassVar[bool] = False


@attrs.define(eq=False)
class PythonPlayouts:
    """A bot whose search plays its playouts in Python: ``py-`` before a spec (``py-expert``).

    Where the batch extension is built the search bot plays its playouts in C
    (:mod:`american_sniff.bots._playouts`), choosing the same moves faster;
    this measures a bot as it was before, beside one that spends the time
    saved, in the same process.
    """

    bot: Any

    def choose(self, view: PlayerView) -> Any:
        """The wrapped bot's choice, its playouts in Python."""
        _playouts.USE_C = False
        try:
            return self.bot.choose(view)
        finally:
            _playouts.USE_C = True


def make(spec: str, seed: int) -> Bot:
    """A bot from its spec, seeded ``seed``."""
    if spec.startswith("py-"):
        return PythonPlayouts(make(spec[3:], seed))
    kind, options = parse_spec(spec)
    variant = VARIANTS.get(kind)
    endgame = options.pop("endgame", None)
    if endgame is not None:
        # The search (or a variant of it) with that many nodes of exact endgame a playout.
        base = variant or SearchBot
        variant = type(f"{base.__name__}Endgame{endgame}", (base,), {"endgame": int(endgame)})
    if variant is not None:
        return variant(seed=seed, **options)
    if kind == "search1":
        return UnsettledSearch(seed=seed, **options)
    if kind == "search0":
        return SeatVoidSearch(seed=seed, **options)
    if kind == "dmc":
        return DmcBot(seed=seed, **options)
    return make_bot(kind, seed=seed, **options)


def deal_seeds(seed: int, count: int) -> list[int]:
    """The first ``count`` SplitMix64 outputs of ``seed`` (the evaluation harness's deals)."""
    return list(match_seeds(seed, count))


def play(args: tuple[str, str, int, int, int]) -> tuple[int, float, int, float, int]:
    """One match: ``(a_won, a_cpu, a_decisions, b_cpu, b_decisions)``."""
    spec_a, spec_b, players, deal, a_side = args
    bots = []
    is_a = []
    for seat in range(players):
        side = seat % 2 if players == 4 else seat
        mine = side == a_side
        is_a.append(mine)
        bots.append(make(spec_a if mine else spec_b, (deal + seat + 1) & MASK64))
    state = new_match(players, seed=deal)
    cpu = [0.0, 0.0]
    counts = [0, 0]
    clock = time.process_time
    while state.winner is None:
        seat = state.turn
        view = view_for(state, seat)
        if len(view.legal_moves) > 1:
            bot = bots[seat]
            see = getattr(bot, "see", None)
            if see is not None:  # the oracle of search_variants: shown the truth, not timed
                see(state)
            start = clock()
            move = bot.choose(view)
            k = 0 if is_a[seat] else 1
            cpu[k] += clock() - start
            counts[k] += 1
        else:
            move = view.legal_moves[0]
        state = apply(state, move)
    winners = [s for s in range(players) if (s % 2 if players == 4 else s) == state.winner]
    return int(is_a[winners[0]]), cpu[0], counts[0], cpu[1], counts[1]


def match_cell(spec_a: str, spec_b: str, run: argparse.Namespace) -> dict[str, Any]:
    """Play ``run.pairs`` pairs of matches; return the cell's summary."""
    players, pairs, seed, jobs = run.players, run.pairs, run.seed, run.jobs
    tasks = [
        (spec_a, spec_b, players, deal, side) for deal in deal_seeds(seed, pairs) for side in (0, 1)
    ]
    start = time.time()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(play, tasks, chunksize=4)
    else:
        results = [play(task) for task in tasks]
    wins = sum(r[0] for r in results)
    n = len(results)
    low, high = wilson(wins, n)
    a_cpu, a_n = sum(r[1] for r in results), sum(r[2] for r in results)
    b_cpu, b_n = sum(r[3] for r in results), sum(r[4] for r in results)
    return {
        "a": spec_a,
        "b": spec_b,
        "players": players,
        "seed": seed,
        "matches": n,
        "a_wins": wins,
        "rate": wins / n,
        "low": low,
        "high": high,
        "a_ms": 1000 * a_cpu / max(1, a_n),
        "b_ms": 1000 * b_cpu / max(1, b_n),
        "wall_s": time.time() - start,
    }


def positions(players: int, count: int, seed: int) -> list[PlayerView]:
    """``count`` views with two legal moves or more, from greedy matches."""
    views: list[PlayerView] = []
    bot = GreedyBot()
    for deal in deal_seeds(seed, 10_000):
        state = new_match(players, seed=deal)
        while state.winner is None and len(views) < count:
            view = view_for(state, state.turn)
            if len(view.legal_moves) > 1:
                views.append(view)
            state = apply(state, bot.choose(view))
        if len(views) >= count:
            break
    return views


#: How many times :func:`cost` times the bot on the positions (it keeps the fastest pass).
REPEAT = 1


def cost(factory: Callable[[int], Bot], views: list[PlayerView]) -> float:
    """Mean CPU ms per decision of the bot over ``views``: the fastest of ``REPEAT`` passes.

    The fastest pass is the one least disturbed by the other work of a shared
    machine (a bot's choices are the same on every pass).
    """
    bot = factory(1)
    best = math.inf
    for _ in range(REPEAT):
        start = time.process_time()
        for view in views:
            bot.choose(view)
        best = min(best, time.process_time() - start)
    return 1000 * best / len(views)


def calibrate(spec_a: str, spec_b: str, players: int, count: int) -> None:
    """Print B's budget whose cost per decision matches A's (B's other options kept)."""
    views = positions(players, count, 12345)
    target = cost(lambda s: make(spec_a, s), views)
    kind_b = spec_b.partition(":")[0]
    key = "deals" if kind_b == "dmc" else "playouts"
    base = spec_b + ("," if ":" in spec_b else ":")
    per_unit = cost(lambda s: make(f"{base}{key}=4", s), views) / 4
    guess = max(1, round(target / per_unit))
    best = None
    measured: dict[int, float] = {}

    def measure(budget: int) -> float:
        spec = f"{base}{key}={budget}"
        ms = cost(lambda s: make(spec, s), views)
        print(f"{spec}: {ms:.2f} ms (target {spec_a}: {target:.2f} ms)", flush=True)
        measured[budget] = ms
        return ms

    for budget in sorted({max(1, guess - 1), guess, guess + 1}):
        measure(budget)
    # Walk on until the target lies between two measured budgets (or at budget 1).
    while min(measured.values()) > target and min(measured) > 1:
        measure(min(measured) - 1)
    while max(measured.values()) < target:
        measure(max(measured) + 1)
    for budget, ms in measured.items():
        if best is None or abs(ms - target) < best[0]:
            best = (abs(ms - target), budget)
    assert best is not None
    print(f"best: {base}{key}={best[1]}")


def table(path: str) -> None:
    """Print the cells of a JSON-lines file as one Markdown table, each cell's seeds merged too."""
    with open(path, encoding="utf-8") as lines:
        cells = [json.loads(line) for line in lines if line.strip()]
    print("| players | A | B | seeds | A wins | A's rate (95% CI) | A ms | B ms |")
    print("| ---: | :--- | :--- | :--- | ---: | :---: | ---: | ---: |")
    groups: dict[tuple[int, str, str], list[dict[str, Any]]] = {}
    for cell in cells:
        groups.setdefault((cell["players"], cell["a"], cell["b"]), []).append(cell)
    for (players, a, b), runs in groups.items():
        wins = sum(r["a_wins"] for r in runs)
        n = sum(r["matches"] for r in runs)
        low, high = wilson(wins, n)
        a_ms = sum(r["a_ms"] * r["matches"] for r in runs) / n
        b_ms = sum(r["b_ms"] * r["matches"] for r in runs) / n
        seeds = ",".join(str(r["seed"]) for r in runs)
        print(
            f"| {players} | {a} | {b} | {seeds} | {wins}/{n} | {wins / n:.1%} "
            f"({low:.1%}-{high:.1%}) | {a_ms:.2f} | {b_ms:.2f} |"
        )


def main() -> None:
    """Run one cell, calibrate, or print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="bot A (or, with --table, a JSON-lines file)")
    parser.add_argument("b", nargs="?", default="greedy", help="bot B")
    parser.add_argument("--players", type=int, default=2, choices=(2, 4))
    parser.add_argument("--pairs", type=int, default=200, help="pairs of matches (seats swapped)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", help="append the cell's summary as a JSON line to this file")
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument(
        "--repeat", type=int, default=1, help="with --calibrate: passes over the positions"
    )
    parser.add_argument("--table", action="store_true", help="print the cells of the file A")
    args = parser.parse_args()
    if args.table:
        table(args.a)
        return
    if args.calibrate:
        global REPEAT  # noqa: PLW0603 - a setting of the script's run
        REPEAT = max(1, args.repeat)
        calibrate(args.a, args.b, args.players, args.positions)
        return
    cell = match_cell(args.a, args.b, args)
    print(
        f"| {cell['players']} | {cell['a']} | {cell['b']} | {cell['seed']} | "
        f"{cell['a_wins']}/{cell['matches']} | {cell['rate']:.1%} "
        f"({cell['low']:.1%}-{cell['high']:.1%}) | {cell['a_ms']:.2f} | {cell['b_ms']:.2f} |",
        flush=True,
    )
    if args.json:
        with open(args.json, "a", encoding="utf-8") as out:
            out.write(json.dumps(cell) + "\n")


if __name__ == "__main__":
    main()
