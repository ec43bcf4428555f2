"""``american-sniff play``: a human against bots in the terminal."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from american_sniff import Layout, Tile, check_record, load_record, new_match, parse_point
from american_sniff.cli import main
from american_sniff.cli.narrate import seat_name
from american_sniff.cli.play import (
    HELP,
    decision_screen,
    last_moves_lines,
    opponents,
    play,
    resume_match,
    screen_size,
    table_lines,
    tally_lines,
    wants_color,
)
from american_sniff.engine import apply
from american_sniff.moves import Place
from american_sniff.render import render_text, tally_text
from american_sniff.session import hint_reason
from american_sniff.views import PlayerView, view_for

_TILE = re.compile(r"\[\d\|\d\]")


def _play(
    players: int,
    answers: str,
    *,
    seat: int = 0,
    bots: tuple[str, ...] = ("greedy",),
    seed: int = 1,
    **options: object,
) -> tuple[str, object]:
    out = io.StringIO()
    state = play(players, seed, seat, bots, io.StringIO(answers), out, **options)  # type: ignore[arg-type]
    return out.getvalue(), state


class _Terminal(io.StringIO):
    """Input that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_answering_1_every_time_finishes_the_match(players: int) -> None:
    """A whole match is played from piped answers and its winner announced."""
    text, state = _play(players, "1\n" * 400)
    assert getattr(state, "is_over", False)
    assert re.search(r"wins? the match in round \d+\.\nThe match is over: you (win|lose)\.", text)
    assert re.search(r"Round 2: (seat \d opens|you open|partner \d opens)", text)
    assert "loses" in text
    assert "Tally:" in text
    assert "Seed 1: --seed 1 plays this match again." in text
    if players == 4:
        assert "your partner is seat 2" in text
        assert "  partner 2 places " in text
        assert "win the match" in text  # a partnership wins: no "Seats 0+2 wins"


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_narration_says_you_and_fits_80_columns(players: int) -> None:
    """The human is "you", never "seat 0", and no line is wider than 80 characters."""
    text, _ = _play(players, "1\n" * 400, seed=4)
    assert "  you place " in text
    assert not re.search(r"^ +seat 0 ", text, re.M)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert not re.search(r"\b(you places|you draws|you passes)\b", text)


def test_the_human_sees_the_table_the_hand_and_numbered_moves_with_their_sums() -> None:
    """Each choice shows the table, the hand, and each legal move with its end sum."""
    text, _ = _play(2, "1\n" * 400)
    # The drawing: tiles in compact glyphs, each joined to the next.
    assert re.search(r"[\]}][\[{]\d\|\d[\]}]", text)
    assert "End sum " in text
    assert "Your hand: " in text
    assert re.search(r"^ +1\. \[\d\|\d\] (opens|on \[\d\|\d\] \w+) =\d+", text, re.M)
    assert re.search(r"Move 1-\d+.*q quit: 1$", text, re.M)  # piped answer shown


def _decisions(players: int, seed: int) -> list[PlayerView]:
    """Every decision view of seat 0 in a match where every seat plays its first move."""
    state = new_match(players, seed=seed)
    views = []
    while not state.is_over:
        view = view_for(state, state.turn)
        moves = view.legal_moves
        if state.turn == 0 and isinstance(moves[0], Place):
            views.append(view)
        state = apply(state, moves[-1])
    return views


