"""Connection points: the named sides of the tiles on the table, and what they count.

Every tile on the table has named sides (:class:`Side`): a non-double has a
``low`` and a ``high`` end; a double lies crosswise with two in-line sides; the
Sniff alone also grows two branches. A :class:`Point` is one side of one tile;
:class:`Connection` and :class:`Contribution` describe a joint and a counted
scoring end. The table itself is :class:`~american_sniff.layout.Layout`.

**The point table.** Inside a layout an open point is a small integer, its
*key*: ``tile.index * 8 + rank``, with the ranks ``low`` 0, ``high`` 1,
``line_a`` 2, ``line_b`` 3, ``branch_a`` 4 and ``branch_b`` 5 (the order of
:class:`Side`). A point's key is its public :attr:`~american_sniff.Point.order`, so sorting
keys sorts points. There is exactly one :class:`Point` per key
(:data:`POINT_OF_KEY`, :func:`point_of_key`; copies and unpickled points come
back as those), and :data:`VALUE_OF_KEY` and :data:`BIT_OF_KEY` give the number
a tile must show there and ``1 << number``, the bit of that number in a mask of
open values.
"""

from __future__ import annotations

import enum
from typing import Final

import attrs

from .tiles import ALL_TILES, Tile, parse_tile

__all__ = [
    "BIT_OF_KEY",
    "BRANCH_A",
    "BRANCH_B",
    "HIGH",
    "LINE_A",
    "LINE_B",
    "LOW",
    "POINT_OF_KEY",
    "VALUE_OF_KEY",
    "Connection",
    "Contribution",
    "Point",
    "Side",
    "key_of",
    "parse_point",
    "point_of_key",
]


class Side(enum.Enum):
    """A named side of a tile on the table; the value is the name used in notation.

    A non-double has two ends; a double lies crosswise and has two in-line
    sides; the Sniff alone also has two branches. The rules text's Portuguese
    name is given in brackets.

    :cvar LOW: ``"low"``: the end of a non-double that shows the smaller number
        (*extremidade de menor valor*).
    :cvar HIGH: ``"high"``: the end of a non-double that shows the larger number
        (*extremidade de maior valor*).
    :cvar LINE_A: ``"line_a"``: the in-line side by which a double is joined to
        the table; on an opening double, simply the first of its two free
        in-line sides (*linha A*).
    :cvar LINE_B: ``"line_b"``: the opposite in-line side of a double, the one
        that faces outward and stays open once the double is joined (*linha B*).
    :cvar BRANCH_A: ``"branch_a"``: the Sniff's first side arm, open only once
        both of the Sniff's line sides are joined (*ramo A*).
    :cvar BRANCH_B: ``"branch_b"``: the Sniff's second side arm, open under the
        same condition (*ramo B*).
    """

    LOW = "low"
    HIGH = "high"
    LINE_A = "line_a"
    LINE_B = "line_b"
    BRANCH_A = "branch_a"
    BRANCH_B = "branch_b"

    def __repr__(self) -> str:
        return f"Side.{self.name}"

    def __str__(self) -> str:
        return self.value


_END_SIDES = (Side.LOW, Side.HIGH)
_DOUBLE_SIDES = (Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B)
_SIDE_RANK = {side: rank for rank, side in enumerate(Side)}

#: The rank of ``low`` in a point's key (the sides' ranks follow :class:`Side` order).
LOW: Final = 0
#: The rank of ``high`` in a point's key.
HIGH: Final = 1
#: The rank of ``line_a`` in a point's key.
LINE_A: Final = 2
#: The rank of ``line_b`` in a point's key.
LINE_B: Final = 3
#: The rank of ``branch_a`` in a point's key.
BRANCH_A: Final = 4
#: The rank of ``branch_b`` in a point's key.
BRANCH_B: Final = 5


def key_of(tile: Tile, side: Side) -> int:
    """The key of a tile's side: ``tile.index * 8 + rank`` (its point's ``order``)."""
    return tile.index * 8 + _SIDE_RANK[side]


