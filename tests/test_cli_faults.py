"""Faults of the surroundings: one clear line on standard error, a non-zero status, no traceback.

Closed standard streams, a full disk, an output that cannot show the drawing,
and a tournament of one bot kind. Each command runs in a shell of its own, so
that its streams can be closed or redirected.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from american_sniff.cli import main, parser

FULL = Path("/dev/full")
needs_sh = pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell (sh)")
needs_full = pytest.mark.skipif(
    not FULL.exists() or shutil.which("sh") is None, reason="no /dev/full or no sh here"
)


def _shell(
    command: str, *, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``american-sniff COMMAND`` (with the shell redirections it has) in ``sh``."""
    python = shlex.quote(sys.executable)
    return subprocess.run(
        ["sh", "-c", f"{python} -m american_sniff {command}"],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )


def _one_line(process: subprocess.CompletedProcess[str], start: str) -> None:
    assert process.returncode != 0
    assert "Traceback" not in process.stderr
    assert process.stderr.count("\n") == 1, process.stderr
    assert process.stderr.startswith(start), process.stderr


@needs_sh
@pytest.mark.parametrize(
    ("command", "start"),
    [
        ("play --seed 1 <&-", "american-sniff play: standard input is closed"),
        ("engine <&-", "american-sniff engine: standard input is closed"),
        ("engine >&-", "american-sniff: standard output is closed"),
        ("demo >&-", "american-sniff: standard output is closed"),
    ],
)
def test_a_closed_standard_stream(command: str, start: str) -> None:
    """``play <&-``, ``engine <&-``, ``engine >&-``: one line, status 2."""
    process = _shell(command)
    _one_line(process, start)
    assert process.returncode == 2


@needs_full
@pytest.mark.parametrize(
    "command", ["demo", "check {record}", "engine", "play --seed 1 --bots greedy"]
)
def test_a_full_disk(command: str, tmp_path: Path) -> None:
    """Writing to /dev/full: one line naming the fault, status 1."""
    record = tmp_path / "r.json"
    assert main(["demo", "--players", "2", "--record", str(record)]) == 0
    requests = '{"cmd": "hello", "protocol_version": 1, "rules_version": "1"}\n'
    process = _shell(
        f"{command.format(record=record)} >/dev/full",
        stdin=requests if command == "engine" else "1\n" * 300,
    )
    name = command.split(maxsplit=1)[0]
    _one_line(process, f"american-sniff {name}: cannot write the output: No space left on device")
    assert process.returncode == 1


@pytest.mark.parametrize(
    "command", ["play --players 2 --seed 1 --bots greedy", "render {record}", "demo"]
)
def test_an_output_that_is_not_utf_8(command: str, tmp_path: Path) -> None:
    """With ``PYTHONIOENCODING=ascii`` the commands draw in ASCII and finish."""
    record = tmp_path / "r.json"
    assert main(["demo", "--players", "2", "--record", str(record)]) == 0
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    process = subprocess.run(
        [sys.executable, "-m", "american_sniff", *command.format(record=record).split()],
        input="1\n" * 400,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert process.returncode == 0, process.stderr
    assert process.stderr == ""
    assert process.stdout.isascii()


def test_text_the_output_cannot_show_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Should a command write what the encoding cannot show, one line says so, with the cure."""
    demo_module = sys.modules["american_sniff.cli.demo"]

    def unshowable(*_: object, **__: object) -> None:
        "═".encode("ascii")

    monkeypatch.setattr(demo_module, "demo", unshowable)
    assert main(["demo"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "american-sniff demo: the output's encoding (ascii) cannot show \\u2550; use --ascii "
        "where the command has it, or set PYTHONIOENCODING=utf-8\n"
    )


def test_simulate_with_one_bot_kind_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """``simulate --bots greedy`` would play greedy against itself: a usage error."""
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "--bots", "greedy", "--matches", "1"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--bots needs at least two bot kinds to play against each other, got only greedy" in err


def _subparsers() -> dict[str, object]:
    top = parser()
    action = next(a for a in top._actions if a.dest == "command")
    return dict(action.choices)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_help_is_wrapped_and_free_of_reprs(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command's --help fits 80 columns and shows no Python value."""
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps the options to the terminal
    command = _subparsers()[name]
    text = command.format_help()  # type: ignore[attr-defined]
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert not re.search(r"\bNone\b|b'", text)
    assert text.isascii()  # readable on any terminal


def test_the_default_player_count_is_the_same_everywhere() -> None:
    """``play``, ``demo`` and ``simulate`` all default to four players."""
    commands = _subparsers()
    for name in ("play", "demo", "simulate"):
        parsed = commands[name].parse_args([])  # type: ignore[attr-defined]
        assert parsed.players == 4, name
