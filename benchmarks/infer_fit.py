"""Fit the ``beta`` of the search bot's choice model (``SearchBot.infer``) by maximum likelihood.

The model (``american_sniff.bots._infer``): a seat places with a chance
proportional to ``exp(beta * points)`` over its legal placements. This plays
matches between *library* bots (``--bot``, the search bot at 8 playouts by
default, in self-play), keeps every placement made with two legal placements
or more that is not the one right after the seat's own draw (the placements
the model reads), and prints the log-likelihood of those choices for a grid of
``beta`` and the maximum found by golden-section search. Never fit it on the
DMC bot of ``dmc_bot.py``: that is the yardstick.

    python benchmarks/infer_fit.py --players 2 --matches 100 --seed 61
"""

from __future__ import annotations

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from american_sniff import Draw, Place, apply, legal_moves, new_match, placement_points, view_for
from versus import deal_seeds, make


def choices(spec: str, players: int, matches: int, seed: int) -> list[tuple[list[int], int]]:
    """``(points of each legal placement, index of the chosen one)`` of every choice read."""
    found: list[tuple[list[int], int]] = []
    for deal in deal_seeds(seed, matches):
        bots = [make(spec, (deal + seat + 1) % 2**64) for seat in range(players)]
        state = new_match(players, seed=deal)
        last_drew = -1
        while state.winner is None:
            seat = state.turn
            moves = legal_moves(state)
            move = moves[0] if len(moves) == 1 else bots[seat].choose(view_for(state, seat))
            if type(move) is Place and len(moves) > 1 and last_drew != seat:
                points = [
                    placement_points(state.layout.place(m.tile, m.at).end_sum)
                    for m in moves
                    if type(m) is Place
                ]
                found.append((points, moves.index(move)))
            last_drew = seat if type(move) is Draw else -1
            state = apply(state, move)
    return found


def log_likelihood(beta: float, data: list[tuple[list[int], int]]) -> float:
    """The log-likelihood of the choices of ``data`` under the model with ``beta``."""
    total = 0.0
    for points, index in data:
        top = max(points)
        norm = sum(math.exp(beta * (p - top)) for p in points)
        total += beta * (points[index] - top) - math.log(norm)
    return total


def main() -> None:
    """Play, then print the grid and the fitted beta."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="search:playouts=8")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=61)
    args = parser.parse_args()
    data = choices(args.bot, args.players, args.matches, args.seed)
    scoring = sum(1 for points, _ in data if max(points) > 0)
    print(f"{len(data)} choices ({scoring} with a scoring placement open)")
    for beta in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0):
        print(f"beta {beta}: log-likelihood {log_likelihood(beta, data):.1f}")
    low, high = 0.0, 2.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if log_likelihood(a, data) < log_likelihood(b, data):
            low = a
        else:
            high = b
    beta = (low + high) / 2
    print(f"fitted beta {beta:.4f}: log-likelihood {log_likelihood(beta, data):.1f}")


if __name__ == "__main__":
    main()
