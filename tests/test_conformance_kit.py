"""The conformance kit: the library passes, the wrong engines fail the right vectors.

The engines of ``tests/wrong_engines`` are one small engine written apart
from the library (``minimal.py``, which passes everything although it lists
moves in another order) and three copies of it that each break one rule.
Each runs as a subprocess, as any engine would; the kit's other behaviours
are tested in-process.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from american_sniff.conformance.kit import (
    EngineError,
    KitReport,
    LocalEngine,
    SubprocessEngine,
    VectorResult,
    run_kit,
)
from american_sniff.conformance.loading import Vector, load_vectors

WRONG_ENGINES = Path(__file__).parent / "wrong_engines"
VECTORS = load_vectors()
IDS = [vector.id for vector in VECTORS]


def engine_command(name: str) -> list[str]:
    """The command line of the engine ``tests/wrong_engines/<name>.py``."""
    return [sys.executable, str(WRONG_ENGINES / f"{name}.py")]


def kind(name: str, *, but: tuple[str, ...] = ()) -> set[str]:
    """The ids of every vector of kind ``name``, except those named ``name/<but>``."""
    left_out = {f"{name}/{ident}" for ident in but}
    assert left_out <= set(IDS)
    return {ident for ident in IDS if ident.startswith(name + "/")} - left_out


def run_engine(name: str) -> KitReport:
    """The kit's report on a test engine."""
    with SubprocessEngine(engine_command(name), timeout=30) as engine:
        return run_kit(engine, VECTORS)


def failed(report: KitReport) -> dict[str, str]:
    """The failed vectors' differences, by id."""
    return {result.id: result.difference or "" for result in report.failures}


def test_the_library_passes_every_vector_in_process() -> None:
    """The library's own session passes every vector; each result is reported as it comes."""
    seen: list[VectorResult] = []
    report = run_kit(LocalEngine(), progress=seen.append)
    assert report.passed, [str(r) for r in report.failures]
    assert list(report.results) == seen
    assert [r.id for r in report.results] == IDS
    assert report.summary() == f"{len(IDS)} vectors: all passed (american-sniff 0.1.0)"
    assert str(seen[0]) == "PASS positions/worked-examples-1-9"


def test_an_independent_engine_passes_every_vector() -> None:
    """minimal.py, written apart from the library and listing moves in its own order, passes."""
    report = run_engine("minimal")
    assert report.passed, [str(r) for r in report.failures]
    assert report.engine["engine"] == "minimal (tests/wrong_engines, correct)"


