"""Seats played at random inside the kernel, and the facts stepped with the state.

``BatchedMatches.play_random`` (the vector environment's ``"random"``
opponent) is checked against :func:`~american_sniff.apply` and
:func:`american_sniff.rng.below` move for move, and on every kernel against
the others; the C kernel's ``step_facts_into`` against ``step_into`` followed
by the numpy ``advance_facts``; hostile words, seats and buffers against the
C entry points.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from american_sniff import MatchState, apply, new_match, view_for  # noqa: E402
from american_sniff.actions import legal_actions, move_of  # noqa: E402
from american_sniff.batch import BACKENDS, OK  # noqa: E402
from american_sniff.batch.observe import FACT_WORDS, advance_facts  # noqa: E402
from american_sniff.envs.batched import BatchedMatches, below  # noqa: E402
from american_sniff.envs.rewards import rewards  # noqa: E402
from american_sniff.observation import encode  # noqa: E402
from american_sniff.rng import MASK64  # noqa: E402
from american_sniff.rng import below as below_one  # noqa: E402
from generate_vectors import seed_giving  # noqa: E402

HAS_C = "c" in BACKENDS
needs_c = pytest.mark.skipif(not HAS_C, reason="the C batch extension is not built")
KERNELS = ["numpy", "python", pytest.param("c", marks=needs_c)]


def reference_play(state: MatchState, seat: int, stream: int) -> tuple[MatchState, int, int]:
    """The other seats play at random up to ``seat``'s turn, by apply: (state, gain, stream)."""
    gain = 0
    while state.winner is None and state.turn != seat:
        legal = legal_actions(state)
        k, stream = below_one(len(legal), stream)
        after = apply(state, move_of(state, legal[k]))
        gain += int(rewards("points", state, after)[seat])
        state = after
    return state, gain, stream


