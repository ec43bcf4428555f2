"""Unit tests of the table's geometry: sides, points, connections, contributions, layouts."""

from __future__ import annotations

import itertools
import pickle
from typing import Any

import attrs
import pytest

from american_sniff import (
    ALL_TILES,
    Connection,
    Contribution,
    IllegalMove,
    Layout,
    Place,
    Point,
    Side,
    Tile,
    legal_moves,
    new_match,
    parse_point,
    parse_tile,
)
from american_sniff import layout as geometry
from american_sniff import points as point_table
from american_sniff.points import point_of_key
from reference import check_layout, point_key
from scenarios import WORKED_EXAMPLE_STEPS, first_move_match, pt, random_play, table

_DOUBLE_SIDES = (Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B)

# -- Side -----------------------------------------------------------------------


def test_side_names_and_order() -> None:
    """The six sides, in the documented order low, high, line A, line B, branch A, branch B."""
    assert [s.value for s in Side] == ["low", "high", "line_a", "line_b", "branch_a", "branch_b"]
    assert str(Side.BRANCH_B) == "branch_b"
    assert repr(Side.LINE_A) == "Side.LINE_A"
    assert eval(repr(Side.HIGH), {"Side": Side}) is Side.HIGH


# -- Point ----------------------------------------------------------------------


@pytest.mark.parametrize("tile", [t for t in ALL_TILES if not t.is_double], ids=str)
def test_non_double_points_show_their_end_value(tile: Tile) -> None:
    """A non-double has a low end (value low) and a high end (value high), nothing else."""
    assert Point(tile, Side.LOW).value == tile.low
    assert Point(tile, Side.HIGH).value == tile.high
    for side in (Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B):
        with pytest.raises(ValueError, match="not a double"):
            Point(tile, side)


@pytest.mark.parametrize("tile", [t for t in ALL_TILES if t.is_double], ids=str)
def test_double_points_show_the_double_value(tile: Tile) -> None:
    """A double has line A, line B, branch A and branch B, all showing its value; no ends."""
    for side in (Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B):
        assert Point(tile, side).value == tile.low
    for side in (Side.LOW, Side.HIGH):
        with pytest.raises(ValueError, match="is a double"):
            Point(tile, side)


def test_point_equality_str_repr_and_pickle() -> None:
    """Points compare by tile and side; str is ``[a|b] side``; repr and pickle paste back."""
    point = Point(Tile(4, 1), Side.HIGH)
    assert point == Point(Tile(1, 4), Side.HIGH)
    assert point != Point(Tile(1, 4), Side.LOW)
    assert hash(point) == hash(Point(Tile(1, 4), Side.HIGH))
    assert str(point) == "[1|4] high"
    assert repr(point) == "Point(Tile(1, 4), Side.HIGH)"
    assert eval(repr(point), {"Point": Point, "Tile": Tile, "Side": Side}) == point
    assert pickle.loads(pickle.dumps(point)) == point
    with pytest.raises(AttributeError):
        point.side = Side.LOW  # type: ignore[misc]  # points are frozen; this must fail


def test_point_order_is_tile_then_side() -> None:
    """``Point.order`` sorts by tile (set order) and then by ``Side`` order."""
    points = [pt("[1|1] branch_b"), pt("[0|6] high"), pt("[1|1] line_a"), pt("[0|6] low")]
    ordered = sorted(points, key=lambda p: p.order)
    assert [str(p) for p in ordered] == [
        "[0|6] low",
        "[0|6] high",
        "[1|1] line_a",
        "[1|1] branch_b",
    ]


