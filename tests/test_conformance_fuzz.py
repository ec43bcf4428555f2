"""The lockstep fuzzer: it agrees with the library, and finds what the vectors might miss."""

from __future__ import annotations

import json
import sys

import pytest

from american_sniff.conformance.fuzz import FuzzReport, fuzz
from american_sniff.conformance.kit import LocalEngine
from in_process import WRONG_ENGINES, InProcess

sys.path.insert(0, str(WRONG_ENGINES))  # as in_process does: the engines import so

import fields
import loose_grammar
import minimal


def test_the_library_agrees_with_itself_and_a_seed_repeats() -> None:
    """The library passes; the same seed sends the same requests, another seed others."""
    first = fuzz(LocalEngine(), 4, seed=11)
    assert first.passed
    assert first == fuzz(LocalEngine(), 4, seed=11)
    assert first.requests != fuzz(LocalEngine(), 4, seed=12).requests
    assert (
        first.summary() == f"fuzz: no difference in 4 matches, {first.requests} requests (seed 11)"
    )
    assert first.lines == ()


def test_the_independent_engine_agrees_with_the_library() -> None:
    """minimal.py, seeds and all, agrees on every fuzzed request."""
    report = fuzz(InProcess(lambda: minimal.Engine(minimal.Rules(), "minimal")), 10, seed=1)
    assert report.passed, report.difference
    assert report.requests > 1000


def test_a_grammar_gap_is_found_at_once_and_can_be_replayed() -> None:
    """A loose move grammar differs within the first match; its lines replay the difference."""
    report = fuzz(
        InProcess(lambda: minimal.Engine(loose_grammar.LooseGrammar(), "loose")), 20, seed=1
    )
    assert not report.passed
    assert report.matches == 1
    assert report.difference is not None
    assert 'code: expected "not_a_tile", got "not_a_move"' in report.difference
    assert json.loads(report.lines[0])["cmd"] == "hello"
    assert json.loads(report.lines[1])["cmd"] == "new"
    library, wrong = LocalEngine(), minimal.Engine(loose_grammar.LooseGrammar(), "loose")
    answers = [(library.send_line(line), wrong.line(line)) for line in report.lines]
    assert answers[-1][0]["code"] == "not_a_tile"
    assert answers[-1][1]["code"] == "not_a_move"


@pytest.mark.parametrize(
    ("field", "words"),
    [
        ("new.turn", "request 1: turn: expected"),
        ("legal.moves", "request 2: moves (compared as a set)"),
        ("move.turn", "turn: expected"),
        ("state.stock_size", "stock_size: expected"),
        ("table.contributions", "contributions (compared as a set)"),
        ("settle.side_totals", "side_totals: expected"),
        ("line.error", 'error: expected "bad_json"'),
    ],
)
def test_a_wrong_field_is_found(field: str, words: str) -> None:
    """Each request kind the fuzzer sends compares its whole answer."""
    report = fuzz(InProcess(lambda: fields.field_engine(field)), 20, seed=2)
    assert words in (report.difference or "")


def test_progress_is_told_each_match() -> None:
    """The progress callback gets each match's number once it is played."""
    seen: list[int] = []
    assert fuzz(LocalEngine(), 3, seed=4, progress=seen.append).passed
    assert seen == [1, 2, 3]


def test_the_report_is_a_value() -> None:
    """A report with a difference says so."""
    report = FuzzReport(3, 2, 40, "request 7: turn: expected 1, got 0", ("{}",))
    assert not report.passed
    assert report.summary() == "fuzz: a difference in 2 matches, 40 requests (seed 3)"
