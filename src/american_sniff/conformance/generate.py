"""Generate the conformance vectors: ``python -m american_sniff.conformance.generate``.

The vectors shipped in ``american_sniff/conformance/vectors/`` are the output
of this module, and a test checks that they still are. Each vector is written
here as a scenario in the rules' own terms (a placement sequence, some hands,
a deal and a few moves, a seeded match); the expected values come from the
library, through the same protocol session that ``american-sniff engine``
serves, and each scenario also states the outcome it is meant to show (the
refusal code, the sums of the worked examples, a blocked round), which the
generation checks.

Run it with ``--check`` to compare the shipped files with a fresh generation
instead of writing them, and with ``--out DIR`` to write elsewhere.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..bots import random_match
from ..layout import Layout
from ..moves import Place
from ..records import record_match
from ..referee import check_record
from ..rng import below
from ..rules import round_hand
from ..serial import document_header, move_text, parse_tile_text, tile_text
from ..state import MatchState, RoundEnd
from ..tiles import ALL_TILES, Tile
from .loading import KINDS, VECTORS_FORMAT
from .protocol import Session

__all__ = ["build", "dumps", "main"]

#: The widest line :func:`dumps` writes before it breaks a list or an object.
WIDTH = 200


def _tiles(text: str) -> tuple[Tile, ...]:
    """The tiles written in ``text``, e.g. ``"[1|4] [4|4]"``."""
    return tuple(parse_tile_text(tile) for tile in re.findall(r"\[\d\|\d\]", text))


def _ok(session: Session, request: dict[str, Any]) -> dict[str, Any]:
    """The result of a request the scenario expects to succeed, without ``ok``."""
    answer = session.handle(request)
    if not answer.pop("ok"):
        raise AssertionError(f"{request} was refused: {answer}")
    return answer


# -- positions ----------------------------------------------------------------------

#: The placement sequences of the position vectors: (id, description, moves).
POSITIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "worked-examples-1-9",
        "The rules' worked examples 1-9, one table: [1|1] is the Sniff, placed "
        "second; its branches open when [1|2] joins its line B.",
        (
            "[1|4] opens",
            "[1|1] on [1|4] low",
            "[4|4] on [1|4] high",
            "[3|4] on [4|4] line_b",
            "[1|2] on [1|1] line_b",
            "[1|5] on [1|1] branch_a",
            "[5|5] on [1|5] high",
            "[0|5] on [5|5] line_b",
            "[1|3] on [1|1] branch_b",
        ),
    ),
    (
        "worked-example-10",
        "Worked example 10: an opening double is the Sniff; alone it counts both "
        "halves once (4), and its line A and line B are two points.",
        ("[2|2] opens",),
    ),
    (
        "worked-example-11",
        "Worked example 11: [0|0] alone sums 0, which scores nothing (zero is not "
        "a positive multiple of five).",
        ("[0|0] opens",),
    ),
    (
        "worked-example-12",
        "Worked example 12: [6|6] on [3|6] high is the Sniff, a terminal double "
        "worth 12: 3 + 12 = 15.",
        ("[3|6] opens", "[6|6] on [3|6] high"),
    ),
    (
        "worked-example-13",
        "Worked example 13: the Sniff [4|4] opens; after both line sides are "
        "joined each free branch counts 4 (15 scores 15); a tile on a branch.",
        (
            "[4|4] opens",
            "[4|6] on [4|4] line_a",
            "[1|4] on [4|4] line_b",
            "[2|4] on [4|4] branch_a",
        ),
    ),
    (
        "sniff-opening-line-b-first",
        "An opening Sniff joined at line B first: it stays terminal (listed at "
        "line A) until line A is joined too; then both branches open, and once "
        "both are joined the Sniff counts nothing.",
        (
            "[3|3] opens",
            "[3|5] on [3|3] line_b",
            "[1|3] on [3|3] line_a",
            "[3|6] on [3|3] branch_b",
            "[0|3] on [3|3] branch_a",
        ),
    ),
    (
        "sniff-later-branches-after-line-b",
        "A Sniff placed later joins by line A and is terminal (2v) at line B; its "
        "branches open only when line B is joined, each free branch counting v.",
        (
            "[2|5] opens",
            "[5|5] on [2|5] high",
            "[2|6] on [2|5] low",
            "[4|5] on [5|5] line_b",
            "[0|5] on [5|5] branch_b",
            "[3|5] on [5|5] branch_a",
        ),
    ),
    (
        "ordinary-doubles-after-the-sniff",
        "Doubles after the Sniff are ordinary: terminal (2v) at line B, worth "
        "nothing once line B is joined, and never branching.",
        (
            "[1|1] opens",
            "[1|6] on [1|1] line_a",
            "[6|6] on [1|6] high",
            "[1|3] on [1|1] line_b",
            "[3|3] on [1|3] high",
            "[3|6] on [6|6] line_b",
            "[3|4] on [3|3] line_b",
            "[4|4] on [3|4] high",
        ),
    ),
    (
        "zero-valued-ends",
        "Blanks: the blank Sniff counts 0 alone and 0 per free branch; a free "
        "blank end counts 0 and is still listed as a contribution.",
        (
            "[0|0] opens",
            "[0|3] on [0|0] line_a",
            "[0|2] on [0|0] line_b",
            "[0|6] on [0|0] branch_a",
            "[2|5] on [0|2] high",
            "[0|5] on [2|5] high",
            "[0|1] on [0|0] branch_b",
        ),
    ),
    (
        "sum-35-the-best-score",
        "The best scoring placement: three terminal doubles and a free five "
        "around the Sniff [2|2] make 12 + 10 + 8 + 5 = 35, which scores 35.",
        (
            "[2|2] opens",
            "[2|6] on [2|2] line_a",
            "[6|6] on [2|6] high",
            "[2|4] on [2|2] line_b",
            "[4|4] on [2|4] high",
            "[2|5] on [2|2] branch_a",
            "[5|5] on [2|5] high",
            "[2|3] on [2|2] branch_b",
            "[3|5] on [2|3] high",
        ),
    ),
    (
        "sum-36-the-highest-sum",
        "The highest sum: four terminal doubles at the four ends of the Sniff "
        "[2|2] make 12 + 10 + 8 + 6 = 36, which scores nothing.",
        (
            "[2|2] opens",
            "[2|6] on [2|2] line_a",
            "[6|6] on [2|6] high",
            "[2|5] on [2|2] line_b",
            "[5|5] on [2|5] high",
            "[2|4] on [2|2] branch_a",
            "[4|4] on [2|4] high",
            "[2|3] on [2|2] branch_b",
            "[3|3] on [2|3] high",
        ),
    ),
)

#: The end sums the rules text gives for the worked examples, checked on generation.
WORKED_SUMS = {
    "worked-examples-1-9": (5, 6, 10, 5, 7, 11, 16, 6, 8),
    "worked-example-10": (4,),
    "worked-example-11": (0,),
    "worked-example-12": (9, 15),
    "worked-example-13": (8, 14, 15, 13),
    "sum-35-the-best-score": (4, 10, 16, 20, 24, 27, 32, 33, 35),
    "sum-36-the-highest-sum": (4, 10, 16, 21, 26, 28, 32, 33, 36),
}

#: Seeds of the random tables: tiles placed one at a time, each a random fit.
RANDOM_TABLE_SEEDS = (1, 2, 3, 4, 5, 6, 7, 8)


def _random_table(seed: int) -> tuple[str, ...]:
    """A table grown from ``seed``: a random opening, then random fits until none is left."""
    rng = seed
    left = list(ALL_TILES)
    index, rng = below(len(left), rng)
    layout = Layout.empty().place(left.pop(index))
    moves = [move_text(Place(layout.tiles[0]))]
    while True:
        fits = [Place(tile, point) for tile in left for point in layout.fits(tile)]
        if not fits:
            return tuple(moves)
        index, rng = below(len(fits), rng)
        move = fits[index]
        layout = layout.place(move.tile, move.at)
        left.remove(move.tile)
        moves.append(move_text(move))


def _position_vector(ident: str, description: str, moves: Sequence[str]) -> dict[str, Any]:
    session = Session()
    steps: list[dict[str, Any]] = []
    for count in range(1, len(moves) + 1):
        answer = _ok(session, {"cmd": "table", "moves": list(moves[:count])})
        steps.append({"move": moves[count - 1], "expect": answer})
    sums = WORKED_SUMS.get(ident)
    if sums is not None and tuple(step["expect"]["end_sum"] for step in steps) != sums:
        raise AssertionError(f"{ident}: the end sums differ from the rules text's {sums}")
    return {"id": f"positions/{ident}", "description": description, "steps": steps}


def position_vectors() -> list[dict[str, Any]]:
    """The placement sequences, with the table after each step."""
    vectors = [_position_vector(*case) for case in POSITIONS]
    for seed in RANDOM_TABLE_SEEDS:
        moves = _random_table(seed)
        vectors.append(
            _position_vector(
                f"random-table-{seed}",
                f"A table grown at random (seed {seed}): a random opening, then a random "
                f"fitting tile at a random open point, {len(moves)} tiles in all.",
                moves,
            )
        )
    return vectors


# -- settlement ----------------------------------------------------------------------

#: (id, description, players, hands, finisher, scores before).
SETTLEMENTS: tuple[tuple[str, str, int, tuple[str, ...], int | None, tuple[int, ...]], ...] = (
    (
        "rounding-1-and-2-go-down",
        "Worked example 14: a hand of 1 pip loses 0, one of 2 pips loses 0.",
        2,
        ("[0|1]", "[0|2]"),
        None,
        (30, 40),
    ),
    (
        "rounding-3-and-4-go-up",
        "Worked example 14: 3 pips lose 5, 4 pips lose 5.",
        2,
        ("[1|2]", "[0|4]"),
        None,
        (30, 40),
    ),
    (
        "rounding-5-and-7",
        "Worked example 14: 5 pips lose 5 (a multiple stays), 7 pips lose 5.",
        2,
        ("[2|3]", "[3|4]"),
        None,
        (30, 40),
    ),
    (
        "rounding-8-and-10",
        "Worked example 14: 8 pips lose 10; 10 pips lose 10.",
        2,
        ("[2|6]", "[4|6]"),
        None,
        (30, 40),
    ),
    (
        "domino-two-players",
        "Seat 1 went out: its empty hand costs nothing and it gains nothing; "
        "seat 0 loses its 22 pips rounded to 20.",
        2,
        ("[0|0] [3|6] [4|5] [1|3]", ""),
        1,
        (120, 95),
    ),
    (
        "domino-three-players",
        "Seat 0 went out; seats 1 and 2 lose their own rounded hands (13 -> 15, "
        "9 -> 10); seat 0 gains nothing.",
        3,
        ("", "[6|6] [0|1]", "[2|2] [0|5]"),
        0,
        (60, 20, 45),
    ),
    (
        "domino-four-players-partners",
        "Seat 2 went out. Its partner seat 0 still loses its own hand (7 -> 5); "
        "seats 1 and 3 lose 5 + 10 together; nobody gains.",
        4,
        ("[3|4]", "[0|3]", "", "[4|5]"),
        2,
        (100, 80),
    ),
    (
        "partners-rounded-apart-3-and-3",
        "Four players, blocked: partners holding 3 pips each lose 5 + 5 = 10 "
        "(never pooled to 6 -> 5 first).",
        4,
        ("[1|2]", "[0|1]", "[0|3]", "[0|0]"),
        None,
        (50, 50),
    ),
    (
        "partners-rounded-apart-2-and-2",
        "Four players, blocked: partners holding 2 pips each lose 0 + 0 (never "
        "pooled to 4 -> 5 first).",
        4,
        ("[0|2]", "[0|6] [1|5]", "[1|1]", "[2|4] [3|3]"),
        None,
        (50, 50),
    ),
    (
        "blocked-three-players-below-zero",
        "Three players, blocked: every hand is rounded and deducted; scores may go below zero.",
        3,
        ("[5|6] [4|6]", "[3|5]", "[2|6] [1|6] [0|4]"),
        None,
        (10, 0, -5),
    ),
    (
        "blocked-two-players-big-hands",
        "Two players, blocked after long draws: big hands, scores below zero.",
        2,
        ("[0|0] [1|1] [2|2] [3|3] [4|4] [5|5] [6|6] [0|6] [1|6]", "[2|5] [3|4] [1|2] [0|1]"),
        None,
        (15, 0),
    ),
    (
        "empty-hands-lose-nothing",
        "Four players, blocked with two empty hands: an empty hand loses 0.",
        4,
        ("", "[6|6]", "[1|3]", ""),
        None,
        (0, 0),
    ),
)

#: The rounding of worked example 14, checked on generation.
_ROUNDING = {1: 0, 2: 0, 3: 5, 4: 5, 5: 5, 7: 5, 8: 10}


def settlement_vectors() -> list[dict[str, Any]]:
    """Revealed hands with their rounded deductions and the sides' totals."""
    if any(round_hand(pips) != lost for pips, lost in _ROUNDING.items()):
        raise AssertionError("round_hand differs from worked example 14")
    vectors = []
    for ident, description, players, hands, finisher, scores in SETTLEMENTS:
        request = {
            "players": players,
            "hands": [[tile_text(t) for t in _tiles(hand)] for hand in hands],
            "finisher": finisher,
            "scores": list(scores),
        }
        answer = _ok(Session(), {"cmd": "settle", **request})
        vectors.append(
            {"id": f"settlement/{ident}", "description": description, **request, "expect": answer}
        )
    return vectors


