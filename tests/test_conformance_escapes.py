"""The seven escapes of issue 27: for each, a wrong engine, the vectors that catch it, and why.

Each wrong engine of the table makes one mistake that the vectors of the
previous release let through (a 64 KiB line buffer, ``below`` without its
rejection step, the winning seat for the side, the block test that asks the
next seat only, ``settle``'s unchecked scores, a turn kept after the last
deal, no nesting limit). The kit must fail it on the vectors added for that
mistake, with a message naming the cause, and on no vector of the older
kinds; the library's engine and the minimal engine must pass them all.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import generate_vectors as generate
from american_sniff.conformance.kit import Engine, LocalEngine, SubprocessEngine, run_kit
from american_sniff.conformance.loading import InvalidVectors, load_vectors, read_vectors, step_line
from american_sniff.conformance.protocol import MAX_DEPTH, MAX_LINE_BYTES, nesting
from american_sniff.rng import MASK64, next_u64
from in_process import WRONG_ENGINES, InProcess, wrong_engine

sys.path.insert(0, str(WRONG_ENGINES))

import minimal

VECTORS = load_vectors()
BY_ID = {vector.id: vector for vector in VECTORS}

#: The vectors added for the escapes: the only ones the wrong engines may fail.
ESCAPE_VECTORS = {
    "robustness/bad-requests",
    "robustness/long-lines",
    "robustness/nesting-limit",
    *(
        f"robustness/deals-run-out-blocked-by-{how.split()[-1]}"
        for _, _, how in generate.BLOCKED_LAST_DEALS
    ),
    *(f"seeds/rejected-{ident}" for ident, *_ in generate.REJECTION_SEEDS),
    *(f"matches/4-players-won-by-seat-{seat}" for _, seat in generate.WON_BY_SEAT),
    *(
        f"matches/{players}-players-seed-{seed}-round-{number}-next-seat-stuck"
        for players, seed, number, _ in generate.STUCK_NEXT_SEAT
    ),
}
#: The single rounds added for the coverage table (``generate.ROUND_ENDS``):
#: their deals run out after a domino or a block, so an engine that keeps the
#: turn after a blocked last round fails the blocked ones too.
ROUND_END_VECTORS = {
    f"matches/{players}-players-{end}-by-seat-{seat}"
    for players, _, _, end, seat in generate.ROUND_ENDS
} | {"matches/undrawn-hand-seeded", "matches/undrawn-hand-given"}

#: Each wrong engine: (the vector it fails first, words its message must hold,
#: every vector it must fail).
ESCAPES: dict[str, tuple[str, tuple[str, ...], set[str]]] = {
    "short_line_buffer": (
        "robustness/long-lines",
        ("70,000 bytes, longer than 64 KiB", "ok: expected true, got false"),
        {"robustness/long-lines"},
    ),
    "modulo_below": (
        "seeds/rejected-first-draw-2-64-minus-1",
        ("new: turn: expected", "other fields that differ: opener"),
        {f"seeds/rejected-{ident}" for ident, *_ in generate.REJECTION_SEEDS},
    ),
    "seat_for_side": (
        "matches/4-players-won-by-seat-2",
        ("seat 2 reaches the target; the winner is its side, 0", "winner: expected 0, got 2"),
        {"matches/4-players-won-by-seat-2", "matches/4-players-won-by-seat-3"},
    ),
    "next_seat_block": (
        "robustness/deals-run-out-blocked-by-placement",
        ("cannot place, but another seat can, so the round is not blocked",),
        {
            f"matches/{players}-players-seed-{seed}-round-{number}-next-seat-stuck"
            for players, seed, number, _ in generate.STUCK_NEXT_SEAT
        },
    ),
    "unchecked_settle_scores": (
        "robustness/bad-requests",
        (
            "settle with three scores for two sides",
            'ok: expected false, got true (the vector expects error "bad_request")',
        ),
        {"robustness/bad-requests"},
    ),
    "turn_after_last_deal": (
        "robustness/deals-run-out-blocked-by-placement",
        ("the match has no deal left, so turn is null", "turn: expected null, got "),
        {
            "robustness/deals-run-out-blocked-by-placement",
            "robustness/deals-run-out-blocked-by-draw",
        },
    ),
    "no_nesting_limit": (
        "robustness/nesting-limit",
        (f"nesting {MAX_DEPTH + 1} deep, one beyond the limit", 'expected "bad_json"'),
        {"robustness/nesting-limit"},
    ),
}


@pytest.mark.sweep
@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_the_kit_fails_each_escape_on_its_vectors_naming_the_cause(name: str) -> None:
    """The wrong engine fails its vectors first, with the cause in words, and no older vector."""
    first, words, must = ESCAPES[name]
    report = run_kit(InProcess(wrong_engine(name)))
    failed = [result.id for result in report.failures]
    assert failed, f"{name} passed every vector"
    assert failed[0] == first
    message = (report.failures[0].difference or "").split("\n")[0]
    for part in words:
        assert part in message
    assert must <= set(failed)
    assert set(failed) <= ESCAPE_VECTORS | ROUND_END_VECTORS


def _minimal() -> InProcess:
    return InProcess(lambda: minimal.Engine(minimal.Rules(), "minimal"))


@pytest.mark.parametrize("make", [LocalEngine, _minimal], ids=["library", "minimal"])
def test_the_correct_engines_pass_the_escape_vectors(make: Callable[[], Engine]) -> None:
    """The library in-process and the independent minimal engine pass every new vector."""
    engine = make()
    report = run_kit(engine, [BY_ID[ident] for ident in sorted(ESCAPE_VECTORS)])
    assert report.passed, report.failures[:1]


def test_the_library_engine_passes_the_line_vectors_over_a_pipe() -> None:
    """``american-sniff engine`` reads the 1 MiB lines as the vectors expect, newline counted."""
    chosen = [BY_ID["robustness/long-lines"], BY_ID["robustness/nesting-limit"]]
    with SubprocessEngine([sys.executable, "-m", "american_sniff", "engine"], timeout=60) as engine:
        report = run_kit(engine, chosen)
    assert report.passed, report.failures[:1]


def test_the_short_line_buffer_fails_as_a_program() -> None:
    """The 64 KiB reader as a real process answers the cut line, then exits."""
    program = [sys.executable, str(WRONG_ENGINES / "short_line_buffer.py")]
    with SubprocessEngine(program, timeout=60) as engine:
        report = run_kit(engine, [BY_ID["robustness/long-lines"], BY_ID["robustness/bad-json"]])
    first = report.failures[0]
    assert first.id == "robustness/long-lines"
    assert "longer than 64 KiB" in (first.difference or "")
    # It has exited: the next vector finds it gone. Which end shows it first is the
    # system's timing: the request's write (if the process has ended, "stopped
    # reading") or the answer's read (if the request reached the pipe, "closed its
    # output"). Under load CI saw each.
    gone = report.results[1].difference or ""
    assert gone.startswith("the engine crashed"), gone
    assert "closed its output" in gone or "stopped reading" in gone, gone
    assert "exit code 0" in gone, gone


def test_the_line_vectors_hold_lines_at_the_limit() -> None:
    """One line beyond 64 KiB shipped whole; the 1 MiB lines as pad_to, either side of the limit."""
    steps = BY_ID["robustness/long-lines"].data["steps"]
    sizes = {
        len(step_line(step).encode("utf-8")): step["expect"]["ok"]
        for step in steps
        if "line" in step
    }
    assert sizes == {generate.LONG_LINE: True, MAX_LINE_BYTES - 1: True, MAX_LINE_BYTES: False}
    assert generate.LONG_LINE > 64 << 10
    long = next(step["line"] for step in steps if len(step.get("line", "")) > 64 << 10)
    assert long[: 64 << 10].rstrip().endswith(",")  # its first 64 KiB are not a request


def test_pad_to_is_checked_on_loading() -> None:
    """pad_to goes with line only, and is no shorter than the line."""

    def file(step: dict[str, object]) -> str:
        vector = {"id": "robustness/x", "description": "x", "requires": [], "steps": [step]}
        return (
            '{"format": "american-sniff/vectors", "format_version": 2, "rules_version": "1", '
            f'"kind": "robustness", "vectors": [{json.dumps(vector)}]}}'
        )

    expect = {"ok": True}
    assert read_vectors(file({"at": "x", "line": "{}", "pad_to": 5, "expect": expect}))
    with pytest.raises(InvalidVectors, match="shorter than the line"):
        read_vectors(file({"at": "x", "line": "{}  ", "pad_to": 3, "expect": expect}))
    with pytest.raises(InvalidVectors, match="with line only"):
        read_vectors(file({"at": "x", "request": {}, "pad_to": 3, "expect": expect}))


def test_nesting_counts_arrays_and_objects() -> None:
    """A scalar is 0 deep, each array or object one more; strings nest nothing."""
    assert nesting(7) == nesting("[[[") == 0
    assert nesting({"a": [{"b": []}]}) == 4
    assert nesting([[]] * 3 + [[[[]]]]) == 4
    deep: object = []
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    assert nesting(deep) == MAX_DEPTH


def _depth(value: object) -> int:
    """The nesting, by the definition: a container is one more than its deepest member."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(_JSON)
