"""Many matches stepped at once, through flat arrays: the batched engine.

A *batch* is N matches ("slots") kept side by side in one array of int32
words, :data:`STATE_WORDS` words a slot. :func:`reset` deals them from seeds,
and :func:`step` applies one integer action (the action layer's,
:mod:`american_sniff.actions`) to every slot and returns the new state with
each slot's legal mask, rewards, done flag and error code. The interface is
functional, in the style of Pgx: state arrays in, state arrays out; the input
is never changed. :func:`step_into` does the same in place, for speed.

>>> from american_sniff import new_match
>>> from american_sniff.actions import legal_actions
>>> out = reset([7, 8], players=2)
>>> [a for a in range(NUM_ACTIONS) if out.mask[a]] == list(legal_actions(new_match(2, seed=7)))
True

Slot ``i`` reset with seed ``s`` deals exactly the match that
``new_match(players, seed=s)`` deals, and goes on move for move as
:func:`~american_sniff.apply` does: chance is the same SplitMix64 stream.

The work is done by a C kernel (``american_sniff/batch/_cbatch.c``), built
with the compiled wheel; where it is not built (the pure build, an editable
install, no compiler) a numpy kernel with the same results does it where
numpy is installed, and a plain Python one, slowly, where it is not.
:data:`BACKEND` says which one runs. docs/ai.md describes every word of a
slot's state, and how to use the C kernel from another language.

**Arrays.** Any C-contiguous buffer of the right size and item width will do
for the inputs (``array.array``, ``bytearray``, numpy arrays). The outputs are
numpy arrays, shaped by slot, when the input (``seeds`` for :func:`reset`,
``state`` for :func:`step`) is one, and flat ``array.array`` otherwise:

=========  ==========================  ==============  ======================
Output     Per slot                    ``array`` code  numpy
=========  ==========================  ==============  ======================
state      :data:`STATE_WORDS` words   ``i``           ``int32``, (N, 48)
mask       450 flags, 1 = legal        ``B``           ``bool``, (N, 450)
rewards    4 per seat (0 past the      ``i``           ``int32``, (N, 4)
           last seat)
done       1 once the match is won     ``B``           ``bool``, (N,)
errors     an error code               ``B``           ``uint8``, (N,)
=========  ==========================  ==============  ======================

**Rewards** are the ``"points"`` rewards of the environments: each seat gets
the change of its side's score (what a placement scored, and at the end of a
round the settlement's deductions). The outcome is the word
:data:`WINNER` of the state (the side that won, or -1).

**Refusals.** An action that a slot cannot take is refused for that slot
alone: its state stays as it was, its rewards are 0, and its error code says
why (:data:`ILLEGAL`, :data:`OUT_OF_RANGE`, :data:`MATCH_OVER`,
:data:`BAD_STATE`). A finished match stays finished until it is reset.
"""

from __future__ import annotations

import importlib.util
import operator
import os
import sys
from array import array
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Final, Protocol, cast

import attrs

from ..actions import NUM_ACTIONS
from ..rng import MASK64
from . import _pybatch

__all__ = [
    "BACKEND",
    "BACKENDS",
    "BAD_STATE",
    "FIELDS",
    "ILLEGAL",
    "MATCH_OVER",
    "OK",
    "OUT_OF_RANGE",
    "STATE_WORDS",
    "WINNER",
    "BatchStep",
    "Kernel",
    "legal_mask",
    "reset",
    "step",
    "step_into",
]

#: How many int32 words a slot's state has.
STATE_WORDS: Final = _pybatch.STATE_WORDS

#: The error code of a slot whose action was applied.
OK: Final = _pybatch.OK
#: The error code of an action that is not legal in the slot's state.
ILLEGAL: Final = _pybatch.ILLEGAL
#: The error code of an action that is not an integer from 0 to 449.
OUT_OF_RANGE: Final = _pybatch.OUT_OF_RANGE
#: The error code of a slot whose match is over (reset it to play on).
MATCH_OVER: Final = _pybatch.MATCH_OVER
#: The error code of a slot whose words are not a state that reset or step made.
BAD_STATE: Final = _pybatch.BAD_STATE

