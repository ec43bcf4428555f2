"""The conformance kit: the library passes, the wrong engines fail the right vectors.

The engines of ``tests/wrong_engines`` are one small engine written apart
from the library (``minimal.py``, which passes everything although it lists
moves in another order) and three copies of it that each break one rule.
Each runs as a subprocess, as any engine would; the kit's other behaviours
are tested in-process.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

import generate_vectors as generate
from american_sniff.conformance.kit import (
    EngineCrashed,
    EngineError,
    KitReport,
    LocalEngine,
    SubprocessEngine,
    VectorResult,
    perft,
    run_kit,
)
from american_sniff.conformance.loading import Vector, load_vectors
from american_sniff.conformance.protocol import PROTOCOL
from american_sniff.serial import format_schema
from in_process import InProcess, rules_engine

WRONG_ENGINES = Path(__file__).parent / "wrong_engines"
VECTORS = load_vectors()
IDS = [vector.id for vector in VECTORS]


def assert_valid_report(doc: dict[str, Any]) -> None:
    """The kit's report is valid against its JSON Schema (when jsonschema is there)."""
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(format_schema("conformance-report")).validate(doc)


def engine_command(name: str) -> list[str]:
    """The command line of the engine ``tests/wrong_engines/<name>.py``."""
    return [sys.executable, str(WRONG_ENGINES / f"{name}.py")]


def kind(name: str, *, but: tuple[str, ...] = ()) -> set[str]:
    """The ids of every vector of kind ``name``, except those named ``name/<but>``."""
    left_out = {f"{name}/{ident}" for ident in but}
    assert left_out <= set(IDS)
    return {ident for ident in IDS if ident.startswith(name + "/")} - left_out


#: The match vectors added for the coverage classes: wins by an opening near the
#: target (no Sniff, no settlement, the lot's opener), and single rounds from a
#: lot (no finisher opens), some blocked (no finisher at all).
WINS = {i for i in IDS if re.fullmatch(r"matches/[23]-players-won-by-seat-\d", i)}
BLOCKED = {i for i in IDS if re.fullmatch(r"matches/\d-players-blocked-by-seat-\d", i)}
ROUNDS = BLOCKED | {i for i in IDS if re.fullmatch(r"matches/\d-players-domino-by-seat-\d", i)}
#: The whole matches of the matches kind (the others are single rounds from one deal).
WHOLE_MATCHES = {f"matches/{players}-players-seed-{seed}" for players, seed, _ in generate.MATCHES}
#: The single rounds of the matches kind that have no domino end (won, or blocked).
NO_DOMINO = (
    "2-players-seed-2-round-4-next-seat-stuck",
    "3-players-seed-11-round-17-next-seat-stuck",
    "4-players-won-by-seat-2",
    "4-players-won-by-seat-3",
)
#: The two last deals that end blocked (robustness), played rounds with every table.
BLOCKED_LAST = {
    "robustness/deals-run-out-blocked-by-placement",
    "robustness/deals-run-out-blocked-by-draw",
}
#: The seeds that reach below's rejection step: six actions each.
REJECTED = tuple(f"rejected-{ident}" for ident, *_ in generate.REJECTION_SEEDS)
POWER_OF_TWO = tuple(f"power-of-two-{ident}" for ident, *_ in generate.POWER_OF_TWO_SEEDS)


def run_engine(name: str) -> KitReport:
    """The kit's report on a test engine, run as a program."""
    with SubprocessEngine(engine_command(name), timeout=30) as engine:
        return run_kit(engine, VECTORS)


def failed(report: KitReport) -> dict[str, str]:
    """The failed vectors' differences, by id."""
    return {result.id: result.difference or "" for result in report.failures}


@pytest.mark.sweep
def test_the_library_passes_every_vector_in_process() -> None:
    """The library's own session passes every vector; each result is reported as it comes."""
    seen: list[VectorResult] = []
    report = run_kit(LocalEngine(), progress=seen.append)
    assert report.passed, [str(r) for r in report.failures]
    assert_valid_report(report.to_dict())
    assert list(report.results) == seen
    assert [r.id for r in report.results] == IDS
    assert report.summary() == f"{len(IDS)} vectors: all passed (american-sniff 0.1.0)"
    assert str(seen[0]) == "PASS positions/worked-examples-1-9"


@pytest.mark.sweep
def test_an_independent_engine_passes_every_vector() -> None:
    """minimal.py, written apart from the library and listing moves in its own order, passes."""
    report = run_engine("minimal")
    assert report.passed, [str(r) for r in report.failures]
    assert report.engine["engine"] == "minimal (tests/wrong_engines, correct)"