@pytest.mark.sweep
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_decision_screen_fits_80_by_24(seed: int) -> None:
    """The scores, the table's drawing, the hand and the moves take at most 23 lines of 80 columns.

    The drawing is kept for the whole round: the table is never listed arm by arm.
    """
    views = _decisions(4, seed)
    assert views
    listed = 0
    for view in views:
        screen = decision_screen(view)
        assert len(screen) <= 23, "\n".join(screen)
        assert max(map(len, screen)) <= 80
        assert screen[0].startswith("Round ")
        assert any(line.startswith("Your hand: ") for line in screen)
        assert any(re.match(r" +1\. ", line) for line in screen)
        listed += any(line.startswith("The table, arm by arm") for line in screen)
        if view.layout.tiles:
            # The drawing's tiles, each in its glyph.
            end = next(
                i for i, line in enumerate(screen) if line.startswith(("Open: ", "Your hand"))
            )
            drawn = "\n".join(screen[2:end])
            assert len(re.findall(r"[\[{]\d\|\d[\]}]|┌\d┐", drawn)) == view.layout.count, drawn
    assert listed == 0


def test_other_seats_draws_are_shown_without_their_tiles() -> None:
    """Another seat's draw never names its tile; the human's own draws do."""
    text, _ = _play(2, "1\n" * 400, seed=3)
    others = re.findall(r"^  seat 1 draws (.*)$", text, re.M)
    mine = re.findall(r"^  you draw (.*)$", text, re.M)
    assert others
    assert all(line == "a tile" for line in others)
    assert mine
    assert all(_TILE.fullmatch(line) for line in mine)


@pytest.mark.sweep
def test_no_hidden_tile_is_printed_before_the_settlement_reveals_it() -> None:
    """Before the first settlement, a tile seat 0 cannot see is printed only once public.

    Public means placed on the table, or drawn by the human.
    """
    text, _ = _play(2, "1\n" * 400, seed=5)
    first_round = text.split("Round 1 ends")[0]
    start = new_match(2, seed=5)
    hidden = set(start.hands[1]) | set(start.stock)
    printed = {Tile(int(t[1]), int(t[3])) for t in _TILE.findall(first_round)}
    assert printed & hidden
    assert printed & hidden <= _came_to_light(first_round)


def _came_to_light(text: str) -> set[Tile]:
    """Tiles that became public in ``text``: placed on the table, or drawn by the human."""
    public: set[Tile] = set()
    for line in text.splitlines():
        match = re.match(
            r"^  (?:you place|seat \d places|you open with|seat \d opens with) (\[\d\|\d\])"
            r"|^  you draw (\[\d\|\d\])",
            line,
        )
        if match:
            tile = match.group(1) or match.group(2)
            public.add(Tile(int(tile[1]), int(tile[3])))
    return public


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ("x\n1\nq\n", "That is not a move: 'x'"),
        ("99\n1\nq\n", "There is no move 99: enter 1 to"),
        ("\n1\nq\n", "Enter a move: a number from 1 to"),
        ("[6|6] opens\n1\nq\n", "You do not hold [6|6]"),
        ("[6|6] on\n1\nq\n", "Enter 1 to 7, a move as the list writes it"),
    ],
)
def test_bad_input_asks_again_with_a_reason(answers: str, message: str) -> None:
    """A wrong answer is explained and the question asked again."""
    text, state = _play(2, answers, seed=2)
    assert message in text
    assert text.count("q quit: ") >= 3
    assert "You stopped in round" in text
    assert not getattr(state, "is_over", True)
    assert "None" not in text


def test_a_move_in_notation_is_played() -> None:
    """A move typed as the list writes it is the move."""
    view = _decisions(2, 2)[0]
    move = view.legal_moves[-1]
    assert isinstance(move, Place)
    text, _ = _play(2, f"{move}\nq\n", seed=2)
    opened = f"  you open with {move.tile}: sum"
    assert (opened if move.at is None else f"  you place {move.tile} on ") in text


def test_enter_plays_the_only_move() -> None:
    """With one legal placement, an empty answer plays it."""
    text, _ = _play(2, "\n" * 300, seed=3)
    at = text.index("Enter plays your only move")
    assert re.search(r"q quit: \n  you place ", text[at:])


def test_undo_takes_back_the_last_move() -> None:
    """``u`` goes back to the previous decision, which is shown again."""
    text, _ = _play(2, "1\nu\nq\n", seed=2)
    assert "Taken back: your move and what followed" in text
    screens = re.findall(r"^Your hand: .*$", text, re.M)
    assert screens[0] == screens[-1]
    first, _ = _play(2, "u\nq\n", seed=2)
    assert "Nothing to undo" in first


