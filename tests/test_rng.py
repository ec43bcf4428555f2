"""The seeded generator: SplitMix64, unbiased bounded draws and the shuffle."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import rng
from american_sniff.rng import MASK64, below, next_u64, shuffled


def test_splitmix64_matches_the_published_reference_outputs() -> None:
    """The first outputs for seeds 0 and 1234567 are the reference algorithm's."""
    assert next_u64(0)[0] == 0xE220A8397B1DCDAF
    outputs = []
    state = 1234567
    for _ in range(3):
        value, state = next_u64(state)
        outputs.append(value)
    assert outputs == [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_state_stays_within_64_bits() -> None:
    """Every output and state is a 64-bit unsigned integer."""
    state = MASK64
    for _ in range(100):
        value, state = next_u64(state)
        assert 0 <= value <= MASK64
        assert 0 <= state <= MASK64


def test_below_stays_in_range_and_reaches_every_value() -> None:
    """below(n) returns each of 0..n-1 and nothing else."""
    state = 99
    seen = set()
    for _ in range(500):
        value, state = below(7, state)
        seen.add(value)
    assert seen == set(range(7))


def test_below_rejects_a_non_positive_bound() -> None:
    """A bound of zero or less is a programming error with a clear message."""
    with pytest.raises(ValueError, match="positive bound"):
        below(0, 1)


def test_shuffle_is_a_permutation_and_reproducible() -> None:
    """The shuffle keeps every item, and the same state gives the same order."""
    items = tuple(range(28))
    first, state_a = shuffled(items, 42)
    second, state_b = shuffled(items, 42)
    assert sorted(first) == list(items)
    assert first == second
    assert state_a == state_b
    assert first != items
    assert shuffled(items, 43)[0] != first


@pytest.mark.parametrize("size", [1, 2, 28, 64, 65, 100])
@pytest.mark.parametrize("state", [0, 1, MASK64, 987654321])
def test_the_inlined_shuffle_is_the_documented_fisher_yates(size: int, state: int) -> None:
    """shuffled() equals Fisher-Yates written with below(), within and past its limit table."""
    expected = list(range(size))
    spec_state = state
    for i in range(size - 1, 0, -1):
        j, spec_state = below(i + 1, spec_state)
        expected[i], expected[j] = expected[j], expected[i]
    assert shuffled(tuple(range(size)), state) == (tuple(expected), spec_state)


# -- the compiled build's route on 32-bit halves --------------------------------
# In the compiled build next_u64, below (bounds up to 64) and the deal's shuffle
# run on 32-bit halves; these pin each route to the 64-bit definitions of the
# module docstring, written out here, in both builds.

GAMMA = 0x9E3779B97F4A7C15


def splitmix64_output(state: int) -> int:
    """SplitMix64's output for a state already advanced by the gamma (64-bit arithmetic)."""
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def reference_below(n: int, state: int) -> tuple[int, int]:
    """``below`` as the module docstring defines it, on whole 64-bit integers."""
    limit = (1 << 64) - (1 << 64) % n
    while True:
        state = (state + GAMMA) & MASK64
        out = splitmix64_output(state)
        if out < limit:
            return out % n, state


EDGES = [0, 1, MASK64, MASK64 - GAMMA, 1 << 63, (1 << 32) - 1, 1 << 32, 0x123456789ABCDEF0]


@given(st.integers(min_value=0, max_value=MASK64))
@pytest.mark.parametrize("edge", EDGES)
def test_next_u64_on_halves_is_splitmix64(edge: int, state: int) -> None:
    """The route on halves gives the same output and state as 64-bit SplitMix64."""
    for start in (edge, state):
        stepped = (start + GAMMA) & MASK64
        assert rng._next_in_halves(start) == (splitmix64_output(stepped), stepped)
        assert next_u64(start) == (splitmix64_output(stepped), stepped)


@given(st.integers(min_value=0, max_value=MASK64))
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 10, 27, 28, 33, 63, 64, 65, 1000, 1 << 40])
def test_below_on_halves_is_the_documented_below(n: int, state: int) -> None:
    """Same value and same next state as the 64-bit definition, for every bound."""
    expected = reference_below(n, state)
    assert below(n, state) == expected
    if n <= 64:
        assert rng._below_in_halves(n, state) == expected