#: For each wrong engine, exactly the vectors it must fail, and one difference it must show.
WRONG = {
    "early_branches": (
        # Every table where a Sniff lies with one line side joined (the lone
        # opening doubles of examples 10 and 11 never get there), the positions
        # whose refusals involve such a Sniff, and every played match.
        kind("positions", but=("worked-example-10", "worked-example-11"))
        | {
            "refusals/branch-before-line-b-is-joined",
            "refusals/joined-line-side",
            "refusals/table-branch-with-one-line-joined",
        }
        | kind("seeds", but=POWER_OF_TWO[2:])
        | kind("perft")
        | (kind("matches", but=("3-players-seed-11-round-17-next-seat-stuck",)) - WINS)
        | BLOCKED_LAST,
        (
            "refusals/table-branch-with-one-line-joined",
            "step 1, table ([2|6] on [2|2] branch_a): ok: expected false, got true "
            '(the vector expects error "illegal_move", code "point_not_open")',
        ),
    ),
    "single_terminal_double": (
        kind("positions", but=("worked-example-11", "zero-valued-ends"))
        | {
            "refusals/branch-before-line-b-is-joined",
            "refusals/joined-line-side",
            "refusals/ordinary-double-has-no-branches",
            "refusals/joined-branch",
            "refusals/partner-tile",
            "robustness/deals-run-out",
            "robustness/bad_request-before-no_deal",
            "robustness/no_deal-before-illegal_move",
        }
        | kind("seeds", but=(*REJECTED[:2], *POWER_OF_TWO[1:]))
        | (kind("matches") - WINS)
        | BLOCKED_LAST,
        (
            "positions/worked-example-10",
            "step 1, placement 1 ([2|2] opens): contributions (compared as a set): missing "
            '{"point":"[2|2] line_a","value":4}; unexpected {"point":"[2|2] line_a","value":2} '
            "(other fields that differ: end_sum)",
        ),
    ),
    "dealt_opener": (
        # Every whole match: each has a round opened by the finisher of the round
        # before, where the kit gives a decoy opener that must be ignored.
        # (A single round from its deal has no round before it.)
        {
            "seeds/4-players-seed-9007199254740993",
            "seeds/2-players-seed-18446744073709551615",
            # its round ends in a domino, and the next round's legal follows
            "matches/undrawn-hand-seeded",
        }
        | WHOLE_MATCHES,
        (
            "seeds/4-players-seed-9007199254740993",
            "step 156, round 2, action 25 ([1|4] on [3|4] high): turn: expected 3, got 0",
        ),
    ),
    "finisher_gains": (
        # Every settlement with a finisher, and every match or round with a domino end.
        {
            "settlement/domino-two-players",
            "settlement/domino-three-players",
            "settlement/domino-four-players-partners",
            "robustness/deals-run-out",
            "robustness/bad_request-before-no_deal",
            "robustness/no_deal-before-illegal_move",
        }
        | kind("seeds", but=(*REJECTED, *POWER_OF_TWO))
        | (kind("matches", but=NO_DOMINO) - WINS - BLOCKED),
        ("settlement/domino-two-players", "step 1, settle: scores[1]: expected 95, got 115"),
    ),
}


