"""The coverage classes: every class is reached by a shipped vector, and the classifier is right."""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
from typing import Any

import pytest

import generate_vectors as generate
from american_sniff.cli import main
from american_sniff.conformance.coverage import (
    CLASSES,
    REFUSAL_POSITIONS,
    CoverageError,
    classify,
    coverage,
)
from american_sniff.conformance.loading import load_vectors
from american_sniff.conformance.protocol import MAX_LINE_BYTES


def _vector(*steps: dict[str, Any], fresh: bool = False) -> dict[str, Any]:
    """A vector of ``steps``, each a request (or line) with the library's answer as expect."""
    return {"id": "robustness/made-here", "fresh": fresh, "steps": list(steps)}


def _steps(*sent: dict[str, Any] | str) -> list[dict[str, Any]]:
    """The steps of sending ``sent`` to the library, each with its whole answer as expect."""
    script = generate.Script()
    for item in sent:
        if isinstance(item, str):
            script.line(item, "a line")
        else:
            script.ask(item, "a request")
    return script.steps


_NEW_2 = {"cmd": "new", "players": 2, "deals": [generate._PASS_DEAL]}


def test_every_class_is_reached_by_a_shipped_vector() -> None:
    """Every class of the table has a shipped vector."""
    report = coverage(load_vectors())
    assert report.missing == ()


def test_the_classes_are_named_once() -> None:
    """Class ids are unique, and every group of the issue is there."""
    ids = [c.id for c in CLASSES]
    assert len(ids) == len(set(ids))
    assert {c.group for c in CLASSES} >= {"round-end", "win", "refusal", "error", "line"}


def test_each_refusal_position_is_seen_where_the_vectors_send_it() -> None:
    """The positions of the refusal codes are told apart by the replay."""
    moves = ["[0|0] opens", *["draw"] * 14, "draw"]
    refused = _steps(_NEW_2, *({"cmd": "move", "move": m} for m in moves))
    found = classify(_vector(*refused))
    assert "refusal/stock_empty/must-pass" in found
    assert not {
        c for c in found if c.startswith("refusal/") and c != "refusal/stock_empty/must-pass"
    }
    opening = classify(_vector(*_steps(_NEW_2, {"cmd": "move", "move": "draw"})))
    assert "refusal/must_place/opening" in opening
    assert all(positions for positions in REFUSAL_POSITIONS.values())


def test_outcomes_are_read_from_the_expected_answers() -> None:
    """A win, a round's end and its seat come from the vector's expect, not the replay."""
    vectors = {v.id: v.data for v in load_vectors()}
    assert "win/3p/seat-2" in classify(vectors["matches/3-players-won-by-seat-2"])
    assert "round-end/4p/blocked/seat-3" in classify(vectors["matches/4-players-blocked-by-seat-3"])
    forged = json.loads(json.dumps(vectors["matches/3-players-won-by-seat-2"]))
    for step in forged["steps"]:
        if step["expect"].get("winner") == 2:
            step["expect"]["winner"] = None
    assert "win/3p/seat-2" not in classify(forged)


@pytest.mark.parametrize(
    ("sent", "cls"),
    [
        ('{"cmd": "new", "players": -Infinity, "seed": "1"}', "error/bad_json/infinity"),
        ('{"cmd": "legal", "cmd": "state"}', "error/bad_json/repeated-key"),
        ("[" * 1000 + "]" * 1000, "error/bad_json/nesting"),
        ('{"cmd": "state"' + " " * MAX_LINE_BYTES + "}", "error/bad_json/longer-than-1MiB"),
        (
            {"cmd": "settle", "players": 2, "hands": [[], []], "scores": [0]},
            "error/bad_request/settle-scores-count",
        ),
        ({"cmd": "new", "players": True, "seed": "1"}, "error/bad_request/boolean-for-integer"),
        ({"cmd": "new", "players": 2, "seed": "2", "round": 0}, "error/invalid_deal/round-below-1"),
        ({"cmd": "hello", "protocol_version": 7}, "error/unsupported/protocol-version"),
    ],
)
def test_the_cause_of_an_error_is_read_from_the_request(
    sent: dict[str, Any] | str, cls: str
) -> None:
    """Each refused input falls in the class of its cause."""
    assert cls in classify(_vector(*_steps(_NEW_2, sent)))


def test_long_lines_and_the_rejection_seed_are_classified() -> None:
    """A line over 64 KiB, one near the limit, and a seed whose first output is redrawn."""
    long = '{"cmd": "state"' + " " * (70 << 10) + "}"
    near = '{"cmd": "state"' + " " * (MAX_LINE_BYTES - 100) + "}"
    found = classify(_vector(*_steps(_NEW_2, long, near)))
    assert {"line/over-64KiB", "line/near-1MiB"} <= found
    rejected = {"cmd": "new", "players": 2, "seed": "3558559446808474027"}
    assert "seed/rejection-step" in classify(_vector(*_steps(rejected)))
    assert "seed/rejection-step" not in classify(_vector(*_steps({**rejected, "seed": "1"})))


def test_an_error_with_no_known_cause_is_a_fault() -> None:
    """A refusal the classes cannot explain stops the classification, naming the step."""
    step = {
        "at": "legal",
        "request": {"cmd": "legal"},
        "expect": {"ok": False, "error": "bad_request"},
    }
    with pytest.raises(CoverageError, match="made-here, step 1"):
        classify(_vector(*_steps(_NEW_2), step))


@pytest.mark.sweep
def test_the_generation_fails_when_a_class_is_unreached() -> None:
    """The generator's coverage check refuses a set of vectors without the refusal file."""
    docs = generate.build()
    generate._check_coverage(docs)
    del docs["refusals.json"]
    with pytest.raises(AssertionError, match="refusal/must_draw/must-draw"):
        generate._check_coverage(docs)


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--coverage prints every class with its count and first vector; 1 when one is missing."""
    code = main(["conformance", "--coverage"])
    out = capsys.readouterr().out
    assert code == 0
    for cls in CLASSES:
        assert cls.id in out
    assert "refusals/every-code-must-pass" in out
    shipped = importlib.resources.files("american_sniff.conformance").joinpath("vectors")
    (tmp_path / "positions.json").write_bytes(shipped.joinpath("positions.json").read_bytes())
    assert main(["conformance", "--coverage", "--vectors", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "win/2p/seat-0" in out
    assert "MISSING" in out
    assert out.splitlines()[-1].startswith(f"{len(CLASSES)} classes: 0 reached")
