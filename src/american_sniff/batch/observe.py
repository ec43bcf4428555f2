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

import attrs
import numpy as np

from ..actions import NUM_ACTIONS, POINTS
from ..observation import OBSERVATION_FIELDS, OBSERVATION_SIZE, SCALE_CLIPS, SCALE_DIVISORS
from ..rules import MAX_PIPS, PLAYER_COUNTS, TILE_COUNT, side_count, side_of, target
from ..tiles import ALL_TILES
from . import _pybatch as k

__all__ = [
    "FACT_WORDS",
    "Waiting",
    "advance_facts",
    "observe",
    "observe_waiting",
    "scale_observations",
    "start_facts",
]

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
_BIT28 = np.arange(TILE_COUNT, dtype=np.int64)
_VALUES = MAX_PIPS + 1  # the numbers a half can show
_BIT7 = np.arange(_VALUES, dtype=np.int64)
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


def observe(  # noqa: PLR0913 (the options are keyword-only, each with a default)
    state: Any,
    facts: Any,
    rows: Any = None,
    *,
    dtype: Any = np.int32,
    backend: str | None = None,
    scaled: bool = False,
    out: Any = None,
) -> Any:
    """The observation of each slot's seat to move: an (N, 375) ``int32`` array.

    With ``rows`` (an index array, numpy's indexing: -1 is the last slot),
    only those slots' rows, in that order. ``dtype`` is ``np.int32`` or
    ``np.float32`` (the same numbers); with ``scaled``, a ``float32`` array
    scaled as :func:`scale_observations` scales it (in the same call of the
    C kernel where it is built). ``backend`` is ``"c"``, ``"numpy"``,
    or None: the C kernel where it is built, else numpy. The C kernel gives
    a row of zeros for a slot whose words or facts no reset, step or
    :func:`advance_facts` made (a word out of its range); numpy reads them as
    they are.

    With ``out`` (a C-contiguous array of that shape and ``dtype``, every
    slot's row: no ``rows``), the observations are written into it and it is
    returned, so that a caller that steps in a loop writes into the same
    memory each time instead of a fresh array.

    :raises ValueError: for another ``dtype`` or ``backend``, ``"c"`` where
        the C kernel is not built, or an ``out`` that does not fit.
    :raises IndexError: if a row is not a slot of ``state``.
    """
    kind = np.dtype(np.float32 if scaled else dtype)
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
    if out is not None:
        shape = (len(s), OBSERVATION_SIZE)
        if (
            index is not None
            or not isinstance(out, np.ndarray)
            or out.shape != shape
            or out.dtype != kind
            or not out.flags.c_contiguous
            or not out.flags.writeable
        ):
            raise ValueError(
                f"out must be a writeable C-contiguous {kind} array of shape {shape}, "
                "for every slot (no rows)"
            )
    if into is None or s.dtype != np.int32 or f.dtype != np.int64:
        if index is not None:
            s, f = s[index], f[index]
        seen = observe_numpy(s, f).astype(kind, copy=False)
        seen = scale_observations(seen, out=seen, backend="numpy") if scaled else seen
        if out is None:
            return seen
        out[...] = seen
        return out
    s = np.ascontiguousarray(s)
    f = np.ascontiguousarray(f)
    if index is None:
        if out is None:
            out = np.empty((len(s), OBSERVATION_SIZE), kind)
        into(s, f, out, None, scaled)
        return out
    if len(index) and (index.min() < -len(s) or index.max() >= len(s)):
        bad = index[(index < -len(s)) | (index >= len(s))][0]
        raise IndexError(f"index {bad} is out of bounds for axis 0 with size {len(s)}")
    index = np.where(index < 0, index + len(s), index).astype(np.int64)
    out = np.empty((len(index), OBSERVATION_SIZE), kind)
    into(s, f, out, index, scaled)
    return out


