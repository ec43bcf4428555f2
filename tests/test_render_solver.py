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
from hypothesis import example, given, settings
from hypothesis import strategies as st

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


@pytest.mark.sweep
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


@pytest.mark.sweep
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


def _match_tables(players: int, seed: int) -> list[Layout]:
    """The tables of one random match as they grew, each placement's (none twice in a row)."""
    rng = random.Random(seed)
    state = new_match(players, seed=seed)
    tables: list[Layout] = []
    while not state.is_over:
        state = apply(state, rng.choice(legal_moves(state)))
        if state.layout.tiles and (not tables or state.layout is not tables[-1]):
            tables.append(state.layout)
    return tables


@settings(max_examples=10, deadline=None)
@given(
    st.sampled_from([2, 3, 4]),
    st.integers(0, 2**32),
    st.sampled_from([(48, 40), (24, 36), (20, 16), (14, 10), None]),
    st.sampled_from([4000, 40, 12]),
)
# Every page and every budget in every run (each match below is a few hundred tables):
@example(players=3, seed=4, page=(14, 10), budget=4000)  # 359 tables
@example(players=4, seed=6, page=(20, 16), budget=40)  # 829, one whose new marker meets a tile
@example(players=2, seed=3, page=(24, 36), budget=12)  # 288
@example(players=4, seed=2, page=(48, 40), budget=4000)  # 1,063
@example(players=3, seed=1, page=None, budget=40)  # 756
def test_a_table_carried_on_from_the_one_before_is_what_a_full_search_finds(
    players: int, seed: int, page: tuple[int, int] | None, budget: int
) -> None:
    """Where the table before plus the new tile is taken without a search, a search agrees.

    Every table of a random match, in order, on one page (small ones make the
    search go back and the page grow), with the search's budget or a small
    one (which the search runs out of, so that the page grows): the geometry
    carried on from the table before (``geometry._carried``), where there is
    one, is the one a search from the start finds; where there is none, the
    search (with a memory) finds it too, and keeps its end for the next table.

    Why fifteen matches are enough: each is a whole match, a few hundred tables
    (220 to over 1,000), each one compared with a search from the start, so a
    run compares thousands of tables, carried on and searched. The five fixed
    matches put every page and every budget in every run, the smallest page
    with the server's budget among them (the dearest pairing: a search that
    goes back far on every table, as costly as five of the others); the ten
    drawn ones vary the matches and the pairings from run to run. (Thirty drawn
    matches took 84 s under coverage and left a page out about once in 160 runs.)
    """
    memory = Memory(4096)
    geometry._SHAPES.clear()  # the ends kept there were searched with the budget of their time
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(geometry, "_SEARCH_BUDGET", budget)
        for layout in _match_tables(players, seed):
            fresh = geometry._geometry(layout, page, None)
            carried = geometry._carried(layout, geometry._shape(layout), page)
            if carried is None:
                assert geometry._geometry(layout, page, memory) == fresh
            else:
                assert carried == fresh


def test_most_tables_of_a_server_are_carried_on_without_a_search() -> None:
    """Drawn in turn as a server draws them, most tables are carried on, and the same as before.

    (The tables of ``tests/test_render_golden.py`` on the browser's two pages.)
    """
    golden = pytest.importorskip("test_render_golden")
    geometry._SHAPES.clear()
    memory = Memory(4096)
    carried = searched = 0
    for layout in golden.tables_in_turn():
        for page in ((48, 40), (24, 36)):
            fresh = geometry._geometry(layout, page, None)
            found = geometry._carried(layout, geometry._shape(layout), page)
            if found is None:
                searched += 1
                found = geometry._geometry(layout, page, memory)
            else:
                carried += 1
            assert found == fresh
    assert carried > searched
