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
from ..tiles import ALL_TILES
from . import _pybatch as py

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


_POINT_TILE = np.array(py.POINT_TILE, dtype=np.int64)
_POINT_RANK = np.array(py.POINT_RANK, dtype=np.int64)
_POINT_VALUE = np.array(py.POINT_VALUE, dtype=np.int64)
_POINT_WORTH = np.array(py.POINT_WORTH, dtype=np.int64)
_FIRST_POINT = np.array(py.FIRST_POINT, dtype=np.int64)
_FITTING = np.array(py.FITTING, dtype=np.int64)
_DOUBLE = np.array([tile.is_double for tile in ALL_TILES])
_PIPS = np.array([tile.pips for tile in ALL_TILES], dtype=np.int64)
_FREE = np.array(
    [
        py.free_point(int(_ACTION_POINT[a]), int(_ACTION_TILE[a])) if _ACTION_POINT[a] >= 0 else 0
        for a in range(NUM_ACTIONS)
    ],
    dtype=np.int64,
)
_BIT = np.int64(1) << np.arange(_TILES, dtype=np.int64)
_WORTH32 = np.array(py.POINT_WORTH, dtype=np.float32)
# (70, 7): 1 where the point shows the value; open points times it counts each value.
_SHOWS = (np.array(py.POINT_VALUE)[:, None] == np.arange(7)).astype(np.float32)
_VALUE_BIT = (1 << np.arange(7)).astype(np.float32)
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
    [0, 0, *(min((1 << 64) - (1 << 64) % n, MASK64) for n in (2, 3, 4))], np.uint64
)
_LOT_ALL = np.array([False, False, True, False, True])
_STEPS = np.arange(1, _TILES + 1, dtype=np.uint64)
_SEAT = np.arange(4, dtype=np.int64)
_PIPS32 = np.array([tile.pips for tile in ALL_TILES], dtype=np.float32)
# The words a deal sets to 0.
_ZEROED = [py.DRAWN_COUNT, py.END_SUM, py.VALUES, py.TABLE, py.OPEN, py.OPEN + 1, py.OPEN + 2]
_ZEROED.append(py.ROUND_ACTIONS)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_M32 = np.int64(0xFFFFFFFF)
_HB = np.uint32(py.HAND_BITS)


def _mix(z: Any) -> Any:
    """SplitMix64's output function on an array of uint64 states."""
    z = (z ^ (z >> np.uint64(30))) * _C1
    z = (z ^ (z >> np.uint64(27))) * _C2
    return z ^ (z >> np.uint64(31))


# Each function below works on a *working array*: the words of the slots it
# concerns, one row a slot, as int64 (a copy; the caller writes it back).


def _hand_size(players: Any) -> Any:
    return np.where(players == 2, 7, np.where(players == 3, 6, 5))


def _side(players: Any, seat: Any) -> Any:
    return np.where(players == 4, seat % 2, seat)


def _rng_of(t: Any) -> Any:
    """The slots' generator states (uint64) from their two RNG words."""
    lo = (t[:, py.RNG] & _M32).astype(np.uint64)
    return lo | ((t[:, py.RNG + 1] & _M32).astype(np.uint64) << np.uint64(32))


