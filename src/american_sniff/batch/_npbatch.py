"""The batch kernel in numpy: what ``_cbatch.c`` does, every slot at once.

:mod:`american_sniff.batch` uses it where the C extension is not built and
numpy is installed (backend ``"numpy"``). It reads and writes the same words,
masks, rewards, flags and error codes as the C kernel and the plain Python
one (:mod:`._pybatch`, whose tables it shares), and the tests step all three
side by side. Where the Python kernel loops over the slots, this one works
on whole columns: each rule is a handful of array operations over the slots
it concerns.

Chance is SplitMix64, as everywhere: a shuffle of the set needs one output
per position, and the outputs of one stream are ``mix(state + k * gamma)``
for k = 1, 2, ..., so a deal computes all of them at once for every slot
that deals. An output is rejected (and the stream moves on) only when it
falls in the top ``2**64 mod n`` values, with a chance below 2**-59 a
position; a slot where that happens is dealt again by the Python kernel's
exact code, so no seed deals differently.

numpy is imported by this module; :mod:`american_sniff.batch` imports it only
when numpy is installed.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from ..actions import DRAW_ACTION, NUM_ACTIONS, PASS_ACTION
from ..rng import MASK64, shuffled
from ..rules import (
    MAX_PIPS,
    PLAYER_COUNTS,
    hand_size,
    next_seat,
    placement_points,
    round_hand,
    side_count,
    side_of,
    target,
)
from ..tiles import ALL_TILES
from . import _pybatch as py
from ._pybatch import STATE_WORDS

__all__ = ["mask_into", "reset_into", "step_into"]

_TILES: Final = len(ALL_TILES)
_POINTS: Final = len(py.POINT_TILE)

# -- tables, as numpy arrays -----------------------------------------------------------
_ACTION_TILE = np.array(py.ACTION_TILE, dtype=np.int64)
_ACTION_POINT = np.array(py.ACTION_POINT, dtype=np.int64)
_PLACES = np.flatnonzero(_ACTION_POINT >= 0)  # the actions that join a tile to a point
_PLACE_TILE = _ACTION_TILE[_PLACES]
_PLACE_POINT = _ACTION_POINT[_PLACES]
# The placements are actions 28 to 447, six a point in the order of the points:
# a mask's placements are then the open points times the six tiles of each.
assert _PLACES.tolist() == list(range(_TILES, _TILES + 6 * len(py.POINT_TILE)))
assert (_PLACE_POINT.reshape(-1, 6) == np.arange(len(py.POINT_TILE))[:, None]).all()
_POINT_TILES = _PLACE_TILE.reshape(-1, 6)  # (70, 6): the tiles that may join each point
_BIT32 = np.left_shift(1, np.arange(_TILES), dtype=np.int32)
_SHUFFLE_N = np.arange(_TILES, 1, -1, dtype=np.uint64)  # n = 28, 27, ..., 2
# Each position's rejection limit, 2**64 - 2**64 % n, held as one less where
# it is 2**64 itself (n a power of two): an output of 2**64 - 1 there is then
# taken for a rejection and dealt by the exact route, which accepts it.
_SHUFFLE_LIMIT = np.array(
    [min((1 << 64) - (1 << 64) % int(n), MASK64) for n in _SHUFFLE_N], dtype=np.uint64
)
# The lot's rejection limit for each number of players (see _SHUFFLE_LIMIT), and
# whether every output is accepted (2**64 is a multiple of the players).
_LOT_LIMIT = np.array(
    [min((1 << 64) - (1 << 64) % n, MASK64) if n in PLAYER_COUNTS else 0 for n in range(8)],
    np.uint64,
)
_LOT_ALL = np.array([n in PLAYER_COUNTS and (1 << 64) % n == 0 for n in range(8)])
_STEPS = np.arange(1, _TILES + 1, dtype=np.uint64)
_SIDES_OF_FOUR = np.array([side_of(4, seat) for seat in range(4)])  # each seat's side, 4 players
# The words a deal sets to 0.
_ZEROED = [py.DRAWN_COUNT, py.END_SUM, py.VALUES, py.TABLE, py.OPEN, py.OPEN + 1, py.OPEN + 2]
_ZEROED.append(py.ROUND_ACTIONS)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_HB = np.uint32(py.HAND_BITS)


def _mix(z: Any) -> Any:
    """SplitMix64's output function on an array of uint64 states."""
    z = (z ^ (z >> np.uint64(30))) * _C1
    z = (z ^ (z >> np.uint64(27))) * _C2
    return z ^ (z >> np.uint64(31))


# The deal and the end of a round (rare: a few slots a step) work on a
# *working array*: the words of the slots they concern, one row a slot, as
# int64 (a copy; the caller writes it back).


