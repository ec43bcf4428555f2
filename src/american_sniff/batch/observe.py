"""The observation of each slot's seat to move, from the batch state: numpy, vectorised.

:func:`observe` gives, for every slot, the vector that
:func:`american_sniff.observation.encode` gives for ``view_for(state, seat)``
(:data:`~american_sniff.observation.OBSERVATION_SIZE` integers), with ``seat``
the slot's seat to move. What a view reads from the round's history (what
each seat placed, its known voids, the round's opener) is not in a slot's 48
words, so it is kept beside them in a *facts* array,
:data:`FACT_WORDS` int64 words a slot: :func:`start_facts` after
:func:`~american_sniff.batch.reset`, :func:`advance_facts` after each
:func:`~american_sniff.batch.step`. Needs numpy.

Where the C kernel is built (:data:`american_sniff.batch.BACKENDS` has
``"c"``), :func:`observe` has it compute the numbers (``as_batch_observe`` in
``batch/_cobserve.c``), the same ones, an order of magnitude faster; the numpy
code stays the fallback, and ``backend="numpy"`` asks for it.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from ..actions import NUM_ACTIONS, POINTS
from ..observation import OBSERVATION_FIELDS, OBSERVATION_SIZE
from ..rules import PLAYER_COUNTS, side_count, side_of, target
from ..tiles import ALL_TILES
from . import _pybatch as k

__all__ = ["FACT_WORDS", "advance_facts", "observe", "start_facts"]

#: How many int64 words of facts a slot has: what each seat placed (4), its
#: voids (4), the turn under way (mover, draws, known, shown), the round, the opener.
FACT_WORDS: Final = k.FACT_WORDS
_PLAYED, _VOIDS, _MOVER, _DRAWS = k.F_PLAYED, k.F_VOIDS, k.F_MOVER, k.F_DRAWS
_KNOWN, _SHOWN, _ROUND, _OPENER = k.F_KNOWN, k.F_SHOWN, k.F_ROUND, k.F_OPENER

_AT: dict[str, int] = {}
_start = 0
for _name, _size in OBSERVATION_FIELDS:
    _AT[_name] = _start
    _start += _size

_TILE_OF = np.array(k.ACTION_TILE, np.int64)
_BIT28 = np.arange(28, dtype=np.int64)
_BIT7 = np.arange(7, dtype=np.int64)
_VALUE = np.array([p.value for p in POINTS], np.int64)
_WORTH = np.array(k.POINT_WORTH, np.int64)
_RANK = np.array(k.POINT_RANK, np.int64)
_LOW = np.array([t.low for t in ALL_TILES], np.int64)
_DTYPES = (np.dtype(np.int32), np.dtype(np.float32))
# The rules by ``players & 7``, and each seat's side by ``(players & 7) * 4 +
# (seat & 3)``, from american_sniff.rules (for a count no match has: one side,
# side 0, target 0, so that a broken word divides by no zero).
_COUNTS = [p if p in PLAYER_COUNTS else 0 for p in range(8)]
_SIDES = np.array([side_count(p) if p else 1 for p in _COUNTS], np.int64)
_TARGET = np.array([target(p) if p else 0 for p in _COUNTS], np.int64)
_SIDE_OF = np.array([side_of(p, s) if p else 0 for p in _COUNTS for s in range(4)], np.int64)


def start_facts(state: Any) -> Any:
    """Fresh facts for every slot of ``state`` (an (N, 48) int32 array at a round's start)."""
    s = np.asarray(state).reshape(-1, k.STATE_WORDS)
    facts = np.zeros((len(s), FACT_WORDS), np.int64)
    facts[:, _MOVER] = -1
    facts[:, _ROUND] = s[:, k.ROUND]
    facts[:, _OPENER] = s[:, k.TURN]
    return facts


def advance_facts(facts: Any, before: Any, actions: Any, after: Any, errors: Any) -> None:
    """Advance ``facts`` in place over one step from ``before`` to ``after``.

    ``actions`` and ``errors`` are the step's; a slot that refused its action
    keeps its facts, and a slot whose round ended gets the next round's.
    """
    s0 = np.asarray(before).reshape(-1, k.STATE_WORDS)
    s1 = np.asarray(after).reshape(-1, k.STATE_WORDS)
    a = np.asarray(actions, np.int64)
    ok = np.asarray(errors) == k.OK
    rows = np.arange(len(s0))
    seat = s0[:, k.TURN].astype(np.int64)
    fresh = ok & (s1[:, k.ROUND] != facts[:, _ROUND])
    same = ok & ~fresh
    new_turn = same & (facts[:, _MOVER] != seat)
    facts[new_turn, _MOVER] = seat[new_turn]
    facts[new_turn, _DRAWS] = 0
    facts[new_turn, _KNOWN] = facts[new_turn, _VOIDS + seat[new_turn]]
    facts[new_turn, _SHOWN] = s0[new_turn, k.VALUES]
    place = same & (a < NUM_ACTIONS - 2)
    draw = same & (a == NUM_ACTIONS - 2)
    placed = np.where(place, _TILE_OF[np.clip(a, 0, NUM_ACTIONS - 1)], 0)
    facts[rows[place], _PLAYED + seat[place]] |= np.int64(1) << placed[place]
    facts[draw, _DRAWS] += 1
    facts[rows[draw], _VOIDS + seat[draw]] = 0
    chosen = place & (facts[:, _DRAWS] == 0)
    ends = same & ~draw & ~chosen
    kept = np.where(place, facts[:, _DRAWS] - 1, facts[:, _DRAWS])
    void = facts[:, _SHOWN] | np.where(kept == 0, facts[:, _KNOWN], 0)
    facts[rows[ends], _VOIDS + seat[ends]] = void[ends]
    done_turn = chosen | ends
    facts[done_turn, _MOVER] = -1
    facts[done_turn, _DRAWS] = facts[done_turn, _KNOWN] = facts[done_turn, _SHOWN] = 0
    facts[fresh] = start_facts(s1[fresh])


def observe(
    state: Any,
    facts: Any,
    rows: Any = None,
    *,
    dtype: Any = np.int32,
    backend: str | None = None,
) -> Any:
    """The observation of each slot's seat to move: an (N, 375) ``int32`` array.

    With ``rows`` (an index array, numpy's indexing: -1 is the last slot),
    only those slots' rows, in that order. ``dtype`` is ``np.int32`` or
    ``np.float32`` (the same numbers). ``backend`` is ``"c"``, ``"numpy"``,
    or None: the C kernel where it is built, else numpy. The C kernel gives
    a row of zeros for a slot whose words or facts no reset, step or
    :func:`advance_facts` made (a word out of its range); numpy reads them as
    they are.

    :raises ValueError: for another ``dtype`` or ``backend``, or ``"c"``
        where the C kernel is not built.
    :raises IndexError: if a row is not a slot of ``state``.
    """
    kind = np.dtype(dtype)
    if kind not in _DTYPES:
        raise ValueError(f"dtype must be int32 or float32, got {dtype!r}")
    if backend not in {None, "c", "numpy"}:
        raise ValueError(f"backend must be 'c', 'numpy' or None, got {backend!r}")
    into = None if backend == "numpy" else _c_observe_into()
    if backend == "c" and into is None:
        raise ValueError("the C kernel is not built here")
    s = np.asarray(state).reshape(-1, k.STATE_WORDS)
    f = np.asarray(facts)
    index = None if rows is None else np.asarray(rows, np.intp).reshape(-1)
    if into is None or s.dtype != np.int32 or f.dtype != np.int64:
        if index is not None:
            s, f = s[index], f[index]
        return _observe_numpy(s, f).astype(kind, copy=False)
    s = np.ascontiguousarray(s)
    f = np.ascontiguousarray(f)
    if index is None:
        out = np.empty((len(s), OBSERVATION_SIZE), kind)
        into(s, f, out)
        return out
    if len(index) and (index.min() < -len(s) or index.max() >= len(s)):
        bad = index[(index < -len(s)) | (index >= len(s))][0]
        raise IndexError(f"index {bad} is out of bounds for axis 0 with size {len(s)}")
    index = np.where(index < 0, index + len(s), index).astype(np.int64)
    out = np.empty((len(index), OBSERVATION_SIZE), kind)
    into(s, f, out, index)
    return out


def _c_observe_into() -> Any:
    """The C kernel's ``observe_into``, or None where it is not built (or too old to have it)."""
    from . import BACKENDS  # noqa: PLC0415 - the package imports no submodule of its own

    return getattr(BACKENDS.get("c"), "observe_into", None)


def _observe_numpy(state: Any, facts: Any) -> Any:
    """The observations in numpy: an (N, 375) int32 array."""
    s = np.asarray(state).reshape(-1, k.STATE_WORDS).astype(np.int64)
    n = len(s)
    out = np.zeros((n, OBSERVATION_SIZE), np.int32)
    rows = np.arange(n)
    players, seat, winner = s[:, k.PLAYERS], s[:, k.TURN], s[:, k.WINNER]
    hands = s[:, k.HANDS : k.HANDS + 4] & k.HAND_BITS
    out[:, 0:28] = (hands[rows, seat][:, None] >> _BIT28) & 1
    drawn = (winner < 0) & (s[:, k.DRAWN] >= 0)
    out[rows[drawn], _AT["drawn"] + s[drawn, k.DRAWN]] = 1
    sides = _SIDES[players & 7]
    my_side = _SIDE_OF[(players & 7) * 4 + (seat & 3)]
    for r in range(4):
        other = (seat + r) % players
        live = r < players
        out[:, _AT["played"] + 28 * r : _AT["played"] + 28 * r + 28] = np.where(
            live[:, None], (facts[rows, _PLAYED + other][:, None] >> _BIT28) & 1, 0
        )
        out[:, _AT["hand_sizes"] + r] = np.where(live, _popcount(hands[rows, other]), 0)
        out[:, _AT["voids"] + 7 * r : _AT["voids"] + 7 * r + 7] = np.where(
            live[:, None], (facts[rows, _VOIDS + other][:, None] >> _BIT7) & 1, 0
        )
    words = s[:, k.OPEN : k.OPEN + 3] & 0xFFFFFFFF
    bits = np.concatenate(
        [
            (words[:, 0:1] >> np.arange(32)) & 1,
            (words[:, 1:2] >> np.arange(32)) & 1,
            (words[:, 2:3] >> np.arange(6)) & 1,
        ],
        axis=1,
    )
    out[:, _AT["open"] : _AT["open"] + 70] = bits
    counts = bits * _WORTH
    lone = (bits.sum(axis=1) == 2) & (s[:, k.TABLE] & k.HAND_BITS).astype(bool)
    first = np.argmax(bits, axis=1)
    lone &= (_RANK[first] == 2) & (bits[rows, np.minimum(first + 1, 69)] == 1)
    counts[rows[lone], first[lone] + 1] = 0
    out[:, _AT["counts"] : _AT["counts"] + 70] = counts
    out[:, _AT["end_sum"]] = s[:, k.END_SUM]
    out[:, _AT["values"] : _AT["values"] + 7] = bits @ (_VALUE[:, None] == _BIT7)
    sniff = s[:, k.SNIFF] >= 0
    out[rows[sniff], _AT["sniff"] + _LOW[s[sniff, k.SNIFF]]] = 1
    out[:, _AT["stock"]] = s[:, k.STOCK_SIZE] - s[:, k.DRAWN_COUNT]
    for r in range(3):
        out[:, _AT["scores"] + r] = np.where(
            r < sides, s[rows, k.SCORES + (my_side + r) % sides], 0
        )
    out[:, _AT["target"]] = _TARGET[players & 7]
    out[rows, _AT["players"] + players - 2] = 1
    going = winner < 0
    out[rows[going], _AT["turn"]] = 1
    out[rows[~going], _AT["winner"] + (winner[~going] - my_side[~going]) % sides[~going]] = 1
    out[rows, _AT["opener"] + (facts[:, _OPENER] - seat) % players] = 1
    out[:, _AT["round"]] = s[:, k.ROUND]
    return out


def _popcount(x: Any) -> Any:
    return ((x[:, None] >> _BIT28) & 1).sum(axis=1)
