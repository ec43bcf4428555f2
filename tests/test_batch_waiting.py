"""The slots waiting on a policy (batch/_cwaiting.c, observe_waiting, play_policy), and threads.

The C calls ``observe_waiting_into`` and ``step_rows_into`` are compared with
their numpy twins and with the single-match observation
(``encode(view_for(state, turn))``) in lockstep; ``play_policy`` gives the same
results on every kernel; the kernel's calls release the GIL, so two threads
may step two batches at once, and agree with one thread. The scaled
observation of the batch equals the single one's. (.ci/run also runs this
file under ASan and UBSan.)
"""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from american_sniff import apply, new_match, view_for  # noqa: E402
from american_sniff.actions import legal_actions, move_of  # noqa: E402
from american_sniff.batch import BACKENDS, OK, OUT_OF_RANGE, STATE_WORDS, reset, step  # noqa: E402
from american_sniff.batch.observe import (  # noqa: E402
    advance_facts,
    observe,
    observe_waiting,
    scale_observations,
    start_facts,
)
from american_sniff.envs.batched import BatchedMatches, RandomPolicy  # noqa: E402
from american_sniff.observation import (  # noqa: E402
    OBSERVATION_SIZE,
    SCALED_BOUNDS,
    encode,
    scaled,
)

C: Any = BACKENDS.get("c")
HAS_C = hasattr(C, "observe_waiting_into")
needs_c = pytest.mark.skipif(not HAS_C, reason="the C extension is not built")
OBSERVERS = ["numpy", "c"] if HAS_C else ["numpy"]


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_observe_waiting_equals_encode_in_lockstep(players: int) -> None:
    """Each waiting row is encode(view_for(state, turn)) with the slot's legal actions, C and numpy.

    The learner's seat differs by slot; finished slots never wait.
    """
    seeds = list(range(6))
    chooser = random.Random(players)
    seats = np.array([i % players for i in seeds], np.int64)
    out = reset(np.array(seeds, np.uint64), players)
    facts = start_facts(out.state)
    states = [new_match(players, seed=s) for s in seeds]
    compared = 0
    for _ in range(200):
        seen = {
            how: observe_waiting(out.state, facts, seats, backend=how, dtype=np.float32)
            for how in OBSERVERS
        }
        expected_rows = [
            i
            for i, s in enumerate(states)
            if s.winner is None and s.turn != seats[i]  # the slots that wait
        ]
        for how, waiting in seen.items():
            assert waiting.rows.tolist() == expected_rows, how
            assert waiting.observations.dtype == np.float32
        for j, i in enumerate(expected_rows):
            state = states[i]
            expected = np.array(encode(view_for(state, state.turn)))
            legal = np.zeros(450, bool)
            legal[list(legal_actions(state))] = True
            for how, waiting in seen.items():
                assert (waiting.observations[j] == expected).all(), how
                assert (waiting.masks[j] == legal).all(), how
            compared += 1
        actions = [chooser.choice(legal_actions(s)) if s.winner is None else 0 for s in states]
        after = step(out.state, np.array(actions))
        advance_facts(facts, out.state, np.array(actions), after.state, after.errors)
        out = after
        states = [
            apply(s, move_of(s, a)) if s.winner is None else s
            for s, a in zip(states, actions, strict=True)
        ]
    assert compared > 250


@pytest.mark.parametrize("how", OBSERVERS)
def test_observe_waiting_arguments(how: str) -> None:
    """No observations when not asked; bad dtype, backend or seats are refused."""
    state = reset(np.arange(4, dtype=np.uint64), 3).state
    facts = start_facts(state)
    seats = np.zeros(4, np.int64)
    blind = observe_waiting(state, facts, seats, observations=False, backend=how)
    assert blind.observations is None
    whole = observe_waiting(state, facts, seats, backend=how)
    assert whole.observations.dtype == np.int32
    assert (whole.rows == blind.rows).all()
    assert (whole.observations == observe(state, facts, whole.rows)).all()
    with pytest.raises(ValueError, match="dtype"):
        observe_waiting(state, facts, seats, dtype=np.float64, backend=how)
    with pytest.raises(ValueError, match="backend"):
        observe_waiting(state, facts, seats, backend="python")
    with pytest.raises(ValueError, match="seats"):
        observe_waiting(state, facts, seats[:3], backend=how)


