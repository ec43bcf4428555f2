"""Tiles of the double-six set."""

from __future__ import annotations

import re
from typing import Any, ClassVar, cast, overload

import attrs

from . import rules
from ._native import COMPILED, attrs_fields
from .errors import IllegalMove

__all__ = ["ALL_TILES", "MAX_PIPS", "Tile", "parse_tile"]

#: The highest number of pips on one half of a tile in a double-six set
#: (:data:`american_sniff.rules.MAX_PIPS`, where the number is written).
MAX_PIPS = rules.MAX_PIPS

_TILE_TEXT = re.compile(r"\s*\[\s*([0-9])\s*\|\s*([0-9])\s*\]\s*")


class Tile:
    """One tile of the double-six set, written ``[low|high]``.

    The halves are normalised on construction, so ``Tile(4, 1) == Tile(1, 4)``.
    Tiles are ordered by ``(low, high)``, which is also the order of
    :data:`ALL_TILES`.

    >>> Tile(4, 1)
    Tile(1, 4)
    >>> str(Tile(4, 1)), Tile(4, 1).pips, Tile(3, 3).is_double
    ('[1|4]', 5, True)

    It behaves as a frozen attrs class: it compares, orders, hashes and
    pickles by its halves, and ``attrs.fields``, ``attrs.evolve`` and
    ``attrs.asdict`` work on it; assigning a field raises ``attrs.exceptions.FrozenInstanceError``.
    (It is written out by hand rather than with attrs, so that the compiled
    build can make it a native class: the engine reads tiles on every action.)

    :ivar low: The smaller half, from 0 to 6.
    :ivar high: The larger half, from 0 to 6; equal to :attr:`low` for a double.
    :ivar index: Where the tile stands in :data:`ALL_TILES` (0 to 27): a dense
        integer id, derived from the halves; it is also the tile's hash.
    :ivar is_double: Whether both halves show the same number (derived).
    :ivar pips: The pips on the whole tile, both halves together (derived).
    :raises ValueError: if a half is not an integer from 0 to 6.
    """

    __slots__ = ("high", "index", "is_double", "low", "pips")
    #: attrs' description of the fields (set below the class), for attrs' functions.
    __attrs_attrs__: ClassVar[Any]
    __match_args__: ClassVar[tuple[str, ...]] = ("low", "high")

    low: int
    high: int
    index: int
    is_double: bool
    pips: int

    # (The halves are typed ``object``: a wrong one is refused with the
    # ValueError below in both builds, not by the compiled build's argument check.)
    def __init__(self, low: object, high: object) -> None:
        for half in (low, high):
            if type(half) is not int or not 0 <= half <= MAX_PIPS:
                raise ValueError(
                    f"a tile half must be an integer from 0 to {MAX_PIPS}, got {half!r}"
                )
        a = cast(int, low)
        b = cast(int, high)
        if a > b:
            a, b = b, a
        # Tiles are numbered in (low, high) order: 0-0, 0-1, ..., 0-6, 1-1, ...
        index = a * (2 * MAX_PIPS + 3 - a) // 2 + b - a
        if COMPILED:
            # A native class: its own stores go straight into the object,
            # past the __setattr__ that refuses everyone else's.
            self.low = a
            self.high = b
            self.index = index
            self.is_double = a == b
            self.pips = a + b
            return
        store = object.__setattr__
        store(self, "low", a)
        store(self, "high", b)
        store(self, "index", index)
        store(self, "is_double", a == b)
        store(self, "pips", a + b)

    def has(self, value: int) -> bool:
        """Whether either half shows ``value``."""
        return self.low == value or self.high == value

    def __setattr__(self, name: str, value: object) -> None:
        raise attrs.exceptions.FrozenInstanceError

    def __delattr__(self, name: str) -> None:
        raise attrs.exceptions.FrozenInstanceError

    # Equality and order by the halves; the index orders as (low, high) does.
    def __eq__(self, other: object) -> bool:
        if type(other) is not Tile:
            return NotImplemented
        return self.index == other.index

    def __ne__(self, other: object) -> bool:
        if type(other) is not Tile:
            return NotImplemented
        return self.index != other.index

    def __lt__(self, other: object) -> bool:
        if type(other) is not Tile:
            return NotImplemented
        return self.index < other.index

    def __le__(self, other: object) -> bool:
        if type(other) is not Tile:
            return NotImplemented
        return self.index <= other.index

    def __gt__(self, other: object) -> bool:
        if type(other) is not Tile:
            return NotImplemented
        return self.index > other.index

    def __ge__(self, other: object) -> bool:
        if type(other) is not Tile:
            return NotImplemented
        return self.index >= other.index

    def __hash__(self) -> int:
        return self.index

    def __str__(self) -> str:
        return f"[{self.low}|{self.high}]"

    def __repr__(self) -> str:
        return f"Tile({self.low}, {self.high})"

    def __replace__(self, **changes: object) -> Tile:
        """``copy.replace(tile, low=..., high=...)`` (Python 3.13 on): the interned tile.

        :raises TypeError: for a name that is not ``low`` or ``high``.
        """
        unknown = sorted(set(changes) - {"low", "high"})
        if unknown:
            raise TypeError(f"Tile has no field {unknown[0]!r} to replace (it has low and high)")
        # The interned tile, as a copy gives (the engine compares tiles by identity).
        return _interned_tile(
            Tile(changes.get("low", self.low), changes.get("high", self.high)).index
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and unpickled tiles are the interned instances of ALL_TILES.

        The engine compares tiles by identity.
        """
        return (_interned_tile, (self.index,))


# attrs' view of the class: each field as attrs would declare it (the derived
# ones are not arguments and take no part in equality or order).
setattr(  # noqa: B010 (a class attribute of a native class is set like this)
    Tile,
    "__attrs_attrs__",
    attrs_fields(
        "Tile",
        {
            "low": attrs.field(),
            "high": attrs.field(),
            **{
                name: attrs.field(init=False, eq=False, order=False)
                for name in ("index", "is_double", "pips")
            },
        },
    ),
)


# The public signatures are the overloads; the implementation takes any value,
# so that a wrong one is refused with the IllegalMove below in both builds, not
# by the compiled build's argument check.
@overload
def parse_tile(text: str) -> Tile: ...
@overload
def parse_tile(text: str, *, strict: bool) -> Tile: ...
def parse_tile(text: object, *, strict: object = False) -> Tile:
    """Read a tile written ``[a|b]``; the one reader of the tile notation.

    Lenient by default: the halves in either order, spaces allowed around
    them. With ``strict``, only the form every document of the library
    writes: ``"[a|b]"`` with ``a <= b`` and no space; the library's own
    instance is returned.

    >>> parse_tile("[4|1]"), parse_tile(" [ 1 | 4 ] ")
    (Tile(1, 4), Tile(1, 4))
    >>> parse_tile("[1|4]", strict=True)
    Tile(1, 4)
    >>> parse_tile("[4|1]", strict=True)
    Traceback (most recent call last):
    ...
    american_sniff.errors.IllegalMove: '[4|1]' is not a tile written '[a|b]' with a <= b

    :raises IllegalMove: (a :class:`ValueError`) with code ``not_a_tile`` if
        ``text`` is not a tile in that notation.
    """
    if strict:
        tile = _TILE_OF_TEXT.get(text) if isinstance(text, str) else None
        if tile is None:
            raise IllegalMove(f"{text!r} is not a tile written '[a|b]' with a <= b", "not_a_tile")
        return tile
    match = _TILE_TEXT.fullmatch(text) if isinstance(text, str) else None
    if match is None or max(int(match.group(1)), int(match.group(2))) > MAX_PIPS:
        raise IllegalMove(
            f"not a tile: {text!r} (expected '[a|b]' with halves from 0 to 6)", "not_a_tile"
        )
    return Tile(int(match.group(1)), int(match.group(2)))


def _interned_tile(index: int) -> Tile:
    """The tile of :data:`ALL_TILES` with the given index."""
    return ALL_TILES[index]


#: The 28 tiles of the double-six set, in ``(low, high)`` order.
ALL_TILES: tuple[Tile, ...] = tuple(
    Tile(a, b) for a in range(MAX_PIPS + 1) for b in range(a, MAX_PIPS + 1)
)

#: Every tile by its strict text: reading a tile strictly is one look-up.
_TILE_OF_TEXT = {str(tile): tile for tile in ALL_TILES}
