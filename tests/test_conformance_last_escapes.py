"""The last escapes of the kit (issue 42): one wrong engine for each, caught by name.

An engine written from the docs alone passed every vector with any one of
these bugs: ``below``'s limit wrong only at powers of two, the order of a
revealed hand never drawn into (given, or dealt from a seed), a deal short
of a tile, ``deals`` null or empty, and JSON's corners (a line that is not
UTF-8, lone surrogate escapes, raw control characters, escaped keys and
their repeats, blanks JSON lacks, digits beyond ASCII in a seed). Each wrong
engine of ``tests/wrong_engines`` must now fail exactly the vectors made for
its cause, at the step that names it; the correct minimal engine must pass
them. The engines run in-process on those vectors only: a few seconds in all.
"""

from __future__ import annotations

import json
import sys

import pytest

from american_sniff.conformance.compare import difference
from american_sniff.conformance.coverage import classify
from american_sniff.conformance.kit import LocalEngine, SubprocessEngine, run_kit
from american_sniff.conformance.loading import (
    InvalidVectors,
    load_vectors,
    read_vectors,
    step_bytes,
)
from american_sniff.conformance.protocol import Session
from in_process import WRONG_ENGINES, InProcess, wrong_engine

sys.path.insert(0, str(WRONG_ENGINES))  # as in_process does: the engines import so

import minimal

#: Each wrong engine: the vectors it must fail (and only those), and words of the
#: first failure's step that name its cause.
ESCAPES: dict[str, tuple[set[str], str]] = {
    "power_of_two_below": (
        {
            "seeds/power-of-two-lot-below-4-top",
            "seeds/power-of-two-shuffle-below-16-top",
            "seeds/power-of-two-lot-below-2-top",
        },
        "step 1, new: the 28th output, the lot below(4), is 2**64 - 1, which is kept",
    ),
    "given_hand_order": ({"matches/undrawn-hand-given"}, "round_end.hands[0][0]: expected"),
    "dealt_hand_order": ({"matches/undrawn-hand-seeded"}, "round_end.hands[0][0]: expected"),
    "short_deal": ({"robustness/deal-corners"}, "a deal of 27 tiles"),
    "null_deals": ({"robustness/deal-corners"}, "deals null"),
    "empty_deals": ({"robustness/deal-corners"}, "deals empty, without a seed"),
    "replaced_utf8": ({"robustness/not-utf8"}, "a byte 0xff in a string"),
    "lone_surrogates": ({"robustness/json-corners"}, "a lone high surrogate escape"),
    "raw_control_characters": ({"robustness/json-corners"}, "a raw control character"),
    "written_keys": ({"robustness/json-corners"}, "an escaped key: c\\u006dd is cmd"),
    "written_key_repeats": ({"robustness/json-corners"}, "cmd and c\\u006dd: a repeated key"),
    "other_blanks": ({"robustness/json-corners"}, "a form feed after the object"),
    "unicode_seed_digits": ({"robustness/seed-texts"}, "a seed of full-width digits"),
}

ESCAPE_VECTORS = sorted({ident for ids, _ in ESCAPES.values() for ident in ids})
VECTORS = [vector for vector in load_vectors() if vector.id in ESCAPE_VECTORS]


def test_the_escape_vectors_ship() -> None:
    """Every vector the table names is shipped, and the correct engines pass them all."""
    assert sorted(vector.id for vector in VECTORS) == ESCAPE_VECTORS
    assert run_kit(LocalEngine(), VECTORS).passed
    assert run_kit(InProcess(lambda: minimal.Engine(minimal.Rules(), "minimal")), VECTORS).passed


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_each_escape_fails_its_vectors_naming_its_cause(name: str) -> None:
    """The wrong engine fails exactly its cause's vectors; the first failure names the cause."""
    failing, words = ESCAPES[name]
    report = run_kit(InProcess(wrong_engine(name)), VECTORS)
    assert {failure.id for failure in report.failures} == failing
    first = report.failures[0].difference or ""
    assert words in first.split("\n", 1)[0]


def test_an_ok_difference_names_the_error_kind() -> None:
    """A failure that differs only in ok says which error was expected, or which came."""
    expected = {"ok": False, "error": "illegal_move", "code": "must_place"}
    assert difference(expected, {"ok": True, "seat": 0}) == (
        'ok: expected false, got true (the vector expects error "illegal_move", code "must_place")'
    )
    found = difference(
        {"ok": True, "round": 1}, {"ok": False, "error": "bad_json", "message": "x" * 500}
    )
    assert found is not None
    assert found.startswith('ok: expected true, got false (the engine answered error "bad_json"')
    assert len(found) < 250  # the message is quoted in part