def _unshift(value: int, shift: int) -> int:
    """The x with ``x ^ (x >> shift) == value`` (the xorshift step is a bijection)."""
    x = value
    for _ in range(64 // shift + 1):
        x = value ^ (x >> shift)
    return x


def state_before_output(out: int) -> int:
    """The generator state whose next 64-bit output is ``out`` (SplitMix64 inverted)."""
    z = _unshift(out, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK64
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK64
    z = _unshift(z, 30)
    return (z - GAMMA) & MASK64


@pytest.mark.parametrize("n", [3, 5, 6, 7, 11, 13, 28, 64])
def test_below_on_halves_redraws_exactly_where_the_definition_does(n: int) -> None:
    """An output at the rejection limit is drawn again; one just below it is kept."""
    limit = (1 << 64) - (1 << 64) % n
    for out in {limit - 1, min(limit, MASK64), MASK64}:
        redrawn = out >= limit  # never for a power of two: 2**64 % n == 0
        state = state_before_output(out)
        assert next_u64(state)[0] == out
        value, after = rng._below_in_halves(n, state)
        assert (value, after) == reference_below(n, state)
        assert (after != (state + GAMMA) & MASK64) is redrawn
        if not redrawn:
            assert value == out % n


def spec_shuffle(size: int, state: int) -> tuple[tuple[int, ...], int]:
    """Fisher-Yates of ``range(size)`` by :func:`reference_below`, as documented."""
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j, state = reference_below(i + 1, state)
        order[i], order[j] = order[j], order[i]
    return tuple(order), state


@given(st.integers(min_value=0, max_value=MASK64))
@pytest.mark.parametrize("size", [2, 3, 27, 28, 29, 63, 64, 65])
def test_the_shuffle_drawn_all_at_once_is_fisher_yates(size: int, state: int) -> None:
    """Up to 64 items the outputs are drawn together in lanes: the same order and state."""
    assert shuffled(tuple(range(size)), state) == spec_shuffle(size, state)


@pytest.mark.parametrize("state", [-1, 1 << 64, (1 << 64) + 12345, 1 << 70, -(1 << 65) + 3])
def test_the_shuffle_reads_a_state_past_64_bits_modulo_2_to_the_64(state: int) -> None:
    """Both routes take the state modulo 2**64, as every step of the generator does."""
    for size in (28, 65):
        assert shuffled(tuple(range(size)), state) == shuffled(tuple(range(size)), state & MASK64)


def test_the_shuffle_redraws_where_below_does_in_every_lane() -> None:
    """An output at a draw's rejection limit is redrawn, one just under it is kept, in every lane.

    The state is chosen so that draw ``k`` of a shuffle of 64 (bound
    ``64 - k``) gets exactly the output wanted; the outputs within 64 of
    2**64 are where the all-at-once route must hand over to the one-by-one
    route, and 2**64 - 65 is the highest it keeps.
    """
    size = 64
    for k, n in enumerate(range(size, 1, -1)):
        limit = (1 << 64) - (1 << 64) % n
        for out in {limit - 1, min(limit, MASK64), MASK64, (1 << 64) - 64, (1 << 64) - 65}:
            state = (state_before_output(out) - k * GAMMA) & MASK64
            expected = spec_shuffle(size, state)
            assert shuffled(tuple(range(size)), state) == expected, (n, out)
            redrawn = out >= limit
            assert (expected[1] != (state + (size - 1) * GAMMA) & MASK64) is redrawn


def test_the_bots_draws_are_pinned() -> None:
    """A run of draws as the random bot makes them: the same numbers on every machine."""
    state = 2026
    values = []
    for n in (1, 2, 3, 7, 13, 28, 64, 65, 1000):
        value, state = below(n, state)
        values.append(value)
    assert values == [0, 1, 2, 3, 2, 23, 46, 52, 20]
    assert state == 10372713005361030311
