"""The text drawing of the table: the grid, its markers and the legend of what counts."""

from __future__ import annotations

import re

import pytest

from american_sniff import Layout, placement_points
from american_sniff.render import TEXT_PAGE, render_text
from american_sniff.render.text import compact_text
from random_tables import random_tables
from scenarios import WORKED_EXAMPLE_STEPS, table

EXAMPLE_9 = """\
            +3
           ╔═══╗
           ║ 3 ║
           ╟───╢
           ║ 1 ║
           ╠═══╣       ╔═══╗
   ╔═══╤═══╣*1*╠═══╤═══╣ 4 ╠═══╤═══╗
+2 ║ 2 │ 1 ╟───╢ 1 │ 4 ╟───╢ 4 │ 3 ║ +3
   ╚═══╧═══╣*1*╠═══╧═══╣ 4 ╠═══╧═══╝
           ╠═══╣       ╚═══╝
           ║ 1 ║
           ╟───╢
           ║ 5 ║
         ╔═╩═╤═╩═╗
         ║ 5 │ 5 ║
         ╚═╦═╧═╦═╝
           ║ 5 ║
           ╟───╢
           ║ 0 ║
           ╚═══╝
            +0

Sniff: [1|1] (its halves drawn *1*)
Counted ends (+N beyond the end; a, b: the side of a double):
  [0|5] low: 0
  [1|2] high: 2
  [1|3] high: 3
  [3|4] low: 3
End sum: 8, scores 0
"""

EXAMPLE_12_ASCII = """\
           +---+
   +-------+*6*|
+3 | 3 : 6 |...| b+12
   +-------+*6*|
           +---+

Sniff: [6|6] (its halves drawn *6*)
Counted ends (+N beyond the end; a, b: the side of a double):
  [3|6] low: 3
  [6|6] line_b: 12
End sum: 15, scores 15
"""

#: A marker beyond an open point: the side's letter on a double, + (or = for the
#: one end of a lone double) and the value.
MARKER = re.compile(r"(?<![\w*])([ab]?)([+=])(\d+)")
DOUBLE_SIDES = {"line_a", "line_b", "branch_a", "branch_b"}


def split(text: str) -> tuple[str, str]:
    """The drawing and the legend (separated by the first blank line)."""
    drawing, legend = text.split("\n\n", 1)
    return drawing, legend


def check_text(layout: Layout, text: str, *, unicode: bool = True) -> None:
    """The drawing shows all numbers and a marker per open point; the legend lists all."""
    drawing, legend = split(text)
    contributions = layout.contributions()
    markers = MARKER.findall(drawing)
    if layout.count == 1 and layout.tiles[0].is_double:
        # A lone double: one end worth both halves, marked = on both its open sides.
        value = str(layout.end_sum)
        assert sorted(markers) == [("a", "=", value), ("b", "=", value)]
    else:
        # One +N marker per counted end, with its value, lettered on a double's side.
        assert sorted(int(m[2]) for m in markers) == sorted(c.value for c in contributions)
        assert {m[1] for m in markers} <= {"+"}
        tagged = sum(c.side.value in DOUBLE_SIDES for c in contributions)
        assert sum(bool(m[0]) for m in markers) == tagged
        for contribution in contributions:
            assert f"  {contribution}\n" in legend
    # Both numbers of every tile, the Sniff's starred.
    numbers = MARKER.sub("", drawing)
    digits = sorted(int(d) for d in re.findall(r"\d", numbers))
    assert digits == sorted(n for tile in layout.tiles for n in (tile.low, tile.high))
    stars = re.findall(r"\*(\d)\*", numbers)
    if layout.sniff is None:
        assert not stars
    else:
        assert stars == [str(layout.sniff.low)] * 2
        assert f"Sniff: {layout.sniff}" in legend
    # The legend: the sum, the points.
    assert legend.endswith(
        f"End sum: {layout.end_sum}, scores {placement_points(layout.end_sum)}\n"
    )
    if not unicode:
        assert text.isascii()


def test_worked_examples_1_to_9_final_table() -> None:
    """The drawing of example 9's table, character for character."""
    assert render_text(table(*WORKED_EXAMPLE_STEPS)) == EXAMPLE_9


def test_example_12_in_ascii() -> None:
    """[3|6] then [6|6] in ASCII: the Sniff's line B counts 12, the sum 15 scores 15."""
    layout = table(("[3|6]", None), ("[6|6]", "[3|6] high"))
    text = render_text(layout, unicode=False)
    assert text == EXAMPLE_12_ASCII
    check_text(layout, text, unicode=False)


