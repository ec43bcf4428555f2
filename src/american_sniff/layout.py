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

import attrs

from .errors import IllegalMove
from .tiles import ALL_TILES, Tile

__all__ = ["Connection", "Contribution", "Layout", "Point", "Side"]


class Side(enum.Enum):
    """A named side of a tile on the table (the Portuguese name in brackets)."""

    #: The end of a non-double with the smaller value (*extremidade de menor valor*).
    LOW = "low"
    #: The end of a non-double with the larger value (*extremidade de maior valor*).
    HIGH = "high"
    #: The in-line side a double joins by (*linha A*).
    LINE_A = "line_a"
    #: The other in-line side of a double (*linha B*).
    LINE_B = "line_b"
    #: The Sniff's first side branch (*ramo A*).
    BRANCH_A = "branch_a"
    #: The Sniff's second side branch (*ramo B*).
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

    :raises ValueError: if the side does not exist on that tile: a non-double
        has only ``low`` and ``high``, a double only lines and branches.
    """

    #: The tile the side belongs to.
    tile: Tile
    #: Which side of the tile.
    side: Side
    #: The number a tile placed here must show (derived, not compared).
    value: int = attrs.field(init=False, eq=False)
    #: Sort key: tile order, then side order (derived, not compared).
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
        return (Point, (self.tile, self.side))


@attrs.frozen(repr=False)
class Connection:
    """Two tiles joined on the table: an open point and the side that covered it."""

    #: The point that was open and is now joined.
    at: Point
    #: The side of the newly placed tile that joins it.
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
    """

    #: The free side that counts.
    point: Point
    #: What it adds to the end sum (zero is listed too).
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


# Every point that can exist, indexed by tile id: (low, high) for a non-double,
# (line_a, line_b, branch_a, branch_b) for a double.  The engine only ever uses
# these instances, so comparisons on the hot path succeed on identity.
_TILE_POINTS: tuple[tuple[Point, ...], ...] = tuple(
    tuple(Point(tile, side) for side in (_DOUBLE_SIDES if tile.is_double else _END_SIDES))
    for tile in ALL_TILES
)


def _canonical(point: Point) -> Point:
    """The interned instance equal to ``point``."""
    tile_points = _TILE_POINTS[point.tile.index]
    return tile_points[_SIDE_RANK[point.side] - (2 if point.tile.is_double else 0)]


def _sort_key(point: Point) -> int:
    return point.order


# A placement log entry: (tile, point it was placed on or None, previous entry).
_Log = tuple[Tile, Point | None, "_Log"] | None