@attrs.frozen
class Waiting:
    """What :func:`observe_waiting` returns: the slots waiting on a policy, packed.

    :ivar rows: The waiting slots' numbers, in increasing order, an (M,) ``int64`` array.
    :ivar observations: Row ``j`` is the observation of slot ``rows[j]``'s seat
        to move, an (M, 375) array (``int32`` or ``float32``); None if not asked for.
    :ivar masks: Row ``j`` is slot ``rows[j]``'s legal mask, an (M, 450) ``bool`` array.
    """

    rows: Any
    observations: Any
    masks: Any


def observe_waiting(  # noqa: PLR0913 (the options are keyword-only, each with a default)
    state: Any,
    facts: Any,
    seats: Any,
    *,
    observations: bool = True,
    dtype: Any = np.int32,
    backend: str | None = None,
) -> Waiting:
    """The slots whose seat to move is not ``seats[i]``, each with its observation and mask.

    A slot *waits* (on a policy playing the other seats than ``seats[i]``)
    while its match goes on (its ``winner`` word is -1) and its seat to move is
    not ``seats[i]``. In one call, this finds every waiting slot and gives, in
    slot order, the observations :func:`observe` gives for those rows and
    the masks :func:`american_sniff.batch.legal_mask` gives: the opponents'
    observations of a learner's batch, ready for the policy. With
    ``observations=False`` none are made (a policy that does not look).
    ``seats`` holds one integer a slot; ``dtype`` and ``backend`` are as for
    :func:`observe` (the C kernel does the whole of it in one pass, the numpy
    code gives the same numbers).

    >>> from american_sniff.batch import reset
    >>> out = reset(np.array([7, 8, 9], np.uint64), 2)
    >>> facts = start_facts(out.state)
    >>> waiting = observe_waiting(out.state, facts, np.zeros(3, np.int64))
    >>> waiting.rows.tolist() == np.flatnonzero(out.state[:, 2] != 0).tolist()
    True
    >>> bool((waiting.observations == observe(out.state, facts, waiting.rows)).all())
    True

    :raises ValueError: for another ``dtype`` or ``backend``, ``"c"`` where
        the C kernel is not built, or ``seats`` not one integer a slot.
    """
    kind, kernel = chosen_kernel(dtype, backend, "scale_into")
    s = np.ascontiguousarray(np.asarray(state).reshape(-1, k.STATE_WORDS), np.int32)
    f = np.ascontiguousarray(np.asarray(facts).reshape(len(s), -1), np.int64)
    chosen = np.asarray(seats)
    if chosen.shape != (len(s),) or chosen.dtype.kind not in "iu":
        raise ValueError(f"seats must be {len(s)} integers, got {chosen.dtype} of {chosen.shape}")
    chosen = np.ascontiguousarray(chosen, np.int64)
    if kernel is None:
        rows = np.flatnonzero((s[:, k.WINNER] < 0) & (s[:, k.TURN] != chosen)).astype(np.int64)
        masks = np.zeros((len(rows), NUM_ACTIONS), np.bool_)
        from . import BACKENDS  # noqa: PLC0415 - the package imports no submodule of its own

        if len(rows):
            BACKENDS["numpy"].mask_into(np.ascontiguousarray(s[rows]), masks)
        seen = observe_numpy(s[rows], f[rows]).astype(kind) if observations else None
        return Waiting(rows, seen, masks)
    rows = np.empty(len(s), np.int64)
    masks = np.empty((len(s), NUM_ACTIONS), np.bool_)
    out = np.empty((len(s), OBSERVATION_SIZE), kind) if observations else None
    m = kernel.observe_waiting_into(s, f, chosen, rows, out, masks)
    return Waiting(rows[:m], None if out is None else out[:m], masks[:m])


