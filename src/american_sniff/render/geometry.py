"""The table laid out in the plane: a rectangle for every tile, an anchor for every open point.

Coordinates are integers in *units*; one half of a tile is a square of
:data:`HALF` by :data:`HALF` units, so a tile is ``2 * HALF`` long and
``HALF`` wide. ``x`` grows to the right and ``y`` grows downwards, as on a
page. The opening tile is centred on the origin.

How the table is drawn, as on a real table:

* the opening tile lies across the page; a non-double shows its low half on
  the left, a double lies crosswise with line A on the left and line B on the
  right;
* an arm is a chain of tiles growing away from the tile it is attached to; a
  non-double lies along its arm, joined end first; every double lies crosswise,
  joined by line A, with line B facing onward;
* the Sniff's branches leave from its two short sides: branch A on the left
  of the way its line runs (from line A to line B), branch B on the right;
* an arm that would leave the page, or run into another tile, *bends*: the
  next non-double turns 90 degrees and lies alongside the end it joins (a
  double never turns: the tile before it does).

The arrangement is found by a deterministic depth-first search over the
tiles in the order they were placed: each tile tries to go straight on, then
to turn right, then left, and takes the first choice whose rectangle fits on
the page and overlaps nothing placed so far; when no choice fits, the search
goes back and changes an earlier tile. Every point left open keeps a free
square just beyond its side for a marker, so markers never cover a tile.
On a page, a tile also keeps clear of every tile it is not joined to, except
the tiles joined to the same tile (around the Sniff they cannot help
touching), so that arms never seem to join where they do not. When the table
cannot be fitted on the page, the page grows a few times, and as a last
resort every arm runs straight without a page, which never overlaps: the line
runs along one axis and the Sniff's two branches leave it on opposite sides.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterator, Sequence
from typing import cast

import attrs

from ..layout import WORTH_OF_KEY, Layout, is_lone_double, placements_of
from ..points import Point, Side, point_of_key
from ..tiles import Tile
from ._kept import forget_older_half
from ._solver import Box, Extent, Memory, Recall, backjump

__all__ = [
    "DEFAULT_PAGE",
    "HALF",
    "Anchor",
    "Direction",
    "Edge",
    "Geometry",
    "Orientation",
    "Rect",
    "TilePlacement",
    "table_geometry",
]

#: The side of one half of a tile (a square), in units.
HALF = 2

#: The page a table is fitted into by default, ``(width, height)`` in units.
DEFAULT_PAGE = (48, 40)

# How many times the page grows, and by how much, before arms run straight.
_PAGE_GROWTH = 8
_PAGE_TRIES = 4
# Choices tried per page before the search gives up on it.
_SEARCH_BUDGET = 4000


class Direction(enum.Enum):
    """A direction on the page (``y`` grows downwards)."""

    #: To the right.
    EAST = (1, 0)
    #: Downwards.
    SOUTH = (0, 1)
    #: To the left.
    WEST = (-1, 0)
    #: Upwards.
    NORTH = (0, -1)

    def __repr__(self) -> str:
        return f"Direction.{self.name}"

    @property
    def dx(self) -> int:
        """The step along ``x`` (-1, 0 or 1)."""
        return self.value[0]

    @property
    def dy(self) -> int:
        """The step along ``y`` (-1, 0 or 1)."""
        return self.value[1]

    @property
    def right(self) -> Direction:
        """The direction 90 degrees clockwise on the page (to the right of this heading)."""
        return _CLOCKWISE[self]

    @property
    def left(self) -> Direction:
        """The direction 90 degrees counter-clockwise (to the left of this heading)."""
        return _CLOCKWISE[_CLOCKWISE[_CLOCKWISE[self]]]

    @property
    def opposite(self) -> Direction:
        """The direction turned round."""
        return _CLOCKWISE[_CLOCKWISE[self]]


_VECTOR = {direction: direction.value for direction in Direction}
_CLOCKWISE = {
    Direction.EAST: Direction.SOUTH,
    Direction.SOUTH: Direction.WEST,
    Direction.WEST: Direction.NORTH,
    Direction.NORTH: Direction.EAST,
}


class Orientation(enum.Enum):
    """Which way a tile's long side runs on the page."""

    #: The long side runs along ``x``.
    HORIZONTAL = "horizontal"
    #: The long side runs along ``y``.
    VERTICAL = "vertical"

    def __repr__(self) -> str:
        return f"Orientation.{self.name}"


@attrs.frozen
class Rect:
    """An axis-aligned rectangle ``x0 <= x <= x1``, ``y0 <= y <= y1``, in units.

    >>> Rect(0, 0, 4, 2).overlaps(Rect(4, 0, 6, 2))  # touching is not overlapping
    False

    :ivar x0: The left edge.
    :ivar y0: The top edge.
    :ivar x1: The right edge (``x1 >= x0``).
    :ivar y1: The bottom edge (``y1 >= y0``).
    """

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        """The extent along ``x``."""
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        """The extent along ``y``."""
        return self.y1 - self.y0

    @property
    def center(self) -> tuple[float, float]:
        """The centre ``(x, y)``."""
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2

    def overlaps(self, other: Rect) -> bool:
        """Whether the insides of the two rectangles meet (a shared edge does not count)."""
        return (
            self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1
        )

    def touches(self, other: Rect) -> bool:
        """Whether the two rectangles overlap or share a point of their outlines."""
        return (
            self.x0 <= other.x1
            and other.x0 <= self.x1
            and self.y0 <= other.y1
            and other.y0 <= self.y1
        )

    def union(self, other: Rect) -> Rect:
        """The smallest rectangle holding both."""
        return Rect(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )


@attrs.frozen
class Edge:
    """Where one named side of a placed tile lies: a segment of its outline.

    A free side is the outer edge of its half. The side a tile joins by is the
    edge of its joined half that touches the tile it is joined to: the back
    end when the arm runs straight on, a long side when the arm bends there.

    :ivar side: The tile's side.
    :ivar x0: The segment's first end, ``x`` (the smaller).
    :ivar y0: The segment's first end, ``y`` (the smaller).
    :ivar x1: The segment's other end, ``x``.
    :ivar y1: The segment's other end, ``y`` (a segment is horizontal or vertical).
    :ivar facing: The direction the side looks out towards, away from its tile.
    """

    side: Side
    x0: int
    y0: int
    x1: int
    y1: int
    facing: Direction

    @property
    def midpoint(self) -> tuple[int, int]:
        """The middle of the segment (always on whole units)."""
        return (self.x0 + self.x1) // 2, (self.y0 + self.y1) // 2

    @property
    def length(self) -> int:
        """The segment's length."""
        return self.x1 - self.x0 + self.y1 - self.y0


@attrs.frozen
class TilePlacement:
    """Where one tile lies.

    For a double both halves show the same number: ``low_half`` is the half on
    the left of its heading (the Sniff's branch A side), ``high_half`` the one
    on the right.

    :ivar tile: The tile.
    :ivar rect: The tile's rectangle.
    :ivar heading: The way its arm grows through it, from the side it joins by
        to the side left free (the opening tile's heading is east).
    :ivar low_half: The square of the half showing ``tile.low``.
    :ivar high_half: The square of the half showing ``tile.high``.
    :ivar edges: Where each of its sides lies, in :class:`~american_sniff.Side`
        order: ``low`` and ``high`` for a non-double, the line sides for a
        double and the branches too for the Sniff.
    """

    tile: Tile
    rect: Rect
    heading: Direction
    low_half: Rect
    high_half: Rect
    edges: tuple[Edge, ...]

    @property
    def orientation(self) -> Orientation:
        """Which way the tile's long side runs."""
        if self.rect.width > self.rect.height:
            return Orientation.HORIZONTAL
        return Orientation.VERTICAL

    def edge(self, side: Side) -> Edge:
        """Where ``side`` lies.

        :raises KeyError: if the tile has no such side here (a branch of a
            double that is not the Sniff, a line side of a non-double).
        """
        for edge in self.edges:
            if edge.side is side:
                return edge
        raise KeyError(f"{self.tile} has no {side} side")


@attrs.frozen
class Anchor:
    """Where an open point is drawn.

    :ivar point: The open point.
    :ivar x: The middle of the point's side, ``x``.
    :ivar y: The middle of the point's side, ``y``.
    :ivar facing: The direction the point looks out towards (where the next
        tile would go).
    :ivar marker: A free square just beyond the side, touching it, that no
        tile and no other marker covers: room for a marker.
    :ivar value: What the point adds to the end sum (see
        :meth:`~american_sniff.Layout.contributions`), or None for an open
        point that is not counted (the second line side of a lone opening
        double).
    """

    point: Point
    x: int
    y: int
    facing: Direction
    marker: Rect
    value: int | None


@attrs.frozen
class Geometry:
    """A whole table laid out in the plane.

    :ivar tiles: Each tile's placement, in the order the tiles were placed.
    :ivar anchors: Each open point's anchor, in
        :meth:`~american_sniff.Layout.points` order.
    :ivar bounds: The smallest rectangle holding every tile and every
        marker square (a zero rectangle at the origin for an empty table).
    :ivar page: The ``(width, height)`` the table was fitted into: the page
        asked for, a larger one when the table did not fit on it, or None when
        every arm runs straight without a page (asked for, or as a last resort).
    """

    tiles: tuple[TilePlacement, ...]
    anchors: tuple[Anchor, ...]
    bounds: Rect
    page: tuple[int, int] | None

    def placement(self, tile: Tile) -> TilePlacement:
        """Where ``tile`` lies.

        :raises KeyError: if the tile is not on the table.
        """
        for placed in self.tiles:
            if placed.tile == tile:
                return placed
        raise KeyError(f"{tile} is not on the table")

    def anchor(self, point: Point) -> Anchor:
        """Where the open point ``point`` is drawn.

        :raises KeyError: if the point is not open.
        """
        for anchor in self.anchors:
            if anchor.point == point:
                return anchor
        raise KeyError(f"{point} is not an open point")


def table_geometry(layout: Layout, *, page: tuple[int, int] | None = DEFAULT_PAGE) -> Geometry:
    """Lay out ``layout`` in the plane so that no two tiles overlap.

    The arms bend to keep the whole table, markers included, within ``page``
    (``(width, height)`` in units), and keep clear of the tiles they do not
    join; see the module documentation for how. With ``page=None`` every arm
    runs straight. The result depends only on the layout and the page.

    >>> from american_sniff import Tile
    >>> geometry = table_geometry(Layout.empty().place(Tile(1, 4)))
    >>> geometry.tiles[0].rect, geometry.tiles[0].low_half
    (Rect(x0=-2, y0=-1, x1=2, y1=1), Rect(x0=-2, y0=-1, x1=0, y1=1))

    :raises ValueError: if ``page`` is not None or a pair of positive integers.
    """
    if page is not None and (
        not isinstance(page, tuple)
        or len(page) != 2
        or any(type(side) is not int or side <= 0 for side in page)
    ):
        raise ValueError(f"a page is (width, height) in positive whole units, got {page!r}")
    if layout.is_empty:
        return Geometry((), (), Rect(0, 0, 0, 0), page)
    return _geometry(layout, page, _MEMORY)


