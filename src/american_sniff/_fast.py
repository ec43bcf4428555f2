"""The fast representation behind the engine: private, and the only place that knows it.

The public values (:class:`~american_sniff.Tile`, :class:`~american_sniff.Point`,
:class:`~american_sniff.Place`) are ordinary frozen attrs classes, and
:class:`~american_sniff.Layout` and :class:`~american_sniff.MatchState` (with
its ``RoundInfo`` and ``RoundResult``) are frozen classes written to behave
like them, native classes when compiled. To keep an action at a constant, small cost
the engine works on them through this module, which owns four tricks. Nothing
outside this module relies on them.

**Point keys and masks.** Inside a layout an open point is a small integer, its
*key*: ``tile.index * 8 + rank``, with the ranks ``low`` 0, ``high`` 1,
``line_a`` 2, ``line_b`` 3, ``branch_a`` 4 and ``branch_b`` 5 (the order of
:class:`~american_sniff.Side`). A point's key is its public
:attr:`~american_sniff.Point.order`, so sorting keys sorts points. Tables
indexed by key give each point's :class:`~american_sniff.Point`, the value a
tile must show there, ``1 << value``, and what the free side adds to the end
sum. A layout keeps the mask of open values (bit ``v`` set when some open point
shows ``v``) and a tile needs only ``tile_values[index] & mask`` to know
whether it fits anywhere. Integers compare, sort and search in C.

**Interned objects.** There is exactly one :class:`~american_sniff.Tile` per
index (``ALL_TILES``; copies and unpickled tiles come back as those, see
``Tile.__reduce__``), one :class:`~american_sniff.Point` per key, and one move
object per placement: :data:`PLACE` holds the ``Place`` of each tile on each
key, :data:`OPEN` the opening ``Place`` of each tile, and :data:`DRAW` and
:data:`PASS` the two other moves. :func:`legal_moves` hands out only these, and
caches its tuple in the state. :func:`handed_out` then recognises a move by
*identity*: a move that is one of the objects of the state's own cached tuple
was produced for that very state, so it is legal there and needs no check.
Identity is safe because the cache belongs to one state object and states never
change; any other object, equal or not, takes the full check in the engine, and
equal moves give equal results either way. Draw-only and pass-only states share
the tuples :data:`DRAW_ONLY` and :data:`PASS_ONLY`, so ``apply`` knows such a
state was already checked by comparing the cache with them.

**Slot-level constructors.** :func:`new_layout` and :func:`new_state` build the
engine's results by the fastest route for the build: the native constructor
when compiled, and in the interpreted build generated twins that store each
field straight into its slot (see the section's comment below). The objects
are ordinary frozen instances: ``attrs.evolve``, equality, hashing and pickle
use the fields and see exactly what ``__init__`` would have stored (tests
check this for every field). The legal-move cache is a field with
``eq=False`` and ``init=False``: it is not
part of a state's value, ``attrs.evolve`` starts the new state with an empty
cache, and pickle keeps it (it is still right for the equal state).

**Sharing.** A new layout or state shares every unchanged field with the old
one (hands of other seats, the round's constants, the score tuple), and the
histories are chains of tuples, newest first, that each action extends by one
node. Nothing is copied, so an action costs the same whatever came before.

The pure-Python and the mypyc-compiled builds run this same code, except where
:data:`~american_sniff._native.COMPILED` picks a faster route for one of them
(the constructors, and the shuffle): tests check that both routes agree.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final, TypeVar

from ._native import COMPILED
from .layout import Layout, PlacementLog, Point, Side
from .moves import Draw, Move, Pass, Place
from .rng import shuffled, shuffled_indices_in_halves
from .state import ActionLog, MatchState, RoundInfo, RoundResult
from .tiles import ALL_TILES, Tile

__all__ = [
    "BIT_OF_KEY",
    "BRANCH_A",
    "COMPILED",
    "DRAW",
    "DRAW_ONLY",
    "LINE_A",
    "LINE_B",
    "OPEN",
    "PASS",
    "PASS_ONLY",
    "PLACE",
    "POINT_OF_KEY",
    "TILE_VALUES",
    "VALUE_OF_KEY",
    "WORTH_OF_KEY",
    "can_place",
    "end_sum_of",
    "handed_out",
    "is_lone_double",
    "key_of",
    "legal_cache",
    "log_of",
    "new_layout",
    "new_round_info",
    "new_round_result",
    "new_state",
    "placed",
    "set_legal_cache",
    "shuffled_indices",
    "with_tile",
    "without_tile",
]


# -- point keys and masks ----------------------------------------------------------

LOW: Final = 0
HIGH: Final = 1
LINE_A: Final = 2
LINE_B: Final = 3
BRANCH_A: Final = 4
BRANCH_B: Final = 5
_RANK: Final = {
    Side.LOW: LOW,
    Side.HIGH: HIGH,
    Side.LINE_A: LINE_A,
    Side.LINE_B: LINE_B,
    Side.BRANCH_A: BRANCH_A,
    Side.BRANCH_B: BRANCH_B,
}


def key_of(tile: Tile, side: Side) -> int:
    """The key of a tile's side: ``tile.index * 8 + rank`` (equal to ``Point.order``)."""
    return tile.index * 8 + _RANK[side]


