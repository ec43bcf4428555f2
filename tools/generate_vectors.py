"""Generate the conformance vectors: ``python tools/generate_vectors.py``.

A tool of the repository, not of the package: the wheel holds the vectors it
writes, not it. The vectors shipped in ``american_sniff/conformance/vectors/``
are its output, and a test checks that they still are. Each vector is written
here as a scenario in the rules' own terms (a placement sequence, some hands,
a deal and a few moves, a seeded match) and kept as its requests, each with
the library's whole answer (the engine's own choices left out: see
:mod:`american_sniff.conformance.compare`), from the same protocol session
that ``american-sniff engine`` serves. Each scenario also states the
outcome it is meant to show (the refusal code, the sums of the worked
examples, a blocked round), which the generation checks. The inputs it shares
with the fuzzer (the bad lines and requests, JSON's corners) are data of
:mod:`american_sniff.conformance.inputs`.

Run it with ``--check`` to compare the shipped files with a fresh generation
instead of writing them, and with ``--out DIR`` to write elsewhere.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from american_sniff._json import pretty_json
from american_sniff.bots import random_match
from american_sniff.conformance.compare import expected_answer
from american_sniff.conformance.coverage import coverage
from american_sniff.conformance.inputs import (
    BAD_LINES,
    BAD_REQUESTS,
    BAD_SEEDS,
    JSON_CORNERS,
    NEW,
    NOT_UTF8,
    SEED_TEXTS,
    TABLE_DEAL,
    deal_of,
    filled,
)
from american_sniff.conformance.kit import LocalEngine, perft
from american_sniff.conformance.loading import KINDS, VECTORS_FORMAT, VECTORS_FORMAT_VERSION
from american_sniff.conformance.protocol import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    MAX_ROUND,
    MIN_SCORE,
    Session,
    serve,
)
from american_sniff.engine import legal_moves
from american_sniff.layout import Layout
from american_sniff.moves import Place, parse_move
from american_sniff.records import MatchRecord, OpenerBy, record_match
from american_sniff.referee import check_record
from american_sniff.replayer import Problem, step
from american_sniff.rng import below, next_u64
from american_sniff.rules import HAND_SIZE, RULES_VERSION, TARGET, round_hand, settle
from american_sniff.serial import move_text, tile_text
from american_sniff.state import MatchState, RoundEnd
from american_sniff.tiles import ALL_TILES, Tile, parse_tile

__all__ = ["build", "dumps", "main", "seed_giving", "unmix"]

#: The widest line :func:`dumps` writes before it breaks a list or an object.
WIDTH = 200


def _tiles(text: str) -> tuple[Tile, ...]:
    """The tiles written in ``text``, e.g. ``"[1|4] [4|4]"``."""
    return tuple(parse_tile(tile, strict=True) for tile in re.findall(r"\[\d\|\d\]", text))


class Script:
    """A vector's steps as they are made: each request sent to a fresh library session.

    Every step holds the request (or a raw ``line``) and the library's whole
    answer less the engine's own choices (:func:`~.compare.expected_answer`).
    """

    def __init__(self) -> None:
        self.session = Session()
        self.steps: list[dict[str, Any]] = []

    def ask(self, request: dict[str, Any], at: str) -> dict[str, Any]:
        """Send ``request``, keep the step, and return the library's whole answer."""
        answer: dict[str, Any] = json.loads(self.session.handle_line(json.dumps(request)))
        expect = expected_answer(request.get("cmd"), answer)
        self.steps.append({"at": at, "request": request, "expect": expect})
        return answer

    def ok(self, request: dict[str, Any], at: str) -> dict[str, Any]:
        """:meth:`ask` a request the scenario expects to succeed."""
        answer = self.ask(request, at)
        if not answer["ok"]:
            raise AssertionError(f"{at}: {request} was refused: {answer}")
        return answer

    def line(self, line: str, at: str) -> dict[str, Any]:
        """Send the raw text ``line`` (the kit adds the newline); keep the step."""
        answer: dict[str, Any] = json.loads(self.session.handle_line(line.encode("utf-8")))
        self.steps.append({"at": at, "line": line, "expect": expected_answer(None, answer)})
        return answer

    def raw(self, data: bytes, at: str) -> dict[str, Any]:
        """Send the bytes ``data`` as a line (a ``line_hex`` step, not UTF-8); keep the step."""
        answer: dict[str, Any] = json.loads(self.session.handle_line(data))
        self.steps.append(
            {"at": at, "line_hex": data.hex(), "expect": expected_answer(None, answer)}
        )
        return answer

    def vector(self, ident: str, description: str, requires: Sequence[str] = ()) -> dict[str, Any]:
        """The vector of these steps."""
        return {
            "id": ident,
            "description": description,
            "requires": list(requires),
            "steps": self.steps,
        }


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
RANDOM_TABLE_SEEDS = (1, 2, 3, 4)


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
    script = Script()
    sums = []
    for count in range(1, len(moves) + 1):
        request = {"cmd": "table", "moves": list(moves[:count])}
        sums.append(script.ok(request, f"placement {count} ({moves[count - 1]})")["end_sum"])
    expected = WORKED_SUMS.get(ident)
    if expected is not None and tuple(sums) != expected:
        raise AssertionError(f"{ident}: the end sums differ from the rules text's {expected}")
    return script.vector(f"positions/{ident}", description)


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
    """Revealed hands, their rounded deductions and the sides' totals (by ``rules.settle``)."""
    if any(round_hand(pips) != lost for pips, lost in _ROUNDING.items()):
        raise AssertionError("round_hand differs from worked example 14")
    vectors = []
    for ident, description, players, hands, finisher, scores in SETTLEMENTS:
        tiles = [_tiles(hand) for hand in hands]
        request = {
            "cmd": "settle",
            "players": players,
            "hands": [[tile_text(t) for t in hand] for hand in tiles],
            "finisher": finisher,
            "scores": list(scores),
        }
        script = Script()
        answer = script.ok(request, "settle")
        deductions, after = settle(players, scores, [sum(t.pips for t in hand) for hand in tiles])
        if answer["deductions"] != list(deductions) or answer["scores"] != list(after):
            raise AssertionError(f"settlement/{ident}: the session differs from rules.settle")
        vectors.append(script.vector(f"settlement/{ident}", description))
    return vectors


# -- refusals ----------------------------------------------------------------------------

_deal = deal_of
_fill = filled
_TABLE_DEAL = TABLE_DEAL


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


_FOUR = _fill(_FOUR_DEAL, (5, 5, 5, 5))
#: Seat 1 of the draw deal has just drawn [0|3], which fits.
_DRAWN = ("[0|0] opens", "draw", "draw", "draw")
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


def _refusal_script(
    ident: str, start: dict[str, Any], moves: Sequence[str], move: str, code: str
) -> Script:
    """A refusal scenario's steps: the position, the refused move, and the unchanged match."""
    script = Script()
    script.ok({"cmd": "new", **start}, "new")
    for number, before in enumerate(moves, start=1):
        script.ok({"cmd": "move", "move": before}, f"move {number} of the position ({before})")
    script.ask({"cmd": "legal"}, "before the refused move: legal")
    script.ask({"cmd": "state"}, "before the refused move: state")
    answer = script.ask({"cmd": "move", "move": move}, f"the refused move ({move})")
    if answer.get("code") != code:
        raise AssertionError(f"{ident}: {move!r} gives {answer}, not {code}")
    script.ask({"cmd": "state"}, "after the refused move: state")
    script.ask({"cmd": "legal"}, "after the refused move: legal")
    return script


def _table_refusal_script(ident: str, placements: Sequence[str], move: str, code: str) -> Script:
    script = Script()
    answer = script.ask({"cmd": "table", "moves": [*placements, move]}, f"table ({move})")
    if answer.get("code") != code or answer.get("index") != len(placements):
        raise AssertionError(f"{ident}: {move!r} gives {answer}, not {code}")
    return script


#: Texts that are no move, each refused by the move-text grammar of
#: docs/protocol.md with its code (the docs list the same texts).
MOVE_TEXTS: tuple[tuple[str, str], ...] = (
    ("Draw", "not_a_move"),
    ("draw ", "not_a_move"),
    ("", "not_a_move"),
    ("[1|4]", "not_a_move"),
    ("[1|4] open", "not_a_move"),
    ("opens", "not_a_move"),
    ("[1|4] opens ", "not_a_move"),
    ("[1|4]on [1|1] line_a", "not_a_move"),
    (" opens", "not_a_tile"),
    ("[1|4]  opens", "not_a_tile"),
    ("[4|1] opens", "not_a_tile"),
    ("[7|7] opens", "not_a_tile"),
    ("[ 1|4] opens", "not_a_tile"),
    (" on [1|1] line_a", "not_a_tile"),
    ("[4|1] on [9|9] middle", "not_a_tile"),
    ("[1|4] on [1|1] line_a opens", "not_a_tile"),
    ("[1|4] on [9|9] line_a", "not_a_point"),
    ("[1|4] on [1|1]", "not_a_point"),
    ("[1|4] on ", "not_a_point"),
    ("[1|4] on [1|1] low", "not_a_point"),
    ("[1|4] on [1|4] line_a", "not_a_point"),
    ("[1|4] on [1|1] LINE_A", "not_a_point"),
    ("[1|4] on [1|1] line_a ", "not_a_point"),
    ("[1|4] on  [1|1] line_a", "not_a_point"),
    ("[1|4] on [1|4]high", "not_a_point"),
    ("[1|4] on [1|1] line_a on [1|1] line_b", "not_a_point"),
)


def _move_text_vector() -> dict[str, Any]:
    """Every refused text of the grammar's cases, sent as a move; the match stays as it was."""
    script = Script()
    script.ok({"cmd": "new", "players": 2, "deals": [_TABLE_DEAL]}, "new")
    script.ok({"cmd": "move", "move": _OPENED[0]}, f"move 1 of the position ({_OPENED[0]})")
    for text, code in MOVE_TEXTS:
        if script.ask({"cmd": "move", "move": text}, f"the move text {text!r}").get("code") != code:
            raise AssertionError(f"refusals/move-texts: {text!r} is not {code}")
    script.ok({"cmd": "state"}, "after the refused texts: state")
    return script.vector(
        "refusals/move-texts",
        "The refused cases of the move-text grammar (docs/protocol.md), each with its code.",
    )


def refusal_vectors() -> list[dict[str, Any]]:
    """Positions with an illegal move each, and the refusal code the rules give it."""
    vectors = []
    for ident, description, start, moves, move, code in REFUSALS:
        script = _refusal_script(ident, start, moves, move, code)
        vectors.append(script.vector(f"refusals/{ident}", description))
    for ident, description, placements, move, code in TABLE_REFUSALS:
        script = _table_refusal_script(ident, placements, move, code)
        vectors.append(script.vector(f"refusals/{ident}", description))
    vectors.append(_move_text_vector())
    return vectors


# -- refusal order ------------------------------------------------------------------------

