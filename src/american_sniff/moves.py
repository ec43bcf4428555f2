"""The moves a player can make: place a tile, draw from the stock, or pass."""

from __future__ import annotations

from typing import ClassVar

import attrs

from .points import Point, parse_point
from .tiles import Tile, parse_tile

__all__ = ["Draw", "Move", "Pass", "Place", "parse_move"]


@attrs.frozen(repr=False, cache_hash=True)
class Place:
    """Put ``tile`` from the hand on the open point ``at``.

    ``at`` is None for the opening tile of a round.

    >>> from american_sniff import Side
    >>> Place(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))
    Place(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))

    :ivar tile: The tile to put down, from the hand of the player to move.
    :ivar at: The open connection point to put it on, or None for the tile
        that opens the round (the table is then empty).
    """

    tile: Tile
    at: Point | None = None

    def __str__(self) -> str:
        return f"{self.tile} on {self.at}" if self.at is not None else f"{self.tile} opens"

    def __repr__(self) -> str:
        if self.at is None:
            return f"Place({self.tile!r})"
        return f"Place({self.tile!r}, {self.at!r})"


@attrs.frozen(repr=False)
class _Word:
    """A move with no fields, written as one word."""

    #: The word the move is written as.
    word: ClassVar[str]

    def __str__(self) -> str:
        return self.word

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


@attrs.frozen(repr=False)
class Draw(_Word):
    """Draw the next tile of the stock (only when no placement is legal)."""

    word = "draw"


@attrs.frozen(repr=False)
class Pass(_Word):
    """Pass the turn (only when no placement is legal and the stock is empty)."""

    word = "pass"


#: Any move.
Move = Place | Draw | Pass


def parse_move(text: str) -> Move:
    """Parse a move written as ``str(move)`` does.

    The forms are ``"[1|4] opens"``, ``"[1|4] on [1|1] branch_a"``, ``"draw"``
    and ``"pass"``.

    >>> parse_move("[4|1] on [4|4] line_b")
    Place(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))
    >>> parse_move("draw"), parse_move("[2|2] opens")
    (Draw(), Place(Tile(2, 2)))

    :raises ValueError: if ``text`` is not a move in that notation.
    """
    if not isinstance(text, str):
        raise ValueError(f"a move is written as text, got {text!r}")
    words = text.split()
    if words == ["draw"]:
        return Draw()
    if words == ["pass"]:
        return Pass()
    tile, on, at = text.partition(" on ")
    if on:
        return Place(parse_tile(tile), parse_point(at))
    if words and words[-1] == "opens":
        return Place(parse_tile(text.rsplit(None, 1)[0]))
    raise ValueError(
        f"not a move: {text!r} (expected '[a|b] opens', '[a|b] on [c|d] SIDE', 'draw' or 'pass')"
    )
