"""Where a round's generator stands: exactly what the rounds before drew, with no slack (issue 42).

For a seed, every lot's and deal's draws are fixed, and so are the redraws:
below(n) redraws only the top outputs, which come from 25 generator states
(SplitMix64's output is a bijection of its state). A save whose round began
a few outputs off what play gives is a forgery that picks its deal among
several, and the loader refuses it.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from american_sniff import (
    ALL_TILES,
    Deal,
    InvalidState,
    MatchState,
    apply,
    legal_moves,
    new_match,
)
from american_sniff.rng import MASK64, below, next_u64
from american_sniff.validation import _LEAST_REDRAWN, _REDRAWN_STATES, _redraws_possible

GAMMA = 0x9E3779B97F4A7C15


def _round_three(players: int, seed: int, deals: tuple[Deal, ...] = ()) -> dict[str, Any]:
    """The first state of round 3 of ``seed``'s match, by random play (some play reaches it)."""
    for play in range(40):
        chooser = random.Random(play)
        state = new_match(players, seed=seed, deals=deals)
        while state.round < 3 and state.winner is None:
            state = apply(state, chooser.choice(legal_moves(state)))
        if state.round == 3:
            doc: dict[str, Any] = json.loads(state.to_json())
            return doc
    raise AssertionError("no play reached round 3")


def _loads(doc: dict[str, Any]) -> bool:
    """Whether ``doc`` loads; if not, the generator's position must be why."""
    problem = ""
    try:
        MatchState.from_json(json.dumps(doc))
    except InvalidState as error:
        problem = str(error)
    assert not problem or "generator" in problem, problem
    return not problem


def _relabelled(players: int, seed: int, start: int) -> dict[str, Any]:
    """Round 3 of a seeded match whose round 2 began ``start`` outputs after ``seed``.

    It is the match of another seed, whose round 1 drew 28 outputs (its shuffle
    and its lot), saved under ``seed``.
    """
    doc = _round_three(players, (seed + (start - 28) * GAMMA) & MASK64)
    assert doc["last_round"]["dealt_from"] == "seed"
    doc["seed"] = str(seed)
    return doc


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("start", [2, 3, 4, 5, 29, 30, 31, 32])
def test_a_previous_round_started_a_few_outputs_off_play_is_refused(
    players: int, start: int
) -> None:
    """Round 2 begins 0 or 1 outputs after the seed (a given round 1) or 28: never 2-5 or 29-32."""
    assert not _loads(_relabelled(players, 12345 + players, start))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("start", [0, 1, 28])
def test_a_previous_round_started_where_play_leaves_it_loads(players: int, start: int) -> None:
    """The starts play gives: after a given round 1 with and without its lot, or a seeded one."""
    assert _loads(_relabelled(players, 12345 + players, start))


def _given(players: int, chooser: random.Random) -> Deal:
    tiles = list(ALL_TILES)
    chooser.shuffle(tiles)
    size = {2: 7, 3: 6, 4: 5}[players]
    return Deal([tiles[s * size : (s + 1) * size] for s in range(players)], tiles[players * size :])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_seeded_round_after_two_given_ones_starts_at_most_two_outputs_in(players: int) -> None:
    """Two given rounds draw at most their two lots: round 3 starts 0 to 2 outputs after the seed.

    The match is played from a seed ``shift`` outputs after the saved one, so
    its round 3 begins ``shift`` plus its lots (1 or 2) outputs in.
    """
    chooser = random.Random(players)
    deals = (_given(players, chooser), _given(players, chooser))
    seed = 999
    verdicts = {}
    for shift in range(6):
        doc = _round_three(players, (seed + shift * GAMMA) & MASK64, deals)
        assert doc["dealt_from"] == "seed"
        assert doc["last_round"]["dealt_from"] == "deal"
        doc["seed"] = str(seed)
        verdicts[shift] = _loads(doc)
    # Round 1 drew its lot (its deal names no opener): its start is shift + 1 or 2.
    assert verdicts[0]
    assert not any(verdicts[shift] for shift in range(2, 6))


def test_the_redrawn_states_give_exactly_the_outputs_a_draw_redraws() -> None:
    """Each of the 25 states gives one of the top outputs, and below(n) redraws it for some n."""
    assert len(_REDRAWN_STATES) == 2**64 - _LEAST_REDRAWN == len(set(_REDRAWN_STATES))
    for state in _REDRAWN_STATES:
        output, _ = next_u64((state - GAMMA) & MASK64)
        assert output >= _LEAST_REDRAWN
    top = _REDRAWN_STATES[0]  # output 2**64 - 1: every n but a power of two redraws it
    before = (top - GAMMA) & MASK64
    assert below(28, before)[1] == (top + GAMMA) & MASK64  # two outputs drawn
    assert below(4, before)[1] == top  # a power of two takes every output


def test_only_a_seed_that_passes_a_redrawn_state_may_have_a_redraw() -> None:
    """The outputs a draw may redraw are counted where they are, and nowhere else."""
    top = _REDRAWN_STATES[0]
    seed = (top - 5 * GAMMA) & MASK64  # output 5 is the top one
    assert _redraws_possible(seed, 4) == 0
    assert _redraws_possible(seed, 5) == 1
    assert _redraws_possible(seed, 10**6) == 1
    assert _redraws_possible(12345, 10**6) == 0


def test_the_kept_positions_count_as_the_states_do() -> None:
    """_redraws_possible (positions kept per seed) counts as a direct walk of the 25 states.

    Seeds placed so that several redrawn states fall early, at position 0
    (the seed itself, no output) and at small counts, each asked twice (the
    second answer comes from what was kept).
    """
    states = _REDRAWN_STATES
    seeds = [
        12345,
        states[3],  # position 0 for one state: the seed, which gives no output
        (states[0] - 5 * GAMMA) & MASK64,
        (states[7] - 40 * GAMMA) & MASK64,
    ]

    def direct(seed: int, outputs: int) -> int:
        return sum(
            1 <= ((state - seed) * pow(GAMMA, -1, 1 << 64)) & MASK64 <= outputs for state in states
        )

    for seed in seeds:
        for outputs in (0, 1, 4, 5, 39, 40, 41, 10**6, 2**64 - 1):
            expected = direct(seed, outputs)
            assert _redraws_possible(seed, outputs) == expected
            assert _redraws_possible(seed, outputs) == expected
    assert _redraws_possible(states[3], 2**64 - 1) == len(states) - 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_match_with_a_redraw_in_its_first_deal_loads_in_round_three(players: int) -> None:
    """Round 1's first draw, below(28), meets the top output, drawn again: round 2 starts 29 in."""
    seed = (_REDRAWN_STATES[0] - GAMMA) & MASK64
    doc = _round_three(players, seed)
    assert _loads(doc)