def test_hint_and_help() -> None:
    """``h`` names the search bot's move with its number and why; ``?`` lists the keys."""
    text, _ = _play(2, "h\n?\nq\n", seed=2, options={"search": {"playouts": 2}})
    said = text.replace("\n    ", " ")  # the hint is wrapped between words
    hint = re.search(r"Hint: the search bot would play (\d+)\. (\[\d\|\d\][^(]*)\((.*)\)\.", said)
    assert hint
    view = _decisions(2, 2)[0]
    move = view.legal_moves[int(hint.group(1)) - 1]
    assert hint.group(3) == hint_reason(view, move)
    assert all(line in text for line in HELP)


def test_a_60_by_20_screen_gets_lines_that_fit_it_between_words() -> None:
    """With ``size=(60, 20)``, every line of a whole match fits 60 columns, the help too."""
    text, _ = _play(
        2, "h\n?\n" + "1\n" * 300, seed=3, options={"search": {"playouts": 2}}, size=(60, 20)
    )
    lines = text.splitlines()
    assert len(lines) > 200
    assert [line for line in lines if len(line) > 60] == []
    assert "Your moves (=N: end sum after it, +N: points):" in lines
    assert any(line.startswith("Enter: the only move, h hint") for line in lines)
    help_lines = [line for line in lines if line.startswith("  notation      play a move")]
    assert help_lines == ["  notation      play a move as the engine writes it, e.g."]


