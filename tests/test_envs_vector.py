"""The Gymnasium vector environment (american_sniff.envs.vector), on both kernels."""

from __future__ import annotations

import copy
import importlib.util
import random
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

from american_sniff import MatchState, apply, new_match, view_for  # noqa: E402
from american_sniff.actions import action_mask, legal_actions, move_of  # noqa: E402
from american_sniff.batch import BACKENDS  # noqa: E402
from american_sniff.envs.rewards import rewards  # noqa: E402
from american_sniff.envs.vector import AmericanSniffVectorEnv  # noqa: E402
from american_sniff.observation import encode  # noqa: E402
from american_sniff.rules import side_of  # noqa: E402

KERNELS = [
    "python",
    pytest.param("c", marks=pytest.mark.skipif("c" not in BACKENDS, reason="no C kernel")),
]


def hashing_policy(observations: Any, masks: Any) -> Any:
    """A deterministic policy that looks: the legal action ranked by the observation's sum."""
    counts = masks.sum(axis=1)
    rank = np.asarray(observations, np.int64).sum(axis=1) % np.maximum(counts, 1)
    order = np.cumsum(masks, axis=1)
    return np.argmax(masks & (order == (rank + 1)[:, None]), axis=1)


def one_row(state: MatchState) -> tuple[Any, Any]:
    """The observation and mask of the seat to move, as the policies are given them."""
    observation = np.array([encode(view_for(state, state.turn))])
    return observation, np.array([action_mask(state)], bool)


def opponents_play(state: MatchState, seat: int, kind: str) -> tuple[MatchState, float]:
    """``state`` after the hashing opponents' actions up to ``seat``'s turn, and its reward."""
    total = 0.0
    while state.winner is None and state.turn != seat:
        action = int(hashing_policy(*one_row(state))[0])
        after = apply(state, move_of(state, action))
        total += rewards(kind, state, after)[seat]
        state = after
    return state, total


@pytest.mark.sweep
@pytest.mark.parametrize("backend", KERNELS)
@pytest.mark.parametrize(("players", "kind"), [(2, "outcome"), (3, "points"), (4, "points")])
def test_lockstep_with_apply(backend: str, players: int, kind: str) -> None:
    """Observations, masks, rewards and flags equal a reference played by apply, slot by slot.

    The learner plays seat ``i % players`` of slot ``i``, so every seat is
    tried; a deterministic policy that reads the observations plays the others.
    """
    n = 4
    seats = [i % players for i in range(n)]
    env = AmericanSniffVectorEnv(
        n, players, opponent=hashing_policy, seat=seats, reward=kind, backend=backend
    )
    observations, infos = env.reset(seed=[21, 22, 23, 24])
    states = [opponents_play(new_match(players, seed=21 + i), seats[i], kind)[0] for i in range(n)]
    chooser = random.Random(players)
    compared = ended = 0
    live = [True] * n
    for _ in range(60 if backend == "python" else 300):
        for i in range(n):
            if live[i]:
                state = states[i]
                expected = encode(view_for(state, seats[i]))
                assert observations[i].tolist() == [float(x) for x in expected]
                if state.winner is None:
                    assert infos["action_mask"][i].astype(int).tolist() == list(action_mask(state))
                compared += 1
        actions = np.array(
            [chooser.choice(legal_actions(s)) if s.winner is None else 0 for s in states]
        )
        observations, got, terminated, truncated, infos = env.step(actions)
        assert not truncated.any()
        for i in range(n):
            if not live[i]:
                continue
            state = states[i]
            after = apply(state, move_of(state, int(actions[i])))
            reward = rewards(kind, state, after)[seats[i]]
            after, more = opponents_play(after, seats[i], kind)
            assert got[i] == reward + more
            assert bool(terminated[i]) == (after.winner is not None)
            if terminated[i]:
                if kind == "outcome":
                    assert got[i] == (1.0 if after.winner == side_of(players, seats[i]) else -1.0)
                live[i] = False
                ended += 1
            states[i] = after
    assert compared > 100
    if backend == "c":
        assert ended > 0


@pytest.mark.parametrize("backend", KERNELS)
def test_next_step_autoreset(backend: str) -> None:
    """After an episode ends, the next step ignores that slot's action and starts a new match."""
    env = AmericanSniffVectorEnv(3, 2, opponent=hashing_policy, max_steps=2, backend=backend)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    observations, infos = env.reset(seed=5)
    first = env.seeds.tolist()
    assert first == [5, 6, 7]
    for _ in range(2):
        _, _, terminated, truncated, infos = env.step(infos["action_mask"].argmax(axis=1))
    assert truncated.all()
    assert not terminated.any()
    junk = np.zeros(3, np.int64)  # ignored: every slot is being reset
    observations, r, terminated, truncated, infos = env.step(junk)
    assert not (terminated | truncated | infos["illegal_action"]).any()
    assert r.tolist() == [0.0, 0.0, 0.0]
    assert env.seeds.tolist() != first
    for i, seed in enumerate(env.seeds.tolist()):
        state, _ = opponents_play(new_match(2, seed=seed), 0, "outcome")
        assert observations[i].tolist() == [float(x) for x in encode(view_for(state, 0))]
        assert infos["action_mask"][i].astype(int).tolist() == list(action_mask(state))


