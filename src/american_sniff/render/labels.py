"""What every drawing of the table writes beyond an open point: ``+4``, ``b+12``, ``a=10``.

The text drawing (:mod:`american_sniff.render.text`) and the compact one
(:mod:`american_sniff.render.compact`) both mark the open points this way,
so the labels live here, below both.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..layout import Layout, Point, Side

__all__ = ["SIDE_TAGS", "end_labels", "lone_double_value"]

#: The letter a double's side is marked with: the last letter of its name.
SIDE_TAGS: Mapping[Side, str] = {
    Side.LINE_A: "a",
    Side.LINE_B: "b",
    Side.BRANCH_A: "a",
    Side.BRANCH_B: "b",
}


def lone_double_value(layout: Layout) -> int | None:
    """What a lone double on the table counts (both halves), or None if it is not alone.

    >>> from american_sniff import Tile
    >>> lone_double_value(Layout.empty().place(Tile(5, 5)))
    10
    """
    if layout.count == 1 and layout.tiles[0].is_double:
        return layout.end_sum
    return None


def end_labels(layout: Layout) -> dict[Point, str]:
    """What the drawing writes beyond each open point of ``layout``.

    ``+N`` for what the point adds to the end sum, after the side's letter on
    a double (``b+12``); both sides of a lone double show the one end they
    share with ``=`` (``a=10``, ``b=10``).

    >>> from american_sniff import Tile
    >>> sorted(end_labels(Layout.empty().place(Tile(5, 5))).values())
    ['a=10', 'b=10']
    """
    values = {c.point: c.value for c in layout.contributions()}
    lone = lone_double_value(layout)
    labels = {}
    for point in layout.points():
        tag = SIDE_TAGS.get(point.side, "")
        if lone is not None:
            labels[point] = f"{tag}={lone}"
        else:
            labels[point] = f"{tag}+{values.get(point, 0)}"
    return labels
