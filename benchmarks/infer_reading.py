"""How much the choice model (``SearchBot.infer``) reads of the hidden hands, offline.

In matches between library bots (``--bot``, self-play), at every decision
with a choice it samples ``--pool`` deals from the view (the search bot's
determiniser), weighs them by the model with each ``beta`` of ``--betas``,
and measures, for the other seats, the share of each seat's true hidden
hand that a deal gives it: the mean under uniform sampling (``beta`` none)
and under the weights, and the weights' effective sample size (the square
of their sum over the sum of their squares, as a share of the pool).

    python benchmarks/infer_reading.py --players 2 --matches 40 --betas 0.1 0.18 0.3
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from american_sniff import apply, new_match, view_for
from american_sniff.bots import Determiniser
from american_sniff.bots._infer import deal_weight, view_tables
from versus import deal_seeds, make


def main() -> None:
    """Play, measure, print one line per beta."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="search:playouts=8")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--seed", type=int, default=71)
    parser.add_argument("--pool", type=int, default=64)
    parser.add_argument("--betas", type=float, nargs="+", default=[0.1, 0.18, 0.3])
    args = parser.parse_args()
    sums = {beta: [0.0, 0.0] for beta in [-1.0, *args.betas]}  # overlap, ess share
    count = 0
    for deal in deal_seeds(args.seed, args.matches):
        bots = [make(args.bot, (deal + seat + 1) % 2**64) for seat in range(args.players)]
        state = new_match(args.players, seed=deal)
        while state.winner is None:
            seat = state.turn
            view = view_for(state, seat)
            if len(view.legal_moves) > 1:
                history = view.history
                determiniser = Determiniser(view)
                rng = 1 + count
                worlds = []
                for _ in range(args.pool):
                    world, rng = determiniser.sample(rng)
                    worlds.append(world)
                overlaps = []
                for world in worlds:
                    shared = held = 0
                    for other in range(args.players):
                        if other != seat:
                            truth = set(state.hands[other])
                            shared += len(truth & set(world.hands[other]))
                            held += len(truth)
                    overlaps.append(shared / max(1, held))
                sums[-1.0][0] += sum(overlaps) / len(overlaps)
                sums[-1.0][1] += 1.0
                for beta in args.betas:
                    tables = view_tables(view, history, beta)
                    weights = [deal_weight(world, tables) for world in worlds]
                    total = sum(weights)
                    pairs = zip(weights, overlaps, strict=True)
                    sums[beta][0] += sum(w * o for w, o in pairs) / total
                    sums[beta][1] += total * total / sum(w * w for w in weights) / len(weights)
                count += 1
                move = bots[seat].choose(view)
            else:
                move = view.legal_moves[0]
            state = apply(state, move)
    print(f"{count} decisions, {args.players} players, pool {args.pool}, bot {args.bot}")
    for beta, (overlap, ess) in sums.items():
        name = "uniform" if beta < 0 else f"beta {beta}"
        print(
            f"{name}: true tiles dealt to the right seat {overlap / count:.4f}, "
            f"effective pool share {ess / count:.3f}"
        )


if __name__ == "__main__":
    main()
