"""``american-sniff play`` on a real 80x24 terminal: tmux, driven by keys, read by capture-pane."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from american_sniff import load_record
from american_sniff.cli.play import resume_match

TMUX = shutil.which("tmux")
# CI installs tmux (.ci/run), so there a missing tmux fails instead of skipping.
pytestmark = pytest.mark.skipif(
    TMUX is None and not os.environ.get("CI"), reason="tmux is not installed"
)

#: The terminal every decision must fit.
COLUMNS, LINES = 80, 24
#: How many times the pane is read while waiting for the game to answer.
POLLS = 3000


class _Pane:
    """A tmux server of its own, with one 80x24 window running a command."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        assert TMUX is not None
        self._tmux = [TMUX, "-L", f"as-test-{uuid.uuid4().hex}", "-f", os.devnull]
        env = {**os.environ, "TERM": "xterm-256color"}
        env.pop("NO_COLOR", None)
        subprocess.run(
            [
                *self._tmux,
                "new-session",
                "-d",
                "-x",
                str(COLUMNS),
                "-y",
                str(LINES),
                "-c",
                str(cwd),
                # Keep the pane when the game ends, to read its last screen.
                " ".join(command) + "; echo '[game over]'; sleep 30",
            ],
            check=True,
            env=env,
        )

    def screen(self) -> list[str]:
        """The 24 lines the terminal shows."""
        shown = subprocess.run(
            [*self._tmux, "capture-pane", "-p"], check=True, capture_output=True, text=True
        ).stdout
        lines = shown.split("\n")[:LINES]
        return lines + [""] * (LINES - len(lines))

    def keys(self, *keys: str) -> None:
        subprocess.run([*self._tmux, "send-keys", *keys], check=True)

    def wait(self, *patterns: str, after: list[str] | None = None) -> tuple[str, list[str]]:
        """Read the pane until its last non-blank line matches one of ``patterns``.

        With ``after``, a screen equal to it is not taken: the keys sent on it
        have not been answered yet.
        """
        for _ in range(POLLS):
            screen = self.screen()
            last = next((line for line in reversed(screen) if line.strip()), "")
            if screen != after:
                for pattern in patterns:
                    if re.search(pattern, last):
                        return pattern, screen
            time.sleep(0.02)  # not measured: only a pause between two readings
        pytest.fail("the game stopped answering:\n" + "\n".join(self.screen()))

    def close(self) -> None:
        subprocess.run([*self._tmux, "kill-server"], check=False, capture_output=True)


@pytest.fixture
def pane(request: pytest.FixtureRequest) -> Iterator[_Pane]:
    """A pane playing a match against greedy bots: the parameter is the options of ``play``."""
    command = [sys.executable, "-m", "american_sniff", "play", *request.param.split()]
    opened = _Pane(command, Path(__file__).parent)
    yield opened
    opened.close()


# capture-pane leaves out the spaces that end a line.
PROMPT = r"h hint, u undo, \? help, q quit:$"
SETTLEMENT = r"Press Enter to go on to round \d+\.$"
OVER = r"^\[game over\]$"


@pytest.mark.parametrize("pane", ["--players 4 --bots greedy --seed 5"], indirect=True)
def test_every_decision_of_a_four_player_match_fits_80_by_24(pane: _Pane) -> None:
    """At every decision, the scores, the table, the hand and every numbered move show at once.

    On every screen, the other seats' last moves and the table's picture are visible.
    """
    decisions = settlements = pictures = 0
    screen: list[str] | None = None
    while True:
        found, screen = pane.wait(PROMPT, SETTLEMENT, OVER, after=screen)
        if found == OVER:
            break
        if found == SETTLEMENT:
            settlements += 1
            # The settlement waits: the revealed hands are on the screen.
            assert any(re.match(r"^  Round \d+ ends", line) for line in screen), screen
            pane.keys("Enter")
            continue
        decisions += 1
        pictures += _check_decision(screen)
        pane.keys("1", "Enter")
    assert decisions >= 10
    assert settlements >= 1
    # Every decision on a table that is not empty shows its picture.
    assert pictures >= decisions - settlements - 1
    assert any("The match is over: you" in line for line in pane.screen())


