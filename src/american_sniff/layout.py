"""The table: where tiles lie, which sides are open, and what the open ends count.

The geometry follows the rules text:

* a non-double ``[a|b]`` has two ends, ``low`` (value ``a``) and ``high``
  (value ``b``); played onto a point of value ``v`` it joins by its end of
  value ``v`` and its other end becomes open;
* every double lies crosswise and has two in-line sides, ``line_a`` and
  ``line_b``; played onto the table it joins by ``line_a`` and ``line_b`` is
  open; an opening double has both free;
* the first double placed in a round is the *Sniff*; once both of its line
  sides are joined it also offers ``branch_a`` and ``branch_b``.

A :class:`Layout` keeps the open points, their end sum and the Sniff in its
fields, so placing a tile costs a constant amount of work whatever lies on the
table, and a new layout shares the history of placements with the old one.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any

import attrs

from .errors import IllegalMove
from .tiles import ALL_TILES, Tile, parse_tile

__all__ = [
    "Connection",
    "Contribution",
    "Layout",
    "PlacementLog",
    "Point",
    "Side",
    "parse_point",
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
        object.__setattr__(self, "order", tile.index * 8 + _SIDE_RANK[side])

    def __str__(self) -> str:
        return f"{self.tile} {self.side.value}"

    def __repr__(self) -> str:
        return f"Point({self.tile!r}, {self.side!r})"

    def __reduce__(self) -> tuple[object, ...]:
        # Copies and unpickled points are the interned instances of the table.
        return (_point, (self.order,))


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


#: A node of a layout's placement log: (tile, key of the point it was placed
#: on or None for the opening tile, the previous node); None before the first.
#: (The previous node is a PlacementLog; the alias is kept one level deep so
#: that mypyc can compile the modules that use it.)
PlacementLog = tuple[Tile, int | None, Any] | None


@attrs.frozen(repr=False, weakref_slot=False)
class Layout:
    """The tiles on the table, as an immutable value.

    Build one with :meth:`empty` and :meth:`place`; never call the constructor
    directly. Equal histories of placements give equal layouts.

    >>> table = Layout.empty().place(Tile(1, 4))
    >>> [str(p) for p in table.points()], table.end_sum
    (['[1|4] low', '[1|4] high'], 5)

    :ivar open_keys: The open connection points, each as its
        :attr:`Point.order`, in increasing order; :meth:`points` turns them
        into :class:`Point` values.
    :ivar end_sum: The total of every scoring end on the table, that is of
        :meth:`contributions`; a placement scores it when it is a positive
        multiple of five.
    :ivar sniff: The Sniff, the first double placed this round, or None while
        no double has been placed.
    :ivar tile_mask: An integer with bit ``t.index`` set for each tile ``t`` on
        the table.
    :ivar value_mask: An integer with bit ``v`` set for each number ``v`` that
        some open point shows.
    """

    open_keys: tuple[int, ...]
    end_sum: int
    sniff: Tile | None
    tile_mask: int
    value_mask: int
    # The placements, newest first, as a chain shared with earlier layouts.
    _log: PlacementLog = attrs.field(alias="log")

    @classmethod
    def empty(cls) -> Layout:
        """The empty table at the start of a round."""
        return _EMPTY

    # -- reading the table -------------------------------------------------

    @property
    def is_empty(self) -> bool:
        """Whether no tile has been placed yet."""
        return not self.tile_mask

    @property
    def count(self) -> int:
        """How many tiles lie on the table."""
        return self.tile_mask.bit_count()

    def points(self) -> tuple[Point, ...]:
        """The legal connection points, ordered by tile, then by side.

        Tiles are in ``(low, high)`` order and sides in :class:`Side` order
        (``low``, ``high``, ``line_a``, ``line_b``, ``branch_a``, ``branch_b``).
        The Sniff's branches are listed only once both of its line sides are
        joined.
        """
        return tuple(map(_point, self.open_keys))

    def contributions(self) -> tuple[Contribution, ...]:
        """Every counted scoring end, in :meth:`points` order; they add up to :attr:`end_sum`."""
        from . import _fast  # noqa: PLC0415 (the fast representation imports this module)

        keys = self.open_keys
        result = [Contribution(_point(key), _fast.WORTH_OF_KEY[key]) for key in keys]
        if _fast.is_lone_double(keys):
            del result[1]  # a lone opening double counts once, at line_a
        return tuple(result)

    def fits(self, tile: Tile) -> tuple[Point, ...]:
        """The open points showing a half of ``tile``, in :meth:`points` order.

        On the empty table any tile is placed with ``at=None``, so this is empty.
        Whether the tile is free to play (not already on the table, in the
        player's hand) is not checked here.

        :raises ValueError: if ``tile`` is not a :class:`Tile`.
        """
        if not isinstance(tile, Tile):
            raise ValueError(f"not a tile: {tile!r}")
        return tuple(point for point in self.points() if tile.has(point.value))

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The tiles on the table, in the order they were placed."""
        return tuple(tile for tile, _ in self._entries())

    @property
    def connections(self) -> tuple[Connection, ...]:
        """Every joint on the table, in the order the tiles were placed."""
        return tuple(
            Connection(at, _joined_side(tile, at)) for tile, at in self._entries() if at is not None
        )

    def __contains__(self, tile: object) -> bool:
        return isinstance(tile, Tile) and bool(self.tile_mask >> tile.index & 1)

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Tile]:
        return iter(self.tiles)

    def __repr__(self) -> str:
        placed = ", ".join(str(t) for t in self.tiles)
        return f"<Layout [{placed}] end_sum={self.end_sum}>"

    def _entries(self) -> list[tuple[Tile, Point | None]]:
        entries = []
        node = self._log
        while node is not None:
            tile, key, node = node
            entries.append((tile, None if key is None else _point(key)))
        entries.reverse()
        return entries

    # -- placing -----------------------------------------------------------

    def place(self, tile: Tile, at: Point | None = None) -> Layout:
        """A new layout with ``tile`` placed on the open point ``at``.

        ``at`` is None only for the opening tile, which may be any tile.

        :raises IllegalMove: if the tile is already on the table, if ``at`` is
            None on a non-empty table or given on the empty one, if ``at`` is
            not an open point, or if the tile shows no half of ``at``'s value
            (also if ``tile`` is not a :class:`Tile`, or ``at`` neither a
            :class:`Point` nor None).
        """
        from ._fast import placed  # noqa: PLC0415 (the fast representation imports this module)

        self.check_place(tile, at)
        return placed(self, ALL_TILES[tile.index], None if at is None else at.order)

    def check_place(self, tile: object, at: object) -> None:
        """Check that ``place(tile, at)`` is legal, and return None if it is.

        :raises IllegalMove: naming the problem, in each case in which
            :meth:`place` refuses.
        """
        if not isinstance(tile, Tile):
            raise IllegalMove(f"not a tile: {tile!r}", "not_a_tile")
        if tile in self:
            raise IllegalMove(f"{tile} is already on the table", "already_on_table")
        if at is None:
            if not self.is_empty:
                raise IllegalMove(
                    f"the table is not empty: name the open point to place {tile} on",
                    "point_required",
                )
            return
        if not isinstance(at, Point):
            raise IllegalMove(f"not a connection point: {at!r}", "not_a_point")
        if self.is_empty:
            raise IllegalMove(
                f"the table is empty: the opening tile {tile} is placed with at=None",
                "opening_has_no_point",
            )
        if at.order not in self.open_keys:
            raise IllegalMove(self._why_not_open(at), "point_not_open")
        if not tile.has(at.value):
            raise IllegalMove(
                f"values do not match: {tile} shows no {at.value} for {at}", "values_differ"
            )

    def _why_not_open(self, at: Point) -> str:
        if at.tile not in self:
            return f"point {at} is not open: {at.tile} is not on the table"
        if at.side in (Side.BRANCH_A, Side.BRANCH_B):
            if at.tile != self.sniff:
                return f"point {at} is not open: only the Sniff ({self.sniff}) has branches"
            lines = (Point(at.tile, Side.LINE_A).order, Point(at.tile, Side.LINE_B).order)
            if lines[0] in self.open_keys or lines[1] in self.open_keys:
                return (
                    f"point {at} is not open: the Sniff's branches open only once "
                    "both of its line sides are joined"
                )
        return f"point {at} is not open: it is already joined"


def _point(key: int) -> Point:
    """The interned :class:`Point` whose :attr:`~Point.order` is ``key``."""
    from ._fast import POINT_OF_KEY  # noqa: PLC0415 (the fast representation imports this module)

    point = POINT_OF_KEY[key]
    if point is None:
        raise ValueError(f"no point has the order {key}")
    return point


def _joined_side(tile: Tile, at: Point) -> Point:
    """The side of ``tile`` that joins the open point ``at``."""
    if tile.is_double:
        return Point(tile, Side.LINE_A)
    return Point(tile, Side.LOW if tile.low == at.value else Side.HIGH)


_EMPTY = Layout((), 0, None, 0, 0, None)
