"""Short notations for writing test scenarios: tiles, points, tables and deals."""

from __future__ import annotations

import re
from collections.abc import Sequence

from american_sniff import ALL_TILES, Deal, Layout, Point, Tile, parse_point, parse_tile

__all__ = ["deal", "pt", "table", "tiles"]


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
