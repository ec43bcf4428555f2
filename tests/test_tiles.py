"""Unit tests of the tiles of the double-six set: ``Tile``, ``ALL_TILES`` and ``parse_tile``."""

from __future__ import annotations

import copy
import itertools
import operator
import pickle
from typing import Any

import attrs
import pytest

from american_sniff import ALL_TILES, IllegalMove, Tile, parse_tile

HALVES = range(7)


def test_the_set_has_the_28_tiles_of_double_six() -> None:
    """A double-six set is the 28 tiles [a|b] with 0 <= a <= b <= 6, each once."""
    assert len(ALL_TILES) == 28
    assert len(set(ALL_TILES)) == 28
    assert {(t.low, t.high) for t in ALL_TILES} == {
        (a, b) for a in HALVES for b in HALVES if a <= b
    }


@pytest.mark.parametrize(("a", "b"), [(a, b) for a in HALVES for b in HALVES])
def test_halves_are_normalised_low_first(a: int, b: int) -> None:
    """``Tile(a, b)`` and ``Tile(b, a)`` are the same tile, written [low|high]."""
    tile = Tile(a, b)
    assert (tile.low, tile.high) == (min(a, b), max(a, b))
    assert tile == Tile(b, a)
    assert hash(tile) == hash(Tile(b, a))


def test_doubles_pips_and_has() -> None:
    """A double shows the same number twice; pips add both halves; ``has`` checks either half."""
    assert [t for t in ALL_TILES if t.is_double] == [Tile(v, v) for v in HALVES]
    assert Tile(4, 1).pips == 5
    assert Tile(6, 6).pips == 12
    assert Tile(0, 0).pips == 0
    assert Tile(1, 4).has(1)
    assert Tile(1, 4).has(4)
    assert not Tile(1, 4).has(2)
    assert Tile(3, 3).has(3)


def test_tiles_are_ordered_by_low_then_high() -> None:
    """Tiles compare by ``(low, high)``, which is the order of ``ALL_TILES``."""
    assert sorted(ALL_TILES) == list(ALL_TILES)
    assert all(a < b for a, b in itertools.pairwise(ALL_TILES))
    assert Tile(0, 6) < Tile(1, 1) < Tile(1, 2) < Tile(6, 6)
    assert Tile(2, 5) > Tile(2, 4)
    assert max(ALL_TILES) == Tile(6, 6)
    assert min(ALL_TILES) == Tile(0, 0)


def test_index_numbers_the_tiles_0_to_27_in_set_order() -> None:
    """``index`` is the tile's position in ``ALL_TILES``: a dense id from 0 to 27."""
    assert [t.index for t in ALL_TILES] == list(range(28))
    assert Tile(0, 0).index == 0
    assert Tile(0, 6).index == 6
    assert Tile(1, 1).index == 7
    assert Tile(6, 1).index == 12
    assert Tile(6, 6).index == 27


def test_index_is_not_part_of_equality_or_construction() -> None:
    """The index is derived: it cannot be passed in, and equal tiles share it."""
    assert Tile(5, 2).index == Tile(2, 5).index
    with pytest.raises(TypeError):
        Tile(1, 2, 3)  # type: ignore[call-arg]  # the index is not a constructor argument


@pytest.mark.parametrize("tile", ALL_TILES, ids=str)
def test_str_is_the_bracket_notation_and_parses_back(tile: Tile) -> None:
    """``str`` writes ``[low|high]`` and ``parse_tile`` reads it back to the same tile."""
    text = str(tile)
    assert text == f"[{tile.low}|{tile.high}]"
    assert parse_tile(text) == tile


@pytest.mark.parametrize("tile", ALL_TILES, ids=str)
def test_repr_pastes_back(tile: Tile) -> None:
    """``repr`` is a constructor call that evaluates to an equal tile."""
    text = repr(tile)
    assert text == f"Tile({tile.low}, {tile.high})"
    assert eval(text, {"Tile": Tile}) == tile


def test_parse_tile_accepts_either_order_and_spaces() -> None:
    """``parse_tile`` takes the halves in either order, with spaces around them."""
    assert parse_tile("[4|1]") == Tile(1, 4)
    assert parse_tile(" [ 6 | 0 ] ") == Tile(0, 6)
    assert parse_tile("[3|3]") == Tile(3, 3)


@pytest.mark.parametrize(
    "text", ["1|4", "[1,4]", "[1|4", "[14]", "[1|4|5]", "", "[a|b]", "[1|4] [2|2]"]
)
def test_parse_tile_refuses_other_notations(text: str) -> None:
    """Text that is not one tile in ``[a|b]`` notation is refused with a message naming it."""
    with pytest.raises(ValueError, match="not a tile") as caught:
        parse_tile(text)
    assert repr(text) in str(caught.value)


@pytest.mark.parametrize("text", ["[7|1]", "[0|9]"])
def test_parse_tile_refuses_halves_above_six(text: str) -> None:
    """A half above 6 is not in a double-six set."""
    with pytest.raises(ValueError, match="from 0 to 6"):
        parse_tile(text)


def test_tiles_are_immutable_hashable_and_pickle() -> None:
    """A tile is a frozen value: no assignment, usable in sets, and it survives pickling."""
    tile = Tile(2, 5)
    with pytest.raises(AttributeError):
        tile.low = 0  # assigning to a frozen field is the point of the test
    assert {Tile(2, 5), Tile(5, 2)} == {tile}
    restored = pickle.loads(pickle.dumps(tile))
    assert restored == tile
    assert restored.index == tile.index