@pytest.mark.parametrize("backend", KERNELS)
def test_same_step_autoreset(backend: str) -> None:
    """SAME_STEP: an episode's last step returns the next one's start, its end in final_obs."""
    env = AmericanSniffVectorEnv(
        2, 2, max_steps=1, autoreset_mode=AutoresetMode.SAME_STEP, backend=backend
    )
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    observations, infos = env.reset(seed=9)
    observations, _, _, truncated, infos = env.step(infos["action_mask"].argmax(axis=1))
    assert truncated.all()
    assert infos["_final_obs"].tolist() == [True, True]
    assert infos["final_obs"].shape == (2, 375)
    # The new episodes start at round 1 with no action applied by the learner yet.
    assert infos["action_mask"].any(axis=1).all()
    assert not np.array_equal(infos["final_obs"], observations)


@pytest.mark.parametrize("backend", KERNELS)
def test_gymnasium_checks_that_apply(backend: str) -> None:
    """Spaces hold the data; reset and step are deterministic by seed; data is never reused."""

    def make() -> AmericanSniffVectorEnv:
        return AmericanSniffVectorEnv(4, 4, seat=1, backend=backend)

    env, twin = make(), make()
    observations, infos = env.reset(seed=3)
    again, twin_infos = twin.reset(seed=3)
    assert env.observation_space.contains(observations)
    assert data_equivalence((observations, infos), (again, twin_infos), exact=True)
    kept = observations.copy()
    for _ in range(20):
        actions = np.asarray(infos["action_mask"].argmax(axis=1))
        assert env.action_space.contains(actions)
        step = env.step(actions)
        assert data_equivalence(step, twin.step(actions), exact=True)
        observations, reward, terminated, truncated, infos = step
        assert env.observation_space.contains(observations)
        assert reward.shape == terminated.shape == truncated.shape == (4,)
    assert np.array_equal(kept, again)  # the first observations were not overwritten
    # A Gymnasium vector wrapper that needs the autoreset metadata accepts it.
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(make())
    observations, infos = wrapped.reset(seed=1)
    for _ in range(3):
        observations, *_, infos = wrapped.step(infos["action_mask"].argmax(axis=1))
    env.close()


@pytest.mark.parametrize("backend", KERNELS)
def test_illegal_actions(backend: str) -> None:
    """An illegal action loses (-1, terminated) or raises; an action out of range always raises."""
    env = AmericanSniffVectorEnv(2, 2, backend=backend)
    _, infos = env.reset(seed=4)
    mask = infos["action_mask"]
    bad = np.array([int(np.flatnonzero(~mask[0])[0]), mask[1].argmax()])
    _, r, terminated, _, infos = env.step(bad)
    assert terminated.tolist() == [True, False]
    assert r[0] == -1.0
    assert infos["illegal_action"].tolist() == [True, False]
    with pytest.raises(ValueError, match="from 0 to 449"):
        env.step(np.array([0, 450]))  # (slot 0 is being reset, its action ignored)
    with pytest.raises(ValueError, match="integers"):
        env.step(np.array([0.0, 1.0]))
    strict = AmericanSniffVectorEnv(2, 2, illegal_action="raise", backend=backend)
    _, infos = strict.reset(seed=4)
    with pytest.raises(ValueError, match="not legal in slot 0"):
        strict.step(bad)


@pytest.mark.parametrize("backend", KERNELS)
def test_a_frozen_copy_of_the_learner_as_opponent(backend: str) -> None:
    """set_opponent swaps the policy; a deep copy keeps playing as the learner did when copied."""

    class Linear:
        def __init__(self) -> None:
            self.weights = np.zeros((375, 450))

        def __call__(self, observations: Any, masks: Any) -> Any:
            return np.where(masks, observations @ self.weights, -np.inf).argmax(axis=1)

    learner = Linear()
    env = AmericanSniffVectorEnv(4, 2, opponent=copy.deepcopy(learner), backend=backend)
    observations, infos = env.reset(seed=1)
    learner.weights[:] = 1.0  # the learner changes; its frozen copy does not
    assert not env.opponent.weights.any()  # type: ignore[union-attr]
    env.set_opponent(copy.deepcopy(learner))
    assert env.opponent.weights.all()  # type: ignore[union-attr]
    observations, *_ = env.step(learner(observations, infos["action_mask"]))
    assert observations.shape == (4, 375)
    with pytest.raises(TypeError, match="callable"):
        env.set_opponent("greedy")  # type: ignore[arg-type]


def test_a_bad_opponent_is_named() -> None:
    """An opponent that returns an illegal action, or the wrong count, gets a clear error."""
    env = AmericanSniffVectorEnv(2, 2, seat=1, opponent=lambda o, m: np.full(len(m), 449))
    with pytest.raises(ValueError, match="the opponent chose action 449"):
        env.reset(seed=1)
    env = AmericanSniffVectorEnv(2, 2, seat=1, opponent=lambda o, m: np.zeros(len(m) + 1, int))
    with pytest.raises(ValueError, match=r"the opponent must return \d integer actions"):
        env.reset(seed=1)


