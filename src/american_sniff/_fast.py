"""The fast representation behind the engine: interned objects, the legal-move cache, constructors.

The public values (:class:`~american_sniff.Tile`, :class:`~american_sniff.Point`,
:class:`~american_sniff.Place`, :class:`~american_sniff.MatchState`) are
ordinary frozen attrs classes, and :class:`~american_sniff.Layout` is a frozen
class written to behave like one. To keep an action at a constant, small cost
the engine builds and recognises them through this module. The table's
geometry on point keys (how a tile joins, when the Sniff branches, what each
free side counts) is not here: it is :mod:`american_sniff.layout`'s, on the
point table of :mod:`american_sniff.points`. This module imports the core
modules it serves, and none of them imports it (only the engine, and the
layers above it, do).

**Interned objects.** There is exactly one :class:`~american_sniff.Tile` per
index (``ALL_TILES``; copies and unpickled tiles come back as those, see
``Tile.__reduce__``), one :class:`~american_sniff.Point` per key
(:data:`~american_sniff.points.POINT_OF_KEY`), and one move object per
placement: :data:`PLACE` holds the ``Place`` of each tile on each key,
:data:`OPEN` the opening ``Place`` of each tile, and :data:`DRAW` and
:data:`PASS` the two other moves. The engine's ``legal_moves`` hands out only
these, and caches its tuple in the state (:func:`~american_sniff.state.legal_cache`).
``apply`` then recognises a move by *identity*:
a move that is one of the objects of the state's own cached tuple was produced
for that very state, so it is legal there and needs no check. Identity is safe
because the cache belongs to one state object and states never change; any
other object, equal or not, takes the full check in the engine, and equal
moves give equal results either way. Draw-only and pass-only states share the
tuples :data:`DRAW_ONLY` and :data:`PASS_ONLY`, so ``apply`` knows such a state
was already checked by comparing the cache with them.

**Slot-level constructors.** :func:`new_state`, :func:`new_round_info` and
:func:`new_round_result` (and :func:`~american_sniff.layout.new_layout`, with
its class) build the engine's results by storing each field straight into its
slot, skipping the validating, per-field ``object.__setattr__`` of attrs'
frozen ``__init__`` (the values come from the engine and are consistent by
construction). The interpreted build replaces :func:`new_state` with a
generated twin that does the same faster
(:func:`~american_sniff._native.twin_constructor`). The objects are ordinary
frozen instances: ``attrs.evolve``, equality, hashing and pickle use the
fields and see exactly what ``__init__`` would have stored (tests check this
for every field). The legal-move cache is a field with ``eq=False`` and
``init=False``: it is not part of a state's value, ``attrs.evolve`` starts the
new state with an empty cache, and pickle keeps it (it is still right for the
equal state). :func:`with_tile` builds the hand of a player who drew.

**Sharing.** A new layout or state shares every unchanged field with the old
one (hands of other seats, the round's constants, the score tuple), and the
histories are chains of tuples, newest first, that each action extends by one
node (:func:`~american_sniff.state.extended_log`). Nothing is copied, so an
action costs the same whatever came before.

The pure-Python and the mypyc-compiled builds run this same code, except where
:data:`~american_sniff._native.COMPILED` picks a faster route for one of them
(the constructors, and the shuffle): tests check that both routes agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TypeVar

from ._native import COMPILED, same_names, twin_constructor
from .layout import FREE_KEY, Layout
from .moves import Draw, Move, Pass, Place
from .points import POINT_OF_KEY, Point
from .rng import shuffled
from .state import ActionLog, MatchState, RoundInfo, RoundResult
from .tiles import ALL_TILES, Tile

if TYPE_CHECKING:
    # A 64-bit machine integer to mypyc; a plain int to the interpreter, which
    # never imports it.
    from mypy_extensions import i64

__all__ = [
    "DRAW",
    "DRAW_ONLY",
    "OPEN",
    "PASS",
    "PASS_ONLY",
    "PLACE",
    "interned_place",
    "new_round_info",
    "new_round_result",
    "new_state",
    "shuffled_indices",
    "shuffled_indices_in_halves",
    "with_tile",
]


# -- interned moves ------------------------------------------------------------------

#: The one Draw and the one Pass that legal_moves hands out.
DRAW: Final = Draw()
PASS: Final = Pass()
#: The legal moves of a player who must draw, or must pass; shared by every such state.
DRAW_ONLY: Final[tuple[Move, ...]] = (DRAW,)
PASS_ONLY: Final[tuple[Move, ...]] = (PASS,)
#: The opening placement of each tile, by tile index.
OPEN: Final = tuple(Place(tile) for tile in ALL_TILES)
#: ``PLACE[tile.index][key]``: the Place of that tile on that key, or None where
#: the tile does not fit (where the table's geometry gives it no free key).
PLACE: Final = tuple(
    [
        None if point is None or FREE_KEY[tile.index][key] < 0 else Place(tile, point)
        for key, point in enumerate(POINT_OF_KEY)
    ]
    for tile in ALL_TILES
)


def interned_place(tile: Tile, at: Point | None) -> Place:
    """The interned ``Place(tile, at)``, for a placement that fits (checked before).

    :raises ValueError: if ``tile`` does not fit ``at``.
    """
    if at is None:
        return OPEN[tile.index]
    interned = PLACE[tile.index][at.order]
    if interned is None:
        raise ValueError(f"{tile} does not fit {at}")
    return interned


# -- hands -------------------------------------------------------------------------


def with_tile(hand: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    """``hand`` plus ``tile``, kept sorted by tile index."""
    index = tile.index
    position = 0
    for held in hand:
        if held.index > index:
            break
        position += 1
    return hand[:position] + (tile,) + hand[position:]


# -- slot-level constructors --------------------------------------------------------------
# (How each build fills slots: see american_sniff._native.)

_T = TypeVar("_T")


def new_state(
    *,
    info: RoundInfo,
    turn: int,
    hands: tuple[tuple[Tile, ...], ...],
    layout: Layout,
    scores: tuple[int, ...],
    winner: int | None = None,
    drawn: Tile | None = None,
    drawn_count: int,
    log: ActionLog,
) -> MatchState:
    """``MatchState(...)`` for the engine's own, consistent values, stored slot by slot.

    Nobody has won and no drawn tile waits to be placed unless ``winner`` and
    ``drawn`` say so. The legal-move cache starts empty.
    """
    state: MatchState = object.__new__(MatchState)
    object.__setattr__(state, "info", info)
    object.__setattr__(state, "turn", turn)
    object.__setattr__(state, "hands", hands)
    object.__setattr__(state, "layout", layout)
    object.__setattr__(state, "scores", scores)
    object.__setattr__(state, "winner", winner)
    object.__setattr__(state, "drawn", drawn)
    object.__setattr__(state, "drawn_count", drawn_count)
    object.__setattr__(state, "_log", log)
    object.__setattr__(state, "_legal", None)
    return state


if not COMPILED:
    globals().update(
        new_state=twin_constructor(
            MatchState, new_state, {**same_names(MatchState), "_legal": "None"}
        ),
    )


def _filled(cls: type[_T], fields: dict[str, object]) -> _T:
    """An instance of the frozen attrs class ``cls`` with its slots set from ``fields``."""
    instance: _T = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(instance, name, value)
    return instance


def new_round_info(**fields: object) -> RoundInfo:
    """``RoundInfo(**fields)`` for the engine's own, consistent values, stored slot by slot.

    The fields are exactly RoundInfo's (a test checks the result against attrs).
    """
    return _filled(RoundInfo, fields)


def new_round_result(**fields: object) -> RoundResult:
    """``RoundResult(**fields)`` for the engine's own values; ``log`` is stored as ``_log``."""
    fields["_log"] = fields.pop("log")
    return _filled(RoundResult, fields)


