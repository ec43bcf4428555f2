"""The environments' rewards and seeds: american_sniff.envs.rewards (no extra needed)."""

from __future__ import annotations

import itertools
import random

import pytest

from american_sniff import MatchState, apply, legal_moves, new_match
from american_sniff.envs.rewards import REWARDS, check_choice, match_seed, rewards


def _until_won(players: int, seed: int) -> list[MatchState]:
    state = new_match(players, seed=seed)
    rng = random.Random(seed)
    states = [state]
    while state.winner is None:
        state = apply(state, rng.choice(legal_moves(state)))
        states.append(state)
    return states


@pytest.mark.parametrize("players", [2, 3, 4])
def test_outcome_rewards_come_at_the_end_and_are_shared(players: int) -> None:
    """Outcome rewards are 0 until the winning action, then +1 for the winning side, -1 else."""
    states = _until_won(players, 30 + players)
    totals = [0.0] * players
    for before, after in itertools.pairwise(states):
        gains = rewards("outcome", before, after)
        if after.winner is None:
            assert gains == (0.0,) * players
        totals = [t + g for t, g in zip(totals, gains, strict=True)]
    winner = states[-1].winner
    assert totals == [1.0 if states[-1].side_of(s) == winner else -1.0 for s in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_points_rewards_add_up_to_the_final_scores(players: int) -> None:
    """Points rewards add up, for each seat, to its side's final score (settlements included)."""
    states = _until_won(players, 40 + players)
    totals = [0.0] * players
    negative = False
    for before, after in itertools.pairwise(states):
        gains = rewards("points", before, after)
        negative = negative or min(gains) < 0
        totals = [t + g for t, g in zip(totals, gains, strict=True)]
    final = states[-1]
    assert totals == [float(final.scores[final.side_of(s)]) for s in range(players)]
    assert negative  # some round was settled with a deduction


def test_seeds_and_choices() -> None:
    """match_seed takes integers (mod 2**64), refuses the rest; check_choice names the choices."""
    assert match_seed(7) == 7
    assert match_seed(-1) == 2**64 - 1
    assert match_seed(2**64 + 3) == 3
    for bad in ("7", 1.5, None, True):
        with pytest.raises(ValueError, match="a seed is an integer"):
            match_seed(bad)
    assert check_choice("reward", "points", REWARDS) == "points"
    with pytest.raises(ValueError, match="reward must be one of 'outcome', 'points', got 'x'"):
        check_choice("reward", "x", REWARDS)
