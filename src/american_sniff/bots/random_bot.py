"""The random bot: a uniform choice among the legal moves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import attrs

from ..engine import apply, new_match
from ..moves import Move
from ..rng import MASK64, below
from ..state import MatchState
from ..views import PlayerView, view_for
from ._seeded import SeededBot

__all__ = ["RandomBot", "random_match", "random_match_bots"]


@attrs.define(eq=False, repr=False)
class RandomBot(SeededBot):
    """Chooses uniformly among the legal moves, from its own seeded generator.

    Its use of the generator is part of its specification, so that another
    implementation can replay a match of random bots from the seeds alone.
    The bot keeps one SplitMix64 state (:mod:`american_sniff.rng`), which
    starts at its seed. At each choice, with ``n`` legal moves listed in
    ``view.legal_moves`` order:

    * if ``n == 1``, it returns that move and leaves the generator alone;
    * otherwise ``i, state = below(n, state)`` and it returns ``moves[i]``.

    The state is the public field ``rng``: the ``repr`` shows it once it has
    moved, so ``eval(repr(bot))`` rebuilds the bot exactly at any moment (to
    save it, keep ``seed`` and ``rng``).

    >>> from american_sniff import new_match, view_for
    >>> bot = RandomBot(seed=1)
    >>> bot
    RandomBot(seed=1)
    >>> state = new_match(2, seed=1)
    >>> bot.choose(view_for(state, state.turn))
    Place(Tile(2, 5))
    >>> bot
    RandomBot(seed=1, rng=11400714819323198486)

    :ivar seed: Where the bot's generator starts: an integer from 0 to 2**64 - 1.
    :ivar rng: The generator's state now; the seed until the first choice.
    """

    #: The bot's name in the registry (:func:`~american_sniff.make_bot`).
    name: ClassVar[str] = "random"

    def _choose_among(self, moves: tuple[Move, ...], view: PlayerView) -> Move:
        """One of ``moves``, chosen uniformly (see the class notes)."""
        index, self.rng = below(len(moves), self.rng)
        return moves[index]

    def choose_from_moves(self, moves: tuple[Move, ...]) -> Move:
        """The move ``choose(view)`` returns when ``view.legal_moves`` is ``moves``.

        A random bot reads nothing of a view but its legal moves, so a loop
        that has them (``legal_moves(state)`` for the seat to move) need not
        make the view: ``american-sniff simulate`` asks this way. The
        generator moves exactly as in ``choose``, so the match is the same.

        >>> from american_sniff import legal_moves, new_match, view_for
        >>> state = new_match(2, seed=1)
        >>> RandomBot(seed=1).choose_from_moves(legal_moves(state))
        Place(Tile(2, 5))

        :raises ValueError: if ``moves`` is empty.
        """
        if len(moves) == 1:
            return moves[0]
        if not moves:
            raise ValueError("there is no legal move to choose from")
        return self._choose_among(moves, None)  # type: ignore[arg-type]  # a random bot reads no view


def random_match_bots(players: int, seed: int) -> list[RandomBot]:
    """The bots of :func:`random_match`: ``RandomBot(seed=(seed + k + 1) % 2**64)`` at seat ``k``.

    >>> random_match_bots(2, 7)
    [RandomBot(seed=8), RandomBot(seed=9)]
    """
    return [RandomBot(seed=(seed + seat + 1) & MASK64) for seat in range(players)]


def random_match(players: int, seed: int) -> Iterator[MatchState]:
    """Every state of a match between random bots, as ``american-sniff demo`` plays it.

    The match is ``new_match(players, seed=seed)``, and seat ``k`` plays with
    ``RandomBot(seed=(seed + k + 1) % 2**64)``, asked with its seat's view on
    its own turns. Another implementation can replay the match from the seed
    alone. The first state yielded is the match's first, the last the won one.

    >>> states = list(random_match(2, 3))
    >>> states[0] == new_match(2, seed=3), states[-1].is_over
    (True, True)

    :raises ValueError: if ``players`` or ``seed`` is out of range.
    """
    state = new_match(players, seed=seed)
    bots = random_match_bots(players, seed)
    yield state
    while state.winner is None:
        state = apply(state, bots[state.turn].choose(view_for(state, state.turn)))
        yield state
