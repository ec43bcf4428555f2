"""Tiles of the double-six set."""

from __future__ import annotations

import re
from typing import Any

import attrs

from .errors import IllegalMove

__all__ = ["ALL_TILES", "MAX_PIPS", "Tile", "parse_tile"]

#: The highest number of pips on one half of a tile in a double-six set.
MAX_PIPS = 6

_TILE_TEXT = re.compile(r"\s*\[\s*([0-9])\s*\|\s*([0-9])\s*\]\s*")


@attrs.frozen(order=True, cache_hash=True, repr=False)
class Tile:
    """One tile of the double-six set, written ``[low|high]``.

    The halves are normalised on construction, so ``Tile(4, 1) == Tile(1, 4)``.
    Tiles are ordered by ``(low, high)``, which is also the order of
    :data:`ALL_TILES`.

    >>> Tile(4, 1)
    Tile(1, 4)
    >>> str(Tile(4, 1)), Tile(4, 1).pips, Tile(3, 3).is_double
    ('[1|4]', 5, True)

    :ivar low: The smaller half, from 0 to 6.
    :ivar high: The larger half, from 0 to 6; equal to :attr:`low` for a double.
    :ivar index: Where the tile stands in :data:`ALL_TILES` (0 to 27): a dense
        integer id, derived from the halves.
    :ivar is_double: Whether both halves show the same number (derived).
    :ivar pips: The pips on the whole tile, both halves together (derived).
    :raises ValueError: if a half is not an integer from 0 to 6.
    """

    low: int
    high: int
    index: int = attrs.field(init=False, eq=False, order=False)
    is_double: bool = attrs.field(init=False, eq=False, order=False)
    pips: int = attrs.field(init=False, eq=False, order=False)

    def __attrs_post_init__(self) -> None:
        a, b = self.low, self.high
        for half in (a, b):
            if type(half) is not int or not 0 <= half <= MAX_PIPS:
                raise ValueError(
                    f"a tile half must be an integer from 0 to {MAX_PIPS}, got {half!r}"
                )
        low, high = (a, b) if a <= b else (b, a)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        # Tiles are numbered in (low, high) order: 0-0, 0-1, ..., 0-6, 1-1, ...
        object.__setattr__(self, "index", low * (2 * MAX_PIPS + 3 - low) // 2 + high - low)
        object.__setattr__(self, "is_double", low == high)
        object.__setattr__(self, "pips", low + high)

    def has(self, value: int) -> bool:
        """Whether either half shows ``value``."""
        return self.low == value or self.high == value

    def __str__(self) -> str:
        return f"[{self.low}|{self.high}]"

    def __repr__(self) -> str:
        return f"Tile({self.low}, {self.high})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and unpickled tiles are the interned instances of ALL_TILES.

        The engine compares tiles by identity.
        """
        return (_interned_tile, (self.index,))


def parse_tile(text: str, *, strict: bool = False) -> Tile:
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
        tile = _TILE_OF_TEXT.get(text)
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