# -- the seeded shuffle -------------------------------------------------------------------
# :mod:`american_sniff.rng` specifies the shuffle with 64-bit integers. Compiled
# code keeps integers below 2**62 unboxed, and the 64-bit products of SplitMix64
# are far above that, so the compiled build runs the same arithmetic on 32-bit
# halves instead, with every intermediate value below 2**52, typed as 64-bit
# machine integers (``i64``) that can never overflow: the same outputs (a test
# checks them against rng.py), a fraction of the cost. The pure-Python build
# keeps rng.py's version, which CPython runs faster.

_M32: Final = 0xFFFFFFFF
# SplitMix64's three constants (rng.py), each cut into its high and low halves.
_GAMMA_HI: Final = 0x9E3779B97F4A7C15 >> 32
_GAMMA_LO: Final = 0x9E3779B97F4A7C15 & _M32
_C1_HI: Final = 0xBF58476D1CE4E5B9 >> 32
_C1_LO: Final = 0xBF58476D1CE4E5B9 & _M32
_C2_HI: Final = 0x94D049BB133111EB >> 32
_C2_LO: Final = 0x94D049BB133111EB & _M32


def _times(hi: i64, lo: i64, c_hi: i64, c_lo: i64) -> tuple[i64, i64]:
    """``(hi, lo) * (c_hi, c_lo)`` modulo 2**64, each number as its 32-bit halves.

    Every multiplication is of two 16-bit numbers, which compiled code does
    without leaving machine integers.
    """
    l1, l0 = lo >> 16, lo & 0xFFFF
    h1, h0 = hi >> 16, hi & 0xFFFF
    k1, k0 = c_lo >> 16, c_lo & 0xFFFF
    j1, j0 = c_hi >> 16, c_hi & 0xFFFF
    # lo * c_lo in full: low 32 bits, and what carries into the high half.
    middle = l0 * k1 + l1 * k0
    low = l0 * k0 + ((middle & 0xFFFF) << 16)
    high = (low >> 32) + (middle >> 16) + l1 * k1
    # hi * c_lo and lo * c_hi count only modulo 2**32 (their 2**64 parts drop out).
    high += h0 * k0 + (((h0 * k1 + h1 * k0) & 0xFFFF) << 16)
    high += l0 * j0 + (((l0 * j1 + l1 * j0) & 0xFFFF) << 16)
    return high & _M32, low & _M32