# -- refusals ----------------------------------------------------------------------------


def _deal(hands: Sequence[str], opener: int, stock: str = "") -> dict[str, Any]:
    """A deal: ``hands``, then ``stock`` drawn first, then the other tiles in set order."""
    dealt = [sorted(_tiles(hand), key=lambda tile: tile.index) for hand in hands]
    first = list(_tiles(stock))
    used = {tile for hand in dealt for tile in hand} | set(first)
    rest = [tile for tile in ALL_TILES if tile not in used]
    return {
        "hands": [[tile_text(t) for t in hand] for hand in dealt],
        "stock": [tile_text(t) for t in first + rest],
        "opener": opener,
    }


#: Two players. Seat 0 opens; the opening, a later Sniff ([4|4]) and an
#: ordinary double ([2|2]) come up in the first moves.
_TABLE_DEAL = _deal(
    ["[1|4] [1|1] [4|4] [0|0] [2|6] [3|5] [4|6]", "[1|2] [3|4] [1|5] [2|2] [0|2] [0|4] [3|3]"], 0
)
_OPENED = ("[1|4] opens",)
#: [4|4] is the Sniff, joined at line A only: its branches are not open yet.
_HALF_SNIFF = ("[1|4] opens", "[1|2] on [1|4] low", "[4|4] on [1|4] high")
#: The Sniff's branches are open; [2|2] is an ordinary double with both lines joined.
_TWO_DOUBLES = (
    *_HALF_SNIFF,
    "[3|4] on [4|4] line_b",
    "[3|5] on [3|4] low",
    "[2|2] on [1|2] high",
    "[2|6] on [2|2] line_b",
)
#: Two players. Seat 0 opens [0|0]; seat 1 holds no blank and draws [5|5] and
#: [6|6] (no fit), then [0|3], which fits.
_DRAW_DEAL = _deal(
    ["[0|0] [0|1] [0|2] [0|4] [0|5] [0|6] [1|1]", "[1|2] [1|3] [1|4] [1|5] [1|6] [2|2] [2|3]"],
    0,
    stock="[5|5] [6|6] [0|3]",
)
#: Two players. Seat 0 holds every blank and opens [0|0]; seat 1 draws all 14
#: tiles without a fit and must then pass.
_PASS_DEAL = _deal(
    ["[0|0] [0|1] [0|2] [0|3] [0|4] [0|5] [0|6]", "[1|1] [1|2] [1|3] [1|4] [1|5] [1|6] [2|2]"], 0
)
#: Four players; seat 1 opens.
_FOUR_DEAL = _deal(["[1|3]", "[1|1] [1|4]", "", ""], 1)
#: Three players; seat 2 opens.
_THREE_DEAL = _deal(["[1|4] [0|0] [2|2]", "[1|1] [1|2] [0|1]", "[1|3] [5|5] [6|6] [4|6]"], 2)


