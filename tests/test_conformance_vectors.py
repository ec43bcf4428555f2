"""The shipped conformance vectors: fresh, complete, and read strictly."""

from __future__ import annotations

import collections
import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no type stubs among the test dependencies
import pytest

from american_sniff import REFUSAL_CODES, RULES_VERSION, RoundEnd, new_match
from american_sniff.conformance import generate
from american_sniff.conformance.loading import (
    KINDS,
    VECTORS_FORMAT,
    InvalidVectors,
    Vector,
    load_vectors,
    read_vectors,
)
from american_sniff.records import MatchRecord, record_match, record_schema
from american_sniff.referee import check_record
from scenarios import WORKED_EXAMPLE_STEPS

SHIPPED = importlib.resources.files("american_sniff.conformance").joinpath("vectors")


@pytest.fixture(scope="module")
def vectors() -> tuple[Vector, ...]:
    """The shipped vectors."""
    return load_vectors()


def by_id(vectors: tuple[Vector, ...]) -> dict[str, Vector]:
    """The vectors by id."""
    return {vector.id: vector for vector in vectors}


@pytest.fixture(scope="module")
def built() -> dict[str, dict[str, Any]]:
    """A fresh generation of the vector files (made once: it replays six matches)."""
    return generate.build()


def test_the_shipped_files_are_a_fresh_generation(built: dict[str, dict[str, Any]]) -> None:
    """Each shipped file is exactly what the generator writes today (run it after a change)."""
    for name, doc in built.items():
        shipped = SHIPPED.joinpath(name).read_text(encoding="utf-8")
        assert shipped == generate.dumps(doc) + "\n", (
            f"{name} is out of date: run python -m american_sniff.conformance.generate"
        )
    assert sorted(entry.name for entry in SHIPPED.iterdir()) == sorted(
        f"{kind}.json" for kind in KINDS
    )


