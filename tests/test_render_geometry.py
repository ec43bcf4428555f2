"""The table laid out in the plane: rectangles, sides, anchors, bends, and no overlaps."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from american_sniff import Layout, Point, Side, Tile
from american_sniff.render import (
    DEFAULT_PAGE,
    HALF,
    Direction,
    Edge,
    Geometry,
    Orientation,
    Rect,
    TilePlacement,
    table_geometry,
)
from random_tables import random_tables
from scenarios import WORKED_EXAMPLE_STEPS, pt, table

# -- checks any geometry must pass ---------------------------------------------------


def shared_boundary(a: Rect, b: Rect) -> int:
    """The length of outline two rectangles share (0 if they do not touch along a side)."""
    if a.overlaps(b):
        return 0
    if a.x1 == b.x0 or b.x1 == a.x0:
        return max(0, min(a.y1, b.y1) - max(a.y0, b.y0))
    if a.y1 == b.y0 or b.y1 == a.y0:
        return max(0, min(a.x1, b.x1) - max(a.x0, b.x0))
    return 0


def on_outline(edge: Edge, rect: Rect) -> bool:
    """Whether ``edge`` is a piece of ``rect``'s outline on the side it faces."""
    inside_x = rect.x0 <= edge.x0 <= edge.x1 <= rect.x1
    inside_y = rect.y0 <= edge.y0 <= edge.y1 <= rect.y1
    return (
        inside_x
        and inside_y
        and {
            Direction.EAST: edge.x0 == edge.x1 == rect.x1,
            Direction.WEST: edge.x0 == edge.x1 == rect.x0,
            Direction.SOUTH: edge.y0 == edge.y1 == rect.y1,
            Direction.NORTH: edge.y0 == edge.y1 == rect.y0,
        }[edge.facing]
    )


def common_length(a: Edge, b: Edge) -> int:
    """How long two edges run along each other, facing each other (0 if they do not)."""
    if a.facing is not b.facing.opposite:
        return 0
    if a.x0 == a.x1 == b.x0 == b.x1:
        return max(0, min(a.y1, b.y1) - max(a.y0, b.y0))
    if a.y0 == a.y1 == b.y0 == b.y1:
        return max(0, min(a.x1, b.x1) - max(a.x0, b.x0))
    return 0


def check_tile_shape(placed: TilePlacement, sniff: Tile | None) -> None:
    """A tile is two squares of HALF; a non-double lies along its heading, a double across it."""
    tile, rect = placed.tile, placed.rect
    assert {rect.width, rect.height} == {HALF, 2 * HALF}
    for half in (placed.low_half, placed.high_half):
        assert (half.width, half.height) == (HALF, HALF)
        assert half.union(rect) == rect
    assert placed.low_half.union(placed.high_half) == rect
    along = placed.heading in (Direction.EAST, Direction.WEST)
    long_along_x = placed.orientation is Orientation.HORIZONTAL
    assert long_along_x == (along != tile.is_double)
    sides = [edge.side for edge in placed.edges]
    if not tile.is_double:
        assert sides == [Side.LOW, Side.HIGH]
        assert on_outline(placed.edge(Side.LOW), placed.low_half)
        assert on_outline(placed.edge(Side.HIGH), placed.high_half)
        return
    expected = [Side.LINE_A, Side.LINE_B]
    if tile == sniff:
        expected += [Side.BRANCH_A, Side.BRANCH_B]
    assert sides == expected
    # Line A faces back, line B onward, on the long sides; branches on the short sides.
    assert placed.edge(Side.LINE_A).facing is placed.heading.opposite
    assert placed.edge(Side.LINE_B).facing is placed.heading
    for edge in placed.edges:
        assert on_outline(edge, rect)
        assert edge.length == (2 * HALF if edge.side in (Side.LINE_A, Side.LINE_B) else HALF)
    if tile == sniff:
        assert placed.edge(Side.BRANCH_A).facing is placed.heading.left
        assert placed.edge(Side.BRANCH_B).facing is placed.heading.right


