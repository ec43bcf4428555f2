"""Moves and their text notation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Draw,
    IllegalMove,
    Move,
    Pass,
    Place,
    Point,
    Side,
    Tile,
    parse_move,
    parse_point,
    parse_tile,
)


def _every_move() -> list[Move]:
    points = [
        Point(tile, side)
        for tile in ALL_TILES
        for side in Side
        if (side in (Side.LOW, Side.HIGH)) != tile.is_double
    ]
    placements: list[Move] = [
        Place(tile, point)
        for tile in ALL_TILES
        for point in points
        if point.tile != tile and tile.has(point.value)
    ]
    return [Draw(), Pass(), *(Place(tile) for tile in ALL_TILES), *placements]


def test_parse_move_reads_back_every_move_str_writes() -> None:
    """``parse_move(str(m)) == m`` for every move of the game, and repr pastes back."""
    moves = _every_move()
    assert len(moves) > 300
    namespace = {"Place": Place, "Point": Point, "Side": Side, "Draw": Draw, "Pass": Pass}
    namespace["Tile"] = type(ALL_TILES[0])
    for move in moves:
        assert parse_move(str(move)) == move
        assert eval(repr(move), namespace) == move  # the repr is ours: paste-back check


def test_draw_and_pass_write_themselves() -> None:
    """str() is the move's word and repr() its constructor call.

    Kills ``moves._Word.__repr__`` mutant 1.
    """
    assert (str(Draw()), repr(Draw())) == ("draw", "Draw()")
    assert (str(Pass()), repr(Pass())) == ("pass", "Pass()")


def test_tile_and_move_text_may_hold_spaces_inside_the_brackets() -> None:
    """``[ 1 | 4 ]`` is read like ``[1|4]``, in a tile and inside a move."""
    assert parse_tile(" [ 4 | 1 ] ") == Tile(1, 4)
    assert parse_move("[ 1 | 4 ] opens") == parse_move("[1|4] opens")
    assert str(parse_move("[ 4 | 1 ] on [ 1 | 1 ] line_b")) == "[1|4] on [1|1] line_b"


def test_a_placement_is_read_as_its_tile_before_the_first_on() -> None:
    """The tile is the text before the first `` on ``; what follows must be one point.

    A second ``on`` is then part of the point, and the refusal quotes that part.
    Kills ``moves.parse_move`` mutant 12 (``partition`` → ``rpartition``).
    """
    with pytest.raises(ValueError, match="not a tile") as error:
        parse_move("[1|4] on [1|1] on line_b")
    assert str(error.value) == "not a tile: '[1|1] on' (expected '[a|b]' with halves from 0 to 6)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a move"),
        ("draw now", "not a move"),
        ("[1|4] on [1|1]", "not a point"),
        ("[1|4] on [1|1] middle", "not a point"),
        ("[7|4] opens", "not a tile"),
        ("opens", "not a tile"),
        ("[1|4] on [1|4] line_a", "not a double"),
    ],
)
def test_bad_move_text_is_refused_with_a_message(text: str, message: str) -> None:
    """Text that is no move raises ValueError naming what is wrong."""
    with pytest.raises(ValueError, match=message):
        parse_move(text)


@pytest.mark.parametrize("parser", [parse_move, parse_point, parse_tile])
@pytest.mark.parametrize("value", [None, 3, b"[1|4]", ["[1|4]"]])
def test_parsers_refuse_what_is_not_text(parser: object, value: object) -> None:
    """Every parser answers a non-string with ValueError, not a traceback from inside."""
    with pytest.raises(ValueError, match=r"text|not a"):
        parser(value)  # type: ignore[operator]


@given(st.text(alphabet="[]|0123456789 onpensdrawlighbc_", max_size=30))
def test_parse_move_never_fails_with_anything_but_value_error(text: str) -> None:
    """Arbitrary text either parses to a move whose str parses back, or raises ValueError."""
    try:
        move = parse_move(text)
    except ValueError:
        return
    assert parse_move(str(move)) == move


_NOT_A_MOVE = "(expected '[a|b] opens', '[a|b] on [c|d] SIDE', 'draw' or 'pass')"
_SIDES = "(expected '[a|b] SIDE' with SIDE one of low, high, line_a, line_b, branch_a, branch_b)"


def test_parse_move_strict_reads_every_move_in_the_form_the_library_writes() -> None:
    """With ``strict``, ``str(move)`` reads back as the move; a placement read twice is one object.

    The strict reader keeps each placement it has read by its text, so the
    second read is a look-up that gives the very same move. Kills the mutants
    of ``moves._strict_move`` (its forms and its memo of texts read).
    """
    for move in _every_move():
        text = str(move)
        first = parse_move(text, strict=True)
        assert first == move
        assert type(first) is type(move)
        if isinstance(move, Place) and move.at is not None:
            assert parse_move(text, strict=True) is first


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        (
            "[4|1] opens",
            "not_a_tile",
            "not a tile: '[4|1]' is not a tile written '[a|b]' with a <= b",
        ),
        (
            "[1|4]  opens",
            "not_a_tile",
            "not a tile: '[1|4] ' is not a tile written '[a|b]' with a <= b",
        ),
        (
            "[4|1] on [1|1] line_b",
            "not_a_tile",
            "not a tile: '[4|1]' is not a tile written '[a|b]' with a <= b",
        ),
        ("draw ", "not_a_move", f"not a move: 'draw ' {_NOT_A_MOVE}"),
        (" pass", "not_a_move", f"not a move: ' pass' {_NOT_A_MOVE}"),
        ("Draw", "not_a_move", f"not a move: 'Draw' {_NOT_A_MOVE}"),
        ("[1|4]", "not_a_move", f"not a move: '[1|4]' {_NOT_A_MOVE}"),
        (
            "[1|4] on [4|1] high",
            "not_a_point",
            "not a point: '[4|1] high': '[4|1]' is not a tile written '[a|b]' with a <= b",
        ),
        # The tile is the text before the first " on ": a second one is in the point.
        ("[1|4] on [1|1] on line_b", "not_a_point", f"not a point: '[1|1] on line_b' {_SIDES}"),
    ],
)
def test_parse_move_strict_refuses_every_other_form_with_its_code(
    text: str, code: str, message: str
) -> None:
    """A strict refusal names the part that is wrong, with the code of that part.

    The placed tile is refused as ``not_a_tile``, the point as
    ``not_a_point``, anything else as ``not_a_move``. Kills the mutants of
    ``moves._placed_tile`` and of ``_strict_move``'s refusal (and its
    ``partition`` made ``rpartition``).
    """
    with pytest.raises(IllegalMove) as error:
        parse_move(text, strict=True)
    assert (error.value.code, str(error.value)) == (code, message)


@pytest.mark.parametrize("strict", [False, True])
def test_what_is_no_move_is_refused_with_the_code_not_a_move(strict: bool) -> None:
    """Text of no move's form, and a value that is not text, are refused as ``not_a_move``.

    Both readers say so with the same words; neither looks a value that is
    not text up in the strict reader's memo (an unhashable one too). Kills
    the mutants of ``parse_move`` and ``moves._lenient_move`` that change
    that code or message.
    """
    for text in ("draw now", "[1|4]", "hello"):
        with pytest.raises(IllegalMove) as error:
            parse_move(text, strict=strict)
        assert (error.value.code, str(error.value)) == (
            "not_a_move",
            f"not a move: {text!r} {_NOT_A_MOVE}",
        )
    values: tuple[Any, ...] = (3, None, ["draw"], b"draw")
    for value in values:
        with pytest.raises(IllegalMove) as error:
            parse_move(value, strict=strict)
        assert (error.value.code, str(error.value)) == (
            "not_a_move",
            f"a move is written as text, got {value!r}",
        )
