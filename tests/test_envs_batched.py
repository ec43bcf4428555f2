"""The batched all-seats interface (american_sniff.envs.batched), on both kernels, against apply."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from american_sniff import apply, new_match, view_for  # noqa: E402
from american_sniff.actions import action_mask, legal_actions, move_of  # noqa: E402
from american_sniff.batch import BACKENDS, ILLEGAL, OK, OUT_OF_RANGE  # noqa: E402
from american_sniff.envs.batched import (  # noqa: E402
    BatchedMatches,
    RandomPolicy,
    random_policy,
    slot_seeds,
)
from american_sniff.envs.rewards import rewards  # noqa: E402
from american_sniff.observation import encode  # noqa: E402

KERNELS = [
    "python",
    pytest.param("c", marks=pytest.mark.skipif("c" not in BACKENDS, reason="no C kernel")),
]


@pytest.mark.parametrize("backend", KERNELS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_seat_in_lockstep_with_apply(backend: str, players: int) -> None:
    """Observations, masks, turns, rewards and the end equal apply's; some steps skip a slot."""
    seeds = [11, 12, 13, 14]
    matches = BatchedMatches(len(seeds), players, backend=backend)
    matches.reset(seeds)
    states = [new_match(players, seed=s) for s in seeds]
    chooser = random.Random(players)
    compared = 0
    for turn in range(120 if backend == "python" else 400):
        seen = matches.observe()
        for i, state in enumerate(states):
            assert bool(matches.done[i]) == (state.winner is not None)
            if state.winner is None:
                assert int(matches.turn[i]) == state.turn
                assert (seen[i] == np.array(encode(view_for(state, state.turn)))).all()
                assert matches.mask[i].astype(int).tolist() == list(action_mask(state))
                compared += 1
            else:
                assert int(matches.winner[i]) == state.winner
        # Every third step leaves slot 0 alone, to exercise stepping some slots.
        slots = [1, 2, 3] if turn % 3 == 0 else None
        stepped = list(range(len(seeds))) if slots is None else slots
        actions = [
            chooser.choice(legal_actions(states[i])) if states[i].winner is None else 0
            for i in stepped
        ]
        out = matches.step(np.array(actions), None if slots is None else np.array(slots))
        for j, i in enumerate(stepped):
            state = states[i]
            if state.winner is None:
                after = apply(state, move_of(state, actions[j]))
                expected = rewards("points", state, after)
                assert out.rewards[j].tolist()[:players] == [int(r) for r in expected]
                assert out.errors[j] == OK
                states[i] = after
            else:
                assert out.errors[j] != OK  # a finished match refuses every action
    assert compared > 300


@pytest.mark.parametrize("backend", KERNELS)
def test_refused_actions_keep_the_slot(backend: str) -> None:
    """An illegal or out-of-range action is refused for its slot alone, which keeps its state."""
    matches = BatchedMatches(3, 2, backend=backend)
    matches.reset(5)
    assert matches.seeds.tolist() == [5, 6, 7]
    before = matches.state.copy()
    legal = int(matches.mask[2].argmax())
    illegal = int(np.flatnonzero(~matches.mask[0])[0])
    out = matches.step(np.array([illegal, 9999, legal]))
    assert out.errors.tolist() == [ILLEGAL, OUT_OF_RANGE, OK]
    assert (matches.state[:2] == before[:2]).all()
    assert (matches.state[2] != before[2]).any()
    assert out.rewards[:2].tolist() == [[0, 0, 0, 0], [0, 0, 0, 0]]


@pytest.mark.parametrize("backend", KERNELS)
def test_reset_slots_deals_new_matches(backend: str) -> None:
    """reset_slots deals the slots named, and only those, the matches of their seeds."""
    matches = BatchedMatches(3, 3, backend=backend)
    matches.reset([1, 2, 3])
    matches.step(matches.mask.argmax(axis=1))
    kept = matches.state[1].copy()
    matches.reset_slots(np.array([0, 2]), [40, 41])
    assert matches.seeds.tolist() == [40, 2, 41]
    assert (matches.state[1] == kept).all()
    fresh = new_match(3, seed=41)
    assert int(matches.turn[2]) == fresh.turn
    assert (matches.observe([2])[0] == np.array(encode(view_for(fresh, fresh.turn)))).all()


def test_random_policy_picks_legal_actions_uniformly() -> None:
    """Every pick is legal, and over many picks each legal action comes up about equally often."""
    policy = random_policy(seed=3)
    assert isinstance(policy, RandomPolicy)
    assert policy.observes is False
    mask = np.zeros((3000, 450), bool)
    mask[:, [4, 100, 449]] = True
    mask[::2, 7] = True
    picks = policy(None, mask)
    assert mask[np.arange(3000), picks].all()
    counts = np.bincount(picks[1::2], minlength=450)[[4, 100, 449]]
    assert counts.min() > 400  # 1,500 picks among 3 actions: 500 each expected
    assert RandomPolicy(seed=3)(None, mask).tolist() == picks.tolist()
    assert policy(None, np.zeros((2, 450), bool)).tolist() == [0, 0]


def test_slot_seeds() -> None:
    """An integer seed gives consecutive seeds modulo 2**64; a sequence is taken as it is."""
    assert slot_seeds(2**64 - 1, 2).tolist() == [2**64 - 1, 0]
    assert slot_seeds([3, 1], 2).tolist() == [3, 1]
    with pytest.raises(ValueError, match="one seed a slot"):
        slot_seeds([1], 2)
    with pytest.raises(ValueError, match="a seed is an integer"):
        slot_seeds([1.5, 2], 2)
    with pytest.raises(ValueError, match="a seed is an integer"):
        slot_seeds("12", 2)


def test_misuse_is_refused() -> None:
    """Bad sizes, counts, kernels and calls out of order get clear errors."""
    with pytest.raises(ValueError, match="num_matches"):
        BatchedMatches(0)
    with pytest.raises(ValueError, match="players"):
        BatchedMatches(2, 5)
    with pytest.raises(ValueError, match="backend"):
        BatchedMatches(2, backend="fortran")
    matches = BatchedMatches(2)
    with pytest.raises(RuntimeError, match="reset"):
        matches.step(np.array([0, 0]))
    matches.reset(1)
    with pytest.raises(ValueError, match="one action a slot"):
        matches.step(np.array([0]))
    with pytest.raises(ValueError, match="one action a slot stepped"):
        matches.step(np.array([0]), np.array([0, 1]))
    with pytest.raises(ValueError, match="integers"):
        matches.step(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="from 0 to 1"):
        matches.step(np.array([0]), np.array([2]))
    with pytest.raises(ValueError, match="once"):
        matches.step(np.array([0, 0]), np.array([1, 1]))
    with pytest.raises(ValueError, match="integer indices"):
        matches.reset_slots(np.array([0.5]), [1])
    with pytest.raises(ValueError, match="one seed a slot"):
        matches.reset_slots(np.array([0, 1]), [1])
