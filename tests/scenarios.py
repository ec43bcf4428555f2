"""Test scenarios shared by several test files, and the short notation they are written in."""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence

from hypothesis import settings

from american_sniff import (
    ALL_TILES,
    Action,
    Deal,
    Layout,
    MatchState,
    Point,
    Tile,
    apply,
    legal_moves,
    new_match,
    parse_move,
    parse_point,
    parse_tile,
)
from american_sniff.bots import random_match

__all__ = [
    "DRAW_DEAL",
    "PASS_DEAL",
    "WORKED_EXAMPLE_STEPS",
    "act",
    "deal",
    "demo_match",
    "first_move_match",
    "last",
    "pt",
    "run",
    "sweep",
    "table",
    "tiles",
]


#: The examples of the ``ci`` Hypothesis profile (tests/conftest.py): a sweep runs whole there.
_CI_EXAMPLES = 30


def sweep(full: int) -> int:
    """How many of a sweep's ``full`` random matches to play under the loaded Hypothesis profile.

    A sweep is a test that plays a fixed number of random matches where a
    property test would draw examples. It honours the profile as the property
    tests do: whole under ``default`` and ``ci`` (the main CI run), a third
    under ``quick`` (another Python, the sdist, the compiled wheel: runs that
    look for what differs between interpreters or builds). Never fewer than one.
    """
    examples = settings().max_examples
    return full if examples >= _CI_EXAMPLES else max(1, full * examples // _CI_EXAMPLES)


def tiles(text: str) -> tuple[Tile, ...]:
    """The tiles written in ``text``, e.g. ``"[1|4] [4|4]"``."""
    return tuple(parse_tile(t) for t in re.findall(r"\[\d\|\d\]", text))


def pt(text: str) -> Point:
    """The point written ``"[1|4] low"`` or ``"[1|1] branch_a"``."""
    return parse_point(text)


def table(*steps: tuple[str, str | None]) -> Layout:
    """The layout after placing each ``(tile, point or None)`` in turn."""
    layout = Layout.empty()
    for tile, at in steps:
        layout = layout.place(parse_tile(tile), None if at is None else pt(at))
    return layout


def deal(hands: Sequence[str], stock: str = "", opener: int | None = 0) -> Deal:
    """A deal of ``hands``; the stock draws ``stock`` first, then the other tiles in set order."""
    dealt = [tiles(hand) for hand in hands]
    first = list(tiles(stock))
    used = {t for hand in dealt for t in hand} | set(first)
    return Deal(hands=dealt, stock=first + [t for t in ALL_TILES if t not in used], opener=opener)


def act(state: MatchState, text: str) -> MatchState:
    """Apply the move written ``text`` (as :func:`parse_move` reads it), checked to be legal.

    The forms are ``"[1|4] opens"``, ``"[1|1] on [1|4] low"``, ``"draw"`` and ``"pass"``.
    """
    move = parse_move(text)
    legal = legal_moves(state)
    assert move in legal, f"{text} is not legal here: {legal}"
    return apply(state, move)


def last(state: MatchState) -> Action:
    """The action that produced ``state`` (which must not be the start of a match)."""
    action = state.last_action
    assert action is not None, "the start of a match has no last action"
    return action


def run(state: MatchState, script: Sequence[str]) -> list[MatchState]:
    """Every state of ``script`` played by :func:`act` from ``state``, the starting one first."""
    states = [state]
    for text in script:
        states.append(act(states[-1], text))
    return states


def random_play(state: MatchState, steps: int, seed: int) -> list[MatchState]:
    """``state`` and up to ``steps`` states after it, each move picked at random from ``seed``."""
    chooser = random.Random(seed)
    states = [state]
    for _ in range(steps):
        if state.winner is not None:
            break
        state = apply(state, chooser.choice(legal_moves(state)))
        states.append(state)
    return states


@functools.cache
def first_move_match(players: int, seed: int, limit: int = 4000) -> tuple[MatchState, ...]:
    """Every state of a seeded match where each player makes its first legal move.

    The match from ``new_match(players, seed=seed)`` is played until it is over
    or ``limit`` states are reached (some such matches never end); the caller
    checks which. The states are cached, so the test files share each match.
    """
    state = new_match(players, seed=seed)
    states = [state]
    while not state.is_over and len(states) < limit:
        state = apply(state, legal_moves(state)[0])
        states.append(state)
    return tuple(states)


@functools.cache
def demo_match(players: int, seed: int) -> tuple[MatchState, ...]:
    """Every state of the match ``american-sniff demo`` plays for these arguments.

    The states are cached, so the test files share each match.
    """
    return tuple(random_match(players, seed))


#: Worked examples 1-9 of the rules are one table, built a tile at a time:
#: each step is (tile, point it is placed on, or None for the opening).
WORKED_EXAMPLE_STEPS: tuple[tuple[str, str | None], ...] = (
    ("[1|4]", None),
    ("[1|1]", "[1|4] low"),
    ("[4|4]", "[1|4] high"),
    ("[3|4]", "[4|4] line_b"),
    ("[1|2]", "[1|1] line_b"),
    ("[1|5]", "[1|1] branch_a"),
    ("[5|5]", "[1|5] high"),
    ("[0|5]", "[5|5] line_b"),
    ("[1|3]", "[1|1] branch_b"),
)

#: Two players. Seat 0 holds every tile showing 0 but [0|3] and opens [0|0]; seat 1
#: holds none, and draws [5|5], [6|6] (neither fits) and then [0|3], which fits.
DRAW_DEAL = deal(
    [
        "[0|0] [0|1] [0|2] [0|4] [0|5] [0|6] [1|1]",
        "[1|2] [1|3] [1|4] [1|5] [1|6] [2|2] [2|3]",
    ],
    stock="[5|5] [6|6] [0|3]",
)

#: Two players. Seat 0 holds all seven 0-tiles and opens [0|0]; nothing else shows a
#: 0, so seat 1 draws all 14 tiles of the stock without a fit and must then pass.
PASS_DEAL = deal(
    [
        "[0|0] [0|1] [0|2] [0|3] [0|4] [0|5] [0|6]",
        "[1|1] [1|2] [1|3] [1|4] [1|5] [1|6] [2|2]",
    ]
)
