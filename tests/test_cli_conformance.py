"""The command line: ``american-sniff engine`` and ``american-sniff conformance``."""

from __future__ import annotations

import hashlib
import importlib.resources
import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import generate_vectors as generate
from american_sniff.bots import random_match
from american_sniff.cli import main, parser
from american_sniff.cli.conformance import REPLAY_HEADING
from american_sniff.conformance import load_vectors
from american_sniff.records import record_match

WRONG_ENGINES = Path(__file__).parent / "wrong_engines"
LIBRARY_ENGINE = shlex.join([sys.executable, "-m", "american_sniff", "engine"])


def settlement_only(tmp_path: Path) -> Path:
    """A directory holding only the shipped settlement vectors (quick to run)."""
    shipped = importlib.resources.files("american_sniff.conformance").joinpath("vectors")
    (tmp_path / "settlement.json").write_bytes(shipped.joinpath("settlement.json").read_bytes())
    return tmp_path


def serve_text(monkeypatch: pytest.MonkeyPatch, text: bytes) -> list[dict[str, object]]:
    """Run ``american-sniff engine`` in-process on ``text``; return its answers."""
    stdin = io.TextIOWrapper(io.BytesIO(text))
    stdout = io.TextIOWrapper(io.BytesIO())
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["engine"]) == 0
    stdout.flush()
    raw = stdout.buffer.getvalue()
    return [json.loads(line) for line in raw.splitlines()]


