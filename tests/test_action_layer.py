"""The integer action layer: american_sniff.actions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Draw,
    IllegalMove,
    MatchState,
    Pass,
    Place,
    Point,
    Side,
    Tile,
    apply,
    legal_moves,
    new_match,
)
from american_sniff.actions import (
    ACTION_MOVES,
    DRAW_ACTION,
    NUM_ACTIONS,
    NUM_POINTS,
    OPENING_ACTIONS,
    PASS_ACTION,
    POINTS,
    action_mask,
    action_of,
    legal_action_moves,
    legal_actions,
    move_of,
    placement_action,
)
from reference import sides_of
from scenarios import sweep
from strategies import mid_match_states


def test_the_space_has_the_documented_shape() -> None:
    """The space has 450 actions, each a different move; draw and pass come last."""
    assert (OPENING_ACTIONS, NUM_POINTS, DRAW_ACTION, PASS_ACTION, NUM_ACTIONS) == (
        28,
        70,
        448,
        449,
        450,
    )
    assert len(ACTION_MOVES) == NUM_ACTIONS
    assert len(set(ACTION_MOVES)) == NUM_ACTIONS  # every action is a different move
    assert ACTION_MOVES[DRAW_ACTION] == Draw()
    assert ACTION_MOVES[PASS_ACTION] == Pass()


def test_points_are_every_side_of_every_tile_in_order() -> None:
    """The 70 points are every side of every tile, in the order of Point.order."""
    expected = [Point(t, s) for t in ALL_TILES for s in sides_of(t)]
    assert list(POINTS) == expected
    orders = [p.order for p in POINTS]
    assert orders == sorted(orders)


def test_the_documented_formula_gives_every_action() -> None:
    """Each action is what the documented formula gives for its move."""
    # An implementation in another language computes actions from the docs'
    # formula; this is that formula, written from the docs.
    for action, move in enumerate(ACTION_MOVES):
        if isinstance(move, Place) and move.at is None:
            assert action == move.tile.index
        elif isinstance(move, Place):
            assert move.at is not None
            p = POINTS.index(move.at)
            v = move.at.value
            u = move.at.tile.high if move.at.tile.low == v else move.at.tile.low
            w = move.tile.high if move.tile.low == v else move.tile.low
            assert move.tile.has(v)
            assert w != u
            assert action == 28 + 6 * p + (w if w < u else w - 1)


def test_worked_example_of_the_docs() -> None:
    """The worked example of the module's docs: [1|4] on [4|4] line_b is 347."""
    action = placement_action(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))
    assert action == 347
    assert ACTION_MOVES[action] == Place(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))


def _check_round_trip(state: MatchState) -> None:
    moves = legal_moves(state)
    actions = legal_actions(state)
    assert list(actions) == sorted(set(actions))
    assert len(actions) == len(moves)
    mask = action_mask(state)
    assert [a for a in range(NUM_ACTIONS) if mask[a]] == list(actions)
    for move in moves:
        assert move_of(state, action_of(state, move)) == move
    for action in actions:
        assert action_of(state, move_of(state, action)) == action


@given(mid_match_states())
def test_round_trip_on_random_states(state: MatchState) -> None:
    """action_of and move_of are inverse on the legal moves of any state; the mask agrees."""
    _check_round_trip(state)
    # The same state, made again, gives the same actions.
    assert legal_actions(state) == legal_actions(MatchState.from_json(state.to_json()))


@pytest.mark.sweep
def test_round_trip_on_every_legal_move_of_300_random_matches() -> None:
    """The issue's "done when": every legal move of 300 random matches round-trips.

    A sweep: all 300 in the main run, a third under the quick profile (``scenarios.sweep``).
    """
    rng = random.Random(19)
    checked = 0
    matches = sweep(300)
    for match in range(matches):
        state = new_match(2 + match % 3, seed=rng.getrandbits(64))
        while state.winner is None:
            moves = legal_moves(state)
            actions = legal_actions(state)
            found = []
            for move in moves:
                action = action_of(state, move)
                assert ACTION_MOVES[action] == move
                assert move_of(state, action) is move
                found.append(action)
            assert sorted(found) == list(actions)
            pairs = legal_action_moves(state)
            assert [a for a, _ in pairs] == list(actions)
            assert all(move is move_of(state, a) for a, move in pairs)
            checked += len(moves)
            state = apply(state, rng.choice(moves))
    assert checked > matches * 100


def test_legal_action_moves_pairs_each_action_with_its_move_even_for_new_objects() -> None:
    """Moves equal to the engine's but not its objects (say, read back) give the same pairs."""
    state = new_match(3, seed=8)
    for _ in range(12):
        state = apply(state, legal_moves(state)[-1])
    again = MatchState.from_json(state.to_json())
    assert legal_action_moves(again) == legal_action_moves(state)
    assert [a for a, _ in legal_action_moves(again)] == list(legal_actions(state))
    with pytest.raises(TypeError, match="legal_action_moves"):
        legal_action_moves("a state")  # type: ignore[arg-type]


def test_an_action_out_of_range_is_refused_clearly() -> None:
    """An action outside 0..449 (or not an int) is a ValueError naming the range."""
    state = new_match(2, seed=1)
    for bad in (-1, NUM_ACTIONS, 1.0, "4", None, True):
        with pytest.raises(ValueError, match="an action is an integer from 0 to 449"):
            move_of(state, bad)  # type: ignore[arg-type]


def test_an_illegal_action_says_why() -> None:
    """An action that is not legal gets the engine's own refusal and code."""
    state = new_match(2, seed=1)
    with pytest.raises(IllegalMove, match="action 449 \\(pass\\) is not legal") as caught:
        move_of(state, PASS_ACTION)
    assert caught.value.code == "must_place"
    absent = next(t for t in ALL_TILES if t not in state.hands[state.turn])
    with pytest.raises(IllegalMove) as caught:
        move_of(state, absent.index)
    assert caught.value.code == "not_in_hand"
    with pytest.raises(IllegalMove) as caught:
        action_of(state, Draw())
    assert caught.value.code == "must_place"
    with pytest.raises(ValueError, match="not a move"):
        action_of(state, "draw")  # type: ignore[arg-type]


def test_no_action_once_the_match_is_over() -> None:
    """A won match has no legal action and an empty mask."""
    rng = random.Random(3)
    state = new_match(2, seed=3)
    while state.winner is None:
        state = apply(state, rng.choice(legal_moves(state)))
    assert legal_actions(state) == ()
    assert not any(action_mask(state))
    with pytest.raises(IllegalMove) as caught:
        move_of(state, 0)
    assert caught.value.code == "match_over"


@given(st.sampled_from(ALL_TILES), st.sampled_from(POINTS))
def test_placement_action_names_the_pair_or_refuses(tile: Tile, point: Point) -> None:
    """Every possible (tile, point) pair has an action; the impossible ones are refused."""
    possible = tile.has(point.value) and tile != point.tile
    if possible:
        assert ACTION_MOVES[placement_action(tile, point)] == Place(tile, point)
    else:
        with pytest.raises(ValueError, match="cannot be placed on"):
            placement_action(tile, point)


def test_bad_arguments_are_refused() -> None:
    """Arguments of the wrong kind get a clear error."""
    with pytest.raises(ValueError, match="not a tile"):
        placement_action((1, 4), None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a connection point"):
        placement_action(Tile(1, 4), "[4|4] line_b")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="legal_actions\\(\\) needs a MatchState"):
        legal_actions("state")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="move_of\\(\\) needs a MatchState"):
        move_of(None, 0)  # type: ignore[arg-type]
