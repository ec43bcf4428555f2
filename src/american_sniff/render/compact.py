"""The table in compact glyphs, folded to fit a terminal's width for a whole round.

:func:`compact_drawing` draws every tile as a glyph of its own: a tile lying
across the screen is ``[3|4]`` (five columns, one line), a tile lying down is
``┌3┐`` over ``└4┘`` (three columns, two lines; ``.3.`` over ``'4'`` in
ASCII), and the Sniff is ``{1|1}``. Each tile's two numbers are always shown.

The arms are laid as on a real table: a tile joins the end it was placed on;
an arm runs straight on until the edge of the screen or another arm is in its
way, and then the next tile turns (a double never turns: the tile before it
does). So an arm that reaches the edge goes down or up and comes back, and
the Sniff's branches leave from its long sides. A double lies across its arm
where the arm runs up or down, and along it where the arm runs across: either
way it is drawn ``[d|d]``. Tiles that are not joined never touch, and beyond
every open end a marker shows what it adds to the end sum (``+4``, ``b+12``,
as :func:`~american_sniff.render.labels.end_labels` writes them).

The arrangement is the lowest one that a search finds within the width: each
tile tries to go straight on, then to turn right, then left, and the search
goes back to change an earlier tile when none of them fits.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import cast

from ..layout import Layout, Point, Side
from ..tiles import Tile
from ._solver import Box, Extent, Memory, Recall, backjump
from .labels import end_labels

__all__ = ["compact_drawing", "compact_ends"]

# Directions on the screen (a row grows downwards), and turning.
_E, _S, _W, _N = (1, 0), (0, 1), (-1, 0), (0, -1)
_RIGHT = {_E: _S, _S: _W, _W: _N, _N: _E}
_LEFT = {value: key for key, value in _RIGHT.items()}

# Candidates tried per height before the search gives up on it, and the
# tallest drawing tried.
_BUDGET = 500
_TALLEST = 60

_Cell = tuple[int, int]
_Port = tuple[int, int, tuple[int, int]]


class _Glyph:
    """One tile drawn: its characters by cell, and the ports of its sides.

    A port ``(x, y, facing)`` is the cell where the number of a tile joined
    to that side would be drawn, and the way the side looks out.
    """

    __slots__ = ("cells", "centre", "ports", "tile")

    def __init__(
        self,
        tile: Tile,
        cells: dict[_Cell, str],
        ports: dict[Side, _Port],
        centre: tuple[float, float],
    ) -> None:
        self.tile = tile
        self.cells = cells
        self.ports = ports
        self.centre = centre


def _across(tile: Tile, joined: Side, at: _Cell, heading: tuple[int, int]) -> _Glyph:
    """A non-double lying across the screen, its joined number at ``at``."""
    x, y = at
    dx = heading[0]
    free = Side.HIGH if joined is Side.LOW else Side.LOW
    near, far = (tile.low, tile.high) if joined is Side.LOW else (tile.high, tile.low)
    # The joined number, then the free one two columns on.
    left = x - 1 if dx > 0 else x - 3
    numbers = (near, far) if dx > 0 else (far, near)
    cells = _row(left, y, "[", str(numbers[0]), "|", str(numbers[1]), "]")
    ports = {joined: (x - 3 * dx, y, (-dx, 0)), free: (x + 5 * dx, y, heading)}
    return _Glyph(tile, cells, ports, (left + 2, y))


def _down(tile: Tile, joined: Side, at: _Cell, heading: tuple[int, int]) -> _Glyph:
    """A non-double lying down, its joined number at ``at``."""
    x, y = at
    dy = heading[1]
    free = Side.HIGH if joined is Side.LOW else Side.LOW
    near, far = (tile.low, tile.high) if joined is Side.LOW else (tile.high, tile.low)
    top, bottom = (near, far) if dy > 0 else (far, near)
    y0 = y if dy > 0 else y - 1
    corners = "┌┐└┘"
    cells = {
        **_row(x - 1, y0, corners[0], str(top), corners[1]),
        **_row(x - 1, y0 + 1, corners[2], str(bottom), corners[3]),
    }
    ports = {joined: (x, y - 2 * dy, (0, -dy)), free: (x, y + 2 * dy, heading)}
    return _Glyph(tile, cells, ports, (x, y0 + 0.5))


def _double(
    tile: Tile, at: _Cell, heading: tuple[int, int], sniff: bool, opening: bool = False
) -> _Glyph:
    """A double joined by line A at ``at``: along an arm running across, else across it."""
    x, y = at
    value = str(tile.low)
    marks = ("{", "}") if sniff else ("[", "]")
    dx, dy = heading
    left_of = _LEFT[heading]
    if dy == 0:
        # Along the arm: line A at the joined end, line B at the far one, the
        # branches from its long sides, at its middle.
        middle = x + dx
        ports = {
            Side.LINE_A: (x - 3 * dx, y, (-dx, 0)),
            Side.LINE_B: (x + 5 * dx, y, heading),
        }
        if opening:
            middle = x
            ports = {Side.LINE_A: (x - 4, y, _W), Side.LINE_B: (x + 4, y, _E)}
        branch_a = (middle, y + left_of[1], left_of)
        branch_b = (middle, y - left_of[1], _RIGHT[heading])
    else:
        # Across the arm: the line through its middle, the branches at its ends.
        middle = x
        ports = {Side.LINE_A: (x, y - dy, (0, -dy)), Side.LINE_B: (x, y + dy, heading)}
        branch_a = (x + 4 * left_of[0], y, left_of)
        branch_b = (x - 4 * left_of[0], y, _RIGHT[heading])
    if sniff:
        ports[Side.BRANCH_A] = branch_a
        ports[Side.BRANCH_B] = branch_b
    cells = _row(middle - 2, y, marks[0], value, "|", value, marks[1])
    return _Glyph(tile, cells, ports, (middle, y))


def _row(x: int, y: int, *chars: str) -> dict[_Cell, str]:
    """The cells of ``chars`` written from ``(x, y)`` rightwards."""
    return {(x + k, y): char for k, char in enumerate(chars)}


def _opening(tile: Tile, sniff: bool) -> _Glyph:
    """The first tile, across the screen around the origin (low half, or line A, on the left)."""
    if tile.is_double:
        return _double(tile, (0, 0), _E, sniff, opening=True)
    cells = _row(-2, 0, "[", str(tile.low), "|", str(tile.high), "]")
    ports = {Side.LOW: (-4, 0, _W), Side.HIGH: (4, 0, _E)}
    return _Glyph(tile, cells, ports, (0, 0))


def _marker(port: _Port, label: str) -> tuple[dict[_Cell, str], set[_Cell]]:
    """The label beyond an open end, and the cells it keeps free (a space each side)."""
    x, y, (dx, dy) = port
    size = len(label)
    # Beyond an end across the screen; centred on the number above or below.
    start = (x if dx > 0 else x - size + 1) if dy == 0 else x - size // 2
    cells = _row(start, y, *label)
    kept = {(start + k, y) for k in range(-1, size + 1)}
    return cells, kept


# What _Search.save gives: the cells taken, and per step its markers, its
# cells and the extent.
_Saved = tuple[
    dict[_Cell, tuple[int, bool]],
    tuple[dict[_Cell, str], ...],
    tuple[list[_Cell], ...],
    tuple[Extent, ...],
]


class _Search:
    """The tiles of a layout to be fitted within a width, lowest first.

    :meth:`solve` draws them within one height; in between, the methods of
    :class:`~american_sniff.render._solver.Problem` keep what is drawn.
    """

    def __init__(self, layout: Layout) -> None:
        tiles = layout.tiles
        self.tiles = tiles
        self.sniff = layout.sniff
        index = {tiles[0]: 0}
        self.parents = [-1]
        self.joins: list[tuple[Point | None, Side]] = [(None, Side.LOW)]
        for number, (tile, connection) in enumerate(
            zip(tiles[1:], layout.connections, strict=True), start=1
        ):
            index[tile] = number
            self.parents.append(index[connection.at.tile])
            self.joins.append((connection.at, connection.joined.side))
        # The only tile each tile may touch: the one it is joined to.
        self.near = [frozenset({parent}) for parent in self.parents]
        labels = end_labels(layout)
        self.open: dict[int, list[tuple[Side, str]]] = {}
        for point in layout.points():
            self.open.setdefault(index[point.tile], []).append((point.side, labels[point]))
        # What the search reads of each step (see _solver.Memory): the tile, whom
        # it joins and how, and the labels of its open sides; and the steps where
        # a later table differs first (an open side, the Sniff).
        self.tokens = tuple(
            (
                tile.index,
                self.parents[number],
                None if at is None else at.side.value,
                joined.value,
                tile == self.sniff,
                tuple((side.value, label) for side, label in self.open.get(number, ())),
            )
            for number, (tile, (at, joined)) in enumerate(zip(tiles, self.joins, strict=True))
        )
        self.keep_at = frozenset(self.open) | (
            frozenset() if self.sniff is None else frozenset({index[self.sniff]})
        )
        self._start((0, 0))

    def _start(self, page: tuple[int, int]) -> None:
        """Forget what was drawn, to draw within ``page`` (width, height)."""
        self.page = page
        self.taken: dict[_Cell, tuple[int, bool]] = {}  # cell -> (step, is a tile)
        # Per step drawn: its markers, the cells it took, and the extent with it.
        self.markers: list[dict[_Cell, str]] = []
        self.took: list[list[_Cell]] = []
        self.extents: list[Extent] = []
        self.checked: tuple[_Glyph | None, dict[_Cell, str], set[_Cell]] = (None, {}, set())

    def solve(
        self, width: int, height: int, memory: Memory | None
    ) -> list[tuple[_Glyph, dict[_Cell, str]]] | None:
        """Each tile's glyph and its markers within ``width`` by ``height``, or None.

        With a ``memory``, the search carries on from an earlier table's
        search where it can (the answer is the same).
        """
        self._start((width, height))
        recall = None if memory is None else Recall(memory, self.page, self.tokens, self.keep_at)
        placed = backjump(self, len(self.tiles), _BUDGET, recall)
        if placed is None:
            return None
        return list(zip(placed, self.markers, strict=True))

    def parent(self, level: int) -> int:
        """The step that step ``level`` joins."""
        return self.parents[level]

    def candidates(self, level: int, placed: Sequence[_Glyph]) -> Iterator[_Glyph]:
        """The ways to draw tile ``level``, best first."""
        tile = self.tiles[level]
        sniff = tile == self.sniff
        if level == 0:
            yield _opening(tile, sniff)
            return
        at, joined = self.joins[level]
        assert at is not None
        x, y, facing = placed[self.parents[level]].ports[at.side]
        if tile.is_double:
            yield _double(tile, (x, y), facing, sniff)
            return
        for heading in (facing, _RIGHT[facing], _LEFT[facing]):
            if heading[1] == 0:
                yield _across(tile, joined, (x, y), heading)
            else:
                yield _down(tile, joined, (x, y), heading)

    def _labels(self, level: int, glyph: _Glyph) -> tuple[dict[_Cell, str], set[_Cell]]:
        """The markers' cells of ``glyph`` and the cells they keep free (the last checked, kept)."""
        if self.checked[0] is not glyph:
            label_cells: dict[_Cell, str] = {}
            kept: set[_Cell] = set()
            for side, label in self.open.get(level, ()):
                cells, free = _marker(glyph.ports[side], label)
                label_cells.update(cells)
                kept |= free
            self.checked = (glyph, label_cells, kept)
        return self.checked[1], self.checked[2]

    def refusal(self, level: int, glyph: _Glyph) -> set[int]:
        """The earlier steps that keep ``glyph`` out (empty if it fits)."""
        label_cells, kept = self._labels(level, glyph)
        refused = self._clash(level, glyph, kept)
        if refused is None:
            refused = self._outside(level, glyph, label_cells)
        return refused or set()

    def lay(self, level: int, glyph: _Glyph) -> None:
        """Draw ``glyph`` as step ``level``."""
        label_cells, kept = self._labels(level, glyph)
        box = self._bounds(glyph, label_cells)
        self.extents.append(
            self.extents[-1].grown(box, level) if self.extents else Extent(box, (level,) * 4)
        )
        taken = self.taken
        for cell in glyph.cells:
            taken[cell] = (level, True)
        for cell in kept:
            taken.setdefault(cell, (level, False))
        self.took.append([*glyph.cells, *(kept - glyph.cells.keys())])
        self.markers.append(label_cells)

    def save(self) -> object:
        """What is drawn, for :meth:`restore` (a step's cells are never changed once drawn)."""
        return (dict(self.taken), tuple(self.markers), tuple(self.took), tuple(self.extents))

    def restore(self, saved: object) -> None:
        """Draw again what :meth:`save` saved."""
        taken, markers, took, extents = cast("_Saved", saved)
        self.taken = dict(taken)
        self.markers, self.took, self.extents = list(markers), list(took), list(extents)

    def undo(self, level: int) -> None:
        """Take back every step from ``level`` on."""
        taken = self.taken
        for undone in self.took[level:]:
            for cell in undone:
                if taken.get(cell, (-1, False))[0] >= level:
                    del taken[cell]
        del self.took[level:]
        del self.markers[level:]
        del self.extents[level:]

    def _clash(self, level: int, glyph: _Glyph, kept: set[_Cell]) -> set[int] | None:
        """The step whose cells keep ``glyph`` or its markers out, or None."""
        taken = self.taken
        near = self.near[level]
        for x, y in glyph.cells:
            if (x, y) in taken:
                return {taken[x, y][0]}
            # Tiles that are not joined never touch, even at a corner.
            for cx in (x - 1, x, x + 1):
                for cy in (y - 1, y, y + 1):
                    owner = taken.get((cx, cy))
                    if owner is not None and owner[1] and owner[0] not in near:
                        return {owner[0]}
        for cell in kept:
            if cell in taken:
                return {taken[cell][0]}
        return None

    @staticmethod
    def _bounds(glyph: _Glyph, labels: dict[_Cell, str]) -> Box:
        """The cells of ``glyph`` and its markers, as a span (one past the last cell)."""
        xs = [x for x, _ in glyph.cells] + [x for x, _ in labels]
        ys = [y for _, y in glyph.cells] + [y for _, y in labels]
        return min(xs), min(ys), max(xs) + 1, max(ys) + 1

    def _outside(self, level: int, glyph: _Glyph, labels: dict[_Cell, str]) -> set[int] | None:
        """The steps whose far sides keep ``glyph`` off the page, or None if it fits."""
        width, height = self.page
        x0, y0, x1, y1 = self._bounds(glyph, labels)
        if not self.extents:
            return None if x1 - x0 <= width and y1 - y0 <= height else {-1}
        over, refused = self.extents[-1].overflow((x0, y0, x1, y1), self.page)
        if over:
            # The tile it joins could turn it elsewhere.
            refused.add(self.parents[level])
        return refused or None