def test_every_point_has_an_order_that_names_it() -> None:
    """``Point.order`` is ``8 * tile.index`` plus the side's rank; ``point_of_key`` reads it back.

    The 70 points of the set: a non-double's two ends and a double's two line
    sides and two branches. No other number is a point's order. Kills the
    mutants of the point keys (``points.key_of``, ``points.point_of_key``).
    """
    orders = set()
    for tile in ALL_TILES:
        sides = (Side.LOW, Side.HIGH) if not tile.is_double else _DOUBLE_SIDES
        for side in sides:
            point = Point(tile, side)
            assert point.order == tile.index * 8 + list(Side).index(side)
            assert point_of_key(point.order) == point
            orders.add(point.order)
    assert len(orders) == 21 * 2 + 7 * 4
    for key in set(range(-1, 8 * len(ALL_TILES) + 1)) - orders:
        with pytest.raises(ValueError, match=rf"^no point has the order {key}$"):
            point_of_key(key)


def test_a_key_that_is_no_point_is_refused_by_number() -> None:
    """point_of_key says which key has no point (7 is no side's rank), and refuses non-numbers.

    Kills ``points._point`` mutant 3 (and ``layout._point`` mutant 3, merged into it).
    """
    assert point_of_key(Point(Tile(1, 4), Side.HIGH).order) == Point(Tile(1, 4), Side.HIGH)
    with pytest.raises(ValueError, match=r"^no point has the order 7$"):
        point_of_key(7)
    for key in (-1, 28 * 8, "8"):
        with pytest.raises(ValueError, match="no point has the order"):
            point_of_key(key)  # type: ignore[arg-type]


# -- Connection and Contribution ---------------------------------------------------


def test_connection_and_contribution_text() -> None:
    """A connection reads ``open point - joining side``; a contribution ``point: value``."""
    joint = Connection(pt("[1|4] low"), pt("[1|1] line_a"))
    assert str(joint) == "[1|4] low - [1|1] line_a"
    assert repr(joint) == "Connection(Point(Tile(1, 4), Side.LOW), Point(Tile(1, 1), Side.LINE_A))"
    part = Contribution(pt("[4|4] line_b"), 8)
    assert str(part) == "[4|4] line_b: 8"
    assert repr(part) == "Contribution(Point(Tile(4, 4), Side.LINE_B), 8)"
    assert part.tile == Tile(4, 4)
    assert part.side is Side.LINE_B


# -- Layout ---------------------------------------------------------------------


def test_empty_layout() -> None:
    """The empty table has no tiles, points, connections or contributions, and sums to 0."""
    empty = Layout.empty()
    assert empty.is_empty
    assert len(empty) == 0
    assert empty.tiles == ()
    assert empty.points() == ()
    assert empty.connections == ()
    assert empty.contributions() == ()
    assert empty.end_sum == 0
    assert empty.sniff is None
    assert empty.fits(Tile(3, 3)) == ()
    assert Layout.empty() == empty


def test_place_returns_a_new_layout_and_leaves_the_old_one() -> None:
    """Placing never changes a layout: it returns a new one, and layouts are frozen."""
    before = table(("[1|4]", None))
    snapshot = (before.tiles, before.points(), before.end_sum, before.sniff, len(before))
    after = before.place(Tile(1, 1), pt("[1|4] low"))
    assert after is not before
    assert (before.tiles, before.points(), before.end_sum, before.sniff, len(before)) == snapshot
    assert after.tiles == (Tile(1, 4), Tile(1, 1))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        before.end_sum = 99  # layouts are frozen; this must fail


def test_equal_histories_give_equal_layouts() -> None:
    """Two layouts built by the same placements are equal and hash alike; others differ."""
    one = table(*WORKED_EXAMPLE_STEPS[:4])
    two = table(*WORKED_EXAMPLE_STEPS[:4])
    assert one == two
    assert hash(one) == hash(two)
    assert one != table(*WORKED_EXAMPLE_STEPS[:3])


def test_layouts_of_a_round_have_distinct_hashes() -> None:
    """A layout's hash depends on what is on the table, not on the class alone.

    Kills ``Layout.__hash__`` mutant 1.
    """
    layouts = {state.layout for state in random_play(new_match(2, seed=6), 40, seed=6)}
    assert len(layouts) > 10
    assert len({hash(layout) for layout in layouts}) == len(layouts)


