"""The shared game controller (``american_sniff.session``): turns, bots, hints and undo."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

import american_sniff
from american_sniff import Draw, Pass, Place, apply, legal_moves, new_match, view_for
from american_sniff.bots import bot_seed, make_bot
from american_sniff.cli.play import play
from american_sniff.session import BotKind, GameError, Seeding, Session, lone_move
from american_sniff.state import MatchState

SOURCE = Path(american_sniff.__file__).resolve().parent
GREEDY: BotKind = ("greedy", {})
HINT: BotKind = ("search", {"playouts": 2})


def _played(players: int, seed: int, actions: int) -> list[MatchState]:
    """The first ``actions`` states after the first of a match that greedy bots play."""
    states = [new_match(players, seed=seed)]
    for _ in range(actions):
        state = states[-1]
        states.append(apply(state, make_bot("greedy", 0).choose(view_for(state, state.turn))))
    return states


def _session(states: list[MatchState], seeding: Seeding, floor: int = 0) -> Session:
    """Seat 0 a person's, every other seat greedy."""
    bots = dict.fromkeys(range(1, states[0].players), GREEDY)
    return Session(states, bots, HINT, seeding=seeding, floor=floor)


def _imports(path: Path) -> set[str]:
    """The modules of the package that ``path`` imports, relative ones resolved."""
    package = ".".join(path.relative_to(SOURCE.parent).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            name = f"{base}.{node.module}" if node.level and node.module else node.module or base
            found |= {name} | {f"{name}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_the_controller_and_the_terminal_game_import_no_web_and_no_cli() -> None:
    """The controller sits below both front ends; the terminal game needs nothing of the web."""
    session = _imports(SOURCE / "session.py")
    assert "american_sniff.bots" in session  # the resolver reads relative imports
    assert [m for m in session if m.startswith(("american_sniff.web", "american_sniff.cli"))] == []
    terminal = _imports(SOURCE / "cli" / "play.py")
    assert "american_sniff.session" in terminal
    assert [m for m in terminal if m.startswith("american_sniff.web")] == []


def test_per_choice_bots_and_hints_are_pure_functions_of_seed_seat_and_actions() -> None:
    """A bot per choice seeded ``bot_seed``, the hint ``^ 1``: a restarted host chooses alike.

    A new session over the same states chooses the same as the first.
    """
    states = _played(3, 11, 4)
    session = _session(states, Seeding.PER_CHOICE)
    while session.state.turn == 0:
        states.append(apply(session.state, legal_moves(session.state)[0]))
    turn, seq = session.state.turn, session.seq
    expected = make_bot("greedy", bot_seed(11, turn, seq)).choose(view_for(session.state, turn))
    assert session.bot_move() == expected
    assert session.bot(turn) is not session.bot(turn)  # made afresh
    assert _session(list(states), Seeding.PER_CHOICE).bot_move() == expected

    seed = next(s for s in range(50) if new_match(2, seed=s).turn == 0)
    session = _session([new_match(2, seed=seed)], Seeding.PER_CHOICE)
    bot = make_bot("search", bot_seed(seed, 0, 0) ^ 1, playouts=2)
    assert session.hint(0) == bot.choose(view_for(session.state, 0))


def test_per_match_bots_are_made_once_and_hints_seeded_by_the_actions() -> None:
    """The terminal's seeding: bot ``k`` is ``seed + k + 1`` for the match, a hint fresh.

    The hint bot is seeded ``seed + actions + 1``; both modulo 2**64.
    """
    seed = 2**64 - 2
    states = [new_match(3, seed=seed)]
    session = _session(states, Seeding.PER_MATCH)
    assert [getattr(session.bot(seat), "seed", None) for seat in (1, 2)] == [0, 1]
    assert session.bot(1) is session.bot(1)
    while session.state.turn != 0:
        states.append(apply(session.state, session.bot_move()))
    expected = make_bot("search", (seed + session.seq + 1) % 2**64, playouts=2)
    assert session.hint(0) == expected.choose(view_for(session.state, 0))


def test_a_hint_is_for_the_seat_to_move_only() -> None:
    """Asking a hint out of turn is refused with the reason."""
    session = _session(_played(2, 1, 0), Seeding.PER_CHOICE)
    with pytest.raises(GameError, match="when it is your turn"):
        session.hint(1 - session.state.turn)


def test_undo_goes_back_before_the_seat_s_last_placement() -> None:
    """Against bots, undo returns to before the person's last placement, then the one before.

    Never past the floor, and never with two people at the table.
    """
    states = _played(2, 3, 12)
    placements = [
        index - 1
        for index in range(1, len(states))
        if (action := states[index].last_action) is not None
        and action.seat == 0
        and isinstance(action.move, Place)
    ]
    assert len(placements) >= 2
    session = _session(states, Seeding.PER_CHOICE)
    assert session.undo_point(0) == placements[-1]
    assert session.undo(0) == placements[-1]
    assert session.seq == placements[-1]
    assert session.undo_point(0) == placements[-2]

    edge = _session(_played(2, 3, 12), Seeding.PER_MATCH, floor=placements[-1])
    assert edge.undo_point(0) == placements[-1]  # placed after the floor: may go back to it
    floored = _session(_played(2, 3, 12), Seeding.PER_MATCH, floor=placements[-1] + 1)
    assert floored.undo_point(0) is None
    with pytest.raises(GameError, match="after a placement of yours"):
        floored.undo(0)

    people = Session(_played(2, 3, 12), {}, HINT, seeding=Seeding.PER_CHOICE)
    assert people.against_bots_only(0) is False
    assert people.undo_point(0) is None


def test_go_back_keeps_the_first_actions_and_refuses_the_future() -> None:
    """``go_back(n)`` leaves the first ``n`` actions; a point beyond the match is refused."""
    session = _session(_played(2, 4, 5), Seeding.PER_CHOICE)
    with pytest.raises(ValueError, match="has had 5 actions, not 6"):
        session.go_back(6)
    session.go_back(2)
    assert session.seq == 2


def test_forced_is_a_person_s_lone_draw_or_pass() -> None:
    """``forced`` is the lone draw or pass of a person to move; a bot's turn or a choice: None."""
    states = _played(2, 6, 0)
    for _ in range(400):
        state = states[-1]
        if state.winner is not None:
            break
        moves = legal_moves(state)
        session = _session(states, Seeding.PER_CHOICE)
        lone = moves[0] if len(moves) == 1 and isinstance(moves[0], (Draw, Pass)) else None
        assert lone_move(state) == lone
        assert session.forced() == (lone if state.turn == 0 else None)
        states.append(apply(state, moves[-1]))
    assert any(isinstance(s.last_action.move, Draw) for s in states[1:] if s.last_action)


@pytest.mark.parametrize(
    ("states", "bots", "floor", "words"),
    [
        ([], {}, 0, "at least the match's first state"),
        ([new_match(2, seed=0)], {2: GREEDY}, 0, "a bot's seat is one of 0 to 1"),
        ([new_match(2, seed=0)], {1: GREEDY}, 1, "the undo floor 1 is not one of the states"),
    ],
)
def test_a_wrong_session_says_what_is_wrong(
    states: list[MatchState], bots: dict[int, BotKind], floor: int, words: str
) -> None:
    """No states, a bot seat outside the match, or a floor past the states: a clear error."""
    with pytest.raises(ValueError, match=words):
        Session(states, bots, HINT, seeding=Seeding.PER_CHOICE, floor=floor)


def test_the_terminal_s_undo_stops_at_the_resumed_state() -> None:
    """``play`` resumed after the person's placements cannot take them back: only new ones."""
    states = _played(2, 3, 12)
    assert any(s.last_action and s.last_action.seat == 0 for s in states[1:])
    out = io.StringIO()
    play(2, 3, 0, ["greedy"], io.StringIO("u\nq\n\n"), out, states=states)
    assert "Nothing to undo" in out.getvalue()
