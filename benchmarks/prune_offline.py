"""What pruning costs and loses, measured offline on fixed positions.

For each position (a view with a choice, from greedy matches, the stock not
empty and no winning move), every legal move is played out on ``--truth``
deals (1,024 by default) to estimate its value, the mean of its playouts;
then on ``--trials`` other deals (256), the values the search would see.
A budget rule is simulated on those trial values: plain ``N`` playouts, or
``N`` playouts with ``prune=z`` (the library's own race,
``american_sniff.bots._kernel.racing``, looked at after every 8 deals). For
each rule the table gives:

* **cost**: the mean number of move playouts a choice plays, plus 0.8 for
  each deal sampled (a deal costs about what 0.8 of a move's playout costs,
  compiled);
* **loss**: the mean, over the positions, of the best move's estimated value
  less that of the move the rule picks, in points: how much worse than the
  best move the pick is, by the bot's own way of valuing a move.

The playouts are the search bot's (greedy, 4 placements, the settlement at
the cut weighed by ``bots.search.SETTLE_WEIGHTS``); the deals are drawn by
:class:`~american_sniff.bots.Determiniser`.
The loss measures how well a rule spends the budget, not how good the
playouts' value is: that only matches can tell (``versus.py``).

    python benchmarks/prune_offline.py --players 2 --positions 2000
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from american_sniff import PlayerView
from american_sniff.bots import Determiniser, winning_moves
from american_sniff.bots._kernel import racing, score_deal
from american_sniff.bots.search import SETTLE_WEIGHTS
from versus import positions

#: What one deal's sampling costs, in move playouts.
SAMPLE_COST = 0.8
#: Playouts between two looks at the race (the bot's).
EVERY = 8


def values(view: PlayerView, deals: int, rng: int) -> list[list[float]]:
    """Each move's playout value on each of ``deals`` sampled deals (one row per deal)."""
    determiniser = Determiniser(view)
    moves = view.legal_moves
    rows = []
    for _ in range(deals):
        world, rng = determiniser.sample(rng)
        part = [0.0] * len(moves)
        score_deal(world, moves, view.seat, False, 4, SETTLE_WEIGHTS[view.players], part, 0)
        rows.append(part)
    return rows


def simulate(rows: list[list[float]], budget: int, prune: float | None) -> tuple[float, int]:
    """A rule's cost on one position's trial rows, and the index of the move it picks."""
    moves = len(rows[0])
    alive = list(range(moves))
    totals = [0.0] * moves
    by_move: list[list[float]] = [[] for _ in range(moves)]
    weights: list[float] = []
    cost = 0.0
    for played, row in enumerate(rows[:budget], start=1):
        cost += SAMPLE_COST + len(alive)
        for index in alive:
            totals[index] += row[index]
            by_move[index].append(row[index])
        weights.append(1.0)
        if prune is not None and played % EVERY == 0 and played < budget:
            alive = racing(by_move, weights, alive, totals, prune)
            if len(alive) == 1:
                break
    best = alive[0]
    for index in alive:
        if totals[index] > totals[best]:
            best = index
    return cost, best


def main() -> None:
    """Print the table of cost and loss for the rules."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--truth", type=int, default=1024)
    parser.add_argument("--trials", type=int, default=256)
    parser.add_argument("--seed", type=int, default=9191)
    run = parser.parse_args()
    views = [
        view
        for view in positions(run.players, run.positions, run.seed + run.players)
        if view.stock_size > 0 and not winning_moves(view)
    ]
    data = []
    for number, view in enumerate(views):
        rows = values(view, run.truth, 1000 + number)
        truth = [sum(row[i] for row in rows) / len(rows) for i in range(len(rows[0]))]
        data.append((truth, values(view, run.trials, 5 + number)))
    rules: list[tuple[int, float | None]] = [(n, None) for n in (8, 16, 32, 64, 128, 256)]
    rules += [(n, z) for n in (64, 128, 256) for z in (2.0, 2.5, 3.0)]
    print(f"{run.players} players, {len(data)} positions, {run.truth} deals for the values\n")
    print("| playouts | prune | cost (move playouts) | loss (points a choice) |")
    print("| ---: | ---: | ---: | ---: |")
    for budget, prune in rules:
        cost = loss = 0.0
        for truth, rows in data:
            spent, pick = simulate(rows, budget, prune)
            cost += spent
            loss += max(truth) - truth[pick]
        shown = "-" if prune is None else f"{prune:g}"
        print(f"| {budget} | {shown} | {cost / len(data):.1f} | {loss / len(data):.3f} |")


if __name__ == "__main__":
    main()
