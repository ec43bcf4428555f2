"""The SVG figure of the table: well-formed, one group per tile, markers, caption, no clipping."""

from __future__ import annotations

import importlib.util
import random
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from american_sniff import Layout, apply, legal_moves, new_match, placement_points
from american_sniff.layout import placements_of
from american_sniff.render import PIP_SPOTS, render_svg
from american_sniff.render import svg as svg_module
from random_tables import random_tables
from scenarios import WORKED_EXAMPLE_STEPS, table

SVG = "{http://www.w3.org/2000/svg}"

EXAMPLE_13 = (
    ("[4|4]", None),
    ("[4|6]", "[4|4] line_a"),
    ("[1|4]", "[4|4] line_b"),
    ("[2|4]", "[4|4] branch_a"),
)


def groups(root: ET.Element, kind: str) -> list[ET.Element]:
    """The ``<g>`` elements whose class list holds ``kind``."""
    return [g for g in root.iter(f"{SVG}g") if kind in g.get("class", "").split()]


def box(element: ET.Element) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` of a ``<rect>`` or a ``<circle>``."""
    if element.tag == f"{SVG}circle":
        cx, cy, r = (float(element.get(name, "nan")) for name in ("cx", "cy", "r"))
        return cx - r, cy - r, cx + r, cy + r
    x, y, w, h = (float(element.get(name, "nan")) for name in ("x", "y", "width", "height"))
    return x, y, x + w, y + h


def apart(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two boxes do not overlap."""
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def caption_lines(root: ET.Element) -> list[str]:
    """The caption's lines of text."""
    (caption,) = groups(root, "caption")
    return [text.text or "" for text in caption.iter(f"{SVG}text")]


def check_svg(layout: Layout, svg: str, *, caption: bool = True) -> ET.Element:
    """Everything the figure promises, read back from the parsed document."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    width, height = float(root.get("width", "nan")), float(root.get("height", "nan"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    # One group per placed tile, in placement order, with the tile's pips; the Sniff outlined.
    tiles = groups(root, "tile")
    assert [g.get("data-tile") for g in tiles] == [str(t) for t in layout.tiles]
    for group, tile in zip(tiles, layout.tiles, strict=True):
        assert len(group.findall(f"{SVG}circle")) == tile.pips
        assert ("sniff" in group.get("class", "").split()) == (tile == layout.sniff)
    assert len(groups(root, "sniff")) == (layout.sniff is not None)
    # A filled marker with its number per contribution; a lone double's one end on both sides.
    counted = groups(root, "counted")
    contributions = layout.contributions()
    lone = layout.count == 1 and layout.tiles[0].is_double
    if lone:
        assert [g.get("data-point") for g in counted] == [str(p) for p in layout.points()]
        for group in counted:
            assert "shared" in group.get("class", "").split()
            assert group.get("data-value") == group.findtext(f"{SVG}text") == str(layout.end_sum)
    else:
        assert [g.get("data-point") for g in counted] == [str(c.point) for c in contributions]
        for group, contribution in zip(counted, contributions, strict=True):
            assert group.get("data-value") == str(contribution.value)
            assert group.findtext(f"{SVG}text") == str(contribution.value)
            assert group.find(f"{SVG}circle") is not None
    assert not groups(root, "uncounted")
    # No marker on a tile, no two markers on each other, nothing outside the page.
    faces = [box(g.findall(f"{SVG}rect")[0]) for g in tiles]
    markers = [box(g.findall(f"{SVG}circle")[0]) for g in counted]
    for marker in markers:
        assert all(apart(marker, face) for face in faces)
    for i, a in enumerate(markers):
        assert all(apart(a, b) for b in markers[i + 1 :])
    for x0, y0, x1, y1 in faces + markers:
        assert 0 <= x0 < x1 <= width
        assert 0 <= y0 < y1 <= height
    # The caption: the ends, the sum, the points; lines short enough for the width.
    if not caption:
        assert not groups(root, "caption")
        return root
    lines = caption_lines(root)
    text = " ".join(line.strip() for line in lines)
    for contribution in contributions if not lone else ():
        assert f"{contribution.point} {contribution.value}" in text
    points = placement_points(layout.end_sum)
    if len(contributions) > 1:
        assert f" = {layout.end_sum}, which scores {points}" in text
    elif layout.tiles:
        assert f"End sum: {layout.end_sum}, which scores {points}" in text
    assert all(len(line) * 7 <= width - 14 for line in lines)
    return root


def test_the_opening_tile_1_4() -> None:
    """Example 1: one tile with five pips, markers 1 and 4, caption 1 + 4 = 5, scores 5."""
    layout = table(("[1|4]", None))
    root = check_svg(layout, render_svg(layout))
    assert caption_lines(root) == [
        "Counted ends: [1|4] low 1, [1|4] high 4.",
        "End sum: 1 + 4 = 5, which scores 5.",
    ]


def test_worked_examples_1_to_9_final_table() -> None:
    """Example 9: nine tiles, the Sniff [1|1] outlined, four counted ends summing to 8."""
    layout = table(*WORKED_EXAMPLE_STEPS)
    root = check_svg(layout, render_svg(layout))
    (sniff,) = groups(root, "sniff")
    assert sniff.get("data-tile") == "[1|1]"
    assert [g.findtext(f"{SVG}text") for g in groups(root, "counted")] == ["0", "2", "3", "3"]
    assert caption_lines(root)[-2:] == [
        "End sum: 0 + 2 + 3 + 3 = 8, which scores 0 (not a positive multiple of five).",
        "Red outline: the Sniff [1|1].",
    ]


@pytest.mark.parametrize("steps", range(1, len(WORKED_EXAMPLE_STEPS) + 1))
def test_every_step_of_examples_1_to_9(steps: int) -> None:
    """Each table on the way to example 9 gives a complete, well-formed figure."""
    layout = table(*WORKED_EXAMPLE_STEPS[:steps])
    check_svg(layout, render_svg(layout))


def test_a_lone_opening_double_is_one_end_open_on_both_sides() -> None:
    """Example 10: [2|2] is one end worth 4: both line sides show 4, ringed, counted once."""
    layout = table(("[2|2]", None))
    root = check_svg(layout, render_svg(layout))
    assert [g.get("data-value") for g in groups(root, "shared")] == ["4", "4"]
    assert caption_lines(root)[:2] == [
        "Counted end: [2|2] alone, one end worth both halves, 4,",
        "open on both sides ([2|2] line_a and line_b, ringed).",
    ]


def test_example_13_the_sniff_with_a_branch() -> None:
    """Example 13: the free branch B of [4|4] counts 4; the sum 13 scores nothing."""
    layout = table(*EXAMPLE_13)
    root = check_svg(layout, render_svg(layout))
    values = {g.get("data-point"): g.get("data-value") for g in groups(root, "counted")}
    assert values["[4|4] branch_b"] == "4"
    assert "End sum: 1 + 2 + 4 + 6 = 13, which scores 0 (not a positive multiple of five)." in (
        caption_lines(root)
    )


def test_example_12_scores_fifteen() -> None:
    """Example 12: [3|6] and [6|6] on its high end: 3 + 12 = 15 scores 15."""
    layout = table(("[3|6]", None), ("[6|6]", "[3|6] high"))
    root = check_svg(layout, render_svg(layout))
    assert "End sum: 3 + 12 = 15, which scores 15." in caption_lines(root)


def test_without_caption() -> None:
    """caption=False leaves the caption out and the drawing whole."""
    layout = table(*WORKED_EXAMPLE_STEPS)
    svg = render_svg(layout, caption=False)
    check_svg(layout, svg, caption=False)
    assert len(svg) < len(render_svg(layout))


def test_the_empty_table() -> None:
    """No tiles: a well-formed figure whose caption says so."""
    root = check_svg(Layout.empty(), render_svg(Layout.empty()))
    assert caption_lines(root) == ["The empty table: end sum 0, which scores 0."]
    assert not groups(root, "tile")


def test_the_same_layout_gives_the_same_bytes() -> None:
    """Equal layouts built separately give identical documents."""
    assert render_svg(table(*WORKED_EXAMPLE_STEPS)) == render_svg(table(*WORKED_EXAMPLE_STEPS))


def test_the_pip_patterns_are_those_of_real_dominoes() -> None:
    """Each number has that many spots, distinct, on a 3 by 3 grid, symmetric under a half turn."""
    assert len(PIP_SPOTS) == 7
    for number, spots in enumerate(PIP_SPOTS):
        assert len(set(spots)) == len(spots) == number
        assert all(0 <= c <= 2 and 0 <= r <= 2 for c, r in spots)
        assert {(2 - c, 2 - r) for c, r in spots} == set(spots)
    assert set(PIP_SPOTS[6]) == {(c, r) for c in (0, 2) for r in range(3)}


def test_random_final_tables() -> None:
    """The biggest random final tables, and some mid-round ones, give complete figures."""
    finals, middles = random_tables(1000, 2024)
    for layout in sorted(finals, key=len)[-60:] + list(middles[:40]):
        check_svg(layout, render_svg(layout))


# -- the figures of the docs -------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs"


def make_figures() -> ModuleType:
    """The script docs/make_figures.py, loaded as a module."""
    spec = importlib.util.spec_from_file_location("make_figures", DOCS / "make_figures.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_figures_are_current() -> None:
    """docs/figures/ holds exactly the figures docs/make_figures.py makes, byte for byte."""
    made: dict[str, str] = make_figures().figures()
    committed = {path.name for path in (DOCS / "figures").glob("*.svg")}
    assert committed == set(made)
    for name, svg in made.items():
        assert (DOCS / "figures" / name).read_text(encoding="utf-8") == svg, (
            f"{name} is stale: run python docs/make_figures.py"
        )


def test_the_figures_script_follows_the_worked_examples() -> None:
    """The script's examples 1-9 are the shared worked-example steps; every figure is sound."""
    script = make_figures()
    assert script.EXAMPLES_1_TO_9 == WORKED_EXAMPLE_STEPS
    for number in range(1, 10):
        layout = table(*WORKED_EXAMPLE_STEPS[:number])
        check_svg(layout, script.figures()[f"example-{number:02d}.svg"])
    example_13 = script.build(script.OTHER_EXAMPLES[13])
    assert example_13 == table(*EXAMPLE_13)
    assert example_13.end_sum == 13
    assert [script.build(script.OTHER_EXAMPLES[n]).end_sum for n in (10, 11, 12)] == [4, 0, 15]


def test_the_figures_script_checks_and_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--check fails on a missing figure and passes once the script has written them."""
    script = make_figures()
    monkeypatch.setattr(script, "FIGURES", tmp_path / "figures")
    assert script.main(["--check"]) == 1
    assert "stale figures" in capsys.readouterr().out
    assert script.main([]) == 0
    assert script.main(["--check"]) == 0
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == sorted(script.figures())


def test_a_grown_table_draws_only_its_new_tile_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tiles' text of the table before is kept: mostly only the new tile's text is made.

    (Unless the drawing's origin moved, when the table grew left or up.) The
    drawings are those of a cold start.
    """
    rng = random.Random(5)
    state = new_match(2, seed=5)
    tables: list[Layout] = []
    while not state.is_over and len(tables) < 40:
        state = apply(state, rng.choice(legal_moves(state)))
        if state.layout.count > 1 and (not tables or state.layout is not tables[-1]):
            tables.append(state.layout)
    svg_module._TILE_RUNS.clear()
    drawn = [render_svg(layout, caption=False) for layout in tables]
    made: list[object] = []
    original = svg_module._tile_text

    def counted(placed: Any, sniff: bool, ox: float, oy: float) -> str:
        made.append(placed)
        return original(placed, sniff, ox, oy)

    monkeypatch.setattr(svg_module, "_tile_text", counted)
    svg_module._TILE_RUNS.clear()
    assert [render_svg(layout, caption=False) for layout in tables] == drawn
    tiles = sum(layout.count for layout in tables)
    assert len(made) < tiles * 2 / 3


def test_matches_drawn_in_turn_each_grow_from_their_last_table_however_full_the_caches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server's drawings: each match's next table is read from its last one, not read whole.

    24 matches drawn in turn, each table as it grew, with the shapes' and the
    tiles' caches made small (64 and 48 entries) so that they fill many times
    over: they forget their older half (``render._kept``), so each match's
    last entries, made within the last 24 tables drawn, are still there. A
    cache emptied whole would lose them every 64 tables, for every match.
    """
    from american_sniff.render import geometry

    monkeypatch.setattr(geometry, "_SHAPES_KEPT", 64)
    monkeypatch.setattr(svg_module, "_TILE_RUNS_KEPT", 48)
    matches = []
    for seed in range(24):
        rng, state = random.Random(seed), new_match(2, seed=seed)
        tables: list[Layout] = []
        while not state.is_over and len(tables) < 12:
            state = apply(state, rng.choice(legal_moves(state)))
            if state.layout.count > 1 and (not tables or state.layout is not tables[-1]):
                tables.append(state.layout)
        assert len(tables) == 12
        matches.append(tables)
    read_whole: list[object] = []
    original = geometry._Shape.__init__

    def counted(shape: Any, layout: Layout) -> None:
        read_whole.append(layout)
        original(shape, layout)

    monkeypatch.setattr(geometry._Shape, "__init__", counted)
    geometry._SHAPES.clear()
    for turn in range(12):
        for tables in matches:
            render_svg(tables[turn], caption=False)
    # Read whole: only a table not one tile larger than the match's last one
    # drawn (its first table, and the second of a new round).
    grown = placements_of
    expected = [
        tables[turn]
        for turn in range(12)
        for tables in matches
        if turn == 0 or grown(tables[turn])[2] is not grown(tables[turn - 1])
    ]
    assert len(expected) < 40  # most tables are grown from the one before
    assert read_whole == expected
    assert len(geometry._SHAPES) <= 64
    assert len(svg_module._TILE_RUNS) <= 48