def test_tiles_are_in_placement_order() -> None:
    """``tiles`` (and iteration) list the tiles in the order they were placed, not sorted."""
    layout = table(*WORKED_EXAMPLE_STEPS)
    expected = [parse_tile(tile) for tile, _ in WORKED_EXAMPLE_STEPS]
    assert list(layout.tiles) == expected
    assert list(layout) == expected
    assert len(layout) == len(expected)


def test_contains_tells_which_tiles_lie_on_the_table() -> None:
    """``tile in layout`` is true exactly for the placed tiles; non-tiles are never in it."""
    layout = table(*WORKED_EXAMPLE_STEPS[:5])
    placed = set(layout.tiles)
    for tile in ALL_TILES:
        assert (tile in layout) == (tile in placed)
    assert "[1|4]" not in layout
    assert None not in layout


def test_fits_lists_the_open_points_a_tile_could_join() -> None:
    """``fits`` gives the open points showing a half of the tile, in points() order."""
    # Open: [1|1] branch A/B (1), [1|2] high (2), [3|4] low (3).
    layout = table(*WORKED_EXAMPLE_STEPS[:5])
    assert layout.fits(Tile(1, 6)) == (pt("[1|1] branch_a"), pt("[1|1] branch_b"))
    assert layout.fits(Tile(2, 3)) == (pt("[1|2] high"), pt("[3|4] low"))
    assert layout.fits(Tile(1, 3)) == (
        pt("[1|1] branch_a"),
        pt("[1|1] branch_b"),
        pt("[3|4] low"),
    )
    assert layout.fits(Tile(6, 6)) == ()
    assert layout.fits(Tile(0, 4)) == ()


def test_every_fit_can_be_placed() -> None:
    """Each point ``fits`` offers accepts the tile; every other open point refuses it."""
    layout = table(*WORKED_EXAMPLE_STEPS[:5])
    for tile in ALL_TILES:
        if tile in layout:
            continue
        fits = layout.fits(tile)
        for point in layout.points():
            if point in fits:
                assert tile in layout.place(tile, point)
            else:
                with pytest.raises(ValueError, match="values do not match"):
                    layout.place(tile, point)


def test_points_are_sorted_by_tile_then_side() -> None:
    """``points()`` is in the documented order: tile order, then ``Side`` order."""
    for count in range(1, len(WORKED_EXAMPLE_STEPS) + 1):
        points = table(*WORKED_EXAMPLE_STEPS[:count]).points()
        assert list(points) == sorted(points, key=point_key)


def _seeded_layouts() -> list[Layout]:
    """Every table reached in the first 400 states of a few seeded matches (first legal move)."""
    return [
        state.layout
        for players, seed in ((2, 1), (3, 2), (4, 3))
        for state in first_move_match(players, seed)[:400]
        if not state.is_over
    ]


def test_contributions_add_up_to_the_end_sum() -> None:
    """On every table of some seeded matches, the contributions sum to ``end_sum``."""
    layouts = _seeded_layouts()
    assert any(len(layout) > 10 for layout in layouts)
    for layout in layouts:
        parts = layout.contributions()
        assert sum(part.value for part in parts) == layout.end_sum
        assert all(part.point in layout.points() for part in parts)
        assert list(parts) == sorted(parts, key=lambda part: point_key(part.point))


def test_every_open_point_is_a_free_side_of_a_placed_tile() -> None:
    """No open point is joined, and every point belongs to a tile on the table."""
    for layout in _seeded_layouts():
        joined = {c.at for c in layout.connections} | {c.joined for c in layout.connections}
        for point in layout.points():
            assert point.tile in layout
            assert point not in joined
        assert len(layout.connections) == max(len(layout) - 1, 0)


