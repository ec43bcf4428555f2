"""The batch observation (american_sniff.batch.observe) equals encode(view_for(...)) in lockstep."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from american_sniff import apply, new_match, view_for  # noqa: E402
from american_sniff.actions import legal_actions, move_of  # noqa: E402
from american_sniff.batch import BACKENDS, reset, step  # noqa: E402
from american_sniff.batch.observe import advance_facts, observe, start_facts  # noqa: E402
from american_sniff.observation import encode  # noqa: E402

KERNELS = [
    "python",
    pytest.param("c", marks=pytest.mark.skipif("c" not in BACKENDS, reason="no C kernel")),
]


@pytest.mark.parametrize("backend", KERNELS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_observe_equals_encode_in_lockstep(backend: str, players: int) -> None:
    """Each slot's observation of its seat to move is encode(view_for(state, turn)), every step."""
    seeds = list(range(4))
    chooser = random.Random(players)
    out = reset(np.array(seeds, np.uint64), players, backend=backend)
    facts = start_facts(out.state)
    states = [new_match(players, seed=s) for s in seeds]
    compared = 0
    for _ in range(150 if backend == "python" else 400):
        seen = observe(out.state, facts)
        for i, state in enumerate(states):
            if state.winner is None:
                expected = np.array(encode(view_for(state, state.turn)))
                assert (seen[i] == expected).all(), np.nonzero(seen[i] != expected)
                compared += 1
        actions = [chooser.choice(legal_actions(s)) if s.winner is None else 0 for s in states]
        after = step(out.state, np.array(actions), backend=backend)
        advance_facts(facts, out.state, np.array(actions), after.state, after.errors)
        out = after
        states = [
            apply(s, move_of(s, a)) if s.winner is None else s
            for s, a in zip(states, actions, strict=True)
        ]
    assert compared > 400
