"""The one-line reason beside a hint (``american_sniff.session``), from a seat's own view."""

from __future__ import annotations

import re

import attrs
import pytest

from american_sniff import Draw, MatchState, Pass, Place, legal_moves, new_match, parse_move
from american_sniff.bots import random_match
from american_sniff.session import hint_reason
from american_sniff.views import PlayerView, view_for
from scenarios import deal, run


def _opening(hand: str) -> MatchState:
    """A two-player match whose seat 0 opens, holding ``hand``."""
    return new_match(2, seed=3, deals=[deal([hand, "[5|5] [5|6] [4|5] [0|5] [3|5] [1|5] [2|5]"])])


def test_a_move_that_scores_the_most_says_what_the_ends_add_up_to() -> None:
    """The best-scoring move: its points and the ends' sum."""
    state = _opening("[1|4] [0|0] [2|3] [6|6] [0|2] [3|3] [1|2]")
    view = view_for(state, 0)
    assert hint_reason(view, parse_move("[1|4] opens")) == "scores 5: the ends add up to 5"


def test_a_move_that_gives_up_points_names_the_move_that_scores() -> None:
    """A move that scores less than another names the other's points."""
    state = _opening("[1|4] [0|0] [2|3] [6|6] [0|2] [3|3] [1|2]")
    reason = hint_reason(view_for(state, 0), parse_move("[0|0] opens"))
    assert reason.startswith("scores nothing now")
    assert "the move scoring 5" in reason


def test_with_nothing_to_score_a_heavy_tile_or_a_double_is_the_reason() -> None:
    """Nothing scores: the heaviest tile, a double, or what the others could score after."""
    state = _opening("[6|6] [0|1] [0|2] [1|1] [1|2] [1|3] [0|6]")
    view = view_for(state, 0)
    assert all(hint_reason(view, m) for m in view.legal_moves)
    assert hint_reason(view, parse_move("[6|6] opens")) == (
        "gets rid of 12 pips, which would count against you at the settlement"
    )
    assert hint_reason(view, parse_move("[1|1] opens")).startswith("plays the double")
    light = hint_reason(view, parse_move("[0|1] opens"))
    assert light.startswith("nothing scores now")
    # The others' best reply, counted from the tiles this seat cannot see.
    assert re.search(r"at most \d+$|no tile of the others can score", light)


def test_the_only_move_a_draw_and_a_pass_say_so() -> None:
    """A forced placement, a draw and a pass say they are forced."""
    hands = [
        "[1|4] [0|0] [2|3] [6|6] [0|2] [3|3] [1|2]",
        "[4|5] [0|5] [3|5] [5|5] [5|6] [2|5] [0|6]",
    ]
    only = run(new_match(2, seed=3, deals=[deal(hands)]), ["[1|4] opens"])[-1]
    (move,) = legal_moves(only)
    assert hint_reason(view_for(only, 1), move).endswith("it is your only move")
    assert "draw" in hint_reason(_view_with([Draw()]), Draw())
    assert "pass" in hint_reason(_view_with([Pass()]), Pass())


def _view_with(moves: list[Draw | Pass]) -> PlayerView:
    """A seat's view whose only legal moves are ``moves`` (found in random matches)."""
    for seed in range(200):
        for state in random_match(2, seed=seed):
            if state.winner is None and list(legal_moves(state)) == moves:
                return view_for(state, state.turn)
    raise AssertionError(f"no state with the moves {moves}")


def test_the_last_tile_and_the_winning_move_say_so() -> None:
    """A move that reaches the target wins; a last tile goes out."""
    state = _opening("[1|4] [0|0] [2|3] [6|6] [0|2] [3|3] [1|2]")
    view = view_for(state, 0)
    near = attrs.evolve(view, scores=(245, 0))
    assert hint_reason(near, parse_move("[1|4] opens")) == (
        "scores 5, which makes 250 of the 250 needed: it wins the match"
    )
    last = attrs.evolve(view, hand=view.hand[:1], legal_moves=view.legal_moves[:1])
    assert hint_reason(last, last.legal_moves[0]).endswith(
        "goes out: your last tile, so the others pay for their hands"
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_move_of_a_match_has_a_reason_true_to_its_points(players: int) -> None:
    """In random matches: a reason for each move; a move's points, where it says, are its own."""
    seen = 0
    for state in random_match(players, seed=players):
        if state.winner is not None:
            break
        view = view_for(state, state.turn)
        for preview in view.previews:
            reason = hint_reason(view, preview.move)
            assert reason
            assert "\n" not in reason
            said = re.match(r"scores (\d+)", reason)
            if said:
                assert int(said.group(1)) == preview.points, (preview, reason)
            elif isinstance(preview.move, Place):
                assert preview.points == 0 or "scores nothing" in reason or "only" in reason
            seen += 1
    assert seen > 100


def test_a_move_that_is_not_legal_is_refused() -> None:
    """A move the seat may not make is a clear error."""
    view = view_for(_opening("[1|4] [0|0] [2|3] [6|6] [0|2] [3|3] [1|2]"), 0)
    with pytest.raises(ValueError, match="not one of the seat's legal moves"):
        hint_reason(view, parse_move("[5|5] opens"))
