"""``python -m american_sniff``."""

from __future__ import annotations

import runpy
import sys

import pytest


def test_python_dash_m_runs_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The package runs as a module, with the same commands as ``american-sniff``."""
    monkeypatch.setattr(sys, "argv", ["american_sniff", "demo", "--players", "3", "--seed", "2"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("american_sniff", run_name="__main__")
    assert exit_info.value.code == 0
    assert "wins the match" in capsys.readouterr().out
