"""The table as an SVG figure, in the style of a rules book.

Every tile is drawn with its pips where the table's geometry
(:mod:`american_sniff.render.geometry`) puts it, doubles crosswise; the Sniff
has a red outline. Beyond every counted end a filled circle shows what it adds
to the end sum. A double lying alone is one scoring end worth both halves,
open on both sides: both its sides get a filled circle with that one value,
ringed to show that they are one end, counted once. The caption lists the
counted ends, the end sum and what the placement that made the table scores.

The document is built as text in a fixed order with fixed number formats, so
the same layout always gives the same bytes. Its parts carry classes for
styling and for tests: ``g.tile`` (``g.tile.sniff``) with ``data-tile``,
``g.point.counted`` with ``data-point`` and ``data-value`` (also
``g.point.counted.shared`` for the two sides of a lone double, with the one
end's value), and ``g.caption``.
"""

from __future__ import annotations

import functools
import math
from xml.sax.saxutils import escape, quoteattr

from ..layout import Layout
from ..points import Point
from ..rules import placement_points
from ..tiles import ALL_TILES, Tile
from ._kept import forget_older_half
from .geometry import DEFAULT_PAGE, Geometry, Orientation, Rect, TilePlacement, table_geometry

__all__ = ["PIP_SPOTS", "render_svg"]

# -- sizes (pixels) and colours -------------------------------------------------
_SCALE = 14  # pixels per geometry unit: a tile is 56 by 28
_MARGIN = 14
_INSET = 1.5  # tiles are drawn a little inside their rectangles, so joints show
_PIP_RADIUS = 2.5
_MARKER_RADIUS = 10.5
_CAPTION_FONT = 13
_CAPTION_LINE = 19
_CHAR_WIDTH = 0.56 * _CAPTION_FONT  # a generous average width for a sans-serif font
_FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
_INK = "#222222"
_TILE_FILL = "#fbf8ef"
_TILE_STROKE = "#3b3b3b"
_SNIFF_STROKE = "#c62828"
_MARKER = "#1565c0"

#: Where the pips of each number lie on a half of a tile, as ``(column,
#: row)`` in a three by three grid, for a half of an upright tile. Lying
#: across, the grid is turned a quarter, so a six always shows its two lines
#: of three along the tile.
PIP_SPOTS: tuple[tuple[tuple[int, int], ...], ...] = (
    (),
    ((1, 1),),
    ((2, 0), (0, 2)),
    ((2, 0), (1, 1), (0, 2)),
    ((0, 0), (2, 0), (0, 2), (2, 2)),
    ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
)


