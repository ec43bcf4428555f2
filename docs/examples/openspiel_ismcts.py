"""OpenSpiel's IS-MCTS bot against the library's SearchBot, through the OpenSpiel game.

Two-player matches of ``american_sniff``: seat by seat, IS-MCTS (OpenSpiel's
information-set Monte Carlo tree search, with random rollouts) against
:class:`~american_sniff.SearchBot`, the seats swapped every other match. The
chance nodes (the deals, the lots and the draws) are sampled from a seeded
generator, so a run is reproducible. Needs the ``openspiel`` extra.

    python docs/examples/openspiel_ismcts.py                       # 10 matches
    python docs/examples/openspiel_ismcts.py --matches 2 --simulations 4 --playouts 4
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import american_sniff.envs.openspiel  # noqa: F401 (registers the game "american_sniff")
from american_sniff import SearchBot, view_for
from american_sniff.actions import action_of


def play_match(simulations: int, playouts: int, ismcts_seat: int, seed: int) -> int:
    """One match; the seat of its winner."""
    game = pyspiel.load_game("american_sniff", {"players": 2})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    searcher = ismcts.ISMCTSBot(
        game,
        evaluator,
        uct_c=2.0,
        max_simulations=simulations,
        random_state=np.random.RandomState(seed + 1),
    )
    ours = SearchBot(seed=seed, playouts=playouts)
    chance = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(chance.choice(outcomes, p=probabilities)))
        elif state.current_player() == ismcts_seat:
            state.apply_action(int(searcher.step(state)))
        else:
            seat = state.current_player()
            move = ours.choose(view_for(state.match, seat))
            state.apply_action(action_of(state.match, move))
    winner = state.match.winner
    if winner is None:
        raise RuntimeError("the match reached max_moves without a winner")
    return winner


def main(argv: list[str] | None = None) -> int:
    """Play the matches and print the tally."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=16, help="IS-MCTS simulations")
    parser.add_argument("--playouts", type=int, default=8, help="SearchBot playouts")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    wins = 0
    for match in range(args.matches):
        seat = match % 2
        winner = play_match(args.simulations, args.playouts, seat, args.seed + match)
        wins += winner == seat
        print(f"match {match + 1}: IS-MCTS at seat {seat}, winner seat {winner}")
    print(
        f"IS-MCTS ({args.simulations} simulations) won {wins} of {args.matches} "
        f"against SearchBot ({args.playouts} playouts)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