def check_geometry(layout: Layout, geometry: Geometry, page: tuple[int, int] | None) -> None:
    """Every promise of :func:`table_geometry`, checked from the layout."""
    placed = geometry.tiles
    assert [p.tile for p in placed] == list(layout.tiles)
    by_tile = {p.tile: p for p in placed}
    rects = [p.rect for p in placed]
    markers = [a.marker for a in geometry.anchors]
    # No two tiles overlap, and no marker square covers a tile or another marker.
    everything = rects + markers
    for i, a in enumerate(everything):
        for b in everything[i + 1 :]:
            assert not a.overlaps(b), (layout, a, b)
    for p in placed:
        check_tile_shape(p, layout.sniff)
    # Every connection's two tiles touch, at the sides that are joined.
    joined_pairs = set()
    for connection in layout.connections:
        parent, child = by_tile[connection.at.tile], by_tile[connection.joined.tile]
        joined_pairs.add(frozenset((parent.tile, child.tile)))
        at_edge = parent.edge(connection.at.side)
        joined_edge = child.edge(connection.joined.side)
        assert common_length(at_edge, joined_edge) > 0, connection
        assert shared_boundary(parent.rect, child.rect) > 0, connection
        if child.tile.is_double:
            assert common_length(at_edge, joined_edge) == at_edge.length
        else:
            joined_half = child.low_half if connection.joined.side is Side.LOW else child.high_half
            assert shared_boundary(joined_half, parent.rect) > 0
            assert on_outline(joined_edge, joined_half)
    # The anchors: one per open point, at the middle of its side, the marker just beyond.
    assert [a.point for a in geometry.anchors] == list(layout.points())
    values = {c.point: c.value for c in layout.contributions()}
    for anchor in geometry.anchors:
        edge = by_tile[anchor.point.tile].edge(anchor.point.side)
        assert (anchor.x, anchor.y) == edge.midpoint
        assert anchor.facing is edge.facing
        assert anchor.value == values.get(anchor.point)
        assert (anchor.marker.width, anchor.marker.height) == (HALF, HALF)
        assert shared_boundary(anchor.marker, by_tile[anchor.point.tile].rect) > 0
    # The bounds hold everything, tightly, and fit the page.
    bounds = everything[0]
    for rect in everything:
        bounds = bounds.union(rect)
    assert geometry.bounds == bounds
    if geometry.page is not None:
        assert bounds.width <= geometry.page[0]
        assert bounds.height <= geometry.page[1]
        if page is not None:
            assert geometry.page[0] >= page[0]
            assert geometry.page[1] >= page[1]
        # On a page, tiles touch only when joined, or joined to the same tile.
        parent_of = {c.joined.tile: c.at.tile for c in layout.connections}
        for i, first in enumerate(placed):
            for later in placed[i + 1 :]:
                if frozenset((first.tile, later.tile)) in joined_pairs:
                    continue
                joins = parent_of.get(later.tile)
                siblings = joins is not None and parent_of.get(first.tile) == joins
                grandchild = joins is not None and parent_of.get(joins) == first.tile
                if not (siblings or grandchild):
                    assert not first.rect.touches(later.rect), (layout, first.tile, later.tile)


def long_chain() -> Layout:
    """All 21 non-doubles in one line, each placed on the newest end: far too long for a page."""
    # An Euler circuit of the seven numbers uses every non-double once.
    numbers = [0, 6, 5, 4, 6, 3, 5, 2, 4, 3, 2, 6, 1, 5, 0, 4, 1, 3, 0, 2, 1, 0]
    layout = Layout.empty().place(Tile(numbers[0], numbers[1]))
    newest = Point(Tile(numbers[0], numbers[1]), Side.HIGH)
    for a, b in itertools.pairwise(numbers[1:]):
        tile = Tile(a, b)
        layout = layout.place(tile, newest)
        newest = Point(tile, Side.HIGH if tile.low == a else Side.LOW)
    return layout


