r"""The optional paper tally of the rules: one stroke per 5 raw points, a figure per 50.

The rules keep score on paper with one stroke per 5 raw points, and a large
central X with four small x's around it standing for 50 points. The figure
is itself ten strokes (two for the large X, two for each small x), so we
read the two sentences as one method: the strokes build the figure, and
every tenth stroke completes one. The strokes of a figure go in a fixed
order: the large X first (``\`` then ``/``), then the small x's clockwise
from the top (top, right, bottom, left), each ``\`` then ``/``. A figure
being drawn shows only the strokes made so far.

What the rules leave open, settled here:

* **Below zero.** Settlement can take a score below zero. A negative score
  is tallied by its size, with a minus sign in front of the whole tally (the
  SVG also draws it in red): ``-35`` is a minus sign and seven strokes.
* **Not a multiple of five.** Raw points always come in fives (placements
  score multiples of five, settlement deducts them), but any integer is
  accepted: the points under five that no stroke stands for are written as
  a number after the strokes, ``+3`` (so ``13`` is two strokes and ``+3``).
* **Zero** is written ``0``, since no marks at all is easily missed.
* **Large scores** put ten figures (500 points) on a row, and go on in rows.
"""

from __future__ import annotations

import math

import attrs

__all__ = ["STROKES_PER_FIGURE", "Tally", "tally", "tally_svg", "tally_text"]

#: Strokes in one complete figure (the large X and four small x's): 50 points.
STROKES_PER_FIGURE = 10

_POINTS_PER_STROKE = 5
_FIGURES_PER_ROW = 10

# -- the figure, as the order its strokes are drawn in ------------------------------
# Each stroke is (part, mark): the part of the figure it belongs to and the
# stroke of that part ("\\" or "/").
_CENTRE, _TOP, _RIGHT, _BOTTOM, _LEFT = range(5)
_ORDER = tuple((part, mark) for part in range(5) for mark in ("\\", "/"))


@attrs.frozen
class Tally:
    """A score as paper marks: figures of 50, strokes of 5, and what is left over.

    The score is ``(-1 if negative else 1) * (50 * figures + 5 * strokes + remainder)``.

    >>> tally(135)
    Tally(negative=False, figures=2, strokes=7, remainder=0)

    :ivar negative: Whether the score is below zero (the marks then count what is owed).
    :ivar figures: Complete figures: a large X with four small x's, 50 points each.
    :ivar strokes: Strokes of the figure being drawn, 0 to 9, 5 points each.
    :ivar remainder: Points under 5 that no stroke stands for, 0 to 4.
    """

    negative: bool
    figures: int
    strokes: int
    remainder: int

    @property
    def points(self) -> int:
        """The score the marks stand for."""
        size = 50 * self.figures + _POINTS_PER_STROKE * self.strokes + self.remainder
        return -size if self.negative else size

    @property
    def total_strokes(self) -> int:
        """Every stroke drawn, those of complete figures included."""
        return STROKES_PER_FIGURE * self.figures + self.strokes


def tally(points: int) -> Tally:
    """The paper marks for a score of ``points`` (any integer; see the module documentation).

    :raises TypeError: if ``points`` is not an integer.
    """
    if not isinstance(points, int) or isinstance(points, bool):
        raise TypeError(f"a score is an integer, got {points!r}")
    size = abs(points)
    strokes, remainder = divmod(size, _POINTS_PER_STROKE)
    figures, strokes = divmod(strokes, STROKES_PER_FIGURE)
    return Tally(points < 0, figures, strokes, remainder)


def _figures(marks: Tally) -> list[int]:
    """The strokes of each figure to draw, in order: complete ones, then the one begun."""
    drawn = [STROKES_PER_FIGURE] * marks.figures
    if marks.strokes:
        drawn.append(marks.strokes)
    return drawn


def tally_text(points: int) -> str:
    r"""The tally of ``points`` as text: three lines per row of figures.

    A large X is ``X`` and a small x is ``x``; a mark with only its first
    stroke is ``\``. Every row of figures is three lines, blank ones
    included; rows are parted by a blank line. Lines are stripped on the
    right; the text ends with a newline. A score with no stroke to draw
    (under five, above minus five) is written as its number.

    >>> print(tally_text(135), end="")
      x      x      x
    x X x  x X x    X x
      x      x      \
    >>> print(tally_text(-35), end="")
        x
    -   X x
        \
    >>> tally_text(0), tally_text(-3)
    ('0\n', '-3\n')

    :raises TypeError: if ``points`` is not an integer.
    """
    marks = tally(points)
    figures = _figures(marks)
    if not figures:
        return f"{points}\n"  # no stroke to draw: the number itself
    rows = [figures[i : i + _FIGURES_PER_ROW] for i in range(0, len(figures), _FIGURES_PER_ROW)]
    blocks = []
    for number, row in enumerate(rows):
        lines = ["", "", ""]
        if marks.negative:
            lines = ["  ", "- ", "  "]
        for done in row:
            top, middle, bottom = _text_figure(done)
            lines = [lines[0] + top + "  ", lines[1] + middle + "  ", lines[2] + bottom + "  "]
        if number == len(rows) - 1 and marks.remainder:
            lines[1] += f"+{marks.remainder}"
        blocks.append("\n".join(line.rstrip() for line in lines))
    return "\n\n".join(blocks) + "\n"