def test_engine_answers_malformed_lines_with_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line gets one answer; a malformed one an error naming the problem."""
    answers = serve_text(
        monkeypatch,
        b'{"cmd": "hello", "protocol_version": 1}\n'
        b'{"cmd": "move", "move": "draw"}\n'
        b"{oops\n"
        b'{"cmd": "new", "players": "two"}\n'
        b'{"cmd": "table", "moves": ["[1|4] opens", "[4|4] on [1|4] branch_a"]}\n',
    )
    assert [a["ok"] for a in answers] == [True, False, False, False, False]
    assert [a.get("error") for a in answers[1:]] == [
        "no_match",
        "bad_json",
        "bad_request",
        "illegal_move",
    ]
    assert "expected int @ $.players" in str(answers[3]["message"])
    assert (answers[4]["code"], answers[4]["index"]) == ("not_a_point", 1)


@pytest.mark.sweep
def test_conformance_passes_the_library_engine_from_the_command_line() -> None:
    """``american-sniff conformance --engine "american-sniff engine"`` passes everything, exit 0.

    Run as a user would, from the installed commands (or ``python -m
    american_sniff`` where the scripts are not on this Python's path).
    """
    script = Path(sys.executable).with_name("american-sniff")
    prefix = [str(script)] if script.exists() else [sys.executable, "-m", "american_sniff"]
    engine = shlex.join([*prefix, "engine"])
    done = subprocess.run(
        [*prefix, "conformance", "--engine", engine],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    lines = done.stdout.splitlines()
    assert all(line.startswith("PASS ") for line in lines[:-1])
    assert lines[-1] == f"{len(lines) - 1} vectors: all passed (american-sniff 0.1.0)"
    assert done.stderr == ""


def test_conformance_reports_failures_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong engine: FAIL lines with the first difference, the summary, exit 1."""
    engine = shlex.join([sys.executable, str(WRONG_ENGINES / "finisher_gains.py")])
    code = main(["conformance", "--engine", engine, "--vectors", str(settlement_only(tmp_path))])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert (
        "FAIL settlement/domino-two-players: step 1, settle: scores[1]: expected 95, got 115"
    ) in out
    assert "PASS settlement/rounding-1-and-2-go-down" in out
    assert out[-1] == (
        "12 vectors: 9 passed, 3 failed (wrong: the finisher gains); the first failure: "
        "settlement/domino-two-players, step 1, field scores[1]"
    )


def test_conformance_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one JSON report and nothing else."""
    code = main(
        [
            "conformance",
            "--engine",
            LIBRARY_ENGINE,
            "--vectors",
            str(settlement_only(tmp_path)),
            "--json",
            "--timeout",
            "20",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["passed"] is True
    assert (report["total"], report["failed"]) == (12, 0)
    assert report["engine"]["protocol_version"] == 1


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--engine", "no-such-engine-anywhere"], "cannot start 'no-such-engine-anywhere'"),
        (["--engine", LIBRARY_ENGINE, "--vectors", "/no/such/dir"], "not a directory"),
        ([], "give --engine CMD (or --export DIR)"),
        (["--engine", "no-such-engine-anywhere", "--fuzz", "1"], "cannot start"),
    ],
)
def test_conformance_exits_2_when_it_cannot_run(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing engine or unreadable vectors: one line on stderr, exit 2, no traceback."""
    assert main(["conformance", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("american-sniff conformance: ")
    assert words in err
    assert err.count("\n") == 1


def test_conformance_exits_2_on_a_bad_vector_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A vector file that is not JSON is named, exit 2."""
    (tmp_path / "broken.json").write_text('{"format": ')
    assert main(["conformance", "--engine", LIBRARY_ENGINE, "--vectors", str(tmp_path)]) == 2
    assert "broken.json is not valid JSON" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value"), [("--fuzz", "0"), ("--fuzz", "many"), ("--seed", "-1"), ("--seed", "x")]
)
def test_conformance_checks_fuzz_and_seed(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--fuzz takes a count of 1 or more, --seed an integer from 0 to 2**64 - 1."""
    with pytest.raises(SystemExit) as exit_info:
        main(["conformance", "--engine", "x", option, value])
    assert exit_info.value.code == 2
    assert option in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "seed"), [("7", 7), ("0x10", 16), ("0xFFFFFFFFFFFFFFFF", 2**64 - 1)]
)
def test_conformance_reads_its_seed_as_every_command_does(value: str, seed: int) -> None:
    """--seed takes the shared seed type: decimal, or hexadecimal with a 0x prefix."""
    args = parser().parse_args(["conformance", "--engine", "x", "--seed", value])
    assert args.seed == seed


def test_conformance_fuzz_passes_the_library_and_catches_a_loose_grammar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--fuzz: a summary and exit 0 for the library; the difference and its requests, exit 1."""
    assert main(["conformance", "--engine", LIBRARY_ENGINE, "--fuzz", "2", "--seed", "9"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith("rare positions reached: win_by_seat_2_or_3 ")
    assert out[1].startswith("fuzz: no difference in 2 matches, ")
    assert out[1].endswith(" requests (seed 9)")
    loose = shlex.join([sys.executable, str(WRONG_ENGINES / "loose_grammar.py")])
    assert main(["conformance", "--engine", loose, "--fuzz", "20", "--seed", "1"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert 'code: expected "not_a_tile", got "not_a_move"' in out[0]
    assert "(counting from 1 within the match, the hello excluded" in out[0]
    replay = out[out.index(REPLAY_HEADING) + 1 : -1]
    assert json.loads(replay[0])["cmd"] == "hello"
    assert json.loads(replay[-1])["cmd"] == "move"
    assert out[-1].startswith("fuzz: a difference in ")


def test_conformance_fuzz_takes_bias(capsys: pytest.CaptureFixture[str]) -> None:
    """--bias changes the requests the same seed sends, and the library still passes."""
    plain = ["conformance", "--engine", LIBRARY_ENGINE, "--fuzz", "2", "--seed", "9"]
    assert main(plain) == 0
    first = capsys.readouterr().out
    assert main([*plain, "--bias"]) == 0
    assert capsys.readouterr().out != first


def test_conformance_export_writes_the_files_and_a_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--export: every vector file byte for byte, and a manifest with their digests."""
    target = tmp_path / "release"
    assert main(["conformance", "--export", str(target)]) == 0
    assert capsys.readouterr().out.startswith("wrote 8 vector files (")
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["format"] == "american-sniff/vectors-manifest"
    assert (manifest["vectors_format_version"], manifest["protocol_version"]) == (2, 1)
    shipped = importlib.resources.files("american_sniff.conformance").joinpath("vectors")
    for entry in manifest["files"]:
        data = (target / entry["name"]).read_bytes()
        assert data == shipped.joinpath(entry["name"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert entry["bytes"] == len(data)
    exported = load_vectors(target)
    assert len(exported) == sum(entry["vectors"] for entry in manifest["files"])
    assert main(["conformance", "--export", str(target / "manifest.json")]) == 2
    assert "is not a directory" in capsys.readouterr().err


@pytest.mark.parametrize("timeout", ["0", "soon"])
def test_conformance_needs_a_positive_timeout(
    timeout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--timeout takes a number of seconds above zero."""
    with pytest.raises(SystemExit) as exit_info:
        main(["conformance", "--engine", "x", "--timeout", timeout])
    assert exit_info.value.code == 2
    assert "--timeout" in capsys.readouterr().err


def test_the_commands_explain_themselves(capsys: pytest.CaptureFixture[str]) -> None:
    """Both commands have a description and examples in --help."""
    for command in ("engine", "conformance"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "examples:" in out
        assert "protocol" in out


def test_the_match_vectors_records_pass_the_referee(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The record of each match vector's match, saved, is valid for ``american-sniff check``."""
    files = []
    for players, seed, _ in generate.MATCHES:
        path = tmp_path / f"{players}-{seed}.json"
        record = record_match(list(random_match(players, seed)))
        path.write_text(json.dumps(record.to_dict()), encoding="utf-8")
        files.append(str(path))
    assert main(["check", *files]) == 0
    assert capsys.readouterr().out.count("every claim agrees with the rules") == len(files)
