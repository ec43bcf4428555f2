"""What the seeded bots share: a generator that starts at the seed, and the lone-move rule."""

from __future__ import annotations

import attrs

from ..moves import Move
from ..rng import check_seed
from ..views import PlayerView
from .base import moves_to_choose_from

__all__ = ["SeededBot"]


@attrs.define(eq=False)
class SeededBot:
    """A bot with its own SplitMix64 generator state, which starts at its seed.

    Subclasses say how they pick among several legal moves in
    :meth:`_choose_among`; a lone legal move is returned at once, and the
    generator is left alone.

    :ivar seed: Where the bot's generator starts: an integer from 0 to 2**64 - 1.
    """

    seed: int = attrs.field(default=0, converter=check_seed)
    _rng: int = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self._rng = self.seed

    def choose(self, view: PlayerView) -> Move:
        """One of the legal moves of ``view``, chosen as the class notes say.

        A lone legal move is returned at once, without using the generator.

        :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
        :raises ValueError: if the view's seat has no move to make.
        """
        moves = moves_to_choose_from(view, self)
        if len(moves) == 1:
            return moves[0]
        return self._choose_among(moves, view)

    def _choose_among(self, moves: tuple[Move, ...], view: PlayerView) -> Move:
        """The bot's pick among ``moves`` (two or more), the legal moves of ``view``."""
        raise NotImplementedError  # pragma: no cover - every subclass overrides it