def test_tiles_keep_the_surface_of_a_frozen_attrs_class() -> None:
    """The functions of attrs, order, hashing, copies and refused assignment work as before.

    In the compiled build ``Tile`` is a native class, not an attrs class: this
    pins that it still behaves as the frozen attrs class it was.
    """
    tile = Tile(5, 2)
    assert attrs.has(Tile)
    fields = attrs.fields(Tile)
    assert [field.name for field in fields] == ["low", "high", "index", "is_double", "pips"]
    assert [field.name for field in fields if field.init] == ["low", "high"]
    assert [field.name for field in fields if field.eq] == ["low", "high"]
    assert Tile.__match_args__ == ("low", "high")
    expected = {"low": 2, "high": 5, "index": ALL_TILES.index(tile), "is_double": False, "pips": 7}
    assert attrs.asdict(tile) == expected
    # (mypy's attrs plugin knows only classes that attrs built.)
    unchecked: Any = tile
    assert attrs.evolve(unchecked, low=6) == Tile(5, 6)
    assert attrs.evolve(unchecked) is not tile
    assert attrs.evolve(unchecked) == tile
    # Copies and unpickled tiles are the interned ones; the hash is the index.
    for twin in (copy.copy(tile), copy.deepcopy(tile), pickle.loads(pickle.dumps(tile))):
        assert twin is ALL_TILES[tile.index]
    assert [hash(t) for t in ALL_TILES] == list(range(28))
    # Equality and order are between tiles only.
    assert tile == Tile(2, 5)
    assert not tile != Tile(2, 5)  # noqa: SIM202 (__ne__ is pinned too)
    assert tile != Tile(2, 6)
    assert tile != (2, 5)
    assert (tile == (2, 5)) is False
    assert Tile(2, 5) <= tile <= Tile(2, 5)
    assert Tile(2, 6) >= tile >= Tile(2, 4)
    assert not tile < Tile(2, 5)
    assert not tile > Tile(2, 5)
    for compare in (operator.lt, operator.le, operator.gt, operator.ge):
        with pytest.raises(TypeError):
            compare(tile, (2, 5))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        tile.pips = 0
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        del tile.high
    assert (tile.low, tile.high, tile.pips) == (2, 5, 7)
    match tile:
        case Tile(low, high):
            assert (low, high) == (2, 5)


_COMPARISONS = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}


def test_every_comparison_of_two_tiles_is_that_of_their_halves() -> None:
    """Each of the four orderings, between every two tiles, is that of ``(low, high)``.

    Each method answers for itself, not only through the reflected one that
    Python tries when a method gives up (``a < b`` falls back on ``b > a``),
    and gives up (NotImplemented) on anything but a tile, so that comparing a
    tile with another value is a TypeError. Kills the mutants of
    ``Tile.__lt__``, ``__le__``, ``__gt__`` and ``__ge__`` (the type test
    dropped or inverted, ``>=`` made ``>``).
    """
    for a, b in itertools.product(ALL_TILES, repeat=2):
        for name, compare in _COMPARISONS.items():
            expected = compare((a.low, a.high), (b.low, b.high))
            assert getattr(a, f"__{name}__")(b) is expected, (a, name, b)
            assert compare(a, b) is expected
    others: tuple[Any, ...] = (7, (2, 5), None)
    for name, compare in _COMPARISONS.items():
        for other in others:
            assert getattr(ALL_TILES[7], f"__{name}__")(other) is NotImplemented
            with pytest.raises(TypeError):
                compare(ALL_TILES[7], other)


@pytest.mark.parametrize("half", [-1, 7, 1.0, "1", True, None])
def test_a_half_that_is_not_an_integer_from_0_to_6_is_refused(half: object) -> None:
    """Either half must be an ``int`` from 0 to 6 (not a bool, a float or text).

    Kills the mutants of ``Tile.__init__``'s check of the halves (``or``
    made ``and``, the message lost).
    """
    message = f"a tile half must be an integer from 0 to 6, got {half!r}"
    for halves in ((half, 3), (3, half)):
        with pytest.raises(ValueError, match="tile half") as error:
            Tile(*halves)
        assert str(error.value) == message


def test_parse_tile_strict_reads_only_the_form_the_library_writes() -> None:
    """With ``strict``, ``"[a|b]"`` with ``a <= b`` and no space, read as the interned tile.

    Anything else, text or not, is refused with the code ``not_a_tile`` and
    a message quoting it. Kills the mutants of ``parse_tile``'s strict branch.
    """
    for tile in ALL_TILES:
        assert parse_tile(str(tile), strict=True) is tile
    texts: tuple[Any, ...] = ("[4|1]", " [1|4]", "[1|4] ", "[1 |4]", "[7|1]", "", 14, None)
    for text in texts:
        with pytest.raises(IllegalMove) as error:
            parse_tile(text, strict=True)
        assert error.value.code == "not_a_tile"
        assert str(error.value) == f"{text!r} is not a tile written '[a|b]' with a <= b"
    with pytest.raises(IllegalMove) as error:  # (unhashable: not looked up at all)
        parse_tile(["[1|4]"], strict=True)  # type: ignore[call-overload]
    assert error.value.code == "not_a_tile"


@pytest.mark.parametrize("text", ["[1|7]", "1|4", "[1|4]x", ""])
def test_parse_tile_refuses_with_the_code_not_a_tile(text: str) -> None:
    """The lenient reader's refusal carries the code ``not_a_tile``, as the strict one's does.

    Kills the mutants of ``parse_tile`` that change that code.
    """
    with pytest.raises(IllegalMove) as error:
        parse_tile(text)
    assert error.value.code == "not_a_tile"
    assert str(error.value) == f"not a tile: {text!r} (expected '[a|b]' with halves from 0 to 6)"
