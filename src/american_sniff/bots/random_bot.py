"""The random bot: a uniform choice among the legal moves."""

from __future__ import annotations

from typing import ClassVar

import attrs

from ..moves import Move
from ..rng import below, check_seed
from ..views import PlayerView
from .base import moves_to_choose_from

__all__ = ["RandomBot"]


@attrs.define(eq=False)
class RandomBot:
    """Chooses uniformly among the legal moves, from its own seeded generator.

    Its use of the generator is part of its specification, so that another
    implementation can replay a match of random bots from the seeds alone.
    The bot keeps one SplitMix64 state (:mod:`american_sniff.rng`), which
    starts at its seed. At each choice, with ``n`` legal moves listed in
    ``view.legal_moves`` order:

    * if ``n == 1``, it returns that move and leaves the generator alone;
    * otherwise ``i, state = below(n, state)`` and it returns ``moves[i]``.

    >>> from american_sniff import new_match, view_for
    >>> bot = RandomBot(seed=1)
    >>> bot
    RandomBot(seed=1)
    >>> state = new_match(2, seed=1)
    >>> bot.choose(view_for(state, state.turn))
    Place(Tile(2, 5))

    :ivar seed: Where the bot's generator starts: an integer from 0 to 2**64 - 1.
    """

    #: The bot's name in the registry (:func:`~american_sniff.make_bot`).
    name: ClassVar[str] = "random"

    seed: int = attrs.field(default=0, converter=check_seed)
    _rng: int = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self._rng = self.seed

    def choose(self, view: PlayerView) -> Move:
        """One of the legal moves of ``view``, chosen uniformly (see the class notes).

        :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
        :raises ValueError: if the view's seat has no move to make.
        """
        moves = moves_to_choose_from(view, self)
        if len(moves) == 1:
            return moves[0]
        index, self._rng = below(len(moves), self._rng)
        return moves[index]