def _fill(deal: dict[str, Any], sizes: Sequence[int]) -> dict[str, Any]:
    """``deal`` with hands topped up to ``sizes`` from the front of its stock."""
    stock = list(deal["stock"])
    hands = []
    for hand, size in zip(deal["hands"], sizes, strict=True):
        extra = size - len(hand)
        hands.append(sorted([*hand, *stock[:extra]], key=lambda t: parse_tile_text(t).index))
        del stock[:extra]
    return {"hands": hands, "stock": stock, "opener": deal["opener"]}


_FOUR = _fill(_FOUR_DEAL, (5, 5, 5, 5))
_THREE = _fill(_THREE_DEAL, (6, 6, 6))

#: The refusal scenarios, by the position they start from: (new request fields, moves
#: before, cases), each case (id, description, the illegal move, its code).
_REFUSALS_BY_POSITION: tuple[
    tuple[dict[str, Any], tuple[str, ...], tuple[tuple[str, str, str, str], ...]], ...
] = (
    (
        {"players": 2, "deals": [_TABLE_DEAL]},
        (),
        (
            (
                "opener-cannot-draw",
                "The opener must place a tile; drawing is refused.",
                "draw",
                "must_place",
            ),
            (
                "opener-cannot-pass",
                "The opener must place a tile; passing is refused.",
                "pass",
                "must_place",
            ),
            (
                "opening-names-no-point",
                "The opening tile is placed on no point.",
                "[1|4] on [1|4] high",
                "opening_has_no_point",
            ),
            (
                "opening-tile-of-another-seat",
                "The opener may open with any tile of its own hand only.",
                "[1|2] opens",
                "not_in_hand",
            ),
            ("text-not-a-move", "A text of none of the move forms.", "play [1|4]", "not_a_move"),
            (
                "tile-written-high-first",
                "Tiles are written low half first: [4|1] is not a tile of the notation.",
                "[4|1] opens",
                "not_a_tile",
            ),
            (
                "tile-off-the-set",
                "[7|7] is not a tile of the double-six set.",
                "[7|7] opens",
                "not_a_tile",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_TABLE_DEAL]},
        _OPENED,
        (
            (
                "side-a-non-double-lacks",
                "A non-double has only low and high ends: [1|4] line_a is not a point.",
                "[1|2] on [1|4] line_a",
                "not_a_point",
            ),
            (
                "side-that-does-not-exist",
                "middle is not a side.",
                "[1|2] on [1|4] middle",
                "not_a_point",
            ),
            (
                "placement-without-point",
                "Once the table has a tile, a placement names its point.",
                "[1|2] opens",
                "point_required",
            ),
            (
                "point-of-a-tile-not-on-the-table",
                "[4|4] is not on the table, so its line B is no open point.",
                "[3|4] on [4|4] line_b",
                "point_not_open",
            ),
            (
                "values-differ",
                "[2|2] shows no 1 for [1|4] low.",
                "[2|2] on [1|4] low",
                "values_differ",
            ),
            (
                "tile-of-the-other-seat",
                "[1|1] fits [1|4] low but is seat 0's; seat 1 is to move.",
                "[1|1] on [1|4] low",
                "not_in_hand",
            ),
            (
                "draw-while-able-to-place",
                "Seat 1 holds tiles that fit, so it must place: drawing is refused.",
                "draw",
                "must_place",
            ),
            (
                "pass-while-able-to-place",
                "Seat 1 holds tiles that fit, so it must place: passing is refused.",
                "pass",
                "must_place",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_TABLE_DEAL]},
        _HALF_SNIFF,
        (
            (
                "branch-before-line-b-is-joined",
                "The Sniff [4|4] was placed later and is joined at line A only: its "
                "branches are not open yet.",
                "[3|4] on [4|4] branch_a",
                "point_not_open",
            ),
            (
                "joined-line-side",
                "[1|4] low is joined (by [1|2]): it is no longer a point.",
                "[1|5] on [1|4] low",
                "point_not_open",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_TABLE_DEAL]},
        _TWO_DOUBLES,
        (
            (
                "ordinary-double-has-no-branches",
                "[2|2] came after the Sniff [4|4]: with both its line sides joined it "
                "still offers no branch.",
                "[0|2] on [2|2] branch_a",
                "point_not_open",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_TABLE_DEAL]},
        (*_TWO_DOUBLES, "[0|4] on [4|4] branch_a"),
        (
            (
                "joined-branch",
                "Once a tile lies on the Sniff's branch A, branch A is no point.",
                "[4|6] on [4|4] branch_a",
                "point_not_open",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_DRAW_DEAL]},
        ("[0|0] opens",),
        (
            (
                "pass-while-the-stock-has-tiles",
                "Seat 1 holds no blank: it must draw, not pass.",
                "pass",
                "must_draw",
            ),
            (
                "place-instead-of-drawing",
                "Seat 1 cannot place: a placement of a tile that does not fit is refused.",
                "[1|2] on [0|0] line_a",
                "values_differ",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_DRAW_DEAL]},
        ("[0|0] opens", "draw", "draw", "draw"),
        (
            (
                "another-tile-after-a-fitting-draw",
                "Seat 1 drew [0|3], which fits: it must place that tile, no other.",
                "[1|2] on [0|0] line_a",
                "must_place_drawn",
            ),
            (
                "draw-again-after-a-fitting-draw",
                "Seat 1 drew [0|3], which fits: it may not draw again.",
                "draw",
                "must_place_drawn",
            ),
            (
                "pass-after-a-fitting-draw",
                "Seat 1 drew [0|3], which fits: it may not pass.",
                "pass",
                "must_place_drawn",
            ),
            (
                "drawn-tile-on-a-branch-not-open",
                "The drawn [0|3] goes on a line side of the lone Sniff [0|0]; its branches are "
                "not open.",
                "[0|3] on [0|0] branch_a",
                "point_not_open",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_PASS_DEAL]},
        ("[0|0] opens", *(["draw"] * 14)),
        (
            (
                "draw-from-the-empty-stock",
                "Seat 1 drew all 14 tiles without a fit: the stock is empty, it must pass.",
                "draw",
                "stock_empty",
            ),
        ),
    ),
    (
        {"players": 2, "deals": [_TABLE_DEAL], "scores": [245, 0]},
        _OPENED,
        (
            (
                "move-after-the-match-is-won",
                "Seat 0 starts at 245 and opens [1|4] for 5: it reaches 250 and wins; "
                "nothing more is applied.",
                "[1|2] on [1|4] low",
                "match_over",
            ),
        ),
    ),
    (
        {"players": 4, "deals": [_FOUR], "scores": [150, 195], "round": 4},
        _OPENED,
        (
            (
                "draw-after-the-match-is-won",
                "Four players: seat 1 opens [1|4] for 5 and its side reaches 200 from 195; "
                "even a draw is refused after that.",
                "draw",
                "match_over",
            ),
        ),
    ),
    (
        {"players": 4, "deals": [_FOUR]},
        ("[1|1] opens",),
        (
            (
                "partner-tile",
                "Four players: seat 2 may not place a tile its partner (seat 0) holds.",
                "[1|4] on [1|1] line_a",
                "not_in_hand",
            ),
        ),
    ),
    (
        {"players": 3, "deals": [_THREE]},
        ("[1|3] opens",),
        (
            (
                "three-players-turn-order",
                "Three players: after seat 2 opens, seat 0 moves; seat 1's tile is not seat 0's.",
                "[1|2] on [1|3] low",
                "not_in_hand",
            ),
        ),
    ),
)

