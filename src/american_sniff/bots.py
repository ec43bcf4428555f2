"""Simple players that choose among the legal moves."""

from __future__ import annotations

from .engine import legal_moves
from .moves import Move
from .rng import below, check_seed
from .state import MatchState

__all__ = ["RandomBot"]


class RandomBot:
    """Chooses uniformly among the legal moves, from its own seeded generator.

    The choices come from :mod:`american_sniff.rng`, so the same seed makes the
    same choices on every machine. The bot keeps its generator state, so it is
    the one mutable object here: give each seat its own bot.

    >>> from american_sniff import new_match, apply
    >>> bot = RandomBot(seed=1)
    >>> state = new_match(2, seed=1)
    >>> apply(state, bot.choose(state)).layout.count
    1
    """

    def __init__(self, seed: int = 0) -> None:
        self._rng = check_seed(seed)

    def choose(self, state: MatchState) -> Move:
        """One of the legal moves of the player to move, chosen uniformly.

        :raises ValueError: if the match is over (there is nothing to choose).
        """
        moves = legal_moves(state)
        if not moves:
            raise ValueError("the match is over: there is no legal move to choose")
        if len(moves) == 1:
            return moves[0]
        index, self._rng = below(len(moves), self._rng)
        return moves[index]