def _points() -> list[Point | None]:
    table: list[Point | None] = [None] * (8 * len(ALL_TILES))
    for tile in ALL_TILES:
        sides = (
            (Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B)
            if tile.is_double
            else (Side.LOW, Side.HIGH)
        )
        for side in sides:
            table[key_of(tile, side)] = Point(tile, side)
    return table


#: The Point of each key (None for keys no tile has).
POINT_OF_KEY: Final = _points()
#: The value a tile placed on each key must show.
VALUE_OF_KEY: Final = [0 if p is None else p.value for p in POINT_OF_KEY]
#: ``1 << value`` for each key, to build a layout's mask of open values.
BIT_OF_KEY: Final = [1 << v for v in VALUE_OF_KEY]
#: What each key adds to the end sum while it is free: a non-double's end or a
#: branch of the Sniff counts its number, a line side of a double both halves.
#: (A lone opening double has both line sides free and counts once; see
#: :func:`end_sum_of`.)
WORTH_OF_KEY: Final = [
    2 * v if key & 7 in (LINE_A, LINE_B) else v for key, v in enumerate(VALUE_OF_KEY)
]
#: Bit ``v`` set for each half ``v`` of each tile, by tile index.
TILE_VALUES: Final = tuple(1 << tile.low | 1 << tile.high for tile in ALL_TILES)


def is_lone_double(open_keys: tuple[int, ...]) -> bool:
    """Whether the open keys are both line sides of one double: an opening double alone."""
    return len(open_keys) == 2 and open_keys[0] & 7 == LINE_A and open_keys[1] == open_keys[0] + 1


def end_sum_of(open_keys: tuple[int, ...]) -> int:
    """The end sum of a table whose open points are ``open_keys`` (in increasing order).

    This is the one definition of what counts: the worth of every free side,
    except that a double lying alone with both line sides free counts once.
    """
    total = 0
    for key in open_keys:
        total += WORTH_OF_KEY[key]
    # A lone opening double (both line sides of one tile free) counts once.
    if len(open_keys) == 2 and is_lone_double(open_keys):  # (the length first: no call)
        total -= WORTH_OF_KEY[open_keys[0]]
    return total


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
#: the tile does not fit (or the key is the tile's own).
PLACE: Final = tuple(
    [
        None
        if point is None or point.tile is tile or not tile.has(point.value)
        else Place(tile, point)
        for point in POINT_OF_KEY
    ]
    for tile in ALL_TILES
)


# -- hands -------------------------------------------------------------------------


def can_place(hand: tuple[Tile, ...], values: int) -> bool:
    """Whether a tile of ``hand`` shows a number in the mask ``values``."""
    for tile in hand:
        if TILE_VALUES[tile.index] & values:
            return True
    return False


