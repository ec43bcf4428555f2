"""The command line: ``american-sniff demo --record`` and ``american-sniff check``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from american_sniff import MatchRecord, check_record, load_record, record_match
from american_sniff.cli import main
from scenarios import demo_match


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The record file of ``american-sniff demo --players 2 --seed 2 --record FILE``."""
    path = tmp_path_factory.mktemp("records") / "demo.json"
    assert main(["demo", "--players", "2", "--seed", "2", "--record", str(path)]) == 0
    return path


def tampered(good: Path, tmp_path: Path) -> tuple[Path, int, int]:
    """A copy of ``good`` with one end sum changed; the file, and the round and action changed."""
    doc = json.loads(good.read_text())
    number, index = next(
        (n, i)
        for n, rnd in enumerate(doc["rounds"], start=1)
        for i, action in enumerate(rnd["actions"])
        if n >= 2 and action["end_sum"] is not None and i > 3
    )
    doc["rounds"][number - 1]["actions"][index]["end_sum"] += 1
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc))
    return path, number, index


def test_demo_record_then_check_exits_0(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The record the demo writes is the match it narrates, and the referee finds it valid."""
    capsys.readouterr()
    record = load_record(good)
    assert record == MatchRecord(
        players=2,
        names=("RandomBot(seed=3)", "RandomBot(seed=4)"),
        seed=2,
        rounds=record_match(demo_match(2, 2)).rounds,
        scores=record.scores,
        winner=record.winner,
    )
    assert record.winner == demo_match(2, 2)[-1].winner
    assert main(["check", str(good)]) == 0
    out = capsys.readouterr().out
    size = f"{len(record.rounds)} rounds, {record.action_count} actions"
    assert out == f"{good}: valid: {size}; every claim agrees with the rules\n"


def test_the_demo_says_where_the_record_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --record, the narration ends by naming the file; without, nothing is written."""
    path = tmp_path / "r.json"
    assert main(["demo", "--players", "3", "--seed", "10", "--record", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"Record written to {path}"
    assert check_record(load_record(path)).ok


def test_the_demo_refuses_a_record_path_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path that cannot be written fails at once, in one line, before any narration."""
    path = tmp_path / "missing" / "r.json"
    assert main(["demo", "--record", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"american-sniff demo: cannot write the record to {path}: No such file or directory\n"
    )


def test_a_tampered_record_exits_1_at_the_right_index(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report names the round and action index of the tampered claim."""
    path, number, index = tampered(good, tmp_path)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{path}: 1 discrepancy (")
    assert out[1].startswith(f"  round {number}, action {index}: end_sum: the record claims")


def test_json_output_for_scripts(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json prints one document: each file with its report or its error."""
    path, number, index = tampered(good, tmp_path)
    missing = tmp_path / "nope.json"
    assert main(["check", "--json", str(good), str(path), str(missing)]) == 2
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["ok"] is False
    files = data["files"]
    assert [f["file"] for f in files] == [str(good), str(path), str(missing)]
    assert files[0]["report"]["ok"] is True
    first = files[1]["report"]["discrepancies"][0]
    assert (first["kind"], first["round"], first["action"]) == ("end_sum", number, index)
    assert files[2] == {
        "file": str(missing),
        "error": "cannot read the file: No such file or directory",
        "report": None,
    }
    assert captured.err.count("\n") == 1
    assert main(["check", "--json", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_several_files_exit_with_the_worst_status(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """All valid: 0; any discrepancy: 1; any unreadable file: 2. Every file is reported."""
    path, *_ = tampered(good, tmp_path)
    assert main(["check", str(good), str(good)]) == 0
    assert main(["check", str(good), str(path)]) == 1
    assert main(["check", str(tmp_path / "nope.json"), str(path)]) == 2
    out = capsys.readouterr().out
    assert out.count(f"{path}: 1 discrepancy") == 2


def _truncated(good: Path) -> str:
    return good.read_text()[:500]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (_truncated, "the record is not valid JSON: "),
        ("", "the record is not valid JSON: Expecting value (line 1, column 1)"),
        (b"\xff\x00garbage", "the record is not UTF-8 text"),
        ('{"format": "american-sniff/state"}', 'the document\'s format is "american-sniff/state"'),
        (
            lambda good: good.read_text().replace('"format_version": 1', '"format_version": 2'),
            "format_version 2 is not supported (this library reads 1)",
        ),
        (
            lambda good: good.read_text().replace('"rules_version": "1"', '"rules_version": "9"'),
            'rules_version "9" is not supported',
        ),
        (
            lambda good: good.read_text().replace('"players": 2', '"players": "2"'),
            "the record is not in the format: invalid value for type, expected int @ $.players",
        ),
        (
            lambda good: good.read_text().replace(' opens"', ' open"'),
            "$.rounds[0].actions[0].move: ",
        ),
        ('["a list"]', "the record must be a JSON object, got list"),
    ],
)
def test_unreadable_input_exits_2_with_one_line(
    good: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: object,
    message: str,
) -> None:
    """Not JSON, not a record, another version: exit 2 and one line on stderr naming the file."""
    text = content(good) if callable(content) else content
    path = tmp_path / "bad.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        assert isinstance(text, str)
        path.write_text(text)
    assert main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"american-sniff check: {path}: {message}")
    assert captured.err.count("\n") == 1


def test_a_missing_file_or_a_directory_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path that cannot be read is named with the reason."""
    assert main(["check", str(tmp_path / "none.json")]) == 2
    assert capsys.readouterr().err == (
        f"american-sniff check: {tmp_path / 'none.json'}: "
        "cannot read the file: No such file or directory\n"
    )
    assert main(["check", str(tmp_path)]) == 2
    assert "cannot read the file: Is a directory" in capsys.readouterr().err


def test_truncated_json_exits_2_without_a_traceback(good: Path, tmp_path: Path) -> None:
    """As a real process: a truncated record gives exit 2 and one line, never a traceback."""
    path = tmp_path / "truncated.json"
    path.write_text(_truncated(good))
    done = subprocess.run(
        [sys.executable, "-m", "american_sniff", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"american-sniff check: {path}: the record is not valid JSON")
    assert done.stderr.count("\n") == 1
    assert done.stdout == ""


def test_check_needs_a_file_and_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    """Without a file it is a usage error; --help has the description, exit codes and examples."""
    with pytest.raises(SystemExit) as exit_info:
        main(["check"])
    assert exit_info.value.code == 2
    assert "the following arguments are required: FILE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    help_text = capsys.readouterr().out
    assert "Replay each match record" in help_text
    assert "exit status:" in help_text
    assert "american-sniff check --json first.json second.json" in help_text
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    assert "american-sniff demo --seed 7 --record match.json" in capsys.readouterr().out
