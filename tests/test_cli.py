"""The command line: ``american-sniff demo``."""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from american_sniff import RoundEnd
from american_sniff.cli import demo, main
from american_sniff.cli.options import read_number


@pytest.mark.parametrize("players", [2, 3, 4])
def test_demo_plays_a_whole_match_and_names_the_winner(players: int) -> None:
    """The demo ends with a side at or past the target and says so."""
    out = io.StringIO()
    final = demo(players, 11, out)
    text = out.getvalue()
    assert final.winner is not None
    assert final.scores[final.winner] >= final.target
    verb = "win" if players == 4 else "wins"  # a partnership, or one seat
    assert f" {verb} the match in round {final.round}." in text
    assert "Final scores: " in text
    assert text.count("\nRound ") == final.round


@pytest.mark.parametrize("seed", [7, 33])  # the last round ends by a domino, then blocked
def test_demo_narrates_placements_settlements_and_scores(seed: int) -> None:
    """Every placement shows its sum; scoring ones show the points and the scores.

    Each finished round gets one "Round N ends" line, in order (the last as the final state
    records it), and the final scores printed are the final state's.
    """
    out = io.StringIO()
    final = demo(4, seed, out)
    text = out.getvalue()
    assert "Partnerships: seats 0+2 against seats 1+3" in text
    assert " places " in text
    assert "sum " in text
    assert " scores " in text
    assert "loses " in text
    assert "Scores: seats 0+2: " in text
    last = final.last_round
    assert last is not None
    assert last.round == final.round - 1
    ended = re.findall(r"^  Round (\d+) ends\b", text, flags=re.MULTILINE)
    assert ended == [str(number) for number in range(1, final.round)]
    if last.end is RoundEnd.DOMINO:
        how = f": seat {last.finisher} went out"
    else:
        how = " blocked: the stock is empty and nobody can place"
    assert f"\n  Round {last.round} ends{how}\n" in text
    assert f"\n  Scores: seats 0+2: {last.scores[0]}, seats 1+3: {last.scores[1]}\n" in text
    assert text.splitlines()[-1] == (
        f"Final scores: seats 0+2: {final.scores[0]}, seats 1+3: {final.scores[1]}"
    )


