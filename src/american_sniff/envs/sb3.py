"""An adapter for sb3-contrib's ``MaskablePPO``: one seat against the bots, with ``action_masks()``.

Needs the ``rl`` extra; the adapter itself imports neither PyTorch nor
Stable-Baselines3 (training with them needs the ``learn`` extra,
``pip install 'american-sniff[learn]'``, see docs/ai.md).

sb3-contrib's ``MaskablePPO`` wants a flat observation and asks the
environment for the legal actions through a method, ``action_masks()``.
:class:`MaskableEnv` wraps an
``AmericanSniffGymEnv`` (``american_sniff.envs.gymnasium``) to give both: its
observation is the wrapped environment's ``"observation"`` entry alone (a
``Box`` of 375 ``float32``), and ``action_masks()`` is the current legal-action
mask as 450 booleans. :func:`maskable_env` makes one with the observations
scaled (:func:`~american_sniff.observation.scaled`, the library's one
scaling, which every example uses).

>>> env = maskable_env(players=2, opponent="random")
>>> observation, info = env.reset(seed=7)
>>> observation.shape, observation.dtype.name, int(env.action_masks().sum())
((375,), 'float32', 4)
>>> observation, reward, terminated, truncated, info = env.step(
...     int(env.action_masks().argmax())
... )
>>> observation.shape, env.action_masks().dtype.name
((375,), 'bool')

A trained model plays in the evaluation harness, or as the vector
environment's opponent, through :func:`model_policy`, which turns anything
with Stable-Baselines3's ``predict(observations, action_masks=...,
deterministic=...)`` into a batched policy:

    from american_sniff.evaluation import evaluate
    evaluate(model_policy(model), "greedy", deals=200, scaled=True)

Give the harness ``scaled=True`` for a model trained on :func:`maskable_env`'s
scaled observations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np

from ..actions import NUM_ACTIONS
from .batched import Policy
from .gymnasium import AmericanSniffGymEnv
from .pettingzoo import observation_space

__all__ = ["MaskableEnv", "maskable_env", "model_policy"]


class MaskableEnv(gymnasium.Wrapper[Any, Any, Any, Any]):
    """A Gymnasium environment of the library with a flat observation and ``action_masks()``.

    It wraps an ``AmericanSniffGymEnv`` (``american_sniff.envs.gymnasium``).

    The observation space is the wrapped environment's ``"observation"``
    space; the action space is unchanged (``Discrete(450)``). After each
    ``reset`` and ``step``, :meth:`action_masks` is the mask of the legal
    actions (all False once the episode has ended).

    :raises TypeError: if ``env`` is not an ``AmericanSniffGymEnv``.
    """

    def __init__(self, env: AmericanSniffGymEnv) -> None:
        if not isinstance(env, AmericanSniffGymEnv):
            raise TypeError(f"MaskableEnv wraps an AmericanSniffGymEnv, got {env!r}")
        super().__init__(env)
        self.observation_space = observation_space(scaled=env.scaled)["observation"]
        self._mask = np.zeros(NUM_ACTIONS, dtype=bool)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a new match (see the wrapped environment); the observation alone, flat."""
        observation, info = self.env.reset(seed=seed, options=options)
        self._mask = observation["action_mask"].astype(bool)
        return observation["observation"], info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play ``action`` (see the wrapped environment); the observation alone, flat."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._mask = observation["action_mask"].astype(bool)
        if terminated or truncated:
            self._mask[:] = False
        return observation["observation"], float(reward), terminated, truncated, info

    def action_masks(self) -> Any:
        """The legal actions now, as a (450,) ``bool`` array (a copy)."""
        return self._mask.copy()


def maskable_env(
    players: int = 2,
    *,
    opponent: str = "greedy",
    opponent_options: Mapping[str, Any] | None = None,
    reward: str = "outcome",
    max_steps: int | None = None,
) -> MaskableEnv:
    """A :class:`MaskableEnv` on ``AmericanSniffGymEnv(players, scaled=True, ...)``.

    The options are the wrapped environment's; illegal actions raise
    (``illegal_action="raise"``), since a masked agent never chooses one.

    :raises ValueError: for an option the environment refuses.
    """
    return MaskableEnv(
        AmericanSniffGymEnv(
            players,
            opponent=opponent,
            opponent_options=opponent_options,
            reward=reward,
            illegal_action="raise",
            max_steps=max_steps,
            scaled=True,
        )
    )


def model_policy(model: Any, *, deterministic: bool = True) -> Policy:
    """A batched policy that asks ``model.predict`` (a Stable-Baselines3 model, say).

    The policy takes ``(observations, masks)``, an (M, 375) array and an
    (M, 450) mask array, and returns M actions: what
    ``model.predict(observations, action_masks=masks,
    deterministic=deterministic)`` chooses. It suits
    :func:`~american_sniff.evaluation.evaluate` and the vector environment's
    ``opponent``.

    :raises TypeError: if ``model`` has no callable ``predict``.
    """
    predict = getattr(model, "predict", None)
    if not callable(predict):
        raise TypeError(f"a model has a predict method, got {model!r}")

    def policy(observations: Any, masks: Any) -> Any:
        actions, _ = predict(
            np.asarray(observations, np.float32),
            action_masks=np.asarray(masks, bool),
            deterministic=deterministic,
        )
        return np.asarray(actions).reshape(-1)

    return policy
