"""A PettingZoo AEC environment: one match of American Sniff for 2, 3 or 4 agents.

Needs the ``rl`` extra (``pip install 'american-sniff[rl]'``).

>>> from american_sniff.envs.pettingzoo import AmericanSniffEnv
>>> env = AmericanSniffEnv(players=4)
>>> env.reset(seed=7)
>>> observation, reward, terminated, truncated, info = env.last()
>>> env.agent_selection, observation["observation"].shape, int(observation["action_mask"].sum())
('player_3', (375,), 5)

**Agents** are ``"player_0"`` to ``"player_{n-1}"``, agent ``player_k`` at
seat ``k``; the agent to act is the seat to move, so one agent acts several
times in a row when it draws. With 4 players, ``player_0`` and ``player_2`` are
partners against ``player_1`` and ``player_3``.

**Observations** are dicts: ``"observation"``, the 375 numbers of
:func:`american_sniff.observation.encode` (as ``float32``) for the agent's
own view (scaled by :func:`american_sniff.observation.scaled` with
``scaled=True``), and ``"action_mask"``, 450 ``int8`` flags of
:func:`american_sniff.actions.action_mask` (all 0 when the agent is not to
move). **Actions** are the integers of :mod:`american_sniff.actions`.

**Rewards** are those of :mod:`american_sniff.envs.rewards`: ``reward="outcome"``
(the default: +1 to the winning side's agents, -1 to the others, at the end)
or ``reward="points"``.

**An illegal action** (one the mask forbids): with ``illegal_action="lose"``
(the default, as PettingZoo's classic games do) it ends the episode, -1 to the
agent that made it and 0 to the others, and ``infos[agent]["illegal_action"]``
is True; with ``illegal_action="raise"`` it raises
:class:`~american_sniff.IllegalMove` and changes nothing. An action that is not
an integer from 0 to 449 always raises :class:`ValueError`.

**Seeding.** ``reset(seed=s)`` plays the match ``new_match(players, seed=s)``
and seeds the environment's generator with ``s``; a ``reset()`` without a seed
plays a match whose seed that generator draws. So the same seeds give the
same episodes everywhere.

**Episodes** end when a side wins the match (every agent is terminated), or
are truncated after ``max_steps`` actions if that is given.

``render()`` draws the table with :func:`american_sniff.render.render_text`,
the scores, the hand sizes and the stock: ``render_mode="ansi"`` returns the
text, ``"human"`` prints it.
"""

from __future__ import annotations

import array
from collections.abc import Mapping
from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from ..actions import NUM_ACTIONS, legal_action_moves, move_of
from ..engine import apply, new_match
from ..moves import Move
from ..observation import (
    OBSERVATION_BOUNDS,
    OBSERVATION_SIZE,
    SCALED_BOUNDS,
    RoundFacts,
    encode_list,
)
from ..observation import scaled as scale
from ..render import render_text
from ..rules import PLAYER_COUNTS
from ..state import MatchState
from .rewards import REWARDS, check_choice, match_seed, rewards

__all__ = [
    "ILLEGAL_ACTIONS",
    "AmericanSniffEnv",
    "action_of_input",
    "encoded",
    "env",
    "observation_space",
    "render_state",
]

#: The ways an illegal action may be dealt with: ``"lose"`` or ``"raise"``.
ILLEGAL_ACTIONS = ("lose", "raise")


def observation_space(*, scaled: bool = False) -> gymnasium.spaces.Dict:
    """The space of one agent's observations: the encoded view and the action mask.

    With ``scaled``, the observation's bounds are the scaled ones
    (:data:`~american_sniff.observation.SCALED_BOUNDS`).
    """
    # The unbounded entries (the scores, the round) span float32's range.
    largest = float(np.finfo(np.float32).max)
    low, high = (
        np.clip(np.array(bound), -largest, largest).astype(np.float32)
        for bound in (SCALED_BOUNDS if scaled else OBSERVATION_BOUNDS)
    )
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(low, high, (OBSERVATION_SIZE,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )


def action_of_input(action: object) -> int:
    """``action`` as a Python int, if it is an integer from 0 to 449 (numpy integers too).

    :raises ValueError: otherwise.
    """
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, int | np.integer) and not isinstance(action, bool):
        value = int(action)
        if 0 <= value < NUM_ACTIONS:
            return value
    raise ValueError(f"an action is an integer from 0 to {NUM_ACTIONS - 1}, got {action!r}")


