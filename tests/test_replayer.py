"""The one replayer: each problem kind, the order of the questions, claims, and the round start."""

from __future__ import annotations

import re

import attrs
import pytest

from american_sniff import (
    Action,
    Draw,
    InvalidRecord,
    MatchState,
    Pass,
    Place,
    apply,
    legal_moves,
    new_match,
    record_match,
    replay,
)
from american_sniff.replayer import (
    CLAIMS,
    AfterRoundEnd,
    AfterWin,
    ClaimDiffers,
    IllegalAction,
    IllegalPlacement,
    Problem,
    ReplayError,
    WrongSeat,
    claim_differences,
    deal_difference,
    hands_as_dealt,
    replay_actions,
    replay_table,
    step,
)
from scenarios import demo_match

STATES = demo_match(2, 2)


def _round_states(number: int) -> list[MatchState]:
    """The states of round ``number`` of the demo match, from its first."""
    return [s for s in STATES if s.round == number]


def _played(state: MatchState) -> MatchState:
    after = step(state, state.turn, legal_moves(state)[0])
    assert isinstance(after, MatchState)
    return after


def test_a_legal_action_by_the_seat_to_move_gives_the_engines_state() -> None:
    """A step that has no problem is the engine's apply."""
    state = new_match(3, seed=11)
    move = legal_moves(state)[-1]
    assert step(state, state.turn, move) == apply(state, move)


def test_an_action_after_the_win_is_after_win() -> None:
    """Nothing follows a win: the problem names the winning side."""
    won = STATES[-1]
    assert won.winner is not None
    problem = step(won, won.turn, Pass(), index=4)
    assert problem == AfterWin(4, won.turn, Pass(), won.winner)
    assert isinstance(problem, AfterWin)
    assert (problem.kind, problem.fatal, problem.code) == ("after_win", True, None)
    assert problem.describe("x") == f"x comes after side {won.winner} won the match"


def test_an_action_after_its_round_ended_is_after_round_end() -> None:
    """An action of round 1 played in round 2's first state comes after its round ended."""
    second = _round_states(2)[0]
    problem = step(second, second.turn, Pass(), index=9, round=1)
    assert problem == AfterRoundEnd(9, second.turn, Pass(), 1)
    assert isinstance(problem, AfterRoundEnd)
    assert problem.kind == "after_round_end"
    assert problem.describe("x") == "x comes after the round ended"
    # Without a round, the question is not asked.
    assert not isinstance(step(second, second.turn, legal_moves(second)[0]), Problem)


def test_an_action_by_another_seat_is_wrong_seat() -> None:
    """A seat acting out of turn is named with the seat whose turn it is."""
    state = new_match(4, seed=5)
    other = (state.turn + 1) % 4
    problem = step(state, other, legal_moves(state)[0], index=0)
    assert problem == WrongSeat(0, other, legal_moves(state)[0], state.turn)
    assert isinstance(problem, WrongSeat)
    assert problem.kind == "wrong_seat"
    assert problem.describe("x") == f"x is made by seat {other}, but it is seat {state.turn}'s turn"


def test_a_move_the_rules_refuse_is_illegal_action_with_its_code() -> None:
    """A refused move keeps the engine's refusal and its code."""
    state = new_match(2, seed=3)
    problem = step(state, state.turn, Draw())
    assert isinstance(problem, IllegalAction)
    assert (problem.kind, problem.code, problem.error.code) == (
        "illegal_action",
        "must_place",
        "must_place",
    )
    assert problem.describe("x") == f"x is illegal [must_place]: {problem.error}"


def test_the_questions_are_asked_in_order() -> None:
    """After the win before after the round's end, before the seat, before the rules."""
    won = STATES[-1]
    assert won.winner is not None
    other = (won.turn + 1) % 2
    assert type(step(won, other, Draw(), round=won.round + 1)) is AfterWin
    second = _round_states(2)[0]
    other = (second.turn + 1) % 2
    assert type(step(second, other, Draw(), round=1)) is AfterRoundEnd
    assert type(step(second, other, Draw())) is WrongSeat