def test_nesting_is_the_depth_of_the_deepest_member(value: object) -> None:
    """The layer-by-layer count agrees with the recursive definition on any parsed JSON."""
    assert nesting(value) == _depth(value)


def test_unmix_inverts_the_mixer() -> None:
    """For any output, the state unmix gives produces it; seed_giving aims at any draw."""
    chance = random.Random(27)
    for output in [0, 1, MASK64, *(chance.getrandbits(64) for _ in range(200))]:
        seed = generate.seed_giving(output)
        assert next_u64(seed)[0] == output
        seed = generate.seed_giving(output, draw=28)
        state = seed
        for _ in range(27):
            state = next_u64(state)[1]
        assert next_u64(state)[0] == output
    assert generate.seed_giving(MASK64) == 3558559446808474027


def test_the_rejection_seeds_reach_the_rejection_step() -> None:
    """Each rejection seed's chosen draw is an output that below must redraw."""
    for _, players, draw, output, _ in generate.REJECTION_SEEDS:
        state = generate.seed_giving(output, draw)
        for _ in range(draw):
            out, state = next_u64(state)
        bound = players if draw == 28 else 29 - draw
        assert out == output >= (1 << 64) - (1 << 64) % bound


def test_a_wrong_engine_program_runs() -> None:
    """Each escape's wrong engine also runs as a program, and answers hello."""
    for name in ESCAPES:
        program = WRONG_ENGINES / f"{name}.py"
        answer = subprocess.run(
            [sys.executable, str(program)],
            input=b'{"cmd": "hello", "protocol_version": 1}\n',
            capture_output=True,
            timeout=30,
            check=True,
        )
        assert b'"ok": true' in answer.stdout, name
