"""The exact endgame: alpha-beta over the rest of a round once the stock is empty."""

from __future__ import annotations

import random
import time
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from american_sniff import (
    Draw,
    GreedyBot,
    MatchState,
    Move,
    Pass,
    Place,
    apply,
    legal_moves,
    new_match,
    view_for,
)
from american_sniff.actions import DRAW_ACTION, PASS_ACTION, action_of
from american_sniff.bots import SearchBot, _playouts, winning_moves
from american_sniff.bots.endgame import endgame_values, outcome_value
from american_sniff.bots.search import ENDGAME_NODES
from american_sniff.rules import side_of


def _terminal(state: MatchState, round_number: int) -> bool:
    return state.winner is not None or state.round != round_number


def _value(start: MatchState, end: MatchState, seat: int) -> float:
    """The value of a finished round or match, written out again from the rules of the bots."""
    mine = side_of(start.players, seat)
    if end.winner is not None:
        return 2.0 * end.target if end.winner == mine else -2.0 * end.target
    gains = [after - before for after, before in zip(end.scores, start.scores, strict=True)]
    return float(gains[mine] - gains[1 - mine])


def _minimax(start: MatchState, state: MatchState, seat: int) -> float:
    """Plain minimax of the rest of the round (no pruning, no table): the reference."""
    if _terminal(state, start.round):
        return _value(start, state, seat)
    values = [_minimax(start, apply(state, move), seat) for move in legal_moves(state)]
    mine = side_of(state.players, state.turn) == side_of(state.players, seat)
    return max(values) if mine else min(values)


def _empty_stock_positions(players: int, count: int, seed: int, most: int) -> list[MatchState]:
    """Random-play positions with the stock empty, a choice, and at most ``most`` tiles held."""
    chooser = random.Random(seed)
    found: list[MatchState] = []
    deal = seed
    while len(found) < count:
        state = new_match(players, seed=deal)
        deal += 1
        while state.winner is None and len(found) < count:
            moves = legal_moves(state)
            held = sum(len(hand) for hand in state.hands)
            if state.stock_size == 0 and len(moves) > 1 and held <= most:
                found.append(state)
            state = apply(state, chooser.choice(moves))
    return found


@pytest.mark.parametrize("players", [2, 4])
def test_the_values_are_those_of_plain_minimax(players: int) -> None:
    """Pruning and the table of positions change no value: each move's value is the minimax one."""
    for state in _empty_stock_positions(players, 25, 40 + players, 8):
        moves = legal_moves(state)
        found = endgame_values(state, state.turn, moves, 1_000_000)
        assert found is not None
        values, spent = found
        assert values == [_minimax(state, apply(state, m), state.turn) for m in moves]
        assert len(moves) <= spent <= 1_000_000


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), nodes=st.integers(1, 60))
def test_a_search_keeps_within_its_nodes_or_gives_up(seed: int, nodes: int) -> None:
    """A search spends at most its nodes; one that needs more returns None."""
    state = _empty_stock_positions(2, 1, seed, 8)[0]
    moves = legal_moves(state)
    unbounded = endgame_values(state, state.turn, moves, 10**6)
    assert unbounded is not None
    bounded = endgame_values(state, state.turn, moves, nodes)
    if unbounded[1] <= nodes:
        assert bounded == unbounded
    else:
        assert bounded is None


def _forced_win(state: MatchState, side: int, round_number: int) -> bool:
    """Whether ``side`` wins the match within this round whatever the other side does."""
    if state.winner is not None:
        return state.winner == side
    if state.round != round_number:
        return False
    outcomes = (_forced_win(apply(state, m), side, round_number) for m in legal_moves(state))
    return any(outcomes) if side_of(state.players, state.turn) == side else all(outcomes)