# -- the value types -----------------------------------------------------------------


def test_directions_turn_like_a_compass_on_a_page() -> None:
    """Right is clockwise on the page (y grows downwards); left and opposite follow."""
    assert Direction.EAST.right is Direction.SOUTH
    assert Direction.SOUTH.right is Direction.WEST
    assert Direction.EAST.left is Direction.NORTH
    assert Direction.NORTH.opposite is Direction.SOUTH
    assert [(d.dx, d.dy) for d in Direction] == [(1, 0), (0, 1), (-1, 0), (0, -1)]
    assert repr(Direction.WEST) == "Direction.WEST"
    assert repr(Orientation.VERTICAL) == "Orientation.VERTICAL"


def test_rectangles_overlap_only_inside_and_touch_at_outlines() -> None:
    """Sharing an edge or a corner is touching, not overlapping."""
    a = Rect(0, 0, 4, 2)
    assert not a.overlaps(Rect(4, 0, 8, 2))
    assert a.touches(Rect(4, 0, 8, 2))
    assert a.touches(Rect(4, 2, 6, 4))  # a corner
    assert not a.touches(Rect(5, 0, 9, 2))
    assert a.overlaps(Rect(3, 1, 5, 3))
    assert a.union(Rect(-1, 1, 2, 5)) == Rect(-1, 0, 4, 5)
    assert (a.width, a.height, a.center) == (4, 2, (2.0, 1.0))


def test_edges_know_their_middle_and_length() -> None:
    """An edge's midpoint is on whole units and its length is its extent."""
    edge = Edge(Side.LINE_B, 4, -2, 4, 2, Direction.EAST)
    assert edge.midpoint == (4, 0)
    assert edge.length == 4


# -- the worked examples ---------------------------------------------------------------


def test_opening_non_double_lies_across_the_page_low_half_left() -> None:
    """[1|4] opens centred on the origin, low half on the left; both ends have markers."""
    layout = table(("[1|4]", None))
    geometry = table_geometry(layout)
    (placed,) = geometry.tiles
    assert placed.rect == Rect(-2, -1, 2, 1)
    assert placed.orientation is Orientation.HORIZONTAL
    assert placed.low_half == Rect(-2, -1, 0, 1)
    assert placed.high_half == Rect(0, -1, 2, 1)
    low, high = geometry.anchors
    assert (low.point, low.x, low.y, low.facing, low.value) == (
        pt("[1|4] low"),
        -2,
        0,
        Direction.WEST,
        1,
    )
    assert (high.point, high.x, high.facing, high.value) == (pt("[1|4] high"), 2, Direction.EAST, 4)
    assert high.marker == Rect(2, -1, 4, 1)
    assert geometry.bounds == Rect(-4, -1, 4, 1)
    assert geometry.page == DEFAULT_PAGE
    check_geometry(layout, geometry, DEFAULT_PAGE)


def test_opening_double_lies_crosswise_and_its_second_line_side_is_not_counted() -> None:
    """Example 10: [2|2] stands upright; line A (counted, 4) on the left, line B (not) right."""
    layout = table(("[2|2]", None))
    geometry = table_geometry(layout)
    (placed,) = geometry.tiles
    assert placed.rect == Rect(-1, -2, 1, 2)
    assert placed.orientation is Orientation.VERTICAL
    assert placed.edge(Side.LINE_A).facing is Direction.WEST
    line_a, line_b = geometry.anchors
    assert (line_a.point, line_a.value) == (pt("[2|2] line_a"), 4)
    assert (line_b.point, line_b.value, line_b.facing) == (pt("[2|2] line_b"), None, Direction.EAST)
    check_geometry(layout, geometry, DEFAULT_PAGE)