#: For every adjacent pair of the documented refusal order whose two rules can
#: both be broken by one move: (first code, second code, description, where).
#: ``where`` is a match scenario (new request fields, moves before, the move) or
#: a bare table (placements before, the placement).
ORDER_PAIRS: tuple[tuple[str, str, str, tuple[Any, ...]], ...] = (
    (
        "match_over",
        "not_a_move",
        "After the match is won, a text of no move form is refused as match_over.",
        ({"players": 2, "deals": [_TABLE_DEAL], "scores": [245, 0]}, _OPENED, "play [1|4]"),
    ),
    (
        "not_a_tile",
        "not_a_point",
        "[4|1] is not a tile and [1|1] has no low side: the tile is named first.",
        ({"players": 2, "deals": [_TABLE_DEAL]}, _OPENED, "[4|1] on [1|1] low"),
    ),
    (
        "not_a_point",
        "not_in_hand",
        "[0|0] is seat 0's and [1|4] has no line_a: the text is checked before the hand.",
        ({"players": 2, "deals": [_TABLE_DEAL]}, _OPENED, "[0|0] on [1|4] line_a"),
    ),
    (
        "not_in_hand",
        "must_place_drawn",
        "Seat 1 drew the fitting [0|3] and places seat 0's [0|1]: not in its hand, first.",
        ({"players": 2, "deals": [_DRAW_DEAL]}, _DRAWN, "[0|1] on [0|0] line_a"),
    ),
    (
        "must_place_drawn",
        "point_required",
        "Seat 1 drew the fitting [0|3] and writes another tile of its hand as an opening.",
        ({"players": 2, "deals": [_DRAW_DEAL]}, _DRAWN, "[1|2] opens"),
    ),
    (
        "opening_has_no_point",
        "point_not_open",
        "The opener names a point on the empty table, where no point is open.",
        ({"players": 2, "deals": [_TABLE_DEAL]}, (), "[1|4] on [4|4] line_b"),
    ),
    (
        "point_not_open",
        "values_differ",
        "[4|4] is not on the table, and [0|2] shows no 4 either.",
        ({"players": 2, "deals": [_TABLE_DEAL]}, _OPENED, "[0|2] on [4|4] line_b"),
    ),
    (
        "must_place_drawn",
        "must_place",
        "Seat 1 drew the fitting [0|3] (so it can place) and draws again.",
        ({"players": 2, "deals": [_DRAW_DEAL]}, _DRAWN, "draw"),
    ),
    (
        "must_place",
        "stock_empty",
        "Seat 1 drew the whole stock; seat 0 can place, and tries to draw from the empty stock.",
        ({"players": 2, "deals": [_PASS_DEAL]}, ("[0|0] opens", *(["draw"] * 14), "pass"), "draw"),
    ),
    (
        "already_on_table",
        "point_required",
        "On a bare table, [1|4] is placed again, written as an opening.",
        (("[1|4] opens",), "[1|4] opens"),
    ),
)

#: Adjacent pairs of the order that no single move can break together, and why.
ORDER_EXCLUSIVE: tuple[tuple[str, str, str], ...] = (
    ("not_a_move", "not_a_tile", "a text with no move form has no tile to judge"),
    ("must_place_drawn", "already_on_table", "in a match a tile on the table is in no hand"),
    ("point_required", "point_not_open", "a placement written as an opening names no point"),
    ("must_place", "must_draw", "a player who can place need not draw"),
    ("already_on_table", "opening_has_no_point", "on the empty table no tile is on the table"),
)


def order_exclusive() -> list[dict[str, str]]:
    """:data:`ORDER_EXCLUSIVE` as the order file ships it, under ``exclusive``.

    Each entry is ``{"first": CODE, "second": CODE, "why": TEXT}``: an
    adjacent pair of the documented refusal order that no single move can
    break together, so that no ``order/...`` vector exists for it.
    """
    return [
        {"first": first, "second": second, "why": why} for first, second, why in ORDER_EXCLUSIVE
    ]


def order_vectors() -> list[dict[str, Any]]:
    """A move breaking both rules of every adjacent pair of the refusal order."""
    vectors = []
    for first, second, description, where in ORDER_PAIRS:
        ident = f"order/{first}-before-{second}"
        if len(where) == 3:
            start, moves, move = where
            script = _refusal_script(ident, start, moves, move, first)
            breaks = _second_rule_broken(start, moves, move, first, second)
        else:
            placements, move = where
            script = _table_refusal_script(ident, placements, move, first)
            breaks = second == "point_required"  # the table holds a tile: a point is needed
        if not breaks:
            raise AssertionError(f"{ident}: the move does not break {second}")
        vectors.append(script.vector(ident, f"{first} before {second}: {description}"))
    return vectors


def _second_rule_broken(
    start: dict[str, Any], moves: Sequence[str], move: str, first: str, second: str
) -> bool:
    """Whether ``move`` also breaks the rule of ``second`` (checked with the rule alone)."""
    session = Session()
    _ok(session, {"cmd": "new", **start})
    state = session.state
    assert state is not None
    for before in moves:
        after = step(state, state.turn, parse_move(before, strict=True))
        if isinstance(after, Problem):
            raise AssertionError(f"{start}: {after.describe(before)}")
        state = after
    legal = [move_text(m) for m in legal_moves(state)] if state.winner is None else []
    hand = {tile_text(t) for t in state.hands[state.turn]}
    words = move.split()
    checks = {
        "not_a_move": lambda: not _MOVE_FORM.fullmatch(move),
        "not_a_point": lambda: len(words) == 4 and f"{words[2]} {words[3]}" not in _POINTS,
        "not_in_hand": lambda: words[0] not in hand,
        "must_place_drawn": lambda: state.drawn is not None,
        "point_required": lambda: move.endswith(" opens") and bool(state.layout.tiles),
        "point_not_open": lambda: (
            len(words) == 4
            and f"{words[2]} {words[3]}" not in {str(p) for p in state.layout.points()}
        ),
        "values_differ": lambda: (
            len(words) == 4 and _point_value(f"{words[2]} {words[3]}") not in _halves(words[0])
        ),
        "must_place": lambda: any(m not in ("draw", "pass") for m in legal),
        "stock_empty": lambda: state.stock_size == 0,
    }
    return checks[second]()


_MOVE_FORM = re.compile(r"(\[\d\|\d\] (opens|on \[\d\|\d\] \w+))|draw|pass")
_POINTS = {
    f"{tile_text(t)} {side}"
    for t in ALL_TILES
    for side in (
        ("line_a", "line_b", "branch_a", "branch_b") if t.low == t.high else ("low", "high")
    )
}


def _halves(text: str) -> tuple[int, int]:
    tile = parse_tile(text, strict=True)
    return tile.low, tile.high


def _point_value(point: str) -> int:
    tile = parse_tile(point.split(maxsplit=1)[0], strict=True)
    return tile.high if point.endswith(" high") else tile.low


# -- robustness --------------------------------------------------------------------------

_NEW = NEW


def robustness_vectors() -> list[dict[str, Any]]:
    """Malformed lines and requests, the bounds of new, no match, and deals that run out."""
    vectors = []
    script = Script()
    for what, line in BAD_LINES:
        if script.line(line, what)["error"] != "bad_json":
            raise AssertionError(f"robustness: {what} is not bad_json")
    vectors.append(
        script.vector(
            "robustness/bad-json",
            "Every kind of line that is not one JSON object, as the docs list them: bad_json.",
        )
    )
    script = Script()
    script.ok(_NEW, "new: the match the bad requests must leave alone")
    for what, request in BAD_REQUESTS:
        if script.ask(request, what)["ok"]:
            raise AssertionError(f"robustness: {what} was answered ok")
    script.ok({"cmd": "state"}, "state: the match is as before")
    vectors.append(
        script.vector(
            "robustness/bad-requests",
            "Unknown commands and keys, wrong types, bad versions, deals, seeds and "
            "settlements, and the bounds of new: each its error kind; the match stays.",
        )
    )
    script = Script()
    script.ok(_NEW, "new: the match the bad seeds must leave alone")
    for what, request in BAD_SEEDS:
        if script.ask(request, what)["error"] != "invalid_deal":
            raise AssertionError(f"robustness: {what} is not invalid_deal")
    script.ok({"cmd": "state"}, "state: the match is as before")
    vectors.append(
        script.vector(
            "robustness/bad-seeds",
            "Seeds that are not decimal texts of 0 to 2**64 - 1: invalid_deal.",
            requires=("seed",),
        )
    )
    script = Script()
    for request in (
        {**_NEW, "round": MAX_ROUND, "scores": [245, MIN_SCORE]},
        {**_NEW, "round": None, "scores": None},
        {**_NEW, "round": 1, "scores": [0, 0]},
    ):
        script.ok(request, f"new (round {request['round']}, scores {request['scores']})")
        script.ok({"cmd": "state"}, "state")
    vectors.append(
        script.vector(
            "robustness/bounds-of-new",
            f"new at its bounds: round {MAX_ROUND} and a score of {MIN_SCORE}; null and "
            "explicit defaults.",
        )
    )
    script = Script()
    script.ok({"cmd": "hello", "protocol_version": 1}, "hello")
    for cmd in ("legal", "move", "state"):
        request = {"cmd": cmd, "move": "pass"} if cmd == "move" else {"cmd": cmd}
        if script.ask(request, f"{cmd} before any new")["error"] != "no_match":
            raise AssertionError(f"robustness: {cmd} before new is not no_match")
    script.ok({"cmd": "table", "moves": []}, "table: needs no match")
    script.ok({"cmd": "quit"}, "quit")
    vectors.append(
        {
            **script.vector(
                "robustness/no-match",
                "A fresh engine: legal, move and state before any new answer no_match; "
                "table needs no match; quit answers ok.",
            ),
            "fresh": True,
        }
    )
    vectors.append(_deals_run_out())
    vectors.extend(_blocked_last_deal(*case) for case in BLOCKED_LAST_DEALS)
    vectors.extend(long_line_vectors())
    vectors.extend(nesting_vectors())
    vectors.extend(protocol_question_vectors())
    return vectors


def _deals_run_out() -> dict[str, Any]:
    """The first round of a demo match, given as the only deal, played to its end."""
    record = record_match(_play(2, 320))
    first = record.rounds[0]
    script = Script()
    script.ok({"cmd": "new", "players": 2, "deals": _record_deals(record)[:1]}, "new")
    for index, action in enumerate(first.actions):
        text = move_text(action.move)
        script.ok({"cmd": "move", "move": text}, f"round 1, action {index + 1} ({text})")
    for cmd in ("legal", "state", "move"):
        request = {"cmd": cmd, "move": "pass"} if cmd == "move" else {"cmd": cmd}
        if script.ask(request, f"{cmd} after the last deal")["error"] != "no_deal":
            raise AssertionError("robustness: the deals did not run out")
    script.ok(_NEW, "a new match after the deals ran out")
    script.ok({"cmd": "legal"}, "legal")
    return script.vector(
        "robustness/deals-run-out",
        "A match of one deal: the move that ends the round answers turn null and the next "
        "round's number; legal, state and move then answer no_deal; new starts afresh.",
    )


