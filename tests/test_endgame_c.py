"""The exact endgame in C (batch/_cendgame.c, bots._playouts) against the Python search."""

from __future__ import annotations

import random
from array import array
from collections.abc import Iterator
from typing import Any

import pytest

from american_sniff import GreedyBot, MatchState, Pass, apply, legal_moves, new_match, view_for
from american_sniff.actions import PASS_ACTION, action_of
from american_sniff.batch import BACKENDS, STATE_WORDS
from american_sniff.bots import _playouts, make_bot
from american_sniff.bots import search as search_module
from american_sniff.bots.endgame import endgame_values

pytestmark = pytest.mark.skipif(
    not _playouts.ENDGAME_ENABLED, reason="the C batch extension is not built"
)

#: Budgets from none to plenty: the small ones run out on most positions.
BUDGETS = (0, 1, 2, 5, 12, 40, 150, 600, 2_500)


def endgame_positions(players: int, count: int, seed: int) -> Iterator[MatchState]:
    """Positions of random and greedy matches with the stock empty, every other one taken."""
    chooser = random.Random(seed)
    greedy = GreedyBot()
    found = 0
    match = 0
    while found < count:
        state = new_match(players, seed=seed * 1000 + match)
        greedily = match % 2 == 1
        match += 1
        while state.winner is None and found < count:
            moves = legal_moves(state)
            if state.stock_size == 0 and chooser.random() < 0.5:
                yield state
                found += 1
            if greedily:
                move = greedy.choose(view_for(state, state.turn))
            else:
                move = moves[chooser.randrange(len(moves))]
            state = apply(state, move)


def _both(
    state: MatchState, seat: int, nodes: int
) -> tuple[tuple[list[float], int] | None, tuple[list[float], int] | None]:
    moves = legal_moves(state)
    fast = endgame_values(state, seat, moves, nodes)
    _playouts.USE_C = False
    try:
        slow = endgame_values(state, seat, moves, nodes)
    finally:
        _playouts.USE_C = True
    return fast, slow


def _bits(found: tuple[list[float], int] | None) -> object:
    return None if found is None else ([value.hex() for value in found[0]], found[1])


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 4])
def test_c_endgame_gives_the_python_values_and_nodes_bit_for_bit(players: int) -> None:
    """Every position, seat and budget: the same values (the same bits), nodes, or None."""
    compared = searched = gave_up = passes = 0
    for index, state in enumerate(endgame_positions(players, 120, 10 + players)):
        seats = [state.turn, (state.turn + 1) % players]
        for nodes in BUDGETS:
            fast, slow = _both(state, seats[index % 2], nodes)
            assert _bits(fast) == _bits(slow), (players, index, nodes)
            compared += 1
            searched += fast is not None
            gave_up += fast is None
        passes += legal_moves(state) == (Pass(),)
    assert compared == 120 * len(BUDGETS)
    assert searched > 300
    assert gave_up > 300
    assert passes > 0


@pytest.mark.parametrize("players", [2, 4])
def test_a_search_that_fits_gives_the_same_answer_within_any_larger_budget(players: int) -> None:
    """The nodes a search spent are exactly the budget it needs: one fewer gives up."""
    checked = 0
    for state in endgame_positions(players, 40, 30 + players):
        moves = legal_moves(state)
        found = endgame_values(state, state.turn, moves, 20_000)
        if found is None:
            continue
        spent = found[1]
        assert endgame_values(state, state.turn, moves, spent) == found
        assert endgame_values(state, state.turn, moves, spent + 7) == found
        assert endgame_values(state, state.turn, moves, spent - 1) is None
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("players", [2, 4])
def test_the_expert_bot_chooses_the_same_moves_with_the_c_endgame(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search bot's endgame decisions are the same with the C search and without."""
    answers: list[bool] = []

    def counted(*args: Any, **kwargs: Any) -> tuple[list[float], int] | None:
        found = endgame_values(*args, **kwargs)
        answers.append(found is not None)
        return found

    monkeypatch.setattr(search_module, "endgame_values", counted)
    views = [
        view_for(state, state.turn)
        for state in endgame_positions(players, 40, 50 + players)
        if len(legal_moves(state)) > 1
    ][:10]
    assert len(views) >= 6
    fast = [make_bot("expert", seed=3).choose(view) for view in views]
    _playouts.USE_C = False
    try:
        slow = [make_bot("expert", seed=3).choose(view) for view in views]
    finally:
        _playouts.USE_C = True
    assert fast == slow
    assert sum(answers) >= len(views)  # (the searches that fit, both ways)


def test_a_deadline_keeps_the_python_search() -> None:
    """With a deadline the Python search runs, and finds what the C one finds."""
    state = next(endgame_positions(2, 1, 3))
    moves = legal_moves(state)
    assert endgame_values(state, state.turn, moves, 10**6, deadline=10.0**12) == endgame_values(
        state, state.turn, moves, 10**6
    )


def test_endgame_values_refuses_bad_input_with_value_error() -> None:
    """Wrong sizes, illegal actions, bad seats, broken, unfinished or finished worlds."""
    search = BACKENDS["c"].endgame_values  # type: ignore[attr-defined]
    state = next(endgame_positions(2, 1, 5))
    words = _playouts.world_words(state)
    legal = [action_of(state, move) for move in legal_moves(state)]
    found = search(words, legal, state.turn, 10**6)
    assert found is not None
    assert len(found[0]) == len(legal)
    assert search(words, [], state.turn, 0) == ([], 0)
    assert search(words, legal, state.turn, len(legal) - 1) is None
    with pytest.raises(ValueError, match="48 int32 words"):
        search(array("i", [0] * (STATE_WORDS - 1)), legal, 0, 100)
    with pytest.raises(ValueError, match="not legal"):
        search(words, [PASS_ACTION if PASS_ACTION not in legal else 0], 0, 100)
    with pytest.raises(ValueError, match="not legal"):
        search(words, [450], 0, 100)
    with pytest.raises(ValueError, match="not one of its seats"):
        search(words, legal, 2, 100)
    with pytest.raises(ValueError, match="not one of its seats"):
        search(words, legal, -1, 100)
    broken = array("i", words)
    broken[6] = 3
    with pytest.raises(ValueError, match="kernel can step"):
        search(broken, legal, 0, 100)
    over = array("i", words)
    over[3] = 1
    with pytest.raises(ValueError, match="over"):
        search(over, legal, 0, 100)
    stocked = array("i", words)
    stocked[5] = 13
    with pytest.raises(ValueError, match="empty stock"):
        search(stocked, legal, 0, 100)
    stuck = array("i", words)
    stuck[9] = stuck[11] = stuck[12] = stuck[13] = 0  # nothing open: every seat passes, forever
    with pytest.raises(ValueError, match="kernel can step"):
        search(stuck, [PASS_ACTION], state.turn, 10**6)
    assert search(stuck, [PASS_ACTION], state.turn, 100) is None  # (the nodes run out first)
    fresh = new_match(3, seed=2)
    with pytest.raises(ValueError, match="2 or 4 players"):
        search(_playouts.world_words(fresh), [], 0, 100)
    with pytest.raises(TypeError):
        search(words, [1.5], 0, 100)
    with pytest.raises(ValueError, match="at most 450"):
        search(words, [0] * 451, 0, 100)
    with pytest.raises(ValueError, match="not one of its seats"):
        endgame_values(state, 5, legal_moves(state), 100)
