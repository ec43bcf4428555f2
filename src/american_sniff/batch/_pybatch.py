"""The batch kernel in plain Python: what ``_cbatch.c`` does, word for word, more slowly.

:mod:`american_sniff.batch` uses it where the C extension is not built (the
pure build, the editable install, no compiler). It takes the same buffers and
writes the same words, masks, rewards, flags and error codes; the tests step
both side by side. The module's names mirror the C file's, so that a change
to one is easy to carry over to the other.
"""

from __future__ import annotations

import struct
from array import array
from typing import Final

from ..actions import ACTION_MOVES, DRAW_ACTION, NUM_ACTIONS, PASS_ACTION, POINTS
from ..moves import Place
from ..rng import below, shuffled
from ..rules import (
    PLAYER_COUNTS,
    hand_size,
    has_won,
    next_seat,
    placement_points,
    round_hand,
    side_count,
    side_of,
)
from ..tiles import ALL_TILES

__all__ = [
    "ACTION_POINT",
    "ACTION_TILE",
    "FIRST_POINT",
    "FITTING",
    "HAND_BITS",
    "LIMIT",
    "POINT_RANK",
    "POINT_TILE",
    "POINT_VALUE",
    "POINT_WORTH",
    "STATE_WORDS",
    "buffer_view",
    "free_point",
    "mask_into",
    "reset_into",
    "reset_one",
    "slots",
    "step_into",
]

# The words of a slot's state (see docs/ai.md).
PLAYERS: Final = 0
ROUND: Final = 1
TURN: Final = 2
WINNER: Final = 3
DRAWN: Final = 4
DRAWN_COUNT: Final = 5
STOCK_SIZE: Final = 6
END_SUM: Final = 7
SNIFF: Final = 8
VALUES: Final = 9
TABLE: Final = 10
OPEN: Final = 11
HANDS: Final = 14
SCORES: Final = 18
RNG: Final = 22
SEED: Final = 24
ACTIONS: Final = 26
ROUND_ACTIONS: Final = 27
STOCK: Final = 28
#: How many int32 words a slot's state has.
STATE_WORDS: Final = 48

# The facts beside a slot's state, int64 words (see american_sniff.batch.observe).
F_PLAYED: Final = 0
F_VOIDS: Final = 4
F_MOVER: Final = 8
F_DRAWS: Final = 9
F_KNOWN: Final = 10
F_SHOWN: Final = 11
F_ROUND: Final = 12
F_OPENER: Final = 13
#: How many int64 words of facts a slot has.
FACT_WORDS: Final = 14

# The round's history beside a slot's state (american_sniff.batch.recall): one
# uint16 record per action of the round, in order, as many as the state's
# round_actions word says: the action id (bits 0-8), the tile drawn (bits
# 9-13, a draw's alone), and the seat that acted (bits 14-15).
H_TILE_SHIFT: Final = 9
H_SEAT_SHIFT: Final = 14
#: How many uint16 records of history a slot has: room for the longest round (123 actions).
HISTORY_WORDS: Final = 128

OK: Final = 0
ILLEGAL: Final = 1
OUT_OF_RANGE: Final = 2
MATCH_OVER: Final = 3
BAD_STATE: Final = 4

_TILES: Final = len(ALL_TILES)
_HAND_BITS: Final = (1 << _TILES) - 1
_LIMIT: Final = 1 << 30
_M32: Final = (1 << 32) - 1

# -- tables (the same as the C file's) -----------------------------------------
_POINT_INDEX = {point.order: p for p, point in enumerate(POINTS)}
_POINT_TILE = [point.tile.index for point in POINTS]
_POINT_RANK = [point.order & 7 for point in POINTS]
_POINT_VALUE = [point.value for point in POINTS]
_POINT_WORTH = [2 * v if r in (2, 3) else v for v, r in zip(_POINT_VALUE, _POINT_RANK, strict=True)]
_FIRST_POINT = [
    min(p for p, point in enumerate(POINTS) if point.tile is tile) for tile in ALL_TILES
]
_TILES_SHOWING = [sum(1 << t.index for t in ALL_TILES if t.has(v)) for v in range(7)]
_FITTING = [
    sum(1 << t.index for t in ALL_TILES if values >> t.low & 1 or values >> t.high & 1)
    for values in range(1 << 7)
]


