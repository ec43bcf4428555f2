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
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["MASK64", "below", "check_seed", "next_u64", "shuffled"]

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
    limit = _SPAN - _SPAN % n
    while True:
        out, state = next_u64(state)
        if out < limit:
            return out % n, state


def shuffled(items: tuple[_T, ...], state: int) -> tuple[tuple[_T, ...], int]:
    """A Fisher-Yates shuffle of ``items``: ``(shuffled_items, new_state)``."""
    # This is ``j, state = below(i + 1, state)`` for each i, written out with
    # the constants in locals: dealing is a measurable share of a short round.
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


#: The rejection limit of ``below(n)`` for the small ``n`` a shuffle of the set uses.
_LIMITS = tuple(_SPAN - _SPAN % n if n else 0 for n in range(65))
