"""The random bot."""

from __future__ import annotations

import pytest

from american_sniff import apply, legal_moves, new_match
from american_sniff.bots import RandomBot


def test_random_bot_only_chooses_legal_moves_and_finishes_a_match() -> None:
    """Every choice is one of the legal moves, and a match of bots ends with a winner."""
    state = new_match(3, seed=21)
    bots = [RandomBot(seed) for seed in range(3)]
    while state.winner is None:
        move = bots[state.turn].choose(state)
        assert move in legal_moves(state)
        state = apply(state, move)
    assert state.scores[state.winner] >= state.target


def test_random_bot_is_reproducible_and_uses_its_seed() -> None:
    """Two bots with one seed choose alike; another seed chooses otherwise somewhere."""
    state = new_match(2, seed=3)
    first, second, other = RandomBot(9), RandomBot(9), RandomBot(10)
    same = [first.choose(state) for _ in range(20)]
    assert same == [second.choose(state) for _ in range(20)]
    assert same != [other.choose(state) for _ in range(20)]


def test_random_bot_refuses_a_finished_match_and_a_bad_seed() -> None:
    """A bot has nothing to choose once the match is over; seeds are 64-bit."""
    state = new_match(2, seed=4)
    bot = RandomBot(1)
    while state.winner is None:
        state = apply(state, bot.choose(state))
    with pytest.raises(ValueError, match="match is over"):
        bot.choose(state)
    with pytest.raises(ValueError, match="seed"):
        RandomBot(-1)