def _placements() -> tuple[list[int], list[int], dict[tuple[int, int], int]]:
    """The tile and point of each action (-1 where none), and the action of each (point, tile)."""
    tile_of = [-1] * NUM_ACTIONS
    point_of = [-1] * NUM_ACTIONS
    action_of: dict[tuple[int, int], int] = {}
    for action, move in enumerate(ACTION_MOVES):
        if isinstance(move, Place):
            tile_of[action] = move.tile.index
            if move.at is not None:
                p = _POINT_INDEX[move.at.order]
                point_of[action] = p
                action_of[p, move.tile.index] = action
    return tile_of, point_of, action_of


_ACTION_TILE, _ACTION_POINT, _PLACE_ACTION = _placements()

# The tables the numpy observation (:mod:`american_sniff.batch.observe`) reads too.
#: A hand's word with every tile's bit set (bit ``i`` is ``ALL_TILES[i]``).
HAND_BITS: Final = _HAND_BITS
#: For each point of the action layer (``POINTS``), the low three bits of its
#: ``order``: which of its tile's sides it is.
POINT_RANK: Final = _POINT_RANK
#: For each point, its open value as the kernel adds it to the end sum: twice
#: the value on the sides of rank 2 and 3, the value itself on the others.
POINT_WORTH: Final = _POINT_WORTH
#: For each placement action, the index of its tile in ``ALL_TILES``.
ACTION_TILE: Final = _ACTION_TILE

# The tables and helpers the numpy kernel (:mod:`._npbatch`) shares.
#: For each action, the index in ``POINTS`` of the point it joins (-1 where none).
ACTION_POINT: Final = _ACTION_POINT
#: For each tile, the index of its first point in ``POINTS``.
FIRST_POINT: Final = _FIRST_POINT
#: For each set of open values (bit v for value v), the tiles that fit one of them.
FITTING: Final = _FITTING
#: The bound of the counters and scores a state may hold (2**30).
LIMIT: Final = _LIMIT
#: For each point, the index of its tile in ``ALL_TILES``.
POINT_TILE: Final = _POINT_TILE
#: For each point, its open value.
POINT_VALUE: Final = _POINT_VALUE


def _free_point(p: int, t: int) -> int:
    """The point tile ``t`` leaves open when it joins point ``p``."""
    tile = ALL_TILES[t]
    if tile.is_double:
        return _FIRST_POINT[t] + 1
    return _FIRST_POINT[t] + (1 if tile.low == _POINT_VALUE[p] else 0)


def _signed(value: int) -> int:
    """The int32 with the low 32 bits of ``value``."""
    value &= _M32
    return value - (1 << 32) if value >> 31 else value


def _u64(s: list[int], at: int) -> int:
    return (s[at] & _M32) | (s[at + 1] & _M32) << 32


def _put_u64(s: list[int], at: int, value: int) -> None:
    s[at] = _signed(value)
    s[at + 1] = _signed(value >> 32)


def _open_bits(s: list[int]) -> int:
    return (s[OPEN] & _M32) | (s[OPEN + 1] & _M32) << 32 | (s[OPEN + 2] & 0x3F) << 64


def _put_open(s: list[int], bits: int) -> None:
    s[OPEN] = _signed(bits)
    s[OPEN + 1] = _signed(bits >> 32)
    s[OPEN + 2] = (bits >> 64) & 0x3F


def _points(bits: int) -> list[int]:
    return [p for p in range(len(POINTS)) if bits >> p & 1]


def _recount(s: list[int]) -> None:
    open_points = _points(_open_bits(s))
    total = sum(_POINT_WORTH[p] for p in open_points)
    values = 0
    for p in open_points:
        values |= 1 << _POINT_VALUE[p]
    if (
        len(open_points) == 2
        and _POINT_RANK[open_points[0]] == 2
        and open_points[1] == open_points[0] + 1
    ):
        total -= _POINT_WORTH[open_points[0]]  # a lone opening double counts once
    s[END_SUM] = total
    s[VALUES] = values