@pytest.mark.sweep
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_engine_fails_exactly_the_right_vectors(name: str) -> None:
    """Each wrong engine fails the vectors its bug touches, and passes every other one."""
    expected, (example, difference) = WRONG[name]
    report = run_kit(InProcess(rules_engine(name)), VECTORS)
    differences = failed(report)
    assert_valid_report(report.to_dict())
    assert set(differences) == expected
    assert differences[example].split("\n")[0] == difference
    first = report.failures[0]
    assert report.summary().endswith(
        f"{len(IDS) - len(expected)} passed, {len(expected)} failed ({report.engine['engine']}); "
        f"the first failure: {first.id}, {first.where}"
    )
    step = (first.difference or "").split(",")[0]  # "step 12"
    assert (first.where or "").startswith(f"{step}, field ")


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

    def send_line(self, line: str | bytes) -> dict[str, Any]:
        """The library's answer to a line, changed (a line that is no object as {})."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: the 5,000-deep line
            message = {}
        answer = self.inner.send_line(line)
        changed: dict[str, Any] = self.change(message if isinstance(message, dict) else {}, answer)
        return changed

    def restart(self) -> None:
        """Count the restarts."""
        self.restarts += 1
        self.inner.restart()

    def close(self) -> None:
        """Nothing to stop."""


@pytest.mark.sweep
def test_lists_are_compared_as_sets_and_extra_keys_are_ignored() -> None:
    """Reversed legal moves, points and contributions pass; so do keys the vectors lack."""

    def change(_: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        for key in ("moves", "open_points", "contributions"):
            if key in answer:
                answer[key] = answer[key][::-1]
        return {**answer, "comment": "extra keys are allowed", "message": "any words"}

    assert run_kit(Wrapped(change)).passed


def first_line(differences: dict[str, str], ident: str) -> str:
    """The first line of the difference of vector ``ident``."""
    return differences[ident].split("\n")[0]


def test_a_difference_is_reported_with_where_it_is() -> None:
    """The first difference names the step, the field, what was expected and what came."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message.get("cmd") == "move" and answer.get("points") == 10:
            answer["points"] = 15
        if message.get("cmd") == "settle" and answer["ok"]:
            del answer["side_totals"]
        if message.get("cmd") == "table" and message["moves"] == ["[0|0] opens"]:
            answer["open_points"] = "none"
        if message.get("cmd") == "state":
            answer["stock_size"] += 1
        if not answer["ok"]:
            del answer["message"]
        return answer

    differences = failed(run_kit(Wrapped(change)))
    assert first_line(differences, "settlement/rounding-1-and-2-go-down") == (
        "step 1, settle: side_totals: missing (expected [0,0])"
    )
    assert first_line(differences, "positions/worked-example-11") == (
        'step 1, placement 1 ([0|0] opens): open_points: expected a list, got "none"'
    )
    assert first_line(differences, "matches/2-players-seed-228") == (
        "step 4, round 1, action 1, after ([1|4] opens): state: stock_size: expected 14, got 15"
    )
    assert first_line(differences, "robustness/bad-json") == (
        "step 1, not JSON: message: expected any string (the engine's own choice), missing"
    )
    request, answer = differences["settlement/rounding-1-and-2-go-down"].split("\n")[1:]
    assert request.startswith('  request: {"cmd":"settle","players":2,')
    assert answer.startswith('  answer:  {"deductions":[0,0],"ok":true,"scores":[30,40]}')


def test_a_skipped_vector_needs_a_feature() -> None:
    """An engine whose hello lists no seed feature skips the seeded vectors, and passes."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message.get("cmd") == "hello":
            answer["features"] = []
        return answer

    report = run_kit(Wrapped(change))
    assert_valid_report(report.to_dict())
    assert report.passed
    assert {r.id for r in report.skipped} == {v.id for v in VECTORS if v.requires}
    assert str(report.skipped[0]).endswith(": needs the feature seed")
    assert report.summary().endswith(f", {len(report.skipped)} skipped (american-sniff 0.1.0)")


def test_an_engine_failure_fails_the_vector_and_restarts_the_engine() -> None:
    """If the engine fails during a vector, that vector fails and the engine is restarted."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message.get("cmd") == "settle" and message["players"] == 3:
            raise EngineError("no answer to 'settle' within 1 seconds")
        return answer

    engine = Wrapped(change)
    differences = failed(run_kit(engine, [v for v in VECTORS if v.kind == "settlement"]))
    assert differences == {
        "settlement/domino-three-players": (
            "the engine failed: at step 1 (settle): no answer to 'settle' within 1 seconds"
        ),
        "settlement/blocked-three-players-below-zero": (
            "the engine failed: at step 1 (settle): no answer to 'settle' within 1 seconds"
        ),
    }
    assert engine.restarts == 2


def test_a_crash_is_called_a_crash() -> None:
    """An engine that exits, or writes a line that is no answer, is said to have crashed."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message.get("cmd") == "settle" and message["players"] == 3:
            raise EngineCrashed("the engine closed its output (exit code 1)")
        return answer

    report = run_kit(Wrapped(change), [v for v in VECTORS if v.kind == "settlement"])
    crashed = [r for r in report.failures if r.where == "a crash"]
    assert len(crashed) == len(report.failures) == 2
    assert crashed[0].difference == (
        "the engine crashed: at step 1 (settle): the engine closed its output (exit code 1)"
    )
    assert report.summary().endswith(f"; the first failure: {crashed[0].id}, a crash")


def test_a_fresh_vector_restarts_the_engine_before_and_after() -> None:
    """The no-match vector runs on a fresh engine; the kit restarts it after its quit."""
    engine = Wrapped(lambda _, answer: answer)
    fresh = [v for v in VECTORS if v.fresh]
    report = run_kit(engine, fresh, stop_at_failure=True)
    assert report.passed
    assert engine.restarts == 2 * len(fresh)


def test_stop_at_failure_ends_the_run() -> None:
    """With stop_at_failure the run ends at the first failed vector."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message.get("cmd") == "table":
            answer["end_sum"] = -1
        return answer

    report = run_kit(Wrapped(change), stop_at_failure=True)
    assert [r.id for r in report.results] == [IDS[0]]


