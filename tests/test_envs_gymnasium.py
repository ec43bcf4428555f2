"""The Gymnasium environment: american_sniff.envs.gymnasium."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("gymnasium")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

from american_sniff import IllegalMove, apply, make_bot, new_match, view_for
from american_sniff.actions import NUM_ACTIONS, legal_actions, move_of
from american_sniff.envs.gymnasium import ENV_ID, AmericanSniffGymEnv
from american_sniff.observation import encode, scaled


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_gymnasium_check_env(
    players: int, opponent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gymnasium's own environment checker passes, with no warning, for 2, 3 and 4 players."""
    env = gymnasium.make(ENV_ID, players=players, opponent=opponent, render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    capsys.readouterr()  # the checker renders in "human" mode too


def test_the_bots_play_the_other_seats_as_the_library_does() -> None:
    """The episode is the match the bots and the agent's moves make, seeded as documented."""
    env = AmericanSniffGymEnv(players=3, seat=1, opponent="greedy")
    observation, info = env.reset(seed=21)
    state = new_match(3, seed=21)
    bots = [make_bot("greedy", seed=21 + k + 1) for k in range(3)]
    rng = np.random.default_rng(0)
    terminated = False
    total = 0.0
    while not terminated:
        while state.winner is None and state.turn != 1:
            state = apply(state, bots[state.turn].choose(view_for(state, state.turn)))
        assert env.state_of_match == state
        assert tuple(np.flatnonzero(info["action_mask"])) == legal_actions(state)
        assert np.array_equal(info["action_mask"], observation["action_mask"])
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        state = apply(state, move_of(state, action))
        observation, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        total += reward
    while state.winner is None:
        state = apply(state, bots[state.turn].choose(view_for(state, state.turn)))
    assert env.state_of_match == state
    assert total == (1.0 if state.winner == 1 else -1.0)


def test_points_reward_and_the_partner() -> None:
    """With 4 players and reward="points", the rewards add up to the partnership's score."""
    env = AmericanSniffGymEnv(players=4, seat=2, opponent="random", reward="points")
    observation, info = env.reset(seed=4)
    total, terminated = 0.0, False
    while not terminated:
        action = int(np.flatnonzero(observation["action_mask"])[0])
        observation, reward, terminated, _, info = env.step(action)
        total += reward
    assert env.state_of_match is not None
    assert total == env.state_of_match.scores[0] == info["scores"][0]
    assert info["side"] == 0


def test_illegal_actions() -> None:
    """An illegal action loses the episode by default, or raises; junk is a ValueError."""
    env = AmericanSniffGymEnv(players=2)
    _, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(bad)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = AmericanSniffGymEnv(players=2, illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalMove, match="is not legal"):
        strict.step(bad)
    with pytest.raises(ValueError, match="an action is an integer"):
        strict.step(NUM_ACTIONS)


def test_misuse_is_refused() -> None:
    """Bad options, a step before reset and a step after the end get clear errors."""
    with pytest.raises(ValueError, match="opponent must be one of"):
        AmericanSniffGymEnv(opponent="strong")
    with pytest.raises(TypeError, match="does not take these options"):
        AmericanSniffGymEnv(opponent="greedy", opponent_options={"playouts": 3})
    with pytest.raises(ValueError, match="seat must be an integer from 0 to 1"):
        AmericanSniffGymEnv(players=2, seat=2)
    with pytest.raises(RuntimeError, match="call reset"):
        AmericanSniffGymEnv().step(0)
    env = AmericanSniffGymEnv(players=2, max_steps=2)
    observation, _ = env.reset(seed=3)
    for step in range(2):
        observation, _, terminated, truncated, _ = env.step(
            int(np.flatnonzero(observation["action_mask"])[0])
        )
        assert truncated == (step == 1)
    env = AmericanSniffGymEnv(players=2)
    _, info = env.reset(seed=3)
    _, _, terminated, _, _ = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert terminated
    with pytest.raises(RuntimeError, match="the episode is over: call reset"):
        env.step(0)


def test_search_bots_as_opponents() -> None:
    """The search bot can play the other seats, with its options."""
    env = AmericanSniffGymEnv(players=2, opponent="search", opponent_options={"playouts": 2})
    observation, _ = env.reset(seed=5)
    observation, *_ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert observation["observation"].shape == (375,)


@pytest.mark.parametrize("players", [2, 4])
def test_every_observation_is_the_encoded_view(players: int) -> None:
    """The agent's observation after the bots' moves is encode(view_for) of its seat, every step."""
    env = AmericanSniffGymEnv(players=players, seat=1, opponent="random")
    rng = np.random.default_rng(players)
    observation, _ = env.reset(seed=9)
    terminated = truncated = False
    steps = 0
    while not (terminated or truncated):
        state = env.state_of_match
        assert state is not None
        expected = np.array(encode(view_for(state, 1)), dtype=np.float32)
        np.testing.assert_array_equal(observation["observation"], expected)
        legal = np.flatnonzero(observation["action_mask"])
        observation, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    expected = np.array(encode(view_for(env.state_of_match, 1)), dtype=np.float32)  # type: ignore[arg-type]
    np.testing.assert_array_equal(observation["observation"], expected)
    assert steps > 20


def test_scaled_observations() -> None:
    """With scaled=True the observation is float32(scaled(encode(view_for))), within its space."""
    env = AmericanSniffGymEnv(players=3, seat=2, opponent="random", scaled=True)
    rng = np.random.default_rng(3)
    observation, _ = env.reset(seed=5)
    for _ in range(30):
        state = env.state_of_match
        assert state is not None
        expected = np.array(scaled(encode(view_for(state, 2))), dtype=np.float32)
        np.testing.assert_array_equal(observation["observation"], expected)
        assert env.observation_space.contains(observation)
        legal = np.flatnonzero(observation["action_mask"])
        observation, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        if terminated or truncated:
            break
    with pytest.raises(ValueError, match="scaled"):
        AmericanSniffGymEnv(scaled="yes")  # type: ignore[arg-type]
