"""The shipped conformance vectors: fresh, complete, and read strictly."""

from __future__ import annotations

import collections
import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no type stubs among the test dependencies
import pytest

import generate_vectors as generate
from american_sniff import REFUSAL_CODES, RULES_VERSION, RoundEnd
from american_sniff.bots import random_match
from american_sniff.conformance.loading import (
    KINDS,
    VECTORS_FORMAT,
    VECTORS_FORMAT_VERSION,
    InvalidVectors,
    Vector,
    exclusive_pairs,
    export_vectors,
    load_vectors,
    manifest_schema,
    read_vectors,
    vectors_schema,
)
from american_sniff.conformance.protocol import REFUSAL_ORDER
from american_sniff.records import record_match, record_schema
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


@pytest.mark.sweep
def test_the_shipped_files_are_a_fresh_generation(built: dict[str, dict[str, Any]]) -> None:
    """Each shipped file is exactly what the generator writes today (run it after a change)."""
    for name, doc in built.items():
        shipped = SHIPPED.joinpath(name).read_text(encoding="utf-8")
        assert shipped == generate.dumps(doc) + "\n", (
            f"{name} is out of date: run python tools/generate_vectors.py"
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
        assert doc["format_version"] == VECTORS_FORMAT_VERSION == 2
        assert doc["rules_version"] == RULES_VERSION
        assert doc["kind"] == kind


def test_the_kinds_and_their_counts(vectors: tuple[Vector, ...]) -> None:
    """Every kind is there, in order, with ids unique and prefixed by their kind."""
    counts = collections.Counter(vector.kind for vector in vectors)
    assert list(counts) == list(KINDS)
    assert counts == {
        "positions": 15,
        "settlement": 12,
        "refusals": 42,
        "order": len(generate.ORDER_PAIRS),
        # 9, the error kinds' order, the 5 settled questions, the blocked last deals, and
        # issue 42's four: JSON's corners, lines not UTF-8, seed texts, the deals' corners
        "robustness": 9 + len(generate.ERROR_PAIRS) + 5 + len(generate.BLOCKED_LAST_DEALS) + 4,
        "seeds": len(generate.SEEDS)
        + 2
        + len(generate.REJECTION_SEEDS)
        + len(generate.POWER_OF_TWO_SEEDS),
        "perft": len(generate.PERFTS),
        # and issue 42's two rounds ending with a hand never drawn into
        "matches": 14 + len(generate.WON_BY_SEAT) + len(generate.STUCK_NEXT_SEAT) + 2,
    }
    assert all(vector.id.startswith(vector.kind + "/") for vector in vectors)
    assert all(vector.description for vector in vectors)
    assert {v.id for v in vectors if v.requires} == {
        "robustness/bad-seeds",
        "robustness/seed-texts",
        "robustness/deal-corners",
        "matches/undrawn-hand-seeded",
        *(v.id for v in vectors if v.kind == "seeds"),
    }


def steps(vector: Vector) -> list[dict[str, Any]]:
    """The steps of a vector."""
    found: list[dict[str, Any]] = vector.data["steps"]
    return found


def test_the_worked_examples_come_first(vectors: tuple[Vector, ...]) -> None:
    """The position vectors open with the rules' worked examples, with the text's sums."""
    first = vectors[0]
    assert first.id == "positions/worked-examples-1-9"
    tables = steps(first)
    moves = tables[-1]["request"]["moves"]
    assert [move.split(" ")[0] for move in moves] == [t for t, _ in WORKED_EXAMPLE_STEPS]
    assert [step["expect"]["end_sum"] for step in tables] == [5, 6, 10, 5, 7, 11, 16, 6, 8]
    assert [step["expect"]["points"] for step in tables] == [5, 0, 10, 5, 0, 0, 0, 0, 0]
    ids = [vector.id for vector in vectors[:5]]
    assert ids[1:] == [f"positions/worked-example-{n}" for n in (10, 11, 12, 13)]


def test_the_35_maximum_and_the_36_sum(vectors: tuple[Vector, ...]) -> None:
    """One sequence scores 35, the best; another reaches the sum 36, which scores nothing."""
    named = by_id(vectors)
    best = steps(named["positions/sum-35-the-best-score"])[-1]["expect"]
    assert (best["end_sum"], best["points"]) == (35, 35)
    top = steps(named["positions/sum-36-the-highest-sum"])[-1]["expect"]
    assert (top["end_sum"], top["points"]) == (36, 0)
    sums = [
        step["expect"]["end_sum"] for v in vectors if v.kind == "positions" for step in steps(v)
    ]
    assert max(sums) == 36


def codes(vectors: tuple[Vector, ...], kind: str) -> list[str]:
    """The refusal codes the vectors of ``kind`` expect."""
    return [
        step["expect"]["code"]
        for v in vectors
        if v.kind == kind
        for step in steps(v)
        if "code" in step["expect"]
    ]


def test_every_refusal_code_has_a_vector(vectors: tuple[Vector, ...]) -> None:
    """Each code of REFUSAL_CODES is expected by at least one refusal vector."""
    assert set(codes(vectors, "refusals")) == set(REFUSAL_CODES)


def test_every_pair_of_the_refusal_order_has_a_vector(vectors: tuple[Vector, ...]) -> None:
    """Each adjacent pair of the order: a vector, or a reason no move breaks both rules."""
    order = list(REFUSAL_ORDER)
    assert sorted(order) == sorted(REFUSAL_CODES)
    paired = {(first, second) for first, second, _, _ in generate.ORDER_PAIRS}
    never = {(first, second) for first, second, _ in generate.ORDER_EXCLUSIVE}
    assert not paired & never
    for first, second in paired | never:
        assert order.index(first) < order.index(second)
    assert codes(vectors, "order") == [first for first, _, _, _ in generate.ORDER_PAIRS]
    named = {v.id for v in vectors if v.kind == "order"}
    assert named == {f"order/{first}-before-{second}" for first, second in paired}


def test_the_order_file_exports_the_pairs_no_move_breaks(tmp_path: Path) -> None:
    """order.json lists ORDER_EXCLUSIVE under exclusive, in the shipped files and exported ones."""
    assert exclusive_pairs() == generate.ORDER_EXCLUSIVE
    export_vectors(tmp_path)
    assert exclusive_pairs(tmp_path) == generate.ORDER_EXCLUSIVE
    validator = jsonschema.Draft202012Validator(vectors_schema())
    pair = {"first": "a", "second": "b", "why": "c"}
    assert validator.is_valid(header("order", exclusive=[pair]))
    assert not validator.is_valid(header(exclusive=[pair]))  # only the order file has them
    assert not validator.is_valid(header("order", exclusive=[{**pair, "why": 1}]))
    (tmp_path / "order.json").unlink()
    with pytest.raises(InvalidVectors, match="is not a vector file"):
        exclusive_pairs(tmp_path)


def test_every_bad_json_kind_of_the_docs_has_a_line(vectors: tuple[Vector, ...]) -> None:
    """Floats, big integers, repeated keys, a byte-order mark: each is a bad_json line."""
    lines = {step["at"]: step for step in steps(by_id(vectors)["robustness/bad-json"])}
    for what in ("a float", "an integer above 2**53 - 1", "a repeated key", "a byte-order mark"):
        assert lines[what]["expect"] == {"ok": False, "error": "bad_json"}
    assert lines["a byte-order mark"]["line"].startswith("\ufeff")


def test_the_seed_vectors_cover_the_edges(vectors: tuple[Vector, ...]) -> None:
    """Seeds 0, 2**53 - 1, 2**53 + 1 and 2**64 - 1, each over more than one round."""
    seeded = [v for v in vectors if v.kind == "seeds"]
    seeds = {int(steps(v)[0]["request"]["seed"]) for v in seeded}
    rejected = {generate.seed_giving(out, draw) for _, _, draw, out, _ in generate.REJECTION_SEEDS}
    kept = {generate.seed_giving(out, draw) for _, _, draw, out, _ in generate.POWER_OF_TWO_SEEDS}
    assert seeds == {0, (1 << 53) - 1, (1 << 53) + 1, (1 << 64) - 1, 42, 1} | rejected | kept
    both = by_id(vectors)["seeds/deals-then-seed-42"]
    assert steps(both)[0]["request"]["deals"][0]["opener"] is None
    for vector in seeded:
        rounds = {s["expect"].get("round") for s in steps(vector)} - {None}
        single = vector.id.startswith(("seeds/rejected-", "seeds/power-of-two-"))
        assert len(rounds) >= 2 or single, vector.id
    blocked = [
        s
        for v in seeded
        for s in steps(v)
        if (s["expect"].get("round_end") or {}).get("end") == "blocked"
    ]
    assert blocked


def test_perft_counts_and_divide_agree(vectors: tuple[Vector, ...]) -> None:
    """The divide sums to the count of the last depth; counts never fall to zero early."""
    for vector in (v for v in vectors if v.kind == "perft"):
        data = vector.data
        assert sum(entry["count"] for entry in data["divide"]) == data["counts"][-1]
        assert len(data["divide"]) == data["counts"][0]
        assert all(data["counts"])


def test_settlement_covers_every_player_count_and_the_finisher(
    vectors: tuple[Vector, ...],
) -> None:
    """Settlements for 2, 3 and 4 players, with and without a finisher, some below zero."""
    settled = [steps(v)[0] for v in vectors if v.kind == "settlement"]
    assert {(s["request"]["players"], s["request"]["finisher"] is None) for s in settled} == {
        (players, blocked) for players in (2, 3, 4) for blocked in (True, False)
    }
    assert any(min(s["expect"]["scores"]) < 0 for s in settled)
    rounding = steps(by_id(vectors)["settlement/partners-rounded-apart-3-and-3"])[0]
    assert rounding["expect"]["side_totals"] == [10, 0]


def test_whole_matches_show_what_the_issue_asks() -> None:
    """2, 3 and 4 players; blocked rounds; wins mid-round, with the last tile; scores below 0.

    Each match is a valid record (the schema and the referee agree) of a finished match.
    """
    schema = jsonschema.Draft202012Validator(record_schema())
    for players, seed, _ in generate.MATCHES:
        record = record_match(list(random_match(players, seed)))
        schema.validate(record.to_dict())
        assert check_record(record).ok
        assert record.winner is not None
        assert record.rounds[-1].end is None  # the win ends the match in mid-round
        ends = [r.end for r in record.rounds]
        assert RoundEnd.BLOCKED in ends
        assert RoundEnd.DOMINO in ends
        assert any(min(r.scores) < 0 for r in record.rounds)
    assert sorted(players for players, _, _ in generate.MATCHES) == [2, 3, 4]


def test_a_match_vector_compares_every_action(vectors: tuple[Vector, ...]) -> None:
    """A match vector asks legal, move and state at every action, with the whole answers.

    A whole match ends with legal and a move; a single round also asks state after it.
    """
    for vector in (v for v in vectors if v.kind == "matches"):
        cmds = [step["request"]["cmd"] for step in steps(vector)]
        assert cmds[0] == "new"
        tail = 2 if len(cmds) % 3 == 0 else 3
        assert cmds[1:-tail] == ["legal", "move", "state"] * ((len(cmds) - 1 - tail) // 3)
        assert cmds[-tail:] in (["legal", "move"], ["legal", "state", "move"])
        assert {"turn", "round", "scores", "winner"} <= set(steps(vector)[2]["expect"])


def test_every_file_is_valid_against_the_schema() -> None:
    """The shipped files pass the vectors schema; a broken one does not."""
    validator = jsonschema.Draft202012Validator(vectors_schema())
    validator.check_schema(vectors_schema())
    for kind in KINDS:
        validator.validate(json.loads(SHIPPED.joinpath(f"{kind}.json").read_text(encoding="utf-8")))
    broken = header("perft", vectors=[{"id": "perft/x", "steps": []}])
    assert not validator.is_valid(broken)
    step_with_both = {**STEP, "line": "x"}
    assert not validator.is_valid(header(vectors=[a_vector(steps=[step_with_both])]))
    assert validator.is_valid(header(vectors=[a_vector()]))


def test_the_exported_manifest_is_valid_against_its_schema(tmp_path: Path) -> None:
    """export_vectors writes a manifest its schema accepts."""
    manifest = export_vectors(tmp_path)
    validator = jsonschema.Draft202012Validator(manifest_schema())
    validator.check_schema(manifest_schema())
    validator.validate(manifest)
    assert json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8")) == manifest
    assert not validator.is_valid({**manifest, "files": [{"name": "x.json"}]})


# -- reading ---------------------------------------------------------------------


def header(kind: str = "settlement", **changes: Any) -> dict[str, Any]:
    """A vector file document with no vectors, changed as given."""
    doc: dict[str, Any] = {
        "format": VECTORS_FORMAT,
        "format_version": VECTORS_FORMAT_VERSION,
        "rules_version": RULES_VERSION,
        "kind": kind,
        "vectors": [],
    }
    doc.update(changes)
    return doc


STEP = {"at": "settle", "request": {"cmd": "settle"}, "expect": {"ok": True}}


def a_vector(**changes: Any) -> dict[str, Any]:
    """A well-formed settlement vector, changed as given."""
    vector: dict[str, Any] = {
        "id": "settlement/x",
        "description": "x",
        "requires": [],
        "steps": [STEP],
    }
    vector.update(changes)
    return vector


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ("[]", "must be a JSON object"),
        ("{", "not valid JSON"),
        (header(format="american-sniff/state"), "format"),
        (header(format_version=1), "format_version"),
        (header(rules_version="0"), "rules_version"),
        (header(kind="quiz"), "kind must be one of"),
        (header(vectors={}), "vectors must be a list"),
        (header(extra=1), "unknown keys extra"),
        (header(exclusive=[]), "unknown keys exclusive"),
        (header("order", exclusive={}), "exclusive must be a list"),
        (header("order", exclusive=[1]), "exclusive 0 must be an object"),
        (header("order", exclusive=[{"first": "a", "second": "b"}]), "missing keys why"),
        (
            header("order", exclusive=[{"first": "a", "second": "b", "why": "c", "x": 1}]),
            "unknown keys x",
        ),
        (
            header("order", exclusive=[{"first": "a", "second": 2, "why": "c"}]),
            "second must be a str",
        ),
        (header(vectors=[a_vector(id=2)]), "vector 0: id must be a str"),
        (header(vectors=[[]]), "vector 0 must be an object"),
        (header(vectors=[a_vector(id="positions/x")]), "must start with"),
        (header(vectors=[a_vector(colour=1)]), "unknown keys colour"),
        (header(vectors=[a_vector(requires=[1])]), "requires must be a list of strings"),
        (header(vectors=[a_vector(fresh=1)]), "fresh must be true or false"),
        (header(vectors=[a_vector(steps=[])]), "steps must not be empty"),
        (header(vectors=[a_vector(steps=[1])]), "step 0 must be an object"),
        (header(vectors=[a_vector(steps=[{**STEP, "line": ""}])]), "exactly one of request, line"),
        (header(vectors=[a_vector(steps=[{**STEP, "expect": {}}])]), "expect must hold ok"),
        (header(vectors=[a_vector(steps=[{**STEP, "at": None}])]), "at must be a str"),
        (
            header("perft", vectors=[{**a_vector(id="perft/x"), "steps": None}]),
            "unknown keys steps",
        ),
        (
            header(
                "perft",
                vectors=[
                    {
                        "id": "perft/x",
                        "description": "",
                        "requires": [],
                        "start": {},
                        "depth": 2,
                        "counts": [1],
                        "divide": [],
                    }
                ],
            ),
            "one integer per depth",
        ),
        (
            header(
                "perft",
                vectors=[
                    {
                        "id": "perft/x",
                        "description": "",
                        "requires": [],
                        "start": {},
                        "depth": 1,
                        "counts": [1],
                        "divide": [{"move": "draw"}],
                    }
                ],
            ),
            "divide 0: count must be a int",
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
    (tmp_path / "b.json").write_text(json.dumps(header(vectors=[a_vector()])))
    (tmp_path / "notes.txt").write_text("not a vector file")
    loaded = load_vectors(tmp_path)
    assert [v.id for v in loaded] == ["settlement/x"]
    assert loaded[0].data["steps"] == [STEP]
    (tmp_path / "a.json").write_text(json.dumps(header(vectors=[a_vector()])))
    with pytest.raises(InvalidVectors, match="two vectors are named 'settlement/x'"):
        load_vectors(tmp_path)
    with pytest.raises(InvalidVectors, match="not a directory"):
        load_vectors(tmp_path / "b.json")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "manifest.json").write_text("{}")  # a manifest is not read as vectors
    with pytest.raises(InvalidVectors, match="holds no vectors"):
        load_vectors(empty)


def test_every_vector_that_is_not_fresh_runs_after_any_other(vectors: tuple[Vector, ...]) -> None:
    """A vector that is not fresh starts with a new, or sends nothing that needs a match.

    docs/conformance.md tells runners so: such a vector may run on the engine
    the vector before it left, whatever that vector did.
    """
    for vector in vectors:
        if vector.fresh or vector.kind == "perft":
            continue
        for step in steps(vector):
            cmd = step.get("request", {}).get("cmd")
            if cmd == "new" and step["expect"]["ok"]:
                break
            assert cmd not in ("legal", "move", "state", "quit"), vector.id
