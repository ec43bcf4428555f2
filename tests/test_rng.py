"""The seeded generator: SplitMix64, unbiased bounded draws and the shuffle."""

from __future__ import annotations

import pytest

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
