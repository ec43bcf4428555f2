"""The deal of a round, given by hand: every hand, the stock in draw order, the opener.

:class:`Deal` is re-exported by :mod:`american_sniff.state` and the package. It
lives in a module of its own, which is never compiled, because it is an attrs
class with converters: mypyc compiles :mod:`~american_sniff.state` (whose
classes are native when compiled) but not attrs' field converters.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from itertools import repeat

import attrs

from .errors import InvalidDeal
from .rules import HAND_SIZE, PLAYER_COUNTS
from .tiles import ALL_TILES, Tile

__all__ = ["MAX_DEALS", "Deal", "tile_index"]

#: The most deals :func:`~american_sniff.new_match` takes, one a round: far more
#: than play needs (the longest of 450 matches of random moves had 67 rounds).
#: Every reader of a list of deals or rounds refuses a longer one unread.
MAX_DEALS = 1000


def tile_index(tile: Tile) -> int:
    """Sort key of tiles: their index in ALL_TILES."""
    return tile.index


_INDEX = operator.attrgetter("index")
#: The set of tiles as a bit mask, bit ``tile.index`` for each tile.
_ALL_TILES_MASK = (1 << len(ALL_TILES)) - 1


def _sorted_hand(tiles: tuple[Tile, ...]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles, key=tile_index))


def _tile_tuple(value: Iterable[object], what: str) -> tuple[Tile, ...]:
    try:
        tiles = tuple(value)
    except TypeError:
        raise InvalidDeal(f"{what} must be a sequence of tiles, got {value!r}") from None
    # (Both loops run in C: a reader builds up to MAX_DEALS deals from a text.)
    if not all(map(isinstance, tiles, repeat(Tile))):
        for tile in tiles:
            if not isinstance(tile, Tile):
                raise InvalidDeal(f"{what} holds {tile!r}, which is not a Tile")
    # The engine works with the interned tiles of ALL_TILES (it compares them
    # by identity), so equal tiles made elsewhere are swapped for those.
    return tuple(map(ALL_TILES.__getitem__, map(_INDEX, tiles)))


def _hands(value: Iterable[Iterable[object]]) -> tuple[tuple[Tile, ...], ...]:
    # Hands are given seat by seat, so an unordered collection is refused.
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InvalidDeal(f"hands must be a sequence of hands, seat 0 first, got {value!r}")
    hands = tuple(value)
    return tuple(_sorted_hand(_tile_tuple(h, f"hand {i}")) for i, h in enumerate(hands))


def _stock(value: Iterable[object]) -> tuple[Tile, ...]:
    # The stock is drawn in the order given, so an unordered collection is refused.
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InvalidDeal(
            f"the stock must be a sequence (tuple or list) in draw order, got {value!r}"
        )
    return _tile_tuple(value, "the stock")


@attrs.frozen
class Deal:
    """The deal of one round: every hand, the stock in draw order, and maybe the opener.

    Give deals to :func:`~american_sniff.new_match` to replay a recorded match
    or to test another implementation on chosen positions. Hands are kept
    sorted; the stock keeps the given order, and its first tile is drawn
    first.

    :ivar hands: The tiles dealt to each seat, seat 0 first (each kept sorted).
    :ivar stock: The undealt tiles, in the order they will be drawn.
    :ivar opener: The outcome of the lot, used only where the rules call for
        one (the first round, and a round after a block); None to draw the lot
        from the seed. Where the previous round's finisher opens, it is not used.

    :raises InvalidDeal: if the hands are not all the same size or the tiles
        are not exactly the 28 tiles of the set, each once.
    """

    hands: tuple[tuple[Tile, ...], ...] = attrs.field(converter=_hands)
    stock: tuple[Tile, ...] = attrs.field(converter=_stock)
    opener: int | None = None

    def __attrs_post_init__(self) -> None:
        players = len(self.hands)
        if players not in PLAYER_COUNTS:
            raise InvalidDeal(f"a deal has 2, 3 or 4 hands, got {players}")
        size = HAND_SIZE[players]
        for seat, hand in enumerate(self.hands):
            if len(hand) != size:
                raise InvalidDeal(
                    f"with {players} players each hand has {size} tiles; "
                    f"hand {seat} has {len(hand)}"
                )
        dealt = [t for hand in self.hands for t in hand] + list(self.stock)
        # Every tile once: 28 tiles whose bits (by index) make up the whole set.
        # Only a deal that is not is walked again below, to name the problem.
        mask = 0
        for tile in dealt:
            mask |= 1 << tile.index
        if mask == _ALL_TILES_MASK and len(dealt) == len(ALL_TILES):
            self._check_opener(players)
            return
        seen: set[Tile] = set()
        for tile in dealt:
            if tile in seen:
                raise InvalidDeal(f"{tile} is dealt twice")
            seen.add(tile)
        missing = [str(t) for t in ALL_TILES if t not in seen]
        if missing:
            raise InvalidDeal(f"the deal lacks {', '.join(missing)}")
        self._check_opener(players)

    def _check_opener(self, players: int) -> None:
        if self.opener is not None and (
            type(self.opener) is not int or not 0 <= self.opener < players
        ):
            raise InvalidDeal(f"opener must be a seat from 0 to {players - 1}, got {self.opener!r}")

    @property
    def players(self) -> int:
        """The number of seats dealt to."""
        return len(self.hands)
