"""The moves a player can make: place a tile, draw from the stock, or pass."""

from __future__ import annotations

import attrs

from .layout import Point
from .tiles import Tile

__all__ = ["Draw", "Move", "Pass", "Place"]


@attrs.frozen(repr=False, cache_hash=True)
class Place:
    """Put ``tile`` from the hand on the open point ``at``.

    ``at`` is None for the opening tile of a round.

    >>> from american_sniff import Side
    >>> Place(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))
    Place(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))
    """

    #: The tile to place.
    tile: Tile
    #: The open point to place it on, or None to open the round.
    at: Point | None = None

    def __str__(self) -> str:
        return f"{self.tile} on {self.at}" if self.at is not None else f"{self.tile} opens"

    def __repr__(self) -> str:
        if self.at is None:
            return f"Place({self.tile!r})"
        return f"Place({self.tile!r}, {self.at!r})"


@attrs.frozen(repr=False)
class Draw:
    """Draw the next tile of the stock (only when no placement is legal)."""

    def __str__(self) -> str:
        return "draw"

    def __repr__(self) -> str:
        return "Draw()"


@attrs.frozen(repr=False)
class Pass:
    """Pass the turn (only when no placement is legal and the stock is empty)."""

    def __str__(self) -> str:
        return "pass"

    def __repr__(self) -> str:
        return "Pass()"


#: Any move.
Move = Place | Draw | Pass