def test_worked_examples_1_to_9_form_a_cross_around_the_sniff() -> None:
    """The finished table of examples 1-9: the line runs east-west, the branches north and south."""
    layout = table(*WORKED_EXAMPLE_STEPS)
    geometry = table_geometry(layout)
    check_geometry(layout, geometry, DEFAULT_PAGE)
    sniff = geometry.placement(Tile(1, 1))
    assert sniff.orientation is Orientation.VERTICAL
    assert sniff.heading is Direction.WEST  # [1|1] joined [1|4] low, west of it
    # Nothing bends on so small a table: the line and the branches run straight.
    for tile in (Tile(1, 4), Tile(4, 4), Tile(3, 4)):
        assert geometry.placement(tile).heading is Direction.EAST
    assert geometry.placement(Tile(1, 2)).heading is Direction.WEST
    for tile in (Tile(1, 5), Tile(5, 5), Tile(0, 5)):
        assert geometry.placement(tile).heading is Direction.SOUTH  # branch A: left of west
    assert geometry.placement(Tile(5, 5)).orientation is Orientation.HORIZONTAL
    assert geometry.placement(Tile(1, 3)).heading is Direction.NORTH
    assert geometry.anchor(pt("[0|5] low")).facing is Direction.SOUTH
    assert geometry.anchor(pt("[1|3] high")).value == 3


@pytest.mark.parametrize("steps", range(1, len(WORKED_EXAMPLE_STEPS) + 1))
def test_every_step_of_examples_1_to_9_is_laid_out(steps: int) -> None:
    """Each table on the way to example 9 passes every check."""
    layout = table(*WORKED_EXAMPLE_STEPS[:steps])
    check_geometry(layout, table_geometry(layout), DEFAULT_PAGE)


def test_example_13_branches_leave_the_short_sides_of_the_sniff() -> None:
    """Open [4|4], [4|6] and [1|4] on its line sides, [2|4] on branch A: above the Sniff."""
    layout = table(
        ("[4|4]", None),
        ("[4|6]", "[4|4] line_a"),
        ("[1|4]", "[4|4] line_b"),
        ("[2|4]", "[4|4] branch_a"),
    )
    geometry = table_geometry(layout)
    check_geometry(layout, geometry, DEFAULT_PAGE)
    assert geometry.placement(Tile(2, 4)).heading is Direction.NORTH
    assert geometry.anchor(pt("[4|4] branch_b")).facing is Direction.SOUTH
    assert geometry.anchor(pt("[4|4] branch_b")).value == 4


def test_lookups_of_tiles_and_points_not_there_raise_key_error() -> None:
    """placement(), anchor() and edge() name what is missing."""
    geometry = table_geometry(table(("[1|4]", None)))
    with pytest.raises(KeyError, match=r"\[2\|2\] is not on the table"):
        geometry.placement(Tile(2, 2))
    with pytest.raises(KeyError, match="not an open point"):
        geometry.anchor(pt("[4|4] line_b"))
    with pytest.raises(KeyError, match="has no line_a side"):
        geometry.tiles[0].edge(Side.LINE_A)


def test_the_empty_table_has_no_tiles() -> None:
    """An empty layout gives an empty geometry with zero bounds."""
    geometry = table_geometry(Layout.empty())
    assert (geometry.tiles, geometry.anchors, geometry.bounds) == ((), (), Rect(0, 0, 0, 0))


@pytest.mark.parametrize("page", [(0, 10), (10, -1), (4.0, 4), (1, 2, 3), "48x40"])
def test_a_page_must_be_two_positive_whole_numbers(page: object) -> None:
    """A bad page is refused with ValueError."""
    with pytest.raises(ValueError, match="a page is"):
        table_geometry(table(("[1|4]", None)), page=page)  # type: ignore[arg-type]


# -- bends, pages, and the fallback ----------------------------------------------------