# -- the protocol's settled questions ------------------------------------------------------
#
# docs/protocol.md settles what an engine might otherwise guess: a deal's opener
# left out, hello's null rules version, a table's moves read in order, the
# error kinds' precedence, settle's refusals. Each has a vector here, named by
# what it settles.

#: The deal of _TABLE_DEAL with no ``opener`` key at all.
_NO_OPENER = {key: value for key, value in _TABLE_DEAL.items() if key != "opener"}

#: A request of an :data:`ERROR_PAIRS` case: a request object, or a raw line.
_Sent = dict[str, Any] | str

#: The adjacent pairs of the error kinds' precedence (docs/protocol.md, "The
#: order of the error kinds") that one request can break together: (first,
#: second, what the vector shows, where it starts, where the second kind is
#: shown, its cases). A scenario starts on a fresh engine (``"fresh"``: no
#: match yet), after ``new`` (``"match"``) or after the match's deals ran out
#: (``"ran out"``). A case is (what, the request, the request repaired): the
#: request must be answered with the first kind, and the repaired one, which
#: breaks only the second rule, with the second kind where it is shown (the
#: generation checks both; only the request is kept in the vector).
ERROR_PAIRS: tuple[tuple[str, str, str, str, str, tuple[tuple[str, _Sent, _Sent], ...]], ...] = (
    (
        "bad_json",
        "bad_request",
        "a line that the protocol's JSON refuses and whose request is also malformed is "
        "bad_json: the line is read before the request.",
        "match",
        "match",
        (
            (
                "an unknown command, and a float",
                '{"cmd": "undo", "players": 2.0}',
                '{"cmd": "undo", "players": 2}',
            ),
            (
                "no command, and a repeated key",
                '{"players": 2, "players": 3}',
                '{"players": 2}',
            ),
            ("a missing key, and a byte-order mark", '\ufeff{"cmd": "move"}', '{"cmd": "move"}'),
            (
                "an unknown key, and an integer beyond 2**53 - 1",
                '{"cmd": "legal", "x": 9007199254740992}',
                '{"cmd": "legal", "x": 9007199254740991}',
            ),
        ),
    ),
    (
        "bad_request",
        "unsupported",
        "a hello of another protocol version with a key of the wrong type or an unknown "
        "key is bad_request: the request's shape is checked before its versions.",
        "match",
        "match",
        (
            (
                "protocol 2, and a rules version that is a number",
                {"cmd": "hello", "protocol_version": 2, "rules_version": 2},
                {"cmd": "hello", "protocol_version": 2, "rules_version": "2"},
            ),
            (
                "protocol 2, and an unknown key",
                {"cmd": "hello", "protocol_version": 2, "debug": True},
                {"cmd": "hello", "protocol_version": 2},
            ),
        ),
    ),
    (
        "bad_request",
        "invalid_deal",
        "a new that cannot start a match and is also malformed is bad_request: the whole "
        "shape, deals included, is checked before the match is set up.",
        "match",
        "match",
        (
            (
                "five players, and an unknown key",
                {"cmd": "new", "players": 5, "seed": "1", "variant": "x"},
                {"cmd": "new", "players": 5, "seed": "1"},
            ),
            (
                "a bad seed, and a round that is a string",
                {"cmd": "new", "players": 2, "seed": "abc", "round": "1"},
                {"cmd": "new", "players": 2, "seed": "abc", "round": 1},
            ),
            (
                "a short hand, and an opener that is a string",
                {**_NEW, "deals": [{**_fill(_TABLE_DEAL, (6, 7)), "opener": "0"}]},
                {**_NEW, "deals": [_fill(_TABLE_DEAL, (6, 7))]},
            ),
            (
                "no opener and no seed, and an unknown key in the deal",
                {**_NEW, "deals": [{**_NO_OPENER, "dealer": 0}]},
                {**_NEW, "deals": [_NO_OPENER]},
            ),
        ),
    ),
    (
        "bad_request",
        "no_match",
        "before any new, a malformed legal, move or state is bad_request, not no_match.",
        "fresh",
        "fresh",
        (
            ("move without its move", {"cmd": "move"}, {"cmd": "move", "move": "pass"}),
            ("legal with an unknown key", {"cmd": "legal", "verbose": True}, {"cmd": "legal"}),
            ("state with an unknown key", {"cmd": "state", "seat": 0}, {"cmd": "state"}),
            (
                "move with a move that is not a string",
                {"cmd": "move", "move": None},
                {"cmd": "move", "move": "pass"},
            ),
        ),
    ),
    (
        "bad_request",
        "no_deal",
        "after the deals ran out, a malformed legal, move or state is bad_request, not no_deal.",
        "ran out",
        "ran out",
        (
            ("move without its move", {"cmd": "move"}, {"cmd": "move", "move": "pass"}),
            ("legal with an unknown key", {"cmd": "legal", "verbose": True}, {"cmd": "legal"}),
            ("state with an unknown key", {"cmd": "state", "seat": 0}, {"cmd": "state"}),
        ),
    ),
    (
        "bad_request",
        "illegal_move",
        "a move or a table that the rules refuse, in a malformed request, is bad_request; "
        "in a table, the type of every move is checked before any placement.",
        "match",
        "match",
        (
            (
                "a draw the opener may not make, and an unknown key",
                {"cmd": "move", "move": "draw", "x": 1},
                {"cmd": "move", "move": "draw"},
            ),
            (
                "an illegal placement, and an unknown key",
                {"cmd": "table", "moves": ["[1|4] on [1|1] low"], "x": 1},
                {"cmd": "table", "moves": ["[1|4] on [1|1] low"]},
            ),
            (
                "an illegal placement, then a move that is not a string",
                {"cmd": "table", "moves": ["[4|1] opens", 5]},
                {"cmd": "table", "moves": ["[4|1] opens", "[1|4] opens"]},
            ),
        ),
    ),
    (
        "no_match",
        "illegal_move",
        "before any new, a move that the rules refuse in any match is no_match.",
        "fresh",
        "match",
        (
            (
                "a text of no move form",
                {"cmd": "move", "move": "Draw"},
                {"cmd": "move", "move": "Draw"},
            ),
            (
                "a tile that is not one",
                {"cmd": "move", "move": "[7|7] opens"},
                {"cmd": "move", "move": "[7|7] opens"},
            ),
        ),
    ),
    (
        "no_deal",
        "illegal_move",
        "after the deals ran out, a move that the rules refuse in any match is no_deal.",
        "ran out",
        "match",
        (
            (
                "a text of no move form",
                {"cmd": "move", "move": "Draw"},
                {"cmd": "move", "move": "Draw"},
            ),
            (
                "a tile that is not one",
                {"cmd": "move", "move": "[7|7] opens"},
                {"cmd": "move", "move": "[7|7] opens"},
            ),
        ),
    ),
)


def _ran_out(script: Script) -> None:
    """Play, in ``script``, the one-deal match of :func:`_deals_run_out` until its deals ran out."""
    record = record_match(_play(2, 320))
    script.ok({"cmd": "new", "players": 2, "deals": _record_deals(record)[:1]}, "new")
    for index, action in enumerate(record.rounds[0].actions):
        text = move_text(action.move)
        script.ok({"cmd": "move", "move": text}, f"round 1, action {index + 1} ({text})")
    if script.ask({"cmd": "state"}, "state after the last deal")["error"] != "no_deal":
        raise AssertionError("the deals did not run out")


def _started(start: str) -> Script:
    """A script at the start of an :data:`ERROR_PAIRS` scenario."""
    script = Script()
    if start == "fresh":
        script.ok({"cmd": "hello", "protocol_version": 1}, "hello")
    elif start == "ran out":
        _ran_out(script)
    else:
        script.ok(_NEW, "new: the match the requests must leave alone")
    return script


def _send(script: Script, sent: _Sent, at: str) -> dict[str, Any]:
    return script.line(sent, at) if isinstance(sent, str) else script.ask(sent, at)


def error_order_vectors() -> list[dict[str, Any]]:
    """A request breaking both rules of every adjacent pair of the error kinds' precedence."""
    vectors = []
    for first, second, description, start, shown, cases in ERROR_PAIRS:
        script = _started(start)
        for what, sent, repaired in cases:
            answer = _send(script, sent, what)
            alone = _send(_started(shown), repaired, what)
            if answer.get("error") != first or alone.get("error") != second:
                raise AssertionError(f"{first} before {second}: {what}: {answer}, {alone}")
        if start == "fresh":
            if script.ask({"cmd": "legal"}, "legal: still no match")["error"] != "no_match":
                raise AssertionError(f"{first} before {second}: a match was started")
        elif start == "match":
            script.ok({"cmd": "state"}, "state: the match is as before")
        vector = script.vector(
            f"robustness/{first}-before-{second}", f"{first} before {second}: {description}"
        )
        vectors.append({**vector, "fresh": True} if start == "fresh" else vector)
    return vectors