def _tiles_to_place(s: list[int]) -> int:
    return 1 << s[DRAWN] if s[DRAWN] >= 0 else s[HANDS + s[TURN]] & _HAND_BITS


def _deal_round(s: list[int], opener: int) -> None:
    players = s[PLAYERS]
    size = hand_size(players)
    order, rng = shuffled(tuple(range(_TILES)), _u64(s, RNG))
    for seat in range(4):
        hand = 0
        if seat < players:
            for t in order[seat * size : (seat + 1) * size]:
                hand |= 1 << t
        s[HANDS + seat] = hand
    stock = order[players * size :]
    for i in range(14):
        s[STOCK + i] = stock[i] if i < len(stock) else 0
    if opener < 0:
        opener, rng = below(players, rng)
    _put_u64(s, RNG, rng)
    s[TURN] = opener
    s[DRAWN] = -1
    s[DRAWN_COUNT] = 0
    s[STOCK_SIZE] = len(stock)
    s[END_SUM] = 0
    s[SNIFF] = -1
    s[VALUES] = 0
    s[TABLE] = 0
    s[OPEN] = s[OPEN + 1] = s[OPEN + 2] = 0
    s[ROUND_ACTIONS] = 0


def _reset_one(seed: int, players: int) -> list[int]:
    s = [0] * STATE_WORDS
    s[PLAYERS] = players
    s[ROUND] = 1
    s[WINNER] = -1
    _put_u64(s, RNG, seed)
    _put_u64(s, SEED, seed)
    _deal_round(s, -1)
    return s


def _state_ok(s: list[int]) -> bool:
    players = s[PLAYERS]
    if players not in PLAYER_COUNTS:
        return False
    if not 0 <= s[TURN] < players or not -1 <= s[DRAWN] < _TILES:
        return False
    if not -1 <= s[WINNER] < side_count(players):
        return False
    if s[STOCK_SIZE] != _TILES - players * hand_size(players):
        return False
    if not 0 <= s[DRAWN_COUNT] <= s[STOCK_SIZE]:
        return False
    if any(not -_LIMIT < s[SCORES + k] < _LIMIT for k in range(4)):
        return False
    return 1 <= s[ROUND] < _LIMIT and all(0 <= s[k] < _LIMIT for k in (ACTIONS, ROUND_ACTIONS))


def _is_legal(s: list[int], action: int) -> bool:
    table = s[TABLE] & _HAND_BITS
    tiles = _tiles_to_place(s)
    stock_left = s[STOCK_SIZE] - s[DRAWN_COUNT]
    if action < _TILES:
        return table == 0 and bool(tiles >> action & 1)
    if table == 0:
        return False
    if action >= DRAW_ACTION:
        if _FITTING[s[VALUES] & 0x7F] & tiles:
            return False
        return stock_left > 0 if action == DRAW_ACTION else stock_left == 0
    return bool(_open_bits(s) >> _ACTION_POINT[action] & 1) and bool(
        tiles >> _ACTION_TILE[action] & 1
    )


def _end_round(s: list[int], finisher: int) -> None:
    players = s[PLAYERS]
    for seat in range(players):
        hand = s[HANDS + seat] & _HAND_BITS
        pips = sum(ALL_TILES[t].pips for t in range(_TILES) if hand >> t & 1)
        s[SCORES + side_of(players, seat)] -= round_hand(pips)
    s[ROUND] += 1
    _deal_round(s, finisher)


def _anyone_can_place(s: list[int]) -> bool:
    return bool(_FITTING[s[VALUES] & 0x7F] & ~s[TABLE] & _HAND_BITS)


