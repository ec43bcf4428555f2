"""The batch observation (american_sniff.batch.observe) equals encode(view_for(...)) in lockstep.

Both ways of computing it are compared: the numpy code, and the C kernel's
``observe_into`` (batch/_cobserve.c) where the extension is built (build it in
place with ``python hatch_build.py --batch-in-place``; the C tests are skipped
where it is not).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from american_sniff import apply, new_match, view_for  # noqa: E402
from american_sniff.actions import legal_actions, move_of  # noqa: E402
from american_sniff.batch import BACKENDS, STATE_WORDS, reset, step  # noqa: E402
from american_sniff.batch.observe import (  # noqa: E402
    FACT_WORDS,
    advance_facts,
    observe,
    scale_observations,
    start_facts,
)
from american_sniff.observation import OBSERVATION_SIZE, encode  # noqa: E402

KERNELS = [
    "python",
    pytest.param("c", marks=pytest.mark.skipif("c" not in BACKENDS, reason="no C kernel")),
]
#: The C kernel's module, where it is built with its observations.
C: Any = BACKENDS.get("c")
HAS_C = hasattr(C, "observe_into")
needs_c = pytest.mark.skipif(not HAS_C, reason="the C extension is not built")
#: The ways of computing the observations here.
OBSERVERS = ["numpy", "c"] if HAS_C else ["numpy"]


@pytest.mark.sweep
@pytest.mark.parametrize("backend", KERNELS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_observe_equals_encode_in_lockstep(backend: str, players: int) -> None:
    """Each slot's observation of its seat to move is encode(view_for(state, turn)), every step."""
    seeds = list(range(4))
    chooser = random.Random(players)
    out = reset(np.array(seeds, np.uint64), players, backend=backend)
    facts = start_facts(out.state)
    states = [new_match(players, seed=s) for s in seeds]
    compared = 0
    for _ in range(150 if backend == "python" else 400):
        seen = {how: observe(out.state, facts, backend=how) for how in OBSERVERS}
        for i, state in enumerate(states):
            if state.winner is None:
                expected = np.array(encode(view_for(state, state.turn)))
                for how, rows in seen.items():
                    assert (rows[i] == expected).all(), (how, np.nonzero(rows[i] != expected))
                compared += 1
        actions = [chooser.choice(legal_actions(s)) if s.winner is None else 0 for s in states]
        after = step(out.state, np.array(actions), backend=backend)
        advance_facts(facts, out.state, np.array(actions), after.state, after.errors)
        out = after
        states = [
            apply(s, move_of(s, a)) if s.winner is None else s
            for s, a in zip(states, actions, strict=True)
        ]
    assert compared > 400


def play(players: int, seed: int, slots: int = 48, steps: int = 360) -> Iterator[tuple[Any, Any]]:
    """(state, facts) of ``slots`` random matches at every step, finished ones included."""
    generator = np.random.default_rng(seed)
    out = reset(np.arange(seed * slots, (seed + 1) * slots, dtype=np.uint64), players)
    facts = start_facts(out.state)
    for _ in range(steps):
        yield out.state, facts
        actions = (generator.random(out.mask.shape) * out.mask).argmax(axis=1)
        after = step(out.state, actions)
        advance_facts(facts, out.state, actions, after.state, after.errors)
        out = after


@pytest.mark.sweep
@needs_c
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_c_equals_numpy_in_lockstep(players: int, seed: int) -> None:
    """observe_into, float32 and int32, all slots or chosen rows, gives the numpy numbers."""
    generator = np.random.default_rng(seed + 10)
    finished = 0
    for state, facts in play(players, seed):
        expected = observe(state, facts, backend="numpy")
        n = len(state)
        whole = np.empty((n, OBSERVATION_SIZE), np.int32)
        assert C.observe_into(state, facts, whole) == 0
        assert (whole == expected).all()
        floats = np.empty((n, OBSERVATION_SIZE), np.float32)
        assert C.observe_into(state, facts, floats) == 0
        assert (floats == expected).all()
        rows = generator.integers(0, n, size=int(generator.integers(0, 2 * n)))
        chosen = np.full((len(rows), OBSERVATION_SIZE), -7, np.int32)
        assert C.observe_into(state, facts, chosen, rows) == 0
        assert (chosen == expected[rows]).all()
        chosen_floats = np.empty((len(rows), OBSERVATION_SIZE), np.float32)
        C.observe_into(state, facts, chosen_floats, rows)
        assert (chosen_floats == expected[rows]).all()
        # observe() itself, rows counted from the end too, as numpy indexes
        signed = rows - n * generator.integers(0, 2, size=len(rows))
        assert (observe(state, facts, signed) == expected[rows]).all()
        wide = observe(state, facts, signed, dtype=np.float32)
        assert wide.dtype == np.float32
        assert (wide == expected[rows]).all()
        assert (observe(state, facts, signed, backend="numpy") == expected[rows]).all()
        finished += int((state[:, 3] >= 0).sum())
    assert finished > 0  # the winner segment was compared too