def chosen_kernel(dtype: Any, backend: str | None, call: str) -> tuple[Any, Any]:
    """The checked ``dtype`` and the kernel of a batched call: C's, or None for numpy.

    ``backend`` is ``"c"``, ``"numpy"`` or None (C where it is built); a C
    kernel built without ``call`` counts as not built.

    :raises ValueError: for another ``dtype`` or ``backend``, or ``"c"``
        where the C kernel is not built.
    """
    kind = np.dtype(dtype)
    if kind not in _DTYPES:
        raise ValueError(f"dtype must be int32 or float32, got {dtype!r}")
    if backend not in {None, "c", "numpy"}:
        raise ValueError(f"backend must be 'c', 'numpy' or None, got {backend!r}")
    kernel = None if backend == "numpy" else _c_kernel(call)
    if backend == "c" and kernel is None:
        raise ValueError("the C kernel is not built here")
    return kind, kernel


def _c_kernel(call: str = "scale_into") -> Any:
    """The C kernel if it is built with ``call`` (by default ``_cwaiting.c``'s); else None."""
    from . import BACKENDS  # noqa: PLC0415 - the package imports no submodule of its own

    kernel = BACKENDS.get("c")
    return kernel if hasattr(kernel, call) else None


def _c_observe_into() -> Any:
    """The C kernel's ``observe_into``, or None where it is not built (or too old to have it)."""
    from . import BACKENDS  # noqa: PLC0415 - the package imports no submodule of its own

    return getattr(BACKENDS.get("c"), "observe_into", None)


