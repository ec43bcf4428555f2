"""The round's history beside a batch, its perfect-recall tensor, and worlds redrawn for search.

A slot's 48 words and its facts (:mod:`american_sniff.batch.observe`) say
where a round stands, not how it got there. A *history* array keeps that
beside them, when asked: :data:`HISTORY_WORDS` ``uint16`` records a slot,
record ``k`` for the round's ``k + 1``-th action (the slot's
``round_actions`` word says how many there are): the action id in bits 0-8,
the tile drawn in bits 9-13 (a draw's alone) and the seat that acted in bits
14-15. The C kernel notes them as it steps (``step_facts_into``,
``step_rows_into``, ``play_forced_into`` and ``play_random_into`` take a
``history`` argument); :func:`advance_history` does it in numpy after a
:func:`~american_sniff.batch.step`. A round's end needs nothing done (its
count goes back to 0), so a fresh batch's history is zeros
(:func:`start_history`).

:func:`information_state` gives for each slot and a seat the vector that
:func:`american_sniff.observation.encode_information_state` gives for
``view_for(state, seat)``, and :func:`redraw` deals a slot's hidden tiles
again as one seat sees them, for search. Needs numpy.

>>> from american_sniff import new_match, view_for
>>> from american_sniff.observation import encode_information_state
>>> from american_sniff.batch import reset, step
>>> from american_sniff.batch.observe import advance_facts, start_facts
>>> out = reset(np.array([3, 4], np.uint64), 2)
>>> facts, history = start_facts(out.state), start_history(2)
>>> actions = out.mask.argmax(axis=1)                  # each slot's first legal action
>>> after = step(out.state, actions)
>>> advance_facts(facts, out.state, actions, after.state, after.errors)
>>> advance_history(history, out.state, actions, after.state, after.errors)
>>> tensor = information_state(after.state, facts, history, 1)   # seat 1 of every slot
>>> tensor.shape
(2, 7858)
>>> from american_sniff import apply
>>> from american_sniff.actions import move_of
>>> match = new_match(2, seed=3)
>>> match = apply(match, move_of(match, int(actions[0])))
>>> tensor[0].tolist() == list(encode_information_state(view_for(match, 1)))
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from ..actions import NUM_ACTIONS, POINTS
from ..observation import (
    ACTION_SLOT_FIELDS,
    OBSERVATION_SIZE,
    action_slots,
    information_state_size,
)
from ..rng import below, next_u64
from ..rules import PLAYER_COUNTS
from ..tiles import ALL_TILES
from . import _pybatch as k
from .observe import FACT_WORDS, _observe_numpy

__all__ = [
    "HISTORY_WORDS",
    "advance_history",
    "information_state",
    "redraw",
    "start_history",
]

#: How many ``uint16`` records of history a slot has (room for the longest round, 123 actions).
HISTORY_WORDS: Final = k.HISTORY_WORDS

_DRAW, _PASS = NUM_ACTIONS - 2, NUM_ACTIONS - 1
_TILE_SHIFT, _SEAT_SHIFT = k.H_TILE_SHIFT, k.H_SEAT_SHIFT
_SLOT = sum(size for _, size in ACTION_SLOT_FIELDS)
_KIND, _TILE, _POINT = 4, 7, 35
_TILE_OF = np.array(k.ACTION_TILE, np.int64)
_POINT_OF = np.array(
    [-1] * len(ALL_TILES) + [p for p in range(len(POINTS)) for _ in range(6)] + [-1, -1],
    np.int64,
)
_DTYPES = (np.dtype(np.int32), np.dtype(np.float32))
_SHOWS = tuple(1 << t.low | 1 << t.high for t in ALL_TILES)


def start_history(slots: int) -> Any:
    """A fresh history for ``slots`` slots: an (N, :data:`HISTORY_WORDS`) ``uint16`` array of zeros.

    Right for a batch just reset (its rounds have no action yet).
    """
    return np.zeros((slots, HISTORY_WORDS), np.uint16)


def advance_history(history: Any, before: Any, actions: Any, after: Any, errors: Any) -> None:
    """Note in ``history`` (in place) the actions of one step from ``before`` to ``after``.

    ``actions`` and ``errors`` are the step's; a refused action, or one that
    ended the round, notes nothing. The C kernel's stepping calls do the
    same, given the history.
    """
    s0 = np.asarray(before).reshape(-1, k.STATE_WORDS)
    s1 = np.asarray(after).reshape(-1, k.STATE_WORDS)
    a = np.asarray(actions).astype(np.int64).reshape(-1)
    count = s1[:, k.ROUND_ACTIONS].astype(np.int64)
    noted = (np.asarray(errors) == k.OK) & (count >= 1) & (count <= HISTORY_WORDS)
    rows = np.flatnonzero(noted)
    drawn = np.clip(s1[rows, k.DRAWN_COUNT].astype(np.int64) - 1, 0, 13)
    tile = np.where(a[rows] == _DRAW, s1[rows, k.STOCK + drawn], 0).astype(np.int64)
    seat = s0[rows, k.TURN].astype(np.int64)
    record = a[rows] | tile << _TILE_SHIFT | seat << _SEAT_SHIFT
    history[rows, count[rows] - 1] = record.astype(np.uint16)


def _c_kernel() -> Any:
    """The C kernel if it is built with the calls of ``_crecall.c``; else None."""
    from . import BACKENDS  # noqa: PLC0415 - the package imports no submodule of its own

    kernel = BACKENDS.get("c")
    return kernel if hasattr(kernel, "redraw_into") else None


def information_state(  # noqa: PLR0913 (the options are keyword-only, each with a default)
    state: Any,
    facts: Any,
    history: Any,
    seats: Any,
    rows: Any = None,
    *,
    players: int | None = None,
    dtype: Any = np.int32,
    backend: str | None = None,
) -> Any:
    """The perfect-recall tensor of a seat of each slot: an (M, size) array.

    Row ``j`` is ``encode_information_state(view_for(state, seat))`` of slot
    ``rows[j]`` (every slot in order without ``rows``), with ``seat`` =
    ``seats`` (one integer for every row) or ``seats[j]``; ``size`` is
    :func:`~american_sniff.observation.information_state_size` of
    ``players`` (by default the first row's slot's, or the first slot's). ``dtype`` is
    ``np.int32`` or ``np.float32`` (the same numbers); ``backend`` is
    ``"c"`` (one pass, the GIL released), ``"numpy"``, or None: C where it
    is built. The C kernel writes a row of zeros for a slot whose words,
    facts or history no step made, or whose seat or player count is not the
    row's; numpy reads them as they are.

    :raises ValueError: for another ``dtype``, ``backend`` or player count,
        seats not one a row, or ``"c"`` where the C kernel is not built.
    :raises IndexError: if a row is not a slot of ``state``.
    """
    kind = np.dtype(dtype)
    if kind not in _DTYPES:
        raise ValueError(f"dtype must be int32 or float32, got {dtype!r}")
    if backend not in {None, "c", "numpy"}:
        raise ValueError(f"backend must be 'c', 'numpy' or None, got {backend!r}")
    kernel = None if backend == "numpy" else _c_kernel()
    if backend == "c" and kernel is None:
        raise ValueError("the C kernel is not built here")
    s = np.ascontiguousarray(np.asarray(state).reshape(-1, k.STATE_WORDS), np.int32)
    f = np.ascontiguousarray(np.asarray(facts).reshape(len(s), FACT_WORDS), np.int64)
    h = np.ascontiguousarray(np.asarray(history).reshape(len(s), HISTORY_WORDS), np.uint16)
    index = np.arange(len(s)) if rows is None else np.asarray(rows, np.int64).reshape(-1)
    if len(index) and (index.min() < -len(s) or index.max() >= len(s)):
        bad = index[(index < -len(s)) | (index >= len(s))][0]
        raise IndexError(f"index {bad} is out of bounds for axis 0 with size {len(s)}")
    index = np.where(index < 0, index + len(s), index).astype(np.int64)
    chosen = np.asarray(seats)
    if (
        chosen.dtype.kind not in "iu"
        or chosen.ndim > 1
        or (chosen.ndim and len(chosen) != len(index))
    ):
        raise ValueError(f"seats must be an integer or one a row ({len(index)}), got {seats!r}")
    chosen = np.ascontiguousarray(np.broadcast_to(chosen, index.shape), np.int64)
    if players is None:
        first = index[0] if len(index) else 0
        players = int(s[first, k.PLAYERS]) if len(s) else min(PLAYER_COUNTS)
    if players not in PLAYER_COUNTS:
        raise ValueError(f"players must be 2, 3 or 4, got {players!r}")
    out = np.empty((len(index), information_state_size(players)), kind)
    if kernel is not None:
        kernel.information_state_into(s, f, h, players, chosen, out, index)
        return out
    out[...] = _information_numpy(s[index], f[index], h[index], chosen, players)
    return out


def _information_numpy(s: Any, f: Any, h: Any, seats: Any, players: int) -> Any:
    """The tensors in numpy: an (M, size) int32 array (rows of the player count ``players``)."""
    m = len(s)
    out = np.zeros((m, information_state_size(players)), np.int32)
    out[:, :OBSERVATION_SIZE] = _observe_numpy(s, f, seats)
    slots = action_slots(players)
    count = np.clip(s[:, k.ROUND_ACTIONS].astype(np.int64), 0, slots)
    records = h[:, :slots].astype(np.int64)
    live = np.arange(slots)[None, :] < count[:, None]
    action = records & 0x1FF
    tile = records >> _TILE_SHIFT & 0x1F
    actor = records >> _SEAT_SHIFT
    row, at = np.nonzero(live)
    base = OBSERVATION_SIZE + 28 + _SLOT * at
    a, t, who, seat = action[row, at], tile[row, at], actor[row, at], seats[row]
    out[row, base + (who - seat) % players] = 1
    place = a < _DRAW
    out[row[place], base[place] + _KIND] = 1
    out[row[place], base[place] + _TILE + _TILE_OF[a[place]]] = 1
    pointed = place & (a >= len(ALL_TILES))
    out[row[pointed], base[pointed] + _POINT + _POINT_OF[a[pointed]]] = 1
    drawn = a == _DRAW
    out[row[drawn], base[drawn] + _KIND + 1] = 1
    mine = drawn & (who == seat)
    out[row[mine], base[mine] + _TILE + t[mine]] = 1
    out[row[a == _PASS], base[a == _PASS] + _KIND + 2] = 1
    hands = s[np.arange(m), k.HANDS + seats].astype(np.int64) & k.HAND_BITS
    held = (hands[:, None] >> np.arange(28)) & 1
    placed_mine = place & (who == seat)
    held[row[placed_mine], _TILE_OF[a[placed_mine]]] = 1
    held[row[mine], t[mine]] = 0
    out[:, OBSERVATION_SIZE : OBSERVATION_SIZE + 28] = held
    return out


def redraw(  # noqa: PLR0913, PLR0917 - the C function's arrays, and the keyword-only backend
    state: Any,
    facts: Any,
    history: Any,
    slots: Any,
    seats: Any,
    seeds: Any,
    into: Any,
    *,
    backend: str | None = None,
) -> Any:
    """Deal again the hidden tiles of slot ``slots[j]`` as seat ``seats[j]`` sees them.

    For j in order, slot ``into[j]`` (it may be ``slots[j]``) becomes a
    *world* of slot ``slots[j]``: the same table, scores, turn, round, facts
    and history, seat ``seats[j]``'s hand, and the hidden tiles (the other
    seats' hands and the stock left) dealt again, uniformly among the deals
    that give each other seat as many tiles as it holds and no tile showing
    a number it is known to lack (the facts' voids): the distribution of
    :class:`american_sniff.bots.Determiniser` with ``history=False``. The
    stock left is in a uniform order; the world's seed words are 0, its
    generator (the later rounds' deals) is drawn too, its stock words of the
    tiles drawn already are 0, another seat's tile to place is not kept, and
    the world's history shows no other seat's drawn tile: no word of the
    world holds what the seat cannot know but the redrawn tiles. The draws
    come from the SplitMix64 state ``seeds[j]``: the same seed, the same
    world, whatever the backend (``"c"`` or ``"python"``; None: C where it
    is built). ``history`` may be None (not kept).

    ``state``, ``facts`` and ``history`` are changed in place; ``slots``,
    ``seats``, ``seeds`` and ``into`` are one integer a row (or one for
    all). Returns each row's error code: :data:`~american_sniff.batch.OK`,
    :data:`~american_sniff.batch.MATCH_OVER` (nothing is hidden), or
    :data:`~american_sniff.batch.BAD_STATE` (a slot or seat out of range,
    words no step made, no deal that fits), a ``uint8`` array; a refused row
    changes nothing.

    :raises ValueError: for another ``backend``, ``"c"`` where the C kernel
        is not built, or arrays that do not fit.
    """
    if backend not in {None, "c", "python"}:
        raise ValueError(f"backend must be 'c', 'python' or None, got {backend!r}")
    kernel = None if backend == "python" else _c_kernel()
    if backend == "c" and kernel is None:
        raise ValueError("the C kernel is not built here")
    s, f = np.asarray(state), np.asarray(facts)
    if (
        s.dtype != np.int32
        or f.dtype != np.int64
        or not s.flags.c_contiguous
        or not f.flags.c_contiguous
        or s.size % k.STATE_WORDS
        or f.size != s.size // k.STATE_WORDS * FACT_WORDS
    ):
        raise ValueError("state and facts must be C-contiguous int32 and int64 arrays of one batch")
    n = s.size // k.STATE_WORDS
    if history is not None:
        h = np.asarray(history)
        if h.dtype != np.uint16 or not h.flags.c_contiguous or h.size != n * HISTORY_WORDS:
            raise ValueError(f"history must be a C-contiguous uint16 array of {n} slots")
    m = max(np.size(slots), np.size(seats), np.size(seeds), np.size(into))
    arrays = []
    for name, values, kind in (
        ("slots", slots, np.int64),
        ("seats", seats, np.int64),
        ("seeds", seeds, np.uint64),
        ("into", into, np.int64),
    ):
        given = np.asarray(values)
        if given.dtype.kind not in "iu" or given.ndim > 1 or given.size not in (1, m):
            raise ValueError(f"{name} must be integers, one a row or one for all, got {values!r}")
        arrays.append(np.ascontiguousarray(np.broadcast_to(given.reshape(-1), (m,)), kind))
    rows, chosen, streams, targets = arrays
    errors = np.zeros(m, np.uint8)
    if kernel is not None:
        kernel.redraw_into(s, f, history, rows, chosen, streams, targets, errors)
        return errors
    words = s.reshape(n, k.STATE_WORDS)
    rows_f = f.reshape(n, FACT_WORDS)
    rows_h = None if history is None else np.asarray(history).reshape(n, HISTORY_WORDS)
    for j in range(m):
        errors[j] = _redraw_python(
            words, rows_f, rows_h, int(rows[j]), int(chosen[j]), int(streams[j]), int(targets[j])
        )
    return errors


def _redraw_python(  # noqa: PLR0913, PLR0917 - the C function's arguments, one row
    state: Any, facts: Any, history: Any, slot: int, seat: int, seed: int, into: int
) -> int:
    """One row of :func:`redraw` in Python: the C kernel's draws, in its order."""
    n = len(state)
    if not (0 <= slot < n and 0 <= into < n):
        return k.BAD_STATE
    s = [int(x) for x in state[slot]]
    f = [int(x) for x in facts[slot]]
    players = s[k.PLAYERS]
    if not k._state_ok(s) or not 0 <= seat < players or not _facts_ok(s, f):
        return k.BAD_STATE
    if history is not None and not _history_ok(s, history[slot], players):
        return k.BAD_STATE
    if s[k.WINNER] >= 0:
        return k.MATCH_OVER
    world = _world(s, f, seat, seed)
    if world is None:
        return k.BAD_STATE
    state[into] = np.array(world, np.int64).astype(np.uint32).view(np.int32)
    if into != slot:
        facts[into] = facts[slot]
    if history is not None:
        if into != slot:
            history[into] = history[slot]
        records = history[into].astype(np.int64)
        others = ((records >> _SEAT_SHIFT) != seat) & ((records & 0x1FF) == _DRAW)
        records[others] &= ~(0x1F << _TILE_SHIFT)
        history[into] = records.astype(np.uint16)
    return k.OK


def _facts_ok(s: list[int], f: list[int]) -> bool:
    """The C kernel's observe_ok on the facts (the state's words are checked before)."""
    if not -1 <= s[k.SNIFF] < len(ALL_TILES) or not 0 <= f[k.F_OPENER] < s[k.PLAYERS]:
        return False
    return all(
        0 <= f[k.F_PLAYED + i] <= k.HAND_BITS and 0 <= f[k.F_VOIDS + i] <= 0x7F for i in range(4)
    )


def _history_ok(s: list[int], records: Any, players: int) -> bool:
    """Whether the slot's history has a record in range for each action of its round."""
    count = s[k.ROUND_ACTIONS]
    if not 0 <= count <= min(action_slots(players), HISTORY_WORDS):
        return False
    for record in records[:count].tolist():
        if (
            record & 0x1FF >= NUM_ACTIONS
            or record >> _TILE_SHIFT & 0x1F >= len(ALL_TILES)
            or record >> _SEAT_SHIFT >= players
        ):
            return False
    return True


def _world(s: list[int], f: list[int], seat: int, rng: int) -> list[int] | None:  # noqa: PLR0915
    """The words of one world of the slot ``s`` for ``seat`` (see :func:`redraw`), or None."""
    players = s[k.PLAYERS]
    hand_bits = k.HAND_BITS
    hands = [(s[k.HANDS + i] & 0xFFFFFFFF) & hand_bits for i in range(4)]
    others = [(seat + i) % players for i in range(1, players)]
    room = [hands[j].bit_count() for j in others]
    total_rooms = 1
    for r in room:
        total_rooms *= r + 1
    if total_rooms > _WORLD_ROOMS:
        return None
    drawn, size = s[k.DRAWN_COUNT], s[k.STOCK_SIZE]
    hidden = 0
    for j in others:
        hidden |= hands[j]
    for i in range(drawn, size):
        if not 0 <= s[k.STOCK + i] < len(ALL_TILES):
            return None
        hidden |= 1 << s[k.STOCK + i]
    known = hands[seat] | (s[k.TABLE] & hand_bits)
    if hidden & known or hidden.bit_count() != size - drawn + sum(room):
        return None
    tiles = [t for t in range(len(ALL_TILES)) if hidden >> t & 1]
    allowed = [
        sum(1 << i for i, j in enumerate(others) if not _SHOWS[t] & f[k.F_VOIDS + j]) for t in tiles
    ]
    ways = _count(tiles, allowed, room)
    full = tuple(room)
    total = ways[0].get(full, 0)
    if total == 0:
        return None
    pick, rng = below(total, rng)
    stock: list[int] = []
    dealt = [0] * len(others)
    left = full
    for i, tile in enumerate(tiles):
        placed = False
        if len(tiles) - i > sum(left):
            count = ways[i + 1].get(left, 0)
            if pick < count:
                stock.append(tile)
                placed = True
            else:
                pick -= count
        for o in range(len(others)):
            if placed:
                break
            if left[o] > 0 and allowed[i] >> o & 1:
                less = left[:o] + (left[o] - 1,) + left[o + 1 :]
                count = ways[i + 1].get(less, 0)
                if pick < count:
                    dealt[o] |= 1 << tile
                    left = less
                    placed = True
                else:
                    pick -= count
    for i in range(len(stock) - 1, 0, -1):
        j, rng = below(i + 1, rng)
        stock[i], stock[j] = stock[j], stock[i]
    world = list(s)
    for o, j in enumerate(others):
        world[k.HANDS + j] = dealt[o]
    for i in range(14):
        world[k.STOCK + i] = stock[i - drawn] if drawn <= i < drawn + len(stock) else 0
    if s[k.TURN] != seat:
        world[k.DRAWN] = -1
    later, rng = next_u64(rng)
    world[k.RNG] = later & 0xFFFFFFFF
    world[k.RNG + 1] = later >> 32
    world[k.SEED] = world[k.SEED + 1] = 0
    return world


#: The C kernel's bound on the counting table's rooms (a real match needs at most 648).
_WORLD_ROOMS: Final = 1024


def _count(
    tiles: list[int], allowed: list[int], room: list[int]
) -> list[dict[tuple[int, ...], int]]:
    """``ways[i][left]``: the deals of tiles ``i..`` filling the other seats' room ``left`` exactly.

    The stock takes a tile when the tiles left outnumber the seats' room.
    """
    hidden = len(tiles)
    rooms: list[tuple[int, ...]] = [()]
    for r in room:
        rooms = [(*before, amount) for before in rooms for amount in range(r + 1)]
    ways: list[dict[tuple[int, ...], int]] = [{} for _ in range(hidden + 1)]
    for left in rooms:
        ways[hidden][left] = int(not any(left))
    for i in range(hidden - 1, -1, -1):
        after, here = ways[i + 1], ways[i]
        for left in rooms:
            total = after[left] if hidden - i > sum(left) else 0
            for o in range(len(left)):
                if left[o] and allowed[i] >> o & 1:
                    total += after[left[:o] + (left[o] - 1,) + left[o + 1 :]]
            here[left] = total
    return ways