def protocol_question_vectors() -> list[dict[str, Any]]:
    """The vectors of the questions docs/protocol.md settles, other than the error order."""
    vectors = error_order_vectors()

    script = Script()
    for what, request, kind in (
        (
            "rules_version null: no check",
            {"cmd": "hello", "protocol_version": 1, "rules_version": None},
            None,
        ),
        ("rules_version left out: no check", {"cmd": "hello", "protocol_version": 1}, None),
        (
            "rules_version as a number",
            {"cmd": "hello", "protocol_version": 1, "rules_version": 1},
            "bad_request",
        ),
        ("protocol_version null", {"cmd": "hello", "protocol_version": None}, "bad_request"),
        ("protocol_version as a string", {"cmd": "hello", "protocol_version": "1"}, "bad_request"),
    ):
        if script.ask(request, what).get("error") != kind:
            raise AssertionError(f"hello: {what} is not {kind}")
    vectors.append(
        script.vector(
            "robustness/hello-null-rules-version",
            "hello's rules_version may be null, as if left out (the engine names its own); "
            "protocol_version may not, and neither may be of another type.",
        )
    )

    script = Script()
    second = {**_TABLE_DEAL, "opener": 1}
    for what, request in (
        ("a deal without opener, no seed", {**_NEW, "deals": [_NO_OPENER]}),
        ("a second deal without opener, no seed", {**_NEW, "deals": [_TABLE_DEAL, _NO_OPENER]}),
    ):
        if script.ask(request, what)["error"] != "invalid_deal":
            raise AssertionError(f"deal without opener: {what} is not invalid_deal")
    script.ok({**_NEW, "deals": [_TABLE_DEAL, second]}, "every deal with an opener")
    script.ok({"cmd": "state"}, "state")
    vectors.append(
        script.vector(
            "robustness/deal-without-opener",
            "A deal may leave out its opener, which is then null; without a seed every deal "
            "needs one, even a deal whose round a finisher will open: invalid_deal.",
        )
    )

    script = Script()
    for what, moves, kind in (
        (
            "an illegal placement, then a draw",
            ["[1|4] opens", "[2|2] on [1|4] low", "draw"],
            "illegal_move",
        ),
        (
            "a draw, then an illegal placement",
            ["[1|4] opens", "draw", "[2|2] on [1|4] low"],
            "bad_request",
        ),
        ("a text of no move form, then a pass", ["[1|4] opens", "[1|4]", "pass"], "illegal_move"),
        ("a pass, then a text of no move form", ["[1|4] opens", "pass", "[1|4]"], "bad_request"),
        ("a draw first, then a tile twice", ["draw", "[1|4] opens", "[1|4] opens"], "bad_request"),
    ):
        if script.ask({"cmd": "table", "moves": moves}, what)["error"] != kind:
            raise AssertionError(f"table: {what} is not {kind}")
    vectors.append(
        script.vector(
            "robustness/table-reads-moves-in-order",
            "A table reads its moves in order and stops at the first it cannot place: an "
            "illegal placement (illegal_move, its index) or a draw or pass (bad_request).",
        )
    )

    script = Script()
    hands = [["[1|4]"], []]
    for what, request in (
        ("five players", {"cmd": "settle", "players": 5, "hands": [[]] * 5}),
        ("one player", {"cmd": "settle", "players": 1, "hands": [[]]}),
        ("players 0", {"cmd": "settle", "players": 0, "hands": []}),
        (
            "a tile written high half first",
            {"cmd": "settle", "players": 2, "hands": [["[4|1]"], []]},
        ),
        ("a tile beyond 6", {"cmd": "settle", "players": 2, "hands": [["[7|7]"], []]}),
        ("a tile without brackets", {"cmd": "settle", "players": 2, "hands": [["[1|4]"], ["1|2"]]}),
        ("a tile with a space", {"cmd": "settle", "players": 2, "hands": [["[1|4] "], []]}),
        (
            "a finisher off the table",
            {"cmd": "settle", "players": 2, "hands": hands, "finisher": 2},
        ),
        ("a negative finisher", {"cmd": "settle", "players": 2, "hands": hands, "finisher": -1}),
    ):
        if script.ask(request, what)["error"] != "bad_request":
            raise AssertionError(f"settle: {what} is not bad_request")
    script.ok(
        {"cmd": "settle", "players": 2, "hands": [["[1|4]"], ["[0|2]"]], "scores": [12, -7]},
        "a blocked round's settlement: scores need not be multiples of 5",
    )
    vectors.append(
        script.vector(
            "robustness/settle-bad-players-and-tiles",
            "settle refuses players other than 2, 3 or 4, a malformed tile and a finisher "
            "that is not a seat, each as bad_request; its scores may be any integers.",
        )
    )

    script = Script()
    script.ok({"cmd": "hello", "protocol_version": 1}, "hello")
    if script.ask({**_NEW, "players": 5}, "a refused new")["error"] != "invalid_deal":
        raise AssertionError("a refused new: not invalid_deal")
    for cmd in ("legal", "state"):
        if script.ask({"cmd": cmd}, f"{cmd}: still no match")["error"] != "no_match":
            raise AssertionError("a refused new started a match")
    vectors.append(
        {
            **script.vector(
                "robustness/refused-new-starts-nothing",
                "A fresh engine: a refused new starts no match, so legal and state still "
                "answer no_match.",
            ),
            "fresh": True,
        }
    )
    return vectors


def _deal_without_opener_seeded() -> dict[str, Any]:
    """Two deals without opener and a seed: the lot drawn only where one is due.

    Round 1 draws its lot from the seed; a finisher opens round 2, so its
    missing opener draws nothing, and round 3 is dealt from where the
    generator stood after round 1's lot. Each move is the first legal move in
    text order.
    """
    seed = "1"
    script = Script()
    opened = script.ok(
        {"cmd": "new", "players": 2, "deals": [_NO_OPENER, _NO_OPENER], "seed": seed}, "new"
    )
    if opened["opener"] != 1:
        raise AssertionError("the deal without opener: seed 1 was meant to draw seat 1")
    ends = []
    for number in (1, 2):
        index = 0
        while True:
            legal = script.ok(
                {"cmd": "legal"}, f"round {number}, action {index + 1}, before: legal"
            )
            move = sorted(legal["moves"])[0]
            answer = script.ok(
                {"cmd": "move", "move": move}, f"round {number}, action {index + 1} ({move})"
            )
            if answer["round_end"] is not None:
                ends.append(answer["round_end"])
                break
            index += 1
        script.ok({"cmd": "state"}, f"round {number + 1}: state")
    if ends[0]["end"] != "domino":
        raise AssertionError("the deal without opener: round 1 was meant to end with a domino")
    script.ok({"cmd": "legal"}, "round 3, from the seed: legal")
    return script.vector(
        "seeds/deal-without-opener",
        "Two deals without opener and a seed: round 1's lot is drawn from the seed; round 2 "
        "follows a domino, so its finisher opens and no lot is drawn; round 3 is dealt from "
        "the seed.",
        requires=("seed",),
    )


# -- seeded deals ------------------------------------------------------------------------

#: Seeded matches: (players, seed, rounds to play, what it shows).
SEEDS: tuple[tuple[int, int, int, str], ...] = (
    (2, 0, 2, "seed 0"),
    (3, (1 << 53) - 1, 2, "seed 2**53 - 1"),
    (4, (1 << 53) + 1, 2, "seed 2**53 + 1: a blocked round, then a fresh lot"),
    (2, (1 << 64) - 1, 2, "seed 2**64 - 1, the largest"),
)


def seed_vectors() -> list[dict[str, Any]]:
    """Matches dealt from a seed, played by the demo's bots; needs the ``seed`` feature."""
    vectors = []
    for players, seed, rounds, shows in SEEDS:
        script = Script()
        script.ok({"cmd": "new", "players": players, "seed": str(seed)}, "new")
        states = _play(players, seed)
        blocked = False
        number, index = 1, 0
        for state in states[1:]:
            action = state.last_action
            assert action is not None
            text = move_text(action.move)
            where = f"round {number}, action {index + 1}"
            script.ok({"cmd": "legal"}, f"{where}, before ({text}): legal")
            answer = script.ok({"cmd": "move", "move": text}, f"{where} ({text})")
            script.ok({"cmd": "state"}, f"{where}, after ({text}): state")
            end = answer["round_end"]
            blocked = blocked or (end is not None and end["end"] == "blocked")
            number, index = (number + 1, 0) if end is not None else (number, index + 1)
            if state.round > rounds or state.winner is not None:
                break
        script.ok({"cmd": "legal"}, "the next round: legal")
        if "blocked" in shows and not blocked:
            raise AssertionError(f"seeds: seed {seed} was meant to show {shows!r}")
        vectors.append(
            script.vector(
                f"seeds/{players}-players-seed-{seed}",
                f"{players} players from {shows}: every hand, draw and opener of "
                f"{rounds} rounds, as SplitMix64 and the shuffle deal them.",
                requires=("seed",),
            )
        )
    vectors.append(_deals_then_seed({**_TABLE_DEAL, "opener": None}, "42"))
    vectors.extend(rejection_vectors())
    vectors.append(_deal_without_opener_seeded())
    return vectors


def _deals_then_seed(deal: dict[str, Any], seed: str) -> dict[str, Any]:
    """A deal with no opener (the seed draws its lot), played out; the next round from the seed.

    Each move is the first legal move in text order, so the round ends (every
    round does) without any chance.
    """
    script = Script()
    script.ok({"cmd": "new", "players": 2, "deals": [deal], "seed": seed}, "new")
    index = 0
    while True:
        moves = sorted(
            script.ok({"cmd": "legal"}, f"round 1, action {index + 1}, before: legal")["moves"]
        )
        answer = script.ok(
            {"cmd": "move", "move": moves[0]}, f"round 1, action {index + 1} ({moves[0]})"
        )
        script.ok({"cmd": "state"}, f"round 1, action {index + 1}, after: state")
        if answer["round_end"] is not None or answer["winner"] is not None:
            break
        index += 1
    script.ok({"cmd": "legal"}, "round 2, from the seed: legal")
    return script.vector(
        f"seeds/deals-then-seed-{seed}",
        "A given deal with a null opener, whose lot the seed draws, played out (the first "
        "legal move in text order each time); the next round is dealt from the seed.",
        requires=("seed",),
    )


# -- perft -------------------------------------------------------------------------------

#: Perft starts: (id, description, new request fields, depth).
PERFTS: tuple[tuple[str, str, dict[str, Any], int], ...] = (
    (
        "two-players-opening",
        "Two players from the opening: openings, fits, and a later Sniff.",
        {"players": 2, "deals": [_TABLE_DEAL]},
        4,
    ),
    (
        "two-players-draws",
        "Two players, seat 1 holding no blank: draws that miss, then a drawn tile that fits.",
        {"players": 2, "deals": [_DRAW_DEAL]},
        5,
    ),
    (
        "three-players",
        "Three players from the opening.",
        {"players": 3, "deals": [_THREE]},
        4,
    ),
    (
        "four-players",
        "Four players from the opening.",
        {"players": 4, "deals": [_FOUR]},
        4,
    ),
)


def perft_vectors() -> list[dict[str, Any]]:
    """Counts of the action sequences of each depth from fixed deals, and the divide."""
    vectors = []
    for ident, description, start, depth in PERFTS:
        counts, divide = perft(LocalEngine(), start, depth)
        vectors.append(
            {
                "id": f"perft/{ident}",
                "description": description,
                "requires": [],
                "start": start,
                "depth": depth,
                "counts": counts,
                "divide": [
                    {"move": move, "count": count} for move, count in sorted(divide.items())
                ],
            }
        )
    return vectors


# -- whole matches --------------------------------------------------------------------

#: Seeded matches between the random bots of ``american-sniff demo`` (seat k's
#: bot seeded seed + k + 1), chosen for what they show: (players, seed, what).
MATCHES: tuple[tuple[int, int, str], ...] = (
    (2, 228, "a blocked round, scores below zero, and a win with the last tile (no settlement)"),
    (3, 312, "a blocked round and scores below zero"),
    (4, 258, "a blocked round, a partnership below zero, and a win with the last tile"),
)


def _play(players: int, seed: int) -> list[MatchState]:
    """Every state of the demo's match for ``players`` and ``seed``, the first one first."""
    return list(random_match(players, seed))


def _match_script(record: MatchRecord, deals: list[dict[str, Any]]) -> Script:
    """The steps of playing ``record`` from ``deals``: legal, move and state at every action."""
    script = Script()
    script.ok({"cmd": "new", "players": record.players, "deals": deals}, "new")
    for played in record.rounds:
        for index, action in enumerate(played.actions):
            text = move_text(action.move)
            where = f"round {played.round}, action {index + 1}"
            script.ok({"cmd": "legal"}, f"{where}, before ({text}): legal")
            script.ok({"cmd": "move", "move": text}, f"{where} ({text})")
            script.ok({"cmd": "state"}, f"{where}, after ({text}): state")
    script.ok({"cmd": "legal"}, "after the match: legal")
    script.ask({"cmd": "move", "move": "pass"}, "after the match: move")
    return script


