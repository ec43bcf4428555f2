"""Wrong engines, one per field of every answer and one per pair of the refusal order.

Each wrong engine of ``tests/wrong_engines/fields.py`` is the minimal engine
with one thing wrong; the kit must fail it, naming the field or the pair.
The table must cover every field the vectors expect: a new field with no
wrong engine fails :func:`test_every_field_of_every_answer_has_a_wrong_engine`.
The engines run in-process (the kit talks to them through JSON text, as over
a pipe), so the whole table takes a few seconds.

Last, an independent runner that reads only the vector files
(``tests/file_runner.py``) must reach the kit's verdict on every vector, for
a selection of the wrong engines.
"""

from __future__ import annotations

import importlib
import importlib.resources
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

import generate_vectors as generate
from american_sniff.conformance.compare import OWN_CHOICE
from american_sniff.conformance.kit import EngineError, KitReport, SubprocessEngine, run_kit
from american_sniff.conformance.loading import Vector, load_vectors, step_line
from file_runner import run_directory
from in_process import WRONG_ENGINES, InProcess, rules_engine, wrong_engine

sys.path.insert(0, str(WRONG_ENGINES))  # as in_process does: the engines import so

import fields
import minimal

VECTORS = load_vectors()
#: The field table runs on every vector but perft (its fields are legal's moves,
#: caught by every other kind); the runner comparison runs on all of them.
NO_PERFT = [vector for vector in VECTORS if vector.kind != "perft"]
SHIPPED = Path(str(importlib.resources.files("american_sniff.conformance").joinpath("vectors")))


def fields_of(vectors: Iterable[Vector]) -> set[str]:
    """Every field the vectors expect, as ``COMMAND.PATH`` (objects' keys, at every depth)."""
    found: set[str] = set()

    def walk(cmd: str, expect: Mapping[str, Any], prefix: str) -> None:
        for key, value in expect.items():
            if key == "ok":
                continue
            found.add(f"{cmd}.{prefix}{key}")
            if isinstance(value, dict):
                walk(cmd, value, f"{prefix}{key}.")

    for vector in vectors:
        for step in vector.data.get("steps", ()):
            if "line_hex" in step:  # not UTF-8: no request at all
                cmd = "line"
            elif "line" in step:  # as the wrong engines read it: a line may be a request
                cmd = fields.command_of(step_line(step))
            else:
                name = step["request"].get("cmd")
                known = isinstance(name, str) and name in fields.COMMANDS
                cmd = name if known else "other"
            walk(cmd, step["expect"], "")
    return found


def missing_wrong_engines(vectors: Iterable[Vector]) -> set[str]:
    """The fields the vectors expect that no wrong engine gets wrong."""
    return fields_of(vectors) - set(fields.FIELDS)


def test_every_field_of_every_answer_has_a_wrong_engine() -> None:
    """The table of wrong engines is exactly the fields the vectors compare."""
    assert missing_wrong_engines(VECTORS) == set()
    assert fields_of(VECTORS) == set(fields.FIELDS)
    skipped = {f"hello.{key}" for key in OWN_CHOICE["hello"]} | {"line.message"}
    assert not skipped & fields_of(VECTORS)


def documented_fields() -> set[str]:
    """Every answer field docs/protocol.md defines, as ``COMMAND.PATH``."""
    page = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    found: set[str] = set()
    for section in re.split(r"^### `", page, flags=re.MULTILINE)[1:]:
        cmd = section.split("`", 1)[0]
        for table in re.findall(r"^\| (response key|key) \|.*?\n((?:\|.*\n)+)", section, re.M):
            header, rows = table
            keys = re.findall(r"^\| `(\w+)` \|", rows, flags=re.MULTILINE)
            if header == "response key":
                found |= {f"{cmd}.{key}" for key in keys}
            elif cmd == "move":  # the round end object
                found |= {f"move.round_end.{key}" for key in keys}
    tables = {key.split(".", 1)[1] for key in found if key.startswith("table.")}
    found |= {f"state.table.{key}" for key in tables - {"points"}}
    found |= {f"new.{key.split('.', 1)[1]}" for key in found if key.startswith("state.")}
    return found


def test_every_field_the_protocol_page_defines_has_a_wrong_engine() -> None:
    """The fields of the docs' response tables are all in the table, the own choices aside."""
    documented = documented_fields()
    assert {"move.turn", "move.round_end.hands", "state.table.end_sum", "new.stock_size"} <= (
        documented
    )
    own = {f"hello.{key}" for key in OWN_CHOICE["hello"]}
    assert documented - own <= set(fields.FIELDS)
    assert own <= documented


def test_a_new_field_without_a_wrong_engine_fails_the_table() -> None:
    """A vector expecting a field the table lacks is found, by name."""
    step = {"at": "x", "request": {"cmd": "state"}, "expect": {"ok": True, "dealer": 0}}
    extra = Vector("matches/x", "matches", "x", data={"steps": [step]})
    assert missing_wrong_engines([*VECTORS, extra]) == {"state.dealer"}