#: For each wrong engine, exactly the vectors it must fail, and one difference it must show.
WRONG = {
    "early_branches": (
        # Every table where a Sniff lies with one line side joined (the lone
        # opening doubles of examples 10 and 11 never get there) ...
        kind("positions", but=("worked-example-10", "worked-example-11"))
        # ... the positions whose legal moves or refusals involve such a Sniff ...
        | {
            "refusals/branch-before-line-b-is-joined",
            "refusals/joined-line-side",
            "refusals/table-branch-with-one-line-joined",
        }
        # ... and every match, whose legal moves are compared before each action.
        | kind("matches"),
        (
            "refusals/table-branch-with-one-line-joined",
            "'[2|6] on [2|2] branch_a' was accepted; expected the refusal point_not_open",
        ),
    ),
    "single_terminal_double": (
        # Every table with a terminal double, but those whose doubles are blank
        # (0 once or twice is 0), and every match (the sums go wrong).
        kind("positions", but=("worked-example-11", "zero-valued-ends")) | kind("matches"),
        (
            "positions/worked-example-10",
            'step 1 ([2|2] opens): contributions (compared as a set): missing {"point": '
            '"[2|2] line_a", "value": 4}; unexpected {"point": "[2|2] line_a", "value": 2}',
        ),
    ),
    "dealt_opener": (
        # Every match: each has a round opened by the finisher of the round
        # before, where the kit gives a decoy opener that must be ignored.
        kind("matches"),
        (
            "matches/2-players-seed-320",
            "round 2, action 0 ([2|3] opens), before: legal_moves (compared as a set): missing "
            '"[0|1] opens", "[0|4] opens", "[0|5] opens", "[1|5] opens", "[2|3] opens", '
            '"[3|3] opens", "[4|4] opens"; unexpected "[0|3] opens", "[1|4] opens", '
            '"[2|2] opens", "[2|6] opens", "[3|5] opens", "[4|6] opens", "[5|6] opens"',
        ),
    ),
    "finisher_gains": (
        # Every settlement with a finisher, and every match (each has a domino round).
        {
            "settlement/domino-two-players",
            "settlement/domino-three-players",
            "settlement/domino-four-players-partners",
        }
        | kind("matches"),
        ("settlement/domino-two-players", "scores[1]: expected 95, got 115"),
    ),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_engine_fails_exactly_the_right_vectors(name: str) -> None:
    """Each wrong engine fails the vectors its bug touches, and passes every other one."""
    expected, (example, difference) = WRONG[name]
    report = run_engine(name)
    differences = failed(report)
    assert set(differences) == expected
    assert differences[example] == difference
    assert report.summary().endswith(
        f"{len(IDS) - len(expected)} passed, {len(expected)} failed ({report.engine['engine']})"
    )


# -- the kit's own behaviour, in-process -------------------------------------------------


class Wrapped:
    """An engine that changes the library's answers with ``change``."""

    def __init__(self, change: Any) -> None:
        self.inner = LocalEngine()
        self.change = change
        self.restarts = 0

    def request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """The library's answer, changed."""
        answer = self.inner.request(message)
        changed: dict[str, Any] = self.change(dict(message), answer)
        return changed

    def restart(self) -> None:
        """Count the restarts."""
        self.restarts += 1
        self.inner.restart()

    def close(self) -> None:
        """Nothing to stop."""


def test_lists_are_compared_as_sets_and_extra_keys_are_ignored() -> None:
    """Reversed legal moves, points and contributions pass; so do keys the vectors lack."""

    def change(_: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        for key in ("moves", "open_points", "contributions"):
            if key in answer:
                answer[key] = answer[key][::-1]
        return {**answer, "comment": "extra keys are allowed"}

    assert run_kit(Wrapped(change)).passed


def test_a_difference_is_reported_with_where_it_is() -> None:
    """The first difference names the step, the key, what was expected and what came."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message["cmd"] == "move" and answer.get("points") == 10:
            answer["points"] = 15
        if message["cmd"] == "settle":
            del answer["side_totals"]
        if message["cmd"] == "table" and message["moves"] == ["[0|0] opens"]:
            answer["open_points"] = "none"
        return answer

    report = run_kit(Wrapped(change))
    differences = failed(report)
    assert differences["matches/2-players-seed-320"] == (
        "round 1, action 0 ([4|6] opens): points: expected 10, got 15"
    )
    assert differences["settlement/rounding-1-and-2-go-down"] == (
        "side_totals: missing (expected [0, 0])"
    )
    assert differences["positions/worked-example-11"] == (
        'step 1 ([0|0] opens): open_points: expected a list, got "none"'
    )


def test_refusals_are_checked_in_every_way() -> None:
    """A refusal must be the right code, leave the state and the legal moves unchanged."""
    refused = False

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        nonlocal refused
        if answer.get("code") == "must_draw":  # a pass refused for the stock goes through
            answer["ok"] = True
        elif answer.get("code") == "stock_empty":
            answer["code"] = "must_draw"
        if answer.get("code") == "already_on_table":
            answer["index"] = 0
        if answer.get("code") == "not_a_move":
            return {"ok": True}
        if answer.get("code") == "not_a_point":
            refused = True
        if message["cmd"] == "state" and refused:
            refused = False
            answer["hand_sizes"] = [0, 0]
        return answer

    differences = failed(run_kit(Wrapped(change)))
    assert differences["refusals/draw-from-the-empty-stock"].startswith(
        "'draw': expected the refusal stock_empty, got illegal_move must_draw ("
    )
    assert differences["refusals/table-tile-already-placed"] == (
        "'[1|1] on [1|4] high': refused at index 0, expected 2"
    )
    assert differences["refusals/text-not-a-move"] == (
        "'play [1|4]' was accepted; expected the refusal not_a_move"
    )
    assert differences["refusals/side-a-non-double-lacks"] == (
        "the refused move changed the state: hand_sizes[0]: expected 6, got 0"
    )
    assert differences["refusals/pass-while-the-stock-has-tiles"] == (
        "'pass' was accepted; expected the refusal must_draw"
    )


def test_legal_and_state_must_answer_in_refusal_vectors() -> None:
    """A refusal vector whose legal or state request is refused fails, naming it."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message["cmd"] == "legal":
            return {"ok": False, "error": "internal", "message": "no list"}
        return answer

    differences = failed(run_kit(Wrapped(change), [v for v in VECTORS if v.kind == "refusals"]))
    assert differences["refusals/opener-cannot-draw"] == (
        "legal before the move was refused: internal (no list)"
    )

    def no_state(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message["cmd"] == "state":
            return {"ok": False, "error": "internal"}
        return answer

    differences = failed(run_kit(Wrapped(no_state), VECTORS))
    assert differences["refusals/opener-cannot-draw"] == "state was refused: internal"
    assert differences["matches/2-players-seed-320"] == (
        "state after the match was refused: internal"
    )


def test_a_refused_start_or_move_is_reported() -> None:
    """A vector whose match cannot start, or whose recorded move is refused, fails saying so."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message["cmd"] == "new" and message["players"] == 3:
            return {"ok": False, "error": "unsupported", "message": "two or four only"}
        if message.get("move") == "[4|6] opens" or message["cmd"] == "settle":
            return {"ok": False, "error": "internal"}
        if message["cmd"] == "table" and message["moves"][-1] == "[1|3] on [1|1] branch_b":
            return {"ok": False, "error": "illegal_move", "code": "point_not_open"}
        return answer

    differences = failed(run_kit(Wrapped(change)))
    assert differences["refusals/three-players-turn-order"] == (
        "new was refused: unsupported (two or four only)"
    )
    assert differences["matches/2-players-seed-320"] == (
        "round 1, action 0 ([4|6] opens): refused: internal"
    )
    assert differences["settlement/domino-two-players"] == "refused: internal"
    assert differences["positions/worked-examples-1-9"] == (
        "step 9 ([1|3] on [1|1] branch_b): refused: illegal_move point_not_open"
    )


def test_an_engine_failure_fails_the_vector_and_restarts_the_engine() -> None:
    """If the engine fails during a vector, that vector fails and the engine is restarted."""
    calls = 0

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if message["cmd"] == "settle" and message["players"] == 3:
            raise EngineError("no answer to 'settle' within 1 seconds")
        return answer

    engine = Wrapped(change)
    differences = failed(run_kit(engine, [v for v in VECTORS if v.kind == "settlement"]))
    assert differences == {
        "settlement/domino-three-players": (
            "the engine failed: no answer to 'settle' within 1 seconds"
        ),
        "settlement/blocked-three-players-below-zero": (
            "the engine failed: no answer to 'settle' within 1 seconds"
        ),
    }
    assert engine.restarts == 2


@pytest.mark.parametrize(
    ("hello", "words"),
    [
        ({"ok": False, "error": "unsupported", "message": "v2 only"}, "refused hello"),
        ({"ok": True, "protocol_version": 2, "rules_version": "1"}, "protocol version 2"),
        ({"ok": True, "protocol_version": 1, "rules_version": "2"}, "rules version '2'"),
    ],
)
def test_the_handshake_must_agree(hello: dict[str, Any], words: str) -> None:
    """An engine that refuses hello, or speaks another version, is not run at all."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        return hello if message["cmd"] == "hello" else answer

    with pytest.raises(EngineError, match=words):
        run_kit(Wrapped(change))


def test_the_report_as_json() -> None:
    """The JSON report holds the engine, the verdict, the counts and every result."""
    results = (VectorResult("a/1", "a", True), VectorResult("a/2", "a", False, "it differs"))
    report = KitReport(engine={"engine": "x"}, results=results)
    assert not report.passed
    assert report.summary() == "2 vectors: 1 passed, 1 failed (x)"
    data = report.to_dict()
    assert data["format"] == "american-sniff/conformance-report"
    assert (data["passed"], data["total"], data["failed"]) == (False, 2, 1)
    assert data["results"][1] == {
        "id": "a/2",
        "kind": "a",
        "passed": False,
        "difference": "it differs",
    }
    assert str(results[1]) == "FAIL a/2: it differs"


# -- a subprocess that misbehaves ------------------------------------------------------------


def python(code: str) -> list[str]:
    """A command running ``code`` in a fresh Python."""
    return [sys.executable, "-c", code]


SMALL = [vector for vector in VECTORS if vector.kind == "settlement"][:2]


def test_an_engine_that_cannot_start() -> None:
    """A missing program or an empty command is an EngineError naming it."""
    with pytest.raises(EngineError, match="cannot start 'no-such-engine-here'"):
        SubprocessEngine("no-such-engine-here --flag")
    with pytest.raises(EngineError, match="empty"):
        SubprocessEngine("  ")


def test_an_engine_that_does_not_answer_in_time() -> None:
    """No answer within the timeout is an EngineError."""
    silent = python("import sys\nfor line in sys.stdin: pass")
    with (
        SubprocessEngine(silent, timeout=0.3) as engine,
        pytest.raises(EngineError, match=r"no answer to 'hello' within 0\.3 seconds"),
    ):
        run_kit(engine, SMALL)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("input(); print('hello there', flush=True); input()", "not valid JSON"),
        ("input(); print('[1, 2]', flush=True); input()", "not an object with ok"),
        (
            "import sys; sys.stderr.write('boom\\n'); sys.exit(3)",
            "(exit code 3); its last words: boom",
        ),
    ],
)
def test_an_engine_that_answers_wrongly_or_dies(code: str, words: str) -> None:
    """Garbage, a non-object or an early exit is an EngineError saying which."""
    with (
        SubprocessEngine(python(code), timeout=5) as engine,
        pytest.raises(EngineError, match=re.escape(words)),
    ):
        engine.request({"cmd": "hello", "protocol_version": 1})
    with pytest.raises(EngineError, match="closed"):
        engine.request({"cmd": "hello"})


def test_a_subprocess_engine_restarts() -> None:
    """restart() starts the program afresh; the library's engine answers again."""
    command = shlex.join([sys.executable, "-m", "american_sniff", "engine"])
    with SubprocessEngine(command) as engine:
        engine.request({"cmd": "new", "players": 2, "seed": "1"})
        engine.restart()
        assert engine.request({"cmd": "legal"})["error"] == "no_match"
        report = run_kit(engine, SMALL)
    assert report.passed
    assert attrs.asdict(report.results[0])["passed"] is True
    assert isinstance(SMALL[0], Vector)