@pytest.mark.parametrize("steps", range(1, len(WORKED_EXAMPLE_STEPS) + 1))
@pytest.mark.parametrize("unicode", [True, False])
def test_every_step_of_examples_1_to_9(steps: int, unicode: bool) -> None:
    """Each table on the way to example 9 shows all its tiles, markers and contributions."""
    layout = table(*WORKED_EXAMPLE_STEPS[:steps])
    check_text(layout, render_text(layout, unicode=unicode), unicode=unicode)


def test_a_lone_opening_double_is_one_end_open_on_both_sides() -> None:
    """Example 10: [2|2] alone is one end worth 4, marked on both of its line sides."""
    layout = table(("[2|2]", None))
    text = render_text(layout)
    check_text(layout, text)
    drawing, legend = split(text)
    assert "a=4 ╟───╢ b=4" in drawing
    assert "Counted end: [2|2] alone, one end worth both halves (4),\n" in legend
    assert "open on both sides: line_a (a) and line_b (b)\n" in legend
    assert legend.endswith("End sum: 4, scores 0\n")


def test_example_11_zero_is_drawn_and_counted_as_zero() -> None:
    """[0|0] alone: the markers say =0, and the sum 0 scores nothing."""
    layout = table(("[0|0]", None))
    text = render_text(layout)
    check_text(layout, text)
    assert "a=0" in text
    assert text.endswith("End sum: 0, scores 0\n")


def test_example_13_shows_the_branches() -> None:
    """Open [4|4], [4|6] and [1|4] on its lines, [2|4] on a branch: four counted ends."""
    layout = table(
        ("[4|4]", None),
        ("[4|6]", "[4|4] line_a"),
        ("[1|4]", "[4|4] line_b"),
        ("[2|4]", "[4|4] branch_a"),
    )
    text = render_text(layout)
    check_text(layout, text)
    assert "[4|4] branch_b: 4" in text
    assert text.endswith("End sum: 13, scores 0\n")


def test_the_empty_table() -> None:
    """No tiles: a note instead of a drawing, and a zero sum."""
    assert render_text(Layout.empty()) == "(the table is empty)\n\nEnd sum: 0, scores 0\n"


@pytest.mark.sweep
def test_random_tables_fit_in_eighty_columns_and_show_everything() -> None:
    """The biggest of many random final tables: within 80 columns, nothing missing."""
    finals, middles = random_tables(1000, 2024)
    chosen = sorted(finals, key=len)[-80:] + list(middles[:40])
    for layout in chosen:
        for unicode in (True, False):
            text = render_text(layout, unicode=unicode)
            check_text(layout, text, unicode=unicode)
            drawing, _ = split(text)
            assert max(len(line) for line in drawing.splitlines()) <= 2 * TEXT_PAGE[0] + 1 <= 80


def test_unicode_and_ascii_draw_the_same_grid() -> None:
    """The two character sets differ only in the characters used for lines."""
    layout = random_tables(1000, 2024)[0][7]
    fancy = render_text(layout).splitlines()
    plain = render_text(layout, unicode=False).splitlines()
    assert len(fancy) == len(plain)
    for a, b in zip(fancy, plain, strict=True):
        assert len(a) == len(b)
        assert MARKER.findall(a) == MARKER.findall(b)


def test_the_compact_form_lists_every_tile_once_and_every_open_point() -> None:
    """Arm by arm: each tile but the first once, each open point once with its value."""
    finals, middles = random_tables(1000, 2024)
    for layout in (*finals[:300], *middles[:100]):
        lines = compact_text(layout)
        text = " ".join(line.strip() for line in lines)
        listed = re.findall(r"(?:: |, )(\[\d\|\d\])\*?(?=,)", text)
        assert sorted(listed) == sorted(str(tile) for tile in layout.tiles[1:]), text
        opened = re.findall(r"open (\[\d\|\d\] \w+)( [+=]\d+|, the same end)", text)
        assert sorted(point for point, _ in opened) == sorted(str(p) for p in layout.points())
        values = {c.point: c.value for c in layout.contributions()}
        for point in layout.points():
            if layout.count > 1:
                assert f"open {point} +{values.get(point, 0)}" in text
        assert lines[-1] == f"End sum {layout.end_sum}, scores {placement_points(layout.end_sum)}"
        assert max(map(len, lines)) <= 80
