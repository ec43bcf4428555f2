"""What just happened: ``MatchState.last_action``, ``history`` and ``RoundResult.history``."""

from __future__ import annotations

import itertools
import pydoc
import random

import attrs
import pytest

from american_sniff import (
    Action,
    Draw,
    InvalidState,
    Layout,
    MatchState,
    Place,
    RoundEnd,
    Tile,
    apply,
    legal_moves,
    new_match,
    validate_state,
)
from scenarios import DRAW_DEAL, act, deal, last

#: More actions than any seeded match of these tests takes (the longest about 1,400).
_ACTION_LIMIT = 20_000


def _match(players: int, seed: int) -> list[MatchState]:
    """A seeded match of random legal moves, played to its end.

    Bounded, so that an engine that never ends a match fails here instead of
    looping (mutmut's mutants of ``apply`` that set no winner).
    """
    rng = random.Random(seed)
    states = [new_match(players, seed=seed)]
    while not states[-1].is_over:
        assert len(states) <= _ACTION_LIMIT, f"no winner after {_ACTION_LIMIT} actions"
        states.append(apply(states[-1], rng.choice(legal_moves(states[-1]))))
    return states


def test_a_placement_says_its_seat_move_sum_points_and_scores() -> None:
    """The action of a scoring placement carries what the table and the scores became."""
    hands = [
        "[1|4] [0|0] [0|1] [0|2] [0|3] [0|4] [0|5]",
        "[1|1] [4|4] [3|4] [1|2] [1|5] [5|5] [0|6]",
    ]
    state = new_match(2, seed=1, deals=[deal(hands)])
    state = act(state, "[1|4] opens")
    assert last(state) == Action(0, Place(Tile(1, 4)), None, 5, 5, (5, 0))
    state = act(state, "[1|1] on [1|4] low")
    assert last(state) == Action(1, state.history[-1].move, None, 6, 0, (5, 0))
    assert [a.seat for a in state.history] == [0, 1]


