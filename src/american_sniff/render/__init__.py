"""Pictures of the table: its geometry, a text drawing, an SVG figure and the paper tally."""

from .geometry import (
    DEFAULT_PAGE,
    HALF,
    Anchor,
    Direction,
    Edge,
    Geometry,
    Orientation,
    Rect,
    TilePlacement,
    table_geometry,
)
from .svg import PIP_SPOTS, render_svg
from .tally import STROKES_PER_FIGURE, Tally, tally, tally_svg, tally_text
from .text import TEXT_PAGE, render_text

__all__ = [
    "DEFAULT_PAGE",
    "HALF",
    "PIP_SPOTS",
    "STROKES_PER_FIGURE",
    "TEXT_PAGE",
    "Anchor",
    "Direction",
    "Edge",
    "Geometry",
    "Orientation",
    "Rect",
    "Tally",
    "TilePlacement",
    "render_svg",
    "render_text",
    "table_geometry",
    "tally",
    "tally_svg",
    "tally_text",
]