def _winning_line_position() -> MatchState:
    """Seat 1 ten points from the target, the stock empty, and no placement winning at once.

    Played greedily from the deal of seed 196: seat 0 holds [0|1] and [1|1],
    seat 1 holds [0|3], [1|4], [2|2] and [2|4], the scores are 130 to 240.
    """
    state = new_match(2, seed=196)
    greedy = GreedyBot()
    while not (
        state.stock_size == 0
        and sum(len(h) for h in state.hands) <= 6
        and len(legal_moves(state)) > 1
    ):
        state = apply(state, greedy.choose(view_for(state, state.turn)))
    return state


def test_the_bot_finds_a_winning_line_that_greedy_misses() -> None:
    """The bot plays into a forced win over two turns; the most points now do not force it."""
    state = _winning_line_position()
    view = view_for(state, state.turn)
    side = side_of(2, state.turn)
    assert (state.turn, state.scores, [len(h) for h in state.hands]) == (1, (130, 240), [2, 4])
    assert not winning_moves(view)
    greedy = GreedyBot().choose(view)
    assert not _forced_win(apply(state, greedy), side, state.round)
    for bot in (SearchBot(seed=1, playouts=1), SearchBot(seed=2, playouts=8)):
        assert _forced_win(apply(state, bot.choose(view)), side, state.round)


def test_the_bot_steers_clear_of_a_forced_loss_that_the_playouts_walk_into() -> None:
    """Seed 97, played greedily until seat 1 has a choice, the stock empty, seat 0 at 225.

    One of seat 1's two placements lets seat 0 force the match's win within
    the round; short playouts (the bot without its exact endgame) pick it,
    and the exact search does not.
    """
    state = new_match(2, seed=97)
    greedy = GreedyBot()
    while not (
        state.stock_size == 0
        and state.turn == 1
        and state.scores[0] >= 225
        and len(legal_moves(state)) > 1
    ):
        state = apply(state, greedy.choose(view_for(state, state.turn)))
    view = view_for(state, 1)
    assert (state.scores, [len(h) for h in state.hands], len(view.legal_moves)) == (
        (225, 120),
        [6, 4],
        2,
    )
    losing = [m for m in view.legal_moves if _forced_win(apply(state, m), 0, state.round)]
    assert len(losing) == 1
    for bot in (SearchBot(seed=1, playouts=16), SearchBot(seed=2, playouts=64)):
        assert bot.choose(view) not in losing


def test_the_bot_plays_the_best_exact_value_with_two_players() -> None:
    """With two players and the stock empty, a search bot's choice has the best exact value."""
    for state in _empty_stock_positions(2, 40, 7, 10):
        view = view_for(state, state.turn)
        if winning_moves(view):
            continue
        found = endgame_values(state, state.turn, view.legal_moves, 8 * ENDGAME_NODES[2])
        if found is None:
            continue
        values = found[0]
        choice = SearchBot(seed=5, playouts=8).choose(view)
        assert values[view.legal_moves.index(choice)] == max(values)


def _choices(bot: SearchBot, states: list[MatchState]) -> list[Move]:
    return [bot.choose(view_for(state, state.turn)) for state in states]


def test_with_four_players_the_same_seed_makes_the_same_choices() -> None:
    """The sampled splits of the hidden tiles are drawn from the seed: a choice is reproducible."""
    states = _empty_stock_positions(4, 30, 11, 12)
    first = _choices(SearchBot(seed=3, playouts=4), states)
    assert first == _choices(SearchBot(seed=3, playouts=4), states)
    for state, move in zip(states, first, strict=True):
        assert move in legal_moves(state)


def test_a_win_at_once_is_never_declined_in_an_endgame() -> None:
    """Whenever a placement wins at once with the stock empty, the bot plays a winning one."""
    checked = 0
    for state in _empty_stock_positions(2, 60, 3, 28) + _empty_stock_positions(4, 60, 3, 28):
        side = side_of(state.players, state.turn)
        for move in legal_moves(state):
            if type(move) is not Place:
                continue
            points = apply(state, move).scores[side] - state.scores[side]
            if points <= 0:
                continue
            scores = list(state.scores)
            scores[side] = state.target - points
            close = state.evolve(scores=tuple(scores))
            view = view_for(close, close.turn)
            chosen = SearchBot(seed=4, playouts=8).choose(view)
            assert apply(close, chosen).winner == side
            checked += 1
            break
    assert checked > 20


