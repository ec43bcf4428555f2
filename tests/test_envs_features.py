"""The action features (american_sniff.envs.features) against the engine and the greedy bot."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from american_sniff import apply, legal_moves, new_match, view_for  # noqa: E402
from american_sniff.actions import action_mask, action_of  # noqa: E402
from american_sniff.bots.greedy import greedy_choice  # noqa: E402
from american_sniff.envs.features import (  # noqa: E402
    FEATURE_NAMES,
    action_features,
    greedy_policy,
    points_now,
)
from american_sniff.evaluation import evaluate  # noqa: E402
from american_sniff.moves import Place  # noqa: E402
from american_sniff.observation import encode, scaled  # noqa: E402
from american_sniff.rules import side_of  # noqa: E402
from american_sniff.state import MatchState  # noqa: E402

COLUMN = {name: k for k, name in enumerate(FEATURE_NAMES)}


def _arrays(state: MatchState) -> tuple[Any, Any]:
    view = view_for(state, state.turn)
    return np.array([scaled(encode(view))], np.float32), np.array([action_mask(state)])


def _scored(state: MatchState, after: MatchState) -> int:
    """What the placement from ``state`` to ``after`` scored, settlement added back."""
    side = side_of(state.players, state.turn)
    gain = after.scores[side] - state.scores[side]
    if after.winner is None and after.round != state.round:
        last = after.last_round
        assert last is not None
        gain += sum(
            cut for seat, cut in enumerate(last.deductions) if side_of(state.players, seat) == side
        )
    return gain


def _positions(players: int, matches: int, seed: int) -> list[MatchState]:
    chooser = random.Random(seed)
    out = []
    for deal in range(matches):
        state = new_match(players, seed=seed * 100 + deal)
        while not state.is_over:
            out.append(state)
            state = apply(state, chooser.choice(legal_moves(state)))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_points_are_what_the_engine_scores(players: int) -> None:
    """Every legal action of random matches: points_now equals the score the engine gives."""
    checked = scoring = 0
    for state in _positions(players, 3, players):
        observations, masks = _arrays(state)
        points = points_now(observations, masks)[0]
        rows, actions, features = action_features(observations, masks)
        assert (rows == 0).all()
        for move in legal_moves(state):
            action = action_of(state, move)
            expected = _scored(state, apply(state, move)) if isinstance(move, Place) else 0
            assert points[action] == expected, (state, move)
            row = int(np.flatnonzero(actions == action)[0])
            assert round(float(features[row, COLUMN["points"]]) * 35) == expected
            checked += 1
            scoring += expected > 0
    assert checked > 200
    assert scoring > 5


@pytest.mark.parametrize("players", [2, 4])
def test_the_greedy_policy_is_the_greedy_bot(players: int) -> None:
    """greedy_policy picks greedy_choice's move at every decision with a choice."""
    decisions = 0
    for state in _positions(players, 4, 10 + players):
        moves = legal_moves(state)
        if len(moves) < 2:
            continue
        observations, masks = _arrays(state)
        expected = action_of(state, greedy_choice(moves, view_for(state, state.turn).layout))
        assert greedy_policy(observations, masks)[0] == expected
        decisions += 1
    assert decisions > 50
    result = evaluate(greedy_policy, "greedy", players=players, deals=5, seed=3, scaled=True)
    assert result.wins * 2 == result.matches  # the same player on both sides of every deal


def test_the_reply_bounds_what_the_next_seat_can_score() -> None:
    """The next seat's best placement never scores above ``reply``, and often scores it."""
    compared = attained = 0
    for state in _positions(2, 4, 5):
        observations, masks = _arrays(state)
        _, actions, features = action_features(observations, masks)
        for move in legal_moves(state):
            after = apply(state, move)
            if not isinstance(move, Place) or after.is_over or after.round != state.round:
                continue
            if after.drawn is not None or after.turn == state.turn:
                continue
            replies = [m for m in legal_moves(after) if isinstance(m, Place)]
            best = max((_scored(after, apply(after, m)) for m in replies), default=0)
            row = int(np.flatnonzero(actions == action_of(state, move))[0])
            bound = round(float(features[row, COLUMN["reply"]]) * 35)
            assert best <= bound, (state, move)
            compared += 1
            attained += best == bound
    assert compared > 100
    assert attained > compared // 5


def test_a_draw_and_a_pass_have_only_their_flag() -> None:
    """A forced draw shows only ``draw``; a batch of several rows keeps each row's pairs."""
    state = next(
        s
        for s in _positions(2, 2, 7)
        if legal_moves(s) and not isinstance(legal_moves(s)[0], Place)
    )
    observations, masks = _arrays(state)
    first = new_match(2, seed=1)
    observations2, masks2 = _arrays(first)
    rows, actions, features = action_features(
        np.concatenate([observations, observations2]), np.concatenate([masks, masks2])
    )
    assert rows.tolist() == [0] + [1] * int(masks2.sum())
    flags = features[0]
    name = "draw" if actions[0] == 448 else "pass"
    assert flags[COLUMN[name]] == 1
    assert np.count_nonzero(flags) == 1
    assert (features[1:, COLUMN["opening"]] == 1).all()


def test_the_arrays_are_checked() -> None:
    """Observations of the wrong width or masks of the wrong shape raise ValueError."""
    masks = np.zeros((2, 450), bool)
    with pytest.raises(ValueError, match="observations must be"):
        action_features(np.zeros((2, 374), np.float32), masks)
    with pytest.raises(ValueError, match="masks must be"):
        points_now(np.zeros((2, 375), np.float32), masks[:1])
    with pytest.raises(ValueError, match="masks must be"):
        greedy_policy(np.zeros((2, 375), np.float32), np.zeros((2, 449), bool))
