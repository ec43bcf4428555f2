"""The moves a player can make: place a tile, draw from the stock, or pass."""

from __future__ import annotations

from typing import ClassVar

import attrs

from .errors import IllegalMove
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


def parse_move(text: str, *, strict: bool = False) -> Move:
    """Read a move written as ``str(move)`` does; the one reader of the move notation.

    The forms are ``"[1|4] opens"``, ``"[1|4] on [1|1] branch_a"``, ``"draw"``
    and ``"pass"``. Lenient by default: tiles and points as
    :func:`~american_sniff.parse_tile` and :func:`~american_sniff.parse_point`
    read them, spaces as they come. With ``strict``, only the exact form
    every document of the library and the engine protocol write: tiles
    ``"[a|b]"`` with ``a <= b``, one space between words.

    >>> parse_move("[4|1] on [4|4] line_b")
    Place(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))
    >>> parse_move("draw"), parse_move("[2|2] opens")
    (Draw(), Place(Tile(2, 2)))
    >>> parse_move("[1|2] on [1|1] branch_a", strict=True)
    Place(Tile(1, 2), Point(Tile(1, 1), Side.BRANCH_A))
    >>> parse_move("[2|1] opens", strict=True)
    Traceback (most recent call last):
    ...
    american_sniff.errors.IllegalMove: not a tile: '[2|1]' is not a tile written '[a|b]' with a <= b

    :raises IllegalMove: (a :class:`ValueError`) with code ``not_a_move`` if
        ``text`` has none of those forms, ``not_a_tile`` if the placed tile is
        not a tile in the notation, ``not_a_point`` if the point is not a side
        in the notation (or one the tile does not have).
    """
    if strict:
        move = _MOVE_OF_TEXT.get(text) if isinstance(text, str) else None
        if move is not None:
            return move
    if not isinstance(text, str):
        raise IllegalMove(f"a move is written as text, got {text!r}", "not_a_move")
    return _strict_move(text) if strict else _lenient_move(text)


def _lenient_move(text: str) -> Move:
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
    raise IllegalMove(_NOT_A_MOVE.format(text=text), "not_a_move")


def _strict_move(text: str) -> Move:
    # "draw" and "pass" are always in _MOVE_OF_TEXT, so never come here.
    if text.endswith(" opens"):
        move = Place(_placed_tile(text[: -len(" opens")]))
        _MOVE_OF_TEXT[text] = move  # 28 texts
        return move
    tile, on, at = text.partition(" on ")
    if not on:
        raise IllegalMove(_NOT_A_MOVE.format(text=text), "not_a_move")
    move = Place(_placed_tile(tile), parse_point(at, strict=True))
    _MOVE_OF_TEXT[text] = move  # at most 28 * 144 distinct texts
    return move


def _placed_tile(text: str) -> Tile:
    """The placed tile of a move's strict text, refused with the code ``not_a_tile``."""
    try:
        return parse_tile(text, strict=True)
    except ValueError as exc:
        raise IllegalMove(f"not a tile: {exc}", "not_a_tile") from None


_NOT_A_MOVE = (
    "not a move: {text!r} (expected '[a|b] opens', '[a|b] on [c|d] SIDE', 'draw' or 'pass')"
)

#: Moves already read strictly, by their text (only texts that parsed are kept;
#: the two words from the start).
_MOVE_OF_TEXT: dict[str, Move] = {"draw": Draw(), "pass": Pass()}