#: (id, description, new request fields, moves before, the illegal move, its code).
REFUSALS: tuple[tuple[str, str, dict[str, Any], tuple[str, ...], str, str], ...] = tuple(
    (ident, description, start, moves, move, code)
    for start, moves, cases in _REFUSALS_BY_POSITION
    for ident, description, move, code in cases
)

#: Illegal placements on a bare table (the ``table`` request):
#: (id, description, placements before, the illegal placement, its code).
TABLE_REFUSALS: tuple[tuple[str, str, tuple[str, ...], str, str], ...] = (
    (
        "table-tile-already-placed",
        "A tile lies on the table once: [1|1] cannot be placed again.",
        ("[1|4] opens", "[1|1] on [1|4] low"),
        "[1|1] on [1|4] high",
        "already_on_table",
    ),
    (
        "table-opening-names-no-point",
        "The opening tile is placed on no point.",
        (),
        "[1|4] on [1|4] low",
        "opening_has_no_point",
    ),
    (
        "table-placement-without-point",
        "On a table with a tile, a placement names its point.",
        ("[2|2] opens",),
        "[2|5] opens",
        "point_required",
    ),
    (
        "table-branch-of-a-lone-sniff",
        "A lone opening Sniff offers its two line sides, not its branches.",
        ("[2|2] opens",),
        "[2|5] on [2|2] branch_b",
        "point_not_open",
    ),
    (
        "table-branch-with-one-line-joined",
        "The opening Sniff with one line side joined: branches still closed.",
        ("[2|2] opens", "[2|5] on [2|2] line_a"),
        "[2|6] on [2|2] branch_a",
        "point_not_open",
    ),
    (
        "table-values-differ",
        "[3|5] shows no 2 for [2|2] line_b.",
        ("[2|2] opens", "[2|5] on [2|2] line_a"),
        "[3|5] on [2|2] line_b",
        "values_differ",
    ),
)