def encoded(
    state: MatchState,
    seat: int,
    facts: RoundFacts | None = None,
    legal: Mapping[int, Move] | None = None,
    *,
    scaled: bool = False,
) -> dict[str, np.ndarray]:
    """The observation dict of ``seat`` in ``state``.

    The observation is ``encode(view_for(state, seat))``, worked out from the
    round's ``facts`` (:class:`~american_sniff.observation.RoundFacts`) when
    given, else from the round's history; with ``scaled``, scaled by
    :func:`~american_sniff.observation.scaled`. ``legal``, if given, is
    ``dict(legal_action_moves(state))`` (kept by an environment that has it).
    """
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.winner is None and state.turn == seat:
        mask[list(dict(legal_action_moves(state)) if legal is None else legal)] = 1
    if facts is None:
        facts = RoundFacts.start(state)
    vector = encode_list(state, seat, facts, 1.0)
    values = array.array("f", scale(vector) if scaled else vector)
    observation = np.frombuffer(values, dtype=np.float32)
    return {"observation": observation, "action_mask": mask}


class Options(NamedTuple):
    """An environment's checked options, as both environments take them.

    :ivar reward: One of :data:`~american_sniff.envs.rewards.REWARDS`.
    :ivar illegal_action: One of :data:`ILLEGAL_ACTIONS`.
    :ivar max_steps: The steps after which an episode is truncated, or None.
    :ivar render_mode: One of the environment's render modes, or None.
    :ivar scaled: Whether observations are scaled.
    """

    reward: str
    illegal_action: str
    max_steps: int | None
    render_mode: str | None
    scaled: bool


def checked_options(  # noqa: PLR0913 (the environments' options, each checked)
    players: object,
    *,
    reward: str,
    illegal_action: str,
    max_steps: int | None,
    render_mode: str | None,
    scaled: bool,
    render_modes: tuple[str, ...],
) -> Options:
    """The options an environment was given, each checked.

    :raises ValueError: naming the first that is wrong.
    """
    if players not in PLAYER_COUNTS:
        raise ValueError(f"players must be 2, 3 or 4, got {players!r}")
    if max_steps is not None and (type(max_steps) is not int or max_steps < 1):
        raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
    if not isinstance(scaled, bool):
        raise ValueError(f"scaled must be True or False, got {scaled!r}")
    return Options(
        check_choice("reward", reward, REWARDS),
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS),
        max_steps,
        None if render_mode is None else check_choice("render_mode", render_mode, render_modes),
        scaled,
    )


def raise_if_raising(illegal_action: str, state: MatchState, number: int) -> None:
    """Raise the IllegalMove saying why ``number`` is not legal, if ``illegal_action`` is "raise".

    :raises IllegalMove: then; else nothing happens (the environment scores the loss).
    """
    if illegal_action == "raise":
        move_of(state, number)  # raises the IllegalMove that says why
        raise AssertionError(f"action {number} is not legal, yet move_of() took it")


def rendered(render_mode: str | None, state: MatchState | None) -> str | None:
    """What an environment's ``render()`` gives: :func:`render_state`'s text.

    In the ``"human"`` mode the text is printed and None returned; with no
    render mode, or before the first reset, it is None.
    """
    if render_mode is None or state is None:
        return None
    text = render_state(state)
    if render_mode == "human":
        print(text, end="")
        return None
    return text


def render_state(state: MatchState) -> str:
    """The text ``render()`` shows: the table, then the scores, hands and stock."""
    status = (
        f"side {state.winner} has won" if state.winner is not None else f"seat {state.turn} to move"
    )
    return (
        render_text(state.layout)
        + f"Round {state.round}; scores {list(state.scores)} of {state.target}; "
        + f"hand sizes {[len(h) for h in state.hands]}; stock {state.stock_size}; {status}\n"
    )