@needs_c
def test_c_waiting_calls_refuse_wrong_buffers() -> None:
    """The C calls refuse outputs of the wrong size or kind, and rows that are not slots."""
    out = reset(np.arange(3, dtype=np.uint64), 2)
    state, facts = out.state, start_facts(out.state)
    seats = np.zeros(3, np.int64)
    rows = np.empty(3, np.int64)
    observations = np.empty((3, OBSERVATION_SIZE), np.float32)
    masks = np.empty((3, 450), np.bool_)
    assert C.observe_waiting_into(state, facts, seats, rows, observations, masks) >= 0
    for bad in (
        (state, facts, seats[:2], rows, observations, masks),
        (state, facts, seats, rows[:2], observations, masks),
        (state, facts, seats, rows, observations[:2], masks),
        (state, facts, seats, rows, np.empty((3, OBSERVATION_SIZE)), masks),
        (state, facts, seats, rows, observations, masks[:2]),
    ):
        with pytest.raises(ValueError, match="must hold"):
            C.observe_waiting_into(*bad)
    with pytest.raises(TypeError):
        C.observe_waiting_into(state, facts, seats, rows.tolist(), None, None)
    rewards = np.empty((1, 4), np.int32)
    errors = np.empty(1, np.uint8)
    mask, done = out.mask, out.done
    args = (state, facts, np.array([3], np.int64), np.array([0], np.int64), mask, rewards, done)
    with pytest.raises(ValueError, match="not a slot"):
        C.step_rows_into(*args, errors)
    with pytest.raises(ValueError, match="both seats and gains"):
        C.step_rows_into(*args[:2], np.array([0], np.int64), *args[3:], errors, seats)
    with pytest.raises(ValueError, match="must hold"):
        C.step_rows_into(*args[:2], np.array([0], np.int64), *args[3:], errors[:0])
    # A refused action: the slot is kept, its code says why, and nothing is gained.
    before = state.copy()
    gains = np.zeros(3, np.int32)
    refused = C.step_rows_into(
        state, facts, np.array([1], np.int64), np.array([450], np.int64), None, rewards, done,
        errors, seats, gains,
    )  # fmt: skip
    assert refused == 1
    assert errors[0] == OUT_OF_RANGE
    assert (before == state).all()
    assert (gains == 0).all()


@needs_c
@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 4])
def test_step_rows_equals_step_facts(players: int) -> None:
    """step_rows_into on chosen rows gives what step_facts_into gives those slots, and gains."""
    generator = np.random.default_rng(players)
    out = reset(np.arange(40, dtype=np.uint64), players)
    state, facts, mask, done = out.state, start_facts(out.state), out.mask, out.done
    seats = generator.integers(0, players, size=40).astype(np.int64)
    for _ in range(120):
        actions = (generator.random(mask.shape) * mask).argmax(axis=1).astype(np.int64)
        rows = np.flatnonzero(generator.random(40) < 0.6).astype(np.int64)
        # The twin: every slot stepped, those not chosen given -1 (refused, kept as they were).
        every = np.full(40, -1, np.int64)
        every[rows] = actions[rows]
        twin = [state.copy(), facts.copy(), mask.copy(), done.copy()]
        twin_rewards = np.empty((40, 4), np.int32)
        twin_errors = np.empty(40, np.uint8)
        C.step_facts_into(twin[0], twin[1], every, twin[2], twin_rewards, twin[3], twin_errors)
        rewards = np.empty((len(rows), 4), np.int32)
        errors = np.empty(len(rows), np.uint8)
        gains = np.zeros(40, np.int32)
        refused = C.step_rows_into(
            state, facts, rows, actions[rows], mask, rewards, done, errors, seats, gains
        )
        assert refused == int((errors != OK).sum())
        for mine, theirs in zip((state, facts, mask, done), twin, strict=True):
            assert (mine == theirs).all()
        assert (rewards == twin_rewards[rows]).all()
        assert (errors == twin_errors[rows]).all()
        expected = np.zeros(40, np.int32)
        expected[rows] = twin_rewards[rows, seats[rows]]
        assert (gains == expected).all()
        finished = np.flatnonzero(done)
        if len(finished):
            fresh = reset(np.arange(len(finished), dtype=np.uint64) + 1000, players)
            state[finished], mask[finished], done[finished] = fresh.state, fresh.mask, False
            facts[finished] = start_facts(fresh.state)