def render_svg(
    layout: Layout, *, caption: bool = True, page: tuple[int, int] | None = DEFAULT_PAGE
) -> str:
    """A standalone SVG document of ``layout`` (UTF-8 text, ending in a newline).

    ``caption`` adds the lines under the drawing that list the counted ends,
    the end sum and its points; ``page`` is the page the table is fitted into,
    in geometry units (see :func:`~american_sniff.render.table_geometry`).

    >>> from american_sniff import Tile
    >>> svg = render_svg(Layout.empty().place(Tile(1, 4)))
    >>> svg.count('class="tile"'), svg.count('class="point counted"')
    (1, 2)
    """
    geometry = table_geometry(layout, page=page)
    bounds = geometry.bounds
    drawing_width = bounds.width * _SCALE + 2 * _MARGIN
    drawing_height = bounds.height * _SCALE + 2 * _MARGIN if geometry.tiles else 0
    # The page is as wide as the drawing, or as the caption's longest line.
    text = _caption_lines(layout) if caption else []
    longest = max((len(line) for line in text), default=0)
    width = max(drawing_width, math.ceil(longest * _CHAR_WIDTH) + 2 * _MARGIN)
    height = drawing_height + len(text) * _CAPTION_LINE + (_MARGIN if text else 0)
    height = max(height, 2 * _MARGIN)
    # Centre the drawing; geometry units map to pixels through (ox, oy).
    ox = (width - bounds.width * _SCALE) / 2 - bounds.x0 * _SCALE
    oy = _MARGIN - bounds.y0 * _SCALE

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}"'
        f' viewBox="0 0 {_num(width)} {_num(height)}">',
        f"<title>{escape(_title(geometry))}</title>",
        f'<rect class="background" width="{_num(width)}" height="{_num(height)}" fill="#ffffff"/>',
    ]
    if geometry.tiles:
        out.append(_tiles_text(geometry.tiles, layout.sniff, ox, oy))
    out.extend(_markers(geometry, ox, oy))
    if text:
        out.append(
            f'<g class="caption" font-family="{_FONT}" font-size="{_CAPTION_FONT}" fill="{_INK}">'
        )
        top = drawing_height + (_CAPTION_LINE if not geometry.tiles else _CAPTION_LINE * 0.8)
        for number, line in enumerate(text):
            y = top + number * _CAPTION_LINE
            out.append(f'<text x="{_num(_MARGIN)}" y="{_num(y)}">{escape(line)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _title(geometry: Geometry) -> str:
    """The document's title: the tiles in the order they were placed."""
    if not geometry.tiles:
        return "American Sniff: the empty table"
    names = [_NAMES[placed.tile.index] for placed in geometry.tiles]
    return "American Sniff table: " + " ".join(names)


#: Each tile's name (``[1|4]``), by its index.
_NAMES = tuple(str(tile) for tile in ALL_TILES)


#: Each tile's drawing as one piece of text, by the id of its placement (the
#: entry holds the placement), whether it is the Sniff and the drawing's
#: origin: the placements of a table drawn before are the same objects (the
#: geometry keeps them), so most of a table's tiles are found here without
#: reading their rectangles. At most this many are kept, then the older half is
#: forgotten.
_TILE_TEXTS_KEPT = 1 << 12
_TILE_TEXTS: dict[tuple[int, bool, float, float], tuple[TilePlacement, str]] = {}
#: Each tile's form (:func:`_tile`), by the id of its placement (the entry
#: holds the placement) and whether it is the Sniff, as many as of the texts.
_TILE_FORMS: dict[tuple[int, bool], tuple[TilePlacement, str, tuple[tuple[float, int], ...]]] = {}


def _tile_text(placed: TilePlacement, sniff: bool, ox: float, oy: float) -> str:
    """The group of :func:`_tile` for ``placed`` at the origin ``(ox, oy)``: :data:`_TILE_TEXTS`."""
    key = (id(placed), sniff, ox, oy)
    kept = _TILE_TEXTS.get(key)
    if kept is not None and kept[0] is placed:
        return kept[1]
    form = _TILE_FORMS.get((id(placed), sniff))
    if form is None or form[0] is not placed:
        if len(_TILE_FORMS) >= _TILE_TEXTS_KEPT:
            forget_older_half(_TILE_FORMS)
        form = _TILE_FORMS[id(placed), sniff] = (
            placed,
            *_tile(
                placed.tile,
                placed.rect,
                placed.low_half,
                placed.high_half,
                placed.orientation is Orientation.HORIZONTAL,
                sniff,
            ),
        )
    origin = (ox, oy)
    text = form[1].format(*[_num(place + origin[down]) for place, down in form[2]])
    if len(_TILE_TEXTS) >= _TILE_TEXTS_KEPT:
        forget_older_half(_TILE_TEXTS)
    _TILE_TEXTS[id(placed), sniff, ox, oy] = (placed, text)
    return text


#: The text of a table's tiles, by the id of its last placement, the Sniff and
#: the drawing's origin (the entry holds the placements): a table usually
#: grows from one drawn before with its placements unchanged (the geometry
#: keeps them, see :func:`~american_sniff.render.geometry.table_geometry`), so
#: its tiles' text is that one's with the new tile's added. At most this many
#: are kept (a few KB each), then the older half is forgotten.
_TILE_RUNS_KEPT = 1 << 10
_TILE_RUNS: dict[
    tuple[int, Tile | None, float, float],
    tuple[TilePlacement, tuple[TilePlacement, ...], str],
] = {}


def _tiles_text(tiles: tuple[TilePlacement, ...], sniff: Tile | None, ox: float, oy: float) -> str:
    """The lines of every tile of ``tiles`` (one or more), joined (see :data:`_TILE_RUNS`).

    A kept text is taken only for equal placements (the same, mostly): the
    text depends only on their values.
    """
    last = tiles[-1]
    before = _TILE_RUNS.get((id(tiles[-2]), sniff, ox, oy)) if len(tiles) > 1 else None
    if before is not None and before[1] == tiles[:-1]:
        text = f"{before[2]}\n{_tile_text(last, last.tile == sniff, ox, oy)}"
    else:
        text = "\n".join([_tile_text(placed, placed.tile == sniff, ox, oy) for placed in tiles])
    if len(_TILE_RUNS) >= _TILE_RUNS_KEPT:
        forget_older_half(_TILE_RUNS)
    _TILE_RUNS[id(last), sniff, ox, oy] = (last, tiles, text)
    return text


@functools.lru_cache(maxsize=1 << 14)
def _num(value: float) -> str:
    """A coordinate written with at most two decimals, without trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _box(rect: Rect, ox: float, oy: float, inset: float = 0.0) -> tuple[float, float, float, float]:
    """``(x, y, width, height)`` in pixels of ``rect``, shrunk by ``inset`` on every side."""
    return (
        ox + rect.x0 * _SCALE + inset,
        oy + rect.y0 * _SCALE + inset,
        rect.width * _SCALE - 2 * inset,
        rect.height * _SCALE - 2 * inset,
    )


@functools.lru_cache(maxsize=1 << 12)
def _tile(  # noqa: PLR0913, PLR0917 - what the drawing depends on, as the cache's key
    tile: Tile, rect: Rect, low: Rect, high: Rect, across: bool, sniff: bool
) -> tuple[str, tuple[tuple[float, int], ...]]:
    """The group drawing one tile (its face, the line between its halves, its pips), as a form.

    ``rect``, ``low`` and ``high`` are the tile's rectangle and its halves
    (:class:`TilePlacement`), ``across`` whether it lies horizontally. The
    form is ``(text, fields)``: the group's lines with a numbered field
    (``{0}``) for each coordinate, and per field the coordinate's place
    measured from the drawing's origin and its axis (0 for ``x``, 1 for ``y``),
    each once (pips share their rows and columns). The group at the origin
    ``(ox, oy)`` fills each field with ``_num(place + ox)`` (or ``+ oy``):
    the places and the origin are multiples of a quarter, so the sums are
    exact, whatever the order of their terms. Kept: a tile is drawn at the
    same place of a table until it is settled, while the origin moves when
    the table grows left or up.
    """
    fields: dict[tuple[float, int], int] = {}  # each coordinate once, numbered

    def at(place: float, down: bool) -> str:
        number = fields.setdefault((place, 1 if down else 0), len(fields))
        return f"{{{number}}}"

    x, y, w, h = _box(rect, 0, 0, _INSET)
    stroke, stroke_width = (_SNIFF_STROKE, 3) if sniff else (_TILE_STROKE, 1.5)
    kind = "tile sniff" if sniff else "tile"
    lines = [
        f'<g class="{kind}" data-tile="{tile}">',
        f"<title>{tile}{' (the Sniff)' if sniff else ''}</title>",
        f'<rect x="{at(x, False)}" y="{at(y, True)}" width="{_num(w)}" height="{_num(h)}" rx="4"'
        f' fill="{_TILE_FILL}" stroke="{stroke}" stroke-width="{stroke_width}"/>',
    ]
    # The halves share one side: the line between them.
    if low.x1 == high.x0 or high.x1 == low.x0:
        lx = max(low.x0, high.x0) * _SCALE
        ends = (at(lx, False), at(y + 4, True), at(lx, False), at(y + h - 4, True))
    else:
        ly = max(low.y0, high.y0) * _SCALE
        ends = (at(x + 4, False), at(ly, True), at(x + w - 4, False), at(ly, True))
    lines.append(_line(*ends))
    for half, value in ((low, tile.low), (high, tile.high)):
        hx, hy, hw, hh = _box(half, 0, 0)
        for column, row in PIP_SPOTS[value]:
            if across:
                column, row = row, 2 - column  # noqa: PLW2901 -- the grid turned a quarter
            cx = at(hx + hw * (0.25 + 0.25 * column), False)
            cy = at(hy + hh * (0.25 + 0.25 * row), True)
            lines.append(f'<circle cx="{cx}" cy="{cy}" r="{_num(_PIP_RADIUS)}" fill="{_INK}"/>')
    lines.append("</g>")
    return "\n".join(lines), tuple(fields)  # in their numbers' order


def _line(x0: str, y0: str, x1: str, y1: str) -> str:
    """The thin line parting a tile's halves, from its ends' coordinates as text."""
    return (
        f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="{_TILE_STROKE}" stroke-width="1"/>'
    )


def _markers(geometry: Geometry, ox: float, oy: float) -> list[str]:
    """A filled circle with its number beyond every counted open point.

    The two sides of a lone double share its one end: both show its value,
    ringed.
    """
    lone = len(geometry.tiles) == 1 and geometry.tiles[0].tile.is_double
    shared = sum(anchor.value or 0 for anchor in geometry.anchors)
    lines: list[str] = []
    for anchor in geometry.anchors:
        cx, cy = anchor.marker.center
        x, y = ox + cx * _SCALE, oy + cy * _SCALE
        lines.extend(_marker(anchor.point, shared if lone else anchor.value, lone, x, y))
    return lines


@functools.lru_cache(maxsize=1 << 12)
def _marker(point: Point, value: int | None, lone: bool, x: float, y: float) -> tuple[str, ...]:
    """The lines of one marker: its circle at ``(x, y)`` (ringed if ``lone``), its value.

    Kept: a table's markers mostly stay where they were on the table before.
    """
    circle = f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(_MARKER_RADIUS)}"'
    kind = "point counted shared" if lone else "point counted"
    lines = [
        f'<g class="{kind}" data-point={quoteattr(str(point))} data-value="{value}">',
        f'{circle} fill="{_MARKER}"/>',
    ]
    if lone:
        ring = _MARKER_RADIUS + 3
        lines.append(
            f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(ring)}" fill="none"'
            f' stroke="{_MARKER}" stroke-width="1" stroke-dasharray="3 2"/>'
        )
    lines.append(
        f'<text x="{_num(x)}" y="{_num(y + 4)}" text-anchor="middle"'
        f' font-family="{_FONT}" font-size="12" font-weight="bold"'
        f' fill="#ffffff">{value}</text>'
    )
    lines.append("</g>")
    return tuple(lines)


def _caption_lines(layout: Layout) -> list[str]:
    """The caption: the counted ends, the uncounted points, the sum and its points, the Sniff."""
    if not layout.tiles:
        return ["The empty table: end sum 0, which scores 0."]
    contributions = layout.contributions()
    if layout.count == 1 and layout.tiles[0].is_double:
        tile = layout.tiles[0]
        lines = [
            f"Counted end: {tile} alone, one end worth both halves, {layout.end_sum},",
            f"open on both sides ({tile} line_a and line_b, ringed).",
        ]
    else:
        ends = ", ".join(f"{c.point} {c.value}" for c in contributions)
        lines = [f"Counted ends: {ends}."]
    total = layout.end_sum
    points = placement_points(total)
    verdict = f"scores {points}" if points else "scores 0 (not a positive multiple of five)"
    addition = " + ".join(str(c.value) for c in contributions)
    if len(contributions) > 1:
        addition += f" = {total}"
    lines.append(f"End sum: {addition}, which {verdict}.")
    if layout.sniff is not None:
        lines.append(f"Red outline: the Sniff {layout.sniff}.")
    return lines