def _record_deals(record: MatchRecord) -> list[dict[str, Any]]:
    """The deals of ``record``'s rounds, as the ``new`` request takes them.

    Where the finisher of the round before opens, the deal's opener must be
    ignored; a decoy (the next seat) there catches an engine that uses it.
    """
    players = record.players
    return [
        {
            "hands": [[tile_text(t) for t in hand] for hand in played.hands],
            "stock": [tile_text(t) for t in played.stock],
            "opener": (played.opener + 1) % players
            if played.opener_by is OpenerBy.FINISHER
            else played.opener,
        }
        for played in record.rounds
    ]


def match_vectors() -> list[dict[str, Any]]:
    """Whole seeded matches, played from their deals: every answer at every action."""
    vectors = []
    for players, seed, shows in MATCHES:
        states = _play(players, seed)
        _check_match_shows(shows, states)
        record = record_match(states)
        report = check_record(record)
        if not report.ok:
            raise AssertionError(f"the record of seed {seed} is not valid: {report}")
        vector = _match_script(record, _record_deals(record)).vector(
            f"matches/{players}-players-seed-{seed}",
            f"The match of 'american-sniff demo --players {players} --seed {seed}', "
            f"{len(record.rounds)} rounds, {record.action_count} actions, played from "
            f"its deals (a decoy opener where the finisher opens): {shows}.",
        )
        vectors.append(vector)
    vectors.extend(won_by_seat_vectors())
    vectors.extend(stuck_next_seat_vectors())
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


# -- vectors for the coverage classes ------------------------------------------------------
#
# Each class of ``coverage.CLASSES`` must be reached by some vector; these add
# the ones the vectors above did not reach (see docs/conformance.md, Coverage).

#: Single rounds of the demo's matches that end as no other vector's round
#: does: (players, seed, round number, "domino" or "blocked", the seat whose
#: move ends it). Each is played from its deal alone, so the deals then run out.
ROUND_ENDS: tuple[tuple[int, int, int, str, int], ...] = (
    (2, 793, 1, "blocked", 1),
    (3, 1, 1, "domino", 2),
    (3, 935, 12, "blocked", 1),
    (3, 443, 6, "blocked", 2),
    (4, 1022, 2, "blocked", 2),
    (4, 109, 7, "blocked", 3),
)


def round_end_vectors() -> list[dict[str, Any]]:
    """Rounds that end by every seat's move, played from their deals: each move's answer."""
    vectors = []
    for players, seed, number, end, seat in ROUND_ENDS:
        played = record_match(_play(players, seed)).rounds[number - 1]
        deal = {
            "hands": [[tile_text(t) for t in hand] for hand in played.hands],
            "stock": [tile_text(t) for t in played.stock],
            "opener": played.opener,
        }
        script = Script()
        script.ok({"cmd": "new", "players": players, "deals": [deal]}, "new")
        answer: dict[str, Any] = {}
        for index, action in enumerate(played.actions):
            text = move_text(action.move)
            where = f"round 1, action {index + 1}"
            script.ok({"cmd": "legal"}, f"{where}, before ({text}): legal")
            answer = script.ok({"cmd": "move", "move": text}, f"{where} ({text})")
            script.ask({"cmd": "state"}, f"{where}, after ({text}): state")
        got = answer.get("round_end") or {}
        if got.get("end") != end or answer.get("seat") != seat:
            raise AssertionError(f"round {number} of seed {seed} does not end {end} by {seat}")
        script.ask({"cmd": "legal"}, "after the round: legal")
        script.ask({"cmd": "move", "move": "pass"}, "after the round: move")
        vectors.append(
            script.vector(
                f"matches/{players}-players-{end}-by-seat-{seat}",
                f"Round {number} of 'american-sniff demo --players {players} --seed {seed}', "
                f"played from its deal alone (legal, move and state at every action): seat "
                f"{seat}'s move ends it ({end}); then the deals have run out.",
            )
        )
    return vectors


def _win_deal(players: int, seat: int) -> dict[str, Any]:
    """A deal for ``players`` where ``seat`` opens and holds [1|4] (an opening worth 5)."""
    hands = [""] * players
    hands[seat] = "[1|4]"
    return _fill(_deal(hands, seat), [HAND_SIZE[players]] * players)


def win_vectors() -> list[dict[str, Any]]:
    """A match won by each seat with 2 and 3 players: the opening's 5 points reach the target."""
    vectors = []
    for players in (2, 3):
        for seat in range(players):
            scores = [0] * players
            scores[seat] = TARGET[players] - 5
            script = Script()
            start = {"cmd": "new", "players": players, "deals": [_win_deal(players, seat)]}
            script.ok({**start, "scores": scores}, "new")
            script.ok({"cmd": "legal"}, "round 1, action 1, before ([1|4] opens): legal")
            answer = script.ok(
                {"cmd": "move", "move": "[1|4] opens"}, "round 1, action 1 ([1|4] opens)"
            )
            if answer["winner"] != seat:
                raise AssertionError(f"seat {seat} of {players} does not win")
            script.ok({"cmd": "state"}, "round 1, action 1, after ([1|4] opens): state")
            script.ok({"cmd": "legal"}, "after the match: legal")
            script.ask({"cmd": "move", "move": "pass"}, "after the match: move")
            vectors.append(
                script.vector(
                    f"matches/{players}-players-won-by-seat-{seat}",
                    f"{players} players: seat {seat} starts 5 short of {TARGET[players]} and "
                    "opens [1|4] for 5: it wins, and the match is over.",
                )
            )
    return vectors


#: Two players. Seat 0 opens [1|4]; seat 1 holds no 1 and no 4, draws [1|2],
#: which fits [1|4] low but not [1|4] high.
_DRAWN_ONE_END = _deal(
    ["[1|4] [0|1] [0|4] [1|1] [4|4] [1|5] [4|5]", "[0|0] [0|2] [0|3] [2|2] [2|3] [3|3] [5|5]"],
    0,
    stock="[1|2]",
)

#: Every refusal code in each position it can arise in (coverage.REFUSAL_POSITIONS):
#: (position, description, new request fields, moves before, cases of (move, code)).
CODES_BY_POSITION: tuple[
    tuple[str, str, dict[str, Any], tuple[str, ...], tuple[tuple[str, str], ...]], ...
] = (
    (
        "opening",
        "The opener on the empty table",
        {"players": 2, "deals": [_TABLE_DEAL]},
        (),
        (
            ("play [1|4]", "not_a_move"),
            ("[4|1] opens", "not_a_tile"),
            ("[1|4] on [1|4] line_a", "not_a_point"),
            ("[1|2] opens", "not_in_hand"),
            ("[1|4] on [1|1] line_a", "opening_has_no_point"),
            ("draw", "must_place"),
            ("pass", "must_place"),
        ),
    ),
    (
        "must-draw",
        "Seat 1 cannot place on the lone [0|0] and the stock has tiles",
        {"players": 2, "deals": [_DRAW_DEAL]},
        ("[0|0] opens",),
        (
            ("play", "not_a_move"),
            ("[2|1] on [0|0] line_a", "not_a_tile"),
            ("[1|2] on [0|0] low", "not_a_point"),
            ("[0|1] on [0|0] line_a", "not_in_hand"),
            ("[1|2] opens", "point_required"),
            ("[1|2] on [0|0] branch_a", "point_not_open"),
            ("[1|2] on [0|0] line_b", "values_differ"),
            ("pass", "must_draw"),
        ),
    ),
    (
        "must-pass",
        "Seat 1 drew the whole stock without a fit: it cannot place and cannot draw",
        {"players": 2, "deals": [_PASS_DEAL]},
        ("[0|0] opens", *(["draw"] * 14)),
        (
            ("Pass", "not_a_move"),
            ("[7|1] opens", "not_a_tile"),
            ("[1|1] on [0|0] high", "not_a_point"),
            ("[0|1] on [0|0] line_a", "not_in_hand"),
            ("[1|1] opens", "point_required"),
            ("[1|1] on [0|0] branch_b", "point_not_open"),
            ("[1|1] on [0|0] line_a", "values_differ"),
            ("draw", "stock_empty"),
        ),
    ),
    (
        "drawn-fits",
        "Seat 1 drew [1|2], which fits [1|4] low only",
        {"players": 2, "deals": [_DRAWN_ONE_END]},
        ("[1|4] opens", "draw"),
        (
            ("[1|2] on", "not_a_move"),
            ("[2|1] on [1|4] low", "not_a_tile"),
            ("[1|2] on [1|4] line_a", "not_a_point"),
            ("[0|1] on [1|4] low", "not_in_hand"),
            ("[0|0] on [1|4] low", "must_place_drawn"),
            ("draw", "must_place_drawn"),
            ("pass", "must_place_drawn"),
            ("[1|2] opens", "point_required"),
            ("[1|2] on [2|2] line_a", "point_not_open"),
            ("[1|2] on [1|4] high", "values_differ"),
        ),
    ),
)


def codes_by_position_vectors() -> list[dict[str, Any]]:
    """For each position, every refusal code it can give, each move refused in turn."""
    vectors = []
    for position, words, start, moves, cases in CODES_BY_POSITION:
        script = Script()
        script.ok({"cmd": "new", **start}, "new")
        for number, before in enumerate(moves, start=1):
            script.ok({"cmd": "move", "move": before}, f"move {number} of the position ({before})")
        script.ok({"cmd": "state"}, "before the refused moves: state")
        for move, code in cases:
            answer = script.ask({"cmd": "move", "move": move}, f"the refused move ({move})")
            if answer.get("code") != code:
                raise AssertionError(f"{position}: {move!r} gives {answer}, not {code}")
        script.ok({"cmd": "state"}, "after the refused moves: state")
        script.ok({"cmd": "legal"}, "after the refused moves: legal")
        vectors.append(
            script.vector(
                f"refusals/every-code-{position}",
                f"{words}: a move for every refusal code that can arise there; each is "
                "refused and the match stays as it was.",
            )
        )
    script = Script()
    for placements, move, code in (
        ((), "play", "not_a_move"),
        (("[2|2] opens",), "[5|2] on [2|2] line_a", "not_a_tile"),
        (("[2|2] opens",), "[2|5] on [2|2] high", "not_a_point"),
    ):
        answer = script.ask({"cmd": "table", "moves": [*placements, move]}, f"table ({move})")
        if answer.get("code") != code or answer.get("index") != len(placements):
            raise AssertionError(f"table: {move!r} gives {answer}, not {code}")
    vectors.append(
        script.vector(
            "refusals/table-move-texts",
            "A table request refuses a text that is no placement by the grammar's codes, "
            "with the index of the refused text.",
        )
    )
    return vectors