def _place(s: list[int], tile: int, at: int) -> None:
    seat = s[TURN]
    players = s[PLAYERS]
    hand = s[HANDS + seat] & _HAND_BITS & ~(1 << tile)
    s[HANDS + seat] = hand
    s[TABLE] = (s[TABLE] & _HAND_BITS) | 1 << tile
    s[DRAWN] = -1
    bits = _open_bits(s)
    if at < 0:
        first = _FIRST_POINT[tile]
        bits |= 1 << first | 1 << (first + 1)
    else:
        bits &= ~(1 << at)
        bits |= 1 << _free_point(at, tile)
        rank = _POINT_RANK[at]
        if rank in (2, 3) and _POINT_TILE[at] == s[SNIFF] and not bits >> (at ^ 1) & 1:
            first = _FIRST_POINT[_POINT_TILE[at]]
            bits |= 1 << (first + 2) | 1 << (first + 3)  # the Sniff's branches open
    _put_open(s, bits)
    if s[SNIFF] < 0 and ALL_TILES[tile].is_double:
        s[SNIFF] = tile
    _recount(s)
    points = placement_points(s[END_SUM])
    side = side_of(players, seat)
    if points:
        s[SCORES + side] += points
        if has_won(players, s[SCORES + side]):
            s[WINNER] = side
            return
    if hand == 0:
        _end_round(s, seat)
        return
    if s[STOCK_SIZE] == s[DRAWN_COUNT] and not _anyone_can_place(s):
        _end_round(s, -1)
        return
    s[TURN] = next_seat(players, seat)


def _draw(s: list[int]) -> None:
    seat = s[TURN]
    tile = s[STOCK + s[DRAWN_COUNT]]
    fits = bool(_FITTING[s[VALUES] & 0x7F] >> tile & 1)
    s[DRAWN_COUNT] += 1
    s[HANDS + seat] = (s[HANDS + seat] & _HAND_BITS) | 1 << tile
    if not fits and s[STOCK_SIZE] == s[DRAWN_COUNT] and not _anyone_can_place(s):
        _end_round(s, -1)
        return
    s[DRAWN] = tile if fits else -1


def _step_one(s: list[int], action: int, reward: list[int]) -> int:
    if not _state_ok(s):
        return BAD_STATE
    if s[WINNER] >= 0:
        return MATCH_OVER
    if not 0 <= action < NUM_ACTIONS:
        return OUT_OF_RANGE
    if not _is_legal(s, action):
        return ILLEGAL
    if action == DRAW_ACTION and not 0 <= s[STOCK + s[DRAWN_COUNT]] < _TILES:
        return BAD_STATE  # the stock holds no tile there
    players = s[PLAYERS]
    before = s[SCORES : SCORES + 4]
    s[ACTIONS] += 1
    s[ROUND_ACTIONS] += 1
    if action == DRAW_ACTION:
        _draw(s)
    elif action == PASS_ACTION:
        s[TURN] = next_seat(players, s[TURN])
    else:
        _place(s, _ACTION_TILE[action], _ACTION_POINT[action])
    for seat in range(players):
        side = side_of(players, seat)
        reward[seat] = s[SCORES + side] - before[side]
    return OK


def _mask_one(s: list[int]) -> list[int]:
    return _mask_checked(s) if _state_ok(s) else [0] * NUM_ACTIONS


def _mask_checked(s: list[int]) -> list[int]:
    """The legal mask of a slot whose words :func:`_state_ok` has accepted."""
    mask = [0] * NUM_ACTIONS
    if s[WINNER] >= 0:
        return mask
    tiles = _tiles_to_place(s)
    if s[TABLE] & _HAND_BITS == 0:
        for t in range(_TILES):
            if tiles >> t & 1:
                mask[t] = 1
        return mask
    found = False
    for p in _points(_open_bits(s)):
        fit = tiles & _TILES_SHOWING[_POINT_VALUE[p]]
        for t in range(_TILES):
            action = _PLACE_ACTION.get((p, t))
            if fit >> t & 1 and action is not None:
                mask[action] = 1
                found = True
    if not found:
        mask[DRAW_ACTION if s[STOCK_SIZE] > s[DRAWN_COUNT] else PASS_ACTION] = 1
    return mask


# -- the entry points, on buffers (as the C module's) ---------------------------


def _view(obj: object, name: str, count: int, formats: str, writable: bool) -> memoryview:
    """``obj`` as a flat memoryview of ``count`` items of one of ``formats``' codes."""
    try:
        view = memoryview(obj)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be a C-contiguous buffer of integers, got {obj!r}") from None
    if writable and view.readonly:
        raise TypeError(f"{name} must be a writable C-contiguous buffer of integers, got {obj!r}")
    code = view.format.lstrip("@=<>!")
    if not view.c_contiguous or len(code) != 1 or code not in "bBhHiIlLqQ?":
        raise ValueError(f"{name} must be a C-contiguous buffer of integers")
    for wanted in formats:
        size = struct.calcsize(wanted)
        if view.itemsize == size and view.nbytes == count * size:
            flat: memoryview = view.cast("B").cast(wanted)  # type: ignore[call-overload]
            return flat
    raise ValueError(
        f"{name} must hold {count} integers of {size} bytes each (C-contiguous), "
        f"got {view.nbytes} bytes of format {view.format}"
    )


