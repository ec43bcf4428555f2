"""The lockstep fuzzer: it agrees with the library, and finds what the vectors might miss."""

from __future__ import annotations

import functools
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from american_sniff.conformance.compare import difference, expected_answer
from american_sniff.conformance.fuzz import RARE, FuzzReport, fuzz
from american_sniff.conformance.kit import (
    Engine,
    EngineCrashed,
    EngineError,
    LocalEngine,
    SubprocessEngine,
)
from in_process import WRONG_ENGINES, InProcess, rules_engine

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


def test_a_grammar_gap_is_found_shrunk_and_can_be_replayed() -> None:
    """A loose move grammar differs within a few matches; the shortest failing lines replay it."""
    report = fuzz(
        InProcess(lambda: minimal.Engine(loose_grammar.LooseGrammar(), "loose")), 20, seed=1
    )
    assert not report.passed
    assert report.matches <= 5
    assert report.difference is not None
    assert 'code: expected "not_a_tile", got "not_a_move"' in report.difference
    assert f"of match {report.matches} (counting from 1 within the match" in report.difference
    assert json.loads(report.lines[0])["cmd"] == "hello"
    assert 1 <= len(report.lines) - 1 < report.failing
    library, wrong = LocalEngine(), minimal.Engine(loose_grammar.LooseGrammar(), "loose")
    answers = [(library.send_line(line), wrong.line(line)) for line in report.lines]
    assert answers[-1][0]["code"] == "not_a_tile"
    assert answers[-1][1]["code"] == "not_a_move"


def first_difference(make: Callable[[], minimal.Engine], lines: Sequence[str]) -> str | None:
    """The first difference of ``lines`` sent to a fresh wrong engine and a fresh library."""
    library, wrong = LocalEngine(), InProcess(make)
    for line in lines:
        try:
            cmd = json.loads(line).get("cmd")
        except (ValueError, AttributeError):
            cmd = None
        found = difference(expected_answer(cmd, library.send_line(line)), wrong.send_line(line))
        if found:
            return found
    return None


def test_a_shrunk_case_is_one_minimal() -> None:
    """The shrunk case fails on the field; dropping any one of its lines loses that failure."""
    make = functools.partial(fields.field_engine, "move.round_end.end")
    report = fuzz(InProcess(make), 20, seed=1)
    lines = report.lines[1:]
    assert 1 < len(lines) < report.failing
    assert (first_difference(make, lines) or "").startswith("round_end.end: ")
    for index in range(len(lines)):
        found = first_difference(make, lines[:index] + lines[index + 1 :])
        assert not (found or "").startswith("round_end.end: ")


def test_an_unshrunk_report_keeps_the_whole_match() -> None:
    """With shrink=False the report holds every line of the failing match."""
    make = functools.partial(fields.field_engine, "move.round_end.end")
    report = fuzz(InProcess(make), 20, seed=1, shrink=False)
    assert len(report.lines) - 1 == report.failing


@pytest.mark.sweep
def test_bias_reaches_more_wins_by_seats_2_and_3_and_empty_stocks() -> None:
    """Bias makes 4-player wins by seats 2 and 3, and moves with the stock empty, likelier."""
    plain = [fuzz(LocalEngine(), 15, seed=seed) for seed in (3, 4, 5)]
    biased = [fuzz(LocalEngine(), 15, seed=seed, bias=True) for seed in (3, 4, 5)]
    assert all(report.passed for report in plain + biased)
    assert all(set(report.reached) == set(RARE) for report in plain + biased)

    def total(reports: list[FuzzReport], name: str) -> int:
        return sum(report.reached[name] for report in reports)

    def requests(reports: list[FuzzReport]) -> int:
        return sum(report.requests for report in reports)

    assert total(biased, "win_by_seat_2_or_3") > 2 * total(plain, "win_by_seat_2_or_3")
    empty_plain = total(plain, "empty_stock") / requests(plain)
    assert total(biased, "empty_stock") / requests(biased) > 1.5 * empty_plain
    assert total(biased, "past_the_end") > 0
    assert total(plain, "deals_ran_out") > 0


