"""``american-sniff render``: the table after any action of a recorded match."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from american_sniff import Layout, Place, load_record, record_match
from american_sniff.cli import main
from american_sniff.cli.render import position
from american_sniff.render import render_svg, render_text, tally_text
from scenarios import first_move_match


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recorded 3-player match, written to a file."""
    path = tmp_path_factory.mktemp("render") / "match.json"
    assert main(["demo", "--players", "3", "--seed", "5", "--record", str(path)]) == 0
    return path


def test_every_position_has_the_tables_placements_so_far(record_file: Path) -> None:
    """After action k of a round, the table holds exactly that round's placements up to k."""
    record = load_record(record_file)
    for number, round_record in enumerate(record.rounds[:4], start=1):
        for step in range(-1, len(round_record.actions)):
            layout, scores = position(record, number, step)
            placed = [a.move for a in round_record.actions[: step + 1] if isinstance(a.move, Place)]
            assert [str(Place(t)) for t in layout.tiles[:1]] == [str(m) for m in placed[:1]]
            assert len(layout) == len(placed)
            assert len(scores) == 3


def test_the_default_step_is_the_last_action_of_the_round(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --step the table is drawn as the round left it, with its legend."""
    record = load_record(record_file)
    layout, _ = position(record, 2, None)
    assert main(["render", str(record_file), "--round", "2"]) == 0
    assert capsys.readouterr().out == render_text(layout) + "\n"


def test_the_svg_is_written_to_a_file(record_file: Path, tmp_path: Path) -> None:
    """--svg writes the same figure render_svg draws for that position."""
    out = tmp_path / "table.svg"
    assert main(["render", str(record_file), "--round", "1", "--step", "4", "--svg", str(out)]) == 0
    layout, _ = position(load_record(record_file), 1, 4)
    assert out.read_text(encoding="utf-8") == render_svg(layout)
    ET.fromstring(out.read_text(encoding="utf-8"))  # well-formed


def test_the_tally_of_a_side_is_drawn(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--tally SIDE draws that side's paper tally at the chosen point."""
    _, scores = position(load_record(record_file), 3, None)
    assert main(["render", str(record_file), "--round", "3", "--tally", "2"]) == 0
    assert capsys.readouterr().out == f"side 2: {scores[2]}\n{tally_text(scores[2])}\n"


def test_step_minus_one_is_the_empty_table() -> None:
    """Before the first action of a round the table is empty."""
    record = record_match(first_move_match(2, 3)[:40])
    layout, scores = position(record, 1, -1)
    assert layout == Layout.empty()
    assert scores == (0, 0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--round", "99"], "not round 99"),
        (["--round", "1", "--step", "500"], "not action 500"),
        (["--round", "1", "--tally", "7"], "--tally: the sides are 0 to 2, not 7"),
    ],
)
def test_a_position_not_in_the_record_is_one_line_and_exit_2(
    record_file: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A round, action or side the record does not have exits 2 with one line."""
    assert main(["render", str(record_file), *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_an_unreadable_record_or_an_unwritable_file_is_one_line(
    record_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing or broken record exits 2; an unwritable SVG path exits 1; no traceback."""
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": ', encoding="utf-8")
    assert main(["render", str(broken)]) == 2
    assert main(["render", str(tmp_path / "missing.json")]) == 2
    assert main(["render", str(record_file), "--svg", str(tmp_path / "no" / "dir.svg")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 3