#: Causes of the error kinds (docs/protocol.md) no other vector sends:
#: (what, a line or a request).
MORE_BAD_INPUTS: tuple[tuple[str, str | dict[str, Any]], ...] = (
    ("an infinity", '{"cmd": "new", "players": Infinity, "seed": "1"}'),
    ("a negative infinity", '{"cmd": "new", "players": -Infinity, "seed": "1"}'),
    ("a pass in a table", {"cmd": "table", "moves": ["[1|4] opens", "pass"]}),
    ("settle for five players", {"cmd": "settle", "players": 5, "hands": [[]] * 5}),
    (
        "settle with a text that is no tile",
        {"cmd": "settle", "players": 2, "hands": [["[4|1]"], []]},
    ),
    (
        "settle with a finisher that is no seat",
        {"cmd": "settle", "players": 2, "hands": [[], []], "finisher": 2},
    ),
    (
        "a deal with a text that is no tile",
        {**_NEW, "deals": [{**_TABLE_DEAL, "stock": ["[9|9]", *_TABLE_DEAL["stock"][1:]]}]},
    ),
    (
        "a deal with a tile twice",
        {**_NEW, "deals": [{**_TABLE_DEAL, "stock": [_TABLE_DEAL["stock"][1]] * 14}]},
    ),
)


def more_robustness_vectors() -> list[dict[str, Any]]:
    """The documented causes of errors that the robustness vectors above do not send."""
    script = Script()
    script.ok(_NEW, "new: the match the bad inputs must leave alone")
    for what, sent in MORE_BAD_INPUTS:
        answer = script.line(sent, what) if isinstance(sent, str) else script.ask(sent, what)
        if answer["ok"]:
            raise AssertionError(f"robustness: {what} was answered ok")
    script.ok({"cmd": "state"}, "state: the match is as before")
    return [
        script.vector(
            "robustness/more-causes",
            "Causes of bad_json, bad_request and invalid_deal that docs/protocol.md lists: "
            "an infinity, a pass in a table, settle for five players, with a text that is "
            "no tile or a finisher that is no seat, deals with a bad tile or a tile twice.",
        )
    ]


#: The vectors added for the coverage classes, by kind, after each kind's own.
_COVERAGE_VECTORS: dict[str, tuple[Callable[[], list[dict[str, Any]]], ...]] = {
    "refusals": (codes_by_position_vectors,),
    "robustness": (more_robustness_vectors,),
    "matches": (win_vectors, round_end_vectors),
}


def _check_coverage(docs: dict[str, dict[str, Any]]) -> None:
    """Fail unless the vectors of ``docs`` reach every coverage class (but the pending ones)."""
    report = coverage(vector for doc in docs.values() for vector in doc["vectors"])
    missing = sorted(report.missing)
    if missing:
        raise AssertionError(f"no vector reaches these coverage classes: {', '.join(missing)}")


# -- the escapes of issue 27: inputs and positions an engine can get wrong unseen ------------

#: SplitMix64's constants (see :mod:`american_sniff.rng`).
_GAMMA = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_SPAN = 1 << 64


