"""The fast representation behind the engine: interned objects, the legal-move cache, constructors.

The public values :class:`~american_sniff.Point` and
:class:`~american_sniff.Place` are ordinary frozen attrs classes, and
:class:`~american_sniff.Tile`, :class:`~american_sniff.Layout` and
:class:`~american_sniff.MatchState` (with its ``RoundInfo`` and
``RoundResult``) are frozen classes written to behave like them, native
classes when compiled. To keep an action at a constant, small cost
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
its class) build the engine's results by the fastest route for the build:
compiled, the native classes' own constructors, which store each field
straight into the object (the values come from the engine and are consistent
by construction). The interpreted build replaces :func:`new_state` with a
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

from typing import Final

from ._native import COMPILED, same_names, twin_constructor
from .deal import Deal
from .layout import FREE_KEY, Layout
from .moves import Draw, Move, Pass, Place
from .points import POINT_OF_KEY, Point
from .rng import shuffled, shuffled_indices_in_halves
from .state import ActionLog, MatchState, RoundEnd, RoundInfo, RoundResult
from .tiles import ALL_TILES, Tile

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


if not COMPILED:
    globals().update(
        new_state=twin_constructor(
            MatchState, new_state, {**same_names(MatchState), "_legal": "None"}
        ),
    )


def new_round_info(
    *,
    players: int,
    seed: int,
    round: int,
    opener: int,
    deck: tuple[Tile, ...],
    deals: tuple[Deal, ...],
    rng: int,
    last_round: RoundResult | None,
    actions_before: int,
    given: bool,
) -> RoundInfo:
    """``RoundInfo(...)`` for the engine's own, consistent values, stored slot by slot.

    The fields are exactly RoundInfo's (a test checks the result against attrs).
    """
    return RoundInfo(
        players, seed, round, opener, deck, deals, rng, last_round, actions_before, given
    )


def new_round_result(
    *,
    round: int,
    end: RoundEnd,
    finisher: int | None,
    layout: Layout,
    hands: tuple[tuple[Tile, ...], ...],
    deductions: tuple[int, ...],
    scores: tuple[int, ...],
    log: ActionLog,
    given: bool,
) -> RoundResult:
    """``RoundResult(...)`` for the engine's own values; ``log`` is stored as ``_log``."""
    return RoundResult(round, end, finisher, layout, hands, deductions, scores, log, given)


if not COMPILED:
    globals().update(
        new_round_info=twin_constructor(RoundInfo, new_round_info, same_names(RoundInfo)),
        new_round_result=twin_constructor(RoundResult, new_round_result, same_names(RoundResult)),
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
