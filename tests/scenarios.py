"""Test scenarios shared by several test files, and the short notation they are written in."""

from __future__ import annotations

import re
from collections.abc import Sequence

from american_sniff import ALL_TILES, Deal, Layout, Point, Tile, parse_point, parse_tile

__all__ = ["DRAW_DEAL", "PASS_DEAL", "WORKED_EXAMPLE_STEPS", "deal", "pt", "table", "tiles"]


def tiles(text: str) -> tuple[Tile, ...]:
    """The tiles written in ``text``, e.g. ``"[1|4] [4|4]"``."""
    return tuple(parse_tile(t) for t in re.findall(r"\[\d\|\d\]", text))


def pt(text: str) -> Point:
    """The point written ``"[1|4] low"`` or ``"[1|1] branch_a"``."""
    return parse_point(text)


def table(*steps: tuple[str, str | None]) -> Layout:
    """The layout after placing each ``(tile, point or None)`` in turn."""
    layout = Layout.empty()
    for tile, at in steps:
        layout = layout.place(parse_tile(tile), None if at is None else pt(at))
    return layout


def deal(hands: Sequence[str], stock: str = "", opener: int | None = 0) -> Deal:
    """A deal of ``hands``; the stock draws ``stock`` first, then the other tiles in set order."""
    dealt = [tiles(hand) for hand in hands]
    first = list(tiles(stock))
    used = {t for hand in dealt for t in hand} | set(first)
    return Deal(hands=dealt, stock=first + [t for t in ALL_TILES if t not in used], opener=opener)


#: Worked examples 1-9 of the rules are one table, built a tile at a time:
#: each step is (tile, point it is placed on, or None for the opening).
WORKED_EXAMPLE_STEPS: tuple[tuple[str, str | None], ...] = (
    ("[1|4]", None),
    ("[1|1]", "[1|4] low"),
    ("[4|4]", "[1|4] high"),
    ("[3|4]", "[4|4] line_b"),
    ("[1|2]", "[1|1] line_b"),
    ("[1|5]", "[1|1] branch_a"),
    ("[5|5]", "[1|5] high"),
    ("[0|5]", "[5|5] line_b"),
    ("[1|3]", "[1|1] branch_b"),
)

#: Two players. Seat 0 holds every tile showing 0 but [0|3] and opens [0|0]; seat 1
#: holds none, and draws [5|5], [6|6] (neither fits) and then [0|3], which fits.
DRAW_DEAL = deal(
    [
        "[0|0] [0|1] [0|2] [0|4] [0|5] [0|6] [1|1]",
        "[1|2] [1|3] [1|4] [1|5] [1|6] [2|2] [2|3]",
    ],
    stock="[5|5] [6|6] [0|3]",
)

#: Two players. Seat 0 holds all seven 0-tiles and opens [0|0]; nothing else shows a
#: 0, so seat 1 draws all 14 tiles of the stock without a fit and must then pass.
PASS_DEAL = deal(
    [
        "[0|0] [0|1] [0|2] [0|3] [0|4] [0|5] [0|6]",
        "[1|1] [1|2] [1|3] [1|4] [1|5] [1|6] [2|2]",
    ]
)