class AmericanSniffEnv(AECEnv[str, dict[str, np.ndarray], int]):
    """One match for ``players`` agents, as a PettingZoo AEC environment (see the module).

    :ivar players: The number of players (2, 3 or 4).
    :ivar reward: ``"outcome"`` or ``"points"`` (see :mod:`american_sniff.envs.rewards`).
    :ivar illegal_action: ``"lose"`` or ``"raise"``: what an illegal action does.
    :ivar max_steps: Actions after which an episode is truncated, or None for no limit.
    :ivar render_mode: ``"ansi"``, ``"human"`` or None.
    :ivar scaled: Whether the observations are scaled
        (:func:`~american_sniff.observation.scaled`, the library's one scaling).
    :ivar state_of_match: The engine's state of the match being played
        (:class:`~american_sniff.MatchState`), or None before the first reset.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's convention: a class dict)
        "name": "american_sniff_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(  # noqa: PLR0913 (the options are keyword-only, each with a default)
        self,
        players: int = 2,
        *,
        reward: str = "outcome",
        illegal_action: str = "lose",
        max_steps: int | None = None,
        render_mode: str | None = None,
        scaled: bool = False,
    ) -> None:
        super().__init__()
        options = checked_options(
            players,
            reward=reward,
            illegal_action=illegal_action,
            max_steps=max_steps,
            render_mode=render_mode,
            scaled=scaled,
            render_modes=tuple(self.metadata["render_modes"]),
        )
        self.players = players
        self.reward, self.illegal_action, self.max_steps, self.render_mode, self.scaled = options
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: observation_space(scaled=scaled) for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: gymnasium.spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents
        }
        self.state_of_match: MatchState | None = None
        self._np_random: np.random.Generator | None = None
        self._steps = 0
        # The round's public facts, kept action by action, and the legal
        # actions with their moves of the state they were worked out for.
        self._facts: RoundFacts | None = None
        self._legal: tuple[MatchState | None, dict[int, Move]] = (None, {})

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The observation space of ``agent`` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The action space of ``agent``: ``Discrete(450)`` (the same object on every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match: ``new_match(players, seed=seed)``, or with a seed drawn."""
        if seed is not None:
            number = match_seed(seed)
            self._np_random, _ = seeding.np_random(number)
        else:
            if self._np_random is None:
                self._np_random, _ = seeding.np_random(None)
            number = int(self._np_random.integers(0, 2**63))
        self.state_of_match = new_match(self.players, seed=number)
        self._facts = RoundFacts.start(self.state_of_match)
        self._steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state_of_match.turn]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        """``agent``'s observation dict (see the module)."""
        state = self.state_of_match
        if state is None:
            return None
        return encoded(
            state, self._seat[agent], self._facts, self._legal_moves(state), scaled=self.scaled
        )

    def _legal_moves(self, state: MatchState) -> dict[int, Move]:
        """The legal actions of ``state`` with their moves (worked out once per state)."""
        known, moves = self._legal
        if known is not state:
            moves = dict(legal_action_moves(state))
            self._legal = (state, moves)
        return moves

    def step(self, action: int | None) -> None:
        """The agent to act plays ``action`` (None for an agent already done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_of_match
        assert state is not None
        number = action_of_input(action)
        self._cumulative_rewards[agent] = 0.0
        move = self._legal_moves(state).get(number)
        if move is None:
            raise_if_raising(self.illegal_action, state, number)
            self.rewards = {a: -1.0 if a == agent else 0.0 for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos[agent] = {"illegal_action": True}
            self._accumulate_rewards()
            return
        after = apply(state, move)
        self.state_of_match = after
        assert self._facts is not None
        self._facts = self._facts.after(state, move, after)
        self._steps += 1
        gains = rewards(self.reward, state, after)
        self.rewards = {a: gains[self._seat[a]] for a in self.agents}
        if after.winner is not None:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_steps is not None and self._steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[after.turn]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table and the scores as text (see the module)."""
        return rendered(self.render_mode, self.state_of_match)

    def close(self) -> None:
        """Nothing to release."""


def env(**options: Any) -> AmericanSniffEnv:
    """A new :class:`AmericanSniffEnv`; ``options`` go to its constructor."""
    return AmericanSniffEnv(**options)