def test_demo_is_reproducible_from_its_seed() -> None:
    """The same seed prints the same match; another seed prints another."""
    runs = []
    for seed in (5, 5, 6):
        out = io.StringIO()
        demo(3, seed, out)
        runs.append(out.getvalue())
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_main_runs_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    """``main(['demo', ...])`` prints the match and exits 0."""
    assert main(["demo", "--players", "2", "--seed", "0x10"]) == 0
    assert "seed 16" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--players", "5"], "invalid choice"),
        (["demo", "--seed", "abc"], "not an integer"),
        (["demo", "--seed", "-1"], "from 0 to 2**64 - 1"),
        ([], "required"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad arguments get argparse's usage error, never a traceback."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_closed_pipe_ends_the_demo_quietly() -> None:
    """A reader that stops early ends the demo quietly, with the SIGPIPE status 141.

    `american-sniff demo | head -1` prints no traceback, and a script with
    `set -o pipefail` sees that the demo did not finish.
    """
    code = (
        "import sys; from american_sniff.cli import main; "
        "sys.exit(main(['demo', '--players', '4', '--seed', '7']))"
    )
    reader = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert reader.stdout is not None
    reader.stdout.readline()
    reader.stdout.close()
    _, err = reader.communicate(timeout=60)
    assert reader.returncode == 141
    assert b"Traceback" not in err


def test_the_record_is_written_whole_even_if_the_narration_reader_goes_away(
    tmp_path: Path,
) -> None:
    """With --record, a closed stdout still leaves a complete, valid record."""
    from american_sniff import check_record, load_record

    path = tmp_path / "r.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "american_sniff", "demo", "--seed", "3", "--record", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()
    process.communicate(timeout=60)
    assert process.returncode == 141
    assert check_record(load_record(path)).ok


def test_a_record_that_cannot_be_written_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A full disk (/dev/full) gives one line on stderr and status 1, no traceback."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    assert main(["demo", "--players", "2", "--record", "/dev/full"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("american-sniff demo: cannot write the record to /dev/full")
    assert err.count("\n") == 1


def test_ctrl_c_ends_quietly_with_the_sigint_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An interrupt inside a command exits 130 without a traceback."""
    demo_module = sys.modules["american_sniff.cli.demo"]

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(demo_module, "demo", interrupted)
    assert main(["demo"]) == 130
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("players", [2, 3, 4])
def test_demo_lines_fit_80_columns(players: int) -> None:
    """Every line of the narration, scoring placements and settlements included, fits 80."""
    out = io.StringIO()
    demo(players, 5, out)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(", scores " in line and "(now " in line for line in lines)


class _Tty(io.StringIO):
    """An output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_demo_waits_for_enter_between_rounds_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a terminal the demo shows one round, then waits; each Enter shows the next round."""
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stdout", piped)
    assert main(["demo", "--players", "2", "--seed", "5"]) == 0
    rounds = piped.getvalue().count("\nRound ")
    assert rounds >= 2
    assert "Press Enter" not in piped.getvalue()  # piped output is unchanged
    shown = _Tty()
    monkeypatch.setattr(sys, "stdout", shown)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))  # one Enter, then the input ends
    assert main(["demo", "--players", "2", "--seed", "5"]) == 0
    text = shown.getvalue()
    # After the first round it asked, read Enter; after the second it asked and
    # found the input ended, so the rest came at once.
    assert text.count("Press Enter for round ") == 2
    first = text.index("Press Enter for round 2. ")
    assert text[:first].count("\nRound ") == 1
    assert (
        text.replace("Press Enter for round 2. ", "").replace("Press Enter for round 3. \n", "")
        == piped.getvalue()
    )


@pytest.mark.parametrize(
    ("argv", "tty", "asks"),
    [(["--all"], True, False), (["--pause"], False, True), ([], False, False)],
)
def test_demo_all_prints_at_once_and_pause_waits_when_piped(
    argv: list[str], tty: bool, asks: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--all never waits, even on a terminal; --pause waits, even when piped."""
    out = _Tty() if tty else io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 100))
    assert main(["demo", "--players", "2", "--seed", "5", *argv]) == 0
    assert ("Press Enter for round 2. " in out.getvalue()) is asks
    assert "wins the match" in out.getvalue()


def test_demo_pause_and_all_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    """Asking for both pacings is a usage error that names them."""
    with pytest.raises(SystemExit) as stop:
        main(["demo", "--pause", "--all"])
    assert stop.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_demo_names_the_ends_in_a_players_words_or_with_notation_in_the_engines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The demo's placements say "on the 5 on the right arm"; --notation, "on [3|5] high"."""
    engine = re.compile(r"\b(low|high|line_a|line_b|branch_a|branch_b)\b")
    out = io.StringIO()
    demo(4, 7, out)
    words = out.getvalue()
    assert re.search(r" places \[\d\|\d\] on the \d on the (left|right) arm: sum ", words)
    assert re.search(r" places \[\d\|\d\] on the \d on branch [ab]: sum ", words)
    assert re.search(r" opens with \[\d\|\d\]: sum ", words)
    assert not engine.search(words)
    assert main(["demo", "--players", "4", "--seed", "7", "--notation"]) == 0
    notation = capsys.readouterr().out
    assert re.search(r" places \[\d\|\d\] on \[\d\|\d\] (low|high): sum ", notation)
    assert " opens with " not in notation
    # The same match: the same lines, but for how the ends are named.
    assert len(notation.splitlines()) <= len(words.splitlines())


@pytest.mark.parametrize(
    ("text", "kind", "value"), [("12", int, 12), ("2.5", float, 2.5), ("-3", int, -3)]
)
def test_read_number_reads_with_the_kind_it_is_given(
    text: str, kind: type[int] | type[float], value: float
) -> None:
    """read_number returns what the kind reads; the caller checks the range."""
    assert read_number(text, kind, "a number") == value


def test_read_number_names_the_text_and_what_was_wanted() -> None:
    """A text the kind refuses is an argparse type error that quotes it."""
    with pytest.raises(argparse.ArgumentTypeError, match=r"^not a port number: '8o'$"):
        read_number("8o", int, "a port number")