# The generator's two words are one aligned uint64 of a row (low word first).
assert py.RNG % 2 == 0
assert py.STATE_WORDS % 2 == 0


def _rng_of(t: Any) -> Any:
    """The slots' generator states: their two RNG words read as one uint64 (a view)."""
    return t.view(np.uint64)[:, py.RNG // 2]


def _shuffles(rng: Any, players: Any) -> tuple[Any, Any, Any]:
    """Each slot's shuffle of the set, its generator state after it, and the next output.

    The shuffle is a row of tile indices; the next output is the lot's. The
    first hand is the tiles at positions 0 to its size less one, as a set:
    the swaps within those positions (the shuffle's last) are left out.
    """
    # The outputs for positions 27 down to 1 (n = 28 down to 2), then the next.
    with np.errstate(over="ignore"):
        states = rng[:, None] + _STEPS * _GAMMA
        outputs = _mix(states)
    after = states[:, -2].copy()
    following = outputs[:, -1].copy()
    order = _swapped((outputs[:, :-1] % _SHUFFLE_N).astype(np.intp), np.take(_HAND_SIZE, players))
    rejected = outputs[:, :-1] >= _SHUFFLE_LIMIT
    if rejected.any():  # an output was rejected: those slots are dealt by the exact route
        for r in np.flatnonzero(rejected.any(axis=1)).tolist():
            dealt, state = shuffled(tuple(range(_TILES)), int(rng[r]))
            order[r] = dealt
            after[r] = np.uint64(state)
            with np.errstate(over="ignore"):
                following[r] = _mix(after[r] + _GAMMA)
    return order, after, following


def _swapped(picks: Any, sizes: Any) -> Any:
    """The shuffles' swaps, every slot at once: one row of tiles a slot (uint8).

    Row ``r`` starts as the tiles in order; for ``i`` from 27 down to the
    slot's hand size ``sizes[r]``, positions ``i`` and ``picks[r, 27 - i]``
    are swapped. The swaps within the first hand are left out: only its set
    of tiles is read. Each position's swap is three array operations over
    the slots (a step deals a few dozen); about as fast as swapping slot by
    slot in Python, and plain code.
    """
    m = len(picks)
    order = np.empty((m, _TILES), dtype=np.uint8)
    order[:] = _IDENTITY
    if m == 0:
        return order
    flat = order.reshape(-1)
    low = int(sizes.min())
    # Each swap's other position, as an index of flat; a row past its last
    # swap (a larger hand) swaps position i with itself.
    rows = np.arange(0, m * _TILES, _TILES)[:, None]
    targets = picks + rows
    if low != int(sizes.max()):
        positions = np.arange(_TILES - 1, 0, -1)
        targets = np.where(positions >= sizes[:, None], targets, rows + positions)
    for i in range(_TILES - 1, low - 1, -1):
        column = targets[:, _TILES - 1 - i]
        held = order[:, i].copy()
        order[:, i] = flat[column]
        flat[column] = held
    return order


# The hand size by number of players (2 to 4; a count out of them reads its nearest).
_HAND_SIZE = np.array(
    [hand_size(min(max(p, PLAYER_COUNTS[0]), PLAYER_COUNTS[-1])) for p in range(8)]
)
_IDENTITY = np.arange(_TILES, dtype=np.uint8)


def _deal_tables() -> tuple[Any, Any, Any, Any]:
    """Where a deal's hands and stock come from in the shuffle, by number of players.

    A seat's hand is the tiles at positions ``_HAND_FROM[p, seat]`` to
    ``_HAND_TO[p, seat]`` (none for a seat past the last); the stock is
    positions ``_STOCK_FROM[p]`` (28: none, read as 0), ``_STOCK_LEFT[p]`` of them.
    """
    start = np.zeros((5, 4), dtype=np.intp)
    end = np.zeros((5, 4), dtype=np.intp)
    stock = np.full((5, 14), _TILES, dtype=np.intp)
    left = np.zeros(5, dtype=np.int64)
    for players in PLAYER_COUNTS:
        size = hand_size(players)
        for seat in range(players):
            start[players, seat], end[players, seat] = seat * size, (seat + 1) * size
        left[players] = _TILES - players * size
        stock[players, : left[players]] = np.arange(players * size, _TILES)
    return start, end, stock, left


_HAND_FROM, _HAND_TO, _STOCK_FROM, _STOCK_LEFT = _deal_tables()


def _deal(t: Any, opener: Any) -> None:
    """Deal a new round in every slot of ``t`` (int32 words, one C-contiguous row a slot).

    ``opener`` is each slot's opener (-1: the lot).
    """
    m = len(t)
    players = t[:, py.PLAYERS]
    order, after, z = _shuffles(_rng_of(t), players)
    rows = np.arange(0, m * (_TILES + 1), _TILES + 1)[:, None]
    # Each hand is a run of the shuffle: a difference of the running sums of its bits.
    sums = np.zeros((m, _TILES + 1), dtype=np.int32)
    np.cumsum(np.take(_BIT32, order), axis=1, out=sums[:, 1:])
    flat = sums.reshape(-1)
    hands = np.take(flat, rows + _HAND_TO[players]) - np.take(flat, rows + _HAND_FROM[players])
    t[:, py.HANDS : py.HANDS + 4] = hands
    padded = np.zeros((m, _TILES + 1), dtype=np.int32)
    padded[:, :_TILES] = order
    t[:, py.STOCK : py.STOCK + 14] = np.take(padded.reshape(-1), rows + _STOCK_FROM[players])
    t[:, py.STOCK_SIZE] = np.take(_STOCK_LEFT, players)
    # The lot: the next output, below(players), for the slots that draw it.
    lot = opener < 0
    count = players.astype(np.uint64)
    accepted = (z < _LOT_LIMIT[players]) | _LOT_ALL[players]
    opener = np.where(lot, z % count, opener)
    with np.errstate(over="ignore"):
        after = np.where(lot, after + _GAMMA, after)
    pending = lot & ~accepted  # rejected (three players, a chance below 2**-62): draw again
    while pending.any():
        with np.errstate(over="ignore"):
            after = np.where(pending, after + _GAMMA, after)
            z = _mix(after)
        accepted = pending & ((z < _LOT_LIMIT[players]) | _LOT_ALL[players])
        opener = np.where(accepted, z % count, opener)
        pending &= ~accepted
    _rng_of(t)[:] = after
    t[:, py.TURN] = opener
    t[:, py.DRAWN] = -1
    t[:, _ZEROED] = 0
    t[:, py.SNIFF] = -1


# The words _state_ok checks, padded to 16 with the players' word again.
_CHECKED = np.array(
    [
        *range(py.PLAYERS, py.STOCK_SIZE + 1),
        *range(py.SCORES, py.SCORES + 4),
        py.ACTIONS,
        py.ROUND_ACTIONS,
        *[py.PLAYERS] * 3,
    ],
    dtype=np.intp,
)


def _bounds() -> Any:
    """The checked words' bounds by ``players & 7`` (a column): 16 lowest, then 16 highest - lowest.

    A word ``x`` is in ``[lo, hi]`` exactly when ``x - lo``, as uint32, is at
    most ``hi - lo``: one comparison a word. Rows 2 to 4 hold
    :func:`_state_ok`'s bounds for that many players; on the other rows the
    players' word itself must be 2 to 4, which it is not.
    """
    low = np.zeros((8, STATE_WORDS), dtype=np.int64)
    span = np.full((8, STATE_WORDS), 0xFFFFFFFF, dtype=np.int64)
    fewest, most = PLAYER_COUNTS[0], PLAYER_COUNTS[-1]
    low[:, py.PLAYERS], span[:, py.PLAYERS] = fewest, most - fewest
    for players in PLAYER_COUNTS:
        stock = _TILES - players * hand_size(players)
        row = {
            py.PLAYERS: (players, players),
            py.ROUND: (1, py.LIMIT - 1),
            py.TURN: (0, players - 1),
            py.WINNER: (-1, side_count(players) - 1),
            py.DRAWN: (-1, _TILES - 1),
            py.DRAWN_COUNT: (0, stock),
            py.STOCK_SIZE: (stock, stock),
            py.ACTIONS: (0, py.LIMIT - 1),
            py.ROUND_ACTIONS: (0, py.LIMIT - 1),
        }
        row.update({py.SCORES + k: (1 - py.LIMIT, py.LIMIT - 1) for k in range(4)})
        for word, (lo, hi) in row.items():
            low[players, word], span[players, word] = lo, hi - lo
    both = np.concatenate([low[:, _CHECKED], span[:, _CHECKED]], axis=1)
    return np.ascontiguousarray((both & 0xFFFFFFFF).astype(np.uint32).T)


_BOUNDS = _bounds()


def _state_ok(w: Any) -> Any:
    """Whether each slot's words are a state that reset or step can make (the C kernel's test).

    ``w`` is the slots' words as :func:`_columns` gives them.
    """
    players = w[py.PLAYERS]
    if len(players) and (players == players[0]).all():  # the usual batch: one bound for all
        bounds = _BOUNDS[:, players[0] & 7, None]
    else:
        bounds = np.take(_BOUNDS, players & 7, axis=1)
    words = w.view(np.uint32)[_CHECKED]
    words -= bounds[:16]
    return np.logical_and.reduce(words <= bounds[16:], axis=0)


#: How many of a slot's words :func:`_columns` copies: all but the stock (and the spare words).
_WORKED: Final = py.STOCK


#: The words a step changes (but at the end of a round), but for the mover's
#: hand and side's score (one word a slot, put in place).
_STEPPED: Final = (
    py.TURN,
    py.WINNER,
    py.DRAWN,
    py.DRAWN_COUNT,
    *range(py.END_SUM, py.HANDS),
    py.ACTIONS,
    py.ROUND_ACTIONS,
)


def _columns(s: Any) -> Any:
    """The first :data:`_WORKED` words of the slots (``s``, one row a slot), one row a word."""
    return np.ascontiguousarray(s[:, :_WORKED].T)


def _mask_tables() -> tuple[Any, Any]:
    """The tables :func:`_masks` reads a slot's placements from.

    A hand's *code* for value ``v`` has bit ``k`` set where it holds the
    ``k``-th tile showing ``v``. ``_CODES`` gives, at ``c`` and at
    ``2**14 + c``, the seven codes (byte ``v`` of a uint64) of the tiles
    ``c`` among tiles 0 to 13 and among tiles 14 to 27: a hand's codes are
    the OR of its two halves'. ``_SIX`` gives, at ``p * 128 + code``, point
    ``p``'s six mask bytes (the low 48 bits of a uint64) for a hand whose
    code for the point's value is ``code``.
    """
    showing = [[t for t in range(_TILES) if ALL_TILES[t].has(v)] for v in range(MAX_PIPS + 1)]
    codes = np.zeros((2, 1 << 14), dtype=np.uint64)
    for v, tiles in enumerate(showing):
        for k, t in enumerate(tiles):
            held = ((np.arange(1 << 14) >> (t % 14)) & 1).astype(np.uint64)
            codes[t // 14] |= held << np.uint64(8 * v + k)
    six = np.zeros((_POINTS, 128), dtype=np.uint64)
    for p, tiles in enumerate(_POINT_TILES.tolist()):
        order = showing[py.POINT_VALUE[p]]
        for j, t in enumerate(tiles):
            held = ((np.arange(1 << MAX_PIPS + 1) >> order.index(t)) & 1).astype(np.uint64)
            six[p] |= held << np.uint64(8 * j)
    return codes.ravel(), six.ravel()


_CODES, _SIX = _mask_tables()
# Each bit of the three open words (96 a slot): its point's value, and where
# its point's six bytes start in a mask row, in halves (points past 69 are never set).
_BIT_VALUE = np.array([*py.POINT_VALUE, *[0] * (96 - _POINTS)], dtype=np.int64)
_BIT_HALF = np.array([14 + 3 * min(p, _POINTS - 1) for p in range(96)], dtype=np.int64)
_TILE_SHIFT = np.arange(_TILES, dtype=np.uint32)
_ROW_HALVES: Final = NUM_ACTIONS // 2


def _eights(mask: Any) -> Any:
    """The mask buffer read as uint64 words starting at every even byte (they overlap)."""
    flat = mask.reshape(-1)
    return np.ndarray((len(flat) // 2 - 3,), dtype=np.uint64, buffer=flat, strides=(2,))


def _masks(w: Any, ok: Any, mask: Any) -> None:
    """Write the legal masks of the slots into ``mask`` (all 0 where ``ok`` is false or over).

    ``w`` is the slots' words as :func:`_columns` gives them. The placements
    are found from the open points alone (a few a slot): each one's six mask
    bytes are looked up from the tiles to place, 14 at a time, and written as
    one (overlapping) uint64.
    """
    n = w.shape[1]
    if n == 0:  # no slots: nothing to write (and no mask buffer to view as words)
        return
    mask[:] = 0
    wu = w.view(np.uint32)
    live = ok & (w[py.WINNER] < 0)
    hand = np.take(wu.reshape(-1), (py.HANDS + (w[py.TURN] & 3)) * n + np.arange(n))
    drawn = w[py.DRAWN]
    tiles = np.where(drawn >= 0, np.uint32(1) << (drawn & 31).view(np.uint32), hand & _HB)
    empty = (wu[py.TABLE] & _HB) == 0
    playing = live & ~empty
    opening = np.flatnonzero(live & empty)
    if len(opening):
        mask[opening, :_TILES] = (tiles[opening, None] >> _TILE_SHIFT) & 1
    words = np.ascontiguousarray(((wu[py.OPEN : py.OPEN + 3] & _LOW_WORDS) * playing).T)
    found = np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little").view(bool))
    slot = found // 96
    bit = found - slot * 96
    codes = np.take(_CODES, tiles & 0x3FFF) | np.take(_CODES, (tiles >> 14 & 0x3FFF) + (1 << 14))
    code = np.take(codes.view(np.uint8), slot * 8 + np.take(_BIT_VALUE, bit))
    six = np.take(_SIX, bit * 128 + code)
    # Each point's six bytes and the next two (0) as one uint64: the points
    # go in order, so each write's two extra bytes are the next point's first
    # (written after it) or the draw and the pass (written last).
    _eights(mask)[slot * _ROW_HALVES + np.take(_BIT_HALF, bit)] = six
    placed = np.zeros(n, dtype=bool)
    placed[slot[six != 0]] = True
    stuck = playing & ~placed
    stock_left = w[py.STOCK_SIZE] > w[py.DRAWN_COUNT]
    mask[:, DRAW_ACTION] = stuck & stock_left
    mask[:, PASS_ACTION] = stuck & ~stock_left


def _end_round(t: Any, finisher: Any) -> None:
    """Settle the round in every slot of ``t`` (int32 words, as :func:`_deal`) and deal the next."""
    hands = t[:, py.HANDS : py.HANDS + 4] & py.HAND_BITS
    pips = np.take(_PIPS_OF, hands & 0x3FFF) + np.take(_PIPS_OF, (hands >> 14) + (1 << 14))
    loss = np.take(_ROUNDED, pips)
    # Each seat's loss goes to its side (seats 0 and 2 are side 0 with four players).
    players = t[:, py.PLAYERS]
    if (players == players[0]).all():
        t[:, py.SCORES : py.SCORES + 4] -= loss @ _SIDE_SEATS[players[0]]
    else:
        t[:, py.SCORES : py.SCORES + 4] -= (loss[:, :, None] * _SIDE_SEATS[players]).sum(1)
    t[:, py.ROUND] += 1
    _deal(t, finisher)


def _pips_table() -> Any:
    """At ``c`` and ``2**14 + c``: the pips of the tiles ``c`` among tiles 0-13 and 14-27."""
    pips = np.zeros((2, 1 << 14), dtype=np.int32)
    for half in range(2):
        for k in range(14):
            held = (np.arange(1 << 14) >> k) & 1
            pips[half] += held * ALL_TILES[14 * half + k].pips
    return pips.ravel()


_PIPS_OF = _pips_table()
# A hand's pips rounded (rules.round_hand), by its pips: at most all the set's.
_ROUNDED = np.array(
    [round_hand(pips) for pips in range(sum(tile.pips for tile in ALL_TILES) + 1)], np.int32
)
# By number of players: 1 where the seat (row) is on the side (column).
_SIDE_SEATS = np.array(
    [
        [
            [int(seat < p and p in PLAYER_COUNTS and side_of(p, seat) == side) for side in range(4)]
            for seat in range(4)
        ]
        for p in range(5)
    ],
    dtype=np.int32,
)


def _action_tables() -> tuple[Any, Any, Any]:
    """What a step reads of its action, one row an action (see :func:`step_into`).

    ``_ACTION_INFO`` (int32): the kind (0 an opening, 1 a placement on a
    point, 2 the draw, 3 the pass), the tile's bit, the open word of the
    point joined and its bit's shift, whether the point is a line side
    (rank 2 or 3) and then its tile, and the word and shift of the other line
    side. ``_ACTION_OPEN`` (uint32): the bits a placement clears and sets in
    each of the three open words, and those the Sniff's branches set.
    ``_DOUBLE_TILE``: the tile where the action places a double, else -1.
    """
    info = np.zeros((NUM_ACTIONS, 8), dtype=np.int64)
    words = np.zeros((NUM_ACTIONS, 3, 3), dtype=np.uint64)  # clear, set, branches
    double = np.full(NUM_ACTIONS, -1, dtype=np.int64)

    def put(row: Any, point: int) -> None:
        row[point >> 5] |= np.uint64(1 << (point & 31))

    for a in range(NUM_ACTIONS):
        tile, at = py.ACTION_TILE[a], py.ACTION_POINT[a]
        if a in {DRAW_ACTION, PASS_ACTION}:
            info[a, 0] = 2 if a == DRAW_ACTION else 3
            continue
        info[a, 1] = 1 << tile
        double[a] = tile if ALL_TILES[tile].is_double else -1
        first = py.FIRST_POINT[tile]
        if at < 0:
            put(words[a, 1], first)
            put(words[a, 1], first + 1)
            continue
        info[a, 0] = 1
        info[a, 2:4] = at >> 5, at & 31
        put(words[a, 0], at)
        put(words[a, 1], py.free_point(at, tile))
        if py.POINT_RANK[at] in (2, 3):
            info[a, 4:8] = 1, py.POINT_TILE[at], (at ^ 1) >> 5, (at ^ 1) & 31
            base = py.FIRST_POINT[py.POINT_TILE[at]]
            put(words[a, 2], base + 2)
            put(words[a, 2], base + 3)
    keep_set_branch = words.reshape(NUM_ACTIONS, 9)
    keep_set_branch[:, :3] ^= np.uint64(0xFFFFFFFF)  # the bits kept, rather than cleared
    return info.T.astype(np.int32), keep_set_branch.T.astype(np.uint32), double


_ACTION_INFO, _ACTION_OPEN, _DOUBLE_TILE = _action_tables()
_DOUBLE_TILE32 = _DOUBLE_TILE.astype(np.int32)


def _count_tables() -> tuple[list[Any], list[Any]]:
    """The end sum's and open values' tables, by 16 bits of the open words.

    The open words, read as five uint16 (the last holds points 64 to 69),
    index one table each. ``_COUNTS[k]`` packs the open points' worth (bits
    0-9), their number (10-16) and, for a byte that is exactly a double's two
    line sides, their worth (17-23): a slot's five entries add up.
    ``_VALUES_OF[k]`` holds the values shown (bit v), to be ORed.
    """
    counts = np.zeros((10, 256), dtype=np.int32)  # by byte (the tenth is past point 79)
    values = np.zeros((10, 256), dtype=np.uint8)
    for k in range(9):
        for b in range(256):
            points = [8 * k + j for j in range(8) if b >> j & 1 and 8 * k + j < _POINTS]
            worth = sum(py.POINT_WORTH[p] for p in points)
            lone = 0
            if len(points) == 2 and py.POINT_RANK[points[0]] == 2 and points[1] == points[0] + 1:
                lone = py.POINT_WORTH[points[0]]
            counts[k, b] = worth | len(points) << 10 | lone << 17
            for p in points:
                values[k, b] |= 1 << py.POINT_VALUE[p]
    low, high = np.arange(1 << 16) & 0xFF, np.arange(1 << 16) >> 8
    sizes = [1 << 16] * 4 + [1 << (_POINTS - 64)]
    return (
        [(counts[2 * k, low] + counts[2 * k + 1, high])[:size] for k, size in enumerate(sizes)],
        [(values[2 * k, low] | values[2 * k + 1, high])[:size] for k, size in enumerate(sizes)],
    )


_COUNT_CHUNKS, _VALUE_CHUNKS = _count_tables()
_COUNTS = np.concatenate(_COUNT_CHUNKS)
_VALUES_OF = np.concatenate(_VALUE_CHUNKS)
# Where each chunk's table starts in _COUNTS and _VALUES_OF.
_CHUNK_BASE = np.cumsum([0] + [len(c) for c in _COUNT_CHUNKS[:-1]]).astype(np.intp)[:, None]
_FITTING32 = np.array(py.FITTING, dtype=np.uint32)
_LOW_WORDS = np.array([[0xFFFFFFFF], [0xFFFFFFFF], [0x3F]], dtype=np.uint32)
# Row ``players * 4 + seat``: 1 for each seat on the side of ``seat`` (the
# seats that share its points), 0 past the last seat; rows 0 to 7 and 20 up
# (no such number of players) are 0.
_SAME_SIDE = np.array(
    [
        [
            int(k < p and side_of(p, k) == side_of(p, seat)) if p in PLAYER_COUNTS else 0
            for k in range(4)
        ]
        for p in range(8)
        for seat in range(4)
    ],
    dtype=np.int32,
)
# Each seat's side by row ``players * 4 + seat`` (the seat itself past the
# supported counts), and the seat that plays after it (0 there).
_SIDE_OF = np.array(
    [side_of(p, s) if p in PLAYER_COUNTS else s for p in range(8) for s in range(4)], np.int32
)
_NEXT_SEAT = np.array(
    [next_seat(p, s) if p in PLAYER_COUNTS else 0 for p in range(8) for s in range(4)], np.int32
)
# The target by ``players & 7`` (0 past the supported counts).
_TARGET = np.array([target(p) if p in PLAYER_COUNTS else 0 for p in range(8)], np.int32)
# What a placement scores (rules.placement_points), by the end sum after it: at
# most every point's worth, with all of them open.
_PLACEMENT_POINTS = np.array(
    [placement_points(end_sum) for end_sum in range(sum(py.POINT_WORTH) + 1)], np.int32
)


def _arrays(state: object) -> tuple[Any, int]:
    n = py.slots(state)
    words = np.frombuffer(
        py.buffer_view(state, "state", n * py.STATE_WORDS, "i", True), dtype=np.int32
    )
    return words.reshape(n, py.STATE_WORDS), n


def _flags(buffer: object, name: str, n: int, width: int) -> Any:
    view = py.buffer_view(buffer, name, n * width, "B", True)
    return np.frombuffer(view, dtype=np.uint8).reshape(n, width)


def reset_into(state: object, seeds: object, players: int, mask: object) -> None:
    """Reset every slot of ``state``: slot i deals ``new_match(players, seed=seeds[i])``."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players}")
    s, n = _arrays(state)
    seed = np.frombuffer(py.buffer_view(seeds, "seeds", n, "Q", False), dtype=np.uint64)
    flags = _flags(mask, "mask", n, NUM_ACTIONS)
    t = np.zeros((n, py.STATE_WORDS), dtype=np.int32)
    t[:, py.PLAYERS] = players
    t[:, py.ROUND] = 1
    t[:, py.WINNER] = -1
    _rng_of(t)[:] = seed
    t[:, py.SEED : py.SEED + 2] = t[:, py.RNG : py.RNG + 2]
    _deal(t, np.full(n, -1))
    s[:] = t
    _masks(_columns(s), np.ones(n, dtype=bool), flags)


def step_into(  # noqa: PLR0913, PLR0915, PLR0917 - the C function's six buffers, its steps
    state: object, actions: object, mask: object, rewards: object, done: object, errors: object
) -> int:
    """Step every slot in place by its action; return how many refused theirs.

    Every rule is worked out for every slot at once, on the slots' first
    words copied to one contiguous row a word (:func:`_columns`), and each
    word changed where the slot's action calls for it: a placement or a draw
    that does not end the round (nearly every step) is a fixed set of row
    operations. The slots whose round ends are then settled and dealt on
    their own.
    """
    s, n = _arrays(state)
    chosen_view = py.buffer_view(actions, "actions", n, "qi", False)
    wide = chosen_view.itemsize == 8
    chosen = np.frombuffer(chosen_view, dtype=np.uint64 if wide else np.uint32)
    flags = _flags(mask, "mask", n, NUM_ACTIONS)
    gains = np.frombuffer(py.buffer_view(rewards, "rewards", n * 4, "i", True), dtype=np.int32)
    over = np.frombuffer(py.buffer_view(done, "done", n, "B", True), dtype=np.uint8)
    codes = np.frombuffer(py.buffer_view(errors, "errors", n, "B", True), dtype=np.uint8)
    w = _columns(s)
    wu = w.view(np.uint32)
    flat = w.reshape(-1)
    slot = np.arange(n)
    # Who may move, and whether the action is legal (read as the C kernel's is_legal).
    ok = _state_ok(w)
    winner = w[py.WINNER]
    in_range = chosen < NUM_ACTIONS  # unsigned: a negative action is out of range too
    action = np.minimum(chosen, NUM_ACTIONS - 1).astype(np.intp)
    info = np.take(_ACTION_INFO, action, axis=1)
    kind = info[0]
    bit = info[1].view(np.uint32)
    players = w[py.PLAYERS]
    turn = w[py.TURN] & 3
    hand_at = (py.HANDS + turn) * n + slot
    hand_word = np.take(wu.reshape(-1), hand_at)
    hand = hand_word & _HB
    drawn = w[py.DRAWN]
    tiles = np.where(drawn >= 0, np.uint32(1) << (drawn & 31).view(np.uint32), hand)
    table = wu[py.TABLE] & _HB
    empty = table == 0
    count = w[py.DRAWN_COUNT]
    size = w[py.STOCK_SIZE]
    fitting = np.take(_FITTING32, w[py.VALUES] & 0x7F)
    stuck = ~empty & ((fitting & tiles) == 0)
    point_open = (np.take(wu.reshape(-1), (py.OPEN + info[2]) * n + slot) >> info[3]) & 1
    held = (tiles & bit) != 0
    placing = kind <= 1
    legal = np.where(
        placing,
        held & np.where(kind == 0, empty, ~empty & (point_open != 0)),
        stuck & ((size > count) == (kind == 2)),  # the draw while stock is left, else the pass
    )
    legal &= ok & (winner < 0) & in_range
    draw_tile = np.take(s.reshape(-1), slot * STATE_WORDS + py.STOCK + (count & 15))
    broken = legal & (kind == 2) & (draw_tile.view(np.uint32) >= _TILES)  # no tile there
    error = np.where(
        ok,
        np.where(
            winner >= 0,
            py.MATCH_OVER,
            np.where(
                in_range,
                np.where(legal, np.where(broken, py.BAD_STATE, py.OK), py.ILLEGAL),
                py.OUT_OF_RANGE,
            ),
        ),
        py.BAD_STATE,
    )
    go = legal & ~broken
    place = go & placing
    drawing = go & (kind == 2)
    # A placement: the hand, the table, the open points (and the Sniff's branches).
    placed_hand = hand & ~bit
    placed_table = table | bit
    changes = np.take(_ACTION_OPEN, action, axis=1)
    opened = (wu[py.OPEN : py.OPEN + 3] & changes[0:3]) | changes[3:6]
    other = (np.take(opened.reshape(-1), info[6] * n + slot) >> info[7]) & 1
    sniff = w[py.SNIFF]
    branch = (info[4] != 0) & (info[5] == sniff) & (other == 0)
    opened |= changes[6:9] * branch
    opened &= _LOW_WORDS
    # The end sum and the open values, by 16 bits of the open points.
    index = opened.view(np.uint16).reshape(3, n, 2).transpose(0, 2, 1).reshape(6, n)[:5]
    index = index + _CHUNK_BASE
    counted = np.take(_COUNTS, index).sum(axis=0, dtype=np.int32)
    values = np.bitwise_or.reduce(np.take(_VALUES_OF, index), axis=0)
    lone = np.where(counted & 0x1FC00 == 2 << 10, counted >> 17, 0)  # two points open
    end_sum = (counted & 1023) - lone
    points = np.where(place, np.take(_PLACEMENT_POINTS, end_sum, mode="clip"), 0)
    seat_row = (players & 7) * 4 + turn
    side = np.take(_SIDE_OF, seat_row)
    score_at = (py.SCORES + side) * n + slot
    score = np.take(flat, score_at) + points
    won = (points > 0) & (score >= np.take(_TARGET, players & 7))
    going = place & ~won
    out = going & (placed_hand == 0)
    exhausted = size == count
    can_place = (np.take(_FITTING32, values) & ~placed_table & _HB) != 0
    blocked = going & ~out & exhausted & ~can_place
    # A draw: the stock's next tile to the hand, kept to be placed where it fits.
    draw_bit = np.uint32(1) << (draw_tile & 31).view(np.uint32)
    fits = (fitting & draw_bit) != 0
    blocked_draw = drawing & ~fits & (size == count + 1) & ((fitting & ~table & _HB) == 0)
    # The words.
    w[py.ACTIONS] += go
    w[py.ROUND_ACTIONS] += go
    hand_word = np.where(place, placed_hand, np.where(drawing, hand | draw_bit, hand_word))
    np.put(wu.reshape(-1), hand_at, hand_word)
    np.copyto(wu[py.TABLE], placed_table, where=place)
    np.copyto(drawn, np.where(place | ~fits, -1, draw_tile), where=place | drawing)
    count += drawing
    np.copyto(wu[py.OPEN : py.OPEN + 3], opened, where=place)
    double = np.take(_DOUBLE_TILE32, action)
    np.copyto(sniff, double, where=place & (sniff < 0) & (double >= 0))
    np.copyto(w[py.END_SUM], end_sum, where=place)
    np.copyto(w[py.VALUES], values, where=place)
    np.put(flat, score_at, score)
    np.copyto(winner, side, where=won)
    advance = (go & (kind == 3)) | (going & ~out & ~blocked)
    np.copyto(w[py.TURN], np.take(_NEXT_SEAT, seat_row), where=advance)
    for word in _STEPPED:  # one column at a time: a transposed copy of them all is slower
        np.copyto(s[:, word], w[word])
    row_at = slot * STATE_WORDS
    np.put(s.reshape(-1), row_at + py.HANDS + turn, hand_word.view(np.int32))
    np.put(s.reshape(-1), row_at + py.SCORES + side, score)
    reward = np.zeros((n, 4), dtype=np.int32)
    scored = np.flatnonzero(points)
    reward[scored] = np.take(_SAME_SIDE, seat_row[scored], axis=0) * points[scored, None]
    ending = (out | blocked) | blocked_draw
    if ending.any():
        end = np.flatnonzero(ending)
        part = s[end]
        before = part[:, py.SCORES : py.SCORES + 4].copy()
        _end_round(part, np.where(out[end], turn[end], -1))
        s[end] = part
        w[:, end] = part[:, :_WORKED].T
        # Each seat's reward is its side's change (sides 2 and 3 never change with
        # four players, nor do the sides past the last seat).
        change = part[:, py.SCORES : py.SCORES + 4] - before
        reward[end] += np.where(players[end, None] == 4, change[:, _SIDES_OF_FOUR], change)
    gains.reshape(n, 4)[:] = reward
    codes[:] = error
    over[:] = (error != py.BAD_STATE) & (winner >= 0)
    _masks(w, ok & (error != py.BAD_STATE), flags)
    return int(np.count_nonzero(error))


def mask_into(state: object, mask: object) -> None:
    """Write every slot's legal mask."""
    s, n = _arrays(state)
    w = _columns(s)
    _masks(w, _state_ok(w), _flags(mask, "mask", n, NUM_ACTIONS))
