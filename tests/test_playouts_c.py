"""The search bot's playouts in C (bots._playouts, batch/_cplay.c) against the Python ones."""

from __future__ import annotations

import random
from array import array
from collections.abc import Iterator

import pytest

from american_sniff import MatchState, Place, apply, legal_moves, new_match, view_for
from american_sniff.actions import action_of
from american_sniff.batch import BACKENDS, STATE_WORDS, reset, step
from american_sniff.bots import _kernel, _playouts, make_bot
from american_sniff.bots.search import Determiniser

pytestmark = pytest.mark.skipif(not _playouts.ENABLED, reason="the C batch extension is not built")


def positions(matches: int, chance: float, seed: int) -> Iterator[MatchState]:
    """Decisions of two moves or more from random matches of 2, 3 and 4 players."""
    chooser = random.Random(seed)
    for match in range(matches):
        state = new_match(2 + match % 3, seed=seed * 1000 + match)
        while state.winner is None:
            moves = legal_moves(state)
            if len(moves) > 1 and chooser.random() < chance:
                yield state
            state = apply(state, moves[chooser.randrange(len(moves))])


def _score(
    world: MatchState, seat: int, options: tuple[bool, int, float], use_c: bool
) -> tuple[list[float], int]:
    random_policy, depth, settle = options
    moves = legal_moves(world)
    totals = [0.0] * len(moves)
    _playouts.USE_C = use_c
    try:
        rng = _kernel.score_deal(world, moves, seat, random_policy, depth, settle, totals, 12345)
    finally:
        _playouts.USE_C = True
    return totals, rng


@pytest.mark.parametrize(
    "options", [(False, -1, 1.0), (False, 4, 0.75), (True, -1, 0.0), (True, 6, 0.5)]
)
@pytest.mark.sweep
def test_c_playouts_give_the_python_values_bit_for_bit(options: tuple[bool, int, float]) -> None:
    """score_deal's totals and rng are the same bits with the C playouts and without."""
    compared = 0
    for state in positions(24, 0.2, 1):
        view = view_for(state, state.turn)
        world, _ = Determiniser(view).sample(compared)
        assert _score(world, state.turn, options, True) == _score(world, state.turn, options, False)
        compared += 1
    assert compared > 100


@pytest.mark.parametrize("options", [(False, -1, 1.0), (True, 4, 0.5)])
def test_a_draw_or_a_pass_is_played_out_as_in_python(options: tuple[bool, int, float]) -> None:
    """Positions whose only move is a draw or a pass (the search's callers may score them)."""
    chooser = random.Random(5)
    kinds: set[str] = set()
    compared = 0
    for match in range(40):
        state = new_match(2 + match % 3, seed=700 + match)
        while state.winner is None and compared < 120:
            moves = legal_moves(state)
            if len(moves) == 1 and not isinstance(moves[0], Place):
                kinds.add(type(moves[0]).__name__)
                view = view_for(state, state.turn)
                world, _ = Determiniser(view).sample(compared)
                fast = _score(world, state.turn, options, True)
                assert fast == _score(world, state.turn, options, False)
                compared += 1
            state = apply(state, moves[chooser.randrange(len(moves))])
    assert kinds == {"Draw", "Pass"}
    assert compared > 50


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 4])
def test_the_expert_bot_chooses_the_same_moves_with_c_playouts(players: int) -> None:
    """The whole search (inference, pruning) decides alike on either path."""
    views = [view_for(state, state.turn) for state in positions(12, 0.1, players)]
    views = [view for view in views if view.players == players][:25]
    assert len(views) >= 10
    fast = [make_bot("expert", seed=3).choose(view) for view in views]
    _playouts.USE_C = False
    try:
        slow = [make_bot("expert", seed=3).choose(view) for view in views]
    finally:
        _playouts.USE_C = True
    assert fast == slow


def test_world_words_are_the_batch_kernels_words() -> None:
    """A state reached by apply and the kernel's slot reached by the same actions agree."""
    chooser = random.Random(7)
    checked = 0
    for players in (2, 3, 4):
        for seed in range(6):
            state = new_match(players, seed=seed)
            slot = reset([seed], players, backend="c").state
            while state.winner is None:
                words = _playouts.world_words(state)
                kernel = list(slot)
                start = kernel[5]
                # The counters, the seed and the stock already drawn are not the world's.
                for index in (24, 25, 26, 27):
                    kernel[index] = 0
                for index in range(28, 28 + start):
                    kernel[index] = 0
                assert list(words) == kernel, (players, seed, state.info.round)
                checked += 1
                moves = legal_moves(state)
                move = moves[chooser.randrange(len(moves))]
                slot = step(slot, array("q", [action_of(state, move)]), backend="c").state
                state = apply(state, move)
    assert checked > 500


def test_playout_values_refuses_bad_input_with_value_error() -> None:
    """Wrong sizes, illegal actions, bad seats, broken or finished worlds: ValueError, no crash."""
    playout_values = BACKENDS["c"].playout_values  # type: ignore[attr-defined]
    state = new_match(2, seed=4)
    words = _playouts.world_words(state)
    legal = [action_of(state, move) for move in legal_moves(state)]
    values, rng = playout_values(words, legal, state.turn, False, -1, 1.0, 9)
    assert len(values) == len(legal)
    assert rng == 9  # the greedy policy draws nothing
    with pytest.raises(ValueError, match="48 int32 words"):
        playout_values(array("i", [0] * (STATE_WORDS - 1)), legal, 0, False, -1, 1.0, 9)
    with pytest.raises(ValueError, match="not legal"):
        playout_values(words, [447 if 447 not in legal else 446], 0, False, -1, 1.0, 9)
    with pytest.raises(ValueError, match="not legal"):
        playout_values(words, [-1], 0, False, -1, 1.0, 9)
    with pytest.raises(ValueError, match="not one of its seats"):
        playout_values(words, legal, 2, False, -1, 1.0, 9)
    broken = array("i", words)
    broken[0] = 7
    with pytest.raises(ValueError, match="kernel can step"):
        playout_values(broken, legal, 0, False, -1, 1.0, 9)
    over = array("i", words)
    over[3] = 0
    with pytest.raises(ValueError, match="over"):
        playout_values(over, legal, 0, False, -1, 1.0, 9)
    with pytest.raises(TypeError):
        playout_values(words, [1.5], 0, False, -1, 1.0, 9)
    with pytest.raises(ValueError, match="at most 450"):
        playout_values(words, [0] * 451, 0, False, -1, 1.0, 9)