@pytest.mark.sweep
@pytest.mark.parametrize("backend", KERNELS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_random_is_apply_with_below_move_for_move(backend: str, players: int) -> None:
    """Each slot plays as apply does, its actions drawn by rng.below from its own stream."""
    n = 6
    matches = BatchedMatches(n, players, backend=backend)
    matches.reset([40 + i for i in range(n)])
    states = [new_match(players, seed=40 + i) for i in range(n)]
    seats = np.array([i % players for i in range(n)])
    streams = np.array([(i * 0x1234567 + 99) & MASK64 for i in range(n)], np.uint64)
    expected = [int(x) for x in streams]
    chooser = random.Random(players)
    compared = 0
    for _ in range(40):
        played = matches.play_random(seats, streams)
        for i in range(n):
            states[i], gain, expected[i] = reference_play(states[i], int(seats[i]), expected[i])
            assert int(streams[i]) == expected[i]
            assert int(played.gains[i]) == gain
            assert bool(matches.done[i]) == (states[i].winner is not None)
            if states[i].winner is None:
                assert int(matches.turn[i]) == seats[i]
                view = encode(view_for(states[i], int(seats[i])))
                assert matches.observe([i])[0].tolist() == list(view)
                compared += 1
        actions = [chooser.choice(legal_actions(s)) if s.winner is None else -1 for s in states]
        matches.step(np.array(actions))
        states = [
            s if s.winner is not None else apply(s, move_of(s, a))
            for s, a in zip(states, actions, strict=True)
        ]
    assert compared > 50


@pytest.mark.sweep
@needs_c
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_kernel_plays_the_same_bits(players: int) -> None:
    """States, facts, masks, streams and gains are equal on the three kernels, call by call."""
    runs = []
    for backend in ("c", "numpy", "python"):
        matches = BatchedMatches(24, players, backend=backend)
        matches.reset(1000 + players)
        streams = (np.arange(24, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(7)
        seats = np.arange(24) % players
        chooser = np.random.default_rng(players)
        log = []
        for _ in range(50):
            played = matches.play_random(seats, streams)
            log.append(
                [played.gains.copy(), matches.state.copy(), matches.facts.copy()]
                + [matches.mask.copy(), streams.copy(), np.array([played.applied])]
            )
            scores = chooser.random(matches.mask.shape) * matches.mask
            matches.step(np.where(matches.done, -1, scores.argmax(axis=1)))
        runs.append(log)
    for other in runs[1:]:
        for got, want in zip(other, runs[0], strict=True):
            for a, b in zip(got, want, strict=True):
                np.testing.assert_array_equal(a, b)


def test_below_is_rng_below_stream_by_stream() -> None:
    """The vectorised below equals rng.below on each stream, redraws included."""
    counts = [1, 2, 3, 5, 7, 28, 112, 450, 3, 7]
    # Streams whose next output is the first one below(n) must redraw: 2**64 - 2**64 % n.
    starts = [(i * 0xDEADBEEF12345) & MASK64 for i in range(8)] + [
        seed_giving(2**64 - 2**64 % 3),
        seed_giving(2**64 - 1),
    ]
    streams = np.array(starts, np.uint64)
    picks = below(streams, np.arange(len(counts)), np.array(counts))
    for j, (n, start) in enumerate(zip(counts, starts, strict=True)):
        value, after = below_one(n, start)
        assert int(picks[j]) == value
        assert int(streams[j]) == after
    # The two crafted streams did redraw: two draws, not one.
    for j in (8, 9):
        assert int(streams[j]) == (starts[j] + 2 * 0x9E3779B97F4A7C15) & MASK64
    with pytest.raises(ValueError, match="positive"):
        below(streams, [0], np.array([0]))


@needs_c
@pytest.mark.parametrize("players", [2, 4])
def test_step_facts_into_is_step_into_then_advance_facts(players: int) -> None:
    """The C facts step equals the numpy facts over legal, illegal and out-of-range actions."""
    kernel: Any = BACKENDS["c"]
    n = 64
    matches = BatchedMatches(n, players, backend="c")
    matches.reset(77)
    chooser = np.random.default_rng(3)
    state, facts, mask = matches.state.copy(), matches.facts.copy(), matches.mask.copy()
    twin_state, twin_facts = state.copy(), facts.copy()
    refusals = 0
    for _ in range(300):
        actions = (chooser.random(mask.shape) * mask).argmax(axis=1).astype(np.int64)
        noisy = chooser.random(n) < 0.1
        actions[noisy] = chooser.integers(-3, 453, size=int(noisy.sum()))
        outs = [np.zeros((n, 450), np.bool_), np.zeros((n, 4), np.int32)]
        outs += [np.zeros(n, np.bool_), np.zeros(n, np.uint8)]
        twin = [o.copy() for o in outs]
        refused = kernel.step_facts_into(state, facts, actions, *outs)
        before = twin_state.copy()
        assert kernel.step_into(twin_state, actions, *twin) == refused
        advance_facts(twin_facts, before, actions, twin_state, twin[3])
        np.testing.assert_array_equal(state, twin_state)
        np.testing.assert_array_equal(facts, twin_facts)
        for a, b in zip(outs, twin, strict=True):
            np.testing.assert_array_equal(a, b)
        refusals += refused
        mask = outs[0]
    assert refusals > 0


@needs_c
def test_the_c_entry_points_refuse_hostile_words_and_buffers() -> None:
    """Garbage states, facts, seats and streams give BAD_STATE rows; bad buffers raise."""
    kernel: Any = BACKENDS["c"]
    chooser = np.random.default_rng(11)
    n = 256
    matches = BatchedMatches(n, 4, backend="c")
    matches.reset(5)
    state = matches.state.copy()
    # Mutate one word of each slot to anything, and the facts to anything.
    words = chooser.integers(0, 48, size=n)
    state[np.arange(n), words] = chooser.integers(-(2**31), 2**31, size=n, dtype=np.int64)
    facts = chooser.integers(-(2**63), 2**63, size=(n, FACT_WORDS), dtype=np.int64)
    seats = chooser.integers(-2, 6, size=n).astype(np.int64)
    streams = chooser.integers(0, 2**63, size=n).astype(np.uint64)
    mask = np.ones((n, 450), np.bool_)
    gains = np.zeros(n, np.int32)
    done = np.zeros(n, np.bool_)
    errors = np.zeros(n, np.uint8)
    kernel.play_random_into(state, facts, seats, streams, mask, gains, done, errors)
    bad_seat = (seats < 0) | (seats >= 4)
    assert (errors[bad_seat] != OK).all()
    assert not mask[errors != OK].any()
    assert set(errors.tolist()) <= {OK, 4}
    actions = chooser.integers(-5, 455, size=n).astype(np.int64)
    rewards = np.zeros((n, 4), np.int32)
    kernel.step_facts_into(state, facts, actions, mask, rewards, done, errors)
    assert set(errors.tolist()) <= {0, 1, 2, 3, 4}
    kernel.start_facts_into(state, facts)
    assert (facts[:, 8] == -1).all()
    with pytest.raises(ValueError, match="facts"):
        kernel.step_facts_into(state, facts[:-1], actions, mask, rewards, done, errors)
    with pytest.raises(ValueError, match="actions"):
        kernel.step_facts_into(state, facts, actions.astype(np.int32), mask, rewards, done, errors)
    with pytest.raises(ValueError, match="rng"):
        kernel.play_random_into(state, facts, seats, streams[:3], mask, gains, done, errors)
    with pytest.raises(TypeError, match="seats"):
        kernel.play_random_into(state, facts, None, streams, mask, gains, done, errors)
    with pytest.raises(ValueError, match="state"):
        kernel.start_facts_into(state.reshape(-1)[:47], facts)


@pytest.mark.parametrize("backend", KERNELS)
def test_play_random_refuses_bad_seats_and_streams(backend: str) -> None:
    """Seats outside the match, streams not one writable uint64 a slot: ValueError."""
    matches = BatchedMatches(3, 2, backend=backend)
    streams = np.zeros(3, np.uint64)
    with pytest.raises(RuntimeError, match="reset"):
        matches.play_random(np.zeros(3, np.int64), streams)
    matches.reset(1)
    before = matches.state.copy()
    for seats in ([0, 1, 2], [0, -1, 0], [0, 1]):
        with pytest.raises(ValueError, match="seat"):
            matches.play_random(np.array(seats), streams)
    with pytest.raises(ValueError, match="seats"):
        matches.play_random(np.array([0.0, 1.0, 0.0]), streams)
    for bad in (np.zeros(3, np.int64), np.zeros(4, np.uint64), [0, 0, 0]):
        with pytest.raises(ValueError, match="streams"):
            matches.play_random(np.zeros(3, np.int64), bad)
    np.testing.assert_array_equal(matches.state, before)


@pytest.mark.parametrize("players", [2, 4])
def test_step_then_play_random_is_step_then_play_random(players: int) -> None:
    """The one-pass method equals step followed by play_random, on every kernel."""
    backends = ["numpy", "python"] + (["c"] if HAS_C else [])
    results = []
    for backend in backends:
        for joined in (True, False):
            matches = BatchedMatches(12, players, backend=backend)
            matches.reset(300)
            streams = np.arange(12, dtype=np.uint64) + np.uint64(17)
            seats = np.arange(12) % players
            matches.play_random(seats, streams)
            log = []
            for _ in range(25):
                actions = np.where(matches.done, -1, matches.mask.argmax(axis=1))
                if joined:
                    out, gains = matches.step_then_play_random(actions, seats, streams)
                else:
                    out = matches.step(actions)
                    gains = matches.play_random(seats, streams).gains
                log.append([out.rewards, out.errors, gains, matches.state.copy()])
                log[-1] += [matches.facts.copy(), matches.mask.copy(), matches.done.copy()]
            results.append(log)
    for other in results[1:]:
        for got, want in zip(other, results[0], strict=True):
            for a, b in zip(got, want, strict=True):
                np.testing.assert_array_equal(a, b)


def test_the_vector_env_random_opponent_is_the_same_on_every_kernel() -> None:
    """The vector environment against "random": the same episodes on every kernel, by seed."""
    pytest.importorskip("gymnasium")
    from american_sniff.envs.vector import AmericanSniffVectorEnv

    backends = ["numpy", "python"] + (["c"] if HAS_C else [])
    runs = []
    for backend in backends:
        env = AmericanSniffVectorEnv(6, 4, seat=[0, 1, 2, 3, 0, 1], max_steps=12, backend=backend)
        observations, infos = env.reset(seed=8)
        chooser = np.random.default_rng(2)
        log = [observations]
        for _ in range(40):
            scores = chooser.random(infos["action_mask"].shape) * infos["action_mask"]
            observations, rewards, terminated, truncated, infos = env.step(scores.argmax(axis=1))
            log += [observations, rewards, terminated, truncated, infos["action_mask"]]
        runs.append(log)
    for other in runs[1:]:
        for a, b in zip(other, runs[0], strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("backend", KERNELS)
def test_play_random_redraws_as_below_does(backend: str) -> None:
    """A stream whose next output is 2**64 - 1 must redraw unless the count is a power of two."""
    n = 8
    matches = BatchedMatches(n, 2, backend=backend)
    matches.reset([500 + i for i in range(n)])
    # Seat 1 is to play first in each slot whose opener is seat 1; seat 0 plays the others.
    seats = np.array([1 - int(t) for t in matches.turn], np.int64)
    starts = [seed_giving(2**64 - 1)] * n
    streams = np.array(starts, np.uint64)
    matches.play_random(seats, streams)
    redrawn = 0
    for i in range(n):
        state = new_match(2, seed=500 + i)
        state, _, after = reference_play(state, int(seats[i]), starts[i])
        assert int(streams[i]) == after
        first = len(legal_actions(new_match(2, seed=500 + i)))
        redrawn += first & (first - 1) != 0
    assert redrawn > 0


def test_play_random_of_some_slots_leaves_the_others_alone() -> None:
    """With slots, only those slots play, on every kernel alike; the others keep every bit."""
    backends = ["numpy", "python"] + (["c"] if HAS_C else [])
    runs = []
    for backend in backends:
        matches = BatchedMatches(10, 3, backend=backend)
        matches.reset(60)
        streams = np.arange(10, dtype=np.uint64) * np.uint64(3) + np.uint64(1)
        seats = np.full(10, 2, np.int64)
        before = matches.state.copy(), matches.facts.copy(), streams.copy()
        played = matches.play_random(seats, streams, [7, 2, 5])
        others = [0, 1, 3, 4, 6, 8, 9]
        np.testing.assert_array_equal(matches.state[others], before[0][others])
        np.testing.assert_array_equal(matches.facts[others], before[1][others])
        np.testing.assert_array_equal(streams[others], before[2][others])
        assert not played.gains[others].any()
        assert (matches.turn[[7, 2, 5]] == 2).all() or matches.done[[7, 2, 5]].any()
        runs.append([matches.state.copy(), matches.facts.copy(), streams.copy(), played.gains])
        with pytest.raises(ValueError, match="slot"):
            matches.play_random(seats, streams, [1, 1])
    for other in runs[1:]:
        for a, b in zip(other, runs[0], strict=True):
            np.testing.assert_array_equal(a, b)