def test_a_line_hex_step_is_sent_as_its_bytes() -> None:
    """line_hex is whole lowercase hex bytes without a newline; it is sent as those bytes."""

    def file(step: dict[str, object]) -> str:
        vector = {"id": "robustness/x", "description": "x", "requires": [], "steps": [step]}
        return json.dumps(
            {
                "format": "american-sniff/vectors",
                "format_version": 2,
                "rules_version": "1",
                "kind": "robustness",
                "vectors": [vector],
            }
        )

    expect = {"ok": False, "error": "bad_json"}
    (vector,) = read_vectors(file({"at": "x", "line_hex": "7bff7d", "expect": expect}))
    assert step_bytes(vector.data["steps"][0]) == b"{\xff}"
    for bad in ("7bff7", "7BFF7D", "7b0a7d", "zz"):
        with pytest.raises(InvalidVectors, match="line_hex"):
            read_vectors(file({"at": "x", "line_hex": bad, "expect": expect}))
    with pytest.raises(InvalidVectors, match="exactly one of"):
        read_vectors(file({"at": "x", "line_hex": "7b", "line": "{", "expect": expect}))


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (b'{"cmd": "table", "moves": [], "x": -0}', "bad_request"),
        (b'{"cmd": "settle", "players": 2, "hands": [[], []], "finisher": -0}', None),
        (b'{"cmd": "move", "move": "a\tb"}', "bad_json"),
        (b'{"cmd": "move", "move": "\\ud800"}', "no_match"),
        (b'{"c\\u006dd": "quit"}', None),
        (b'{"cmd": "quit", "c\\u006dd": "quit"}', "bad_json"),
        (b'{"cmd": "quit"}\x0c', "bad_json"),
        (b'{"cmd": "quit"}\xc2\xa0', "bad_json"),
        (b'\t{"cmd" :\r"quit"} ', None),
        (b'{"cmd": "new", "players": 2, "deals": null, "seed": "1"}', "bad_request"),
        (b'{"cmd": "new", "players": 2, "deals": []}', "invalid_deal"),
        (b'{"cmd": "new", "players": 2, "seed": "1", "scores": [0, 0, 0]}', "invalid_deal"),
        (b'{"cmd": "new", "players": 2, "seed": "\xef\xbc\x91"}', "invalid_deal"),
        (b'{"cmd": "new", "players": 2, "seed": "\\u0661"}', "invalid_deal"),
        (b'{"cmd": "move", "move": "\xed\xa0\x80"}', "bad_json"),
        (b'{"cmd": "table", "moves": []}', None),
    ],
)
def test_the_reference_answers_the_silent_points_as_documented(
    line: bytes, kind: str | None
) -> None:
    """docs/protocol.md's answers to the implementer's silent points, from the reference."""
    answer = json.loads(Session().handle_line(line))
    assert answer.get("error") == kind, answer


def test_a_given_unsorted_hand_is_sorted() -> None:
    """A deal's hands may be written in any order; the match holds them sorted."""
    session = Session()
    deal = load_vectors()
    given = next(v for v in deal if v.id == "matches/undrawn-hand-given").data["steps"][0]
    hands = given["request"]["deals"][0]["hands"]
    assert any(hand != sorted(hand) for hand in hands)
    assert session.handle(given["request"])["ok"]
    assert session.state is not None
    assert all(list(hand) == sorted(hand) for hand in session.state.hands)


def test_the_coverage_classes_of_the_escapes() -> None:
    """Each escape's vector reaches the class of its cause; a plain vector reaches none."""
    by_id = {vector.id: vector.data for vector in load_vectors()}
    want = {
        "seeds/power-of-two-lot-below-4-top": {"seed/power-of-two-top"},
        "matches/undrawn-hand-seeded": {"round-end/undrawn-hand/seeded"},
        "matches/undrawn-hand-given": {"round-end/undrawn-hand/given-unsorted"},
        "robustness/deal-corners": {
            "error/bad_request/deals-null",
            "error/invalid_deal/empty-deals-no-seed",
            "error/invalid_deal/deal-short-of-a-tile",
        },
        "robustness/not-utf8": {"error/bad_json/not-utf8"},
        "robustness/json-corners": {
            "json/minus-zero",
            "json/lone-surrogate",
            "json/escaped-key",
            "error/bad_json/control-character",
            "error/bad_json/repeated-escaped-key",
            "error/bad_json/other-blank",
        },
        "robustness/seed-texts": {"error/invalid_deal/seed-not-ascii-digits"},
    }
    for ident, classes in want.items():
        assert classes <= classify(by_id[ident]), ident
    plain = (
        classify(by_id["seeds/2-players-seed-1"]) if "seeds/2-players-seed-1" in by_id else set()
    )
    assert not {c for c in plain if c.startswith(("json/", "round-end/undrawn"))}


@pytest.mark.parametrize(("program", "passes"), [("minimal", True), ("replaced_utf8", False)])
def test_a_line_that_is_not_utf8_goes_to_a_program_as_bytes(program: str, passes: bool) -> None:
    """Over a pipe, line_hex's bytes reach the engine as they are; a lenient reader fails."""
    vectors = [vector for vector in VECTORS if vector.id == "robustness/not-utf8"]
    command = [sys.executable, str(WRONG_ENGINES / f"{program}.py")]
    with SubprocessEngine(command, timeout=30) as engine:
        report = run_kit(engine, vectors)
    assert report.passed == passes
    if not passes:
        message = report.failures[0].difference or ""
        assert 'a byte 0xff in a string: error: expected "bad_json"' in message
        assert 'request: b\'{"cmd": "move", "move": "\\xff"}\'' in message