def test_generate_check_and_out(
    tmp_path: Path,
    built: dict[str, dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--out writes the files elsewhere; --check compares them and names the stale ones."""
    monkeypatch.setattr(generate, "build", lambda: built)
    assert generate.main(["--out", str(tmp_path)]) == 0
    assert generate.main(["--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "settlement.json").write_text("{}", encoding="utf-8")
    assert generate.main(["--check", "--out", str(tmp_path)]) == 1
    assert "out of date: settlement.json" in capsys.readouterr().err


def test_every_file_names_its_format_and_versions() -> None:
    """Each file carries the vectors format, the format version and the rules version."""
    for kind in KINDS:
        doc = json.loads(SHIPPED.joinpath(f"{kind}.json").read_text(encoding="utf-8"))
        assert doc["format"] == VECTORS_FORMAT
        assert doc["format_version"] == 1
        assert doc["rules_version"] == RULES_VERSION
        assert doc["kind"] == kind


def test_the_kinds_and_their_counts(vectors: tuple[Vector, ...]) -> None:
    """Every kind is there, in order, with ids unique and prefixed by their kind."""
    counts = collections.Counter(vector.kind for vector in vectors)
    assert list(counts) == list(KINDS)
    assert counts == {"positions": 19, "settlement": 12, "refusals": 36, "matches": 6}
    assert all(vector.id.startswith(vector.kind + "/") for vector in vectors)
    assert all(vector.description for vector in vectors)


def test_the_worked_examples_come_first(vectors: tuple[Vector, ...]) -> None:
    """The position vectors open with the rules' worked examples, with the text's sums."""
    first = vectors[0].data
    assert first["id"] == "positions/worked-examples-1-9"
    steps = first["steps"]
    assert [step["move"].split(" ")[0] for step in steps] == [t for t, _ in WORKED_EXAMPLE_STEPS]
    assert [step["expect"]["end_sum"] for step in steps] == [5, 6, 10, 5, 7, 11, 16, 6, 8]
    assert [step["expect"]["points"] for step in steps] == [5, 0, 10, 5, 0, 0, 0, 0, 0]
    ids = [vector.id for vector in vectors[:5]]
    assert ids[1:] == [f"positions/worked-example-{n}" for n in (10, 11, 12, 13)]


def test_the_35_maximum_and_the_36_sum(vectors: tuple[Vector, ...]) -> None:
    """One sequence scores 35, the best; another reaches the sum 36, which scores nothing."""
    named = by_id(vectors)
    best = named["positions/sum-35-the-best-score"].data["steps"][-1]["expect"]
    assert (best["end_sum"], best["points"]) == (35, 35)
    top = named["positions/sum-36-the-highest-sum"].data["steps"][-1]["expect"]
    assert (top["end_sum"], top["points"]) == (36, 0)
    sums = [
        step["expect"]["end_sum"]
        for vector in vectors
        if vector.kind == "positions"
        for step in vector.data["steps"]
    ]
    assert max(sums) == 36


def test_every_refusal_code_has_a_vector(vectors: tuple[Vector, ...]) -> None:
    """Each code of REFUSAL_CODES is expected by at least one refusal vector."""
    codes = {v.data["expect"]["code"] for v in vectors if v.kind == "refusals"}
    assert codes == set(REFUSAL_CODES)


def test_settlement_covers_every_player_count_and_the_finisher(
    vectors: tuple[Vector, ...],
) -> None:
    """Settlements for 2, 3 and 4 players, with and without a finisher, some below zero."""
    settled = [v.data for v in vectors if v.kind == "settlement"]
    assert {(s["players"], s["finisher"] is None) for s in settled} == {
        (players, blocked) for players in (2, 3, 4) for blocked in (True, False)
    }
    assert any(min(s["expect"]["scores"]) < 0 for s in settled)
    rounding = by_id(vectors)["settlement/partners-rounded-apart-3-and-3"].data["expect"]
    assert rounding["side_totals"] == [10, 0]


def test_whole_matches_show_what_the_issue_asks(vectors: tuple[Vector, ...]) -> None:
    """2, 3 and 4 players; blocked rounds; wins mid-round, one with the last tile; scores below 0.

    Each match is a valid record (the schema and the referee agree) of a finished match.
    """
    schema = jsonschema.Draft202012Validator(record_schema())
    matches = [v.data["record"] for v in vectors if v.kind == "matches"]
    for data in matches:
        schema.validate(data)
        record = MatchRecord.from_dict(data)
        assert check_record(record).ok
        assert record.winner is not None
        assert record.rounds[-1].end is None  # the win ends the match in mid-round
    for players in (2, 3, 4):
        mine = [MatchRecord.from_dict(m) for m in matches if m["players"] == players]
        assert len(mine) == 2
        ends = [r.end for record in mine for r in record.rounds]
        assert RoundEnd.BLOCKED in ends
        assert RoundEnd.DOMINO in ends
        assert any(min(r.scores) < 0 for record in mine for r in record.rounds)
        assert any(map(_emptied, mine)), f"no {players}-player match is won with the last tile"


def _emptied(record: MatchRecord) -> bool:
    """Whether the winning placement of ``record`` played the winner's last tile."""
    last = record.rounds[-1]
    seat = last.actions[-1].seat
    placed = sum(1 for a in last.actions if a.seat == seat and a.end_sum is not None)
    drawn = sum(1 for a in last.actions if a.seat == seat and a.tile is not None)
    return placed == len(last.hands[seat]) + drawn


# -- reading ---------------------------------------------------------------------


#: The record of a match that has only just begun.
UNFINISHED = record_match([new_match(2, seed=1)]).to_dict()


def header(kind: str = "settlement", **changes: Any) -> dict[str, Any]:
    """A vector file document with no vectors, changed as given."""
    doc: dict[str, Any] = {
        "format": VECTORS_FORMAT,
        "format_version": 1,
        "rules_version": RULES_VERSION,
        "kind": kind,
        "vectors": [],
    }
    doc.update(changes)
    return doc


def settlement_vector(**changes: Any) -> dict[str, Any]:
    """A well-formed settlement vector, changed as given."""
    vector: dict[str, Any] = {
        "id": "settlement/x",
        "description": "x",
        "players": 2,
        "hands": [[], []],
        "finisher": None,
        "scores": [0, 0],
        "expect": {"deductions": [0, 0], "side_totals": [0, 0], "scores": [0, 0]},
    }
    vector.update(changes)
    return vector


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ("[]", "must be a JSON object"),
        ("{", "not valid JSON"),
        (header(format="american-sniff/state"), "format"),
        (header(format_version=2), "format_version"),
        (header(rules_version="0"), "rules_version"),
        (header(kind="quiz"), "kind must be one of"),
        (header(vectors={}), "vectors must be a list"),
        (header(extra=1), "unknown keys extra"),
        (header(vectors=[settlement_vector(players="2")]), "vector 0"),
        (header(vectors=[settlement_vector(id="positions/x")]), "must start with"),
        (header(vectors=[settlement_vector(colour=1)]), "extra fields"),
        (
            header(
                "refusals",
                vectors=[
                    {"id": "refusals/x", "description": "", "move": "draw", "expect": {"code": "x"}}
                ],
            ),
            "either start and moves, or table",
        ),
        (
            header("matches", vectors=[{"id": "matches/x", "description": "", "record": {}}]),
            "not 'american-sniff/record'",
        ),
        (
            header(
                "matches", vectors=[{"id": "matches/x", "description": "", "record": UNFINISHED}]
            ),
            "must be of a finished match",
        ),
    ],
)
def test_read_vectors_refuses_what_is_not_in_the_format(doc: object, words: str) -> None:
    """A malformed vector file is refused, naming the file and the problem."""
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(InvalidVectors) as error:
        read_vectors(text, "mine.json")
    assert words in str(error.value)
    assert "mine.json" in str(error.value)


def test_load_vectors_reads_a_directory(tmp_path: Path) -> None:
    """A directory's *.json files are read in name order; other files are ignored."""
    (tmp_path / "b.json").write_text(json.dumps(header(vectors=[settlement_vector()])))
    (tmp_path / "notes.txt").write_text("not a vector file")
    loaded = load_vectors(tmp_path)
    assert [v.id for v in loaded] == ["settlement/x"]
    assert loaded[0].data["players"] == 2
    (tmp_path / "a.json").write_text(json.dumps(header(vectors=[settlement_vector()])))
    with pytest.raises(InvalidVectors, match="two vectors are named 'settlement/x'"):
        load_vectors(tmp_path)
    with pytest.raises(InvalidVectors, match="not a directory"):
        load_vectors(tmp_path / "b.json")
