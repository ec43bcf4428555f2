"""Shared Hypothesis strategies for the property and stateful tests.

They make matches, positions part-way through a match, tiles, points, moves
(legal or not) and tables. The reference checkers the tests compare the engine with are in
``reference.py``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import cast

from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Draw,
    Layout,
    MatchState,
    Move,
    Pass,
    Place,
    Point,
    Side,
    Tile,
    apply,
    legal_moves,
    new_match,
)
from reference import fits, sides_of

__all__ = [
    "any_moves",
    "layouts",
    "matches",
    "mid_match_states",
    "play",
    "player_counts",
    "points",
    "seeds",
    "tiles",
    "walk",
]


def player_counts() -> st.SearchStrategy[int]:
    """2, 3 or 4 players."""
    return st.sampled_from((2, 3, 4))


def seeds() -> st.SearchStrategy[int]:
    """Any seed ``new_match`` accepts."""
    return st.integers(min_value=0, max_value=2**64 - 1)


def matches() -> st.SearchStrategy[MatchState]:
    """A freshly dealt match of 2, 3 or 4 players."""
    return st.builds(lambda players, seed: new_match(players, seed=seed), player_counts(), seeds())


def tiles() -> st.SearchStrategy[Tile]:
    """Any tile of the double-six set."""
    return st.sampled_from(ALL_TILES)


def points() -> st.SearchStrategy[Point]:
    """Any valid point: a tile with one of the sides it has."""
    return tiles().flatmap(lambda tile: st.sampled_from([Point(tile, s) for s in sides_of(tile)]))


def play(state: MatchState, rng: random.Random, steps: int) -> MatchState:
    """``state`` advanced by up to ``steps`` random legal moves (fewer if the match ends)."""
    for _ in range(steps):
        legal = legal_moves(state)
        if not legal:
            break
        state = apply(state, rng.choice(legal))
    return state


def walk(
    state: MatchState, rng: random.Random, limit: int = 100_000
) -> Iterator[tuple[MatchState, Move, MatchState]]:
    """Every action ``(before, move, after)`` of random legal play from ``state``.

    It stops when the match ends, or after ``limit`` actions (a match that
    long is a bug the caller reports).
    """
    for _ in range(limit):
        legal = legal_moves(state)
        if not legal:
            return
        move = rng.choice(legal)
        after = apply(state, move)
        yield state, move, after
        state = after


@st.composite
def mid_match_states(draw: st.DrawFn, max_steps: int = 700) -> MatchState:
    """A match advanced by a drawn number of random legal moves.

    Up to 700 actions reach past several round ends and sometimes the end of
    the match; the moves are chosen by a ``random.Random`` seeded from the draw.
    """
    state = draw(matches())
    steps = draw(st.integers(min_value=0, max_value=max_steps))
    choices = draw(st.integers(min_value=0, max_value=2**32 - 1))
    return play(state, random.Random(choices), steps)


def _junk_place(tile: object, at: object = None) -> Place:
    """A Place built around something that is not a tile or a point."""
    return Place(cast(Tile, tile), cast("Point | None", at))


def any_moves() -> st.SearchStrategy[object]:
    """Anything that might be passed to ``apply``: moves of every shape, and junk."""
    place = st.builds(Place, tiles(), st.none() | points())
    junk_tiles = st.none() | st.integers() | st.text(max_size=5) | st.just((1, 4))
    junk_points = st.integers() | st.text(max_size=5) | tiles() | st.just(Side.LOW)
    return st.one_of(
        place,
        place,
        st.builds(Draw),
        st.builds(Pass),
        st.none(),
        st.text(max_size=8),
        st.integers(),
        st.builds(_junk_place, junk_tiles, st.none() | points()),
        st.builds(_junk_place, tiles(), junk_points),
    )


@st.composite
def layouts(draw: st.DrawFn) -> tuple[Layout, tuple[tuple[Tile, Point | None], ...]]:
    """A table built by :meth:`Layout.place`, and the placements that built it.

    Tiles come from the whole set, so tables grow past what one round allows
    and the Sniff's branches open often.
    """
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32 - 1)))
    count = draw(st.integers(min_value=0, max_value=28))
    layout = Layout.empty()
    placed: list[tuple[Tile, Point | None]] = []
    unplaced = list(ALL_TILES)
    rng.shuffle(unplaced)
    for _ in range(count):
        if not placed:
            tile = unplaced.pop()
            placed.append((tile, None))
            layout = layout.place(tile)
            continue
        options = [(t, p) for t in unplaced for p in layout.points() if fits(t, p)]
        if not options:
            break
        tile, at = rng.choice(options)
        unplaced.remove(tile)
        placed.append((tile, at))
        layout = layout.place(tile, at)
    return layout, tuple(placed)