def test_claims_that_differ_are_listed_in_order_and_are_not_fatal() -> None:
    """Each differing claim is a value, in the order of CLAIMS; none stops a replay."""
    state = _played(_played(new_match(2, seed=3)))
    made = state.last_action
    assert made is not None
    assert claim_differences(made, made, index=2) == ()
    claim = attrs.evolve(made, points=made.points + 5, scores=(1, 2))
    differences = claim_differences(claim, made, index=2)
    assert [d.field for d in differences] == ["points", "scores"]
    first = differences[0]
    assert first == ClaimDiffers(2, made.seat, made.move, "points", made.points + 5, made.points)
    assert (first.kind, first.fatal) == ("claim", False)
    assert first.describe("x") == f"x claims points {made.points + 5}; the rules give {made.points}"
    assert claim_differences(claim, made, index=2, fields=("tile", "end_sum")) == ()


def test_replay_actions_yields_the_states_of_the_round() -> None:
    """Replaying a round's history from its start gives every state of the round."""
    states = _round_states(1)
    last = states[-1]
    played = list(replay_actions(states[0], last.history, round=1, claims=CLAIMS))
    assert played == states[1:]


def test_replay_actions_raises_at_the_first_problem_naming_the_action() -> None:
    """The first problem is raised, its message naming the action as the caller asked."""
    states = _round_states(1)
    history = list(states[-1].history)
    history[3] = attrs.evolve(history[3], seat=1 - history[3].seat)
    with pytest.raises(ReplayError) as raised:
        list(replay_actions(states[0], history, first=1, where="action {index} ({move})"))
    problem = raised.value.problem
    assert type(problem) is WrongSeat
    assert problem.index == 4
    assert str(raised.value) == problem.describe(f"action 4 ({history[3].move})")

    history = list(states[-1].history)
    history[2] = attrs.evolve(history[2], scores=(5, 5))
    with pytest.raises(ReplayError) as raised:
        list(replay_actions(states[0], history, claims=CLAIMS))
    assert type(raised.value.problem) is ClaimDiffers
    assert raised.value.problem.field == "scores"
    # Without claims, the same actions replay.
    assert len(list(replay_actions(states[0], history))) == len(history)