def _check_decision(screen: list[str]) -> bool:
    """Check one decision screen; whether it shows the table's picture (not an empty table)."""
    text = "\n".join(screen)
    prompt = next(i for i in range(LINES - 1, -1, -1) if screen[i].strip())
    asked = re.search(r"Move 1-(\d+)", screen[prompt])
    count = int(asked.group(1)) if asked else 1  # else "Enter plays your only move"
    # The scores line opens the screen, and everything down to the prompt is visible.
    top = [
        i for i, line in enumerate(screen) if re.match(r"^Round \d+\. seats 0\+2 \(you\): ", line)
    ]
    assert top, text
    start = top[-1]
    shown = "\n".join(screen[start:])
    assert re.search(r"^Tiles held: seat 1 \d+, partner 2 \d+, seat 3 \d+; stock \d+$", shown, re.M)
    assert re.search(r"^Your hand: (\[\d\|\d\] ?)+$", shown, re.M), shown
    for number in range(1, count + 1):
        assert re.search(rf"(^| ) *{number}\. \[\d\|\d\] ", shown, re.M), shown
    # What each other seat did since your move: a line a seat, on every screen.
    since = screen[start + 2 : start + 5]
    assert re.match(r"^(Since your move|This round so far): seat 1: ", since[0]), shown
    assert re.match(r"^ +partner 2: ", since[1]), shown
    assert re.match(r"^ +seat 3: ", since[2]), shown
    hand = next(i for i in range(start, LINES) if screen[i].startswith("Your hand: "))
    # The table's picture, never the list of its arms: a tile in its glyph on
    # the line under the since-your-move lines, the Sniff or a tile lying down.
    table = screen[start + 5 : hand]
    assert table, shown
    if table[0] != "The table is empty: you open.":
        assert not any(line.startswith("The table, arm by arm") for line in table), shown
        assert any(re.search(r"[\[{]\d\|\d[\]}]|┌\d┐", line) for line in table), shown
        return True
    return False


@pytest.mark.parametrize("pane", ["--players 4 --bots greedy --seed 8 --playouts 2"], indirect=True)
def test_hint_help_and_mistakes_keep_the_whole_decision_in_sight(
    pane: _Pane, tmp_path: Path
) -> None:
    """After h, ? or a wrong answer the screen is drawn again, whole, with the message under it.

    Then q saves the match to a file that --resume goes on with.
    """
    _, screen = pane.wait(PROMPT)
    _check_decision(screen)
    pane.keys("h", "Enter")
    _, screen = pane.wait(PROMPT, after=screen)
    _check_decision(screen)
    prompt = max(i for i, line in enumerate(screen) if line.strip())
    assert re.match(r"^  Hint: the search bot would play \d+\. \[", screen[prompt - 1])
    pane.keys("?", "Enter")
    _, screen = pane.wait(r"Press Enter to go back to your move\.$", after=screen)
    assert any(line.startswith("  u             undo") for line in screen)
    pane.keys("Enter")
    _, screen = pane.wait(PROMPT, after=screen)
    _check_decision(screen)
    pane.keys("[6|6] on", "Enter")
    _, screen = pane.wait(PROMPT, after=screen)
    _check_decision(screen)
    assert any(line.startswith("  That is not a move: '[6|6] on'") for line in screen)
    saved = tmp_path / "saved.json"
    pane.keys("q", "Enter")
    _, screen = pane.wait(r"File name \(Enter: do not save\):$", after=screen)
    pane.keys(str(saved), "Enter")
    pane.wait(OVER, after=screen)
    seat, kinds, states = resume_match(load_record(saved))
    assert (seat, kinds, states[0].seed) == (0, ["greedy"] * 3, 8)
    assert any("Saved. Resume with: american-sniff play --resume" in line for line in pane.screen())
