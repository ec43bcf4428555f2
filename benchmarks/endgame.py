"""The exact endgame's CPU time, in Python and in C (``batch/_cendgame.c``).

Two measures, both in CPU time (``time.process_time``):

* per call of :func:`~american_sniff.bots.endgame.endgame_values`, on worlds
  the search bot searches (positions of greedy matches with the stock empty
  and a choice; with four players a split of the hidden tiles sampled from
  the mover's view), at the budgets of the ``expert`` level's first call
  (64 playouts times ``--per-playout`` nodes);
* per ``expert`` decision with four players, the time spent in the endgame
  searches alone, in Python at ``ENDGAME_NODES[4]`` nodes a playout and in
  C at several budgets: how many nodes a playout C affords at Python's time.

Needs the C extension (``python hatch_build.py --batch-in-place``)::

    python benchmarks/endgame.py --positions 60
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from typing import Any, ClassVar

from american_sniff import GreedyBot, MatchState, apply, legal_moves, new_match, view_for
from american_sniff.bots import SearchBot, _playouts
from american_sniff.bots import search as search_module
from american_sniff.bots.endgame import endgame_values
from american_sniff.bots.search import ENDGAME_NODES, Determiniser


def positions(players: int, count: int, seed: int) -> Iterator[MatchState]:
    """Greedy play's positions with the stock empty and two moves or more, to be searched."""
    greedy = GreedyBot()
    found = 0
    match = 0
    while found < count:
        state = new_match(players, seed=seed * 1000 + match)
        match += 1
        while state.winner is None and found < count:
            view = view_for(state, state.turn)
            if state.stock_size == 0 and len(view.legal_moves) > 1:
                world = state if players == 2 else Determiniser(view).sample(found)[0]
                yield world
                found += 1
            state = apply(state, greedy.choose(view))


def per_call(worlds: list[MatchState], nodes: int, use_c: bool) -> tuple[float, int]:
    """Mean CPU seconds of one call, and how many calls ran out of nodes."""
    _playouts.USE_C = use_c
    out = 0
    try:
        start = time.process_time()
        for world in worlds:
            found = endgame_values(world, world.turn, legal_moves(world), nodes)
            out += found is None
        spent = time.process_time() - start
    finally:
        _playouts.USE_C = True
    return spent / len(worlds), out


#: The search bot's name for the endgame search, replaced by a timed one.
_SEARCHED = "endgame_values"


def per_decision(states: list[MatchState], per_playout: int, use_c: bool) -> float:
    """Mean CPU seconds that an expert decision spends in its endgame searches."""
    spent = [0.0]

    def timed(*args: Any, **kwargs: Any) -> tuple[list[float], int] | None:
        start = time.process_time()
        try:
            return endgame_values(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - start

    class Bot(SearchBot):
        endgame: ClassVar[int | None] = per_playout

    original = getattr(search_module, _SEARCHED)
    setattr(search_module, _SEARCHED, timed)
    _playouts.USE_C = use_c
    try:
        for state in states:
            Bot(seed=3, playouts=64, infer=0.1, prune=2.5).choose(view_for(state, state.turn))
    finally:
        setattr(search_module, _SEARCHED, original)
        _playouts.USE_C = True
    return spent[0] / len(states)


def main() -> None:
    """Print both measures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--decisions", type=int, default=30)
    args = parser.parse_args()
    if not _playouts.ENDGAME_ENABLED:
        raise SystemExit("the C extension is not built: python hatch_build.py --batch-in-place")
    for players in (2, 4):
        worlds = list(positions(players, args.positions, 1))
        for per_playout in (16, 64):
            nodes = 64 * per_playout
            slow, slow_out = per_call(worlds, nodes, False)
            fast, fast_out = per_call(worlds, nodes, True)
            assert slow_out == fast_out
            print(
                f"{players} players, {nodes:5d} nodes: Python {slow * 1e3:8.3f} ms, "
                f"C {fast * 1e3:7.3f} ms a call, {slow / fast:5.1f}x "
                f"({slow_out} of {len(worlds)} out of nodes)"
            )
    states = list(positions(4, args.decisions, 2))
    python = per_decision(states, ENDGAME_NODES[4], False)
    print(f"4 players, Python at {ENDGAME_NODES[4]} a playout: {python * 1e3:8.2f} ms a decision")
    for per_playout in (16, 64, 256, 1024, 2048, 4096, 8192):
        fast = per_decision(states, per_playout, True)
        print(f"4 players, C at {per_playout:4d} a playout: {fast * 1e3:8.2f} ms a decision")


if __name__ == "__main__":
    main()
