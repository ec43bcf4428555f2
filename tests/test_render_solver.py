"""The one layout search of render (``render/_solver.py``): carrying on changes no drawing.

The SVG geometry and the compact drawing both lay a table out with
:func:`american_sniff.render._solver.backjump`. A search may carry on from
where the search of an earlier table first reached a step (its
:class:`~american_sniff.render._solver.Memory`); these tests play whole
matches, table after table as a server draws them, and check that every
arrangement is the one a search from the start finds.
"""

from __future__ import annotations

import random

import pytest

from american_sniff import Layout, apply, legal_moves, new_match
from american_sniff.render import compact, geometry
from american_sniff.render._solver import Memory

#: The pages tried: the browser's wide and narrow ones, and small ones that
#: make the search go back and the page grow.
PAGES = ((48, 40), (24, 36), (20, 16))


def _tables(matches: int, seed: int) -> list[Layout]:
    """Every table of ``matches`` random matches, in the order they were played."""
    rng = random.Random(seed)
    tables: list[Layout] = []
    for _ in range(matches):
        state = new_match(rng.choice((2, 3, 4)), seed=rng.randrange(2**32))
        while not state.is_over:
            state = apply(state, rng.choice(legal_moves(state)))
            if state.layout.tiles and (not tables or state.layout != tables[-1]):
                tables.append(state.layout)
    return tables


def test_carrying_on_gives_every_geometry_a_fresh_search_gives() -> None:
    """On three pages, each table of a match is laid out as without memory, and the memory helps."""
    memory = Memory(4096)
    tables = _tables(1, 41)
    assert len(tables) > 100
    for page in PAGES:
        for layout in tables:
            assert geometry._geometry(layout, page, memory) == geometry._geometry(
                layout, page, None
            )
    assert memory.hits > len(tables)  # most tables carried on from the one before


def test_carrying_on_gives_every_compact_drawing_a_fresh_search_gives() -> None:
    """At 80 and 40 columns, each table of a match is drawn in the same glyphs as without memory."""
    memory = Memory(2048)
    tables = _tables(1, 43)
    for width in (80, 40):
        for layout in tables:
            for height in (3, 12):
                with_memory = compact._Search(layout).solve(width, height, memory)
                fresh = compact._Search(layout).solve(width, height, None)
                assert (with_memory is None) == (fresh is None)
                if with_memory is not None and fresh is not None:
                    assert [(g.cells, m) for g, m in with_memory] == [
                        (g.cells, m) for g, m in fresh
                    ]
    assert memory.hits > 0


def test_the_memory_keeps_at_most_its_size() -> None:
    """A memory of three states keeps three, however many searches it sees; no negative size."""
    memory = Memory(3)
    for layout in _tables(1, 47)[:60]:
        geometry._geometry(layout, (48, 40), memory)
        assert len(memory) <= 3
    assert len(memory) == 3
    memory.clear()
    assert len(memory) == 0
    with pytest.raises(ValueError, match="zero or more"):
        Memory(-1)