#: The searches remembered for carrying on (see
#: :class:`~american_sniff.render._solver.Memory`): a table usually grows from
#: the one drawn before it, and its search can start where that one's first
#: reached the tile the new one joins. At most this many states are kept, a
#: few per table and page (about 3.3 KB each as measured, so at most about
#: 14 MB): enough for a server's 200 matches drawn on two pages each.
_MEMORY_SIZE = 4096
_MEMORY = Memory(_MEMORY_SIZE)


def _geometry(layout: Layout, page: tuple[int, int] | None, memory: Memory | None) -> Geometry:
    """:func:`table_geometry` of a non-empty ``layout`` on a checked ``page``, with ``memory``.

    The page grows a few times when the table does not fit; then the arms run straight.
    With a ``memory``, a table one tile larger than one laid out before on the
    same page is first carried on from that one's end (:func:`_carried`), and
    each search's end on the first page is kept for the table after it.
    """
    pages = []
    if page is not None:
        width, height = page
        pages = [(width + n * _PAGE_GROWTH, height + n * _PAGE_GROWTH) for n in range(_PAGE_TRIES)]
    shape = _shape(layout)
    if memory is not None:
        carried = _carried(layout, shape, page)
        if carried is not None:
            return carried
    problem = _Problem(shape)
    for number, tried in enumerate(pages):
        placements = problem.solve(tried, memory)
        if placements is not None:
            if memory is not None and number == 0:
                shape.ends[tried] = problem.end(placements)
            return problem.geometry(placements, tried)
    # Straight arms never overlap: the line runs along one axis, the branches
    # leave the Sniff on either side of it.
    placements = problem.solve(None, memory)
    assert placements is not None
    if memory is not None and not pages:
        shape.ends[None] = problem.end(placements)
    return problem.geometry(placements, None)


def _carried(layout: Layout, shape: _Shape, page: tuple[int, int] | None) -> Geometry | None:
    """The geometry of ``layout`` carried on from the end of the table one tile smaller, or None.

    None when that table's search on ``page`` is not known (see
    :attr:`_Shape.ends`), or when what follows does not prove the answer.

    The table before had ``n`` steps; this one adds step ``n``, joined to side
    ``s`` of step ``p``. For the steps before ``n``, the two tables differ only
    in the marker squares of ``p`` (checked: every other step keeps its open
    sides, and the Sniff is the same): the square ``M`` of side ``s``, which
    the table before kept free and this one does not, and the squares ``B`` of
    the sides of ``p`` that open now (the Sniff's branches, when a tile covers
    its second line side; none otherwise). Removing ``M`` removes one box from
    what a choice may not overlap and from the bounds that must fit the page,
    so a choice that fitted before still fits, with the same (empty) refusal.
    Adding ``B`` changes no refusal of the placements the search before laid
    from ``p`` on, when no square of ``B`` overlaps a box of another step
    (checked), and no bounds they give are too large for the page: all of
    them lie within the bounds of the whole table found at the end, with
    ``B`` and the new tile, which is checked to fit.

    The search of this table (:meth:`_Problem.solve`, the same from the start
    or carried on from a memory) therefore does what the search before did, try
    by try, as long as the search before never refused a choice, nor found a
    table too large for the page on some axis (even where it blamed no step),
    after it first reached step ``p``: the tries before that read nothing of
    ``p``'s squares, which were not laid out yet. That search's end says so
    (:attr:`_End.calm` is at most ``p``), and it must have ended on the first
    page tried, which this table's search tries first too. So this table's
    search reaches step ``n`` with the same placements, the same boxes but
    ``M`` and with ``B``, and the same budget left, and tries step ``n``'s
    choices in order.

    Each choice of step ``n`` lays its joined half on ``M`` (checked: its
    rectangle holds ``M``), so the bounds with the choice are the same with
    ``M`` or without it. A choice is refused if it overlaps (or, as a tile,
    touches) what is laid out, as :meth:`_Problem.refusal` does; the first that
    does not and keeps the table on the page is the search's answer. If one
    overflows the page, or the budget runs out first, this gives up (the search
    then blames steps or grows the page), and the search is made.
    """
    node = placements_of(layout)
    tile, key, before = node
    if before is None or key is None:
        return None
    kept = _SHAPES.get(id(before))
    if kept is None or kept[0] is not before:
        return None
    old = kept[1]
    end = old.ends.get(page)
    if end is None:
        return None
    at = point_of_key(key)
    parent = old.index[at.tile]
    if parent < end.calm:
        return None
    opened = _opened_sides(old, shape, tile, at)
    if opened is None:
        return None
    placements = end.placements
    joins = placements[parent]
    covered = _marker_square(joins.edge(at.side))
    x0, y0, x1, y1 = end.box
    if opened:
        for edge in joins.edges:
            if edge.side not in opened:
                continue
            square = _marker_square(edge)
            sx0, sy0, sx1, sy1 = square.x0, square.y0, square.x1, square.y1
            for (bx0, by0, bx1, by1), owner in zip(end.occupied, end.owners, strict=True):
                if owner != parent and sx0 < bx1 and bx0 < sx1 and sy0 < by1 and by0 < sy1:
                    return None
            x0, y0, x1, y1 = min(x0, sx0), min(y0, sy0), max(x1, sx1), max(y1, sy1)
    problem = _Problem(shape)
    problem.carry_on(end, page, parent)
    level = len(placements)
    tries = end.tries
    for choice in problem.candidates(level, placements):
        tries += 1
        if page is not None and tries > _SEARCH_BUDGET:
            return None
        rect = choice.rect
        if not (
            rect.x0 <= covered.x0
            and rect.y0 <= covered.y0
            and covered.x1 <= rect.x1
            and covered.y1 <= rect.y1
        ):
            return None
        problem.tries = tries
        if problem.hits(level, choice):
            problem.calm = level + 1  # a refusal after step n was first reached
            continue
        span = problem._rects(choice)[1]
        box = (min(x0, span[0]), min(y0, span[1]), max(x1, span[2]), max(y1, span[3]))
        if page is not None and (box[2] - box[0] > page[0] or box[3] - box[1] > page[1]):
            return None
        problem.occupy(level, choice)
        laid = (*placements, choice)
        shape.ends[page] = problem.end(laid, box)
        return problem.geometry(laid, page, box)
    return None