def without_tile(hand: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    """``hand`` less ``tile`` (which it holds), order kept."""
    position = 0
    for held in hand:
        if held is tile:
            break
        position += 1
    else:  # a hand built outside the engine may hold equal, non-interned tiles
        position = hand.index(tile)
    return hand[:position] + hand[position + 1 :]


def with_tile(hand: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    """``hand`` plus ``tile``, kept sorted by tile index."""
    index = tile.index
    position = 0
    for held in hand:
        if held.index > index:
            break
        position += 1
    return hand[:position] + (tile,) + hand[position:]


# -- the legal-move cache and the identity check ------------------------------------------

_set_legal = vars(MatchState)["_legal"].__set__  # the interpreter's fastest store


def legal_cache(state: MatchState) -> tuple[Move, ...] | None:
    """The legal moves cached in ``state``, or None if they were not listed yet."""
    return state._legal


def set_legal_cache(state: MatchState, moves: tuple[Move, ...]) -> None:
    """Cache ``moves`` as the legal moves of ``state`` (not part of its value)."""
    if COMPILED:
        state._cache_legal(moves)  # a native method, which stores into the object directly
    else:
        _set_legal(state, moves)


def log_of(state: MatchState) -> ActionLog:
    """The action log of ``state``'s round, newest first, to extend by one node."""
    log: ActionLog = state._log
    return log


def handed_out(state: MatchState, move: object) -> bool:
    """Whether ``move`` is one of the very objects ``legal_moves(state)`` returned."""
    cached = state._legal
    if cached is not None:
        for candidate in cached:
            if candidate is move:
                return True
    return False


_T = TypeVar("_T")

# -- slot-level constructors --------------------------------------------------------------
# Each build fills slots by its fastest route. In the compiled build Layout,
# MatchState, RoundInfo and RoundResult are native classes, whose constructors
# store their fields directly. The interpreter instead fills a plain *twin* class that has the
# very same slots (so each store is the interpreter's specialised slot store)
# and then switches the object's class to the frozen class, which CPython
# allows between classes of identical layout. (That is why MatchState and
# Layout have no ``__weakref__`` slot: a class with one never matches another's
# layout.) Those twin constructors are generated from the functions below, with
# the same keyword arguments, by _twin_constructor, and take their place in the
# interpreted build (see the end of this section).


def new_layout(
    *,
    open_keys: tuple[int, ...],
    end_sum: int,
    sniff: Tile | None,
    tile_mask: int,
    value_mask: int,
    log: PlacementLog,
) -> Layout:
    """``Layout(...)`` for the engine's own, consistent values, stored slot by slot."""
    return Layout(open_keys, end_sum, sniff, tile_mask, value_mask, log)


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
    return MatchState(info, turn, hands, layout, scores, winner, drawn, drawn_count, log)


def _twin_constructor(
    cls: type, like: Callable[..., object], slots: dict[str, str]
) -> Callable[..., Any]:
    """A constructor of ``cls`` with the keyword arguments of ``like``, through a twin class.

    ``slots`` maps each slot of ``cls`` to what it is set to: an argument of
    ``like``, or ``None``, or ``""`` to leave it unset (a cache filled later).
    The generated function (as attrs generates its ``__init__``) creates an
    instance of a plain class with ``cls``'s slots, stores every slot, and
    switches the instance's class to ``cls``.

    :raises TypeError: if ``slots`` does not name every slot of ``cls`` once,
        or names other than ``like``'s arguments, or if an argument has a
        default other than None (the generated function writes ``=None``).
    """
    signature = inspect.signature(like)
    names = set(signature.parameters)
    given = {value for value in slots.values() if value not in {"None", ""}}
    if set(slots) != set(vars(cls)["__slots__"]) or given != names:
        raise TypeError(f"{cls.__name__}: the slots and the arguments do not match")
    for name, parameter in signature.parameters.items():
        if parameter.default not in (inspect.Parameter.empty, None):
            raise TypeError(f"{like.__name__}: {name} may default to None only")
    arguments = ", ".join(
        name if parameter.default is inspect.Parameter.empty else f"{name}=None"
        for name, parameter in signature.parameters.items()
    )
    stores = "".join(f"    twin.{slot} = {value}\n" for slot, value in slots.items() if value)
    source = (
        f"def {like.__name__}(*, {arguments}):\n"
        "    twin = new(Twin)\n"
        f"{stores}"
        "    twin.__class__ = cls\n"
        "    return twin\n"
    )
    twin_class = type(f"_{cls.__name__}Twin", (), {"__slots__": vars(cls)["__slots__"]})
    namespace: dict[str, Any] = {"new": object.__new__, "Twin": twin_class, "cls": cls}
    exec(source, namespace)  # the names in it were checked above
    constructor: Callable[..., Any] = namespace[like.__name__]
    constructor.__doc__ = like.__doc__
    return constructor


def _same_names(cls: type) -> dict[str, str]:
    """Each slot of ``cls`` set from the argument of its name (``_log`` from ``log``).

    The slot ``_hash``, where a class keeps its hash once computed, is left unset.
    """
    return {slot: "" if slot == "_hash" else slot.lstrip("_") for slot in vars(cls)["__slots__"]}


if not COMPILED:
    globals().update(
        new_layout=_twin_constructor(Layout, new_layout, _same_names(Layout)),
        new_state=_twin_constructor(
            MatchState, new_state, {**_same_names(MatchState), "_legal": "None"}
        ),
    )


def _filled(cls: type[_T], fields: dict[str, object]) -> _T:
    """An instance of the frozen attrs class ``cls`` with its slots set from ``fields``."""
    instance: _T = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(instance, name, value)
    return instance


def new_round_info(**fields: Any) -> RoundInfo:
    """``RoundInfo(**fields)`` for the engine's own, consistent values, stored slot by slot.

    The fields are exactly RoundInfo's (a test checks the result against attrs).
    (Compiled, RoundInfo is a native class whose constructor is the fastest route.)
    """
    if COMPILED:
        return RoundInfo(**fields)
    return _filled(RoundInfo, fields)


def new_round_result(**fields: Any) -> RoundResult:
    """``RoundResult(**fields)`` for the engine's own values; ``log`` is stored as ``_log``."""
    if COMPILED:
        return RoundResult(**fields)
    fields["_log"] = fields.pop("log")
    return _filled(RoundResult, fields)


# -- placing a tile -----------------------------------------------------------------------


def _free_key(tile: Tile, at: int) -> int:
    """The key of ``tile``'s side left open when it joins the point with key ``at``."""
    base = tile.index * 8
    if tile.is_double:
        return base + LINE_B  # a double joins by line A and is open at line B
    return base + (HIGH if tile.low == VALUE_OF_KEY[at] else LOW)


#: The tiles by index, as a compiled-module constant.
TILES: Final = ALL_TILES
#: Whether each tile (by index) is a double.
IS_DOUBLE: Final = tuple(tile.is_double for tile in ALL_TILES)


def _opening_keys(tile: Tile) -> tuple[int, ...]:
    """The open keys of a table holding only ``tile``: both its sides."""
    base = tile.index * 8
    return (base + LINE_A, base + LINE_B) if tile.is_double else (base + LOW, base + HIGH)


#: The open keys of a table holding only one tile, by tile index.
OPENING_KEYS: Final = tuple(_opening_keys(tile) for tile in ALL_TILES)
#: ``FREE_KEY[tile.index][at]``: the key a tile leaves open when placed on key
#: ``at`` (where it fits; -1 elsewhere).
FREE_KEY: Final = tuple(
    [-1 if place is None else _free_key(tile, key) for key, place in enumerate(PLACE[tile.index])]
    for tile in ALL_TILES
)


def _keys_after(
    open_keys: tuple[int, ...], sniff: Tile | None, at: int, free: int
) -> tuple[int, ...]:
    """The open keys once a tile joins the open key ``at``, leaving key ``free`` open."""
    keys = list(open_keys)
    keys.remove(at)
    rank = at & 7
    if (
        (rank == LINE_A or rank == LINE_B)
        and sniff is not None
        and TILES[at >> 3] is sniff
        and at ^ 1 not in keys
    ):
        # Both line sides of the Sniff are now joined: its branches open.
        keys.append(at - rank + BRANCH_A)
        keys.append(at - rank + BRANCH_B)
    keys.append(free)
    keys.sort()
    return tuple(keys)


def placed(layout: Layout, tile: Tile, at: int | None) -> Layout:
    """``layout`` with ``tile`` placed on the open key ``at`` (None to open the round).

    Nothing is checked: ``tile`` must be an interned tile not on the table, and
    ``at`` the key of an open point that it fits (or None on the empty table).
    The first double placed in a round is the Sniff.
    """
    index = tile.index
    sniff = layout.sniff
    if at is None:
        keys = OPENING_KEYS[index]
    else:
        keys = _keys_after(layout.open_keys, sniff, at, FREE_KEY[index][at])
    if sniff is None and IS_DOUBLE[index]:
        sniff = tile
    mask = 0
    for key in keys:
        mask |= BIT_OF_KEY[key]
    return new_layout(
        open_keys=keys,
        end_sum=end_sum_of(keys),
        sniff=sniff,
        tile_mask=layout.tile_mask | 1 << index,
        value_mask=mask,
        log=(tile, at, layout._log),
    )


# -- the seeded shuffle -------------------------------------------------------------------
# The compiled build shuffles on 32-bit halves (rng.shuffled_indices_in_halves);
# the pure-Python build keeps rng.shuffled, which CPython runs faster.


def shuffled_indices(count: int, state: int) -> tuple[list[int], int]:
    """The seeded shuffle of ``range(count)``: ``(indices, new generator state)``.

    As :func:`american_sniff.rng.shuffled`, by the fastest route for the build.
    """
    if COMPILED:
        return shuffled_indices_in_halves(count, state)
    order, state = shuffled(tuple(range(count)), state)
    return list(order), state