def refusal_vectors() -> list[dict[str, Any]]:
    """Positions with an illegal move each, and the refusal code the rules give it."""
    vectors = []
    for ident, description, start, moves, move, code in REFUSALS:
        session = Session()
        _ok(session, {"cmd": "new", **start})
        for before in moves:
            _ok(session, {"cmd": "move", "move": before})
        legal = _ok(session, {"cmd": "legal"})["moves"]
        answer = session.handle({"cmd": "move", "move": move})
        if answer.get("code") != code:
            raise AssertionError(f"refusals/{ident}: {move!r} gives {answer}, not {code}")
        vectors.append(
            {
                "id": f"refusals/{ident}",
                "description": description,
                "start": start,
                "moves": list(moves),
                "move": move,
                "expect": {"code": code, "legal_moves": legal},
            }
        )
    for ident, description, placements, move, code in TABLE_REFUSALS:
        answer = Session().handle({"cmd": "table", "moves": [*placements, move]})
        if answer.get("code") != code or answer.get("index") != len(placements):
            raise AssertionError(f"refusals/{ident}: {move!r} gives {answer}, not {code}")
        vectors.append(
            {
                "id": f"refusals/{ident}",
                "description": description,
                "table": list(placements),
                "move": move,
                "expect": {"code": code},
            }
        )
    return vectors