def test_endgame_values_names_what_is_wrong() -> None:
    """A stock not empty, a match over, or three players: each refused with the reason."""
    state = new_match(2, seed=1)
    with pytest.raises(ValueError, match="needs an empty stock; it holds 14"):
        endgame_values(state, state.turn, legal_moves(state), 100)
    with pytest.raises(ValueError, match="2 or 4 players, not 3"):
        endgame_values(new_match(3, seed=1), 0, (), 100)
    while state.winner is None:
        state = apply(state, legal_moves(state)[0])
    with pytest.raises(ValueError, match="the match is over"):
        endgame_values(state, 0, (), 100)


def test_outcome_value_is_own_gain_less_the_others_mean_and_a_win_is_worth_the_same() -> None:
    """The scores' gains from the start; a side that has won is worth twice the target."""
    start = new_match(3, seed=1)
    assert outcome_value(start, start, 1, (10, 20, -4)) == 20 - 3
    won = _empty_stock_positions(2, 1, 5, 28)[0]
    while won.winner is None:
        won = apply(won, legal_moves(won)[0])
    assert won.winner is not None
    for seat in (0, 1):
        expected = 2 * won.target if seat == won.winner else -2 * won.target
        assert outcome_value(won, won, seat) == expected


def test_a_search_still_going_at_its_deadline_gives_up() -> None:
    """A deadline already past stops a search at its first position below the moves."""
    for state in _empty_stock_positions(2, 20, 9, 8):
        moves = legal_moves(state)
        found = endgame_values(state, state.turn, moves, 10**6)
        assert found is not None
        past = time.monotonic() - 1
        if found[1] > len(moves):
            assert endgame_values(state, state.turn, moves, 10**6, deadline=past) is None
        else:
            assert endgame_values(state, state.turn, moves, 10**6, deadline=past) == found


def test_without_a_deadline_the_search_goes_to_the_c_kernel_where_it_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kernel gets the world's words, the moves' actions, the seat and the nodes.

    A stand-in for the C function (so that this runs without the extension
    too) answers with the Python search; tests/test_endgame_c.py compares the
    real one with it.
    """
    state = _empty_stock_positions(2, 1, 21, 8)[0]
    moves = legal_moves(state)
    calls: list[tuple[list[int], list[int], int, int]] = []

    def kernel(
        words: array[int], actions: list[int], seat: int, nodes: int
    ) -> tuple[list[float], int] | None:
        calls.append((list(words), actions, seat, nodes))
        _playouts.USE_C = False
        try:
            return endgame_values(state, seat, moves, nodes)
        finally:
            _playouts.USE_C = True

    monkeypatch.setattr(_playouts, "_ENDGAME", kernel)
    monkeypatch.setattr(_playouts, "ENDGAME_ENABLED", True)
    found = endgame_values(state, state.turn, moves, 10**6)
    assert found is not None
    assert calls == [
        (
            list(_playouts.world_words(state)),
            [action_of(state, move) for move in moves],
            state.turn,
            10**6,
        )
    ]
    assert endgame_values(state, state.turn, moves, 10**6, deadline=10.0**12) == found
    _playouts.USE_C = False
    try:
        assert endgame_values(state, state.turn, moves, 10**6) == found
    finally:
        _playouts.USE_C = True
    assert len(calls) == 1  # a deadline, or USE_C False: the Python search
    endgame_values(state, state.turn, [Pass(), Draw()], 5)  # (the stand-in searches the state's)
    assert calls[-1][1] == [PASS_ACTION, DRAW_ACTION]
