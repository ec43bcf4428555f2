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

This module is the one definition of that geometry, on point keys (see
:mod:`american_sniff.points`): how a tile joins (:data:`FREE_KEY`,
:data:`OPENING_KEYS`), what each free side counts (:data:`WORTH_OF_KEY`,
:func:`is_lone_double`), whether a tile fits (:data:`TILE_VALUES`,
:data:`FITTING_TILES`, :func:`can_place`), and, in :func:`placed`, when the
Sniff branches. :meth:`~american_sniff.Layout.place` and the engine both place through
:func:`placed`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Final, cast, overload

import attrs

from ._native import COMPILED, same_names, twin_constructor
from .errors import IllegalMove
from .points import (
    BIT_OF_KEY,
    BRANCH_A,
    BRANCH_B,
    HIGH,
    LINE_A,
    LINE_B,
    LOW,
    POINT_OF_KEY,
    VALUE_OF_KEY,
    Connection,
    Contribution,
    Point,
    Side,
    parse_point,
    point_of_key,
)
from .rules import MAX_PIPS
from .tiles import ALL_TILES, Tile

__all__ = [
    "FITTING_TILES",
    "FREE_KEY",
    "OPENING_KEYS",
    "TILE_VALUES",
    "WORTH_OF_KEY",
    "Connection",
    "Contribution",
    "Layout",
    "PlacementLog",
    "Point",
    "Side",
    "can_place",
    "end_sum_after",
    "is_lone_double",
    "new_layout",
    "parse_point",
    "placed",
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
        keys = self.open_keys
        result = [Contribution(point_of_key(key), WORTH_OF_KEY[key]) for key in keys]
        if is_lone_double(keys):
            del result[1]  # a lone opening double counts once, at line_a
        return tuple(result)

    # (The tile is typed ``object``: a wrong one is refused with the ValueError
    # below in both builds, not by the compiled build's argument check.)
    def fits(self, tile: object) -> tuple[Point, ...]:
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

    # The public signatures are the overloads; the implementation takes any
    # value, so that a wrong one is refused by check_place (an IllegalMove) in
    # both builds, not by the compiled build's argument check.
    @overload
    def place(self, tile: Tile) -> Layout: ...
    @overload
    def place(self, tile: Tile, at: Point | None) -> Layout: ...
    def place(self, tile: object, at: object = None) -> Layout:
        """A new layout with ``tile`` placed on the open point ``at``.

        ``at`` is None only for the opening tile, which may be any tile.

        :raises IllegalMove: if the tile is already on the table, if ``at`` is
            None on a non-empty table or given on the empty one, if ``at`` is
            not an open point, or if the tile shows no half of ``at``'s value
            (also if ``tile`` is not a :class:`Tile`, or ``at`` neither a
            :class:`Point` nor None).
        """
        self.check_place(tile, at)  # (so tile is a Tile, and at a Point or None)
        point = cast("Point | None", at)
        index = cast(Tile, tile).index
        return placed(self, ALL_TILES[index], None if point is None else point.order)

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


# -- the geometry on point keys -------------------------------------------------------
# Each table below is indexed by tile index and point key (points.py). They
# are the rules of the table in the form the engine reads them: integers
# compare, sort and search in C.

#: What each key adds to the end sum while it is free: a non-double's end or a
#: branch of the Sniff counts its number, a line side of a double both halves.
#: (A lone opening double has both line sides free and counts once; see
#: :func:`is_lone_double`.)
WORTH_OF_KEY: Final = [
    2 * v if key & 7 in (LINE_A, LINE_B) else v for key, v in enumerate(VALUE_OF_KEY)
]
#: Bit ``v`` set for each half ``v`` of each tile, by tile index: the tile fits
#: a table whose mask of open values shares a bit with it.
TILE_VALUES: Final = tuple(1 << tile.low | 1 << tile.high for tile in ALL_TILES)
#: ``FITTING_TILES[value_mask]``: bit ``t.index`` set for each tile ``t`` that
#: shows a number of the mask of open values ``value_mask`` (a table showing
#: those numbers takes those tiles).
FITTING_TILES: Final = tuple(
    sum([1 << tile.index for tile in ALL_TILES if TILE_VALUES[tile.index] & values])
    for values in range(1 << MAX_PIPS + 1)
)
#: The tiles by index, as a compiled-module constant.
TILES: Final = ALL_TILES
#: :data:`~american_sniff.points.BIT_OF_KEY`, as a compiled-module constant:
#: compiled code reads a Final of its own module directly, but looks a name
#: imported from an interpreted module (points) up in the module's dictionary
#: at every use.
_BIT_OF_KEY: Final = tuple(BIT_OF_KEY)
#: Whether each tile (by index) is a double.
IS_DOUBLE: Final = tuple(tile.is_double for tile in ALL_TILES)


def is_lone_double(open_keys: tuple[int, ...]) -> bool:
    """Whether the open keys are both line sides of one double: an opening double alone.

    Such a double is one scoring end: it counts its two halves once, not once
    for each free line side.
    """
    return len(open_keys) == 2 and open_keys[0] & 7 == LINE_A and open_keys[1] == open_keys[0] + 1


def can_place(hand: tuple[Tile, ...], values: int) -> bool:
    """Whether a tile of ``hand`` shows a number in the mask of open values ``values``."""
    for tile in hand:
        if TILE_VALUES[tile.index] & values:
            return True
    return False


def _free_key(tile: Tile, at: int) -> int:
    """The key of the side of ``tile`` left open when it joins the point with key ``at``.

    A double joins by ``line_a`` and is open at ``line_b``; a non-double joins
    by its end showing the point's number and is open at the other.
    """
    base = tile.index * 8
    if tile.is_double:
        return base + LINE_B
    return base + (HIGH if tile.low == VALUE_OF_KEY[at] else LOW)


def _opening_keys(tile: Tile) -> tuple[int, ...]:
    """The open keys of a table holding only ``tile``: both its sides."""
    base = tile.index * 8
    return (base + LINE_A, base + LINE_B) if tile.is_double else (base + LOW, base + HIGH)


def _fits(tile: Tile, point: Point | None) -> bool:
    """Whether ``tile`` can join ``point``: a point of another tile showing one of its halves."""
    return point is not None and point.tile is not tile and tile.has(point.value)


#: The open keys of a table holding only one tile, by tile index.
OPENING_KEYS: Final = tuple(_opening_keys(tile) for tile in ALL_TILES)
#: ``FREE_KEY[tile.index][at]``: the key a tile leaves open when placed on key
#: ``at``, where it fits; -1 elsewhere.
FREE_KEY: Final = tuple(
    [_free_key(tile, key) if _fits(tile, point) else -1 for key, point in enumerate(POINT_OF_KEY)]
    for tile in ALL_TILES
)


def new_layout(
    open_keys: tuple[int, ...],
    end_sum: int,
    sniff: Tile | None,
    tile_mask: int,
    value_mask: int,
    log: PlacementLog,
) -> Layout:
    """``Layout(...)`` for consistent values, stored slot by slot (the same arguments).

    The interpreted build replaces it by a twin constructor that does the same
    faster (see the private ``american_sniff._native``); compiled, Layout is a native
    class whose constructor stores its fields directly.
    """
    return Layout(open_keys, end_sum, sniff, tile_mask, value_mask, log)


if not COMPILED:
    globals().update(new_layout=twin_constructor(Layout, new_layout, same_names(Layout)))


def placements_of(layout: Layout) -> Any:
    """The placements of ``layout``, newest first: the chain of :data:`PlacementLog` nodes it keeps.

    The chain is shared with the layouts before, so that what is kept of a
    table (the views keep its text) can be kept by node. It is a private slot
    of Layout; other modules read it through this function only.
    """
    return layout._log


def _opened(tile: Tile) -> Layout:
    """The table holding only ``tile``, the opening tile of a round."""
    keys = OPENING_KEYS[tile.index]
    end_sum = sum([WORTH_OF_KEY[key] for key in keys])
    if is_lone_double(keys):
        end_sum -= WORTH_OF_KEY[keys[0]]  # a lone opening double counts once
    mask = _BIT_OF_KEY[keys[0]] | _BIT_OF_KEY[keys[1]]
    sniff = tile if tile.is_double else None
    return new_layout(keys, end_sum, sniff, 1 << tile.index, mask, (tile, None, None))


#: The table after each opening tile, by tile index: every round opens on one of these.
_OPENED: Final = tuple(_opened(tile) for tile in ALL_TILES)


def end_sum_after(layout: Layout, tile: Tile, at: int | None) -> int:
    """``placed(layout, tile, at).end_sum``, without building the table.

    The same rule as :func:`placed`, on the sums alone: the free side's worth
    replaces the point's, the other open points keep theirs, and the Sniff's
    branches count once both of its line sides are joined. A player choosing
    among placements by their points (a bot's playout, a view's previews)
    asks this many times for each table that is built. The same conditions
    hold as for :func:`placed`: nothing is checked.

    >>> from american_sniff import Layout, Tile
    >>> table = Layout.empty().place(Tile(5, 5))
    >>> end_sum_after(table, Tile(0, 5), table.open_keys[0])  # 0 and the Sniff's other side
    10
    """
    index = tile.index
    if at is None:
        return _OPENED[index].end_sum
    end_sum = WORTH_OF_KEY[FREE_KEY[index][at]]
    other_side_open = False
    for key in layout.open_keys:
        if key != at:
            end_sum += WORTH_OF_KEY[key]
            if key == at ^ 1:
                other_side_open = True
    rank = at & 7
    sniff = layout.sniff
    if (
        (rank == LINE_A or rank == LINE_B)
        and sniff is not None
        and TILES[at >> 3] is sniff
        and not other_side_open
    ):
        end_sum += WORTH_OF_KEY[at - rank + BRANCH_A] + WORTH_OF_KEY[at - rank + BRANCH_B]
    return end_sum


def placed(layout: Layout, tile: Tile, at: int | None) -> Layout:
    """``layout`` with ``tile`` placed on the open key ``at`` (None to open the round).

    This is the table's rule, applied: the tile joins the point ``at`` and
    leaves its free side open (:data:`FREE_KEY`); the first double placed in a
    round is the Sniff, whose branches open once both of its line sides are
    joined; and the end sum counts what every free side is worth
    (:data:`WORTH_OF_KEY`), a lone opening double once.

    Nothing is checked (:meth:`~american_sniff.Layout.check_place` does that): ``tile`` must
    be an interned tile not on the table, and ``at`` the key of an open point
    that it fits (or None on the empty table).
    """
    index = tile.index
    sniff = layout.sniff
    if at is None:
        return _OPENED[index]
    # The open keys stay in increasing order: the free side's key goes in
    # where it belongs, and the sums are taken on the way.
    free = FREE_KEY[index][at]
    open_keys: list[int] = []
    end_sum = WORTH_OF_KEY[free]
    mask = _BIT_OF_KEY[free]
    pending = True
    for key in layout.open_keys:
        if key != at:
            if pending and free < key:
                open_keys.append(free)
                pending = False
            open_keys.append(key)
            end_sum += WORTH_OF_KEY[key]
            mask |= _BIT_OF_KEY[key]
    if pending:
        open_keys.append(free)
    rank = at & 7
    if (
        (rank == LINE_A or rank == LINE_B)
        and sniff is not None
        and TILES[at >> 3] is sniff
        and at ^ 1 not in open_keys
    ):
        # Both line sides of the Sniff are now joined: its branches open.
        branch_a = at - rank + BRANCH_A
        branch_b = at - rank + BRANCH_B
        open_keys.append(branch_a)
        open_keys.append(branch_b)
        open_keys.sort()
        end_sum += WORTH_OF_KEY[branch_a] + WORTH_OF_KEY[branch_b]
        mask |= _BIT_OF_KEY[branch_a] | _BIT_OF_KEY[branch_b]
    if sniff is None and IS_DOUBLE[index]:
        sniff = tile
    return new_layout(
        tuple(open_keys),
        end_sum,
        sniff,
        layout.tile_mask | 1 << index,
        mask,
        (tile, at, layout._log),
    )
