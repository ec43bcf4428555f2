"""``american-sniff play``: a human against bots in the terminal."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from american_sniff import Layout, Tile, new_match, parse_point
from american_sniff.cli import main
from american_sniff.cli.play import opponents, play, table_lines, tally_lines
from american_sniff.render import render_text, tally_text

_TILE = re.compile(r"\[\d\|\d\]")


def _play(
    players: int, answers: str, *, seat: int = 0, bots: tuple[str, ...] = ("greedy",), seed: int = 1
) -> tuple[str, object]:
    out = io.StringIO()
    state = play(players, seed, seat, bots, io.StringIO(answers), out)
    return out.getvalue(), state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_answering_1_every_time_finishes_the_match(players: int) -> None:
    """A whole match is played from piped answers and its winner announced."""
    text, state = _play(players, "1\n" * 400)
    assert getattr(state, "is_over", False)
    assert re.search(r"wins the match in round \d+: you (win|lose)\.", text)
    assert "Round 2: seat" in text
    assert text.count("ends") >= 1
    assert "loses" in text
    assert "Tally:" in text
    if players == 4:
        assert "your partner is seat 2" in text


def test_the_human_sees_the_table_the_hand_and_numbered_moves_with_their_sums() -> None:
    """Each choice shows the table, the hand, and each legal move with its end sum."""
    text, _ = _play(2, "1\n" * 400)
    assert "Counted ends (+N beyond the end):" in text
    assert "╔═══" in text
    assert "End sum: " in text
    assert "Your hand: " in text
    assert re.search(r"^ +1\. \[\d\|\d\] (opens|on \[\d\|\d\] \w+) +\(sum \d+", text, re.M)
    assert re.search(r"Your move \(1-\d+, q to quit\): 1$", text, re.M)  # piped answer shown


def test_other_seats_draws_are_shown_without_their_tiles() -> None:
    """Another seat's draw never names its tile; the human's own draws do."""
    text, _ = _play(2, "1\n" * 400, seed=3)
    others = re.findall(r"^  seat 1 draws (.*)$", text, re.M)
    mine = re.findall(r"^  seat 0 draws (.*)$", text, re.M)
    assert others
    assert all(line == "a tile" for line in others)
    assert mine
    assert all(_TILE.fullmatch(line) for line in mine)


def test_no_hidden_tile_is_printed_before_the_settlement_reveals_it() -> None:
    """Before the first settlement, a tile seat 0 cannot see is printed only once public.

    Public means placed on the table, or drawn by the human.
    """
    out = io.StringIO()
    play(2, 5, 0, ("greedy",), io.StringIO("1\n" * 400), out)
    first_round = out.getvalue().split("Round 1 ends")[0]
    start = new_match(2, seed=5)
    hidden = set(start.hands[1]) | set(start.stock)
    printed = {Tile(int(t[1]), int(t[3])) for t in _TILE.findall(first_round)}
    assert printed & hidden
    assert printed & hidden <= _came_to_light(first_round)


def _came_to_light(text: str) -> set[Tile]:
    """Tiles that became public in ``text``: placed on the table, or drawn by the human."""
    public: set[Tile] = set()
    for line in text.splitlines():
        match = re.match(r"^  seat \d places (\[\d\|\d\])|^  seat 0 draws (\[\d\|\d\])", line)
        if match:
            tile = match.group(1) or match.group(2)
            public.add(Tile(int(tile[1]), int(tile[3])))
    return public


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ("x\n1\nq\n", "'x' is not a move number: enter 1 to"),
        ("99\n1\nq\n", "There is no move 99: enter 1 to"),
        ("\n1\nq\n", "'' is not a move number"),
    ],
)
def test_bad_input_asks_again_with_a_reason(answers: str, message: str) -> None:
    """A wrong answer is explained and the question asked again."""
    text, state = _play(2, answers)
    assert message in text
    assert text.count("Your move (") >= 3
    assert "You stopped in round" in text
    assert not getattr(state, "is_over", True)


@pytest.mark.parametrize("answers", ["q\n", "", "1\n1\n"])
def test_q_or_the_end_of_input_stops_cleanly(answers: str) -> None:
    """``q`` stops at once; the end of the input stops too; the scores are shown."""
    text, _ = _play(2, answers)
    assert "You stopped in round 1." in text
    assert "Scores: seat 0:" in text
    if not answers.startswith("q"):
        assert "(end of input)" in text


def test_main_runs_play_and_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """``main(['play', ...])`` reads standard input and exits 0, also when it stops early."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert main(["play", "--players", "3", "--bots", "random,greedy", "--seat", "2"]) == 0


def test_yes_1_piped_into_play_finishes_a_match() -> None:
    """The shell form ``yes 1 | american-sniff play --players 2 --seed 1`` ends with a winner."""
    process = subprocess.run(
        [sys.executable, "-m", "american_sniff", "play", "--players", "2", "--seed", "1"],
        input="1\n" * 500,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    assert "wins the match" in process.stdout
    assert "SearchBot(seed=3" in process.stdout  # the default opponent


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--seat", "2"], "--seat must be from 0 to 1"),
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