def _opened_sides(old: _Shape, shape: _Shape, tile: Tile, at: Point) -> frozenset[Side] | None:
    """The sides of ``at``'s tile that open with ``tile`` placed on ``at``, or None.

    None unless ``shape`` is ``old`` with ``tile`` on ``at`` and no other open
    side changed: the Sniff is the same (or is the new tile), the side of
    ``at`` is no longer open, the other open sides of its tile stay open, and
    every other tile of ``old`` keeps its open sides.
    """
    if shape.sniff not in {old.sniff, tile}:
        return None
    before = dict(old.open)
    after = dict(shape.open)
    sides = before.pop(at.tile, frozenset())
    now = after.pop(at.tile, frozenset())
    after.pop(tile, None)
    kept = sides - {at.side}
    if at.side not in sides or at.side in now or not kept <= now or before != after:
        return None
    return now - kept


# -- building rectangles -----------------------------------------------------
# A tile is laid out from the side of the tile it joins: from the middle
# ``(mx, my)`` of that side, going out along ``out`` and across along ``across``.


def _corners(
    mx: int, my: int, out: Direction, across: Direction, a: tuple[int, int], b: tuple[int, int]
) -> tuple[int, int, int, int]:
    """The corners ``(x0, y0, x1, y1)`` of the rectangle that :func:`_box` makes."""
    (dx, dy), (ex, ey) = _VECTOR[out], _VECTOR[across]
    x0, x1 = mx + a[0] * dx + b[0] * ex, mx + a[1] * dx + b[1] * ex
    y0, y1 = my + a[0] * dy + b[0] * ey, my + a[1] * dy + b[1] * ey
    if x0 > x1:
        x0, x1 = x1, x0
    if y0 > y1:
        y0, y1 = y1, y0
    return x0, y0, x1, y1


def _box(
    mx: int, my: int, out: Direction, across: Direction, a: tuple[int, int], b: tuple[int, int]
) -> Rect:
    """The rectangle of the points ``m + i * out + j * across``, ``i`` in ``a``, ``j`` in ``b``."""
    return Rect(*_corners(mx, my, out, across, a, b))


def _segment(
    side: Side,
    mx: int,
    my: int,
    out: Direction,
    across: Direction,
    a: tuple[int, int],
    b: tuple[int, int],
    facing: Direction,
) -> Edge:
    """The edge of ``side``: like :func:`_box`, where ``a`` or ``b`` is a single value twice."""
    return Edge(side, *_corners(mx, my, out, across, a, b), facing)


#: How many placements (and marker squares) made by the search are kept for
#: the next search: a table's search makes most of the placements of the
#: table drawn before it again (the same tile from the same side), and
#: placements never change. At most this many of each of the three kinds,
#: the least recently used leaving first: about 1 KB each, so at most about
#: 13 MB in all, as measured when full (enough for a server drawing 200
#: matches on two pages).
_PLACEMENTS_KEPT = 4096