class _Looking:
    """A seeded random policy that looks: it records what it was shown."""

    observes = True

    def __init__(self, seed: int) -> None:
        self.pick = RandomPolicy(seed)
        self.shown: list[Any] = []

    def __call__(self, observations: Any, masks: Any) -> Any:
        self.shown.append(np.array(observations, copy=True))
        return self.pick(None, masks)


@pytest.mark.parametrize("players", [2, 4])
def test_play_policy_is_the_same_on_every_kernel(players: int) -> None:
    """play_policy gives the same states, facts, gains, calls and observations on every kernel."""
    results = {}
    for backend in BACKENDS:
        matches = BatchedMatches(12, players, backend=backend)
        matches.reset(70)
        policy = _Looking(5)
        learner = RandomPolicy(6)
        seats = np.arange(12) % players
        gains, calls = [], 0
        for _ in range(25):
            played = matches.play_policy(policy, seats, scaled=True)
            gains.append(played.gains.copy())
            calls += played.calls
            assert (matches.done | (matches.turn == seats)).all()
            matches.step(learner(None, matches.mask) * ~matches.done - matches.done)
        results[backend] = (matches.state, matches.facts, np.array(gains), calls, policy.shown)
    first = results.pop("python")
    for backend, other in results.items():
        assert (other[0] == first[0]).all(), backend
        assert (other[1] == first[1]).all(), backend
        assert (other[2] == first[2]).all(), backend
        assert other[3] == first[3], backend
        assert all((a == b).all() for a, b in zip(other[4], first[4], strict=True)), backend
    assert first[2].any()


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_forced_actions_are_played_without_asking(backend: str) -> None:
    """The policy is asked only where there is a choice, unless ask_forced; both play the same.

    A policy that plays each row's first legal action gives the same matches
    whether the forced actions are asked or played for it; asked, it sees
    rows with one legal action, else never.
    """
    rows_seen: dict[bool, list[int]] = {True: [], False: []}
    finals = {}
    for ask in (True, False):
        matches = BatchedMatches(10, 4, backend=backend)
        matches.reset(30)
        seats = np.arange(10) % 4

        def first_legal(observations: Any, masks: Any, ask: bool = ask) -> Any:
            rows_seen[ask].extend(np.asarray(masks).sum(axis=1).tolist())
            return np.argmax(masks, axis=1)

        applied, gains = 0, np.zeros(10, np.int64)
        for _ in range(15):
            played = matches.play_policy(first_legal, seats, ask_forced=ask)
            applied += played.applied
            gains += played.gains
            matches.step(np.argmax(matches.mask, axis=1) * ~matches.done - matches.done)
        finals[ask] = (matches.state.copy(), matches.facts.copy(), gains, applied)
    assert 1 in rows_seen[True]
    assert 1 not in rows_seen[False]
    assert len(rows_seen[False]) < len(rows_seen[True])
    for mine, theirs in zip(finals[True], finals[False], strict=True):
        assert (np.asarray(mine) == np.asarray(theirs)).all()


@needs_c
def test_c_play_forced_refuses_wrong_buffers() -> None:
    """play_forced_into refuses buffers of the wrong size; it leaves slots with a choice alone."""
    out = reset(np.arange(3, dtype=np.uint64), 2)
    facts = start_facts(out.state)
    seats = np.zeros(3, np.int64)
    gains = np.zeros(3, np.int32)
    before = out.state.copy()
    # (At a round's start every seat to move has a choice: nothing is forced.)
    assert C.play_forced_into(out.state, facts, seats, gains, out.done) == 0
    assert (out.state == before).all()
    for bad in (
        (out.state, facts[:2], seats, gains, out.done),
        (out.state, facts, seats[:2], gains, out.done),
        (out.state, facts, seats, gains.astype(np.int64), out.done),
        (out.state, facts, seats, gains, out.done[:2]),
    ):
        with pytest.raises(ValueError, match="must hold"):
            C.play_forced_into(*bad)


