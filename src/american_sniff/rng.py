"""The seeded random source behind deals and lots.

The library does not use :mod:`random`: its algorithms are an implementation
detail of CPython. Instead every random choice comes from SplitMix64, which any
language can reproduce in a few lines, so another implementation can deal the
very same matches from the same seed:

* ``next``: ``state = (state + 0x9E3779B97F4A7C15) mod 2**64``; then
  ``z = state``, ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 mod 2**64``,
  ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB mod 2**64``, output ``z ^ (z >> 31)``;
* ``below(n)``: draw outputs until one is below ``2**64 - 2**64 % n``, and
  return it modulo ``n`` (no bias);
* ``shuffle``: Fisher-Yates from the last position down to 1, swapping
  position ``i`` with position ``below(i + 1)``.

A round is dealt by shuffling :data:`~american_sniff.ALL_TILES` (in index
order) with the match's generator; the hands are cut from the front of the
shuffled tiles in seat order, the rest is the stock, drawn from the front.
Where a lot is due (the first round, or after a blocked round) the opener is
then ``below(players)``. The generator goes on from round to round.

The generator's state is a plain integer kept in the match state, so states
stay immutable and a match is reproducible from its seed alone.

**Two routes, one result.** Compiled code keeps integers below 2**62 unboxed,
and the 64-bit products of SplitMix64 are far above that, so in the compiled
build (:data:`~american_sniff.COMPILED`) :func:`next_u64`,
:func:`below` (for bounds up to 64, what the bots and the lots use) and the
deal's shuffle run the same arithmetic on 32-bit halves instead, with every
intermediate value below 2**52, typed as 64-bit machine integers (``i64``)
that can never overflow: the same numbers (tests check them against the
64-bit definitions above), a fraction of the cost. The pure-Python build keeps
the 64-bit code, which CPython runs faster. :func:`shuffled` (the pure
build's deals, and in both builds the batch fallbacks and the fuzzer) works
out all of a shuffle's outputs at once in the lanes of one large integer
(see ``_plan`` there): again the same numbers, in about half the time.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ._native import COMPILED

if TYPE_CHECKING:
    # A 64-bit machine integer to mypyc; a plain int to the interpreter, which
    # never imports it.
    from mypy_extensions import i64

__all__ = [
    "MASK64",
    "below",
    "check_seed",
    "next_u64",
    "shuffled",
    "shuffled_indices_in_halves",
]

#: 2**64 - 1: every seed and generator state is a 64-bit unsigned integer.
MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_SPAN = 1 << 64
_T = TypeVar("_T")


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is a valid seed (an integer from 0 to 2**64 - 1).

    :raises ValueError: otherwise, naming the value.
    """
    if type(seed) is not int or not 0 <= seed <= MASK64:
        raise ValueError(f"a seed must be an integer from 0 to 2**64 - 1, got {seed!r}")
    return seed


def next_u64(state: int) -> tuple[int, int]:
    """One SplitMix64 step: ``(output, new_state)``."""
    if COMPILED:
        return _next_in_halves(state)
    state = (state + _GAMMA) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31), state


def below(n: int, state: int) -> tuple[int, int]:
    """An unbiased integer in ``range(n)``: ``(value, new_state)``.

    :raises ValueError: if ``n`` is not positive.
    """
    if n <= 0:
        raise ValueError(f"below() needs a positive bound, got {n}")
    if COMPILED and n < len(_REDRAW):
        return _below_in_halves(n, state)
    limit = _SPAN - _SPAN % n
    while True:
        out, state = next_u64(state)
        if out < limit:
            return out % n, state


def shuffled(items: tuple[_T, ...], state: int) -> tuple[tuple[_T, ...], int]:
    """A Fisher-Yates shuffle of ``items``: ``(shuffled_items, new_state)``."""
    count = len(items)
    if not 2 <= count <= _PACKED_MAX:
        return _shuffled_one_by_one(items, state)
    plan = _PLANS.get(count)
    if plan is None:
        plan = _PLANS[count] = _plan(count)
    ones, ramp, lanes, near, carries, size, unpack, positions, bounds, advance = plan
    state &= MASK64  # (as the draws one at a time take it: each step is modulo 2**64)
    # Every output the shuffle needs at once, if no draw is redrawn: output k
    # comes from the state advanced k + 1 times, each in a lane of its own.
    z = (state * ones + ramp) & lanes
    z = ((z ^ (z >> 30)) & lanes) * 0xBF58476D1CE4E5B9 & lanes
    z = ((z ^ (z >> 27)) & lanes) * 0x94D049BB133111EB & lanes
    z = (z ^ (z >> 31)) & lanes
    if (z + near) & carries:
        # Some output is within 64 of 2**64, where below() may redraw (for the
        # 28 tiles, about once in 2**53 shuffles): the draws one at a time decide.
        return _shuffled_one_by_one(items, state)
    result = list(items)
    for i, j in zip(positions, map(_mod, unpack(z.to_bytes(size, "little")), bounds), strict=True):
        result[i], result[j] = result[j], result[i]
    return tuple(result), (state + advance) & MASK64


