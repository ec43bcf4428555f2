"""A text drawing of the table, for terminals.

The drawing is the table's geometry (:mod:`american_sniff.render.geometry`)
on a character grid: every unit is two columns wide and one row high, so a
half of a tile is a cell of three characters between its borders. Tiles are
outlined with double lines (or ``+ - |`` in ASCII) and their halves are parted
by a single line (``:`` or ``.`` in ASCII); the Sniff's numbers are starred.
Beyond every open point a marker shows what it adds to the end sum (``+4``),
or ``o`` when it is open but not counted. A legend below lists the counted
ends, the end sum and what the last placement scored.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..layout import Layout
from ..rules import placement_points
from .geometry import Direction, Geometry, Rect, table_geometry

__all__ = ["TEXT_PAGE", "render_text"]

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
    layout: Layout, *, unicode: bool = True, page: tuple[int, int] | None = TEXT_PAGE
) -> str:
    """A drawing of ``layout`` for a terminal, with a legend of what counts.

    >>> from american_sniff import Tile
    >>> print(render_text(Layout.empty().place(Tile(1, 4)), unicode=False))
       +-------+
    +1 | 1 : 4 | +4
       +-------+
    <BLANKLINE>
    Counted ends (+N beyond the end):
      [1|4] low: 1
      [1|4] high: 4
    End sum: 5, scores 5
    <BLANKLINE>

    ``unicode`` chooses box-drawing characters (the default) or plain ASCII;
    ``page`` is the page the table is fitted into, in units (see
    :func:`~american_sniff.render.table_geometry`).
    """
    geometry = table_geometry(layout, page=page)
    lines = _grid(layout, geometry, unicode) if layout.tiles else ["(the table is empty)"]
    lines.append("")
    lines.extend(_legend(layout))
    return "\n".join(lines) + "\n"


def _legend(layout: Layout) -> list[str]:
    """The lines below the drawing: the Sniff, the counted ends, the sum and its points."""
    lines = []
    if layout.sniff is not None:
        value = layout.sniff.low
        lines.append(f"Sniff: {layout.sniff} (its halves drawn *{value}*)")
    contributions = layout.contributions()
    if contributions:
        lines.append("Counted ends (+N beyond the end):")
        lines.extend(f"  {contribution}" for contribution in contributions)
    counted = {c.point for c in contributions}
    uncounted = [p for p in layout.points() if p not in counted]
    if uncounted:
        lines.append("Open, not counted (o beyond the side):")
        lines.extend(f"  {point}" for point in uncounted)
    lines.append(f"End sum: {layout.end_sum}, scores {placement_points(layout.end_sum)}")
    return lines


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
        """The grid as text, each line stripped on the right."""
        rows = []
        for row in range(self.height):
            chars = [
                self.text.get((column, row)) or _junction(self.arms[row][column], unicode)
                for column in range(self.width)
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
    for anchor in geometry.anchors:
        x, y = anchor.marker.center
        label = "o" if anchor.value is None else f"+{anchor.value}"
        # Keep a space between a marker and the end it stands beyond.
        if anchor.facing is Direction.EAST:
            shift = 0
        elif anchor.facing is Direction.WEST:
            shift = 1 - len(label)
        else:
            # Centred on the number, unless that puts the sign against a line.
            shift = -1 if len(label) > 1 else 0
            if len(label) == 2 and not canvas.is_blank(x, y, shift - 1):
                shift = 0
        canvas.write(x, y, label, shift=shift)
    lines = canvas.lines(unicode)
    # The marker squares' outer halves are blank: trim the margins they leave.
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    indent = min(len(line) - len(line.lstrip(" ")) for line in lines if line)
    return [line[indent:] for line in lines]