@needs_c
@pytest.mark.parametrize("players", [2, 4])
def test_c_play_waiting_is_forced_then_waiting(players: int) -> None:
    """play_waiting_into = play_forced_into then observe_waiting_into, over the candidates alone."""
    n = 64
    generator = np.random.default_rng(players)
    out = reset(np.arange(n, dtype=np.uint64), players)
    state, facts, mask = out.state, start_facts(out.state), out.mask
    seats = generator.integers(0, players, n).astype(np.int64)
    for _ in range(30):
        actions = (generator.random(mask.shape) * mask).argmax(axis=1).astype(np.int64)
        C.step_facts_into(state, facts, actions, mask, np.zeros((n, 4), np.int32),
                          np.zeros(n, np.bool_), np.zeros(n, np.uint8))  # fmt: skip
        candidates = np.flatnonzero(generator.random(n) < 0.6).astype(np.int64)
        results = []
        for fused in (True, False):
            s, f = state.copy(), facts.copy()
            gains, done = np.zeros(n, np.int32), np.zeros(n, np.bool_)
            rows = np.full(n, -5, np.int64)
            seen = np.zeros((n, 375), np.float32)
            masks = np.zeros((n, 450), np.bool_)
            if fused:
                rows[: len(candidates)] = candidates
                m, forced = C.play_waiting_into(s, f, seats, rows, len(candidates), gains, done,
                                                seen, masks)  # fmt: skip
            else:
                # the old way, on the candidates alone (the others' seats made their own)
                own = seats.copy()
                others = np.setdiff1d(np.arange(n), candidates)
                own[others] = s[others, 2]  # (a slot whose seat is to move waits on nobody)
                forced = C.play_forced_into(s, f, own, gains, done)
                m = C.observe_waiting_into(s, f, own, rows, seen, masks)
            results.append((s, f, gains, done, rows[:m].copy(), seen[:m], masks[:m], forced))
        for a, b in zip(*results, strict=True):
            assert np.array_equal(a, b)
        # scaled=True: the library's scaling, bit for bit
        rows = np.empty(n, np.int64)
        seen = np.zeros((n, 375), np.float32)
        s, f = state.copy(), facts.copy()
        m, _ = C.play_waiting_into(s, f, seats, rows, -1, np.zeros(n, np.int32),
                                   np.zeros(n, np.bool_), seen, None, None, True)  # fmt: skip
        expected = scale_observations(observe(s, f, rows[:m], dtype=np.float32), backend="numpy")
        assert np.array_equal(seen[:m], expected)
    with pytest.raises(ValueError, match="at most"):
        C.play_waiting_into(state, facts, seats, np.zeros(n, np.int64), n + 1,
                            np.zeros(n, np.int32), np.zeros(n, np.bool_), None, None)  # fmt: skip
    with pytest.raises(ValueError, match="float32"):
        C.play_waiting_into(state, facts, seats, np.zeros(n, np.int64), -1, np.zeros(n, np.int32),
                            np.zeros(n, np.bool_), np.zeros((n, 375), np.int32), None)  # fmt: skip
    # A candidate out of range is passed over.
    rows = np.array([-1, n, 10**9] + [0] * (n - 3), np.int64)
    m, _ = C.play_waiting_into(state, facts, seats, rows, 3, np.zeros(n, np.int32),
                               np.zeros(n, np.bool_), None, None)  # fmt: skip
    assert m == 0