def _output(hi: i64, lo: i64) -> tuple[i64, i64]:
    """SplitMix64's output for the generator state ``(hi, lo)``, as 32-bit halves."""
    lo ^= ((lo >> 30) | (hi << 2)) & _M32
    hi ^= hi >> 30
    hi, lo = _times(hi, lo, _C1_HI, _C1_LO)
    lo ^= ((lo >> 27) | (hi << 5)) & _M32
    hi ^= hi >> 27
    hi, lo = _times(hi, lo, _C2_HI, _C2_LO)
    lo ^= ((lo >> 31) | (hi << 1)) & _M32
    hi ^= hi >> 31
    return hi, lo


#: For each small n: the low halves from which an output whose high half is
#: all ones is redrawn by ``below(n)`` (2**32 - 2**64 % n).
_REDRAW: Final = tuple((1 << 32) - (1 << 64) % n if n else 0 for n in range(65))


def shuffled_indices_in_halves(count: int, state: int) -> tuple[list[int], int]:
    """``rng.shuffled(tuple(range(count)), state)``, computed on 32-bit halves.

    Returns the shuffled indices (as a list) and the new generator state.

    :raises ValueError: if ``count`` is over 64.
    """
    if count >= len(_REDRAW):
        raise ValueError(f"the shuffle on halves takes up to 64 items, not {count}")
    hi: i64 = state >> 32
    lo: i64 = state & _M32
    # Declared here so that mypyc types them as machine integers; never read as 0.
    out_hi: i64 = 0
    out_lo: i64 = 0
    order = list(range(count))
    for i in range(count - 1, 0, -1):
        n: i64 = i + 1
        redraw: i64 = _REDRAW[n]
        while True:
            lo += _GAMMA_LO
            hi = (hi + _GAMMA_HI + (lo >> 32)) & _M32
            lo &= _M32
            out_hi, out_lo = _output(hi, lo)
            if out_hi != _M32 or out_lo < redraw:
                break
        # The output modulo n, from its halves: hi * 2**32 + lo.
        j = ((out_hi % n) * ((1 << 32) % n) + out_lo) % n
        order[i], order[j] = order[j], order[i]
    return order, int(hi) << 32 | int(lo)


def shuffled_indices(count: int, state: int) -> tuple[list[int], int]:
    """The seeded shuffle of ``range(count)``: ``(indices, new generator state)``.

    As :func:`american_sniff.rng.shuffled`, by the fastest route for the build.
    """
    if COMPILED:
        return shuffled_indices_in_halves(count, state)
    order, state = shuffled(tuple(range(count)), state)
    return list(order), state
