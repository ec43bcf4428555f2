"""A wrong engine: with the stock empty, the round is blocked when the next seat cannot place.

The rules block a round only when no seat at all can place. This engine asks
only the seat whose turn comes next, so a round where that seat is stuck but
another (the mover, or a seat further on) could still place ends too early.
"""

from __future__ import annotations

from collections.abc import Callable

from minimal import Rules, serve


class NextSeatBlock(Rules):
    """Blocks the round when the next seat holds no fitting tile (the bug)."""

    def blocked(self, can_place: Callable[[int], bool], mover: int, players: int) -> bool:
        """Whether the next seat after ``mover`` cannot place."""
        return not can_place((mover + 1) % players)


if __name__ == "__main__":
    serve(NextSeatBlock(), "wrong: the block test asks the next seat only")