def _unshift(value: int, shift: int) -> int:
    """The ``x`` with ``x ^ (x >> shift) == value``: the inverse of a right xor-shift.

    Each pass fixes ``shift`` more of the high bits; 64 bits take 64 // shift passes.
    """
    x = value
    for _ in range(64 // shift + 1):
        x = value ^ (x >> shift)
    return x


def unmix(output: int) -> int:
    """The generator state whose SplitMix64 output is ``output``: the mixer run backwards.

    The mixer is ``z ^= z >> 30; z *= M1; z ^= z >> 27; z *= M2; z ^= z >> 31``
    (mod 2**64). Each step is a bijection: a right xor-shift is undone by
    ``_unshift``, a product by an odd constant by the product with its
    inverse mod 2**64. Undone in the reverse order, they give the state.

    >>> from american_sniff.rng import next_u64
    >>> next_u64(unmix(12345) - 0x9E3779B97F4A7C15)[0]
    12345
    """
    z = _unshift(output, 31)
    z = (z * pow(_MIX2, -1, _SPAN)) % _SPAN
    z = _unshift(z, 27)
    z = (z * pow(_MIX1, -1, _SPAN)) % _SPAN
    return _unshift(z, 30)


def seed_giving(output: int, draw: int = 1) -> int:
    """The seed whose ``draw``-th generator output (1 for the first) is ``output``.

    The state advances by the constant gamma on every draw, so the state of
    draw k is ``seed + k * gamma``; the seed is that state, found by
    :func:`unmix`, less ``k * gamma`` (mod 2**64).

    >>> seed_giving(2**64 - 1)
    3558559446808474027
    """
    return (unmix(output) - draw * _GAMMA) % _SPAN


def _lowest_rejected(n: int) -> int:
    """The smallest output that ``below(n)`` must redraw (none if n is a power of two)."""
    return _SPAN - _SPAN % n


def _dealt_order(
    players: int, seed: int, *, redraw: bool, limit: Callable[[int], int] | None = None
) -> tuple[tuple[Tile, ...], int]:
    """The first round's shuffled tiles and lot from ``seed``, with or without the redraw.

    ``limit`` gives the first output that ``below(n)`` redraws (by default the
    right one, :func:`_lowest_rejected`).
    """
    first_redrawn = _lowest_rejected if limit is None else limit

    def draw(n: int, state: int) -> tuple[int, int]:
        while True:
            out, state = next_u64(state)
            if not redraw or out < first_redrawn(n):
                return out % n, state

    tiles, state = list(ALL_TILES), seed
    for i in range(len(tiles) - 1, 0, -1):
        j, state = draw(i + 1, state)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    lot, state = draw(players, state)
    return tuple(tiles), lot


#: Seeds that reach ``below``'s rejection step, found by :func:`seed_giving`:
#: (id, players, draw, output, what it shows). Draws 1 to 27 shuffle the set
#: (draw k is ``below(29 - k)``), draw 28 is the first round's lot.
REJECTION_SEEDS: tuple[tuple[str, int, int, int, str], ...] = (
    (
        "first-draw-2-64-minus-1",
        2,
        1,
        _SPAN - 1,
        "the first output is 2**64 - 1, the largest, which below(28) redraws",
    ),
    (
        "first-draw-lowest-rejected",
        4,
        1,
        _lowest_rejected(28),
        "the first output is 2**64 - 2**64 % 28, the smallest that below(28) redraws",
    ),
    (
        "tenth-draw-rejected",
        2,
        10,
        _lowest_rejected(19) + 2,
        "the tenth output, for below(19) in the shuffle, falls in the redrawn range",
    ),
    (
        "lot-rejected",
        3,
        28,
        _SPAN - 1,
        "the 28th output, the lot below(3) after the shuffle, is 2**64 - 1, which is redrawn",
    ),
)


def rejection_vectors() -> list[dict[str, Any]]:
    """Seeded matches whose deal or lot goes through ``below``'s rejection step."""
    vectors = []
    for ident, players, draw, output, shows in REJECTION_SEEDS:
        seed = seed_giving(output, draw)
        if _dealt_order(players, seed, redraw=True) == _dealt_order(players, seed, redraw=False):
            raise AssertionError(f"seeds/rejected-{ident}: the deal is the same without the redraw")
        script = Script()
        script.ok({"cmd": "new", "players": players, "seed": str(seed)}, "new")
        for index in range(6):
            moves = sorted(
                script.ok({"cmd": "legal"}, f"round 1, action {index + 1}: legal")["moves"]
            )
            script.ok(
                {"cmd": "move", "move": moves[0]}, f"round 1, action {index + 1} ({moves[0]})"
            )
        script.ok({"cmd": "state"}, "round 1, after 6 actions: state")
        vectors.append(
            script.vector(
                f"seeds/rejected-{ident}",
                f"{players} players from seed {seed}, found by inverting SplitMix64's mixer: "
                f"{shows}; an engine without below's rejection step deals otherwise. The first "
                "six actions (the first legal move in text order each time).",
                requires=("seed",),
            )
        )
    return vectors


def _start_of(record: MatchRecord, number: int) -> dict[str, Any]:
    """A ``new`` request starting at round ``number`` of ``record``, from its deal alone."""
    played = record.rounds[number - 1]
    scores = [0] * len(played.scores) if number == 1 else list(record.rounds[number - 2].scores)
    deal = {
        "hands": [[tile_text(t) for t in hand] for hand in played.hands],
        "stock": [tile_text(t) for t in played.stock],
        "opener": played.opener,
    }
    return {
        "cmd": "new",
        "players": record.players,
        "deals": [deal],
        "scores": scores,
        "round": number,
    }


def _round_script(
    record: MatchRecord, number: int, note: Callable[[int, MatchState], str]
) -> Script:
    """Round ``number`` of ``record`` from its deal: legal, move and state at every action.

    ``note`` gives the words added to a move's ``at`` (the action's index and
    the state after it), naming what the step shows; a move after which the
    next seat is stuck while the round goes on is named so in any case. After
    the round, or the win, come legal, state and a move, each answered as the
    library does.
    """
    played = record.rounds[number - 1]
    script = Script()
    script.ok(_start_of(record, number), f"new (round {number} of the match)")
    state = script.session.state
    assert state is not None
    for index, action in enumerate(played.actions):
        text = move_text(action.move)
        where = f"round {number}, action {index + 1}"
        script.ok({"cmd": "legal"}, f"{where}, before ({text}): legal")
        after = step(state, state.turn, action.move)
        assert not isinstance(after, Problem)
        words = note(index, after)
        if after.round == number and _stuck_next_seat(after, action.seat):
            words += (
                f": the stock is empty and the next seat, {(action.seat + 1) % record.players}, "
                "cannot place, but another seat can, so the round is not blocked"
            )
        script.ok({"cmd": "move", "move": text}, f"{where} ({text}){words}")
        script.ask({"cmd": "state"}, f"{where}, after ({text}): state")
        state = after
    for cmd in ("legal", "state", "move"):
        request = {"cmd": cmd, "move": "pass"} if cmd == "move" else {"cmd": cmd}
        script.ask(request, f"after the round: {cmd}")
    return script


def _stuck_next_seat(state: MatchState, mover: int) -> bool:
    """Whether, with the stock empty, the seat after ``mover`` cannot place but another can."""
    if state.stock_size or state.drawn is not None or state.winner is not None:
        return False
    fits = [any(state.layout.fits(tile) for tile in hand) for hand in state.hands]
    return not fits[(mover + 1) % state.players] and any(fits)


#: Rounds of the demo's matches where, with the stock empty, the next seat
#: cannot place but another seat can: the round goes on (players, seed, round, how).
STUCK_NEXT_SEAT: tuple[tuple[int, int, int, str], ...] = (
    (2, 2, 4, "a placement"),
    (3, 11, 17, "a draw"),
    (4, 16, 8, "a placement"),
    (4, 2, 5, "a draw"),
)


def stuck_next_seat_vectors() -> list[dict[str, Any]]:
    """Rounds where the next seat is stuck but the round is not blocked."""
    return [_stuck_next_seat_vector(*case) for case in STUCK_NEXT_SEAT]


def _stuck_next_seat_vector(players: int, seed: int, number: int, how: str) -> dict[str, Any]:
    record = record_match(_play(players, seed))
    played = record.rounds[number - 1]
    shown = set()

    def note(index: int, after: MatchState) -> str:
        action = played.actions[index]
        if after.round == number and _stuck_next_seat(after, action.seat):
            shown.add("a draw" if str(action.move) == "draw" else "a placement")
        return ""

    script = _round_script(record, number, note)
    if how not in shown:
        raise AssertionError(f"round {number} of seed {seed}: no stuck next seat after {how}")
    return script.vector(
        f"matches/{players}-players-seed-{seed}-round-{number}-next-seat-stuck",
        f"Round {number} of 'american-sniff demo --players {players} --seed {seed}', "
        f"from its deal: after {how}, with the stock empty, the next seat cannot place "
        "but another seat can; the round is not blocked and play goes on.",
    )


#: Four-player matches of the demo won by seat 2 or seat 3, whose side (seat % 2)
#: is not the seat's number: (seed, the winning seat).
WON_BY_SEAT: tuple[tuple[int, int], ...] = ((1, 2), (6, 3))


def won_by_seat_vectors() -> list[dict[str, Any]]:
    """The last round of four-player matches won by seat 2 and by seat 3."""
    vectors = []
    for seed, seat in WON_BY_SEAT:
        states = _play(4, seed)
        final = states[-1]
        action = final.last_action
        assert action is not None
        if final.winner != seat % 2 or action.seat != seat:
            raise AssertionError(f"4 players, seed {seed}: not won by seat {seat}")
        record = record_match(states)
        number = len(record.rounds)

        def note(index: int, after: MatchState, seat: int = seat) -> str:
            if after.winner is None:
                return ""
            return f": seat {seat} reaches the target; the winner is its side, {seat % 2}"

        script = _round_script(record, number, note)
        vectors.append(
            script.vector(
                f"matches/4-players-won-by-seat-{seat}",
                f"The last round (round {number}) of 'american-sniff demo --players 4 --seed "
                f"{seed}', from its deal and scores: seat {seat} wins, and the winner is its "
                f"side, {seat % 2}, not the seat.",
            )
        )
    return vectors


#: Demo matches whose first round blocked by a placement, or by a draw, is played
#: as a match's only deal: (players, seed, the move that blocks it).
BLOCKED_LAST_DEALS: tuple[tuple[int, int, str], ...] = ((4, 7, "a placement"), (3, 11, "a draw"))


def _blocked_last_deal(players: int, seed: int, how: str) -> dict[str, Any]:
    """A blocked round of a demo match, given as a match's only deal: the deals run out."""
    record = record_match(_play(players, seed))
    number = next(
        r.round
        for r in record.rounds
        if r.end is RoundEnd.BLOCKED and (str(r.actions[-1].move) == "draw") == (how == "a draw")
    )

    def note(index: int, after: MatchState) -> str:
        if after.round == number:
            return ""
        return ": the round ends blocked and the match has no deal left, so turn is null"

    script = _round_script(record, number, note)
    return script.vector(
        f"robustness/deals-run-out-blocked-by-{how.rsplit(maxsplit=1)[-1]}",
        f"Round {number} of 'american-sniff demo --players {players} --seed {seed}' as the "
        f"match's only deal: {how} blocks it; the answer has turn null (no round follows), and "
        "legal, state and move then answer no_deal.",
    )


#: The length of the long move request line of ``robustness/long-lines``.
LONG_LINE = 70_000


def _long_request(line: str, size: int, at: int) -> str:
    """``line`` with JSON whitespace inserted at ``at`` until it is ``size`` bytes."""
    return line[:at] + " " * (size - len(line.encode("utf-8"))) + line[at:]


def long_line_vectors() -> list[dict[str, Any]]:
    """Lines longer than 64 KiB, and lines at the 1 MiB limit (the newline counted)."""
    script = Script()
    script.ok(_NEW, "new")
    script.ok({"cmd": "move", "move": "[1|4] opens"}, "move ([1|4] opens)")
    move = '{"cmd": "move", "move": "[1|2] on [1|4] low"}'
    long = _long_request(move, LONG_LINE, move.index('"move": "'))
    what = f"a move request line of {LONG_LINE:,} bytes, longer than 64 KiB (spaces between keys)"
    if script.line(long, what)["ok"] is not True:
        raise AssertionError("robustness/long-lines: the long move was refused")
    script.ok({"cmd": "state"}, "state: seat 1's move of the long line was played")
    script.ok({"cmd": "legal"}, "legal")
    for size, what in (
        (MAX_LINE_BYTES - 1, "just under the limit: with its newline, 1 MiB"),
        (MAX_LINE_BYTES, "just over the limit: with its newline, 1 MiB and a byte"),
    ):
        short = '{"cmd": "state"}'
        answer = _serve_line(script.session, short + " " * (size - len(short)))
        script.steps.append(
            {
                "at": f"a state request padded to {size:,} bytes, {what}",
                "line": short,
                "pad_to": size,
                "expect": expected_answer(None, answer),
            }
        )
    if [step["expect"]["ok"] for step in script.steps[-2:]] != [True, False]:
        raise AssertionError("robustness/long-lines: the limit is not where the docs say")
    script.ok({"cmd": "state"}, "state: the match is as before")
    return [
        script.vector(
            "robustness/long-lines",
            f"A move request of {LONG_LINE:,} bytes (beyond a 64 KiB line buffer) is read whole "
            "and played; a line of 1 MiB with its newline is read, one byte more is bad_json "
            "(the newline counts toward the limit).",
        )
    ]


def _serve_line(session: Session, line: str) -> dict[str, Any]:
    """The answer to ``line`` and its newline as ``american-sniff engine`` reads them."""
    out = io.BytesIO()
    serve(io.BytesIO(line.encode("utf-8") + b"\n"), out, session)
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer


def _nested(depth: int) -> str:
    """A legal request with an unknown key whose value nests to ``depth`` in all."""
    inner = depth - 1
    return '{"cmd": "legal", "x": ' + "[" * inner + "]" * inner + "}"


def nesting_vectors() -> list[dict[str, Any]]:
    """Lines at the nesting limit, just beyond it, far beyond it, and brackets in a string."""
    script = Script()
    script.ok(_NEW, "new")
    cases = (
        (
            MAX_DEPTH,
            "bad_request",
            f"nesting {MAX_DEPTH} deep, the limit: read, then refused for its key",
        ),
        (MAX_DEPTH + 1, "bad_json", f"nesting {MAX_DEPTH + 1} deep, one beyond the limit"),
        (5000, "bad_json", "nesting 5,000 deep, beyond any parser's recursion"),
    )
    for depth, kind, what in cases:
        line = _nested(depth)
        if line.count("[") + 1 != depth or script.line(line, what)["error"] != kind:
            raise AssertionError(f"robustness/nesting-limit: {what} is not {kind}")
    brackets = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    script.ask({"cmd": "move", "move": brackets}, "a move text of brackets: a string nests nothing")
    script.ok({"cmd": "state"}, "state: the match is as before")
    return [
        script.vector(
            "robustness/nesting-limit",
            f"Arrays and objects nest at most {MAX_DEPTH} deep in a request line: a line at the "
            f"limit is read (and refused for its unknown key, bad_request); a line {MAX_DEPTH + 1} "
            "deep, or 5,000, is bad_json; brackets inside a string do not count.",
        )
    ]


# -- writing ---------------------------------------------------------------------------


def build() -> dict[str, dict[str, Any]]:
    """Every vector file, by file name, as JSON documents."""
    makers = {
        "positions": position_vectors,
        "settlement": settlement_vectors,
        "refusals": refusal_vectors,
        "order": order_vectors,
        "robustness": robustness_vectors,
        "seeds": seed_vectors,
        "perft": perft_vectors,
        "matches": match_vectors,
    }
    assert tuple(makers) == KINDS
    files = {
        f"{kind}.json": {
            "format": VECTORS_FORMAT,
            "format_version": VECTORS_FORMAT_VERSION,
            "rules_version": RULES_VERSION,
            "kind": kind,
            "vectors": [
                *make(),
                *(v for more in _COVERAGE_VECTORS.get(kind, ()) for v in more()),
                *(v for more in _ESCAPE_VECTORS.get(kind, ()) for v in more()),
            ],
        }
        for kind, make in makers.items()
    }
    # The order file also names the pairs of the refusal order that no vector
    # can show, before its vectors.
    order = files["order.json"]
    vectors = order.pop("vectors")
    order["exclusive"] = order_exclusive()
    order["vectors"] = vectors
    return files


def dumps(value: Any, width: int = WIDTH) -> str:
    """``value`` as JSON text; a list or object that fits in ``width`` columns stays on one line.

    >>> print(dumps({"a": [1, 2], "b": ["x", "y"]}, width=20))
    {
      "a": [1, 2],
      "b": ["x", "y"]
    }
    """
    return pretty_json(value, width=width, ensure_ascii=False)


def _shipped() -> Path:
    return (
        Path(__file__).resolve().parents[1] / "src" / "american_sniff" / "conformance" / "vectors"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the vector files; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python tools/generate_vectors.py",
        description="Generate the conformance vectors from the library.",
    )
    parser.add_argument("--out", type=Path, default=_shipped(), help="directory to write to")
    parser.add_argument(
        "--check", action="store_true", help="compare the files instead of writing them"
    )
    args = parser.parse_args(argv)
    stale = []
    docs = build()
    _check_coverage(docs)
    for name, doc in docs.items():
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


# -- the escapes of issue 42: corners an engine written from the docs got wrong unseen ------


def _limit_of_the_largest(n: int) -> int:
    """``below(n)``'s limit written from the largest output: ``MAX - MAX % n``, MAX = 2**64 - 1.

    It is the right limit unless ``n`` is a power of two: then nothing is to be
    redrawn, but this limit redraws the top ``n`` outputs.
    """
    largest = _SPAN - 1
    return largest - largest % n


#: Seeds whose draw of ``below(n)``, n a power of two, is among the top n outputs,
#: which must be kept (2**64 is a multiple of n, so no output is redrawn):
#: (id, players, draw, output, what it shows). Draw k of the shuffle is ``below(29 - k)``.
POWER_OF_TWO_SEEDS: tuple[tuple[str, int, int, int, str], ...] = (
    (
        "lot-below-4-top",
        4,
        28,
        _SPAN - 1,
        "the 28th output, the lot below(4), is 2**64 - 1, which is kept (4 divides 2**64)",
    ),
    (
        "shuffle-below-16-top",
        2,
        13,
        _SPAN - 3,
        "the 13th output, below(16) in the shuffle, is 2**64 - 3, which is kept",
    ),
    (
        "lot-below-2-top",
        2,
        28,
        _SPAN - 2,
        "the 28th output, the lot below(2), is 2**64 - 2, which is kept",
    ),
)


def power_of_two_vectors() -> list[dict[str, Any]]:
    """Seeded matches whose draw of ``below(n)``, n a power of two, must not be redrawn."""
    vectors = []
    for ident, players, draw, output, shows in POWER_OF_TWO_SEEDS:
        seed = seed_giving(output, draw)
        wrong = _dealt_order(players, seed, redraw=True, limit=_limit_of_the_largest)
        if _dealt_order(players, seed, redraw=True) == wrong:
            raise AssertionError(f"seeds/power-of-two-{ident}: MAX - MAX % n deals the same")
        script = Script()
        # The step says what the seed shows: a wrong limit fails at once, here.
        script.ok({"cmd": "new", "players": players, "seed": str(seed)}, f"new: {shows}")
        for index in range(4):
            moves = sorted(
                script.ok({"cmd": "legal"}, f"round 1, action {index + 1}: legal")["moves"]
            )
            script.ok(
                {"cmd": "move", "move": moves[0]}, f"round 1, action {index + 1} ({moves[0]})"
            )
        script.ok({"cmd": "state"}, "round 1, after 4 actions: state")
        vectors.append(
            script.vector(
                f"seeds/power-of-two-{ident}",
                f"{players} players from seed {seed}, found by inverting SplitMix64's mixer: "
                f"{shows}. below(n)'s limit is 2**64 - 2**64 % n, which is 2**64 when n is a "
                "power of two; a limit written 2**64 - 1 - (2**64 - 1) % n redraws the top n "
                "outputs and deals otherwise. The first four actions (the first legal move in "
                "text order each time).",
                requires=("seed",),
            )
        )
    return vectors


#: A four-player seed whose first round, played by the first legal move in text
#: order, ends with seat 0 holding two tiles it was dealt and never drawing: the
#: shuffle dealt them out of order ([2|6] before [2|2]).
UNDRAWN_SEED = 36
#: The seat of :data:`UNDRAWN_SEED` that never draws, and its tiles at the end.
UNDRAWN_SEAT, UNDRAWN_HAND = 0, ("[2|2]", "[2|6]")


def _first_moves_round(script: Script, words: str) -> dict[str, Any]:
    """Play the round by the first legal move in text order to its end; its round_end.

    As every match vector does, it asks legal, move and state at each action,
    then legal, state and a move after the round.
    """
    for index in range(4 * len(ALL_TILES)):
        where = f"{words}action {index + 1}"
        moves = sorted(script.ok({"cmd": "legal"}, f"{where}: legal")["moves"])
        answer = script.ok({"cmd": "move", "move": moves[0]}, f"{where} ({moves[0]})")
        script.ask({"cmd": "state"}, f"{where}, after ({moves[0]}): state")
        if answer["round_end"] is not None:
            end: dict[str, Any] = answer["round_end"]
            for cmd in ("legal", "state", "move"):
                request = {"cmd": cmd, "move": "pass"} if cmd == "move" else {"cmd": cmd}
                script.ask(request, f"after the round: {cmd}")
            return end
    raise AssertionError("the round did not end")


def undrawn_hand_vectors() -> list[dict[str, Any]]:
    """A round ending while a seat that never drew holds tiles dealt out of order: hands sorted.

    Two vectors: the round dealt from the seed (the shuffle's order is not
    sorted), and the same deal given in ``new`` with every hand written in
    the shuffle's order. In both, the revealed hands of ``round_end`` are
    sorted, as every hand is, whatever the order it was dealt or given in.
    """
    tiles, lot = _dealt_order(4, UNDRAWN_SEED, redraw=True)
    size = HAND_SIZE[4]
    dealt = [tiles[k * size : (k + 1) * size] for k in range(4)]
    kept = [tile_text(t) for t in dealt[UNDRAWN_SEAT] if tile_text(t) in UNDRAWN_HAND]
    if kept == sorted(kept, key=parse_tile) or len(kept) < 2:
        raise AssertionError("matches/undrawn-hand: the seat's tiles were dealt in order")
    vectors = []
    seeded = Script()
    seeded.ok({"cmd": "new", "players": 4, "seed": str(UNDRAWN_SEED)}, "new")
    end = _first_moves_round(seeded, "round 1, ")
    if end["hands"][UNDRAWN_SEAT] != list(UNDRAWN_HAND):
        raise AssertionError(f"matches/undrawn-hand: seat {UNDRAWN_SEAT} ends with {end['hands']}")
    vectors.append(
        seeded.vector(
            "matches/undrawn-hand-seeded",
            f"4 players from seed {UNDRAWN_SEED}, the first legal move in text order each time: "
            f"seat {UNDRAWN_SEAT} never draws and ends the round holding {' and '.join(kept)}, "
            "in the order the shuffle dealt them; round_end reveals every hand sorted.",
            requires=("seed",),
        )
    )
    given = Script()
    deal = {
        "hands": [[tile_text(t) for t in hand] for hand in dealt],
        "stock": [tile_text(t) for t in tiles[4 * size :]],
        "opener": lot,
    }
    given.ok({"cmd": "new", "players": 4, "deals": [deal]}, "new: the hands in the shuffle's order")
    if _first_moves_round(given, "round 1, ") != end:
        raise AssertionError("matches/undrawn-hand-given: the round ends otherwise")
    vectors.append(
        given.vector(
            "matches/undrawn-hand-given",
            f"The first round of seed {UNDRAWN_SEED} (4 players) given as a deal with every "
            "hand written in the shuffle's order, played the same way: a given hand may be "
            f"unsorted, and is sorted; seat {UNDRAWN_SEAT} never draws, and round_end "
            "reveals its hand sorted.",
        )
    )
    return vectors


def json_corner_vectors() -> list[dict[str, Any]]:
    """JSON's corners, lines that are not UTF-8, the seed's text, and the deals' corners."""
    vectors = []
    script = Script()
    script.ok(_NEW, "new: the match the lines must leave alone")
    for what, line, kind in JSON_CORNERS:
        if script.line(line, what).get("error") != kind:
            raise AssertionError(f"robustness/json-corners: {what} is not {kind}")
    script.ok({"cmd": "state"}, "state: the match is as before")
    vectors.append(
        script.vector(
            "robustness/json-corners",
            "JSON's corners, as docs/protocol.md settles them: -0 is 0; a raw control "
            "character in a string is bad_json (DEL is none); lone surrogate escapes are read "
            "as strings; keys are compared as decoded, so c\\u006dd is cmd and a repeat of it "
            "is a repeated key; only space, tab, line feed and carriage return are blanks.",
        )
    )
    script = Script()
    script.ok(_NEW, "new: the match the lines must leave alone")
    for what, data in NOT_UTF8:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            raise AssertionError(f"robustness/not-utf8: {what} is UTF-8")
        if script.raw(data, what).get("error") != "bad_json":
            raise AssertionError(f"robustness/not-utf8: {what} is not bad_json")
    script.ok({"cmd": "state"}, "state: the match is as before")
    vectors.append(
        script.vector(
            "robustness/not-utf8",
            "Lines that are not UTF-8 (sent as bytes, line_hex): a stray byte, a surrogate "
            "or an overlong form encoded, a sequence cut short; each is bad_json, not read "
            "with replacement characters.",
        )
    )
    script = Script()
    script.ok(_NEW, "new: the match the requests must leave alone")
    for what, seed in SEED_TEXTS:
        if (
            script.ask({"cmd": "new", "players": 2, "seed": seed}, f"a seed of {what}").get("error")
            != "invalid_deal"
        ):
            raise AssertionError(f"robustness/seed-texts: {what} is not invalid_deal")
    script.ok({"cmd": "state"}, "state: the match is as before")
    vectors.append(
        script.vector(
            "robustness/seed-texts",
            "A seed's text is ASCII digits only, without a sign, a blank or a leading zero: "
            "full-width, Arabic-Indic, Devanagari and superscript digits are invalid_deal.",
            requires=("seed",),
        )
    )
    vectors.append(_deal_corners())
    return vectors


def _deal_corners() -> dict[str, Any]:
    """Deals null or empty, a deal short of a tile, scores of the wrong length, a given hand."""
    short = {**_TABLE_DEAL, "stock": _TABLE_DEAL["stock"][:-1]}
    unsorted = {**_TABLE_DEAL, "hands": [list(reversed(hand)) for hand in _TABLE_DEAL["hands"]]}
    cases: tuple[tuple[str, dict[str, Any], str | None], ...] = (
        (
            "deals null, with a seed",
            {"cmd": "new", "players": 2, "deals": None, "seed": "1"},
            "bad_request",
        ),
        ("deals null, without a seed", {"cmd": "new", "players": 2, "deals": None}, "bad_request"),
        ("deals empty, without a seed", {"cmd": "new", "players": 2, "deals": []}, "invalid_deal"),
        (
            "a deal of 27 tiles, short of [6|6], none twice",
            {**_NEW, "deals": [short]},
            "invalid_deal",
        ),
        ("scores of one side for two players", {**_NEW, "scores": [0]}, "invalid_deal"),
        ("scores of three sides for two players", {**_NEW, "scores": [0, 0, 0]}, "invalid_deal"),
        (
            "scores of two sides for three players",
            {"cmd": "new", "players": 3, "seed": "1", "scores": [0, 0]},
            "invalid_deal",
        ),
        ("an empty moves list: the empty table", {"cmd": "table", "moves": []}, None),
        (
            "deals empty, with a seed: the seed deals",
            {"cmd": "new", "players": 2, "deals": [], "seed": "1"},
            None,
        ),
        ("a deal whose hands are written unsorted: sorted", {**_NEW, "deals": [unsorted]}, None),
    )
    script = Script()
    script.ok(_NEW, "new")
    for what, request, kind in cases:
        if script.ask(request, what).get("error") != kind:
            raise AssertionError(f"robustness/deal-corners: {what} is not {kind}")
    for move in ("[1|4] opens", "[1|2] on [1|4] low"):
        script.ok({"cmd": "move", "move": move}, f"the unsorted deal is played: {move}")
    script.ok({"cmd": "state"}, "state")
    return script.vector(
        "robustness/deal-corners",
        "deals null is bad_request (null is not a list); deals empty without a seed, a deal "
        "short of one tile (27, none twice), and scores not one per side are invalid_deal; "
        "an empty moves list is the empty table; deals empty with a seed is a seeded match; "
        "a given hand may be unsorted.",
        requires=("seed",),
    )


#: The vectors of issue 42's escapes, by kind, after the coverage vectors.
_ESCAPE_VECTORS: dict[str, tuple[Callable[[], list[dict[str, Any]]], ...]] = {
    "robustness": (json_corner_vectors,),
    "seeds": (power_of_two_vectors,),
    "matches": (undrawn_hand_vectors,),
}


if __name__ == "__main__":
    sys.exit(main())
