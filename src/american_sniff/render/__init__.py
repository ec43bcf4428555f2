"""Pictures of the table: its geometry, a text drawing, an SVG figure and the paper tally."""

from . import geometry
from .geometry import *  # noqa: F403 (its names are the package's: see __all__)
from .svg import PIP_SPOTS, render_svg
from .tally import STROKES_PER_FIGURE, Tally, tally, tally_svg, tally_text
from .text import TEXT_PAGE, render_text

__all__ = [
    "PIP_SPOTS",
    "STROKES_PER_FIGURE",
    "TEXT_PAGE",
    "Tally",
    "render_svg",
    "render_text",
    "tally",
    "tally_svg",
    "tally_text",
]
# The geometry's names are the package's too.
__all__ += geometry.__all__