def test_every_table_of_one_or_two_tiles_is_the_rules_table() -> None:
    """Each opening tile, and each tile joined to each of its points, gives the rules' table.

    Every one- and two-tile table matches the recomputation from scratch
    (``reference.check_layout``): its open points, what each counts, the end
    sum, the Sniff, and which points each of the 28 tiles fits. An opening
    tile leaves both its sides open (both line sides of a double); a tile
    joined to a point leaves its other end open, and a double its line B.
    This pins, by what the table does, the tables the engine builds once
    (the keys each tile opens and leaves free, the points' worth and the
    tiles' values); it kills the mutants of ``layout._opening_keys`` and
    ``layout._free_key`` too, with the next test, which calls those builders.
    """
    joined = 0
    for tile in ALL_TILES:
        opening = Layout.empty().place(tile)
        check_layout(opening)
        expected = _DOUBLE_SIDES[:2] if tile.is_double else (Side.LOW, Side.HIGH)
        assert opening.points() == tuple(Point(tile, side) for side in expected)
        for point in opening.points():
            for other in ALL_TILES:
                if other is tile or not other.has(point.value):
                    continue
                after = opening.place(other, point)
                check_layout(after)
                (new,) = [p for p in after.points() if p.tile is other]
                if other.is_double:
                    assert new.side is Side.LINE_B
                else:
                    assert new.value == other.low + other.high - point.value
                joined += 1
    # Each opening tile leaves two points open, and each point takes the 7
    # tiles that show its value, less the opening tile itself.
    assert joined == 2 * len(ALL_TILES) * 7 - 2 * len(ALL_TILES)


def test_the_import_time_tables_give_the_keys_of_the_points_of_the_table() -> None:
    """The builders that run once at import give the keys the table shows.

    mutmut runs each mutant in a process that imported the package unmutated,
    so a function that only builds a module-level table is checked by calling
    it, against what the table does. Kills the mutants of ``points._point_table``,
    ``points.key_of``, ``layout._opening_keys``, ``layout._free_key`` and
    ``layout._fits`` (which decides where ``FREE_KEY`` has a key: a point of
    another tile that shows one of the tile's halves).
    """
    expected: list[Point | None] = [None] * (8 * len(ALL_TILES))
    for tile in ALL_TILES:
        for point in Layout.empty().place(tile).points():
            expected[point.order] = point
    for tile in ALL_TILES:  # the branches of a double open only on the table
        if tile.is_double:
            for side in (Side.BRANCH_A, Side.BRANCH_B):
                expected[Point(tile, side).order] = Point(tile, side)
    assert point_table._point_table() == expected
    for tile in ALL_TILES:
        opening = Layout.empty().place(tile)
        assert geometry._opening_keys(tile) == tuple(p.order for p in opening.points())
        for point in opening.points():
            assert point_table.key_of(point.tile, point.side) == point.order
            for other in ALL_TILES:
                if other is tile or not other.has(point.value):
                    continue
                (new,) = [p for p in opening.place(other, point).points() if p.tile is other]
                assert geometry._free_key(other, point.order) == new.order
    for tile in ALL_TILES:
        assert geometry._fits(tile, None) is False
        for other in ALL_TILES:
            for point in Layout.empty().place(other).points():
                fits = other is not tile and point in Layout.empty().place(other).fits(tile)
                assert geometry._fits(tile, point) is fits


def test_the_opening_tables_built_at_import_are_the_rules_tables_of_one_tile() -> None:
    """Each table of one tile, built once at import, is the rules' table of that tile.

    Every round opens on one of the 28 tables that ``layout._opened`` builds
    at import, and placing an opening tile hands its table out. mutmut runs
    each mutant in a process that imported the package unmutated, so the
    builder is called here, and each table it builds is checked against the
    recomputation from scratch (``reference.check_layout``: open points, what
    each counts, end sum, Sniff) and against the table an opening placement
    gives, field by field (equality also compares the mask of open values and
    the placement log). Kills the mutants of ``layout._opened``.
    """
    for tile in ALL_TILES:
        built = geometry._opened(tile)
        check_layout(built)
        assert built == Layout.empty().place(tile)
        assert built.tiles == (tile,)
        assert built.connections == ()
        assert {point.value for point in built.points()} == {tile.low, tile.high}
        # A lone double counts its two halves once; a non-double its two ends.
        assert built.end_sum == tile.low + tile.high


