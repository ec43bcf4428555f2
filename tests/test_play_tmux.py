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

from american_sniff import MatchRecord, MatchState, Place, Point, load_record, replay, view_for
from american_sniff.cli.play import resume_match
from american_sniff.views import PlayerView

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
    """A tmux server of its own, with one window (80x24 unless told) running a command."""

    def __init__(
        self, command: list[str], cwd: Path, size: tuple[int, int] = (COLUMNS, LINES)
    ) -> None:
        assert TMUX is not None
        self.size = size
        self._tmux = [TMUX, "-L", f"as-test-{uuid.uuid4().hex}", "-f", os.devnull]
        env = {**os.environ, "TERM": "xterm-256color"}
        env.pop("NO_COLOR", None)
        subprocess.run(
            [
                *self._tmux,
                "new-session",
                "-d",
                "-x",
                str(size[0]),
                "-y",
                str(size[1]),
                "-c",
                str(cwd),
                # Keep the pane when the game ends, to read its last screen.
                " ".join(command) + "; echo '[game over]'; sleep 30",
            ],
            check=True,
            env=env,
        )

    def screen(self) -> list[str]:
        """The lines the terminal shows (24 unless told)."""
        shown = subprocess.run(
            [*self._tmux, "capture-pane", "-p"], check=True, capture_output=True, text=True
        ).stdout
        height = self.size[1]
        lines = shown.split("\n")[:height]
        return lines + [""] * (height - len(lines))

    def logical_lines(self) -> list[str]:
        """The lines the program wrote, as shown: a line the terminal wrapped comes back whole."""
        shown = subprocess.run(
            [*self._tmux, "capture-pane", "-p", "-J"], check=True, capture_output=True, text=True
        ).stdout
        return shown.rstrip("\n").split("\n")

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


#: The engine's names of a tile's sides, which a player's words never use.
ENGINE_WORDS = re.compile(r"\b(low|high|line_a|line_b|branch_a|branch_b)\b")
#: What a seat did, as the narration says it under the prompt.
NARRATION = re.compile(r"^  (you|seat \d|partner \d) (place|places|open|opens) ")

# capture-pane leaves out the spaces that end a line.
PROMPT = r"h hint, u undo, \? help, q quit:$"
SETTLEMENT = r"Press Enter to go on to round \d+\.$"
OVER = r"^\[game over\]$"
HELP_WAITS = r"Press Enter to go back to your move\.$"
ROUND_ENDS = re.compile(r"^  Round \d+ ends")


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
    # The hint names the move in a player's words and says why, as the browser does.
    hint = next(i for i, line in enumerate(screen) if line.startswith("  Hint: "))
    said = " ".join(line.strip() for line in screen[hint:] if line.startswith("  "))
    assert re.match(r"^Hint: the search bot would play \d+\. \[\d\|\d\] (opens|on ) ?", said)
    assert re.search(r" \((scores|goes out|gets rid of|plays the double|nothing scores)", said)
    assert not ENGINE_WORDS.search(said), said
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


def _decision_views(record: Path) -> list[PlayerView]:
    """Seat 0's view at each decision of a match that ``play`` recorded: where it could place."""
    seat, _, states = resume_match_states(load_record(record))
    views = []
    for state in states:
        if state.winner is None and state.turn == seat:
            view = view_for(state, seat)
            if any(isinstance(move, Place) for move in view.legal_moves):
                views.append(view)
    return views


def resume_match_states(record: MatchRecord) -> tuple[int, list[str], list[MatchState]]:
    """The human's seat, the bots and every state of a recorded match (over or not)."""
    human = record.names.index("human")
    return human, [n for n in record.names if n != "human"], list(replay(record))


def _arm(words: str) -> str:
    """The part of an end's words that says where it is: its side, arm or branch."""
    return words.split(" on ", 1)[-1].removesuffix(" arm")