#: The word of a slot's state holding the side that won, or -1.
WINNER: Final = _pybatch.WINNER

#: Where each field of a slot's state starts, by name, and how many words it
#: takes: ``FIELDS["scores"] == (18, 4)``. docs/ai.md describes each.
FIELDS: Final = {
    "players": (_pybatch.PLAYERS, 1),
    "round": (_pybatch.ROUND, 1),
    "turn": (_pybatch.TURN, 1),
    "winner": (_pybatch.WINNER, 1),
    "drawn": (_pybatch.DRAWN, 1),
    "drawn_count": (_pybatch.DRAWN_COUNT, 1),
    "stock_size": (_pybatch.STOCK_SIZE, 1),
    "end_sum": (_pybatch.END_SUM, 1),
    "sniff": (_pybatch.SNIFF, 1),
    "values": (_pybatch.VALUES, 1),
    "table": (_pybatch.TABLE, 1),
    "open": (_pybatch.OPEN, 3),
    "hands": (_pybatch.HANDS, 4),
    "scores": (_pybatch.SCORES, 4),
    "rng": (_pybatch.RNG, 2),
    "seed": (_pybatch.SEED, 2),
    "actions": (_pybatch.ACTIONS, 1),
    "round_actions": (_pybatch.ROUND_ACTIONS, 1),
    "stock": (_pybatch.STOCK, 14),
}

#: The environment variable naming a built ``_cbatch`` extension file to load
#: instead of the package's own (CI loads a sanitizer build this way).
EXTENSION_VARIABLE: Final = "AMERICAN_SNIFF_BATCH_EXTENSION"


class Kernel(Protocol):
    """What a kernel offers, the C extension and the Python one alike (see :data:`BACKENDS`).

    Each function works on buffers in place, of the sizes :func:`step`
    returns; they are what :func:`reset`, :func:`step` and :func:`legal_mask`
    call.
    """

    def reset_into(self, state: Any, seeds: Any, players: int, mask: Any, /) -> None:
        """Reset every slot of ``state``: slot i deals ``new_match(players, seed=seeds[i])``."""

    def step_into(  # noqa: PLR0913, PLR0917 - the C function's six buffers
        self, state: Any, actions: Any, mask: Any, rewards: Any, done: Any, errors: Any, /
    ) -> int:
        """Step every slot in place by its action; return how many refused theirs."""

    def mask_into(self, state: Any, mask: Any, /) -> None:
        """Write every slot's legal mask."""