def test_repr_names_the_tiles_and_the_sum() -> None:
    """The repr lists the tiles in placement order and the end sum."""
    assert repr(Layout.empty()) == "<Layout [] end_sum=0>"
    assert repr(table(*WORKED_EXAMPLE_STEPS[:3])) == "<Layout [[1|4], [1|1], [4|4]] end_sum=10>"


def test_place_accepts_an_equal_point_not_just_the_one_from_points() -> None:
    """A freshly built ``Point`` equal to an open point is as good as the listed one."""
    layout = table(("[3|6]", None))
    fresh = Point(Tile(6, 3), Side.HIGH)
    after = layout.place(Tile(6, 6), fresh)
    assert after.connections == (Connection(pt("[3|6] high"), pt("[6|6] line_a")),)
    assert Place(Tile(6, 6), fresh) == Place(Tile(6, 6), pt("[3|6] high"))


def test_parse_point_reads_back_every_point_str_writes() -> None:
    """``parse_point(str(p)) == p`` for all 70 points of the set; bad text is refused."""
    from american_sniff import ALL_TILES, parse_point

    every = [
        Point(tile, side)
        for tile in ALL_TILES
        for side in Side
        if (side in (Side.LOW, Side.HIGH)) != tile.is_double
    ]
    assert len(every) == 70
    for point in every:
        assert parse_point(str(point)) == point
    for bad in ("[1|4]", "[1|4] middle", "low", "[1|4] line_a", "[7|1] low", ""):
        with pytest.raises(ValueError, match=r"not a point|not a tile|not a double|half"):
            parse_point(bad)


def test_a_point_with_an_unknown_side_lists_the_sides() -> None:
    """The refusal names the text and lists the six side names, comma separated.

    Kills ``points.parse_point`` mutant 17.
    """
    with pytest.raises(ValueError, match="not a point") as error:
        parse_point("[1|4] middle")
    assert str(error.value) == (
        "not a point: '[1|4] middle' (expected '[a|b] SIDE' with SIDE one of "
        "low, high, line_a, line_b, branch_a, branch_b)"
    )


def test_the_tiles_that_fit_a_mask_of_open_values_are_those_showing_one_of_them() -> None:
    """``FITTING_TILES[mask]`` holds exactly the tiles with a half among the mask's numbers."""
    from american_sniff import ALL_TILES
    from american_sniff.layout import FITTING_TILES, can_place

    assert len(FITTING_TILES) == 1 << 7
    for mask in range(1 << 7):
        numbers = {n for n in range(7) if mask >> n & 1}
        expected = {tile for tile in ALL_TILES if {tile.low, tile.high} & numbers}
        assert {tile for tile in ALL_TILES if FITTING_TILES[mask] >> tile.index & 1} == expected
        assert can_place(ALL_TILES, mask) is bool(expected)


def _anyone_fits(hands: tuple[tuple[Tile, ...], ...], layout: Layout) -> bool:
    """The plain definition: some hand holds a tile showing a number of an open point."""
    numbers = {point.value for point in layout.points()}
    return any(tile.low in numbers or tile.high in numbers for hand in hands for tile in hand)


def test_a_block_is_declared_exactly_when_the_stock_is_empty_and_no_hand_fits() -> None:
    """Over many played rounds, the engine blocks a round iff the plain definition says so.

    The engine first reasons on the tiles off the table (a hand or the stock
    holds each); this compares it with looking at every hand.
    """
    from american_sniff import RoundEnd, new_match
    from scenarios import random_play

    blocked = still_open = 0
    for seed in range(12):
        states = random_play(new_match(2 + seed % 3, seed=seed), 400, seed=seed)
        for before, after in itertools.pairwise(states):
            result = after.last_round
            if result is not None and result is not before.last_round:
                # A round ended here: blocked iff nobody could place with the stock empty.
                nobody = not _anyone_fits(result.hands, result.layout)
                assert (result.end is RoundEnd.BLOCKED) is (nobody and result.finisher is None)
                blocked += result.end is RoundEnd.BLOCKED
            elif after.winner is None and not after.layout.is_empty and not after.stock_size:
                # The round goes on with the stock empty: so someone can place.
                assert _anyone_fits(after.hands, after.layout)
                still_open += 1
    assert blocked > 0
    assert still_open > 0