def test_hands_as_dealt_rebuilds_the_deal_from_any_state_of_the_round() -> None:
    """From any state of a round, the hands as dealt are its first state's hands."""
    for states in (_round_states(1), _round_states(2)):
        for state in states[:: max(1, len(states) // 7)]:
            assert hands_as_dealt(state.hands, state.history, hand_size=7) == states[0].hands


def test_hands_as_dealt_refuses_what_no_play_reaches() -> None:
    """A drawn tile that is nowhere, and a hand of the wrong size, are refused."""
    # Right after a draw, the drawn tile is held: take it out of the hand.
    state = next(s for s in STATES if s.last_action and type(s.last_action.move) is Draw)
    draw = state.history[-1]
    hands = list(state.hands)
    hands[draw.seat] = tuple(t for t in hands[draw.seat] if t != draw.tile)
    with pytest.raises(ValueError, match=re.escape(f"seat {draw.seat} drew {draw.tile} of r")):
        hands_as_dealt(hands, state.history, round_name=f" of round {state.round}")
    start = _round_states(1)[0]
    with pytest.raises(ValueError, match="hand sizes no play can reach: seat 0 holds 6 tiles"):
        hands_as_dealt((start.hands[0][1:], start.hands[1]), (), hand_size=7)


def test_deal_difference_names_the_first_difference() -> None:
    """Each difference of a round start is told: a hand, the hand count, the stock, the opener."""
    state = new_match(2, seed=3)
    hands, stock, opener = state.hands, state.stock, state.opener
    assert deal_difference(state, [h[::-1] for h in hands], stock, opener, "s") is None
    swapped = ((hands[1][0], *hands[0][1:]), (hands[0][0], *hands[1][1:]))
    message = deal_difference(state, swapped, stock, opener, "s")
    assert message is not None
    assert message.startswith("s deals hand 0 as")
    message = deal_difference(state, hands[:1], stock, opener, "s")
    assert message is not None
    assert message.endswith("not nothing as recorded")
    assert deal_difference(state, (*hands, ()), stock, opener, "s") == (
        "s deals 2 hands, not 3 as recorded"
    )
    assert deal_difference(state, hands, stock[::-1], opener, "s") == (
        f"s deals the stock as {' '.join(map(str, stock))}, not as recorded"
    )
    assert deal_difference(state, hands, stock, 1 - opener, "s") == (
        f"seat {opener} opens by s, not seat {1 - opener} as recorded"
    )


# -- the callers share the sentences ------------------------------------------------------


def test_validation_and_records_say_an_illegal_action_the_same_way() -> None:
    """One wording, with the refusal code, in a state's and in a record's replay."""
    states = _round_states(1)
    state = states[-2]
    history = list(state.history)
    index = next(i for i, a in enumerate(history) if type(a.move) is not Draw and i > 0)
    history[index] = Action(history[index].seat, Draw(), scores=history[index].scores)
    start = states[0]
    with pytest.raises(ReplayError) as raised:
        list(replay_actions(start, history, first=1))
    assert type(raised.value.problem) is IllegalAction
    assert f"action {index + 1} (draw) is illegal [" in str(raised.value)

    record = record_match(states)
    actions = list(record.rounds[0].actions)
    actions[index] = attrs.evolve(actions[index], move=Draw(), end_sum=None, points=None)
    rounds = (attrs.evolve(record.rounds[0], actions=actions), *record.rounds[1:])
    with pytest.raises(InvalidRecord, match=rf"round 1, action {index} \(draw\) is illegal \["):
        list(replay(attrs.evolve(record, rounds=rounds)))


def test_replay_table_builds_the_table_or_names_the_first_refused_placement() -> None:
    """The placements of a finished round rebuild its table; a repeated tile is refused."""
    result = _round_states(2)[0].last_round
    assert result is not None
    placements = [a.move for a in result.history if isinstance(a.move, Place)]
    assert replay_table(placements) == result.layout
    refused = replay_table([*placements[:3], placements[1]], first=1)
    assert refused == IllegalPlacement(4, placements[1], refused.error)  # type: ignore[union-attr]
    assert isinstance(refused, IllegalPlacement)
    assert (refused.kind, refused.code) == ("illegal_action", "already_on_table")
    assert refused.describe("p") == f"p is illegal: {placements[1].tile} is already on the table"


def test_the_referee_plays_each_action_of_a_seeded_record_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """check_record replays a record with a seed once (it used to replay it twice)."""
    from american_sniff import check_record, replayer

    record = record_match(STATES)
    assert record.seed is not None
    played: list[object] = []

    def counting(state: MatchState, move: object) -> MatchState:
        played.append(move)
        return apply(state, move)  # type: ignore[arg-type]

    monkeypatch.setattr(replayer, "apply", counting)
    assert check_record(record).ok
    assert len(played) == record.action_count


def test_after_a_round_the_seed_does_not_deal_the_referee_goes_on_from_the_deals() -> None:
    """One replay from the seed until it differs; then the recorded deals, still fully checked."""
    from american_sniff import check_record

    record = record_match(STATES)
    second, third = record.rounds[1], record.rounds[2]
    drawn = sum(1 for action in second.actions if type(action.move) is Draw)
    stock = list(second.stock)
    assert len(stock) - drawn >= 2  # two undrawn tiles to swap: the actions stay legal
    stock[-1], stock[-2] = stock[-2], stock[-1]
    index = next(i for i, a in enumerate(third.actions) if a.points is not None)
    actions = list(third.actions)
    actions[index] = attrs.evolve(actions[index], points=actions[index].points + 5)  # type: ignore[operator]
    rounds = list(record.rounds)
    rounds[1] = attrs.evolve(second, stock=stock)
    rounds[2] = attrs.evolve(third, actions=actions)
    report = check_record(attrs.evolve(record, rounds=rounds))
    found = [(d.kind, d.round, d.action) for d in report.discrepancies]
    assert found == [("seed", 2, None), ("points", 3, index)]
