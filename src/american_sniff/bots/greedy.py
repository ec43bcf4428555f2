"""The greedy bot: the most points now, shedding the heaviest tile on a tie."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, cast

import attrs

from ..layout import Layout
from ..moves import Move, Place
from ..rng import check_seed
from ..views import PlayerView
from ._kernel import greedy_pick
from .base import moves_to_choose_from

__all__ = ["GreedyBot", "greedy_choice"]


def greedy_choice(moves: Sequence[Move], layout: Layout) -> Move:
    """The greedy bot's pick among ``moves``, legal on the table ``layout``.

    The placement that scores the most points now; on a tie, the one that
    places the heaviest tile (the most pips, which settlement would cost most);
    on a further tie, the first in the order given (``legal_moves`` order: by
    tile, then by point). A lone draw or pass is returned as it is.

    :raises ValueError: if ``moves`` is empty.
    """
    if not moves:
        raise ValueError("there is no move to choose from")
    if len(moves) == 1:
        return moves[0]
    # Several legal moves are always placements: a draw or a pass comes alone.
    places = cast("Sequence[Place]", moves)
    for move in places:
        layout.check_place(move.tile, move.at)
    return greedy_pick(tuple(places), layout)


@attrs.define(eq=False)
class GreedyBot:
    """Takes the most points now; on a tie, sheds the heaviest tile.

    See :func:`~american_sniff.bots.greedy.greedy_choice` for the exact order. The greedy bot is
    deterministic: it never uses a generator, and its seed (kept so that every
    bot is made alike by :func:`~american_sniff.make_bot`) changes nothing.

    >>> from american_sniff import new_match, view_for
    >>> bot = GreedyBot()
    >>> bot
    GreedyBot(seed=0)
    >>> state = new_match(2, seed=1)
    >>> bot.choose(view_for(state, state.turn))  # alone on the table, [4|6] scores 10
    Place(Tile(4, 6))

    :ivar seed: Kept for a uniform interface; unused.
    """

    #: The bot's name in the registry (:func:`~american_sniff.make_bot`).
    name: ClassVar[str] = "greedy"

    seed: int = attrs.field(default=0, converter=check_seed)

    def choose(self, view: PlayerView) -> Move:
        """The greedy pick among the legal moves of ``view``.

        See :func:`~american_sniff.bots.greedy.greedy_choice`.

        :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
        :raises ValueError: if the view's seat has no move to make.
        """
        return greedy_choice(moves_to_choose_from(view, self), view.layout)