def first_failure(engine: InProcess, vectors: list[Vector]) -> str:
    """The first line of the first failure of the kit on ``engine`` (or its hello error)."""
    try:
        report = run_kit(engine, vectors, stop_at_failure=True)
    except EngineError as exc:
        return str(exc)
    assert not report.passed, "the wrong engine passed every vector"
    return (report.failures[0].difference or "").split("\n")[0]


@pytest.mark.sweep
@pytest.mark.parametrize("field", fields.FIELDS)
def test_a_wrong_field_fails_the_kit_naming_the_field(field: str) -> None:
    """The engine with one field wrong fails, and the difference names that field."""
    cmd, _, path = field.partition(".")
    message = first_failure(InProcess(lambda: fields.field_engine(field)), NO_PERFT)
    assert f" {path}: " in f" {message}" or f" {path} (compared as a set)" in f" {message}"
    if cmd == "hello" and path != "error":
        assert message.startswith(f"hello: {path}: expected ")


@pytest.mark.parametrize(("first", "second"), fields.ORDER_SWAPS)
def test_a_swapped_refusal_order_fails_its_pair_vector(first: str, second: str) -> None:
    """The engine reporting second before first fails the pair's vector, naming both codes."""
    ident = f"order/{first}-before-{second}"
    pair = [vector for vector in VECTORS if vector.id == ident]
    report = run_kit(InProcess(lambda: fields.order_engine(first, second)), pair)
    assert not report.passed
    difference = report.failures[0].difference or ""
    assert f'code: expected "{first}", got "{second}"' in difference


def test_every_pair_of_the_order_vectors_has_a_wrong_engine() -> None:
    """The swaps are exactly the pairs the order vectors cover."""
    assert set(fields.ORDER_SWAPS) == {(a, b) for a, b, _, _ in generate.ORDER_PAIRS}


def test_the_wrong_engines_cannot_be_asked_for_what_is_not_in_the_table() -> None:
    """An unknown field or pair is refused by name."""
    with pytest.raises(ValueError, match=r"no such field: move\.colour"):
        fields.field_engine("move.colour")
    with pytest.raises(ValueError, match="no such pair"):
        fields.order_engine("stock_empty", "match_over")


@pytest.mark.parametrize(
    ("argument", "words"),
    [("move.turn", "turn: expected 1, got 2"), ("point_not_open,values_differ", "values_differ")],
)
def test_a_wrong_engine_runs_as_a_program(argument: str, words: str) -> None:
    """``fields.py FIELD`` or ``fields.py FIRST,SECOND`` serves that wrong engine."""
    program = [sys.executable, str(Path(__file__).parent / "wrong_engines" / "fields.py")]
    pair = [v for v in VECTORS if v.id == "order/point_not_open-before-values_differ"]
    with SubprocessEngine([*program, argument], timeout=30) as engine:
        report = run_kit(engine, pair)
    assert words in (report.failures[0].difference or "")


# -- a runner that reads only the files -------------------------------------------------


def field_engine(field: str) -> Callable[[], minimal.Engine]:
    """The maker of the wrong engine of ``field``."""
    return lambda: fields.field_engine(field)


#: The engines on which the file runner and the kit must agree: the correct
#: one, rule bugs (tables, matches, seeds, perft), fields of answers and lines,
#: a pair of the refusal order, and three of the escapes of issue 27 (the block
#: test, the nesting limit, the generator's rejection step).
SELECTION: dict[str, Callable[[], minimal.Engine]] = {
    "minimal": lambda: minimal.Engine(minimal.Rules(), "minimal"),
    **{name: rules_engine(name) for name in ("early_branches", "finisher_gains")},
    **{field: field_engine(field) for field in ("move.turn", "line.error")},
    "not_in_hand,must_place_drawn": lambda: fields.order_engine("not_in_hand", "must_place_drawn"),
    **{
        name: wrong_engine(name) for name in ("next_seat_block", "no_nesting_limit", "modulo_below")
    },
}


def verdicts(report: KitReport) -> dict[str, str]:
    """The kit's verdicts, as the file runner writes them."""
    return {r.id: "skip" if r.skipped else "pass" if r.passed else "fail" for r in report.results}


@pytest.mark.sweep
@pytest.mark.parametrize("name", sorted(SELECTION))
def test_a_runner_reading_only_the_files_agrees_with_the_kit(name: str) -> None:
    """The independent runner reaches the kit's verdict on every vector."""
    kit = verdicts(run_kit(InProcess(SELECTION[name]), VECTORS))
    engine = InProcess(SELECTION[name])
    runner = run_directory(SHIPPED, engine.text, engine.restart)
    assert runner == kit
    assert ("fail" in kit.values()) == (name != "minimal")
