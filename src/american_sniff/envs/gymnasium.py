"""A Gymnasium environment: one seat of a match, the other seats played by the library's bots.

Needs the ``rl`` extra (``pip install 'american-sniff[rl]'``).

>>> from american_sniff.envs.gymnasium import AmericanSniffGymEnv
>>> env = AmericanSniffGymEnv(players=2, opponent="greedy")
>>> observation, info = env.reset(seed=7)
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((375,), 6)

Importing the module also registers it with Gymnasium as :data:`ENV_ID`:
``gymnasium.make("AmericanSniff-v0", players=4, opponent="search")``.

The agent plays seat ``seat`` (0 by default) of a match for ``players``
players; every other seat is a bot made by
:func:`~american_sniff.make_bot` from ``opponent`` (``"random"``,
``"greedy"`` or ``"search"``) and ``opponent_options`` (for example
``{"playouts": 8}``). The bot at seat ``k`` is seeded with ``(seed + k + 1)
% 2**64``, ``seed`` being the match's seed. With 4 players, the seat
opposite the agent is its partner (a bot).

**A step** is one action of the agent (an integer of
:mod:`american_sniff.actions`), followed by the bots' actions up to the
agent's next turn or the end of the match. Observations and seeding are as
in :mod:`american_sniff.envs.pettingzoo`: a dict of ``"observation"`` and
``"action_mask"`` (the observation scaled with ``scaled=True``), and
``reset(seed=s)`` plays ``new_match(players, seed=s)``. The mask is also in
``info["action_mask"]``.

**The reward** is the agent's, as :mod:`american_sniff.envs.rewards` says, for
everything that happened during the step: ``"outcome"`` gives +1 or -1 when
the match ends, ``"points"`` the change of the agent's side's score.

**An illegal action**, with ``illegal_action="lose"`` (the default; a random
agent that ignores the mask still gets episodes), ends the episode with
reward -1 and ``info["illegal_action"]`` True; with ``"raise"`` it raises
:class:`~american_sniff.IllegalMove`. An action outside 0..449 raises
:class:`ValueError`. ``max_steps`` truncates an episode after that many
steps of the agent. Once an episode has ended, ``step`` raises
:class:`RuntimeError` until ``reset``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np

from ..actions import NUM_ACTIONS, legal_action_moves, legal_actions
from ..bots import BOTS, Bot, make_bot
from ..engine import apply, new_match
from ..moves import Move
from ..observation import RoundFacts
from ..rng import MASK64
from ..rules import side_of
from ..state import MatchState, check_seat
from ..views import view_for
from .pettingzoo import (
    action_of_input,
    checked_options,
    encoded,
    observation_space,
    raise_if_raising,
    rendered,
)
from .rewards import check_choice, match_seed, rewards

__all__ = ["ENV_ID", "AmericanSniffGymEnv"]

#: The id this environment is registered under: ``gymnasium.make(ENV_ID, players=4)``.
ENV_ID = "AmericanSniff-v0"


class AmericanSniffGymEnv(gymnasium.Env[dict[str, Any], Any]):
    """One seat against the library's bots, as a Gymnasium environment (see the module).

    :ivar players: The number of players (2, 3 or 4).
    :ivar seat: The agent's seat.
    :ivar opponent: The kind of bot at every other seat (a key of
        :data:`~american_sniff.bots.BOTS`).
    :ivar opponent_options: Options for those bots (see :func:`~american_sniff.make_bot`).
    :ivar reward: ``"outcome"`` or ``"points"``.
    :ivar illegal_action: ``"lose"`` or ``"raise"``.
    :ivar max_steps: The agent's steps after which an episode is truncated, or None.
    :ivar render_mode: ``"ansi"``, ``"human"`` or None.
    :ivar scaled: Whether the observations are scaled
        (:func:`~american_sniff.observation.scaled`, the library's one scaling).
    :ivar state_of_match: The engine's state of the match, or None before the first reset.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(  # noqa: PLR0913 (the options are keyword-only, each with a default)
        self,
        players: int = 2,
        *,
        seat: int = 0,
        opponent: str = "greedy",
        opponent_options: Mapping[str, Any] | None = None,
        reward: str = "outcome",
        illegal_action: str = "lose",
        max_steps: int | None = None,
        render_mode: str | None = None,
        scaled: bool = False,
    ) -> None:
        options = checked_options(
            players,
            reward=reward,
            illegal_action=illegal_action,
            max_steps=max_steps,
            render_mode=render_mode,
            scaled=scaled,
            render_modes=tuple(self.metadata["render_modes"]),
        )
        check_seat(players, seat)
        check_choice("opponent", opponent, tuple(BOTS))
        self.players = players
        self.seat = seat
        self.opponent = opponent
        self.opponent_options = dict(opponent_options or {})
        make_bot(opponent, **self.opponent_options)  # refuses bad options now, not at reset
        self.reward, self.illegal_action, self.max_steps, self.render_mode, self.scaled = options
        self.observation_space = observation_space(scaled=scaled)
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.state_of_match: MatchState | None = None
        self._bots: list[Bot] = []
        self._facts = RoundFacts(1, (0,) * players, (0,) * players)  # the round's public facts
        self._steps = 0
        self._over = False  # the episode has ended (terminated or truncated)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a new match and let the bots play up to the agent's first turn."""
        super().reset(seed=seed)
        number = match_seed(seed) if seed is not None else int(self.np_random.integers(0, 2**63))
        self._bots = [
            make_bot(self.opponent, seed=(number + k + 1) & MASK64, **self.opponent_options)
            for k in range(self.players)
        ]
        self._steps = 0
        self._over = False
        state = new_match(self.players, seed=number)
        self._facts = RoundFacts.start(state)
        self.state_of_match = self._play_bots(state)
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """The agent plays ``action``; the bots play until its next turn (see the module)."""
        state = self.state_of_match
        if state is None:
            raise RuntimeError("call reset() before step()")
        if self._over:
            raise RuntimeError("the episode is over: call reset() to start another")
        number = action_of_input(action)
        move = dict(legal_action_moves(state)).get(number)
        if move is None:
            raise_if_raising(self.illegal_action, state, number)
            self._over = True
            return self._observe(), -1.0, True, False, {**self._info(), "illegal_action": True}
        after = self._play_bots(self._apply(state, move))
        self.state_of_match = after
        self._steps += 1
        reward = rewards(self.reward, state, after)[self.seat]
        terminated = after.winner is not None
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        if self.render_mode == "human":
            self.render()
        self._over = terminated or truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        """The table and the scores as text (as in :mod:`american_sniff.envs.pettingzoo`)."""
        return rendered(self.render_mode, self.state_of_match)

    def _play_bots(self, state: MatchState) -> MatchState:
        """``state`` after the bots' actions up to the agent's turn or the end of the match."""
        while state.winner is None and state.turn != self.seat:
            seat = state.turn
            state = self._apply(state, self._bots[seat].choose(view_for(state, seat)))
        return state

    def _apply(self, state: MatchState, move: Move) -> MatchState:
        """``apply(state, move)``, with the round's facts kept up to date."""
        after = apply(state, move)
        self._facts = self._facts.after(state, move, after)
        return after

    def _observe(self) -> dict[str, np.ndarray]:
        assert self.state_of_match is not None
        return encoded(self.state_of_match, self.seat, self._facts, scaled=self.scaled)

    def _info(self) -> dict[str, Any]:
        state = self.state_of_match
        assert state is not None
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if state.winner is None:
            mask[list(legal_actions(state))] = 1
        return {
            "action_mask": mask,
            "side": side_of(self.players, self.seat),
            "scores": state.scores,
        }


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point=f"{__name__}:AmericanSniffGymEnv")