def test_play_policy_refuses_a_bad_policy() -> None:
    """A policy that gives too few actions, or an illegal one, is refused with ValueError."""
    matches = BatchedMatches(4, 2)
    with pytest.raises(RuntimeError, match="reset"):
        matches.play_policy(RandomPolicy(1), np.zeros(4, np.int64))
    matches.reset(3)
    with pytest.raises(ValueError, match="seat"):
        matches.play_policy(RandomPolicy(1), np.full(4, 2, np.int64))
    with pytest.raises(ValueError, match="integer actions"):
        matches.play_policy(lambda o, m: np.zeros(len(m) + 1, np.int64), np.ones(4, np.int64))
    with pytest.raises(ValueError, match="refuses it"):
        matches.play_policy(lambda o, m: np.full(len(m), 449), np.ones(4, np.int64))


@needs_c
def test_two_threads_step_two_batches_at_once() -> None:
    """The kernel's calls release the GIL: two threads step and observe two batches at once.

    Each thread's results equal those of the same work done in one thread.
    """

    def work(seed: int, into: dict[int, Any]) -> None:
        generator = np.random.default_rng(seed)
        out = reset(np.arange(512, dtype=np.uint64) + 512 * seed, 2)
        state, facts, mask = out.state, start_facts(out.state), out.mask
        rewards, done = np.empty((512, 4), np.int32), np.empty(512, np.bool_)
        errors = np.empty(512, np.uint8)
        seen = np.empty((512, OBSERVATION_SIZE), np.float32)
        total = np.zeros(512, np.int64)
        for _ in range(80):
            actions = (generator.random(mask.shape) * mask).argmax(axis=1)
            C.step_facts_into(state, facts, actions, mask, rewards, done, errors)
            C.observe_into(state, facts, seen)
            total += rewards.sum(axis=1) + seen.sum(axis=1).astype(np.int64)
        into[seed] = (state, total)

    alone: dict[int, Any] = {}
    for seed in (1, 2):
        work(seed, alone)
    together: dict[int, Any] = {}
    threads = [threading.Thread(target=work, args=(seed, together)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for seed in (1, 2):
        assert (together[seed][0] == alone[seed][0]).all()
        assert (together[seed][1] == alone[seed][1]).all()


@pytest.mark.parametrize("how", OBSERVERS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_scaled_batch_equals_scaled_single(players: int, how: str) -> None:
    """scale_observations (C, numpy) equals float32(scaled(row)) exactly, within SCALED_BOUNDS."""
    generator = np.random.default_rng(players)
    out = reset(np.arange(16, dtype=np.uint64), players)
    facts = start_facts(out.state)
    low, high = (np.array(bound, np.float32) for bound in SCALED_BOUNDS)
    for _ in range(60):
        raw = observe(out.state, facts)
        # Scores pushed past the clips now and then, as a long match can.
        raw[:, 356:359] *= generator.integers(1, 4, size=(len(raw), 1), dtype=np.int32)
        raw[:, 356:359] -= generator.integers(0, 600, size=(len(raw), 1), dtype=np.int32)
        batch = scale_observations(raw, backend=how)
        assert batch.dtype == np.float32
        for row, one in zip(raw, batch, strict=True):
            assert (np.array(scaled(row.tolist()), np.float32) == one).all()
        assert ((batch >= low) & (batch <= high)).all()
        in_place = raw.astype(np.float32)
        assert scale_observations(in_place, out=in_place, backend=how) is in_place
        assert (in_place == batch).all()
        actions = (generator.random(out.mask.shape) * out.mask).argmax(axis=1)
        after = step(out.state, actions)
        advance_facts(facts, out.state, actions, after.state, after.errors)
        out = after
    with pytest.raises(ValueError, match="375"):
        scaled([0] * 10)
    with pytest.raises(ValueError, match="375"):
        scale_observations(np.zeros((2, 10)))
    with pytest.raises(ValueError, match="float32"):
        scale_observations(np.zeros((2, 375)), out=np.zeros((2, 375)))
    with pytest.raises(ValueError, match="backend"):
        scale_observations(np.zeros((2, 375)), backend="python")
    # A zero row (no target) is scaled without dividing by 0.
    assert (scale_observations(np.zeros((1, 375)), backend=how) == 0).all()


@needs_c
def test_c_scale_refuses_wrong_buffers() -> None:
    """scale_into refuses tables and outputs of the wrong size or kind, and a bad target."""
    out = np.zeros((2, OBSERVATION_SIZE), np.float32)
    table = np.ones(OBSERVATION_SIZE, np.float32)
    C.scale_into(out, table, table - 2, table, 359)
    for bad in (
        (out[:, :10].copy(), table, table, table, 359),
        (out.astype(np.float64), table, table, table, 359),
        (out, table[:10], table, table, 359),
        (out, table, table.astype(np.int32), table, 359),
    ):
        with pytest.raises(ValueError, match="float32"):
            C.scale_into(*bad)
    with pytest.raises(ValueError, match="target"):
        C.scale_into(out, table, table, table, OBSERVATION_SIZE)
    with pytest.raises(TypeError):
        C.scale_into(out.tolist(), table, table, table, 359)
    out.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        C.scale_into(out, table, table, table, 359)


@needs_c
def test_the_kernel_lets_other_threads_run_while_it_loops() -> None:
    """While one thread is inside a kernel call, another runs Python: the GIL is released.

    A thread deals 50,000 slots in one ``reset_into`` call (tens of
    milliseconds), slot after slot; meanwhile the main thread reads the
    slots' first word again and again. Seeing some slots dealt and others not
    yet is seeing the call halfway: the main thread ran during it, which a
    call holding the GIL would not allow (it would see none dealt, then all).
    """
    n = 50_000
    state = np.zeros((n, STATE_WORDS), np.int32)
    mask = np.zeros((n, 450), np.bool_)
    seeds = np.arange(n, dtype=np.uint64)
    halfway = 0
    for _ in range(10):
        state[:, 0] = 0
        thread = threading.Thread(target=C.reset_into, args=(state, seeds, 4, mask))
        thread.start()
        while thread.is_alive():
            dealt = int(np.count_nonzero(state[:, 0]))
            halfway += 0 < dealt < n
        thread.join()
        assert (state[:, 0] == 4).all()
        if halfway:
            break
    assert halfway


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_step_then_play_policy_is_step_then_play_policy(backend: str) -> None:
    """The one call gives what step and play_policy give one after the other, masks included."""
    pair = [BatchedMatches(16, 4, backend=backend) for _ in range(2)]
    seats = np.zeros(16, np.int64)
    for matches in pair:
        matches.reset(9)
        matches.play_policy(RandomPolicy(3), seats)
    for turn in range(20):
        actions = np.where(pair[0].done, -1, pair[0].mask.argmax(axis=1))
        actions[turn % 16] = -1  # (a slot that does not act)
        first, played = pair[0].step_then_play_policy(actions, RandomPolicy(turn), seats)
        second = pair[1].step(actions)
        gains = pair[1].play_policy(RandomPolicy(turn), seats).gains
        assert np.array_equal(first.rewards, second.rewards)
        assert np.array_equal(first.errors, second.errors)
        assert np.array_equal(played.gains, gains)
        for name in ("state", "facts", "mask", "done"):
            assert np.array_equal(getattr(pair[0], name), getattr(pair[1], name)), name


@pytest.mark.parametrize("how", OBSERVERS)
def test_observe_scaled_is_observe_then_scale(how: str) -> None:
    """observe(scaled=True) gives scale_observations(observe(...)) bit for bit, rows or not."""
    matches = BatchedMatches(12, 3)
    matches.reset(4)
    for _ in range(9):
        matches.step(np.where(matches.done, -1, matches.mask.argmax(axis=1)))
    state, facts = matches.state, matches.facts
    for rows in (None, np.array([3, -1, 0, 3])):
        raw = observe(state, facts, rows, dtype=np.float32, backend="numpy")
        expected = scale_observations(raw, backend="numpy")
        got = observe(state, facts, rows, scaled=True, backend=how)
        assert got.dtype == np.float32
        assert np.array_equal(got, expected)
    if how == "c":
        with pytest.raises(ValueError, match="float32"):
            C.observe_into(state, facts, np.zeros((12, 375), np.int32), None, True)
