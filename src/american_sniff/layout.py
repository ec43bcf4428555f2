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

from collections.abc import Iterator
from typing import Any, ClassVar

import attrs

from ._native import COMPILED
from .errors import IllegalMove
from .points import Connection, Contribution, Point, Side, parse_point, point_of_key
from .tiles import ALL_TILES, Tile

__all__ = [
    "Connection",
    "Contribution",
    "Layout",
    "PlacementLog",
    "Point",
    "Side",
    "parse_point",
]


#: A node of a layout's placement log: (tile, key of the point it was placed
#: on or None for the opening tile, the previous node); None before the first.
#: (The previous node is a PlacementLog; the alias is kept one level deep so
#: that mypyc can compile the modules that use it.)
PlacementLog = tuple[Tile, int | None, Any] | None


_LAYOUT_DOC = """The tiles on the table, as an immutable value.

    Build one with :meth:`empty` and :meth:`place`; never call the constructor
    directly. Equal histories of placements give equal layouts.

    >>> table = Layout.empty().place(Tile(1, 4))
    >>> [str(p) for p in table.points()], table.end_sum
    (['[1|4] low', '[1|4] high'], 5)

    A layout is frozen: assigning or deleting an attribute raises
    ``attrs.exceptions.FrozenInstanceError``. It compares, hashes, copies
    and pickles by its fields. (It is written out by hand rather than with
    attrs, so that the compiled build can make it a native class: the engine
    builds one for every placement.)

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


#: Layout's slots in the order of its constructor's arguments.
_INIT_SLOTS = ("open_keys", "end_sum", "sniff", "tile_mask", "value_mask", "_log")


class Layout:  # noqa: D101 (the docstring is _LAYOUT_DOC, set below)
    __slots__ = ("_log", "end_sum", "open_keys", "sniff", "tile_mask", "value_mask")
    __match_args__: ClassVar[tuple[str, ...]] = (
        "open_keys",
        "end_sum",
        "sniff",
        "tile_mask",
        "value_mask",
    )

    open_keys: tuple[int, ...]
    end_sum: int
    sniff: Tile | None
    tile_mask: int
    value_mask: int
    # The placements, newest first, as a chain shared with earlier layouts (a
    # PlacementLog). Typed loosely so that both builds store whatever they are
    # given here, and validate_state reports a malformed one.
    _log: Any

    def __init__(
        self,
        open_keys: tuple[int, ...],
        end_sum: int,
        sniff: Tile | None,
        tile_mask: int,
        value_mask: int,
        log: PlacementLog | object,
    ) -> None:
        if COMPILED:
            # A native class: its own stores go straight into the object,
            # past the __setattr__ that refuses everyone else's.
            self.open_keys = open_keys
            self.end_sum = end_sum
            self.sniff = sniff
            self.tile_mask = tile_mask
            self.value_mask = value_mask
            self._log = log
            return
        # The interpreted class refuses assignment, so its fields are stored past it.
        values = (open_keys, end_sum, sniff, tile_mask, value_mask, log)
        for name, value in zip(_INIT_SLOTS, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise attrs.exceptions.FrozenInstanceError

    def __delattr__(self, name: str) -> None:
        raise attrs.exceptions.FrozenInstanceError

    def _fields(self) -> tuple[object, ...]:
        return (
            self.open_keys,
            self.end_sum,
            self.sniff,
            self.tile_mask,
            self.value_mask,
            self._log,
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not Layout:
            return NotImplemented
        return self._fields() == other._fields()

    def __ne__(self, other: object) -> bool:
        if type(other) is not Layout:
            return NotImplemented
        return self._fields() != other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __reduce__(self) -> tuple[object, ...]:
        return (Layout, self._fields())

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
        return tuple(map(point_of_key, self.open_keys))

    def contributions(self) -> tuple[Contribution, ...]:
        """Every counted scoring end, in :meth:`points` order; they add up to :attr:`end_sum`."""
        from . import _fast  # noqa: PLC0415 (the fast representation imports this module)

        keys = self.open_keys
        result = [Contribution(point_of_key(key), _fast.WORTH_OF_KEY[key]) for key in keys]
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
            entries.append((tile, None if key is None else point_of_key(key)))
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


# The compiled build keeps no docstring for a native class, so the class gets
# its docstring here, the same way in both builds (help() and the docs read
# it). setattr, because mypyc refuses a plain assignment to a native class.
setattr(Layout, "__doc__", _LAYOUT_DOC)  # noqa: B010


def _joined_side(tile: Tile, at: Point) -> Point:
    """The side of ``tile`` that joins the open point ``at``."""
    if tile.is_double:
        return Point(tile, Side.LINE_A)
    return Point(tile, Side.LOW if tile.low == at.value else Side.HIGH)


_EMPTY = Layout((), 0, None, 0, 0, None)