def test_a_whole_match_speaks_a_players_words_and_keeps_the_ends_names(tmp_path: Path) -> None:
    """A four-player match at 80x24, checked at every decision and settlement.

    The narration of the moves uses a player's words, never the engine's
    sides (``line_b``, ``high``); an end keeps its name all round, however
    the picture is redrawn; whenever a marker carries a double's side
    (``a+6``), the legend of such markers is on the screen; and at each
    settlement the round's last moves are still in sight above it. Every
    fault found is listed at the end, each under its own name.
    """
    record = tmp_path / "match.json"
    command = [sys.executable, "-m", "american_sniff", "play"]
    command += ["--players", "4", "--bots", "greedy", "--seed", "7", "--record", str(record)]
    pane = _Pane(command, Path(__file__).parent)
    faults: dict[str, list[str]] = {}
    try:
        screens: list[list[str]] = []
        settlements = legends = 0
        screen: list[str] | None = None
        while True:
            found, screen = pane.wait(PROMPT, SETTLEMENT, OVER, after=screen)
            if found == OVER:
                break
            narration = [line for line in screen if NARRATION.match(line)]
            engine = [line for line in narration if ENGINE_WORDS.search(line)]
            faults.setdefault("engine words in the narration", []).extend(engine)
            if found == SETTLEMENT:
                settlements += 1
                if not _last_moves_in_sight(screen):
                    faults.setdefault("last moves out of sight", []).append("\n".join(screen))
                pane.keys("Enter")
                continue
            start = max(i for i, line in enumerate(screen) if line.startswith("Round "))
            shown = screen[start:]
            if any(re.search(r"(^| )[ab][+=]\d+", line) for line in shown):
                legends += 1
                if "a+N, b+N: an end on side a or b of a double" not in shown:
                    faults.setdefault("no legend of a+/b+", []).append("\n".join(shown))
            screens.append(shown)
            pane.keys("1", "Enter")
    finally:
        pane.close()
    assert settlements >= 1
    assert legends >= 1
    views = _decision_views(record)
    assert len(views) == len(screens)
    # Every name each end was given on the screens, by round and end.
    names: dict[tuple[int, Point], set[str]] = {}
    for view, shown in zip(views, screens, strict=True):
        # The line of open ends lists them in the table's order of points.
        entries = _open_entries(shown)
        if entries is not None and len(entries) == len(view.layout.points()):
            for point, entry in zip(view.layout.points(), entries, strict=True):
                if "[" not in entry:
                    names.setdefault((view.round, point), set()).add(_arm(entry))
        places = [move for move in view.legal_moves if isinstance(move, Place)]
        for line in shown:
            listed = re.findall(r"(\d+)\. (\[\d\|\d\]) on (.+?) =\d+", line)
            for number, tile, words in listed:
                move = places[int(number) - 1]
                assert str(move.tile) == tile
                if move.at is not None and "[" not in words:
                    names.setdefault((view.round, move.at), set()).add(_arm(words))
    assert len(names) >= 20
    renamed = [f"{key}: {sorted(words)}" for key, words in names.items() if len(words) > 1]
    faults["an end renamed"] = renamed
    seen = {fault: cases for fault, cases in faults.items() if cases}
    summary = ", ".join(f"{fault} ({len(cases)} times)" for fault, cases in seen.items())
    assert not seen, f"{summary}; first cases:\n" + "\n\n".join(c[0] for c in seen.values())


def _open_entries(shown: list[str]) -> list[str] | None:
    """The ends the line ``Open: ...`` of a decision screen names, without their markers."""
    at = next((i for i, line in enumerate(shown) if line.startswith("Open: ")), None)
    if at is None:
        return None
    text = shown[at][len("Open: ") :]
    for line in shown[at + 1 :]:
        if not line.startswith("  ") or re.match(r"^ +\d+\. ", line):
            break
        text += " " + line.strip()
    ends = text.split(". End sum", 1)[0].split(", ")
    return [re.sub(r"(^| )[ab]?[+=]-?\d+(?= |$)", "", end).strip() for end in ends]


def _last_moves_in_sight(screen: list[str]) -> bool:
    """Whether a settlement's screen shows the round's last moves above it.

    Where a seat went out, its last placement is among them.
    """
    ends = max(i for i, line in enumerate(screen) if ROUND_ENDS.match(line))
    last = [i for i, line in enumerate(screen) if line.startswith("Last moves: ")]
    if not last or last[-1] > ends:
        return False
    went_out = re.search(r"ends: (you|seat \d|partner \d) went out", screen[ends])
    moves = "\n".join(screen[last[-1] : ends])
    return not went_out or bool(re.search(rf"(^| ){went_out.group(1)}: .*placed", moves, re.M))


def test_every_line_fits_a_60_by_20_terminal_between_words() -> None:
    """At 60x20 the game lays every line out for 60 columns: the terminal never wraps one.

    A whole two-player match, with a hint and the help on the way, the
    settlements and the match's end.
    """
    command = [sys.executable, "-m", "american_sniff", "play"]
    command += ["--players", "2", "--bots", "greedy", "--seed", "3", "--playouts", "2"]
    pane = _Pane(command, Path(__file__).parent, size=(60, 20))
    try:
        decisions = settlements = 0
        screen: list[str] | None = None
        while True:
            found, screen = pane.wait(PROMPT, SETTLEMENT, OVER, HELP_WAITS, after=screen)
            lines = [line.rstrip() for line in pane.logical_lines()]
            too_long = [line for line in lines if len(line) > 60]
            assert not too_long, "\n".join(screen)
            if found == OVER:
                break
            if found == HELP_WAITS:
                pane.keys("Enter")
            elif found == SETTLEMENT:
                settlements += 1
                pane.keys("Enter")
            else:
                decisions += 1
                if decisions == 1:
                    pane.keys("h", "Enter")
                elif decisions == 2:
                    pane.keys("?", "Enter")
                else:
                    pane.keys("1", "Enter")
    finally:
        pane.close()
    assert decisions >= 10
    assert settlements >= 1