# -- whole matches --------------------------------------------------------------------

#: Seeded matches between the random bots of ``american-sniff demo`` (seat k's
#: bot seeded seed + k + 1), chosen for what they show: (players, seed, what).
MATCHES: tuple[tuple[int, int, str], ...] = (
    (2, 320, "a blocked round and a score below zero"),
    (2, 228, "a blocked round, scores below zero, and a win with the last tile (no settlement)"),
    (3, 312, "a blocked round and scores below zero"),
    (3, 124, "scores below zero and a win with the last tile"),
    (4, 258, "a blocked round, a partnership below zero, and a win with the last tile"),
    (4, 264, "a blocked round and a partnership ending below zero"),
)


def _play(players: int, seed: int) -> list[MatchState]:
    """Every state of the demo's match for ``players`` and ``seed``, the first one first."""
    return list(random_match(players, seed))


def match_vectors() -> list[dict[str, Any]]:
    """Whole seeded matches, each as the match record ``american-sniff demo --record`` writes."""
    vectors = []
    for players, seed, shows in MATCHES:
        states = _play(players, seed)
        _check_match_shows(shows, states)
        record = record_match(states)
        report = check_record(record)
        if not report.ok:
            raise AssertionError(f"the record of seed {seed} is not valid: {report}")
        vectors.append(
            {
                "id": f"matches/{players}-players-seed-{seed}",
                "description": (
                    f"The match of 'american-sniff demo --players {players} --seed {seed}', "
                    f"{len(record.rounds)} rounds, {record.action_count} actions: {shows}."
                ),
                "record": record.to_dict(),
            }
        )
    return vectors