def test_a_draw_names_the_tile_drawn() -> None:
    """A draw's action holds the drawn tile; its end sum is None and it scores nothing."""
    state = act(act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens"), "draw")
    assert last(state) == Action(1, Draw(), Tile(5, 5), None, 0, (0, 0))
    assert str(last(state)) == "seat 1: draw [5|5]"


def test_an_action_in_words_names_the_sum_and_the_points_of_a_placement() -> None:
    """``str(action)`` of a placement gives the seat, the move, the end sum and the points.

    Kills ``state.Action.__str__`` mutants 6 and 7.
    """
    action = Action(0, Place(Tile(1, 4)), None, 5, 5, (5, 0))
    assert str(action) == "seat 0: [1|4] opens, sum 5, 5 points"
    state = new_match(2, seed=1)
    state = apply(state, legal_moves(state)[0])
    last = state.last_action
    assert last is not None
    assert str(last) == f"seat {last.seat}: {last.move}, sum {last.end_sum}, {last.points} points"


def test_the_history_shares_its_past_with_earlier_states() -> None:
    """Each action adds one entry after the previous state's history, which stays as it was."""
    states = _match(3, 4)[:30]
    earlier = [state.history for state in states]
    for (before, after), seen in zip(itertools.pairwise(states), earlier, strict=False):
        if after.round == before.round:
            assert after.history[:-1] == before.history == seen
            assert after.history[-1] == after.last_action
    # Making the later states changed none of the earlier ones.
    assert [state.history for state in states] == earlier


def test_a_round_end_carries_the_result_and_the_scores_before_settlement() -> None:
    """The action that ends a round holds the round's result and the unsettled scores."""
    for before, after in itertools.pairwise(_match(4, 2)):
        if after.round == before.round:
            continue
        action = last(after)
        assert action.round_result is not None
        assert action.round_result == after.last_round
        assert after.history == ()
        result = action.round_result
        # The scores before settlement, less each deduction by side, give the settled scores.
        expected = list(action.scores)
        for seat, amount in enumerate(result.deductions):
            expected[seat % 2] -= amount
        assert tuple(expected) == result.scores == after.scores
        # The move refers to the finished round's table, which the result keeps.
        if isinstance(action.move, Place) and action.move.at is not None:
            assert action.move.tile in result.layout
            assert action.move.at.tile in result.layout
        assert result.history[-1] == action
        assert result.history[0].seat == result.opener
        assert len(result.history) == len(before.history) + 1


def test_a_winning_placement_names_the_winner() -> None:
    """The last action of a won match carries the winning side; earlier ones carry None."""
    final = _match(2, 6)[-1]
    action = last(final)
    assert action.winner == final.winner
    assert action.round_result is None
    assert all(a.winner is None for a in final.history[:-1])
    assert final.history[-1] == action


def test_a_blocked_round_ends_with_its_result() -> None:
    """A block, even one caused by a draw, shows up as the result of the action that caused it."""
    for state in _match(4, 8):
        action = state.last_action
        result = None if action is None else action.round_result
        if action is not None and result is not None and result.end is RoundEnd.BLOCKED:
            assert result.finisher is None
            assert action.move == Draw()
            assert action.tile is not None
            assert action.tile in result.hands[action.seat]
            return
    pytest.fail("no round of this match is blocked by a draw")


def test_the_start_of_a_match_has_no_last_action() -> None:
    """Nothing has happened yet."""
    state = new_match(3, seed=2)
    assert state.last_action is None
    assert state.history == ()


def _public_classes() -> list[type]:
    """Every attrs class and enum the package exports."""
    import enum

    import american_sniff

    found = []
    for name in american_sniff.__all__:
        value = getattr(american_sniff, name)
        if isinstance(value, type) and (
            attrs.has(value) or issubclass(value, enum.Enum) or hasattr(value, "__match_args__")
        ):
            found.append(value)
    return found


@pytest.mark.parametrize("cls", _public_classes(), ids=lambda c: c.__name__)
def test_help_explains_every_field(cls: type) -> None:
    """``help()`` shows a description of every public field or member, not only its name."""
    import enum

    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    if issubclass(cls, enum.Enum):
        names = [member.name for member in cls]
        kind = "cvar"
    elif attrs.has(cls):
        names = [f.name for f in attrs.fields(cls) if not f.name.startswith("_")]
        kind = "ivar"
    else:  # a value class written by hand (Layout): its public fields are its match args
        names = list(cls.__match_args__)  # type: ignore[attr-defined]
        kind = "ivar"
    for name in names:
        assert f":{kind} {name}:" in text, name


def test_help_says_what_winner_and_turn_mean_once_the_match_is_over() -> None:
    """The two fields users asked about are explained for a finished match."""
    text = pydoc.render_doc(MatchState, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    assert "the seat whose" in text
    assert "placement won it" in text
    assert "Once it is set the match is over" in text


def test_validate_state_names_states_made_by_evolve() -> None:
    """States built with attrs.evolve are checked like loaded ones."""
    states = _match(2, 3)
    state = next(s for s in states if s.round == 2 and len(s.history) > 3)
    validate_state(state)
    with pytest.raises(InvalidState):
        validate_state(state.evolve(hands=(state.hands[1], state.hands[0])))
    with pytest.raises(InvalidState, match="not a MatchState"):
        validate_state("state")
    with pytest.raises(InvalidState, match="scores must be a tuple of 2 integers"):
        validate_state(state.evolve(scores=(1, 2, 3)))


def test_validate_state_reports_a_malformed_layout_as_invalid() -> None:
    """Garbage inside a field is an InvalidState, never another exception."""
    state = apply(new_match(2, seed=1), legal_moves(new_match(2, seed=1))[0])
    table = state.layout
    garbage = Layout(
        open_keys=table.open_keys,
        end_sum=table.end_sum,
        sniff=table.sniff,
        tile_mask=table.tile_mask,
        value_mask=table.value_mask,
        log=5,
    )
    broken = state.evolve(layout=garbage)
    with pytest.raises(InvalidState, match="malformed"):
        validate_state(broken)


def test_validate_state_reports_a_malformed_history_as_invalid() -> None:
    """A history that is not an action log is an InvalidState, never another exception."""
    state = apply(new_match(2, seed=1), legal_moves(new_match(2, seed=1))[0])
    for log in (5, ("x",), (0, "draw", None, None, 0, (0, 0), None)):
        with pytest.raises(InvalidState):
            validate_state(state.evolve(log=log))
