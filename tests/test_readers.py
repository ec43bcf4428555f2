"""One reader per notation: tiles, points and moves, lenient or strict by an argument."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from american_sniff import (
    ALL_TILES,
    REFUSAL_CODES,
    Draw,
    IllegalMove,
    Pass,
    Place,
    Point,
    Side,
    Tile,
    parse_move,
    parse_point,
    parse_tile,
    serial,
)
from american_sniff.conformance import protocol


def _code(read: Callable[..., object], text: object, *, strict: bool = False) -> str:
    """The refusal code of the IllegalMove that ``read(text, strict=strict)`` raises."""
    with pytest.raises(IllegalMove) as refused:
        read(text, strict=strict)
    assert refused.value.code in REFUSAL_CODES
    return refused.value.code


@pytest.mark.parametrize("text", ["[4|1]", " [ 1 | 4 ] ", "[1|4]"])
def test_the_lenient_tile_reader_takes_either_order_and_spaces(text: str) -> None:
    """Lenient: the halves in either order, spaces around them."""
    assert parse_tile(text) == Tile(1, 4)


def test_the_strict_tile_reader_takes_only_the_written_form() -> None:
    """Strict: exactly what str(tile) writes, the library's own instance."""
    for tile in ALL_TILES:
        assert parse_tile(str(tile), strict=True) is tile
    for text in ("[4|1]", " [1|4]", "[1 |4]", "[1|4]\n"):
        assert parse_tile(text) == Tile(1, 4)  # the lenient reader takes it
        assert _code(parse_tile, text, strict=True) == "not_a_tile"


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("text", ["[7|1]", "[1|2", "", "1|2"])
def test_a_tile_reader_refuses_no_tile_with_not_a_tile(text: str, strict: bool) -> None:
    """Both readers refuse what is no tile, with the code not_a_tile."""
    assert _code(parse_tile, text, strict=strict) == "not_a_tile"


def test_the_point_readers() -> None:
    """Lenient: any tile form and spacing; strict: '[a|b] SIDE' only; both refuse with a code."""
    point = Point(Tile(1, 4), Side.HIGH)
    assert parse_point("[4|1]   high") == point
    assert parse_point("[1|4] high", strict=True) == point
    for text in ("[4|1] high", "[1|4]  high", "[1|4] HIGH"):
        assert _code(parse_point, text, strict=True) == "not_a_point"
    refused: tuple[object, ...] = ("[1|4] line_a", "[1|4] middle", "[9|4] high", "high", 5)
    for strict in (False, True):
        for value in refused:
            assert _code(parse_point, value, strict=strict) == "not_a_point"


def test_the_move_readers() -> None:
    """Lenient: spaces and tile order as they come; strict: the exact text str(move) writes."""
    move = Place(Tile(1, 2), Point(Tile(1, 1), Side.BRANCH_A))
    assert parse_move(" [2|1] on [1|1]  branch_a ") == move
    assert parse_move("[1|2] on [1|1] branch_a", strict=True) == move
    for text, expected in (("draw", Draw()), ("pass", Pass()), ("[1|2] opens", Place(Tile(1, 2)))):
        assert parse_move(text) == parse_move(text, strict=True) == expected
    for text, code in (
        (" draw", "not_a_move"),
        ("[2|1] opens", "not_a_tile"),
        ("[1|2]  opens", "not_a_tile"),
        ("[1|2] on [1|1]  branch_a", "not_a_point"),
    ):
        assert parse_move(text) is not None  # the lenient reader takes it
        assert _code(parse_move, text, strict=True) == code, text


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("drew", "not_a_move"),
        ("", "not_a_move"),
        ("[1|9] opens", "not_a_tile"),
        ("[1|2] on [1|1] middle", "not_a_point"),
        ("[1|2] on [1|2] line_a", "not_a_point"),
    ],
)
def test_both_move_readers_refuse_with_the_same_code(text: str, code: str, strict: bool) -> None:
    """What neither reader takes is refused with the same code by both."""
    assert _code(parse_move, text, strict=strict) == code


@pytest.mark.parametrize("strict", [False, True])
def test_a_move_that_is_not_text_is_not_a_move(strict: bool) -> None:
    """A value that is no string is refused, not a crash."""
    assert _code(parse_move, 42, strict=strict) == "not_a_move"


def test_the_deprecated_readers_warn_and_delegate() -> None:
    """parse_tile_text, parse_move_text and read_move stay, warn, and read strictly."""
    text = "[1|2] on [1|1] branch_a"
    for alias in (serial.parse_move_text, protocol.read_move):
        with pytest.deprecated_call(match=r"use .*parse_move\(text, strict=True\)"):
            assert alias(text) is parse_move(text, strict=True)
        with pytest.deprecated_call(), pytest.raises(IllegalMove) as refused:
            alias("[2|1] opens")
        assert refused.value.code == "not_a_tile"
    with pytest.deprecated_call(match=r"parse_tile\(text, strict=True\)"):
        assert serial.parse_tile_text("[1|4]") is parse_tile("[1|4]", strict=True)
    with pytest.deprecated_call(), pytest.raises(IllegalMove):
        serial.parse_tile_text("[4|1]")


def test_the_deprecated_json_writers_warn_and_return_the_dicts() -> None:
    """action_to_json and round_result_to_json are action_to_dict and round_result_to_dict."""
    from scenarios import demo_match

    state = next(s for s in demo_match(2, 2) if s.round == 2)
    result = state.last_round
    action = state.last_action
    assert result is not None
    assert action is not None
    with pytest.deprecated_call(match=r"use american_sniff\.serial\.action_to_dict"):
        assert serial.action_to_json(action) == serial.action_to_dict(action)
    with pytest.deprecated_call(match=r"use american_sniff\.serial\.round_result_to_dict"):
        assert serial.round_result_to_json(result) == serial.round_result_to_dict(result)
    assert isinstance(serial.action_to_dict(action), dict)