def _check_match_shows(shows: str, states: Sequence[MatchState]) -> None:
    """Check that a match (its states, first to last) shows what :data:`MATCHES` says."""
    final = states[-1]
    results = [s.last_round for s in states if s.last_round is not None]
    claims = {
        "a blocked round": any(r.end is RoundEnd.BLOCKED for r in results),
        "below zero": any(min(s.scores) < 0 for s in states),
        "the last tile": not final.hands[final.turn],
    }
    for words, holds in claims.items():
        if (words in shows) != holds:
            raise AssertionError(f"the match meant to show {shows!r}: {words!r} is {holds}")


# -- writing ---------------------------------------------------------------------------


def build() -> dict[str, dict[str, Any]]:
    """Every vector file, by file name, as JSON documents."""
    makers = {
        "positions": position_vectors,
        "settlement": settlement_vectors,
        "refusals": refusal_vectors,
        "matches": match_vectors,
    }
    assert tuple(makers) == KINDS
    return {
        f"{kind}.json": {
            **document_header(VECTORS_FORMAT),
            "kind": kind,
            "vectors": make(),
        }
        for kind, make in makers.items()
    }


def dumps(value: Any, width: int = WIDTH) -> str:
    """``value`` as JSON text; a list or object that fits in ``width`` columns stays on one line.

    >>> print(dumps({"a": [1, 2], "b": ["x", "y"]}, width=20))
    {
      "a": [1, 2],
      "b": ["x", "y"]
    }
    """
    return _dumps(value, width, 0, 0)


def _dumps(value: Any, width: int, indent: int, lead: int) -> str:
    """``value`` at ``indent``, after ``lead`` characters of its line (a key)."""
    flat = json.dumps(value, separators=(", ", ": "), ensure_ascii=False)
    if indent + lead + len(flat) <= width or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            name = json.dumps(key) + ": "
            items.append(pad + name + _dumps(item, width, indent + 2, len(name)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + _dumps(item, width, indent + 2, 0) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _shipped() -> Path:
    return Path(__file__).with_name("vectors")


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the vector files; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m american_sniff.conformance.generate",
        description="Generate the conformance vectors from the library.",
    )
    parser.add_argument("--out", type=Path, default=_shipped(), help="directory to write to")
    parser.add_argument(
        "--check", action="store_true", help="compare the files instead of writing them"
    )
    args = parser.parse_args(argv)
    stale = []
    for name, doc in build().items():
        text = dumps(doc) + "\n"
        path = args.out / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            args.out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"out of date: {', '.join(stale)} (regenerate them)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