@pytest.mark.parametrize(
    ("field", "words"),
    [
        (
            "new.turn",
            "request 1 of match 1 (counting from 1 within the match, the hello excluded; ",
        ),
        ("legal.moves", "requests): moves (compared as a set)"),
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


# -- fifty matches alone catch every wrong engine --------------------------------------

#: The wrong engines that fifty fuzzed matches need not catch, and why: each
#: differs on one exact input that random requests do not send.
NEEDS_ONE_INPUT = {
    "modulo_below": "deals differently only from a seed whose first output below() rejects",
    "short_line_buffer": "fails only on a line longer than 64 KiB",
    "power_of_two_below": "deals differently only from a seed whose below(2**k) draws a top output",
    "replaced_utf8": "fails only on a line that is not UTF-8; the fuzzer sends text",
    "given_hand_order": "fails only when a round ends while a seat that never drew holds "
    "two or more tiles given out of order, which random play almost never reaches",
    "dealt_hand_order": "fails only when a seeded round ends while a seat that never drew "
    "holds two or more tiles, which random play almost never reaches",
}


def program_engines() -> list[str]:
    """Every wrong engine program of tests/wrong_engines, but the base and the field table."""
    return sorted(
        path.stem
        for path in WRONG_ENGINES.glob("*.py")
        if path.stem not in {"minimal", "fields"} and not path.stem.startswith("_")
    )


def make_engine(name: str) -> Engine:
    """The wrong engine ``name``: in-process if it subclasses the minimal engine, else a program."""
    module = importlib.import_module(name)
    rules = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, minimal.Rules)
        and value is not minimal.Rules
        and value.__module__ == name
    ]
    engines = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, minimal.Engine)
        and value.__module__ == name
    ]
    if len(rules) == 1 and not engines:
        return InProcess(rules_engine(name))
    if len(engines) == 1 and not rules:
        kind = engines[0]
        try:  # the minimal engine's constructor: in-process, as the kit's own tests run them
            return InProcess(lambda: kind(minimal.Rules(), f"wrong: {name}"))
        except TypeError:
            pass
    return SubprocessEngine([sys.executable, str(WRONG_ENGINES / f"{name}.py")], timeout=30)


def caught(engine: Engine) -> bool:
    """Whether ``--fuzz 50 --seed 1`` alone finds a difference (a refused hello counts)."""
    try:
        return not fuzz(engine, 50, seed=1, shrink=False).passed
    except EngineError:
        return True
    finally:
        engine.close()


def test_the_exceptions_are_wrong_engines_of_the_folder_or_to_come() -> None:
    """Every engine of the folder is either checked below or named as an exception."""
    names = program_engines()
    assert {"dealt_opener", "early_branches", "loose_grammar"} <= set(names)
    assert set(NEEDS_ONE_INPUT).isdisjoint({"minimal", "fields"})


@pytest.mark.sweep
@pytest.mark.parametrize("name", [n for n in program_engines() if n not in NEEDS_ONE_INPUT])
def test_fifty_matches_catch_the_wrong_engine(name: str) -> None:
    """--fuzz 50 --seed 1, without the vectors, catches every wrong engine of the folder."""
    assert caught(make_engine(name)), f"{name} passed 50 fuzzed matches"


@pytest.mark.sweep
@pytest.mark.parametrize("name", [n for n in program_engines() if n in NEEDS_ONE_INPUT])
def test_the_exceptions_do_escape_fifty_matches(name: str) -> None:
    """An exception the fuzzer catches after all must leave the list (it would hide nothing)."""
    assert not caught(make_engine(name)), f"{name} is caught: take it off NEEDS_ONE_INPUT"


#: Every engine of the field table and of the refusal-order swaps: the whole
#: table takes about 12 seconds in-process, so none is left out.
TABLE: dict[str, Callable[[], minimal.Engine]] = {
    **{field: functools.partial(fields.field_engine, field) for field in fields.FIELDS},
    **{f"{a},{b}": functools.partial(fields.order_engine, a, b) for a, b in fields.ORDER_SWAPS},
}


@pytest.mark.sweep
@pytest.mark.parametrize("name", sorted(TABLE))
def test_fifty_matches_catch_every_engine_of_the_field_table(name: str) -> None:
    """Each one-field-wrong engine and each swapped refusal order is caught by the fuzzer alone."""
    assert caught(InProcess(TABLE[name])), f"{name} passed 50 fuzzed matches"


class CrashesOnSettle(InProcess):
    """The minimal engine, but it exits at any settle request of 4 players."""

    def send_line(self, line: str | bytes) -> dict[str, Any]:
        """Its answer, or the crash."""
        if isinstance(line, str) and '"cmd":"settle","players":4' in line:
            raise EngineCrashed("the engine closed its output (exit code 1)")
        return super().send_line(line)


def test_a_crash_is_called_a_crash_and_shrunk_to_its_line() -> None:
    """A fuzzed engine that exits is reported as a crash, shrunk to the one line that kills it."""
    report = fuzz(CrashesOnSettle(lambda: minimal.Engine(minimal.Rules(), "minimal")), 20, seed=1)
    assert report.difference is not None
    assert "the hello excluded" in report.difference
    assert "): crash: the engine closed its output (exit code 1)" in report.difference
    assert len(report.lines) == 2
    assert json.loads(report.lines[1])["cmd"] == "settle"
