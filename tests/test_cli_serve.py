"""``american-sniff serve``: its options and its clear errors (the server itself: test_web_*)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from american_sniff.cli import main


def test_serve_is_listed_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``serve --help`` names the loopback default, the port and the database."""
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--help"])
    assert exit_info.value.code == 0
    shown = capsys.readouterr().out
    for words in ("--host", "default 127.0.0.1", "--port", "--db", "--bot-delay", "[web]"):
        assert words in shown


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--port", "70000"], "from 0 to 65535"),
        (["--port", "x"], "not a port number"),
        (["--bot-delay", "99"], "from 0 to 10 seconds"),
        (["--bot-delay", "soon"], "not a number of seconds"),
    ],
)
def test_bad_options_are_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    """A wrong port or delay is a usage error that says what is wrong."""
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *argv])
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err


def test_without_the_extra_serve_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With uvicorn missing, one line names the extra to install; no traceback."""
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve"]) == 2
    error = capsys.readouterr().err
    assert "pip install 'american-sniff[web]'" in error
    assert "Traceback" not in error


def test_a_database_that_cannot_be_opened_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory given as the database file fails with its name, before serving."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    assert main(["serve", "--db", str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert f"cannot open the database {tmp_path}" in error


def test_a_port_in_use_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Serving on a port another program holds fails with the port named, before serving."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", ":memory:"]) == 1
    assert f"cannot listen on 127.0.0.1 port {port}" in capsys.readouterr().err
