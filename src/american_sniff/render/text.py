"""A text drawing of the table, for terminals.

The drawing is the table's geometry (:mod:`american_sniff.render.geometry`)
on a character grid: every unit is two columns wide and one row high, so a
half of a tile is a cell of three characters between its borders. Tiles are
outlined with double lines (or ``+ - |`` in ASCII) and their halves are parted
by a single line (``:`` or ``.`` in ASCII); the Sniff's numbers are starred.
Beyond every open point a marker shows what it adds to the end sum (``+4``);
on a double the marker also names the side, as the move list does: ``a`` for
``line_a`` or ``branch_a``, ``b`` for ``line_b`` or ``branch_b`` (``b+12``).
A lone double is one scoring end worth both halves, open on both sides: both
its markers show that one value with ``=`` (``a=10`` and ``b=10``), counted
once. A legend below lists the counted ends, the end sum and its points.

:func:`compact_text` is a shorter form for small screens: the table's arms
as lines of tiles, each ending at its open point, named as in the move list.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping

from ..layout import Layout, Point, Side
from ..rules import placement_points
from ..tiles import Tile
from .geometry import Direction, Geometry, Rect, table_geometry
from .labels import end_labels
from .labels import lone_double_value as _lone_double_value

__all__ = ["TEXT_PAGE", "compact_text", "end_labels", "end_words", "render_text"]

#: The page a text drawing is fitted into, ``(width, height)`` in units: at
#: two columns a unit, it fits in 80 columns.
TEXT_PAGE = (38, 40)

# The four arms of a grid point, and the weight of a line: a tile's border is
# heavier than the line parting its halves.
_UP, _DOWN, _LEFT, _RIGHT = range(4)
_BORDER = 2
_DIVIDER = 1

# Box-drawing characters by the arms (up, down, left, right) they join.
_ARMS = (
    (1, 1, 0, 0),
    (0, 0, 1, 1),
    (0, 1, 0, 1),
    (0, 1, 1, 0),
    (1, 0, 0, 1),
    (1, 0, 1, 0),
    (1, 1, 0, 1),
    (1, 1, 1, 0),
    (0, 1, 1, 1),
    (1, 0, 1, 1),
    (1, 1, 1, 1),
)
_LIGHT = dict(zip(_ARMS, "│─┌┐└┘├┤┬┴┼", strict=True))
_DOUBLE = dict(zip(_ARMS, "║═╔╗╚╝╠╣╦╩╬", strict=True))
# A single vertical line meeting a double horizontal one, and the other way round:
# every joint but the two straight lines.
_SINGLE_DOUBLE = dict(zip(_ARMS[2:], "╒╕╘╛╞╡╤╧╪", strict=True))
_DOUBLE_SINGLE = dict(zip(_ARMS[2:], "╓╖╙╜╟╢╥╨╫", strict=True))


def render_text(
    layout: Layout,
    *,
    unicode: bool = True,
    page: tuple[int, int] | None = TEXT_PAGE,
    legend: bool = True,
) -> str:
    """A drawing of ``layout`` for a terminal, with a legend of what counts.

    >>> from american_sniff import Tile
    >>> print(render_text(Layout.empty().place(Tile(1, 4)), unicode=False))
       +-------+
    +1 | 1 : 4 | +4
       +-------+
    <BLANKLINE>
    Counted ends (+N beyond the end; a, b: the side of a double):
      [1|4] low: 1
      [1|4] high: 4
    End sum: 5, scores 5
    <BLANKLINE>

    ``unicode`` chooses box-drawing characters (the default) or plain ASCII;
    ``page`` is the page the table is fitted into, in units (see
    :func:`~american_sniff.render.table_geometry`); ``legend`` False leaves
    out the blank line and the legend.
    """
    geometry = table_geometry(layout, page=page)
    lines = _grid(layout, geometry, unicode) if layout.tiles else ["(the table is empty)"]
    if legend:
        lines.append("")
        lines.extend(_legend(layout))
    return "\n".join(lines) + "\n"


def end_words(layout: Layout, *, width: int = 80) -> dict[Point, str]:
    """A player's words for each open point of ``layout``: its number and its arm.

    The first tile lies across the table in every drawing of the terminal
    (:func:`~american_sniff.render.compact.compact_drawing`), its low half
    (or line A of a double) on the left: the two arms of the line are the
    *left arm* and the *right arm*, and the Sniff's branches are *branch a*
    and *branch b*, as their markers are written (``a+6``). An end is its
    number and its arm ("the 1 on the left arm", "the 3 on branch a"). The
    words depend only on the tiles and where they were placed, never on how
    the drawing folds the arms to fit its width: an end keeps its name while
    its arm grows, turns at the edge of the screen or comes back. Each arm
    has one open end, so no two ends share their words. ``width`` is kept
    for the callers that pass the drawing's width; the words do not use it.

    >>> from american_sniff import Tile
    >>> sorted(end_words(Layout.empty().place(Tile(1, 4))).values())
    ['the 1 on the left arm', 'the 4 on the right arm']
    """
    del width  # the words are the same at every width
    if not layout.tiles:
        return {}
    first = layout.tiles[0]
    parent = {connection.joined.tile: connection.at for connection in layout.connections}
    words: dict[Point, str] = {}
    for point in layout.points():
        number = point.tile.high if point.side is Side.HIGH else point.tile.low
        words[point] = f"the {number} on {_arm(point, first, parent)}"
    return words


def _arm(point: Point, first: Tile, parent: Mapping[Tile, Point]) -> str:
    """The arm ``point`` lies on: the branch, or the side of the first tile, it grows from."""
    at = point
    while True:
        if at.side is Side.BRANCH_A:
            return "branch a"
        if at.side is Side.BRANCH_B:
            return "branch b"
        if at.tile == first:
            return "the left arm" if at.side in (Side.LOW, Side.LINE_A) else "the right arm"
        at = parent[at.tile]


def _legend(layout: Layout) -> list[str]:
    """The lines below the drawing: the Sniff, the counted ends, the sum and its points."""
    lines = []
    if layout.sniff is not None:
        value = layout.sniff.low
        lines.append(f"Sniff: {layout.sniff} (its halves drawn *{value}*)")
    lone = _lone_double_value(layout)
    contributions = layout.contributions()
    if lone is not None:
        tile = layout.tiles[0]
        lines.append(f"Counted end: {tile} alone, one end worth both halves ({lone}),")
        lines.append("  open on both sides: line_a (a) and line_b (b)")
    elif contributions:
        lines.append("Counted ends (+N beyond the end; a, b: the side of a double):")
        lines.extend(f"  {c.point}: {c.value}" for c in contributions)
    lines.append(f"End sum: {layout.end_sum}, scores {placement_points(layout.end_sum)}")
    return lines


def compact_text(
    layout: Layout, *, width: int = 80, names: Mapping[Point, str] | None = None
) -> list[str]:
    """The table as its arms, one per line (wrapped to ``width``), each to its open point.

    Each arm starts at a side of the tile it leaves (the first tile's two
    sides, the Sniff's branches), lists its tiles outward, and ends at its
    open point, named as in the move list, with what it adds to the end sum.
    Given ``names`` (a player's words for the open points, such as
    :func:`end_words` gives), the arms are named in a player's words too
    ("The left arm from [3|4]", "Branch a from [3|3]*").

    >>> from american_sniff import Tile, parse_point
    >>> table = Layout.empty().place(Tile(3, 3)).place(Tile(3, 4), parse_point("[3|3] line_a"))
    >>> for line in compact_text(table):
    ...     print(line)
    [3|3]* line_a: [3|4], open [3|4] high +4
    [3|3]* line_b: open [3|3] line_b +6
    End sum 10, scores 10
    """
    if not layout.tiles:
        return ["(the table is empty)", "End sum 0, scores 0"]
    children: dict[Point, Tile] = {}
    for connection in layout.connections:
        children[connection.at] = connection.joined.tile
    joined_by = {connection.joined.tile: connection.joined for connection in layout.connections}
    labels = end_labels(layout)
    lone = _lone_double_value(layout)
    first = layout.tiles[0]
    starts: list[Point] = []
    if first.is_double:
        starts += [Point(first, Side.LINE_A), Point(first, Side.LINE_B)]
    else:
        starts += [Point(first, Side.LOW), Point(first, Side.HIGH)]
    sniff = layout.sniff
    line_a_joined = sniff != first or Point(first, Side.LINE_A) in children
    if sniff is not None and Point(sniff, Side.LINE_B) in children and line_a_joined:
        starts += [Point(sniff, Side.BRANCH_A), Point(sniff, Side.BRANCH_B)]
    lines: list[str] = []
    while starts:
        start = starts.pop(0)
        tiles: list[str] = []
        point = start
        while point in children:
            tile = children[point]
            tiles.append(_starred(tile, layout))
            point = _onward(tile, joined_by[tile])
        if lone is not None and start.side is Side.LINE_B:
            end = f"open {point}, the same end"
        else:
            name = str(point) if names is None else names.get(point, str(point))
            end = f"open {name} {labels[point].lstrip('ab')}"
        if names is None:
            arm = f"{_starred(start.tile, layout)} {start.side.value}"
        else:
            arm = f"{_arm(start, first, {}).capitalize()} from {_starred(start.tile, layout)}"
        text = f"{arm}: " + ", ".join([*tiles, end])
        lines.extend(textwrap.wrap(text, width, subsequent_indent="    "))
    lines.append(f"End sum {layout.end_sum}, scores {placement_points(layout.end_sum)}")
    return lines


def _starred(tile: object, layout: Layout) -> str:
    """A tile, starred if it is the Sniff."""
    return f"{tile}*" if tile == layout.sniff else str(tile)


def _onward(tile: object, joined: Point) -> Point:
    """The side of ``tile`` that faces onward along its arm, given the side it is joined by."""
    if joined.side is Side.LINE_A:
        return Point(joined.tile, Side.LINE_B)
    return Point(joined.tile, Side.HIGH if joined.side is Side.LOW else Side.LOW)


class _Canvas:
    """A character grid with line drawing: lines meeting at a point make one junction."""

    def __init__(self, bounds: Rect) -> None:
        self.x0, self.y0 = bounds.x0, bounds.y0
        self.width = 2 * bounds.width + 1
        self.height = bounds.height + 1
        self.arms = [[[0, 0, 0, 0] for _ in range(self.width)] for _ in range(self.height)]
        self.text: dict[tuple[int, int], str] = {}

    def cell(self, x: float, y: float) -> tuple[int, int]:
        """The ``(column, row)`` of the point ``(x, y)`` in units."""
        return round(2 * (x - self.x0)), round(y - self.y0)

    def line(self, x0: int, y0: int, x1: int, y1: int, weight: int) -> None:
        """A horizontal or vertical line between two points in units."""
        (c0, r0), (c1, r1) = self.cell(x0, y0), self.cell(x1, y1)
        for column in range(c0, c1):
            self._arm(column, r0, _RIGHT, weight)
            self._arm(column + 1, r0, _LEFT, weight)
        for row in range(r0, r1):
            self._arm(c0, row, _DOWN, weight)
            self._arm(c0, row + 1, _UP, weight)

    def outline(self, rect: Rect, weight: int) -> None:
        """The four sides of ``rect``."""
        self.line(rect.x0, rect.y0, rect.x1, rect.y0, weight)
        self.line(rect.x0, rect.y1, rect.x1, rect.y1, weight)
        self.line(rect.x0, rect.y0, rect.x0, rect.y1, weight)
        self.line(rect.x1, rect.y0, rect.x1, rect.y1, weight)

    def write(self, x: float, y: float, text: str, *, shift: int = 0) -> None:
        """``text`` starting ``shift`` columns from the point ``(x, y)`` in units."""
        column, row = self.cell(x, y)
        for offset, char in enumerate(text):
            self.text[column + shift + offset, row] = char

    def is_blank(self, x: float, y: float, shift: int) -> bool:
        """Whether nothing is drawn ``shift`` columns from the point ``(x, y)`` in units."""
        column, row = self.cell(x, y)
        column += shift
        return (column, row) not in self.text and not any(self.arms[row][column])

    def _arm(self, column: int, row: int, arm: int, weight: int) -> None:
        arms = self.arms[row][column]
        arms[arm] = max(arms[arm], weight)

    def lines(self, unicode: bool) -> list[str]:
        """The grid as text, each line stripped on the right.

        Text written beyond the grid's sides (a long marker) widens it.
        """
        first = min([0, *(column for column, _ in self.text)])
        last = max([self.width, *(column + 1 for column, _ in self.text)])
        rows = []
        for row in range(self.height):
            chars = [
                self.text.get((column, row))
                or (_junction(self.arms[row][column], unicode) if 0 <= column < self.width else " ")
                for column in range(first, last)
            ]
            rows.append("".join(chars).rstrip())
        return rows


def _junction(arms: Iterable[int], unicode: bool) -> str:
    """The character drawn where lines of the given weights (up, down, left, right) meet."""
    up, down, left, right = arms
    if not (up or down or left or right):
        return " "
    if not unicode:
        vertical = up == _BORDER or down == _BORDER
        horizontal = left == _BORDER or right == _BORDER
        if vertical and horizontal:
            return "+"
        if vertical:
            return "|"
        if horizontal:
            return "-"
        return ":" if up or down else "."
    key = (int(up > 0), int(down > 0), int(left > 0), int(right > 0))
    verticals = {w for w in (up, down) if w}
    horizontals = {w for w in (left, right) if w}
    weights = verticals | horizontals
    if weights == {_DIVIDER}:
        return _LIGHT[key]
    if verticals == {_DIVIDER} and horizontals == {_BORDER} and key in _SINGLE_DOUBLE:
        return _SINGLE_DOUBLE[key]
    if verticals == {_BORDER} and horizontals == {_DIVIDER} and key in _DOUBLE_SINGLE:
        return _DOUBLE_SINGLE[key]
    return _DOUBLE.get(key, "═" if left or right else "║")


def _grid(layout: Layout, geometry: Geometry, unicode: bool) -> list[str]:
    """The drawing of the tiles and the markers of the open points."""
    canvas = _Canvas(geometry.bounds)
    for placed in geometry.tiles:
        canvas.outline(placed.rect, _BORDER)
        # The line parting the halves is the side they share.
        low, high = placed.low_half, placed.high_half
        if low.x1 == high.x0 or high.x1 == low.x0:
            part = max(low.x0, high.x0)
            canvas.line(part, low.y0, part, low.y1, _DIVIDER)
        else:
            part = max(low.y0, high.y0)
            canvas.line(low.x0, part, low.x1, part, _DIVIDER)
        star = placed.tile == layout.sniff
        for half, value in ((low, placed.tile.low), (high, placed.tile.high)):
            x, y = half.center
            canvas.write(x, y, f"*{value}*" if star else str(value), shift=-1 if star else 0)
    labels = end_labels(layout)
    for anchor in geometry.anchors:
        x, y = anchor.marker.center
        label = labels[anchor.point]
        # Keep a space between a marker and the end it stands beyond.
        if anchor.facing is Direction.EAST:
            shift = 0
        elif anchor.facing is Direction.WEST:
            shift = 1 - len(label)
        else:
            # Centred on the number, unless that puts a character against a line.
            shifts = [-(len(label) // 2), -((len(label) - 1) // 2), 0, 1 - len(label)]
            shift = next(
                (
                    first
                    for first in shifts
                    if all(canvas.is_blank(x, y, first + k) for k in range(-1, len(label) + 1))
                ),
                shifts[0],
            )
        canvas.write(x, y, label, shift=shift)
    lines = canvas.lines(unicode)
    # The marker squares' outer halves are blank: trim the margins they leave.
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    indent = min(len(line) - len(line.lstrip(" ")) for line in lines if line)
    return [line[indent:] for line in lines]
