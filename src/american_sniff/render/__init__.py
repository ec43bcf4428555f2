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