def _slots(state: object) -> int:
    try:
        view = memoryview(state)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"state must be a writable C-contiguous buffer of int32, got {state!r}"
        ) from None
    if view.nbytes % (4 * STATE_WORDS):
        raise ValueError(
            f"state must hold a multiple of {STATE_WORDS} int32 words, got {view.nbytes} bytes"
        )
    return view.nbytes // (4 * STATE_WORDS)


def reset_into(state: object, seeds: object, players: int, mask: object) -> None:
    """Reset every slot of ``state``: slot i deals ``new_match(players, seed=seeds[i])``."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players}")
    n = _slots(state)
    words = _view(state, "state", n * STATE_WORDS, "i", True)
    seed_view = _view(seeds, "seeds", n, "Q", False)
    flags = _view(mask, "mask", n * NUM_ACTIONS, "B", True)
    for i in range(n):
        s = _reset_one(seed_view[i], players)
        words[i * STATE_WORDS : (i + 1) * STATE_WORDS] = _ints("i", s)
        flags[i * NUM_ACTIONS : (i + 1) * NUM_ACTIONS] = _ints("B", _mask_one(s))


def step_into(  # noqa: PLR0913, PLR0917 - the C function's six buffers
    state: object, actions: object, mask: object, rewards: object, done: object, errors: object
) -> int:
    """Step every slot in place by its action; return how many refused theirs."""
    n = _slots(state)
    words = _view(state, "state", n * STATE_WORDS, "i", True)
    chosen = _view(actions, "actions", n, "qi", False)
    flags = _view(mask, "mask", n * NUM_ACTIONS, "B", True)
    gains = _view(rewards, "rewards", n * 4, "i", True)
    over = _view(done, "done", n, "B", True)
    codes = _view(errors, "errors", n, "B", True)
    refused = 0
    for i in range(n):
        s = list(words[i * STATE_WORDS : (i + 1) * STATE_WORDS])
        reward = [0, 0, 0, 0]
        error = _step_one(s, chosen[i], reward)
        if error == OK:
            words[i * STATE_WORDS : (i + 1) * STATE_WORDS] = _ints("i", s)
        refused += error != OK
        codes[i] = error
        over[i] = int(error != BAD_STATE and s[WINNER] >= 0)
        gains[4 * i : 4 * i + 4] = _ints("i", reward)
        # (A step leaves a state that _state_ok accepts; a refusal leaves it as it was.)
        row = [0] * NUM_ACTIONS if error == BAD_STATE else _mask_checked(s)
        flags[i * NUM_ACTIONS : (i + 1) * NUM_ACTIONS] = _ints("B", row)
    return refused


def mask_into(state: object, mask: object) -> None:
    """Write every slot's legal mask."""
    n = _slots(state)
    words = _view(state, "state", n * STATE_WORDS, "i", True)
    flags = _view(mask, "mask", n * NUM_ACTIONS, "B", True)
    for i in range(n):
        s = list(words[i * STATE_WORDS : (i + 1) * STATE_WORDS])
        flags[i * NUM_ACTIONS : (i + 1) * NUM_ACTIONS] = _ints("B", _mask_one(s))


def _ints(code: str, values: list[int]) -> memoryview:
    """``values`` as a memoryview of the format ``code`` (for slice assignment)."""
    return memoryview(array(code, values))


#: The point a tile leaves open when it joins a point: ``free_point(p, t)``.
free_point = _free_point
#: A freshly dealt slot's words, as a list: ``reset_one(seed, players)``.
reset_one = _reset_one
#: How many slots a state buffer holds (raises TypeError or ValueError).
slots = _slots
#: A checked flat memoryview of a buffer: ``buffer_view(obj, name, count, formats, writable)``.
buffer_view = _view