def _put_rng(t: Any, rng: Any) -> None:
    t[:, py.RNG] = (rng & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    t[:, py.RNG + 1] = (rng >> np.uint64(32)).astype(np.uint32).view(np.int32)


def _open_of(t: Any) -> Any:
    """The open points of each slot, as a (slots, 70) boolean array."""
    words = np.ascontiguousarray(t[:, py.OPEN : py.OPEN + 3], dtype="<i4")
    bits = np.unpackbits(words.view(np.uint8), axis=1, count=_POINTS, bitorder="little")
    return bits.view(bool)


def _put_open(t: Any, open_: Any) -> None:
    packed = np.zeros((len(open_), 12), dtype=np.uint8)
    packed[:, :9] = np.packbits(open_, axis=1, bitorder="little")
    t[:, py.OPEN : py.OPEN + 3] = packed.view("<i4")


def _shuffles(rng: Any) -> tuple[list[list[int]], Any]:
    """Each slot's shuffle of the set from its generator state, and the state after it."""
    # The outputs for positions 27 down to 1 (n = 28 down to 2), then the lot's.
    with np.errstate(over="ignore"):
        states = rng[:, None] + _STEPS * _GAMMA
        outputs = _mix(states)
    shuffle_out = outputs[:, : _TILES - 1]
    clean = np.all(shuffle_out < _SHUFFLE_LIMIT, axis=1)
    after = states[:, _TILES - 2].copy()
    orders = []
    start = list(range(_TILES))
    positions = range(_TILES - 1, 0, -1)
    for r, row in enumerate((shuffle_out % _SHUFFLE_N).tolist()):
        if clean[r]:
            order = start.copy()
            for i, j in zip(positions, row, strict=True):
                order[i], order[j] = order[j], order[i]
        else:  # an output was rejected: the exact, slower route
            dealt, state = shuffled(tuple(start), int(rng[r]))
            order = list(dealt)
            after[r] = np.uint64(state)
        orders.append(order)
    return orders, after


def _deal(t: Any, opener: Any) -> None:
    """Deal a new round in every slot of ``t``; ``opener`` is each one's opener (-1: the lot)."""
    if len(t) == 0:
        return
    orders, after = _shuffles(_rng_of(t))
    order_bits = _BIT[np.array(orders, dtype=np.int64)]  # (slots, 28)
    players = t[:, py.PLAYERS]
    tiles = np.asarray(orders, dtype=np.int64)
    for count in (2, 3, 4):
        which = players == count
        if not which.any():
            continue
        size = 7 if count == 2 else 6 if count == 3 else 5
        hands = np.zeros((int(which.sum()), 4), dtype=np.int64)
        bits = order_bits[which]
        for seat in range(count):
            hands[:, seat] = bits[:, seat * size : (seat + 1) * size].sum(axis=1)
        t[which, py.HANDS : py.HANDS + 4] = hands
        stock = np.zeros((len(hands), 14), dtype=np.int64)
        left = _TILES - count * size
        stock[:, :left] = tiles[which, count * size :]
        t[which, py.STOCK : py.STOCK + 14] = stock
        t[which, py.STOCK_SIZE] = left
    opener = opener.copy()
    lot = opener < 0
    if lot.any():
        n = players[lot].astype(np.uint64)
        limit = _LOT_LIMIT[players[lot]]
        every_output = _LOT_ALL[players[lot]]
        state = after[lot]
        value = np.zeros(len(state), dtype=np.int64)
        pending = np.ones(len(state), dtype=bool)
        while pending.any():
            with np.errstate(over="ignore"):
                state = np.where(pending, state + _GAMMA, state)
                z = _mix(state)
            accepted = pending & ((z < limit) | every_output)
            value = np.where(accepted, (z % n).astype(np.int64), value)
            pending &= ~accepted
        opener[lot] = value
        after[lot] = state
    _put_rng(t, after)
    t[:, py.TURN] = opener
    t[:, py.DRAWN] = -1
    t[:, _ZEROED] = 0
    t[:, py.SNIFF] = -1


def _state_ok(s: Any) -> Any:
    """Whether each slot's words are a state that reset or step can make (the C kernel's test)."""
    players = s[:, py.PLAYERS].astype(np.int64)
    ok = (players >= 2) & (players <= 4)
    turn = s[:, py.TURN]
    ok &= (turn >= 0) & (turn < players)
    drawn = s[:, py.DRAWN]
    ok &= (drawn >= -1) & (drawn < _TILES)
    winner = s[:, py.WINNER]
    ok &= (winner >= -1) & (winner < np.where(players == 4, 2, players))
    stock = s[:, py.STOCK_SIZE]
    ok &= stock == _TILES - players * _hand_size(players)
    count = s[:, py.DRAWN_COUNT]
    ok &= (count >= 0) & (count <= stock)
    scores = s[:, py.SCORES : py.SCORES + 4]
    ok &= ((scores > -py.LIMIT) & (scores < py.LIMIT)).all(axis=1)
    ok &= (s[:, py.ROUND] >= 1) & (s[:, py.ROUND] < py.LIMIT)
    counters = s[:, [py.ACTIONS, py.ROUND_ACTIONS]]
    ok &= ((counters >= 0) & (counters < py.LIMIT)).all(axis=1)
    return ok


def _tiles_to_place(t: Any) -> Any:
    """The tiles the seat to move may place: the one it just drew, or its hand."""
    drawn = t[:, py.DRAWN].astype(np.int64)
    hand = np.take_along_axis(t, (py.HANDS + t[:, py.TURN].astype(np.int64))[:, None], axis=1)
    return np.where(drawn >= 0, np.int64(1) << np.maximum(drawn, 0), hand[:, 0] & py.HAND_BITS)


def _mask_tables() -> tuple[Any, Any]:
    """The tables :func:`_masks` reads a slot's placements from.

    A hand's *code* for value ``v`` has bit ``k`` set where it holds the
    ``k``-th tile showing ``v``. ``_CODES`` gives, at ``k * 128 + c``, the
    seven codes (byte ``v`` of a uint64) of the tiles ``c`` among tiles
    ``7k`` to ``7k + 6``: a hand's codes are the OR of its four chunks'.
    ``_SIX`` gives, at ``p * 128 + code``, point ``p``'s six mask bytes (the
    low 48 bits of a uint64) for a hand whose code for the point's value is
    ``code``.
    """
    showing = [[t for t in range(_TILES) if ALL_TILES[t].has(v)] for v in range(7)]
    codes = np.zeros((4, 128), dtype=np.uint64)
    for v, tiles in enumerate(showing):
        for k, t in enumerate(tiles):
            held = ((np.arange(128) >> (t % 7)) & 1).astype(np.uint64)
            codes[t // 7] |= held << np.uint64(8 * v + k)
    six = np.zeros((_POINTS, 128), dtype=np.uint64)
    for p, tiles in enumerate(_POINT_TILES.tolist()):
        order = showing[py.POINT_VALUE[p]]
        for j, t in enumerate(tiles):
            held = ((np.arange(128) >> order.index(t)) & 1).astype(np.uint64)
            six[p] |= held << np.uint64(8 * j)
    return codes.ravel(), six.ravel()


_CODES, _SIX = _mask_tables()
_CHUNK_SHIFT = np.arange(0, 28, 7, dtype=np.uint32)
_CHUNK_BASE = np.arange(0, 4 * 128, 128, dtype=np.uint32)
_OPEN_WORDS = np.array([0xFFFFFFFF, 0xFFFFFFFF, 0x3F], dtype=np.uint32)
# Each bit of the three open words (96 a slot): its point's value, and its
# point's first half in a mask row read as 225 uint16 (points past 69 are never set).
_BIT_VALUE = np.array([*py.POINT_VALUE, *[0] * (96 - _POINTS)], dtype=np.int64)
_BIT_HALF = np.array([14 + 3 * min(p, _POINTS - 1) for p in range(96)], dtype=np.int64)
_TILE_SHIFT = np.arange(_TILES, dtype=np.uint32)
_ROW_HALVES: Final = NUM_ACTIONS // 2


def _masks(s: Any, ok: Any, mask: Any) -> None:
    """Write the legal masks of the slots into ``mask`` (all 0 where ``ok`` is false or over).

    ``s`` is the slots' int32 words. The placements are found from the open
    points alone (a few a slot): each one's six mask bytes are looked up from
    the tiles to place, 7 at a time, and written as three uint16.
    """
    n = len(s)
    mask[:] = 0
    u = s.view(np.uint32)
    live = ok & (s[:, py.WINNER] < 0)
    turn = s[:, py.TURN] & 3
    hand = np.take(u.reshape(-1), np.arange(py.HANDS, n * py.STATE_WORDS, py.STATE_WORDS) + turn)
    drawn = s[:, py.DRAWN]
    tiles = np.where(drawn >= 0, np.uint32(1) << (drawn & 31).view(np.uint32), hand & _HB)
    empty = (u[:, py.TABLE] & _HB) == 0
    playing = live & ~empty
    opening = np.flatnonzero(live & empty)
    if len(opening):
        mask[opening, :_TILES] = (tiles[opening, None] >> _TILE_SHIFT) & 1
    words = u[:, py.OPEN : py.OPEN + 3] & _OPEN_WORDS
    words *= playing[:, None]
    found = np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little").view(bool))
    slot = found // 96
    bit = found - slot * 96
    chunks = ((tiles[:, None] >> _CHUNK_SHIFT) & 127) + _CHUNK_BASE
    codes = np.bitwise_or.reduce(np.take(_CODES, chunks), axis=1)
    code = np.take(codes.view(np.uint8), slot * 8 + np.take(_BIT_VALUE, bit))
    six = np.take(_SIX, bit * 128 + code)
    halves = mask.reshape(-1).view(np.uint16)
    at = slot * _ROW_HALVES + np.take(_BIT_HALF, bit)
    halves[at] = six.astype(np.uint16)
    halves[at + 1] = (six >> np.uint64(16)).astype(np.uint16)
    halves[at + 2] = (six >> np.uint64(32)).astype(np.uint16)
    placed = np.zeros(n, dtype=bool)
    placed[slot[six != 0]] = True
    stuck = playing & ~placed
    stock_left = s[:, py.STOCK_SIZE] > s[:, py.DRAWN_COUNT]
    mask[:, DRAW_ACTION] = stuck & stock_left
    mask[:, PASS_ACTION] = stuck & ~stock_left


def _legal(t: Any, actions: Any) -> Any:
    """Whether each slot may take its action (the slots are live, the actions in range)."""
    table = t[:, py.TABLE] & py.HAND_BITS
    tiles = _tiles_to_place(t)
    stock_left = t[:, py.STOCK_SIZE] - t[:, py.DRAWN_COUNT]
    fits_any = (_FITTING[t[:, py.VALUES] & 0x7F] & tiles) != 0
    opening = actions < _TILES
    legal_open = (table == 0) & ((tiles >> np.where(opening, actions, 0)) & 1 != 0)
    legal_draw = (table != 0) & ~fits_any & (stock_left > 0)
    legal_pass = (table != 0) & ~fits_any & (stock_left == 0)
    point_open = np.take_along_axis(_open_of(t), np.maximum(_ACTION_POINT[actions], 0)[:, None], 1)
    tile_held = (tiles >> np.maximum(_ACTION_TILE[actions], 0)) & 1 != 0
    legal_place = (table != 0) & point_open[:, 0] & tile_held
    return np.where(
        opening,
        legal_open,
        np.where(
            actions == DRAW_ACTION,
            legal_draw,
            np.where(actions == PASS_ACTION, legal_pass, legal_place),
        ),
    )


def _end_round(t: Any, finisher: Any) -> None:
    """Settle the round in every slot of ``t`` and deal the next one."""
    if len(t) == 0:
        return
    players = t[:, py.PLAYERS]
    hands = t[:, py.HANDS : py.HANDS + 4] & py.HAND_BITS
    pips = ((hands[:, :, None] & _BIT) != 0).astype(np.float32) @ _PIPS32  # (slots, 4)
    loss = (pips.astype(np.int64) + 2) // 5 * 5
    loss[:, 2:] *= players[:, None] > np.array([2, 3])
    four = players == 4
    # With four players, seats 0 and 2 are side 0, seats 1 and 3 side 1.
    loss[four, 0] += loss[four, 2]
    loss[four, 1] += loss[four, 3]
    loss[four, 2:] = 0
    t[:, py.SCORES : py.SCORES + 4] -= loss
    t[:, py.ROUND] += 1
    _deal(t, finisher)


def _anyone_can_place(t: Any) -> Any:
    return (_FITTING[t[:, py.VALUES] & 0x7F] & ~t[:, py.TABLE] & py.HAND_BITS) != 0


def _place(t: Any, actions: Any) -> None:  # noqa: PLR0915 - the rules of a placement, in order
    """Apply the placement ``actions`` in the slots of ``t``."""
    if len(t) == 0:
        return
    every = np.arange(len(t))
    tile = _ACTION_TILE[actions]
    at = _ACTION_POINT[actions]
    players = t[:, py.PLAYERS]
    seat = t[:, py.TURN].copy()
    bit = np.int64(1) << tile
    hand = np.take_along_axis(t, (py.HANDS + seat)[:, None], axis=1)[:, 0] & py.HAND_BITS & ~bit
    t[every, py.HANDS + seat] = hand
    t[:, py.TABLE] = (t[:, py.TABLE] & py.HAND_BITS) | bit
    t[:, py.DRAWN] = -1
    open_ = _open_of(t)
    first = _FIRST_POINT[tile]
    opening = at < 0
    open_[every[opening], first[opening]] = True
    open_[every[opening], first[opening] + 1] = True
    joined = every[~opening]
    jat = at[joined]
    open_[joined, jat] = False
    open_[joined, _FREE[actions[joined]]] = True
    sniff = t[:, py.SNIFF]
    rank = _POINT_RANK[jat]
    branch = ((rank == 2) | (rank == 3)) & (_POINT_TILE[jat] == sniff[joined])
    branch &= ~open_[joined, jat ^ 1]
    grown = joined[branch]
    base = _FIRST_POINT[_POINT_TILE[jat[branch]]]
    open_[grown, base + 2] = True
    open_[grown, base + 3] = True
    _put_open(t, open_)
    t[:, py.SNIFF] = np.where((sniff < 0) & _DOUBLE[tile], tile, sniff)
    # The end sum (a lone opening double counts once) and the open values.
    opened = open_.astype(np.float32)  # small exact integers: the float sums are exact
    total = (opened @ _WORTH32).astype(np.int64)
    lowest = np.argmax(open_, axis=1)
    lone = (open_.sum(axis=1) == 2) & (_POINT_RANK[lowest] == 2)
    lone &= open_[every, np.minimum(lowest + 1, _POINTS - 1)]
    total -= np.where(lone, _POINT_WORTH[lowest], 0)
    t[:, py.END_SUM] = total
    t[:, py.VALUES] = (((opened @ _SHOWS) > 0).astype(np.float32) @ _VALUE_BIT).astype(np.int64)
    points = np.where((total > 0) & (total % 5 == 0), total, 0)
    side = _side(players, seat)
    t[every, py.SCORES + side] += points
    score = t[every, py.SCORES + side]
    won = (points > 0) & (score >= np.where(players == 2, 250, 200))
    t[won, py.WINNER] = side[won]
    out = ~won & (hand == 0)
    blocked = ~won & ~out & (t[:, py.STOCK_SIZE] == t[:, py.DRAWN_COUNT])
    blocked &= ~_anyone_can_place(t)
    go_on = ~won & ~out & ~blocked
    t[go_on, py.TURN] = (seat[go_on] + 1) % players[go_on]
    _settle(t, out, np.where(out, seat, -1), blocked)


def _settle(t: Any, out: Any, finisher: Any, blocked: Any) -> None:
    """End the round where a seat went ``out`` (it opens the next) or play is ``blocked``."""
    ending = out | blocked
    if ending.any():
        rows = t[ending]
        _end_round(rows, finisher[ending])
        t[ending] = rows


def _draw(t: Any) -> None:
    """Apply a draw in the slots of ``t``."""
    if len(t) == 0:
        return
    every = np.arange(len(t))
    seat = t[:, py.TURN]
    count = t[:, py.DRAWN_COUNT].copy()
    tile = t[every, py.STOCK + count]
    fits = (_FITTING[t[:, py.VALUES] & 0x7F] >> tile) & 1 != 0
    t[:, py.DRAWN_COUNT] = count + 1
    t[every, py.HANDS + seat] = (t[every, py.HANDS + seat] & py.HAND_BITS) | (np.int64(1) << tile)
    blocked = ~fits & (t[:, py.STOCK_SIZE] == count + 1) & ~_anyone_can_place(t)
    t[:, py.DRAWN] = np.where(fits, tile, -1)
    _settle(t, np.zeros(len(t), dtype=bool), np.full(len(t), -1), blocked)


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
    if not 2 <= players <= 4:
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players}")
    s, n = _arrays(state)
    seed = np.frombuffer(py.buffer_view(seeds, "seeds", n, "Q", False), dtype=np.uint64)
    flags = _flags(mask, "mask", n, NUM_ACTIONS)
    t = np.zeros((n, py.STATE_WORDS), dtype=np.int64)
    t[:, py.PLAYERS] = players
    t[:, py.ROUND] = 1
    t[:, py.WINNER] = -1
    _put_rng(t, seed)
    t[:, py.SEED : py.SEED + 2] = t[:, py.RNG : py.RNG + 2]
    _deal(t, np.full(n, -1, dtype=np.int64))
    s[:] = t
    _masks(s, np.ones(n, dtype=bool), flags)


def step_into(  # noqa: PLR0913, PLR0915, PLR0917 - the C function's six buffers, its steps
    state: object, actions: object, mask: object, rewards: object, done: object, errors: object
) -> int:
    """Step every slot in place by its action; return how many refused theirs."""
    s, n = _arrays(state)
    chosen_view = py.buffer_view(actions, "actions", n, "qi", False)
    chosen = np.frombuffer(
        chosen_view, dtype=np.int64 if chosen_view.itemsize == 8 else np.int32
    ).astype(np.int64)
    flags = _flags(mask, "mask", n, NUM_ACTIONS)
    gains = np.frombuffer(py.buffer_view(rewards, "rewards", n * 4, "i", True), dtype=np.int32)
    over = np.frombuffer(py.buffer_view(done, "done", n, "B", True), dtype=np.uint8)
    codes = np.frombuffer(py.buffer_view(errors, "errors", n, "B", True), dtype=np.uint8)
    ok = _state_ok(s)
    error = np.where(ok, py.OK, py.BAD_STATE).astype(np.uint8)
    finished = ok & (s[:, py.WINNER] >= 0)
    error[finished] = py.MATCH_OVER
    live = ok & ~finished
    in_range = (chosen >= 0) & (chosen < NUM_ACTIONS)
    error[live & ~in_range] = py.OUT_OF_RANGE
    rows = np.flatnonzero(live & in_range)
    t = s[rows].astype(np.int64)
    acts = chosen[rows]
    legal = _legal(t, acts)
    draw = legal & (acts == DRAW_ACTION)
    stock_tile = np.take_along_axis(t, (py.STOCK + t[:, py.DRAWN_COUNT])[:, None], axis=1)[:, 0]
    broken = draw & ((stock_tile < 0) | (stock_tile >= _TILES))  # no tile there
    error[rows[~legal]] = py.ILLEGAL
    error[rows[broken]] = py.BAD_STATE
    taken = legal & ~broken
    rows, t, acts = rows[taken], t[taken], acts[taken]
    before = t[:, py.SCORES : py.SCORES + 4].copy()
    t[:, py.ACTIONS] += 1
    t[:, py.ROUND_ACTIONS] += 1
    drawing = acts == DRAW_ACTION
    if drawing.any():
        part = t[drawing]
        _draw(part)
        t[drawing] = part
    passing = acts == PASS_ACTION
    t[passing, py.TURN] = (t[passing, py.TURN] + 1) % t[passing, py.PLAYERS]
    placing = ~drawing & ~passing
    if placing.any():
        part = t[placing]
        _place(part, acts[placing])
        t[placing] = part
    s[rows] = t
    change = t[:, py.SCORES : py.SCORES + 4] - before
    players = t[:, py.PLAYERS]
    reward = np.zeros((n, 4), dtype=np.int32)
    # Seat k's reward is its side's change: side k, or k % 2 with four players.
    seats = np.where(players[:, None] == 4, _SEAT % 2, _SEAT)
    gained = np.take_along_axis(change, np.minimum(seats, 3), axis=1)
    reward[rows] = np.where(players[:, None] > _SEAT, gained, 0)
    gains.reshape(n, 4)[:] = reward
    codes[:] = error
    over[:] = (error != py.BAD_STATE) & (s[:, py.WINNER] >= 0)
    _masks(s, error != py.BAD_STATE, flags)
    return int(np.count_nonzero(error != py.OK))


def mask_into(state: object, mask: object) -> None:
    """Write every slot's legal mask."""
    s, n = _arrays(state)
    _masks(s, _state_ok(s), _flags(mask, "mask", n, NUM_ACTIONS))
