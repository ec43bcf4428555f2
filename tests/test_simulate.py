"""``american-sniff simulate``: tournaments from the command line."""

from __future__ import annotations

import argparse
import builtins
import io
import json
import subprocess
import sys
from typing import Any

import pytest

from american_sniff.cli import main
from american_sniff.cli.simulate import simulate


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["simulate", *argv, "--json"]) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def test_the_table_shows_win_rates_intervals_points_blocked_rounds_and_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The text summary has a line per bot and the totals."""
    argv = ["simulate", "--players", "2", "--matches", "6", "--bots", "greedy,random"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split() == [
        "bot",
        "matches",
        "wins",
        "win",
        "rate",
        "95%",
        "CI",
        "points/round",
    ]
    assert lines[2].startswith("greedy")
    assert lines[3].startswith("random")
    assert "rounds per match" in captured.out
    assert "blocked" in captured.out
    assert captured.err == ""  # no progress bar when stderr is not a terminal


def test_json_has_the_matches_and_the_wins_of_each_bot(capsys: pytest.CaptureFixture[str]) -> None:
    """``--json`` prints the summary with ``matches`` and a ``wins`` mapping."""
    doc = _json(["--players", "4", "--matches", "8", "--bots", "greedy,random"], capsys)
    assert doc["matches"] == 8
    wins = doc["wins"]
    assert isinstance(wins, dict)
    assert set(wins) == {"greedy", "random"}
    assert sum(wins.values()) == 8


def test_the_same_seed_gives_the_same_json_with_two_jobs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--jobs 2`` prints exactly what ``--jobs 1`` prints."""
    argv = ["--players", "3", "--matches", "6", "--bots", "greedy,random", "--seed", "4"]
    assert _json([*argv, "--jobs", "2"], capsys) == _json(argv, capsys)


def test_the_search_budget_option_reaches_the_search_bot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--playouts`` sets the search bot's budget (a different budget plays differently)."""
    argv = ["--players", "2", "--matches", "4", "--bots", "search,greedy", "--seed", "2"]
    assert _json([*argv, "--playouts", "1"], capsys) != _json([*argv, "--playouts", "8"], capsys)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_bar_is_drawn_on_a_terminal() -> None:
    """When stderr is a terminal, a bar counts the matches there; stdout has only the table."""
    args = argparse.Namespace(
        bots=("greedy",),
        players=2,
        matches=3,
        seed=1,
        jobs=1,
        playouts=None,
        backend="local",
        address=None,
        json=False,
    )
    out, err = io.StringIO(), _Terminal()
    simulate(args, out, err)
    assert "\r[" in err.getvalue()
    assert "] 3/3 matches\n" in err.getvalue()
    assert "matches" in out.getvalue()
    assert "\r" not in out.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "greedy,clever"], "no bot is named 'clever'"),
        (["--bots", "greedy,greedy"], "name each bot kind once"),
        (["--matches", "0"], "must be at least 1"),
        (["--jobs", "x"], "not an integer"),
        (["--backend", "cloud"], "invalid choice"),
    ],
)
def test_bad_options_are_named(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad options exit 2 with the reason."""
    with pytest.raises(SystemExit) as stop:
        main(["simulate", *argv])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_an_address_needs_the_ray_backend(capsys: pytest.CaptureFixture[str]) -> None:
    """``--address`` alone is refused with exit 2."""
    assert main(["simulate", "--address", "auto"]) == 2
    assert "--address needs --backend ray" in capsys.readouterr().err


@pytest.mark.strength
def test_the_done_when_command_shows_greedy_ahead() -> None:
    """The issue's command, run as a program: greedy wins most of 200 four-player matches."""
    process = subprocess.run(
        [sys.executable, "-m", "american_sniff", "simulate", "--players", "4"]
        + ["--matches", "200", "--bots", "greedy,random", "--jobs", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    wins = json.loads(process.stdout)["wins"]
    assert wins["greedy"] > 2 * wins["random"]


def test_the_ray_backend_without_ray_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where Ray is not installed, ``--backend ray`` says which extra to install."""
    real_import = builtins.__import__

    def no_ray(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    assert main(["simulate", "--matches", "1", "--backend", "ray"]) == 2
    assert "pip install 'american-sniff[ray]'" in capsys.readouterr().err