def _shuffled_one_by_one(items: tuple[_T, ...], state: int) -> tuple[tuple[_T, ...], int]:
    """:func:`shuffled` one draw at a time, as the module docstring defines it."""
    # This is ``j, state = below(i + 1, state)`` for each i, written out with
    # the constants in locals.
    gamma, mask = _GAMMA, MASK64
    limits = _LIMITS
    known = len(limits)
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        n = i + 1
        limit = limits[n] if n < known else _SPAN - _SPAN % n
        while True:
            state = (state + gamma) & mask
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            if z < limit:
                break
        j = z % n
        result[i], result[j] = result[j], result[i]
    return tuple(result), state


#: The most items :func:`shuffled` draws for all at once (below() of at most
#: 64 redraws only outputs within 64 of 2**64).
_PACKED_MAX: Final = 64


#: What :func:`shuffled` needs to draw a shuffle's outputs all at once (see ``_plan``).
_Plan = tuple[
    int,
    int,
    int,
    int,
    int,
    int,
    Callable[[bytes], tuple[Any, ...]],
    tuple[int, ...],
    tuple[int, ...],
    int,
]


def _plan(count: int) -> _Plan:
    """The constants that let :func:`shuffled` draw all of a shuffle's outputs at once.

    SplitMix64's output is a fixed function of its state, and the shuffle's
    states are ``state + k * gamma`` (mod 2**64) for k = 1, 2, ... as long as
    nothing is redrawn. So all of them are worked out together in one large
    integer, one 128-bit lane each (a 64-bit value times a 64-bit constant
    fits its lane, so no lane spills into the next), masked back to 64 bits
    after every step: a dozen operations on one integer instead of a dozen on
    each of ``count - 1`` integers, which CPython runs about twice as fast for
    the 28 tiles. below() of at most 64 redraws only an output of at least
    ``2**64 - 64``; adding 64 to every lane carries into bit 64 of exactly
    those lanes, and then the draws are made one at a time instead.

    In order: 1 in the lowest bit of every lane; ``(k + 1) * gamma`` in lane
    k (below 2**70 with the state added: no spill); the low 64 bits of every lane; 64 in every
    lane; bit 64 of every lane; the lanes' size in bytes; a function reading
    the low 8 bytes of every 16 as an integer (little-endian on every
    machine); the positions swapped, last first; the bound of each one's
    draw; and how far the generator's state moves in a shuffle.
    """
    steps = count - 1
    ones = sum(1 << (128 * k) for k in range(steps))
    ramp = sum(((k + 1) * _GAMMA) << (128 * k) for k in range(steps))
    return (
        ones,
        ramp,
        ones * MASK64,
        ones * 64,
        ones << 64,
        16 * steps,
        struct.Struct("<" + "Q8x" * steps).unpack,
        tuple(range(steps, 0, -1)),
        tuple(range(count, 1, -1)),
        steps * _GAMMA,
    )


_PLANS: dict[int, _Plan] = {}  # by count, made on first use
_mod = operator.mod


#: The rejection limit of ``below(n)`` for the small ``n`` a shuffle of the set uses.
_LIMITS = tuple(_SPAN - _SPAN % n if n else 0 for n in range(65))


# -- the compiled route: SplitMix64 on 32-bit halves ---------------------------------------

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

    Every multiplication is of a 32-bit half by a 16-bit quarter of the
    constant, below 2**48, which compiled code does without leaving machine
    integers.
    """
    k1, k0 = c_lo >> 16, c_lo & 0xFFFF
    j1, j0 = c_hi >> 16, c_hi & 0xFFFF
    # lo * c_lo in full: lo * k0 + (lo * k1) * 2**16, its low 32 bits and the carry.
    p0 = lo * k0
    p1 = lo * k1
    low = (p0 & _M32) + ((p1 & 0xFFFF) << 16)
    high = (p0 >> 32) + (p1 >> 16) + (low >> 32)
    # hi * c_lo and lo * c_hi count only modulo 2**32 (their 2**64 parts drop out).
    high += hi * k0 + (((hi * k1) & 0xFFFF) << 16)
    high += lo * j0 + (((lo * j1) & 0xFFFF) << 16)
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


def _step(hi: i64, lo: i64) -> tuple[i64, i64]:
    """The generator state ``(hi, lo)`` advanced by one step (plus the gamma), as halves."""
    lo += _GAMMA_LO
    return (hi + _GAMMA_HI + (lo >> 32)) & _M32, lo & _M32


def _next_in_halves(state: int) -> tuple[int, int]:
    """``next_u64(state)``, computed on 32-bit halves."""
    hi, lo = _step(state >> 32, state & _M32)
    out_hi, out_lo = _output(hi, lo)
    return int(out_hi) << 32 | int(out_lo), int(hi) << 32 | int(lo)


def _below_in_halves(n: i64, state: int) -> tuple[int, int]:
    """``below(n, state)`` for ``0 < n <= 64``, computed on 32-bit halves."""
    hi: i64 = state >> 32
    lo: i64 = state & _M32
    redraw: i64 = _REDRAW[n]
    # Declared here so that mypyc types them as machine integers; never read as 0.
    out_hi: i64 = 0
    out_lo: i64 = 0
    while True:
        hi, lo = _step(hi, lo)
        out_hi, out_lo = _output(hi, lo)
        if out_hi != _M32 or out_lo < redraw:
            break
    # The output modulo n, from its halves: hi * 2**32 + lo.
    return int(((out_hi % n) * ((1 << 32) % n) + out_lo) % n), int(hi) << 32 | int(lo)
