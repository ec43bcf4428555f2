"""Many matches, every seat played by the caller: a batched, PettingZoo-style interface.

Needs numpy (the ``rl`` extra). :class:`BatchedMatches` keeps N matches
("slots") of the batched engine (:mod:`american_sniff.batch`) with the facts
their observations need (:mod:`american_sniff.batch.observe`). Where
PettingZoo's AEC environment steps one agent of one match, a batch steps the
seat to move of every slot at once: read each slot's seat to move
(:attr:`~BatchedMatches.turn`), its observation (:meth:`~BatchedMatches.observe`)
and its legal mask (:attr:`~BatchedMatches.mask`), then give one action a slot
to :meth:`~BatchedMatches.step`:

>>> matches = BatchedMatches(3, players=4)
>>> matches.reset([7, 8, 9])
>>> matches.observe().shape, matches.mask.shape, matches.turn.tolist()
((3, 375), (3, 450), [3, 1, 2])
>>> step = matches.step(matches.mask.argmax(axis=1))   # each slot's first legal action
>>> step.rewards.shape, step.errors.tolist()
((3, 4), [0, 0, 0])

Slot ``i`` reset with seed ``s`` plays ``new_match(players, seed=s)``, move for
move as :func:`~american_sniff.apply` plays it. The rewards are the
``"points"`` rewards of :mod:`american_sniff.envs.rewards`, per seat; a slot
is :attr:`~BatchedMatches.done` once a side has won (its side is
:attr:`~BatchedMatches.winner`), and stays so until :meth:`~BatchedMatches.reset_slots`.
An action a slot cannot take is refused for that slot alone (its state is
kept and its error code says why, as in :func:`american_sniff.batch.step`).

A *policy* here is any callable on ``(observations, masks)``, an (M, 375)
array and an (M, 450) ``bool`` array, returning M actions: the same callable
can play every seat (self-play), or be an opponent of
:class:`~american_sniff.envs.vector.AmericanSniffVectorEnv`.
:class:`RandomPolicy` is the simplest. A policy with an attribute
``observes`` set to False (as :class:`RandomPolicy` has) tells its callers
that it ignores the observations: they may pass None and save computing them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

from .. import batch
from ..actions import NUM_ACTIONS
from ..batch.observe import (
    FACT_WORDS,
    advance_facts,
    observe,
    observe_waiting,
    scale_observations,
    start_facts,
)
from ..batch.recall import advance_history, information_state, redraw, start_history
from ..observation import OBSERVATION_SIZE
from ..rng import MASK64
from ..rules import PLAYER_COUNTS

__all__ = [
    "BatchedMatches",
    "BatchedStep",
    "Policy",
    "PolicyPlay",
    "RandomPlay",
    "RandomPolicy",
    "below",
    "random_policy",
    "slot_seeds",
]

#: A batched policy: ``policy(observations, masks) -> actions``, an (M, 375)
#: observation array and an (M, 450) ``bool`` mask array in, M integer actions out.
Policy = Callable[[Any, Any], Any]


class RandomPolicy:
    """A policy that picks one legal action uniformly at random in each row of the masks.

    ``seed`` seeds its numpy generator (None: fresh entropy). It does not look
    at the observations (:attr:`observes` is False), so it may be given None.

    >>> import numpy as np
    >>> pick = RandomPolicy(seed=1)
    >>> mask = np.zeros((2, 450), bool); mask[0, [3, 9]] = True; mask[1, 448] = True
    >>> int(pick(None, mask)[1])
    448

    :ivar observes: False: a caller may pass None for the observations.
    """

    observes = False

    def __init__(self, seed: int | None = None) -> None:
        self._generator = np.random.default_rng(seed)

    def __call__(self, observations: Any, masks: Any) -> Any:
        """One legal action a row of ``masks``, uniformly at random (a row with none gets 0)."""
        del observations  # a random policy does not look
        legal = np.asarray(masks, np.bool_)
        _, actions = np.nonzero(legal)
        counts = legal.sum(axis=1)
        starts = np.cumsum(counts) - counts
        picks = (self._generator.random(len(legal)) * counts).astype(np.int64)
        chosen = np.zeros(len(legal), np.int64)
        some = counts > 0
        chosen[some] = actions[(starts + picks)[some]]
        return chosen


def random_policy(seed: int | None = None) -> Policy:
    """A :class:`RandomPolicy` seeded with ``seed``."""
    return RandomPolicy(seed)


def slot_seeds(seed: object, count: int) -> Any:
    """The seeds of ``count`` slots: ``seed + i`` (mod 2**64) for an integer, else ``seed`` itself.

    ``seed`` is an integer or a sequence (or array) of ``count`` integers;
    the result is a ``uint64`` array.

    :raises ValueError: if a seed is not an integer, or the sequence's length is not ``count``.
    """
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        start = int(seed) & MASK64
        return np.array([(start + i) & MASK64 for i in range(count)], np.uint64)
    if isinstance(seed, (Sequence, np.ndarray)) and not isinstance(seed, (str, bytes)):
        values = list(seed)
        if len(values) != count:
            raise ValueError(f"give one seed a slot: {count} seeds, got {len(values)}")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"a seed is an integer, got {value!r}")
        return np.array([int(value) & MASK64 for value in values], np.uint64)
    raise ValueError(f"a seed is an integer or a sequence of integers, got {seed!r}")


@attrs.frozen
class RandomPlay:
    """What :meth:`BatchedMatches.play_random` returns.

    :ivar gains: What each slot's given seat gained while the others played
        (its ``"points"`` rewards added up), an (N,) ``int32`` array.
    :ivar applied: How many actions were applied, over all slots.
    """

    gains: Any
    applied: int


@attrs.frozen
class PolicyPlay:
    """What :meth:`BatchedMatches.play_policy` returns.

    :ivar gains: What each slot's given seat gained while the policy played
        (its ``"points"`` rewards added up), an (N,) ``int32`` array.
    :ivar applied: How many actions were applied, over all slots.
    :ivar calls: How many times the policy was asked.
    """

    gains: Any
    applied: int
    calls: int


@attrs.frozen
class BatchedStep:
    """What :meth:`BatchedMatches.step` returns for the slots it stepped.

    :ivar rewards: Each seat's ``"points"`` reward, an (M, 4) ``int32`` array
        (0 past the last seat).
    :ivar errors: Each slot's error code (:data:`american_sniff.batch.OK`, or
        why its action was refused), an (M,) ``uint8`` array.
    """

    rewards: Any
    errors: Any


class BatchedMatches:
    """N matches of the batched engine, every seat played by the caller (see the module).

    :ivar num_matches: The number of slots, N.
    :ivar players: The number of players of every slot (2, 3 or 4).
    :ivar backend: The batch kernel used (``"c"`` or ``"python"``; see
        :data:`american_sniff.batch.BACKENDS`).
    :ivar state: The slots' states, an (N, 48) ``int32`` array (the words of
        :data:`american_sniff.batch.FIELDS`); read it, do not write it.
    :ivar facts: The facts the observations need, an (N, 14) ``int64`` array.
    :ivar mask: Each slot's legal mask, an (N, 450) ``bool`` array (all False once done).
    :ivar done: Each slot's done flag, an (N,) ``bool`` array.
    :ivar seeds: Each slot's match seed, an (N,) ``uint64`` array.
    :ivar history: Each slot's round so far, an (N, 128) ``uint16`` array
        (:mod:`american_sniff.batch.recall`), kept with ``history=True``;
        else None. :meth:`information_state` and :meth:`redraw` read it.
    """

    def __init__(
        self,
        num_matches: int,
        players: int = 2,
        *,
        backend: str | None = None,
        history: bool = False,
    ) -> None:
        if type(num_matches) is not int or num_matches < 1:
            raise ValueError(f"num_matches must be a positive integer, got {num_matches!r}")
        if type(players) is not int or players not in PLAYER_COUNTS:
            raise ValueError(f"players must be 2, 3 or 4, got {players!r}")
        self.num_matches = num_matches
        self.players = players
        self.backend = batch.BACKEND if backend is None else backend
        if self.backend not in batch.BACKENDS:
            raise ValueError(
                f"backend must be one of {', '.join(map(repr, batch.BACKENDS))}, got {backend!r}"
            )
        self._kernel = batch.BACKENDS[self.backend]
        # Whether stepping most of the slots steps them all, the others refusing
        # -1 (cheap in C; the Python kernel would work out each idle slot's mask).
        self._step_whole = self.backend == "c"
        n = num_matches
        self.state = np.zeros((n, batch.STATE_WORDS), np.int32)
        self.facts = np.zeros((n, FACT_WORDS), np.int64)
        self.mask = np.zeros((n, NUM_ACTIONS), np.bool_)
        self.done = np.ones(n, np.bool_)
        self.seeds = np.zeros(n, np.uint64)
        self.history: Any = start_history(n) if history else None
        self._rewards = np.zeros((n, 4), np.int32)
        self._errors = np.zeros(n, np.uint8)
        self._ready = False
        # play_policy's buffers, made at its first call (the waiting rows packed).
        self._waiting: tuple[Any, ...] | None = None
        # Whether the masks wait to be written (step_then_play_policy steps without them).
        self._stale = False

    @property
    def turn(self) -> Any:
        """Each slot's seat to move, an (N,) ``int32`` array (the last mover's once done)."""
        return self.state[:, batch.FIELDS["turn"][0]]

    @property
    def winner(self) -> Any:
        """Each slot's winning side, or -1 while it is played: an (N,) ``int32`` array."""
        return self.state[:, batch.WINNER]

    @property
    def scores(self) -> Any:
        """Each slot's scores by side, an (N, 4) ``int32`` array (0 past the last side)."""
        start, size = batch.FIELDS["scores"]
        return self.state[:, start : start + size]

    def reset(self, seed: object) -> None:
        """Deal every slot: slot ``i`` plays ``new_match(players, seed=seeds[i])``.

        ``seed`` is an integer (slot ``i`` gets ``seed + i``) or one integer a
        slot (see :func:`slot_seeds`).

        :raises ValueError: if the seeds are not integers, or not one a slot.
        """
        self.reset_slots(np.arange(self.num_matches), slot_seeds(seed, self.num_matches))
        self._ready = True

    def _slots(self, slots: Any) -> Any:
        """``slots`` as an index array, if it names distinct slots of the batch.

        :raises ValueError: otherwise.
        """
        index = np.asarray(slots).reshape(-1)
        if index.dtype.kind not in "iu" and len(index):
            raise ValueError(f"slots are integer indices, got an array of {index.dtype}")
        index = index.astype(np.intp)
        if len(index) and (index.min() < 0 or index.max() >= self.num_matches):
            raise ValueError(f"a slot is an index from 0 to {self.num_matches - 1}")
        # (a few slots, as an environment restarts them, are checked faster in a set)
        distinct = len(set(index.tolist())) if len(index) <= 64 else len(np.unique(index))
        if distinct != len(index):
            raise ValueError("each slot may be named once")
        return index

    def reset_slots(self, slots: Any, seeds: Any) -> None:
        """Deal again the slots ``slots`` (an index array), from ``seeds`` (one integer each).

        :raises ValueError: if the slots are not distinct indices of the
            batch, or the seeds not one integer a slot.
        """
        index = self._slots(slots)
        given = np.asarray(seeds).reshape(-1)
        if given.dtype.kind in "iu" and len(given) == len(index):
            # (an integer array: each seed modulo 2**64, as slot_seeds takes it, in one cast)
            chosen = given.astype(np.uint64)
        else:
            chosen = slot_seeds(list(given), len(index))
        if len(index) == 0:
            return
        fresh = batch.reset(chosen, self.players, backend=self.backend)
        self.state[index] = fresh.state
        self.mask[index] = fresh.mask
        self.done[index] = False
        self.seeds[index] = chosen
        self.facts[index] = start_facts(fresh.state)

    def observe(self, slots: Any = None) -> Any:
        """The observation of each slot's seat to move: an (N, 375) ``int32`` array.

        With ``slots`` (an index array), only those slots' rows, in that order.
        Each row is ``encode(view_for(state, turn))`` for the slot's match.
        """
        if slots is None:
            return observe(self.state, self.facts)
        return observe(self.state, self.facts, np.asarray(slots, np.intp))

    def information_state(self, seats: Any, slots: Any = None, *, dtype: Any = np.int32) -> Any:
        """The perfect-recall tensor of a seat of each slot: an (N, size) array.

        Row ``j`` is ``encode_information_state(view_for(state, seat))`` of
        slot ``slots[j]`` (every slot in order without ``slots``), ``seat``
        being ``seats`` (one integer) or ``seats[j]``; ``size`` is
        :func:`~american_sniff.observation.information_state_size` of the
        players. Needs ``history=True``; see
        :func:`american_sniff.batch.recall.information_state`.

        >>> matches = BatchedMatches(2, players=3, history=True)
        >>> matches.reset(1)
        >>> _ = matches.step(matches.mask.argmax(axis=1))
        >>> matches.information_state(0).shape
        (2, 10483)

        :raises RuntimeError: if the batch keeps no history.
        """
        if self.history is None:
            raise RuntimeError("the tensor needs the history: make the batch with history=True")
        rows = None if slots is None else self._slots(slots)
        return information_state(
            self.state, self.facts, self.history, seats, rows, players=self.players, dtype=dtype
        )

    def redraw(self, slots: Any, seats: Any, seeds: Any, *, into: Any = None) -> Any:
        """Deal again the hidden tiles of slots ``slots`` as seats ``seats`` see them, for search.

        Slot ``into[j]`` (by default ``slots[j]`` itself) becomes a world of
        slot ``slots[j]`` that seat ``seats[j]`` cannot tell from it: its
        hand, the table, the facts and the history kept, the other hands and
        the stock dealt again uniformly among the deals that break no known
        void, from the SplitMix64 seed ``seeds[j]`` (see
        :func:`american_sniff.batch.recall.redraw`). Each argument is one
        integer a row, or one for all; the masks and done flags of the slots
        written are brought up to date. Returns each row's error code (a
        refused row writes nothing).

        >>> matches = BatchedMatches(4, players=2)
        >>> matches.reset(3)
        >>> matches.redraw(0, 0, seeds=[1, 2, 3], into=[1, 2, 3]).tolist()
        [0, 0, 0]
        >>> bool((matches.state[1:, 14] == matches.state[0, 14]).all())   # seat 0's hand kept
        True

        :raises RuntimeError: before :meth:`reset`.
        :raises ValueError: if the arguments are not integers of fitting sizes.
        """
        if not self._ready:
            raise RuntimeError("call reset() before redraw()")
        errors = redraw(
            self.state,
            self.facts,
            self.history,
            slots,
            seats,
            seeds,
            slots if into is None else into,
            backend="c" if self.backend == "c" else "python",
        )
        written = np.asarray(slots if into is None else into, np.int64).reshape(-1)
        if len(written) == 1 and len(errors) > 1:
            written = np.repeat(written, len(errors))
        written = np.unique(written[errors == batch.OK])
        if len(written):
            mask = np.zeros((len(written), NUM_ACTIONS), np.bool_)
            self._kernel.mask_into(np.ascontiguousarray(self.state[written]), mask)
            self.mask[written] = mask
            self.done[written] = self.state[written, batch.WINNER] >= 0
        return errors

    def step(self, actions: Any, slots: Any = None) -> BatchedStep:
        """Each slot's seat to move plays its action: ``actions[i]`` in slot ``i``.

        With ``slots`` (an index array), only those slots are stepped,
        ``actions[j]`` in slot ``slots[j]``; the others are left alone. A slot
        that cannot take its action refuses it and keeps its state (see
        :attr:`BatchedStep.errors`). The rewards and errors returned are fresh
        arrays, in the order of the slots stepped.

        :raises RuntimeError: before :meth:`reset`.
        :raises ValueError: if there is not one integer action a slot
            stepped, or the slots are not distinct indices of the batch.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got an array of {chosen.dtype}")
        chosen = chosen.astype(np.int64).reshape(-1)
        if slots is None:
            if len(chosen) != self.num_matches:
                raise ValueError(f"give one action a slot: {self.num_matches}, got {len(chosen)}")
            if self._step_whole:
                # The C kernel advances the facts as it steps (step_facts_into).
                self._kernel.step_facts_into(  # type: ignore[attr-defined]
                    self.state,
                    self.facts,
                    chosen,
                    self.mask,
                    self._rewards,
                    self.done,
                    self._errors,
                    self.history,
                )
                return BatchedStep(self._rewards.copy(), self._errors.copy())
            before = self.state.copy()
            self._kernel.step_into(
                self.state, chosen, self.mask, self._rewards, self.done, self._errors
            )
            advance_facts(self.facts, before, chosen, self.state, self._errors)
            if self.history is not None:
                advance_history(self.history, before, chosen, self.state, self._errors)
            return BatchedStep(self._rewards.copy(), self._errors.copy())
        index = self._slots(slots)
        if len(chosen) != len(index):
            raise ValueError(f"give one action a slot stepped: {len(index)}, got {len(chosen)}")
        if self._step_whole and hasattr(self._kernel, "step_rows_into"):
            # The C kernel steps the rows in place (step_rows_into), facts and masks included.
            rewards = np.empty((len(index), 4), np.int32)
            errors = np.empty(len(index), np.uint8)
            self._kernel.step_rows_into(
                self.state,
                self.facts,
                index.astype(np.int64),
                chosen,
                self.mask,
                rewards,
                self.done,
                errors,
                None,
                None,
                self.history,
            )
            return BatchedStep(rewards, errors)
        if self._step_whole and 2 * len(index) > self.num_matches:
            # Most slots step: cheaper to step them all in place, the others
            # given -1, which the kernel refuses at once, keeping their state.
            every = np.full(self.num_matches, -1, np.int64)
            every[index] = chosen
            out = self.step(every)
            return BatchedStep(out.rewards[index], out.errors[index])
        before = self.state[index]
        state = before.copy()
        mask = np.empty((len(index), NUM_ACTIONS), np.bool_)
        rewards = np.empty((len(index), 4), np.int32)
        done = np.empty(len(index), np.bool_)
        errors = np.empty(len(index), np.uint8)
        self._kernel.step_into(state, chosen, mask, rewards, done, errors)
        facts = self.facts[index]
        advance_facts(facts, before, chosen, state, errors)
        if self.history is not None:
            history = self.history[index]
            advance_history(history, before, chosen, state, errors)
            self.history[index] = history
        self.state[index] = state
        self.mask[index] = mask
        self.done[index] = done
        self.facts[index] = facts
        return BatchedStep(rewards, errors)

    def _whole_actions(self, actions: Any) -> Any:
        """``actions`` checked as one integer a slot, for a step of the whole batch in C."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.dtype.kind not in "iu" or chosen.shape != (self.num_matches,):
            raise ValueError(
                f"give one integer action a slot: {self.num_matches}, "
                f"got {chosen.dtype} of shape {chosen.shape}"
            )
        return chosen.astype(np.int64)

    def _step_whole_batch(self, chosen: Any) -> BatchedStep:
        """Every slot stepped by the checked ``chosen`` in one C call (facts and history too)."""
        kernel: Any = self._kernel
        kernel.step_facts_into(
            self.state,
            self.facts,
            chosen,
            None,
            self._rewards,
            self.done,
            self._errors,
            self.history,
        )
        return BatchedStep(self._rewards.copy(), self._errors.copy())

    def step_then_play_random(
        self, actions: Any, seats: Any, streams: Any
    ) -> tuple[BatchedStep, Any]:
        """:meth:`step` every slot by ``actions``, then :meth:`play_random` up to ``seats``.

        The same as the two calls, in one pass where the kernel is C (the
        masks are written once, after the random seats have played). Returns
        the step's :class:`BatchedStep` and the gains of :meth:`play_random`.

        :raises RuntimeError: before :meth:`reset`.
        :raises ValueError: as :meth:`step` and :meth:`play_random` raise.
        """
        if not self._step_whole:
            out = self.step(actions)
            return out, self.play_random(seats, streams).gains
        chosen = self._whole_actions(actions)
        self._check_random(seats, streams)
        out = self._step_whole_batch(chosen)
        return out, self.play_random(seats, streams).gains

    def step_then_play_policy(
        self, actions: Any, policy: Policy, seats: Any, *, scaled: bool = False
    ) -> tuple[BatchedStep, PolicyPlay]:
        """:meth:`step` every slot by ``actions``, then :meth:`play_policy` up to ``seats``.

        The same as the two calls (a slot given -1 refuses it and keeps its
        state); where the kernel is C the masks are written once, after the
        policy has played, instead of after each.

        :raises RuntimeError: before :meth:`reset`.
        :raises ValueError: as :meth:`step` and :meth:`play_policy` raise.
        """
        if not self._step_whole:
            out = self.step(actions)
            return out, self.play_policy(policy, seats, scaled=scaled)
        chosen = self._whole_actions(actions)
        checked = self._check_seats(seats)
        out = self._step_whole_batch(chosen)
        self._stale = True
        return out, self._play_policy(policy, checked, scaled=scaled, ask_forced=False)

    def play_policy(
        self, policy: Policy, seats: Any, *, scaled: bool = False, ask_forced: bool = False
    ) -> PolicyPlay:
        """Every seat but ``seats[i]`` is played by ``policy`` in slot ``i`` up to its turn.

        A slot *waits* while its match goes on and its seat to move is not
        ``seats[i]``. A *forced* action, the one legal action of a waiting
        slot (a draw it cannot refuse, a pass, a lone placement), is played
        without asking the policy, as the evaluation harness plays it (unless
        ``ask_forced``). The policy is asked, all at once, for every waiting
        slot with a choice to make, as many times as it takes: with the
        observations of the seats to move (``float32``, scaled by
        :func:`~american_sniff.batch.observe.scale_observations` if
        ``scaled``; None for a policy whose ``observes`` is False) and their
        masks, packed in slot order. Where the kernel is C, each round is
        three calls of it (``play_forced_into``, ``observe_waiting_into``,
        ``step_rows_into``); the other kernels give the same results with
        numpy. The arrays given to the policy are reused by the next round: a
        policy that keeps them must copy them.

        Returns what ``seats[i]``'s side gained meanwhile (the ``"points"``
        rewards of that seat added up), how many actions were applied, and
        how many times the policy was asked.

        :raises RuntimeError: before :meth:`reset`.
        :raises ValueError: if ``seats`` is not one seat of the match a slot,
            or the policy does not return one integer action a row, or an
            action its slot refuses (the slots stepped before stay stepped).
        """
        if not self._ready:
            raise RuntimeError("call reset() before play_policy()")
        return self._play_policy(
            policy, self._check_seats(seats), scaled=scaled, ask_forced=ask_forced
        )

    def _play_policy(
        self, policy: Policy, chosen: Any, *, scaled: bool, ask_forced: bool
    ) -> PolicyPlay:
        """:meth:`play_policy` once the batch is reset and the seats ``chosen`` checked."""
        looks = getattr(policy, "observes", True)
        kernel: Any = self._kernel
        if self._step_whole and hasattr(kernel, "play_forced_into"):
            return self._play_policy_c(
                policy, chosen, looks=looks, scaled=scaled, ask_forced=ask_forced
            )
        gains = np.zeros(self.num_matches, np.int32)
        applied = calls = 0
        while True:
            if not ask_forced:
                applied += self._play_forced(chosen, gains)
            waiting = observe_waiting(
                self.state,
                self.facts,
                chosen,
                observations=looks,
                dtype=np.float32,
                backend="numpy",
            )
            rows, observations = waiting.rows, waiting.observations
            if not len(rows):
                return PolicyPlay(gains, applied, calls)
            if scaled and observations is not None:
                scale_observations(observations, out=observations)
            actions = self._policy_actions(policy, observations, waiting.masks)
            calls += 1
            out = self.step(actions, rows)
            if (out.errors != batch.OK).any():
                self._refused(actions, rows, out.errors)
            applied += len(rows)
            gains[rows] += out.rewards[np.arange(len(rows)), chosen[rows]]

    def _play_forced(self, seats: Any, gains: Any) -> int:
        """The forced actions of the waiting slots, in numpy; returns how many were applied."""
        applied = 0
        while True:
            rows = np.flatnonzero(~self.done & (self.turn != seats))
            forced = rows[self.mask[rows].sum(axis=1) == 1]
            if not len(forced):
                return applied
            out = self.step(self.mask[forced].argmax(axis=1), forced)
            gains[forced] += out.rewards[np.arange(len(forced)), seats[forced]]
            applied += len(forced)

    def _play_policy_c(
        self, policy: Policy, seats: Any, *, looks: bool, scaled: bool, ask_forced: bool
    ) -> PolicyPlay:
        """:meth:`play_policy` in C: each round the forced actions, the observations, the steps."""
        n = self.num_matches
        if self._waiting is None:
            self._waiting = (
                np.empty(n, np.int64),
                np.empty((n, OBSERVATION_SIZE), np.float32),
                np.empty((n, NUM_ACTIONS), np.bool_),
                np.empty((n, 4), np.int32),
                np.empty(n, np.uint8),
            )
        rows, seen, masks, rewards, errors = self._waiting
        kernel: Any = self._kernel
        gains = np.zeros(n, np.int32)
        applied = calls = 0
        fused = not ask_forced and hasattr(kernel, "play_waiting_into")
        m = -1  # the candidates of the first round: every slot
        while True:
            if fused:
                # The forced actions and the waiting rows in one pass, over the rows
                # of the round before alone (no other slot can wait).
                m, forced = kernel.play_waiting_into(
                    self.state,
                    self.facts,
                    seats,
                    rows,
                    m,
                    gains,
                    self.done,
                    seen if looks else None,
                    masks,
                    self.history,
                    scaled,
                )
                applied += forced
            else:
                if not ask_forced:
                    applied += kernel.play_forced_into(
                        self.state, self.facts, seats, gains, self.done, self.history
                    )
                m = kernel.observe_waiting_into(
                    self.state, self.facts, seats, rows, seen if looks else None, masks
                )
            if not m:
                if applied or self._stale:
                    # The masks of the slots stepped, written once at the end (the
                    # waiting slots' masks were made fresh for the policy).
                    kernel.mask_into(self.state, self.mask)
                    self._stale = False
                return PolicyPlay(gains, applied, calls)
            observations = seen[:m] if looks else None
            if scaled and observations is not None and not fused:
                scale_observations(observations, out=observations)
            actions = self._policy_actions(policy, observations, masks[:m])
            calls += 1
            some = rows[:m]
            refused = kernel.step_rows_into(
                self.state,
                self.facts,
                some,
                actions,
                None,
                rewards[:m],
                self.done,
                errors[:m],
                seats,
                gains,
                self.history,
            )
            if refused:
                self._refused(actions, some, errors[:m])
            applied += m

    @staticmethod
    def _policy_actions(policy: Policy, observations: Any, masks: Any) -> Any:
        """The policy's actions for these rows, as an int64 array.

        :raises ValueError: if it does not give one integer action a row.
        """
        actions = np.asarray(policy(observations, masks)).reshape(-1)
        if len(actions) != len(masks) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"the policy must return {len(masks)} integer actions, got {actions!r}"
            )
        return actions.astype(np.int64, copy=False)

    @staticmethod
    def _refused(actions: Any, rows: Any, errors: Any) -> None:
        """Raise for the first row whose slot refused the policy's action.

        :raises ValueError: always.
        """
        first = int(np.argmax(errors != batch.OK))
        raise ValueError(
            f"the policy chose action {int(actions[first])} in slot "
            f"{int(rows[first])}, which refuses it (error {int(errors[first])})"
        )

    def _check_seats(self, seats: Any) -> Any:
        """``seats`` as an int64 array, if it is one seat of the match a slot.

        :raises ValueError: otherwise.
        """
        n = self.num_matches
        chosen = np.asarray(seats)
        if chosen.shape != (n,) or chosen.dtype.kind not in "iu":
            raise ValueError(
                f"seats must be {n} integers, got {chosen.dtype} of shape {chosen.shape}"
            )
        chosen = np.ascontiguousarray(chosen, np.int64)
        if ((chosen < 0) | (chosen >= self.players)).any():
            raise ValueError(f"a seat is an integer from 0 to {self.players - 1}")
        return chosen

    def _play_random_some(self, seats: Any, streams: Any, index: Any, gains: Any) -> RandomPlay:
        """:meth:`play_random` of the slots ``index`` alone, in C, on copies of their rows."""
        state, facts = self.state[index], self.facts[index]
        history = None if self.history is None else self.history[index]
        mask = np.empty((len(index), NUM_ACTIONS), np.bool_)
        done = np.empty(len(index), np.bool_)
        errors = np.empty(len(index), np.uint8)
        some_streams = streams[index]
        some_gains = np.zeros(len(index), np.int32)
        kernel: Any = self._kernel
        applied = kernel.play_random_into(
            state, facts, seats[index], some_streams, mask, some_gains, done, errors, history
        )
        if (errors != batch.OK).any():
            first = int(index[np.argmax(errors != batch.OK)])
            raise ValueError(f"slot {first} holds words no step made: it cannot be played")
        self.state[index] = state
        self.facts[index] = facts
        if history is not None:
            self.history[index] = history
        self.mask[index] = mask
        self.done[index] = done
        streams[index] = some_streams
        gains[index] = some_gains
        return RandomPlay(gains, int(applied))

    def _check_random(self, seats: Any, streams: Any) -> Any:
        """``seats`` as an int64 array, if it and ``streams`` fit :meth:`play_random`.

        :raises ValueError: otherwise.
        """
        n = self.num_matches
        chosen = self._check_seats(seats)
        if (
            not isinstance(streams, np.ndarray)
            or streams.dtype != np.uint64
            or streams.shape != (n,)
            or not streams.flags.writeable
            or not streams.flags.c_contiguous
        ):
            raise ValueError(f"streams must be a writable uint64 array of {n} words")
        return chosen

    def play_random(self, seats: Any, streams: Any, slots: Any = None) -> RandomPlay:
        """Every seat but ``seats[i]`` plays slot ``i`` at random, up to ``seats[i]``'s turn.

        In each slot whose match goes on, the seats other than ``seats[i]``
        play until ``seats[i]`` is to move or the match is over, each action
        drawn uniformly among the legal ones: ``below(count)`` (the SplitMix64
        draw of :func:`american_sniff.rng.below`) of the legal actions in
        increasing order, from the slot's own stream ``streams[i]``, which is
        advanced in place (a ``uint64`` array, one word a slot). Each slot
        draws from its own stream only, so the result does not depend on the
        kernel, nor on how the slots are grouped: the C kernel plays each slot
        to its end in one call (``play_random_into``), the others step every
        waiting slot a round at a time, and both give the same states, facts
        and streams, bit for bit.

        With ``slots`` (an index array), only those slots are played; the
        others are left alone, and gain 0. ``seats`` and ``streams`` are still
        one a slot of the batch.

        Returns what ``seats[i]``'s side gained meanwhile (the ``"points"``
        rewards of that seat added up) and how many actions were applied.

        >>> matches = BatchedMatches(3, players=4)
        >>> matches.reset(5)
        >>> streams = np.array([1, 2, 3], np.uint64)
        >>> played = matches.play_random(np.zeros(3, np.int64), streams)
        >>> matches.turn.tolist(), played.gains.shape
        ([0, 0, 0], (3,))

        :raises RuntimeError: before :meth:`reset`.
        :raises ValueError: if ``seats`` is not one seat of the match a slot,
            or ``streams`` not a writable ``uint64`` array of one word a slot,
            or the slots are not distinct indices of the batch.
        """
        if not self._ready:
            raise RuntimeError("call reset() before play_random()")
        n = self.num_matches
        chosen = self._check_random(seats, streams)
        gains = np.zeros(n, np.int32)
        if slots is not None:
            index = self._slots(slots)
            if self._step_whole and len(index) < n:
                return self._play_random_some(chosen, streams, index, gains)
            every = index
        else:
            every = np.arange(n)
        if self._step_whole:
            kernel: Any = self._kernel
            applied = kernel.play_random_into(
                self.state,
                self.facts,
                chosen,
                streams,
                self.mask,
                gains,
                self.done,
                self._errors,
                self.history,
            )
            if (self._errors != batch.OK).any():
                first = int(np.argmax(self._errors != batch.OK))
                raise ValueError(f"slot {first} holds words no step made: it cannot be played")
            return RandomPlay(gains, int(applied))
        applied = 0
        while True:
            waiting = every[~self.done[every] & (self.turn[every] != chosen[every])]
            if not len(waiting):
                return RandomPlay(gains, applied)
            masks = self.mask[waiting]
            picks = below(streams, waiting, masks.sum(axis=1))
            actions = np.argmax(np.cumsum(masks, axis=1) > picks[:, None], axis=1)
            out = self.step(actions, waiting)
            if (out.errors != batch.OK).any():
                first = int(waiting[np.argmax(out.errors != batch.OK)])
                raise ValueError(f"slot {first} holds words no step made: it cannot be played")
            applied += len(waiting)
            gains[waiting] += out.rewards[np.arange(len(waiting)), chosen[waiting]]