@needs_c
@pytest.mark.parametrize("players", [2, 3, 4])
def test_c_float32_rows_bit_for_bit(players: int) -> None:
    """observe_into's float32 rows, scaled or not, are numpy's bit for bit (no -0.0, no NaN)."""
    generator = np.random.default_rng(players + 20)
    compared = 0
    for state, facts in play(players, players + 4, slots=32, steps=200):
        expected = observe(state, facts, backend="numpy").astype(np.float32)
        rows = generator.integers(0, len(state), size=int(generator.integers(1, 40)))
        for scaled in (False, True):
            want = scale_observations(expected, backend="numpy") if scaled else expected
            whole = np.full((len(state), OBSERVATION_SIZE), np.nan, np.float32)
            assert C.observe_into(state, facts, whole, None, scaled) == 0
            assert np.array_equal(whole.view(np.uint32), want.view(np.uint32))
            chosen = np.full((len(rows), OBSERVATION_SIZE), np.nan, np.float32)
            assert C.observe_into(state, facts, chosen, rows, scaled) == 0
            assert np.array_equal(chosen.view(np.uint32), want[rows].view(np.uint32))
        compared += len(state)
    assert compared > 6000


def valid(s: Any, f: Any) -> bool:
    """Whether the C kernel reads a slot (its words and facts in range), in Python."""
    players = int(s[0])
    if players not in {2, 3, 4}:
        return False
    sides = 2 if players == 4 else players
    hand = {2: 7, 3: 6, 4: 5}[players]
    limit = 1 << 30
    return (
        0 <= s[2] < players
        and -1 <= s[4] < 28
        and -1 <= s[3] < sides
        and s[6] == 28 - players * hand
        and 0 <= s[5] <= s[6]
        and all(-limit < x < limit for x in s[18:22])
        and 1 <= s[1] < limit
        and 0 <= s[26] < limit
        and 0 <= s[27] < limit
        and -1 <= s[8] < 28
        and 0 <= f[13] < players
        and all(0 <= x < 1 << 28 for x in f[0:4])
        and all(0 <= x < 128 for x in f[4:8])
    )


@pytest.mark.sweep
@needs_c
@pytest.mark.parametrize("players", [2, 3, 4])
def test_c_hostile_words_and_facts(players: int) -> None:
    """Broken words or facts give zeros exactly where a word is out of range, else numpy's numbers.

    Nothing is read out of bounds: CI runs this under the sanitizers.
    """
    generator = np.random.default_rng(players)
    odd = np.array(
        [
            -(2**31),
            -2,
            -1,
            0,
            1,
            2,
            3,
            4,
            5,
            6,
            7,
            13,
            27,
            28,
            29,
            64,
            69,
            70,
            2**28,
            2**30,
            2**31 - 1,
        ]
    )
    odd_facts = np.array([-(2**63), -1, 0, 1, 3, 4, 127, 128, 2**28 - 1, 2**28, 2**62, 2**63 - 1])
    rejected = kept = 0
    for count, (clean, clean_facts) in enumerate(play(players, 7, slots=32, steps=120)):
        state, facts = clean.copy(), clean_facts.copy()
        n = len(state)
        for _ in range(int(generator.integers(1, 12))):
            i = int(generator.integers(n))
            if generator.random() < 0.6:
                word = int(generator.integers(STATE_WORDS))
                state[i, word] = (
                    generator.choice(odd)
                    if generator.random() < 0.7
                    else (generator.integers(-(2**31), 2**31))
                )
            else:
                word = int(generator.integers(FACT_WORDS))
                facts[i, word] = generator.choice(odd_facts)
        if count % 10 == 0:
            state[0] = generator.integers(-(2**31), 2**31, size=STATE_WORDS)
            facts[0] = generator.integers(-(2**63), 2**63 - 1, size=FACT_WORDS)
        ints = np.empty((n, OBSERVATION_SIZE), np.int32)
        floats = np.empty((n, OBSERVATION_SIZE), np.float32)
        zeros = C.observe_into(state, facts, ints)
        assert C.observe_into(state, facts, floats) == zeros
        assert (floats == ints.astype(np.float32)).all()  # (a broken end sum may round)
        assert zeros == int((~ints.any(axis=1)).sum())
        for i in range(n):
            if valid(state[i].tolist(), facts[i].tolist()):
                assert (ints[i] == observe(state[i], facts[i : i + 1], backend="numpy")).all()
                kept += 1
            else:
                assert not ints[i].any()
                rejected += 1
        rows = generator.integers(0, n, size=n)
        chosen = np.empty((n, OBSERVATION_SIZE), np.int32)
        C.observe_into(state, facts, chosen, rows)
        assert (chosen == ints[rows]).all()
    assert rejected > 100
    assert kept > 1000