def test_the_screen_is_the_terminal_s_size_up_to_80_by_24(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal smaller than 80x24 (down to 60x20) is laid out for; a pipe gets 80x24."""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            return 1

    for reported, size in [
        ((60, 20), (60, 20)),
        ((70, 40), (70, 24)),
        ((200, 60), (80, 24)),
        ((30, 10), (60, 20)),
        ((0, 0), (80, 24)),
    ]:
        monkeypatch.setattr(os, "get_terminal_size", lambda fd, r=reported: os.terminal_size(r))
        assert screen_size(Tty()) == size
    assert screen_size(io.StringIO()) == (80, 24)

    def no_size(fd: int) -> os.terminal_size:
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_size)
    assert screen_size(Tty()) == (80, 24)


def test_the_last_moves_of_a_round_end_with_the_move_that_ended_it() -> None:
    """last_moves_lines: one line a seat, in turn order, ending with the move that ended it."""
    from american_sniff.bots import random_match

    for players in (2, 4):
        states = list(random_match(players, 11))
        end = next(i for i, s in enumerate(states) if s.last_round is not None)
        shown = states[: end + 1]
        lines = last_moves_lines(shown, 0, width=80)
        assert len(lines) == players
        assert lines[0].startswith("Last moves: ")
        assert all(len(line) <= 80 for line in lines)
        last = shown[-1].last_action
        assert last is not None
        assert isinstance(last.move, Place)
        who = seat_name(last.seat, players, 0)
        assert lines[-1].split(": ", 1)[0].strip().removeprefix("Last moves: ") == who
        assert str(last.move.tile) in lines[-1]
        assert not re.search(r"\b(low|high|line_a|line_b|branch_a|branch_b)\b", "\n".join(lines))
        narrow = last_moves_lines(shown, 0, width=60)
        assert all(len(line) <= 60 for line in narrow)
        assert last_moves_lines(shown, 0, notation=True) != lines or "opened" in lines[-1]


def test_q_saves_to_resume_and_resume_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``q`` asks for a file; ``--resume`` goes on from it with the same seat, bots and seed."""
    saved = tmp_path / "saved.json"
    text, state = _play(4, f"1\n1\nq\n{saved}\n", seed=6, bots=("greedy",))
    assert f"Resume with: american-sniff play --resume {saved}" in text
    seat, kinds, states = resume_match(load_record(saved))
    assert (seat, kinds) == (0, ["greedy", "greedy", "greedy"])
    assert states[-1] == state
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    assert main(["play", "--resume", str(saved)]) == 0


def test_resume_refuses_a_record_not_saved_by_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A demo's record has no human seat: one line, exit 2."""
    path = tmp_path / "demo.json"
    assert main(["demo", "--record", str(path)]) == 0
    capsys.readouterr()
    assert main(["play", "--resume", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("american-sniff play: cannot resume")
    assert err.count("\n") == 1
    assert main(["play", "--resume", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_record_writes_the_match(tmp_path: Path) -> None:
    """``--record`` writes a record the referee finds valid, of a finished match."""
    path = tmp_path / "match.json"
    text, _ = _play(2, "1\n" * 400, seed=7, record=str(path))
    record = load_record(path)
    assert record.is_over
    assert check_record(record).ok
    assert record.names == ("human", "greedy")
    assert f"Record written to {path}" in text


def test_q_with_a_record_says_how_to_resume(tmp_path: Path) -> None:
    """With --record, q asks nothing: the record is written, and can be resumed."""
    path = tmp_path / "match.json"
    text, state = _play(2, "1\nq\n", seed=2, record=str(path))
    assert "Save the match" not in text
    assert f"Resume with: american-sniff play --resume {path}" in text
    assert resume_match(load_record(path))[2][-1] == state


def test_the_seed_is_random_by_default_and_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --seed, each match has a fresh seed, printed to play it again."""
    seeds = []
    for _ in range(2):
        monkeypatch.setattr(sys, "stdin", io.StringIO("q\n\n"))
        assert main(["play", "--bots", "greedy"]) == 0
        match = re.search(
            r"^Seed (\d+): --seed \1 plays this match again\.$", capsys.readouterr().out, re.M
        )
        assert match
        seeds.append(match.group(1))
    assert seeds[0] != seeds[1]


def test_the_settlement_waits_for_enter_on_a_terminal_only() -> None:
    """On a terminal, each settlement waits for Enter; piped input does not."""
    piped, _ = _play(2, "1\n" * 400, seed=1)
    assert "Press Enter" not in piped
    out = io.StringIO()
    play(2, 1, 0, ("greedy",), _Terminal("1\n" * 400), out)
    waits = out.getvalue().count("Press Enter to go on to round ")
    assert waits >= 1
    # Before every round but the first.
    assert waits == len(re.findall(r"^Round \d+: ", out.getvalue(), re.M)) - 1


def test_colour_on_terminals_only_and_never_under_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    """``NO_COLOR`` or a non-terminal turns colour off; a terminal turns it on."""
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert wants_color(_Terminal())
    assert not wants_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_color(_Terminal())
    coloured, _ = _play(2, "1\nq\n", color=True)
    plain, _ = _play(2, "1\nq\n")
    assert "\x1b[" in coloured
    assert "\x1b[" not in plain


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m american_sniff ARGS`` with 500 answers of 1 on its input."""
    return subprocess.run(
        [sys.executable, "-m", "american_sniff", *args],
        input="1\n" * 500,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )


def test_yes_1_piped_into_play_finishes_a_match() -> None:
    """The shell form ``yes 1 | american-sniff play --players 2 --seed 1`` ends with a winner."""
    process = _run("play", "--players", "2", "--seed", "1")
    assert process.returncode == 0, process.stderr
    assert "wins the match" in process.stdout
    # The default bot, in a player's words.
    assert "Seat 1: the search bot (imagines 32 deals a move; seed 3)" in process.stdout
    assert "None" not in process.stdout


@pytest.mark.parametrize("command", ["play --players 2 --seed 1 --bots greedy", "render {record}"])
def test_an_ascii_output_gets_the_ascii_drawing(command: str, tmp_path: Path) -> None:
    """With an output that cannot show box drawing, the drawing is ASCII, without a traceback."""
    record = tmp_path / "r.json"
    assert main(["demo", "--players", "2", "--record", str(record)]) == 0
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    process = _run(*command.format(record=record).split(), env=env)
    assert process.returncode == 0, process.stderr
    assert process.stdout.isascii()
    # render's full drawing, or play's compact one: a tile lying down is .N. over 'N'.
    assert "+---" in process.stdout or re.search(r"^ *\.\d\.$", process.stdout, re.M)
    assert "Traceback" not in process.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--seat", "4"], "--seat must be from 0 to 3"),
        (["play", "--players", "4", "--bots", "greedy,random"], "one per seat (3 with 4"),
        (["play", "--bots", "clever"], "no bot is named 'clever'"),
        (["play", "--playouts", "0"], "must be at least 1"),
    ],
)
def test_bad_options_are_named(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad options exit 2 with the reason."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_opponents_one_kind_for_all_or_one_per_seat() -> None:
    """One name fills every other seat; a list goes seat by seat, skipping the human."""
    assert opponents(2, 1, ["search"]) == {0: "search"}
    assert opponents(4, 2, ["a", "b", "c"]) == {0: "a", 1: "b", 3: "c"}


def test_the_table_and_tally_come_from_the_renderer() -> None:
    """The terminal game draws the table and the tally with american_sniff.render."""
    table = Layout.empty().place(Tile(4, 4))
    table = table.place(Tile(4, 6), parse_point("[4|4] line_a"))
    table = table.place(Tile(1, 4), parse_point("[4|4] line_b"))
    lines = table_lines(table)
    assert lines == render_text(table).splitlines()
    assert "  [4|4] branch_a: 4" in lines
    assert lines[-1] == "End sum: 15, scores 15"
    for score in (0, 5, 50, 135, -60):
        assert tally_lines(score) == tally_text(score).splitlines()


def test_the_screen_in_the_docs_is_the_game_s() -> None:
    """docs/playing.md shows a real screen: the fourth decision of --seed 7 --bots greedy."""
    docs = (Path(__file__).parents[1] / "docs" / "playing.md").read_text(encoding="utf-8")
    block = docs.split("as an 80 by 24 terminal shows it:\n\n```text\n", 1)[1].split("\n```", 1)[0]
    shown = block.splitlines()
    assert len(shown) == 24
    assert max(map(len, shown)) <= 80
    text, _ = _play(4, "1\n1\n1\nq\n", seed=7, bots=("greedy",))
    lines = text.splitlines()
    start = lines.index(shown[0], len(lines) - 40)
    assert lines[start : start + len(shown) - 1] == shown[:-1]
    assert lines[start + len(shown) - 1].startswith(shown[-1])  # then the piped answer


def test_a_negative_score_reads_as_a_number_not_a_double_dash() -> None:
    """Scores after a placement are listed with commas: ``(now 15, -10)``, never ``15--10``."""
    from american_sniff.cli.narrate import action_line
    from american_sniff.state import Action

    state = apply(new_match(2, seed=2024), Place(Tile(0, 3)))
    assert state.last_action is not None
    action = Action(seat=0, move=state.last_action.move, end_sum=15, points=15, scores=(15, -10))
    line = action_line(action, 2)
    assert line.endswith("scores 15 (now 15, -10)")
    assert "--" not in line


def test_the_header_wraps_between_words_in_a_players_words() -> None:
    """At 80 columns no header line is cut inside a word, and the bots are told without jargon."""
    text, _ = _play(4, "q\n", seed=8, bots=("search", "search", "search"))
    header = text.split("Round 1")[0].splitlines()
    assert all(len(line) <= 80 for line in header), header
    bots = [line for line in header if "bot (" in line]
    assert bots, header
    assert all("imagines" in line for line in bots), header
    assert not any(word in text for word in ("playouts", "rollouts", "depth"))
    assert "Enter: the only one" not in text


def test_a_tile_typed_in_either_order_or_alone_is_played_or_refused_with_a_reason() -> None:
    """``[4|2]``, ``4-2`` and ``42`` name ``[2|4]``; a bare tile with one place is played."""
    from american_sniff.cli.play import typed_move

    view = _decisions(2, 2)[0]
    move = next(m for m in view.legal_moves if isinstance(m, Place))
    tile = move.tile
    places = [m for m in view.legal_moves if isinstance(m, Place) and m.tile == tile]
    for text in (f"[{tile.high}|{tile.low}]", f"{tile.high}-{tile.low}", f"{tile.high}{tile.low}"):
        typed = typed_move(view, text)
        if len(places) == 1:
            assert typed == move
        else:
            assert isinstance(typed, list)
            assert "places" in typed[0]
    absent = next(Tile(a, b) for a in range(7) for b in range(a, 7) if Tile(a, b) not in view.hand)
    assert typed_move(view, f"{absent.high}{absent.low}") == [
        f"  You do not hold {absent}. Your hand: " + " ".join(map(str, view.hand))
    ]
    assert typed_move(view, "x") is None


def test_a_tile_and_its_end_are_played_as_the_screen_names_the_end() -> None:
    """``[t] on`` an end in words, its arm alone, or notation names the same move."""
    from american_sniff.cli.play import typed_move
    from american_sniff.render.text import end_words

    played = 0
    for view in _decisions(2, 2):
        words = end_words(view.layout)
        for move in view.legal_moves:
            if not isinstance(move, Place) or move.at is None:
                continue
            arm = words[move.at].split(" on ", 1)[1].removesuffix(" arm")
            for end in (words[move.at], arm, str(move.at)):
                assert typed_move(view, f"{move.tile} on {end}") == move
            played += 1
    assert played >= 10


def test_since_your_move_has_a_line_for_every_other_seat_on_the_screen() -> None:
    """With 4 players, the decision screen shows what each other seat did since your move."""
    text, _ = _play(4, "1\n1\nq\n", seed=7)
    first = r"^(Since your move|This round so far): (seat 1|partner 2|seat 3): "
    assert re.search(first, text, re.M)
    blocks = re.findall(r"^(?:Since your move|This round so far): .*\n +.*\n +.*$", text, re.M)
    assert blocks
    for block in blocks:
        for seat in ("seat 1", "partner 2", "seat 3"):
            assert f"{seat}: " in block


def test_the_table_at_a_rounds_end_is_its_picture() -> None:
    """With 2 players, every round's final table is drawn above its settlement, not listed."""
    text, _ = _play(2, "1\n" * 400, seed=4)
    tables = [
        block.split("  Round ")[0]
        for block in text.split("The table at the end of the round:\n")[1:]
    ]
    assert len(tables) >= 3
    for table in tables:
        assert not re.search(r"[:,] open ", table), table
        assert re.search(r"[\]}][\[{]\d\|\d[\]}]", table), table


def test_a_crowded_screen_names_the_arm_alone_before_it_falls_back_to_the_notation() -> None:
    """With more moves than room, the moves name the arm alone ("on the right").

    Only where that is still too long do they take the notation; a table
    listed arm by arm names its arms in a player's words.
    """
    shortened = listed = 0
    for seed in range(2):
        for view in _decisions(2, seed):
            if not view.layout.tiles:
                continue
            screen = decision_screen(view, size=(60, 16))
            text = "\n".join(screen)
            assert max(map(len, screen)) <= 60, text
            if re.search(r"\] on (the (left|right)|branch [ab]) =", text):
                shortened += 1
                assert not re.search(r"\] on \[", text), text
            if "arm by arm" in text:
                listed += 1
                assert "The left arm from " in text, text
                assert not re.search(r"^\S+ (low|high|line_a|line_b):", text, re.M), text
    assert shortened >= 1
    assert listed >= 1