def test_a_long_line_bends_to_stay_on_the_page() -> None:
    """21 tiles in one line (84 units) fit the default 48 by 40 page by turning."""
    layout = long_chain()
    assert len(layout) == 21
    geometry = table_geometry(layout)
    check_geometry(layout, geometry, DEFAULT_PAGE)
    assert geometry.page == DEFAULT_PAGE
    headings = {p.heading for p in geometry.tiles}
    assert Direction.NORTH in headings or Direction.SOUTH in headings


def test_a_page_too_small_grows_until_the_table_fits() -> None:
    """A page smaller than one tile is grown (the result says by how much)."""
    layout = table(("[1|4]", None), ("[4|6]", "[1|4] high"))
    geometry = table_geometry(layout, page=(1, 1))
    assert geometry.page is not None
    assert geometry.page > (1, 1)
    check_geometry(layout, geometry, (1, 1))


def test_a_long_line_on_a_tiny_page_gives_up_on_the_small_sizes() -> None:
    """The search gives up on pages the long line cannot fit and settles on a larger one."""
    layout = long_chain()
    geometry = table_geometry(layout, page=(1, 1))
    assert geometry.page is not None
    assert geometry.page >= (17, 17)
    check_geometry(layout, geometry, (1, 1))


def test_without_a_page_every_arm_runs_straight() -> None:
    """page=None: the line stays on the x axis and the branches on the Sniff's column."""
    layout = long_chain()
    geometry = table_geometry(layout, page=None)
    assert geometry.page is None
    assert {p.heading for p in geometry.tiles} <= {Direction.EAST, Direction.WEST}
    assert all(p.rect.y0 >= -HALF and p.rect.y1 <= HALF for p in geometry.tiles)
    check_geometry(layout, geometry, None)
    crossing = table(*WORKED_EXAMPLE_STEPS)
    check_geometry(crossing, table_geometry(crossing, page=None), None)


def test_the_same_layout_always_gets_the_same_geometry() -> None:
    """The search is deterministic: equal layouts give equal geometries."""
    layout = long_chain()
    assert table_geometry(layout) == table_geometry(long_chain())
    assert table_geometry(layout, page=(30, 30)) == table_geometry(layout, page=(30, 30))


@pytest.mark.sweep
def test_no_overlaps_in_a_thousand_random_final_tables() -> None:
    """1,000 final tables of random matches (and mid-round ones) pass every check, quickly."""
    finals, middles = random_tables(1000, 2024)
    assert len(finals) == 1000
    assert len(middles) > 100
    biggest = max(len(layout) for layout in finals)
    assert biggest >= 24  # the sample includes long arms that must bend
    bent = 0
    for layout in (*finals, *middles):
        geometry = table_geometry(layout)
        check_geometry(layout, geometry, DEFAULT_PAGE)
        assert geometry.page == DEFAULT_PAGE
        bent += any(
            p.heading is not Direction.EAST and p.heading is not Direction.WEST
            for p in geometry.tiles
            if layout.sniff is None or p.tile not in _branch_tiles(layout)
        )
    assert bent > 50  # many tables bend somewhere


def test_smaller_pages_still_fit_random_tables() -> None:
    """On a 30 by 30 page (the text drawing's is 38 by 40) tables still fit without overlaps."""
    finals, _ = random_tables(1000, 2024)
    for layout in sorted(finals, key=len)[-60:]:
        geometry = table_geometry(layout, page=(30, 30))
        check_geometry(layout, geometry, (30, 30))


def _branch_tiles(layout: Layout) -> Sequence[Tile]:
    """The tiles of the Sniff's branches (which leave the line at right angles anyway)."""
    children: dict[Tile, list[Tile]] = {}
    starts = []
    for connection in layout.connections:
        children.setdefault(connection.at.tile, []).append(connection.joined.tile)
        if connection.at.side in (Side.BRANCH_A, Side.BRANCH_B):
            starts.append(connection.joined.tile)
    found = []
    while starts:
        tile = starts.pop()
        found.append(tile)
        starts.extend(children.get(tile, ()))
    return found