#: The searches remembered for carrying on (see
#: :class:`~american_sniff.render._solver.Memory`), for each height tried:
#: at most this many states, a few per table and height (about 8 KB each as
#: measured, so at most about 4 MB): enough for the last few tables of a
#: terminal's match.
_MEMORY_SIZE = 512
_MEMORY = Memory(_MEMORY_SIZE)

#: A tile lying down in ASCII: ``.3.`` over ``'4'``.
_ASCII = str.maketrans("┌┐└┘", "..''")


@functools.lru_cache(maxsize=256)
def _arranged(layout: Layout, width: int) -> tuple[tuple[_Glyph, dict[_Cell, str]], ...] | None:
    """The lowest arrangement of ``layout`` the search finds within ``width``, or None."""
    search = _Search(layout)
    for height in range(1, _TALLEST + 1):
        found = search.solve(width, height, _MEMORY)
        if found is not None:
            return tuple(found)
    return None


def compact_drawing(layout: Layout, *, width: int = 80, unicode: bool = True) -> list[str] | None:
    """The table in compact glyphs, as few lines high as the search finds within ``width``.

    >>> from american_sniff import Tile, parse_point
    >>> table = Layout.empty().place(Tile(1, 4)).place(Tile(4, 4), parse_point("[1|4] high"))
    >>> for line in compact_drawing(table):
    ...     print(line)
    +1 [1|4]{4|4} b+8

    Returns None for a table that cannot be drawn within ``width`` (never
    for a double-six set's table within 80 columns) and ``[]`` for an empty
    table.
    """
    if not layout.tiles:
        return []
    arranged = _arranged(layout, width)
    if arranged is None:
        return None
    cells: dict[_Cell, str] = {}
    for glyph, labels in arranged:
        cells.update(glyph.cells)
        cells.update(labels)
    x0 = min(x for x, _ in cells)
    y0 = min(y for _, y in cells)
    x1 = max(x for x, _ in cells)
    y1 = max(y for _, y in cells)
    lines = [
        "".join(cells.get((x, y), " ") for x in range(x0, x1 + 1)).rstrip()
        for y in range(y0, y1 + 1)
    ]
    return lines if unicode else [line.translate(_ASCII) for line in lines]


def compact_ends(layout: Layout, *, width: int = 80) -> dict[Point, tuple[float, float]]:
    """Where :func:`compact_drawing` shows each open point, from the first tile's middle.

    ``(x, y)`` in columns to the right and lines down; a branch of the Sniff
    is placed from the Sniff's middle instead. Empty for an empty table or
    one that cannot be drawn within ``width``.
    """
    if not layout.tiles:
        return {}
    arranged = _arranged(layout, width)
    if arranged is None:
        return {}
    by_tile = {glyph.tile: glyph for glyph, _ in arranged}
    ox, oy = arranged[0][0].centre
    places: dict[Point, tuple[float, float]] = {}
    for point in layout.points():
        x, y, _ = by_tile[point.tile].ports[point.side]
        if point.side in (Side.BRANCH_A, Side.BRANCH_B):
            ox_, oy_ = by_tile[point.tile].centre
            places[point] = (x - ox_, y - oy_)
        else:
            places[point] = (x - ox, y - oy)
    return places