def test_misuse_is_refused() -> None:
    """Bad options and calls out of order get clear errors."""
    with pytest.raises(ValueError, match="opponent"):
        AmericanSniffVectorEnv(2, opponent="greedy")
    with pytest.raises(ValueError, match="one seat a slot"):
        AmericanSniffVectorEnv(2, seat=[0])
    with pytest.raises(ValueError, match="seat"):
        AmericanSniffVectorEnv(2, seat=2)
    with pytest.raises(ValueError, match="reward"):
        AmericanSniffVectorEnv(2, reward="money")
    with pytest.raises(ValueError, match="max_steps"):
        AmericanSniffVectorEnv(2, max_steps=0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        AmericanSniffVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(RuntimeError, match="reset"):
        AmericanSniffVectorEnv(2).step(np.array([0, 0]))


def test_the_selfplay_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/examples/selfplay.py trains for its seconds and prints the evaluations."""
    path = Path(__file__).parent.parent / "docs" / "examples" / "selfplay.py"
    spec = importlib.util.spec_from_file_location("selfplay", path)
    assert spec is not None
    assert spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    arguments = ["--seconds", "0.5", "--envs", "8", "--horizon", "4", "--deals", "1"]
    assert example.main(arguments) == 0
    out = capsys.readouterr().out
    assert "before, against random: a won" in out
    assert "after, against greedy: a won" in out
    assert "trained: " in out


class _Recorder:
    """A policy that plays each row's first legal action and records what it is shown."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def __call__(self, observations: Any, masks: Any) -> Any:
        self.seen.append(np.array(observations, copy=True))
        return np.argmax(masks, axis=1)


@pytest.mark.parametrize("backend", KERNELS)
def test_scaled_observations(backend: str) -> None:
    """scaled=True scales the learner's and the opponent's observations, and nothing else.

    Two environments on the same seed, one scaled, play the same matches; every
    observation of the scaled one is scale_observations of the other's, and the
    observation space has the scaled bounds.
    """
    from american_sniff.batch.observe import scale_observations
    from american_sniff.observation import SCALED_BOUNDS

    raw_opponent, scaled_opponent = _Recorder(), _Recorder()
    raw = AmericanSniffVectorEnv(6, 2, opponent=raw_opponent, backend=backend)
    scaled = AmericanSniffVectorEnv(6, 2, opponent=scaled_opponent, backend=backend, scaled=True)
    space = scaled.single_observation_space
    assert isinstance(space, gymnasium.spaces.Box)
    assert space.high.tolist() == list(np.array(SCALED_BOUNDS[1], np.float32))
    (x, infos), (y, _) = raw.reset(seed=4), scaled.reset(seed=4)
    for _ in range(40):
        assert (scale_observations(x) == y).all()
        assert scaled.single_observation_space.contains(y[0])
        actions = np.argmax(infos["action_mask"], axis=1)
        x, r1, _, _, infos = raw.step(actions)
        y, r2, _, _, _ = scaled.step(actions)
        assert (r1 == r2).all()
    assert len(raw_opponent.seen) == len(scaled_opponent.seen) > 0
    for a, b in zip(raw_opponent.seen, scaled_opponent.seen, strict=True):
        assert (scale_observations(a) == b).all()
    with pytest.raises(ValueError, match="scaled"):
        AmericanSniffVectorEnv(2, 2, scaled=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", KERNELS)
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_copy_false_returns_its_own_array_with_the_same_numbers(backend: str, mode: Any) -> None:
    """copy=False: one array, written again each call, with copy=True's numbers; final_obs fresh."""
    options: dict[str, Any] = {
        "opponent": hashing_policy,
        "max_steps": 3,
        "autoreset_mode": mode,
        "backend": backend,
        "scaled": True,
    }
    fresh = AmericanSniffVectorEnv(6, 4, **options)
    own = AmericanSniffVectorEnv(6, 4, copy=False, **options)
    assert fresh.copy
    assert not own.copy
    expected, expected_infos = fresh.reset(seed=5)
    got, infos = own.reset(seed=5)
    array = got
    assert np.array_equal(got, expected)
    for step in range(12):
        actions = hashing_policy(expected, expected_infos["action_mask"])
        expected, _, _, _, expected_infos = fresh.step(actions)
        got, _, _, _, infos = own.step(actions)
        assert got is array, step  # the same memory each step
        assert np.array_equal(got, expected), step
        assert infos["action_mask"] is own.matches.mask
        assert np.array_equal(infos["action_mask"], expected_infos["action_mask"])
        if "final_obs" in expected_infos:
            assert infos["final_obs"] is not array
            assert np.array_equal(infos["final_obs"], expected_infos["final_obs"])


def test_copy_must_be_a_bool() -> None:
    """copy=1 is refused with the option's name."""
    with pytest.raises(ValueError, match="copy must be True or False"):
        AmericanSniffVectorEnv(2, 2, copy=1)  # type: ignore[arg-type]