_SIDES_EXPECTED = (
    "(expected '[a|b] SIDE' with SIDE one of low, high, line_a, line_b, branch_a, branch_b)"
)


def test_parse_point_strict_reads_only_the_form_the_library_writes() -> None:
    """With ``strict``, ``"[a|b] SIDE"`` with ``a <= b`` and one space; the rest is refused.

    Every refusal, strict or lenient, carries the code ``not_a_point`` and
    says what is wrong: the form, the tile's notation, or a side the tile
    does not have. Kills the mutants of ``points.parse_point`` (its strict
    branch, and the codes and messages of both).
    """
    for tile in ALL_TILES:
        for point in Layout.empty().place(tile).points():
            assert parse_point(str(point), strict=True) == point
    assert parse_point("[1|1] branch_a", strict=True) == Point(Tile(1, 1), Side.BRANCH_A)
    not_a_tile = "'[4|1]' is not a tile written '[a|b]' with a <= b"
    not_a_double = "[1|4] is not a double: it has only low and high ends, not line_a"
    refused: list[tuple[Any, bool, str]] = [
        ("[4|1] high", True, f"not a point: '[4|1] high': {not_a_tile}"),
        ("[1|4] line_a", True, f"not a point: '[1|4] line_a': {not_a_double}"),
        ("[1|4] line_a", False, not_a_double),
        ("[9|4] high", False, "not a tile: '[9|4]' (expected '[a|b]' with halves from 0 to 6)"),
        (3, True, "a point is written as text, got 3"),
        (3, False, "a point is written as text, got 3"),
    ]
    badly_formed = [
        *((text, True) for text in ("[1|4]  high", " [1|4] high", "[1|4] high ", "[1|4]")),
        *((text, False) for text in ("[1|4] middle", "[1|4]", "high")),
        ("[1|4] middle", True),
    ]
    refused.extend((t, s, f"not a point: {t!r} {_SIDES_EXPECTED}") for t, s in badly_formed)
    for text, strict, message in refused:
        with pytest.raises(IllegalMove) as error:
            parse_point(text, strict=strict)
        assert (error.value.code, str(error.value)) == ("not_a_point", message), (text, strict)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_end_sum_after_is_the_end_sum_of_the_table_placed(players: int) -> None:
    """``end_sum_after`` gives ``placed(...).end_sum`` for every legal placement met in play.

    Random matches reach every kind of table: the opening, a lone double, the
    Sniff with one line side joined, then both (its branches open), its arms.
    """
    checked = 0
    for seed in range(12):
        for state in random_play(new_match(players, seed=seed), 400, seed):
            for move in legal_moves(state):
                if isinstance(move, Place):
                    at = None if move.at is None else move.at.order
                    expected = geometry.placed(state.layout, move.tile, at).end_sum
                    assert geometry.end_sum_after(state.layout, move.tile, at) == expected, move
                    checked += 1
    assert checked > 5000


def test_end_sum_after_counts_the_sniffs_branches_once_both_line_sides_are_joined() -> None:
    """The placement that joins the Sniff's second line side adds its two branches' worth."""
    sniff = Layout.empty().place(Tile(4, 4))
    one_side = sniff.place(Tile(1, 4), sniff.fits(Tile(1, 4))[0])
    point = one_side.fits(Tile(2, 4))[0]
    both = one_side.place(Tile(2, 4), point)
    assert len(both.open_keys) == 4  # the two tiles' free sides and the two branches
    assert geometry.end_sum_after(one_side, Tile(2, 4), point.order) == both.end_sum == 1 + 2 + 8