def test_perft_prints_a_divide_on_a_mismatch() -> None:
    """A move generator that forgets a move fails perft, naming the first moves that differ."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        moves = answer.get("moves", [])
        if message.get("cmd") == "legal" and len(moves) == 2:  # forget one of two
            answer["moves"] = moves[:1]
        return answer

    perfts = [v for v in VECTORS if v.kind == "perft"]
    differences = failed(run_kit(Wrapped(change), perfts))
    assert differences
    text = next(iter(differences.values()))
    assert text.startswith("perft depth ")
    assert "divide at depth" in text
    assert ": expected " in text.split("\n")[1]


@pytest.mark.parametrize(
    ("hello", "words"),
    [
        ({"ok": False, "error": "unsupported", "message": "v2 only"}, "refused hello"),
        (
            {"ok": True, "protocol": "x", "protocol_version": 1},
            'hello: protocol: expected "american-sniff/engine", got "x"',
        ),
        (
            {"ok": True, "protocol": PROTOCOL, "protocol_version": 2},
            "hello: protocol_version: expected 1, got 2",
        ),
        (
            {"ok": True, "protocol": PROTOCOL, "protocol_version": 1, "rules_version": "2"},
            'hello: rules_version: expected "1", got "2"',
        ),
        (
            {
                "ok": True,
                "protocol": PROTOCOL,
                "protocol_version": 1,
                "rules_version": "1",
                "engine": "x",
                "features": "seed",
            },
            "features: expected any list of strings",
        ),
    ],
)
def test_the_handshake_must_agree(hello: dict[str, Any], words: str) -> None:
    """An engine that refuses hello, or speaks another version, is not run at all."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        return hello if message["cmd"] == "hello" else answer

    with pytest.raises(EngineError, match=re.escape(words)):
        run_kit(Wrapped(change))


def test_the_report_as_json() -> None:
    """The JSON report holds the engine, the verdict, the counts and every result."""
    results = (VectorResult("a/1", "a", True), VectorResult("a/2", "a", False, "it differs"))
    report = KitReport(engine={"engine": "x"}, results=results)
    assert not report.passed
    assert report.summary() == "2 vectors: 1 passed, 1 failed (x); the first failure: a/2"
    data = report.to_dict()
    assert data["format"] == "american-sniff/conformance-report"
    assert (data["passed"], data["total"], data["failed"], data["skipped"]) == (False, 2, 1, 0)
    assert data["results"][1] == {
        "id": "a/2",
        "kind": "a",
        "passed": False,
        "difference": "it differs",
        "skipped": False,
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
        pytest.raises(EngineError, match=r"no answer to the request '\{\"cmd\":\"hello\".* 0\.3 s"),
    ):
        run_kit(engine, SMALL)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (
            "input(); print('hello there', flush=True); input()",
            "not valid JSON: Expecting value (line 1, column 1): the engine wrote 'hello there",
        ),
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


@pytest.mark.parametrize(
    ("broken", "words"),
    [
        ("new", "perft: new was refused: internal"),
        ("move", "the engine refused '"),
        ("legal", "perft: legal after [] was refused: internal"),
        ("moves", "answered moves 'all of them'"),
    ],
)
def test_perft_reports_an_engine_that_breaks_its_walk(broken: str, words: str) -> None:
    """A refused new, a refused move of the engine's own list, a refused or odd legal."""

    def change(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        cmd = message.get("cmd")
        if cmd == broken or (broken == "moves" and cmd == "legal"):
            if broken == "moves":
                return {"ok": True, "moves": "all of them"}
            return {"ok": False, "error": "internal", "message": "no"}
        return answer

    with pytest.raises(EngineError, match=re.escape(words)):
        perft(Wrapped(change), {"players": 2, "seed": "1"}, 2)


def test_perft_counts_one_ply_and_stops_where_the_deals_run_out() -> None:
    """Depth 1 divides into ones; a position answering no_deal ends its sequences."""
    counts, divide = perft(LocalEngine(), {"players": 2, "seed": "1"}, 1)
    assert counts == [len(divide)]
    assert set(divide.values()) == {1}

    def no_deal(message: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        if message.get("cmd") == "legal" and answer.get("moves", [""])[0].endswith(" opens"):
            return answer
        if message.get("cmd") == "legal":
            return {"ok": False, "error": "no_deal", "message": "the deals ran out"}
        return answer

    assert perft(Wrapped(no_deal), {"players": 2, "seed": "1"}, 3)[0] == [7, 0, 0]