@attrs.frozen(repr=False, cache_hash=True)
class Layout:
    """The tiles on the table, as an immutable value.

    Build one with :meth:`empty` and :meth:`place`; never call the constructor
    directly. Equal histories of placements give equal layouts.

    >>> table = Layout.empty().place(Tile(1, 4))
    >>> [str(p) for p in table.points()], table.end_sum
    (['[1|4] low', '[1|4] high'], 5)
    """

    #: The open connection points, in :meth:`points` order.
    open_points: tuple[Point, ...]
    #: The sum of all counted contributions (see :meth:`contributions`).
    end_sum: int
    #: The Sniff (the first double placed this round), or None before any double.
    sniff: Tile | None
    #: Bit ``t.index`` is set for every tile ``t`` on the table.
    tile_mask: int
    #: Bit ``v`` is set for every value ``v`` that some open point shows.
    value_mask: int
    #: The placements, newest first, as a chain shared with earlier layouts.
    _log: _Log = attrs.field(alias="log")
    #: How many tiles lie on the table.
    count: int

    @classmethod
    def empty(cls) -> Layout:
        """The empty table at the start of a round."""
        return _EMPTY

    # -- reading the table -------------------------------------------------

    @property
    def is_empty(self) -> bool:
        """Whether no tile has been placed yet."""
        return self.count == 0

    def points(self) -> tuple[Point, ...]:
        """The legal connection points, ordered by tile, then by side.

        Tiles are in ``(low, high)`` order and sides in :class:`Side` order
        (``low``, ``high``, ``line_a``, ``line_b``, ``branch_a``, ``branch_b``).
        The Sniff's branches are listed only once both of its line sides are
        joined.
        """
        return self.open_points

    def contributions(self) -> tuple[Contribution, ...]:
        """Every counted scoring end, in :meth:`points` order; they add up to :attr:`end_sum`."""
        result = []
        for point in self.open_points:
            if point.side is Side.LINE_B and self._both_lines_open(point.tile):
                continue  # a lone opening double counts once, at line_a
            result.append(Contribution(point, _point_worth(point)))
        return tuple(result)

    def fits(self, tile: Tile) -> tuple[Point, ...]:
        """The open points where ``tile`` could be placed, in :meth:`points` order.

        On the empty table any tile is placed with ``at=None``, so this is empty.
        """
        return tuple(p for p in self.open_points if tile.low == p.value or tile.high == p.value)

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
            entries.append((node[0], node[1]))
            node = node[2]
        entries.reverse()
        return entries

    def _both_lines_open(self, double: Tile) -> bool:
        line_a = _TILE_POINTS[double.index][0]
        line_b = _TILE_POINTS[double.index][1]
        return line_a in self.open_points and line_b in self.open_points

    # -- placing -----------------------------------------------------------

    def place(self, tile: Tile, at: Point | None = None) -> Layout:
        """A new layout with ``tile`` placed on the open point ``at``.

        ``at`` is None only for the opening tile, which may be any tile.

        :raises IllegalMove: if the tile is already on the table, if ``at`` is
            None on a non-empty table or given on the empty one, if ``at`` is
            not an open point, or if the tile shows no half of ``at``'s value.
        """
        self.check_place(tile, at)
        return self._place(tile, None if at is None else _canonical(at))

    def check_place(self, tile: object, at: object) -> None:
        """Raise :class:`IllegalMove` naming the problem if ``place(tile, at)`` is illegal."""
        if not isinstance(tile, Tile):
            raise IllegalMove(f"not a tile: {tile!r}")
        if tile in self:
            raise IllegalMove(f"{tile} is already on the table")
        if at is None:
            if not self.is_empty:
                raise IllegalMove(f"the table is not empty: name the open point to place {tile} on")
            return
        if not isinstance(at, Point):
            raise IllegalMove(f"not a connection point: {at!r}")
        if self.is_empty:
            raise IllegalMove(f"the table is empty: the opening tile {tile} is placed with at=None")
        if at not in self.open_points:
            raise IllegalMove(self._why_not_open(at))
        if not (tile.low == at.value or tile.high == at.value):
            raise IllegalMove(f"values do not match: {tile} shows no {at.value} for {at}")

    def _why_not_open(self, at: Point) -> str:
        if at.tile not in self:
            return f"point {at} is not open: {at.tile} is not on the table"
        if at.side in (Side.BRANCH_A, Side.BRANCH_B):
            if at.tile != self.sniff:
                return f"point {at} is not open: only the Sniff ({self.sniff}) has branches"
            if not self._branches_opened():
                return (
                    f"point {at} is not open: the Sniff's branches open only once "
                    "both of its line sides are joined"
                )
        return f"point {at} is not open: it is already joined"

    def _branches_opened(self) -> bool:
        sniff = self.sniff
        if sniff is None:
            return False
        line_a, line_b = _TILE_POINTS[sniff.index][:2]
        return line_a not in self.open_points and line_b not in self.open_points

    def _place(self, tile: Tile, at: Point | None) -> Layout:
        """Place without checking; ``at`` must be an interned open point that fits."""
        sniff = self.sniff
        if at is None:
            # The opening: any tile, every side free.
            new_points = _TILE_POINTS[tile.index][:2]
            if tile.is_double:
                sniff = tile
            total = tile.low + tile.high
        else:
            value = at.value
            new_points = tuple(p for p in self.open_points if p is not at)
            total = self.end_sum
            # The joined point stops counting.
            if at.side is Side.LINE_A or at.side is Side.LINE_B:
                line_a, line_b = _TILE_POINTS[at.tile.index][:2]
                other = line_b if at is line_a else line_a
                if other not in new_points:
                    # The double was terminal and now is internal.
                    total -= 2 * value
                    if at.tile == sniff:
                        # Both line sides of the Sniff are joined: its branches open,
                        # each free branch counting half the Sniff.
                        new_points += _TILE_POINTS[at.tile.index][2:]
                        total += 2 * value
                # else: a lone opening double keeps counting through its other line side.
            else:
                total -= value
            # The new tile's free side starts counting.
            if tile.is_double:
                # A double joins by line A and is terminal at line B.
                if sniff is None:
                    sniff = tile
                new_points += (_TILE_POINTS[tile.index][1],)
                total += 2 * value
            elif tile.low == value:
                new_points += (_TILE_POINTS[tile.index][1],)
                total += tile.high
            else:
                new_points += (_TILE_POINTS[tile.index][0],)
                total += tile.low
            if len(new_points) > 1:
                new_points = tuple(sorted(new_points, key=_sort_key))
        mask = 0
        for point in new_points:
            mask |= 1 << point.value
        return Layout(
            new_points,
            total,
            sniff,
            self.tile_mask | 1 << tile.index,
            mask,
            (tile, at, self._log),
            self.count + 1,
        )


def _point_worth(point: Point) -> int:
    """What a free point adds to the sum, ignoring the lone-opening-double pairing."""
    if point.side is Side.LINE_A or point.side is Side.LINE_B:
        return 2 * point.value
    return point.value


def _joined_side(tile: Tile, at: Point) -> Point:
    """The side of ``tile`` that joins the open point ``at``."""
    points = _TILE_POINTS[tile.index]
    if tile.is_double or tile.low == at.value:
        return points[0]
    return points[1]


_EMPTY = Layout((), 0, None, 0, 0, None, 0)