@functools.lru_cache(maxsize=_PLACEMENTS_KEPT)
def _marker_square(edge: Edge) -> Rect:
    """The square just beyond ``edge``, centred on it, kept free for a marker."""
    mx, my = edge.midpoint
    facing = edge.facing
    return _box(mx, my, facing, facing.right, (0, HALF), (-HALF // 2, HALF // 2))


_H = HALF
_Q = HALF // 2


@functools.lru_cache(maxsize=_PLACEMENTS_KEPT)
def _straight(
    tile: Tile, joined: Side, mx: int, my: int, out: Direction, is_sniff: bool
) -> TilePlacement:
    """``tile`` laid from the side at ``(mx, my)``, its arm running on along ``out``."""
    right = out.right
    if tile.is_double:
        # Crosswise: line A against the joined side, line B onward, branches at the short sides.
        rect = _box(mx, my, out, right, (0, _H), (-_H, _H))
        edges = [
            _segment(Side.LINE_A, mx, my, out, right, (0, 0), (-_H, _H), out.opposite),
            _segment(Side.LINE_B, mx, my, out, right, (_H, _H), (-_H, _H), out),
        ]
        if is_sniff:
            edges.append(_segment(Side.BRANCH_A, mx, my, out, right, (0, _H), (-_H, -_H), out.left))
            edges.append(_segment(Side.BRANCH_B, mx, my, out, right, (0, _H), (_H, _H), right))
        left_half = _box(mx, my, out, right, (0, _H), (-_H, 0))
        right_half = _box(mx, my, out, right, (0, _H), (0, _H))
        return TilePlacement(tile, rect, out, left_half, right_half, tuple(edges))
    # Along the arm: the joined half first, the free half beyond it.
    free = Side.HIGH if joined is Side.LOW else Side.LOW
    rect = _box(mx, my, out, right, (0, 2 * _H), (-_Q, _Q))
    near = _box(mx, my, out, right, (0, _H), (-_Q, _Q))
    far = _box(mx, my, out, right, (_H, 2 * _H), (-_Q, _Q))
    near_edge = _segment(joined, mx, my, out, right, (0, 0), (-_Q, _Q), out.opposite)
    far_edge = _segment(free, mx, my, out, right, (2 * _H, 2 * _H), (-_Q, _Q), out)
    return _non_double(tile, rect, out, joined, near, far, near_edge, far_edge)


@functools.lru_cache(maxsize=_PLACEMENTS_KEPT)
def _turned(
    tile: Tile, joined: Side, mx: int, my: int, out: Direction, turn: Direction
) -> TilePlacement:
    """A non-double at a bend: its joined half just beyond the side, running on along ``turn``."""
    free = Side.HIGH if joined is Side.LOW else Side.LOW
    rect = _box(mx, my, out, turn, (0, _H), (-_Q, _Q + _H))
    near = _box(mx, my, out, turn, (0, _H), (-_Q, _Q))
    far = _box(mx, my, out, turn, (0, _H), (_Q, _Q + _H))
    near_edge = _segment(joined, mx, my, out, turn, (0, 0), (-_Q, _Q), out.opposite)
    far_edge = _segment(free, mx, my, out, turn, (0, _H), (_Q + _H, _Q + _H), turn)
    return _non_double(tile, rect, turn, joined, near, far, near_edge, far_edge)


def _non_double(
    tile: Tile,
    rect: Rect,
    heading: Direction,
    joined: Side,
    near: Rect,
    far: Rect,
    near_edge: Edge,
    far_edge: Edge,
) -> TilePlacement:
    """A placed non-double from its joined (near) and free (far) halves."""
    if joined is Side.LOW:
        return TilePlacement(tile, rect, heading, near, far, (near_edge, far_edge))
    return TilePlacement(tile, rect, heading, far, near, (far_edge, near_edge))


# -- the search --------------------------------------------------------------
# The tiles are laid out by the render package's one search
# (:func:`~american_sniff.render._solver.backjump`); this is the problem it
# solves for the plane: rectangles that may not overlap, on a page.


@attrs.frozen
class _Step:
    """One tile to lay out: the tile, the point it joins (None for the opening) and its side.

    :ivar tile: The tile.
    :ivar at: The open point it was placed on, or None for the opening tile.
    :ivar joined: The tile's side that joins ``at``.
    :ivar parent: The step of the tile ``at`` belongs to (-1 for the opening).
    """

    tile: Tile
    at: Point | None
    joined: Side
    parent: int


def _span(rects: Sequence[Rect]) -> Box:
    """The smallest box holding ``rects``."""
    return (
        min(r.x0 for r in rects),
        min(r.y0 for r in rects),
        max(r.x1 for r in rects),
        max(r.y1 for r in rects),
    )


class _Shape:
    """What the search reads of a layout: its steps, who may touch whom, and what stays open.

    It depends only on the layout, so the drawings of one table on several
    pages (the wide and the narrow one of the browser) share it: see
    :func:`_shape`. It is never changed once made, but for :attr:`ends`. A
    table one tile larger than one already read is read from that one
    (:meth:`grown`): only the new step and the steps whose open sides changed
    are read again.
    """

    #: Per page (None: no page), how its search ended there, if it was made on
    #: that page first and with a memory: what :func:`_carried` carries on from.
    ends: dict[tuple[int, int] | None, _End]

    def __init__(self, layout: Layout) -> None:
        self.ends = {}
        tiles = layout.tiles
        opening = tiles[0]
        steps = [_Step(opening, None, Side.LINE_A if opening.is_double else Side.LOW, -1)]
        index = {opening: 0}
        for tile, connection in zip(tiles[1:], layout.connections, strict=True):
            assert connection.joined.tile == tile
            index[tile] = len(steps)
            steps.append(
                _Step(tile, connection.at, connection.joined.side, index[connection.at.tile])
            )
        self.steps: tuple[_Step, ...] = tuple(steps)
        self.index = index
        # The tiles each tile may touch: those joined to it or to the tile it joins.
        neighbours: list[frozenset[int]] = []
        children: dict[int, tuple[int, ...]] = {}
        for number, step in enumerate(steps):
            neighbours.append(_neighbours(steps, children, step.parent))
            if step.parent >= 0:
                children[step.parent] = (*children.get(step.parent, ()), number)
        self.neighbours: tuple[frozenset[int], ...] = tuple(neighbours)
        self.children = children
        self._read(layout)
        # What the search reads of each step (see _solver.Memory).
        self.tokens = tuple(self._token(step) for step in steps)
        # What each step's choices depend on, beside the placement it joins.
        self.keys = tuple(self._key(step) for step in steps)

    def _read(self, layout: Layout) -> None:
        """Read what stays open on ``layout``: the Sniff, the points, their sides and worth."""
        self.sniff = layout.sniff
        self.points = layout.points()
        open_sides: dict[Tile, set[Side]] = {}
        for point in self.points:
            open_sides.setdefault(point.tile, set()).add(point.side)
        self.open: dict[Tile, frozenset[Side]] = {t: frozenset(s) for t, s in open_sides.items()}
        # What each counted point adds (Layout.contributions, without making them).
        keys = layout.open_keys
        self.values = {p: WORTH_OF_KEY[key] for p, key in zip(self.points, keys, strict=True)}
        if is_lone_double(keys):
            del self.values[self.points[1]]  # a lone opening double counts once, at line_a
        # Where a later table differs first: a step with an open side (the next
        # tile may join it), and the Sniff (whose branches open).
        index = self.index
        self.keep_at = frozenset(index[point.tile] for point in self.points) | (
            frozenset() if self.sniff is None else frozenset({index[self.sniff]})
        )

    def _token(self, step: _Step) -> tuple[object, ...]:
        """All that the search reads of ``step`` (see :class:`~._solver.Memory`).

        That is the tile, whom it joins and how, whether it is the Sniff, and
        which sides stay open.
        """
        return (
            step.tile.index,
            step.parent,
            None if step.at is None else step.at.side.value,
            step.joined.value,
            step.tile.is_double,
            step.tile == self.sniff,
            tuple(sorted(side.value for side in self.open.get(step.tile, ()))),
        )

    def _key(self, step: _Step) -> tuple[int, str | None, str, bool]:
        """What the choices of ``step`` depend on, beside the placement of the tile it joins.

        (A step is the Sniff from the table it is placed on: the first double.)
        """
        side = None if step.at is None else step.at.side.value
        return (step.tile.index, side, step.joined.value, step.tile == self.sniff)

    def grown(self, layout: Layout, tile: Tile, at: Point) -> _Shape:
        """The shape of ``layout``: this shape's table with ``tile`` placed on ``at``."""
        grown = object.__new__(_Shape)
        grown.ends = {}
        parent = self.index[at.tile]
        joined = Side.LINE_A if tile.is_double else Side.LOW if tile.low == at.value else Side.HIGH
        step = _Step(tile, at, joined, parent)
        steps = self.steps
        grown.steps = (*steps, step)
        grown.index = {**self.index, tile: len(steps)}
        grown.neighbours = (*self.neighbours, _neighbours(steps, self.children, parent))
        grown.children = {**self.children, parent: (*self.children.get(parent, ()), len(steps))}
        grown._read(layout)
        # Only the steps whose open sides or Sniff changed are read again.
        changed = {
            t for t in self.open.keys() | grown.open.keys() if self.open.get(t) != grown.open.get(t)
        }
        if self.sniff != grown.sniff:
            changed.update(t for t in (self.sniff, grown.sniff) if t is not None)
        tokens = [*self.tokens, grown._token(step)]
        for changed_tile in changed:
            number = grown.index[changed_tile]
            if number < len(steps):
                tokens[number] = grown._token(steps[number])
        grown.tokens = tuple(tokens)
        grown.keys = (*self.keys, grown._key(step))
        return grown


def _neighbours(
    steps: Sequence[_Step], children: dict[int, tuple[int, ...]], parent: int
) -> frozenset[int]:
    """The steps a new step joining ``parent`` may touch: its parent's, and its siblings so far."""
    if parent < 0:
        return frozenset()
    return frozenset((parent, steps[parent].parent, *children.get(parent, ())))


#: The shapes read, by the id of the table's chain of placements (see
#: :func:`~american_sniff.layout.placements_of`; the entry holds the chain): a
#: table drawn on two pages is read once, and a table one tile larger than
#: one read before is read from it. At most this many are kept, then the older
#: half is forgotten (a few KB each: enough for a server drawing 200 matches).
_SHAPES_KEPT = 1024
_SHAPES: dict[int, tuple[object, _Shape]] = {}


def _shape(layout: Layout) -> _Shape:
    """The shape of ``layout`` (a non-empty one), read once (see :data:`_SHAPES`)."""
    node = placements_of(layout)
    kept = _SHAPES.get(id(node))
    if kept is not None and kept[0] is node:
        return kept[1]
    tile, key, before = node
    older = None if before is None else _SHAPES.get(id(before))
    if older is not None and older[0] is before and key is not None:
        shape = older[1].grown(layout, tile, point_of_key(key))
    else:
        shape = _Shape(layout)
    if len(_SHAPES) >= _SHAPES_KEPT:
        forget_older_half(_SHAPES)
    _SHAPES[id(node)] = (node, shape)
    return shape


#: Each step's choices, by the id of the placement of the tile it joins (the
#: entry holds that placement) and what else they depend on (see
#: :meth:`_Shape._key`): a table's search lays most of its tiles from the same
#: placements as the search of the table before. At most this many are kept,
#: then the older half is forgotten.
_CHOICES_KEPT = 1 << 14
_CHOICES: dict[tuple[int, tuple[object, ...]], tuple[TilePlacement, tuple[TilePlacement, ...]]] = {}


# What _Problem.save gives: the occupied boxes, their owners, whether each is
# a tile, the extents, and the tries, the furthest step tried and the calm.
_Saved = tuple[
    tuple[Box, ...], tuple[int, ...], tuple[bool, ...], tuple[Extent, ...], int, int, int
]


class _End:
    """How a search of a table ended on a page: what the search of the table after it needs.

    :ivar placements: The answer: every step's placement.
    :ivar occupied: Every tile and marker square laid out (see :class:`_Problem`) ...
    :ivar owners: ... the step that laid out each ...
    :ivar tiles: ... and whether it is a tile.
    :ivar box: The bounds of all of them.
    :ivar tries: How many choices the search tried on the page.
    :ivar calm: The first step such that, once the search had first reached it,
        it refused nothing and found nothing too large for the page (see
        :attr:`_Problem.calm`).
    """

    __slots__ = ("box", "calm", "occupied", "owners", "placements", "tiles", "tries")

    def __init__(
        self,
        placements: tuple[TilePlacement, ...],
        occupied: tuple[Box, ...],
        owners: tuple[int, ...],
        tiles: tuple[bool, ...],
        box: Box,
        tries: int,
        calm: int,
    ) -> None:
        self.placements = placements
        self.occupied = occupied
        self.owners = owners
        self.tiles = tiles
        self.box = box
        self.tries = tries
        self.calm = calm


class _Problem:
    """The tiles of a layout to be fitted on a page, and what stays open at the end.

    :meth:`solve` lays them out on one page; in between, the methods of
    :class:`~american_sniff.render._solver.Problem` keep what is laid out.
    One problem is made per drawing, so that drawings never share what is
    laid out (the shape they share is never changed).
    """

    def __init__(self, shape: _Shape) -> None:
        self.shape = shape
        self.steps = shape.steps
        self.index = shape.index
        self.neighbours = shape.neighbours
        self.sniff = shape.sniff
        self.points = shape.points
        self.open = shape.open
        self.values = shape.values
        self._start(None)

    def _start(self, page: tuple[int, int] | None) -> None:
        """Forget what was laid out, to lay the tiles out on ``page``."""
        self.page = page
        self.occupied: list[Box] = []  # every tile and marker square laid out so far ...
        self.owners: list[int] = []  # ... the step that laid out each ...
        self.tiles: list[bool] = []  # ... and whether it is a tile
        self.extents: list[Extent] = []  # per step laid out: the extent with it
        # The choice last checked: its rectangles and their span.
        self.checked: tuple[TilePlacement | None, list[Rect], Box] = (None, [], (0, 0, 0, 0))
        #: How many choices were tried (refusal was asked) on this page.
        self.tries = 0
        #: The furthest step a choice was tried for.
        self.reached = -1
        #: One more than the furthest step tried when a choice was last refused
        #: or found the table too large for the page (0: never): from this
        #: step on, once first reached, the search went straight to its end.
        self.calm = 0

    def solve(
        self, page: tuple[int, int] | None, memory: Memory | None
    ) -> list[TilePlacement] | None:
        """Every tile's placement within ``page`` (None: no page), or None if none was found.

        With a ``memory``, the search carries on from an earlier table's
        search where it can (the answer is the same).
        """
        self._start(page)
        budget = _SEARCH_BUDGET if page is not None else None
        if memory is None:
            return backjump(self, len(self.steps), budget)
        recall = Recall(memory, page, self.shape.tokens, self.shape.keep_at)
        return backjump(self, len(self.steps), budget, recall)

    def parent(self, level: int) -> int:
        """The step that step ``level`` joins."""
        return self.steps[level].parent

    def candidates(self, level: int, placed: Sequence[TilePlacement]) -> Iterator[TilePlacement]:
        """The ways to lay out step ``level``, best first, given the tiles laid out before it."""
        step = self.steps[level]
        if step.at is None:
            return iter(self._choices(step, None))
        joins = placed[step.parent]
        key = self.shape.keys[level]
        kept = _CHOICES.get((id(joins), key))
        if kept is not None and kept[0] is joins:
            return iter(kept[1])
        choices = self._choices(step, joins)
        if len(_CHOICES) >= _CHOICES_KEPT:
            forget_older_half(_CHOICES)
        _CHOICES[id(joins), key] = (joins, choices)
        return iter(choices)

    def _choices(self, step: _Step, joins: TilePlacement | None) -> tuple[TilePlacement, ...]:
        """The ways to lay out ``step`` joining the tile placed as ``joins``, best first."""
        tile = step.tile
        is_sniff = tile == self.sniff
        if step.at is None or joins is None:
            # The opening tile lies across the page, centred on the origin.
            start = -_Q if tile.is_double else -_H
            return (_straight(tile, step.joined, start, 0, Direction.EAST, is_sniff),)
        edge = joins.edge(step.at.side)
        mx, my = edge.midpoint
        out = edge.facing
        straight = _straight(tile, step.joined, mx, my, out, is_sniff)
        if tile.is_double:
            return (straight,)
        return (
            straight,
            _turned(tile, step.joined, mx, my, out, out.right),
            _turned(tile, step.joined, mx, my, out, out.left),
        )

    def markers(self, placement: TilePlacement) -> list[Rect]:
        """The marker squares of the sides of ``placement`` still open at the end."""
        sides = self.open.get(placement.tile, ())
        return [_marker_square(edge) for edge in placement.edges if edge.side in sides]

    def _rects(self, choice: TilePlacement) -> tuple[list[Rect], Box]:
        """The tile's rectangle and its marker squares, and their span (the last checked, kept)."""
        checked = self.checked
        if checked[0] is not choice:
            rect = choice.rect
            if choice.tile in self.open:
                new = [rect, *self.markers(choice)]
                checked = self.checked = (choice, new, _span(new))
            else:  # no open side: the tile alone (most tiles)
                checked = self.checked = (choice, [rect], (rect.x0, rect.y0, rect.x1, rect.y1))
        return checked[1], checked[2]

    def lay(self, level: int, choice: TilePlacement) -> None:
        """Lay ``choice`` out as step ``level``."""
        new, box = self._rects(choice)
        self.extents.append(
            self.extents[-1].grown(box, level) if self.extents else Extent(box, (level,) * 4)
        )
        self.occupied.extend((r.x0, r.y0, r.x1, r.y1) for r in new)
        self.owners.extend([level] * len(new))
        self.tiles.extend([True] + [False] * (len(new) - 1))

    def save(self) -> object:
        """What is laid out, and the tries so far, for :meth:`restore`."""
        return (
            tuple(self.occupied),
            tuple(self.owners),
            tuple(self.tiles),
            tuple(self.extents),
            self.tries,
            self.reached,
            self.calm,
        )

    def restore(self, saved: object) -> None:
        """Lay out again what :meth:`save` saved, and take its tries as this search's own."""
        occupied, owners, tiles, extents, tries, reached, calm = cast("_Saved", saved)
        self.occupied, self.owners = list(occupied), list(owners)
        self.tiles, self.extents = list(tiles), list(extents)
        self.tries, self.reached, self.calm = tries, reached, calm

    def undo(self, level: int) -> None:
        """Take back every step from ``level`` on."""
        del self.extents[level:]
        keep = self.owners.index(level)
        del self.occupied[keep:]
        del self.owners[keep:]
        del self.tiles[keep:]

    def refusal(self, level: int, choice: TilePlacement) -> set[int]:
        """The earlier steps that keep step ``level``'s ``choice`` out (empty if none).

        Counts the try in :attr:`tries`, and keeps :attr:`reached` and :attr:`calm`.
        """
        self.tries += 1
        self.reached = max(self.reached, level)
        hit = self.hits(level, choice)
        if hit:
            self.calm = self.reached + 1
            return hit
        page = self.page
        if page is None or not self.extents:
            return set()
        # The table must fit on the page: the steps reaching its far sides refuse.
        over, blamed = self.extents[-1].overflow(self._rects(choice)[1], page)
        if over:
            self.calm = self.reached + 1
        return blamed

    def hits(self, level: int, choice: TilePlacement) -> set[int]:
        """The step whose tile or marker square step ``level``'s ``choice`` runs into, if any."""
        new = self._rects(choice)[0]
        occupied, owners, tiles, page = self.occupied, self.owners, self.tiles, self.page
        # A tile or a marker square may not overlap anything laid out before it.
        # On a page, a tile also keeps clear of the tiles it is not joined to, so
        # that arms never seem to join where they do not: it touches only the
        # tiles joined to it or to the tile it joins (around the Sniff).
        near = self.neighbours[level] if page is not None else None
        tile = new[0]
        tx0, ty0, tx1, ty1 = tile.x0, tile.y0, tile.x1, tile.y1
        for (x0, y0, x1, y1), owner, is_tile in zip(occupied, owners, tiles, strict=True):
            # Rect.touches, then Rect.overlaps, written out (this is the search's inner loop).
            if (
                tx0 <= x1
                and x0 <= tx1
                and ty0 <= y1
                and y0 <= ty1
                and (
                    (tx0 < x1 and x0 < tx1 and ty0 < y1 and y0 < ty1)
                    or (is_tile and near is not None and owner not in near)
                )
            ):
                return {owner}
        for rect in new[1:]:
            rx0, ry0, rx1, ry1 = rect.x0, rect.y0, rect.x1, rect.y1
            for (x0, y0, x1, y1), owner in zip(occupied, owners, strict=True):
                if rx0 < x1 and x0 < rx1 and ry0 < y1 and y0 < ry1:
                    return {owner}
        return set()

    def carry_on(self, end: _End, page: tuple[int, int] | None, parent: int) -> None:
        """Lay out what the search of the table one tile smaller ended with (see :func:`_carried`).

        The boxes of step ``parent`` are made again, with this table's open
        sides (one fewer marker square).
        """
        self._start(page)
        occupied, owners, tiles = list(end.occupied), list(end.owners), list(end.tiles)
        first = owners.index(parent)
        last = first + 1
        while last < len(owners) and owners[last] == parent:
            last += 1
        new = self._rects(end.placements[parent])[0]
        occupied[first:last] = [(r.x0, r.y0, r.x1, r.y1) for r in new]
        owners[first:last] = [parent] * len(new)
        tiles[first:last] = [True] + [False] * (len(new) - 1)
        self.occupied, self.owners, self.tiles = occupied, owners, tiles
        self.tries = end.tries
        self.reached = len(end.placements) - 1
        self.calm = end.calm

    def occupy(self, level: int, choice: TilePlacement) -> None:
        """Add the boxes of ``choice``, step ``level``, to what is laid out (not the extents)."""
        new = self._rects(choice)[0]
        self.occupied.extend((r.x0, r.y0, r.x1, r.y1) for r in new)
        self.owners.extend([level] * len(new))
        self.tiles.extend([True] + [False] * (len(new) - 1))

    def end(self, placements: Sequence[TilePlacement], box: Box | None = None) -> _End:
        """How the search ended with ``placements``: bounds ``box``, else the extent's."""
        return _End(
            tuple(placements),
            tuple(self.occupied),
            tuple(self.owners),
            tuple(self.tiles),
            self.extents[-1].box if box is None else box,
            self.tries,
            self.calm,
        )

    def geometry(
        self,
        placements: Sequence[TilePlacement],
        page: tuple[int, int] | None,
        box: Box | None = None,
    ) -> Geometry:
        """The result for a solved table (whose steps are all laid out), of bounds ``box``.

        Every tile and marker square is laid out: their bounds are the
        extent's, unless ``box`` is given.
        """
        bounds = Rect(*(self.extents[-1].box if box is None else box))
        anchors = []
        for point in self.points:
            edge = placements[self.index[point.tile]].edge(point.side)
            x, y = edge.midpoint
            anchors.append(
                Anchor(point, x, y, edge.facing, _marker_square(edge), self.values.get(point))
            )
        return Geometry(tuple(placements), tuple(anchors), bounds, page)
