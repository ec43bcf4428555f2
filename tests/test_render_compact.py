"""The compact drawing of the table: a whole round's table within 80 columns and a few lines."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from american_sniff import Layout, Tile, apply, legal_moves, new_match
from american_sniff.render.compact import compact_drawing, compact_ends
from american_sniff.render.text import end_labels, end_words
from random_tables import random_tables
from scenarios import WORKED_EXAMPLE_STEPS, table

#: The lines a drawing may take on a 4-player decision screen of 24 lines: the
#: rest is the prompt, the scores, the tiles held, three since-your-move
#: lines, the hand, the moves' heading, two lines of moves and two of open
#: ends (12 lines), with two lines to spare for a longer hand or more moves.
HEIGHT = 10

#: A tile lying across (``[2|5]``, the Sniff ``{3|3}``), and the halves of one lying down.
ACROSS = re.compile(r"([\[{])(\d)\|(\d)([\]}])")
TOP = {True: re.compile(r"┌(\d)┐"), False: re.compile(r"\.(\d)\.")}
BOTTOM = {True: "└{}┘", False: "'{}'"}


def drawn_tiles(lines: list[str], *, unicode: bool = True) -> Counter[Tile]:
    """The tiles a drawing shows, each read from its glyph (the Sniff's counted too)."""
    found: Counter[Tile] = Counter()
    for row, line in enumerate(lines):
        for match in ACROSS.finditer(line):
            a, b = int(match.group(2)), int(match.group(3))
            found[Tile(min(a, b), max(a, b))] += 1
        for match in TOP[unicode].finditer(line):
            below = lines[row + 1][match.start() : match.end()] if row + 1 < len(lines) else ""
            low = re.fullmatch(re.escape(BOTTOM[unicode].format("X")).replace("X", r"(\d)"), below)
            assert low is not None, "\n".join(lines)
            a, b = int(match.group(1)), int(low.group(1))
            found[Tile(min(a, b), max(a, b))] += 1
    return found


def full_rounds(count: int, seed: int) -> list[Layout]:
    """The final tables of ``count`` random 4-player and 2-player rounds, largest first."""
    rng = random.Random(seed)
    finals: list[Layout] = []
    while len(finals) < count:
        state = new_match(rng.choice((2, 4)), seed=rng.randrange(2**32))
        last = state.last_round
        while not state.is_over and len(finals) < count:
            state = apply(state, rng.choice(legal_moves(state)))
            if state.last_round is not last:
                last = state.last_round
                assert last is not None
                finals.append(last.layout)
    return sorted(finals, key=lambda layout: -layout.count)


def test_the_worked_example_is_drawn_with_every_tile_and_marker() -> None:
    """The rules' worked example: the Sniff in braces, its branches from its long sides."""
    layout = table(*WORKED_EXAMPLE_STEPS)
    lines = compact_drawing(layout)
    assert lines is not None
    text = "\n".join(lines)
    assert drawn_tiles(lines) == Counter(layout.tiles), text
    assert "{1|1}" in text
    assert sorted(re.findall(r"[ab]?[+=]\d+", text)) == sorted(end_labels(layout).values())


@pytest.mark.sweep
def test_many_full_rounds_fit_80_columns_and_the_screens_height() -> None:
    """Random full rounds (up to 28 tiles, four arms): within 80 by HEIGHT, every tile drawn once.

    Every open end's marker is there too, and the ASCII drawing is the same
    picture in other characters.
    """
    layouts = full_rounds(250, 2028)
    finals, middles = random_tables(1000, 2024)
    layouts += sorted(finals, key=lambda layout: -layout.count)[:60] + list(middles[:30])
    assert max(layout.count for layout in layouts) >= 25
    heights = []
    for layout in layouts:
        lines = compact_drawing(layout)
        assert lines is not None
        text = "\n".join(lines)
        assert max(map(len, lines)) <= 80, text
        assert len(lines) <= HEIGHT, text
        heights.append(len(lines))
        assert drawn_tiles(lines) == Counter(layout.tiles), text
        assert len(re.findall(r"\{\d\|\d\}", text)) == (layout.sniff is not None)
        assert sorted(re.findall(r"(?<![\d|])[ab]?[+=]\d+", text)) == sorted(
            end_labels(layout).values()
        ), text
        plain = compact_drawing(layout, unicode=False)
        assert plain is not None
        assert [len(line) for line in plain] == [len(line) for line in lines]
        assert drawn_tiles(plain, unicode=False) == Counter(layout.tiles)
    # Most tables take less than the whole height.
    assert sorted(heights)[len(heights) // 2] <= 7


def test_a_long_line_turns_at_the_edge_and_comes_back() -> None:
    """A line longer than the width goes down at the edge and runs back, as on a table."""
    layout = max(full_rounds(200, 7), key=lambda layout: len(layout.points()) == 2 and layout.count)
    lines = compact_drawing(layout, width=40)
    assert lines is not None
    assert max(map(len, lines)) <= 40
    assert drawn_tiles(lines) == Counter(layout.tiles)
    assert len(lines) >= 3


def test_a_narrow_width_that_holds_no_tile_draws_nothing() -> None:
    """A width narrower than a tile gives None; an empty table, no lines."""
    assert compact_drawing(table(("[1|4]", None)), width=4) is None
    assert compact_drawing(Layout.empty()) == []
    assert compact_ends(Layout.empty()) == {}


@pytest.mark.sweep
def test_an_end_keeps_its_words_all_round_however_the_drawing_folds() -> None:
    """end_words names every open point once, by its arm, and never renames it.

    Through random rounds, an end that stays open keeps its words while the
    table grows and its arms turn at the screen's edge; the words are the same
    at every width; the first tile's low side (or line A) is the left arm.
    """
    rng = random.Random(43)
    renamed = checked = 0
    for _ in range(15):
        state = new_match(rng.choice((2, 4)), seed=rng.randrange(2**32))
        named: dict[object, str] = {}
        last = state.last_round
        while not state.is_over:
            layout = state.layout
            words = end_words(layout)
            assert set(words) == set(layout.points())
            assert len(set(words.values())) == len(words)
            assert end_words(layout, width=40) == words
            for point, text in words.items():
                checked += 1
                renamed += named.setdefault(point, text) != text
            if layout.tiles:
                first = layout.tiles[0]
                for point, text in words.items():
                    if point.tile == first and point.side.value in ("low", "line_a"):
                        assert text.endswith("on the left arm"), text
                    if point.tile == first and point.side.value in ("high", "line_b"):
                        assert text.endswith("on the right arm"), text
                    if point.side.value.startswith("branch_"):
                        assert text.endswith(f"on branch {point.side.value[-1]}"), text
            state = apply(state, rng.choice(legal_moves(state)))
            if state.last_round is not last:
                last = state.last_round
                named = {}
    assert checked > 1000
    assert renamed == 0
