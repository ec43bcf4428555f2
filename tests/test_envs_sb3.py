"""The MaskablePPO adapter: american_sniff.envs.sb3 (needs only the rl extra)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("gymnasium")

import numpy as np
from gymnasium.utils.env_checker import check_env

from american_sniff.actions import NUM_ACTIONS, legal_actions
from american_sniff.envs.gymnasium import AmericanSniffGymEnv
from american_sniff.envs.sb3 import MaskableEnv, maskable_env, model_policy
from american_sniff.evaluation import evaluate
from american_sniff.observation import encode, scaled
from american_sniff.views import view_for


def test_gymnasium_check_env_passes_on_the_wrapper() -> None:
    """Gymnasium's checker accepts the flat observation space and its observations.

    (The checker plays unmasked random actions: illegal ones end the episode here.)
    """
    env = MaskableEnv(AmericanSniffGymEnv(3, opponent="random", scaled=True))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    # (Only its note that a wrapper is not the raw environment, which is the point here.)
    assert [str(w.message) for w in caught if "unwrapped" not in str(w.message)] == []


@pytest.mark.parametrize("players", [2, 4])
def test_observations_and_masks_follow_the_match(players: int) -> None:
    """Each observation is the seat's scaled view, and action_masks() its legal actions."""
    env = maskable_env(players=players, opponent="greedy")
    observation, _ = env.reset(seed=11)
    inner = env.unwrapped
    assert isinstance(inner, AmericanSniffGymEnv)
    generator = np.random.default_rng(3)
    for _ in range(300):
        state = inner.state_of_match
        assert state is not None
        mask = env.action_masks()
        assert mask.dtype == np.bool_
        assert mask.shape == (NUM_ACTIONS,)
        assert tuple(np.flatnonzero(mask)) == legal_actions(state)
        expected = np.array(scaled(encode(view_for(state, 0))), np.float32)
        np.testing.assert_array_equal(observation, expected)
        assert env.observation_space.contains(observation)
        action = int(generator.choice(np.flatnonzero(mask)))
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            assert not env.action_masks().any()
            observation, _ = env.reset(seed=12)


def test_action_masks_is_a_copy() -> None:
    """Changing the array returned does not change what the next call returns."""
    env = maskable_env(opponent="random")
    env.reset(seed=1)
    mask = env.action_masks()
    count = int(mask.sum())
    mask[:] = True
    assert int(env.action_masks().sum()) == count


def test_an_illegal_action_raises_under_the_helper() -> None:
    """maskable_env makes illegal actions raise: a masked agent never plays one."""
    env = maskable_env(opponent="random")
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(Exception, match="not legal"):
        env.step(illegal)


def test_the_wrapper_refuses_another_environment() -> None:
    """Only the library's Gymnasium environment is wrapped; bad options fail early."""
    with pytest.raises(TypeError, match="AmericanSniffGymEnv"):
        MaskableEnv(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="opponent"):
        maskable_env(opponent="nobody")


class FirstLegal:
    """A stand-in model with Stable-Baselines3's predict signature: the first legal action."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, bool]] = []

    def predict(
        self, observations: Any, *, action_masks: Any, deterministic: bool
    ) -> tuple[Any, None]:
        """The first legal action of each row."""
        self.calls.append((observations.shape, deterministic))
        return action_masks.argmax(axis=1), None


def test_model_policy_asks_predict_with_the_masks() -> None:
    """model_policy passes the observations and masks to predict, batched, and plays its choice."""
    model = FirstLegal()
    policy = model_policy(model, deterministic=False)
    masks = np.zeros((3, NUM_ACTIONS), bool)
    masks[0, 5] = masks[1, 448] = masks[2, 30] = masks[2, 40] = True
    actions = policy(np.zeros((3, 375)), masks)
    assert actions.tolist() == [5, 448, 30]
    assert model.calls == [((3, 375), False)]
    result = evaluate(model_policy(model), "random", deals=2, seed=3, scaled=True)
    assert result.matches == 4
    assert all(deterministic for _, deterministic in model.calls[1:])


def test_model_policy_refuses_what_cannot_predict() -> None:
    """A model without predict is a TypeError, at once."""
    with pytest.raises(TypeError, match="predict"):
        model_policy(object())
