"""The paper tally: a stroke per 5 raw points, a figure of ten strokes per 50."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff.render import STROKES_PER_FIGURE, Tally, tally, tally_svg, tally_text

SVG = "{http://www.w3.org/2000/svg}"


def marks_in_text(text: str) -> int:
    """The strokes a text tally shows: X and x are two strokes, a lone backslash one."""
    drawing = re.sub(r"\+\d", "", text)
    return 2 * (drawing.count("X") + drawing.count("x")) + drawing.count("\\")


def test_the_rules_figure_is_fifty_points_in_ten_strokes() -> None:
    """50 points: one complete figure, a large X with four small x's, and nothing else."""
    assert tally(50) == Tally(negative=False, figures=1, strokes=0, remainder=0)
    assert STROKES_PER_FIGURE == 10
    assert tally_text(50) == "  x\nx X x\n  x\n"


def test_one_stroke_per_five_points() -> None:
    """5 points is the first stroke of the large X; 10 completes it; 15 begins a small x."""
    assert tally(5) == Tally(False, 0, 1, 0)
    assert tally_text(5) == "\n  \\\n\n"
    assert tally_text(10) == "\n  X\n\n"
    assert tally_text(15) == "  \\\n  X\n\n"
    assert tally_text(20) == "  x\n  X\n\n"


def test_a_match_score_of_135() -> None:
    """135: two complete figures and a third drawn to its seventh stroke."""
    marks = tally(135)
    assert (marks.figures, marks.strokes, marks.total_strokes, marks.points) == (2, 7, 27, 135)
    assert tally_text(135) == "  x      x      x\nx X x  x X x    X x\n  x      x      \\\n"


def test_scores_below_zero_get_a_minus_sign() -> None:
    """-35: seven strokes after a minus sign; the marks count what is owed."""
    marks = tally(-35)
    assert marks == Tally(negative=True, figures=0, strokes=7, remainder=0)
    assert marks.points == -35
    text = tally_text(-35)
    assert text.splitlines()[1].startswith("- ")
    assert marks_in_text(text) == 7


def test_points_under_five_are_written_after_the_strokes() -> None:
    """13 is two strokes and +3; -13 the same after a minus sign; 3 alone is just 3."""
    assert tally(13) == Tally(False, 0, 2, 3)
    assert tally_text(13).splitlines()[1] == "  X    +3"
    assert tally_text(-13).splitlines()[1] == "-   X    +3"
    assert tally_text(3) == "3\n"
    assert tally_text(-3) == "-3\n"


def test_zero_is_written_not_left_blank() -> None:
    """A score of 0 shows 0 (and no strokes)."""
    assert tally(0) == Tally(False, 0, 0, 0)
    assert tally_text(0) == "0\n"
    root = ET.fromstring(tally_svg(0))
    assert not root.findall(f".//{SVG}line")
    assert root.findtext(f".//{SVG}text[@class='remainder']") == "0"


def test_large_scores_go_on_in_rows_of_ten_figures() -> None:
    """600 points: twelve figures, ten on the first row, two on the second."""
    blocks = tally_text(600).split("\n\n")
    assert len(blocks) == 2
    assert blocks[0].splitlines()[1].count("X") == 10
    assert blocks[1].splitlines()[1].count("X") == 2


@pytest.mark.parametrize("bad", [2.5, "50", None, True])
def test_a_score_must_be_an_integer(bad: object) -> None:
    """Anything but an int is refused with TypeError."""
    with pytest.raises(TypeError, match="a score is an integer"):
        tally(bad)  # type: ignore[arg-type]


@given(st.integers(min_value=-2000, max_value=2000))
def test_the_marks_add_up_to_the_score(points: int) -> None:
    """For any score, figures, strokes and remainder give it back, and both drawings agree."""
    marks = tally(points)
    assert marks.points == points
    assert 0 <= marks.strokes < STROKES_PER_FIGURE
    assert 0 <= marks.remainder < 5
    assert marks.negative == (points < 0)
    text = tally_text(points)
    if marks.total_strokes:
        assert marks_in_text(text) == marks.total_strokes
        assert ("+" in text) == bool(marks.remainder)
    else:
        assert text == f"{points}\n"
    root = ET.fromstring(tally_svg(points))
    strokes = [e for e in root.iter(f"{SVG}line") if e.get("class") == "stroke"]
    assert len(strokes) == marks.total_strokes
    figures = [e for e in root.iter(f"{SVG}g") if e.get("class") == "figure"]
    assert [int(f.get("data-strokes", "")) for f in figures] == [10] * marks.figures + (
        [marks.strokes] if marks.strokes else []
    )
    minus = [e for e in root.iter(f"{SVG}line") if e.get("class") == "minus"]
    assert len(minus) == (marks.negative and marks.total_strokes > 0)


def test_the_svg_tally_is_well_formed_and_captioned() -> None:
    """The SVG parses, states the score, is red below zero, and fits everything on the page."""
    for points in (135, -35, 1234, -13, 4):
        svg = tally_svg(points)
        assert svg == tally_svg(points)
        root = ET.fromstring(svg)
        width = float(root.get("width", "nan"))
        caption = root.findtext(f"{SVG}text[@class='caption']") or ""
        assert caption.startswith(f"{points} points")
        assert ("below zero" in caption) == (points < 0)
        (group,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tally"]
        assert (group.get("stroke") == "#b71c1c") == (points < 0)
        for line in root.iter(f"{SVG}line"):
            for name in ("x1", "x2"):
                assert 0 <= float(line.get(name, "nan")) <= width
        assert len(caption) * 7 <= width