def _text_figure(done: int) -> tuple[str, str, str]:
    """The three lines of a figure with its first ``done`` strokes drawn."""
    parts = [" "] * 5
    for part, mark in _ORDER[:done]:
        if mark == "\\":
            parts[part] = "\\"
        else:
            parts[part] = "X" if part == _CENTRE else "x"
    centre, top, right, bottom, left = parts
    return f"  {top}  ", f"{left} {centre} {right}", f"  {bottom}  "


# -- SVG ----------------------------------------------------------------------------
_CELL = 56  # one figure's square, in pixels
_GAP = 14
_MARGIN = 14
_INK = "#222222"
_OWED = "#b71c1c"
_FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

# Where each part's strokes go in a cell: (centre x, centre y, half size), in pixels.
_PLACES = {
    _CENTRE: (28.0, 28.0, 14.0),
    _TOP: (28.0, 7.0, 4.5),
    _RIGHT: (49.0, 28.0, 4.5),
    _BOTTOM: (28.0, 49.0, 4.5),
    _LEFT: (7.0, 28.0, 4.5),
}


def tally_svg(points: int) -> str:
    """The tally of ``points`` as a standalone SVG document, with the score written under it.

    Each figure is a ``g.figure`` group (``data-strokes`` says how many of
    its ten strokes are drawn) holding one ``line.stroke`` per stroke; a
    negative score is drawn in red after a minus sign (``line.minus``), and
    points under five are written after the strokes (``text.remainder``).

    >>> svg = tally_svg(135)
    >>> svg.count('class="stroke"'), svg.count('class="figure"')
    (27, 3)

    :raises TypeError: if ``points`` is not an integer.
    """
    marks = tally(points)
    colour = _OWED if marks.negative else _INK
    figures = _figures(marks)
    rows = [figures[i : i + _FIGURES_PER_ROW] for i in range(0, len(figures), _FIGURES_PER_ROW)]
    left = _MARGIN + (30 if marks.negative and figures else 0)
    parts: list[str] = []
    width = end = left  # the right edge of everything, and of the last figure
    for number, row in enumerate(rows):
        top = _MARGIN + number * (_CELL + _GAP)
        for column, done in enumerate(row):
            x = left + column * (_CELL + _GAP)
            parts.extend(_svg_figure(x, top, done))
            end = x + _CELL
            width = max(width, end)
    last_top = _MARGIN + max(len(rows) - 1, 0) * (_CELL + _GAP)
    if marks.negative and figures:
        y = _MARGIN + _CELL / 2
        parts.append(
            f'<line class="minus" x1="{_MARGIN}" y1="{_num(y)}" x2="{_MARGIN + 18}"'
            f' y2="{_num(y)}" stroke-width="3"/>'
        )
    # Points no stroke stands for, after the last figure; or the number alone.
    label = f"+{marks.remainder}" if figures and marks.remainder else ""
    if not figures:
        label, end = str(points), _MARGIN - _GAP
    if label:
        parts.append(
            f'<text class="remainder" x="{_num(end + _GAP)}" y="{_num(last_top + _CELL / 2 + 8)}"'
            f' font-family="{_FONT}" font-size="22" fill="{colour}" stroke="none">{label}</text>'
        )
        width = max(width, end + _GAP + 14 * len(label))
    caption = f"{points} points" + (" (below zero)" if marks.negative else "")
    caption_y = last_top + _CELL + 24
    width = max(width, _MARGIN + math.ceil(7.5 * len(caption))) + _MARGIN
    height = caption_y + _MARGIN
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}"'
        f' viewBox="0 0 {_num(width)} {_num(height)}">',
        f"<title>Paper tally: {caption}</title>",
        f'<rect class="background" width="{_num(width)}" height="{_num(height)}" fill="#ffffff"/>',
        f'<g class="tally" stroke="{colour}" fill="none" stroke-linecap="round">',
        *parts,
        "</g>",
        f'<text class="caption" x="{_MARGIN}" y="{_num(caption_y)}" font-family="{_FONT}"'
        f' font-size="13" fill="{_INK}">{caption}</text>',
        "</svg>",
    ]
    return "\n".join(out) + "\n"


def _svg_figure(x: float, y: float, done: int) -> list[str]:
    """A figure in the cell at ``(x, y)`` with its first ``done`` strokes drawn."""
    lines = [f'<g class="figure" data-strokes="{done}">']
    for part, mark in _ORDER[:done]:
        cx, cy, half = _PLACES[part]
        width = 3 if part == _CENTRE else 2
        x0, x1 = x + cx - half, x + cx + half
        y0, y1 = (y + cy - half, y + cy + half) if mark == "\\" else (y + cy + half, y + cy - half)
        lines.append(
            f'<line class="stroke" x1="{_num(x0)}" y1="{_num(y0)}" x2="{_num(x1)}"'
            f' y2="{_num(y1)}" stroke-width="{width}"/>'
        )
    lines.append("</g>")
    return lines


def _num(value: float) -> str:
    """A coordinate with at most two decimals, without trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