def _load_extension() -> ModuleType | None:
    """The C kernel, or None where it is not built."""
    path = os.environ.get(EXTENSION_VARIABLE)
    if path:
        spec = importlib.util.spec_from_file_location(f"{__name__}._cbatch", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{EXTENSION_VARIABLE}={path!r} is not an extension module")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    try:
        # The package's own extension (it has no .py source, so it is named here).
        return importlib.import_module(f"{__name__}._cbatch")
    except ImportError:
        return None


_EXTENSION = _load_extension()


class _NumpyKernel:
    """The numpy kernel (:mod:`._npbatch`), imported with numpy at its first use."""

    def _module(self) -> Kernel:
        from . import _npbatch  # noqa: PLC0415 - numpy is imported only when it is used

        return cast(Kernel, _npbatch)

    def reset_into(self, state: Any, seeds: Any, players: int, mask: Any, /) -> None:
        """Reset every slot of ``state``: slot i deals ``new_match(players, seed=seeds[i])``."""
        self._module().reset_into(state, seeds, players, mask)

    def step_into(  # noqa: PLR0913, PLR0917 - the C function's six buffers
        self, state: Any, actions: Any, mask: Any, rewards: Any, done: Any, errors: Any, /
    ) -> int:
        """Step every slot in place by its action; return how many refused theirs."""
        return self._module().step_into(state, actions, mask, rewards, done, errors)

    def mask_into(self, state: Any, mask: Any, /) -> None:
        """Write every slot's legal mask."""
        self._module().mask_into(state, mask)


#: The kernels available here, by name: ``"python"`` always, ``"numpy"``
#: where numpy is installed, ``"c"`` where the extension is built.
BACKENDS: Final[dict[str, Kernel]] = {"python": cast(Kernel, _pybatch)}
if importlib.util.find_spec("numpy") is not None:
    BACKENDS["numpy"] = _NumpyKernel()
if _EXTENSION is not None:
    BACKENDS["c"] = cast(Kernel, _EXTENSION)

#: The kernel the functions use unless told otherwise: ``"c"`` where the C
#: extension is built, else ``"numpy"`` where numpy is installed, else
#: ``"python"``. All three give the same results.
BACKEND: Final = next(name for name in ("c", "numpy", "python") if name in BACKENDS)


@attrs.frozen
class BatchStep:
    """What :func:`reset` and :func:`step` return: the new state and what each slot saw.

    :ivar state: The slots' states (:data:`STATE_WORDS` int32 words a slot).
    :ivar mask: Each slot's legal actions in its new state: 450 flags a slot,
        1 for a legal action (all 0 once the match is over).
    :ivar rewards: Each seat's reward for the step, 4 a slot (seats past the
        last are 0): the change of its side's score.
    :ivar done: 1 for each slot whose match is won.
    :ivar errors: Each slot's error code: :data:`OK`, or why its action was refused.
    """

    state: Any
    mask: Any
    rewards: Any
    done: Any
    errors: Any


def _kernel(backend: str | None) -> Kernel:
    name = BACKEND if backend is None else backend
    try:
        return BACKENDS[name]
    except KeyError:
        raise ValueError(
            f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}"
        ) from None