@attrs.frozen(repr=False, cache_hash=True)
class Point:
    """A connection point: one named side of one tile on the table.

    >>> Point(Tile(1, 4), Side.HIGH).value
    4
    >>> str(Point(Tile(1, 1), Side.BRANCH_A))
    '[1|1] branch_a'

    :ivar tile: The tile on the table that the side belongs to.
    :ivar side: Which of that tile's sides this is.
    :ivar value: The number a tile must show to be placed here: the half at
        that end of a non-double, the number of a double (derived, not
        compared).
    :ivar order: A sort key, by tile (as in :data:`ALL_TILES`) then by side (in
        :class:`Side` order); it is unique for each point (derived, not
        compared).
    :raises ValueError: if the side does not exist on that tile: a non-double
        has only ``low`` and ``high``, a double only lines and branches.
    """

    tile: Tile
    side: Side
    value: int = attrs.field(init=False, eq=False)
    order: int = attrs.field(init=False, eq=False)

    def __attrs_post_init__(self) -> None:
        tile, side = self.tile, self.side
        if not isinstance(tile, Tile):
            raise ValueError(f"a point needs a Tile, got {tile!r}")
        if not isinstance(side, Side):
            raise ValueError(f"a point needs a Side, got {side!r}")
        if tile.is_double and side in _END_SIDES:
            raise ValueError(f"{tile} is a double: it has line and branch sides, not {side}")
        if not tile.is_double and side in _DOUBLE_SIDES:
            raise ValueError(f"{tile} is not a double: it has only low and high ends, not {side}")
        object.__setattr__(self, "value", tile.high if side is Side.HIGH else tile.low)
        object.__setattr__(self, "order", key_of(tile, side))

    def __str__(self) -> str:
        return f"{self.tile} {self.side.value}"

    def __repr__(self) -> str:
        return f"Point({self.tile!r}, {self.side!r})"

    def __reduce__(self) -> tuple[object, ...]:
        """Copies and unpickled points are the interned instances of the table."""
        return (point_of_key, (self.order,))


def parse_point(text: str) -> Point:
    """Parse a point written as ``str(point)`` does: a tile, a space, a side value.

    >>> parse_point("[4|1] high")
    Point(Tile(1, 4), Side.HIGH)

    :raises ValueError: if ``text`` is not a point in that notation, or names a
        side the tile does not have.
    """
    if not isinstance(text, str):
        raise ValueError(f"a point is written as text, got {text!r}")
    words = text.rsplit(None, 1)
    sides = [side.value for side in Side]
    if len(words) != 2 or words[1] not in sides:
        raise ValueError(
            f"not a point: {text!r} (expected '[a|b] SIDE' with SIDE one of {', '.join(sides)})"
        )
    return Point(parse_tile(words[0]), Side(words[1]))


@attrs.frozen(repr=False)
class Connection:
    """Two tiles joined on the table: an open point and the side that covered it.

    :ivar at: The point that was open before the placement and is now joined.
    :ivar joined: The side of the tile placed there that touches it: the end
        showing the same number for a non-double, ``line_a`` for a double.
    """

    at: Point
    joined: Point

    def __str__(self) -> str:
        return f"{self.at} - {self.joined}"

    def __repr__(self) -> str:
        return f"Connection({self.at!r}, {self.joined!r})"


@attrs.frozen(repr=False)
class Contribution:
    """One counted scoring end: a free side of a tile and what it adds to the sum.

    A terminal double is one scoring end worth both halves, listed at its free
    line side; a Sniff lying alone with both line sides free is one scoring end
    listed at ``line_a``. Each free branch of an opened Sniff is a scoring end
    worth half the Sniff.

    :ivar point: The free side the scoring end is listed at.
    :ivar value: What it adds to the end sum; a free end showing 0 is listed
        too, with value 0.
    """

    point: Point
    value: int

    @property
    def tile(self) -> Tile:
        """The tile the contribution comes from."""
        return self.point.tile

    @property
    def side(self) -> Side:
        """The side the contribution is listed at."""
        return self.point.side

    def __str__(self) -> str:
        return f"{self.point}: {self.value}"

    def __repr__(self) -> str:
        return f"Contribution({self.point!r}, {self.value!r})"


def point_of_key(key: int) -> Point:
    """The interned point whose :attr:`~american_sniff.Point.order` is ``key``.

    Unpickling or copying a point calls it, so that copies are the interned
    points the engine hands out.

    >>> point_of_key(Point(Tile(1, 4), Side.HIGH).order)
    Point(Tile(1, 4), Side.HIGH)

    :raises ValueError: if no point has that order.
    """
    known = type(key) is int and 0 <= key < len(POINT_OF_KEY)
    point = POINT_OF_KEY[key] if known else None
    if point is None:
        raise ValueError(f"no point has the order {key}")
    return point


def _point_table() -> list[Point | None]:
    """The Point of each key, None for keys no tile has."""
    table: list[Point | None] = [None] * (8 * len(ALL_TILES))
    for tile in ALL_TILES:
        for side in _DOUBLE_SIDES if tile.is_double else _END_SIDES:
            table[key_of(tile, side)] = Point(tile, side)
    return table


#: The one Point of each key (None for keys no tile has).
POINT_OF_KEY: Final = _point_table()
#: The number a tile placed on each key must show (0 for keys no tile has).
VALUE_OF_KEY: Final = [0 if p is None else p.value for p in POINT_OF_KEY]
#: ``1 << value`` for each key: the bit of its number in a mask of open values.
BIT_OF_KEY: Final = [1 << v for v in VALUE_OF_KEY]