def observe_numpy(state: Any, facts: Any, seats: Any = None) -> Any:
    """The observations in numpy: an (N, 375) int32 array, of ``seats[i]`` (None: the turn's)."""
    s = np.asarray(state).reshape(-1, k.STATE_WORDS).astype(np.int64)
    n = len(s)
    out = np.zeros((n, OBSERVATION_SIZE), np.int32)
    rows = np.arange(n)
    players, turn, winner = s[:, k.PLAYERS], s[:, k.TURN], s[:, k.WINNER]
    seat = turn if seats is None else np.asarray(seats, np.int64).reshape(n)
    hands = s[:, k.HANDS : k.HANDS + 4] & k.HAND_BITS
    out[:, 0:TILE_COUNT] = (hands[rows, seat][:, None] >> _BIT28) & 1
    drawn = (winner < 0) & (turn == seat) & (s[:, k.DRAWN] >= 0)
    out[rows[drawn], _AT["drawn"] + s[drawn, k.DRAWN]] = 1
    sides = _SIDES[players & 7]
    my_side = _SIDE_OF[(players & 7) * 4 + (seat & 3)]
    for r in range(4):
        other = (seat + r) % players
        live = r < players
        out[:, _AT["played"] + TILE_COUNT * r : _AT["played"] + TILE_COUNT * (r + 1)] = np.where(
            live[:, None], (facts[rows, _PLAYED + other][:, None] >> _BIT28) & 1, 0
        )
        out[:, _AT["hand_sizes"] + r] = np.where(live, _popcount(hands[rows, other]), 0)
        out[:, _AT["voids"] + _VALUES * r : _AT["voids"] + _VALUES * (r + 1)] = np.where(
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
    out[:, _AT["values"] : _AT["values"] + _VALUES] = bits @ (_VALUE[:, None] == _BIT7)
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
    out[rows[going], _AT["turn"] + (turn[going] - seat[going]) % players[going]] = 1
    out[rows[~going], _AT["winner"] + (winner[~going] - my_side[~going]) % sides[~going]] = 1
    out[rows, _AT["opener"] + (facts[:, _OPENER] - seat) % players] = 1
    out[:, _AT["round"]] = s[:, k.ROUND]
    return out


def _popcount(x: Any) -> Any:
    return ((x[:, None] >> _BIT28) & 1).sum(axis=1)


_SCALE = np.array([d or 1.0 for d in SCALE_DIVISORS], np.float32)
_SCALE_SCORES = slice(_AT["scores"], _AT["scores"] + 3)
_SCALE_ROUND = _AT["round"]
_SCALE_TARGET = _AT["target"]
# The C kernel's tables: the divisors (0: the row's target), and the clips (none: infinite).
_C_DIVISORS = np.array(SCALE_DIVISORS, np.float32)
_C_LOW = np.full(OBSERVATION_SIZE, -np.inf, np.float32)
_C_HIGH = np.full(OBSERVATION_SIZE, np.inf, np.float32)
for _name, (_low, _high) in SCALE_CLIPS.items():
    _C_LOW[_AT[_name] : _AT[_name] + dict(OBSERVATION_FIELDS)[_name]] = _low
    _C_HIGH[_AT[_name] : _AT[_name] + dict(OBSERVATION_FIELDS)[_name]] = _high


_FLOAT32 = np.dtype(np.float32)
#: The C kernel's scale_into (or None), once looked up.
_SCALER: list[Any] = []


def scale_observations(observations: Any, *, out: Any = None, backend: str | None = None) -> Any:
    """An (N, 375) array of observations scaled as :func:`~american_sniff.observation.scaled` does.

    Returns a ``float32`` array (``out``, if given: a ``float32`` array of the
    same shape, which may be ``observations`` itself, scaled in place). Each
    entry equals ``float32(scaled(row)[k])`` exactly. ``backend`` is ``"c"``
    (``scale_into``, in place, one pass), ``"numpy"``, or None: C where it
    is built; both give the same bits.

    >>> from american_sniff.batch import reset
    >>> state = reset(np.array([1], np.uint64), 2).state
    >>> raw = observe(state, start_facts(state), dtype=np.float32)
    >>> scale_observations(raw)[0, 323:327].tolist()
    [0.25, 0.25, 0.0, 0.0]

    :raises ValueError: if the rows do not have 375 entries, ``out`` is not
        a ``float32`` array of their shape, or for another ``backend`` (or
        ``"c"`` where the C kernel is not built).
    """
    if (
        backend is None
        and out is observations
        and type(out) is np.ndarray
        and out.dtype == _FLOAT32
        and out.ndim == 2
        and out.shape[1] == OBSERVATION_SIZE
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        # In place, the common case of a learner's loop: straight to C where it is built.
        if not _SCALER:
            _SCALER.append(getattr(_c_kernel(), "scale_into", None))
        if _SCALER[0] is not None:
            _SCALER[0](out, _C_DIVISORS, _C_LOW, _C_HIGH, _SCALE_TARGET)
            return out
    x = np.asarray(observations)
    if x.ndim != 2 or x.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"observations must be (N, {OBSERVATION_SIZE}), got shape {x.shape}")
    if out is None:
        out = np.empty(x.shape, np.float32)
    elif not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != x.shape:
        raise ValueError(f"out must be a float32 array of shape {x.shape}")
    kernel = _c_kernel() if backend != "numpy" else None
    if backend not in {None, "c", "numpy"}:
        raise ValueError(f"backend must be 'c', 'numpy' or None, got {backend!r}")
    if backend == "c" and kernel is None:
        raise ValueError("the C kernel is not built here")
    if kernel is not None and out.flags.c_contiguous and out.flags.writeable:
        if out is not x:
            out[...] = x
        kernel.scale_into(out, _C_DIVISORS, _C_LOW, _C_HIGH, _SCALE_TARGET)
        return out
    target = x[:, _SCALE_TARGET].astype(np.float32)
    target[target == 0] = 1.0  # (a row of zeros: no target to divide by)
    np.divide(x, _SCALE, out=out, casting="unsafe")
    out[:, _SCALE_SCORES] /= target[:, None]
    np.clip(out[:, _SCALE_SCORES], -2.0, 1.2, out=out[:, _SCALE_SCORES])
    np.clip(out[:, _SCALE_ROUND], 0.0, 1.0, out=out[:, _SCALE_ROUND])
    return out
