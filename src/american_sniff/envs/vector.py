"""A Gymnasium vector environment: N matches of the batched engine, one learner seat in each.

Needs the ``rl`` extra (``pip install 'american-sniff[rl]'``).

>>> env = AmericanSniffVectorEnv(4, players=2, opponent="random")
>>> observations, infos = env.reset(seed=7)
>>> observations.shape, infos["action_mask"].shape
((4, 375), (4, 450))
>>> observations, rewards, terminated, truncated, infos = env.step(
...     infos["action_mask"].argmax(axis=1)
... )
>>> rewards.shape, terminated.dtype.name
((4,), 'bool')

Each of the ``num_envs`` slots is a match for ``players`` players played by
:class:`~american_sniff.envs.batched.BatchedMatches` (so by the C kernel where
it is built). The learner plays seat ``seat`` of every slot (or ``seat[i]``
of slot ``i``); every other seat, its partner's with 4 players included, is
played by ``opponent``: ``"random"`` or any batched policy, a callable on
``(observations, masks)`` returning one action a row (see
:mod:`american_sniff.envs.batched`). A policy is asked once for every slot
waiting on an opponent's seat, all at once, as many times as it takes
(:meth:`~american_sniff.envs.batched.BatchedMatches.play_policy`: an
opponent's forced action, the one legal action, is played without asking
it, and the waiting slots' observations, ``float32``, and masks are packed
in one call of the C kernel where it is built; the arrays are reused by the
next call, so a policy that keeps them must copy them). A
frozen copy of the learner is such a callable: pass it, and refresh it with
:meth:`~AmericanSniffVectorEnv.set_opponent`. ``"random"`` plays uniformly
among the legal actions inside the kernel
(:meth:`~american_sniff.envs.batched.BatchedMatches.play_random`: each slot
from its own SplitMix64 stream, the C kernel playing every slot up to the
learner's turn in one call), which is far faster than asking a policy; a
:class:`~american_sniff.envs.batched.RandomPolicy` passed as a callable is
asked as any policy is.

**Observations** are the learner's: an (N, 375) ``float32`` array, row ``i``
being ``encode(view_for(state, seat))`` for slot ``i``'s match, as in the
single environment ``AmericanSniffGymEnv`` (``american_sniff.envs.gymnasium``).
With ``scaled=True`` each row is scaled as
:func:`american_sniff.observation.scaled` scales one (the library's one
scaling, about [0, 1]), and so are the opponent's.
**The action masks** are in ``infos["action_mask"]``, an (N, 450) ``bool``
array (all False in a slot whose episode has just ended).

**Seeding.** ``reset(seed=s)`` deals slot ``i`` ``new_match(players, seed=s +
i)`` (modulo 2**64), and ``seed`` may also be a list of one seed a slot. The
episodes that follow, and a random opponent, draw their seeds from the
environment's generator, seeded by ``s``, so a run is reproducible, on
every kernel alike.
:attr:`~AmericanSniffVectorEnv.seeds` holds each slot's current match seed.

**A step** is one action of the learner in every slot, then the opponents'
actions up to the learner's next turn or the end of the match. The reward is
the learner's, as :mod:`american_sniff.envs.rewards` says (``"outcome"`` or
``"points"``), for all that happened in the step. An illegal action, with
``illegal_action="lose"`` (the default), ends that slot's episode with -1 and
``infos["illegal_action"][i]`` True; with ``"raise"``, it raises
:class:`ValueError` (and so does an action outside 0..449, always).
``max_steps`` truncates an episode after that many steps of the learner.

**Auto-reset** follows Gymnasium's modes (``metadata["autoreset_mode"]``):

* ``AutoresetMode.NEXT_STEP`` (the default, as in Gymnasium's own vector
  environments): a slot whose episode ended (terminated or truncated) is
  reset by the next ``step``, which ignores that slot's action and returns
  the new episode's first observation, with reward 0 and both flags False.
* ``AutoresetMode.SAME_STEP``: the slot is reset within the step that ended
  its episode; the observation returned is the new episode's, the last one of
  the old episode is in ``infos["final_obs"]`` (an (N, 375) array, valid
  where ``infos["_final_obs"]`` is True).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .. import batch
from ..actions import NUM_ACTIONS
from ..batch.observe import observe
from ..observation import OBSERVATION_SIZE, SCALED_BOUNDS
from ..rules import side_of
from ..state import check_seat
from .batched import BatchedMatches, Policy, slot_seeds
from .pettingzoo import ILLEGAL_ACTIONS, observation_space
from .rewards import REWARDS, check_choice

__all__ = ["AmericanSniffVectorEnv"]

_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


class AmericanSniffVectorEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """N matches at once, one learner seat in each, the others played by a policy (see the module).

    :ivar num_envs: The number of slots, N.
    :ivar players: The number of players (2, 3 or 4).
    :ivar seats: The learner's seat in each slot, an (N,) array.
    :ivar opponent: The policy playing every other seat, or ``"random"``
        (uniformly at random, inside the kernel).
    :ivar reward: ``"outcome"`` or ``"points"``.
    :ivar illegal_action: ``"lose"`` or ``"raise"``.
    :ivar max_steps: The learner's steps after which an episode is truncated, or None.
    :ivar autoreset_mode: Gymnasium's ``AutoresetMode.NEXT_STEP`` or ``SAME_STEP``.
    :ivar matches: The slots themselves (a :class:`~american_sniff.envs.batched.BatchedMatches`).
    :ivar scaled: Whether the observations (the learner's and a policy
        opponent's) are scaled (:func:`~american_sniff.observation.scaled`).
    :ivar copy: Whether :meth:`reset` and :meth:`step` return fresh observation
        arrays (True, the default) or, with False, the environment's own
        (N, 375) array, written again by the next call, as Gymnasium's
        vector environments do with ``copy=False`` (and ``infos["action_mask"]``
        the batch's own mask array, likewise): for a trainer that copies each
        step's observations into its own buffer anyway, it saves writing them
        to fresh memory each step. ``infos["final_obs"]`` is always fresh.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(  # noqa: PLR0913 (the options are keyword-only, each with a default)
        self,
        num_envs: int,
        players: int = 2,
        *,
        opponent: str | Policy = "random",
        seat: int | Sequence[int] = 0,
        reward: str = "outcome",
        illegal_action: str = "lose",
        max_steps: int | None = None,
        autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP,
        backend: str | None = None,
        scaled: bool = False,
        copy: bool = True,
    ) -> None:
        self.matches = BatchedMatches(num_envs, players, backend=backend)
        if not isinstance(scaled, bool):
            raise ValueError(f"scaled must be True or False, got {scaled!r}")
        if not isinstance(copy, bool):
            raise ValueError(f"copy must be True or False, got {copy!r}")
        self.scaled = scaled
        self.copy = copy
        # With copy=False, the observations returned (written again by each call).
        self._observations = None if copy else np.empty((num_envs, OBSERVATION_SIZE), np.float32)
        self.num_envs = num_envs
        self.players = players
        seats = [seat] * num_envs if isinstance(seat, int) else list(seat)
        if len(seats) != num_envs:
            raise ValueError(f"give one seat a slot: {num_envs}, got {len(seats)}")
        for one in seats:
            check_seat(players, one)
        self.seats = np.array(seats, np.intp)
        self._sides = np.array([side_of(players, s) for s in seats], np.int32)
        if not callable(opponent):
            check_choice("opponent", opponent, ("random",))
        self.opponent: Policy | str = opponent
        self._random_opponent = isinstance(opponent, str)
        # The random opponent's streams, one a slot (drawn at reset from the seed).
        self._streams = np.zeros(num_envs, np.uint64)
        self.reward = check_choice("reward", reward, REWARDS)
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        if max_steps is not None and (type(max_steps) is not int or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
        self.max_steps = max_steps
        if autoreset_mode not in _MODES:
            raise ValueError(
                "autoreset_mode must be AutoresetMode.NEXT_STEP or SAME_STEP, "
                f"got {autoreset_mode!r}"
            )
        self.autoreset_mode = autoreset_mode
        self.metadata = {"autoreset_mode": autoreset_mode}
        self.single_observation_space = (
            gymnasium.spaces.Box(
                np.array(SCALED_BOUNDS[0], np.float32),
                np.array(SCALED_BOUNDS[1], np.float32),
                (OBSERVATION_SIZE,),
                np.float32,
            )
            if scaled
            else observation_space()["observation"]
        )
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._steps = np.zeros(num_envs, np.int64)
        self._restart = np.zeros(num_envs, np.bool_)  # NEXT_STEP: reset by the next step
        self._all = np.arange(num_envs)
        # Where each slot's learner's reward is in an (N, 4) reward array, flattened.
        self._learner_at = 4 * self._all + self.seats
        self._ready = False

    @property
    def seeds(self) -> Any:
        """Each slot's current match seed, an (N,) ``uint64`` array."""
        return self.matches.seeds

    def set_opponent(self, opponent: Policy) -> None:
        """Let ``opponent`` (a batched policy) play the other seats from now on."""
        if not callable(opponent):
            raise TypeError(f"an opponent is a callable policy, got {opponent!r}")
        self.opponent = opponent
        self._random_opponent = False

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal every slot and let the opponents play up to the learner's first turn.

        ``options`` is not used.
        """
        del options
        if seed is not None:
            seeds = slot_seeds(seed, self.num_envs)
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(
                int(seeds[0]) & (2**63 - 1)
            )
        else:
            seeds = self._fresh_seeds(self.num_envs)
        if self._random_opponent:
            self._streams[:] = self.np_random.integers(0, 2**63, size=self.num_envs)
        self.matches.reset(seeds)
        self._steps[:] = 0
        self._restart[:] = False
        self._play_opponents(np.zeros(self.num_envs, np.float64))
        self._ready = True
        return self._observe(), self._infos(np.zeros(self.num_envs, np.bool_))

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """The learner plays ``actions[i]`` in slot ``i``; the opponents play on (see the module).

        :raises RuntimeError: before :meth:`reset`.
        :raises ValueError: if an action is not an integer from 0 to 449, or
            (with ``illegal_action="raise"``) not legal in its slot.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or chosen.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} integers, "
                f"got {chosen.dtype} of shape {chosen.shape}"
            )
        n = self.num_envs
        restart = self._restart  # (replaced below, never written in place)
        acting = ~restart
        # (every action in range, the usual case, is seen from two reductions alone)
        if (chosen.min() < 0 or chosen.max() >= NUM_ACTIONS) and (
            acting & ((chosen < 0) | (chosen >= NUM_ACTIONS))
        ).any():
            raise ValueError(f"an action is an integer from 0 to {NUM_ACTIONS - 1}")
        matches = self.matches
        points = np.zeros(n, np.float64)
        illegal = np.zeros(n, np.bool_)
        if acting.any():
            if self.illegal_action == "raise":
                slots = self._all[acting]
                refused = ~matches.mask[slots, chosen[slots]]
                if refused.any():
                    first = int(slots[refused][0])
                    raise ValueError(
                        f"action {int(chosen[first])} is not legal in slot {first}; "
                        "infos['action_mask'] lists the legal ones"
                    )
            if self._random_opponent:
                # Every slot at once (a slot about to be reset refuses -1 and
                # gains nothing), then the random opponents; the masks are
                # written once, after both.
                out, gains = matches.step_then_play_random(
                    np.where(acting, chosen, -1), self.seats, self._streams
                )
                illegal = acting & (out.errors != batch.OK)
                points = np.where(acting, self._learner_rewards(out.rewards) + gains, 0.0)
            else:
                points, illegal, restart = self._step_against_policy(chosen, acting, restart)
        self._steps += acting
        winner = matches.winner
        terminated = acting & (matches.done | illegal)
        if self.reward == "points":
            rewards = points
        else:
            rewards = np.where(
                matches.done & acting, np.where(winner == self._sides, 1.0, -1.0), 0.0
            )
        rewards = np.where(illegal, -1.0, rewards)
        truncated = np.zeros(n, np.bool_)
        if self.max_steps is not None:
            truncated = acting & ~terminated & (self._steps >= self.max_steps)
        ended = terminated | truncated
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._restart_slots(self._all[restart])
            self._restart = ended
            return self._observe(), rewards, terminated, truncated, self._infos(illegal)
        final = self._observe(fresh=True)
        self._restart_slots(self._all[ended])
        infos = self._infos(illegal)
        infos["final_obs"] = final
        infos["_final_obs"] = ended
        return self._observe(), rewards, terminated, truncated, infos

    def _step_against_policy(self, chosen: Any, acting: Any, restart: Any) -> tuple[Any, ...]:
        """The learner's actions where ``acting``, then the policy opponent.

        Returns ``(points, illegal, restart)``, the slots still to restart last.
        """
        matches, n = self.matches, self.num_envs
        early = self.autoreset_mode == AutoresetMode.NEXT_STEP and not acting.all()
        if early:
            # The slots to restart are dealt first, so that one call of the opponent
            # plays them with the others (what their opponents gain before the
            # learner's first turn is not rewarded).
            self._restart_slots(self._all[restart], play=False)
        if acting.all() or matches.backend == "c":  # (the batch's own engine: every slot at once)
            # Every slot at once (one not acting refuses -1, its state kept): no
            # slot list to check; the opponents then play, the masks written once.
            opponent = self.opponent
            assert callable(opponent)  # (set_opponent and __init__ see to it)
            try:
                out, played = matches.step_then_play_policy(
                    np.where(acting, chosen, -1), opponent, self.seats, scaled=self.scaled
                )
            except ValueError as error:
                raise ValueError(str(error).replace("the policy", "the opponent")) from None
            illegal = acting & (out.errors != batch.OK)
            points = np.where(acting, self._learner_rewards(out.rewards), 0.0) + played.gains
        else:
            slots = self._all[acting]
            points = np.zeros(n, np.float64)
            illegal = np.zeros(n, np.bool_)
            out = matches.step(chosen[slots], slots)
            illegal[slots] = out.errors != batch.OK
            points[slots] = out.rewards[np.arange(len(slots)), self.seats[slots]]
            self._play_opponents(points)
        if early:
            points[restart] = 0.0
            restart = np.zeros(n, np.bool_)  # (restarted above)
        return points, illegal, restart

    def _learner_rewards(self, rewards: Any) -> Any:
        """Each slot's learner's reward of an (N, 4) reward array, as an (N,) array."""
        return rewards.reshape(-1).take(self._learner_at)

    def _restart_slots(self, slots: Any, *, play: bool = True) -> None:
        """Deal the slots ``slots`` a new match each and play the opponents up to the learner.

        With ``play=False`` the opponents are left to the caller.
        """
        if not len(slots):
            return
        self.matches.reset_slots(slots, self._fresh_seeds(len(slots)))
        self._steps[slots] = 0
        if not play:
            return
        if self._random_opponent:
            self.matches.play_random(self.seats, self._streams, slots)
            return
        self._play_opponents(np.zeros(self.num_envs, np.float64))

    def _fresh_seeds(self, count: int) -> Any:
        return self.np_random.integers(0, 2**63, size=count).astype(np.uint64)

    def _play_opponents(self, points: Any) -> None:
        """The opponents play every slot up to the learner's turn; their rewards go to ``points``.

        :raises ValueError: if the opponent chooses an action its slot refuses.
        """
        matches = self.matches
        if self._random_opponent:
            points += matches.play_random(self.seats, self._streams).gains
            return
        opponent = self.opponent
        assert callable(opponent)  # (set_opponent and __init__ see to it)
        try:
            points += matches.play_policy(opponent, self.seats, scaled=self.scaled).gains
        except ValueError as error:
            raise ValueError(str(error).replace("the policy", "the opponent")) from None

    def _observe(self, *, fresh: bool = False) -> Any:
        # float32 straight from the C kernel where it is built (numpy converts otherwise),
        # into the environment's own array with copy=False.
        return observe(
            self.matches.state,
            self.matches.facts,
            dtype=np.float32,
            scaled=self.scaled,
            out=None if fresh else self._observations,
        )

    def _infos(self, illegal: Any) -> dict[str, Any]:
        mask = self.matches.mask
        return {"action_mask": mask.copy() if self.copy else mask, "illegal_action": illegal}