def _numpy(value: object) -> Any:
    """The numpy module if ``value`` is a numpy array, else None (numpy is never imported here)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        return numpy
    return None


def _outputs(numpy: Any, n: int) -> BatchStep:
    """Fresh, zeroed output arrays for ``n`` slots."""
    if numpy is not None:
        return BatchStep(
            numpy.zeros((n, STATE_WORDS), numpy.int32),
            numpy.zeros((n, NUM_ACTIONS), numpy.bool_),
            numpy.zeros((n, 4), numpy.int32),
            numpy.zeros(n, numpy.bool_),
            numpy.zeros(n, numpy.uint8),
        )
    return BatchStep(
        array("i", bytes(4 * n * STATE_WORDS)),
        array("B", bytes(n * NUM_ACTIONS)),
        array("i", bytes(16 * n)),
        array("B", bytes(n)),
        array("B", bytes(n)),
    )


def _slot_count(state: object) -> int:
    try:
        size = memoryview(state).nbytes  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"state must be a buffer of int32 words, got {state!r}") from None
    if size % (4 * STATE_WORDS):
        raise ValueError(
            f"state must hold a multiple of {STATE_WORDS} int32 words, got {size} bytes"
        )
    return size // (4 * STATE_WORDS)


def _sequence_unless_buffer(value: object, what: str) -> Sequence[Any] | None:
    """None if ``value`` is a buffer (the kernel checks its items), else ``value`` as a sequence.

    :raises TypeError: if it is neither; ``what`` names it.
    """
    try:
        memoryview(value)  # type: ignore[arg-type]
    except TypeError:
        pass
    else:
        return None
    if not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a sequence of integers or a buffer, got {value!r}")
    return value


def _seed_array(seeds: object) -> object:
    """``seeds`` as a buffer of uint64: a buffer of 8-byte integers as it is, else checked ints."""
    sequence = _sequence_unless_buffer(seeds, "seeds")
    if sequence is None:
        return seeds
    for seed in sequence:
        if type(seed) is not int or not 0 <= seed <= MASK64:
            raise ValueError(f"a seed must be an integer from 0 to 2**64 - 1, got {seed!r}")
    return array("Q", sequence)


def _action_array(actions: object) -> object:
    """``actions`` as a buffer of int64 or int32; ints out of any range become -1 (refused)."""
    sequence = _sequence_unless_buffer(actions, "actions")
    if sequence is None:
        return actions
    values = []
    for action in sequence:
        if isinstance(action, bool):
            raise TypeError(f"an action is an integer, got {action!r}")
        try:
            value = operator.index(action)
        except TypeError:
            raise TypeError(f"an action is an integer, got {action!r}") from None
        values.append(value if 0 <= value < NUM_ACTIONS else -1)
    return array("q", values)


def reset(seeds: object, players: int, *, backend: str | None = None) -> BatchStep:
    """Deal one match per seed: slot ``i`` is ``new_match(players, seed=seeds[i])``.

    ``seeds`` is a sequence of integers from 0 to 2**64 - 1, or a buffer of
    8-byte integers (a numpy ``uint64`` array: the outputs are then numpy
    arrays). The rewards, done flags and errors returned are all 0.

    :raises ValueError: if ``players`` is not 2, 3 or 4, or a seed is out of range.
    :raises TypeError: if ``seeds`` is neither a sequence nor a buffer.
    """
    if type(players) is not int or players not in (2, 3, 4):
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players!r}")
    kernel = _kernel(backend)
    buffer = _seed_array(seeds)
    n = memoryview(buffer).nbytes // 8  # type: ignore[arg-type]
    out = _outputs(_numpy(seeds), n)
    kernel.reset_into(out.state, buffer, players, out.mask)
    return out


def step(state: object, actions: object, *, backend: str | None = None) -> BatchStep:
    """Apply ``actions[i]`` to slot ``i`` of ``state``, for every slot; ``state`` is kept.

    ``actions`` holds one integer action per slot (a sequence, or a buffer of
    int32 or int64). Returns the new state with each slot's mask, rewards,
    done flag and error code (see :class:`BatchStep`); a slot that refuses
    its action keeps its state.

    :raises TypeError: if ``state`` or ``actions`` is not an array of integers.
    :raises ValueError: if their sizes do not fit each other.
    """
    kernel = _kernel(backend)
    n = _slot_count(state)
    out = _outputs(_numpy(state), n)
    memoryview(out.state).cast("B")[:] = memoryview(state).cast("B")  # type: ignore[arg-type]
    kernel.step_into(out.state, _action_array(actions), out.mask, out.rewards, out.done, out.errors)
    return out


def step_into(  # noqa: PLR0913, PLR0917 - the six buffers of a step, as in C
    state: object,
    actions: object,
    mask: object,
    rewards: object,
    done: object,
    errors: object,
    *,
    backend: str | None = None,
) -> int:
    """:func:`step` in place: ``state`` is stepped, and the other outputs are written into.

    Every argument is a C-contiguous buffer of the sizes :func:`step` returns
    (``actions``: int32 or int64, one a slot, or a sequence of integers).
    Returns how many slots refused their action. No array is made, so this
    is the fast loop of a learner.

    :raises TypeError: if an argument is not a buffer (or an output is read-only).
    :raises ValueError: if a buffer has the wrong size or item width.
    """
    return _kernel(backend).step_into(state, _action_array(actions), mask, rewards, done, errors)


def legal_mask(state: object, *, backend: str | None = None) -> Any:
    """Each slot's legal actions: 450 flags a slot, 1 for each legal action.

    A numpy ``bool`` array of shape (N, 450) for a numpy state, else a flat
    ``array("B")``.

    :raises TypeError: if ``state`` is not a buffer of int32 words.
    """
    kernel = _kernel(backend)
    n = _slot_count(state)
    numpy = _numpy(state)
    mask: Any = (
        numpy.zeros((n, NUM_ACTIONS), numpy.bool_)
        if numpy is not None
        else array("B", bytes(n * NUM_ACTIONS))
    )
    kernel.mask_into(state, mask)
    return mask
