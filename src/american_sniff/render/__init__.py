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
from .text import TEXT_PAGE, render_text

__all__ = [
    "DEFAULT_PAGE",
    "HALF",
    "PIP_SPOTS",
    "TEXT_PAGE",
    "Anchor",
    "Direction",
    "Edge",
    "Geometry",
    "Orientation",
    "Rect",
    "TilePlacement",
    "render_svg",
    "render_text",
    "table_geometry",
]