@needs_c
def test_c_refuses_wrong_buffers() -> None:
    """Wrong buffers raise TypeError (not a writable contiguous buffer) or ValueError."""
    state = reset(np.arange(3, dtype=np.uint64), 2).state
    facts = start_facts(state)
    out = np.empty((3, OBSERVATION_SIZE), np.float32)
    type_errors = [
        ([1, 2, 3], facts, out),
        (state, None, out),
        (state, facts, [0.0] * 3 * OBSERVATION_SIZE),
        (state, facts, out[:, ::2]),
        (state, facts, bytes(4 * 3 * OBSERVATION_SIZE)),
        (state, facts, out, [0, 1]),
    ]
    for args in type_errors:
        with pytest.raises(TypeError):
            C.observe_into(*args)
    frozen = out.copy()
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        C.observe_into(state, facts, frozen)
    value_errors = [
        (state[:, :40].copy(), facts, out),
        (state, facts[:2], out),
        (state, facts.astype(np.int32), out),
        (state, facts, out[:2]),
        (state, facts, np.empty((3, OBSERVATION_SIZE), np.float64)),
        (state, facts, np.empty((3, OBSERVATION_SIZE), np.int64)),
        (state, facts, np.empty((3, OBSERVATION_SIZE), np.uint32)),
        (state, facts, np.empty((3, OBSERVATION_SIZE), np.float16)),
        (state.astype(np.float32), facts, out),
        (state, facts, out[:2], np.array([0, 1], np.int32)),
        (state, facts, out[:2], np.array([0, 3], np.int64)),
        (state, facts, out[:1], np.array([-1], np.int64)),
        (state, facts, out[:1], np.array([2**63 - 1], np.int64)),
        (state, facts, out[:2], np.array([0], np.int64)),
    ]
    for args in value_errors:
        with pytest.raises(ValueError, match=r"must hold|not a slot"):
            C.observe_into(*args)
    # A read-only state and facts are fine; no slot at all too.
    state.flags.writeable = False
    assert C.observe_into(state, facts, out) == 0
    empty = np.empty((0, OBSERVATION_SIZE), np.int32)
    assert C.observe_into(state, facts, empty, np.empty(0, np.int64)) == 0
    assert C.observe_into(state[:0], facts[:0], empty) == 0


@pytest.mark.parametrize("how", OBSERVERS)
def test_observe_arguments(how: str) -> None:
    """observe() refuses another dtype or backend, and rows that are not slots (IndexError)."""
    state = reset(np.arange(3, dtype=np.uint64), 3).state
    facts = start_facts(state)
    expected = observe(state, facts, backend="numpy")
    assert observe(state, facts, backend=how).dtype == np.int32
    assert (observe(state, facts, [2, -3, 2], backend=how) == expected[[2, 0, 2]]).all()
    assert observe(state, facts, [], backend=how).shape == (0, OBSERVATION_SIZE)
    for rows in ([3], [-4], [0, 5]):
        with pytest.raises(IndexError):
            observe(state, facts, rows, backend=how)
    with pytest.raises(ValueError, match="dtype"):
        observe(state, facts, dtype=np.float64, backend=how)
    with pytest.raises(ValueError, match="backend"):
        observe(state, facts, backend="python")


@pytest.mark.parametrize("how", OBSERVERS)
def test_observe_into_out(how: str) -> None:
    """observe(out=...) writes every slot's row into out and returns it; a misfit is refused."""
    state = reset(np.arange(4, dtype=np.uint64), 4).state
    facts = start_facts(state)
    for kind, scaled in ((np.int32, False), (np.float32, False), (np.float32, True)):
        expected = observe(state, facts, dtype=kind, scaled=scaled, backend=how)
        out = np.full((4, OBSERVATION_SIZE), 7, kind)
        got = observe(state, facts, dtype=kind, scaled=scaled, backend=how, out=out)
        assert got is out
        assert np.array_equal(out, expected)
    wrong = [
        np.empty((3, OBSERVATION_SIZE), np.float32),  # a slot short
        np.empty((4, OBSERVATION_SIZE), np.float64),  # another dtype
        np.empty((OBSERVATION_SIZE, 4), np.float32).T,  # not C-contiguous
        [[0.0] * OBSERVATION_SIZE] * 4,  # not an array
    ]
    readonly = np.empty((4, OBSERVATION_SIZE), np.float32)
    readonly.flags.writeable = False
    for out in [*wrong, readonly]:
        with pytest.raises(ValueError, match="out must be"):
            observe(state, facts, dtype=np.float32, backend=how, out=out)
    with pytest.raises(ValueError, match="out must be"):
        observe(state, facts, [0], dtype=np.float32, backend=how, out=readonly)


@pytest.mark.skipif(HAS_C, reason="the C extension is built")
def test_observe_without_c() -> None:
    """Where the C kernel is not built, asking for it is refused; numpy answers otherwise."""
    state = reset(np.arange(2, dtype=np.uint64), 2).state
    facts = start_facts(state)
    with pytest.raises(ValueError, match="not built"):
        observe(state, facts, backend="c")
    assert (observe(state, facts) == observe(state, facts, backend="numpy")).all()