_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def below(streams: Any, slots: Any, counts: Any) -> Any:
    """An unbiased integer below ``counts[j]`` from stream ``streams[slots[j]]``, for each j.

    The vectorised twin of :func:`american_sniff.rng.below` (SplitMix64, an
    output at or above the largest multiple of the count below 2**64 drawn
    again), each stream advanced in place by the draws it made. Returns an
    ``int64`` array.

    >>> from american_sniff.rng import below as below_one
    >>> streams = np.array([7, 8], np.uint64)
    >>> below(streams, [0, 1], [6, 28]).tolist() == [below_one(6, 7)[0], below_one(28, 8)[0]]
    True
    >>> int(streams[0]) == below_one(6, 7)[1]
    True

    :raises ValueError: if a count is not positive.
    """
    n = np.asarray(counts).astype(np.uint64)
    if len(n) and (n == 0).any():
        raise ValueError("below() needs positive counts")
    index = np.asarray(slots, np.intp)
    result = np.zeros(len(index), np.int64)
    with np.errstate(over="ignore"):
        rest = (np.uint64(0) - n) % n  # 2**64 % n, the outputs redrawn at the top
        todo = np.arange(len(index))
        while len(todo):
            at = index[todo]
            state = streams[at] + _GAMMA
            streams[at] = state
            z = (state ^ (state >> np.uint64(30))) * _MIX1
            z = (z ^ (z >> np.uint64(27))) * _MIX2
            z ^= z >> np.uint64(31)
            kept = (rest[todo] == 0) | (z < np.uint64(0) - rest[todo])
            result[todo[kept]] = (z[kept] % n[todo[kept]]).astype(np.int64)
            todo = todo[~kept]
    return result
