"""The quick reader of records: the same verdict as the strict reader, faster (issue 42).

``MatchRecord.from_json(text)`` reads the parsed document (``read_json``'s)
first by one pass of plain tests that builds the record; anything else goes
to the strict reader (the converter, ``_record_from``). These tests pin that
the quick reader takes every record the library writes, that it never lets
through what the strict reader refuses, and that both give the same record
or the same message.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    InvalidRecord,
    MatchRecord,
    apply,
    legal_moves,
    new_match,
    record_match,
)
from american_sniff.records import MAX_RECORD_BYTES, _quick_record
from american_sniff.serial import read_json


def _played(players: int, seed: int, steps: int) -> list[Any]:
    chooser = random.Random(seed)
    state = new_match(players, seed=seed)
    states = [state]
    while state.winner is None and len(states) <= steps:
        state = apply(state, chooser.choice(legal_moves(state)))
        states.append(state)
    return states


def _strict(text: object) -> MatchRecord | str:
    """What the strict reader alone makes of ``text``: the record, or the message."""
    try:
        data = read_json(text, max_bytes=MAX_RECORD_BYTES, error=InvalidRecord, what="the record")
        return MatchRecord.from_dict(data)
    except InvalidRecord as error:
        return str(error)


def _quick(text: str | bytes) -> MatchRecord | None:
    """What the quick reader alone makes of ``text``'s document, or None (also if it is no JSON)."""
    try:
        data = read_json(text, max_bytes=MAX_RECORD_BYTES, error=InvalidRecord, what="the record")
    except InvalidRecord:
        return None
    return _quick_record(data)


def _outcome(text: object) -> MatchRecord | str:
    try:
        return MatchRecord.from_json(text)  # type: ignore[arg-type]
    except InvalidRecord as error:
        return str(error)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_record_the_library_writes_is_read_by_the_quick_reader(players: int) -> None:
    """Finished and unfinished records, seeded or not, named, as text or bytes: read quickly."""
    for seed, steps in ((players, 2000), (players + 10, 90), (players + 20, 1)):
        record = record_match(
            _played(players, seed, steps), names=[f"n{s}" for s in range(players)]
        )
        for variant in (
            record,
            MatchRecord(players, record.names, None, record.rounds, record.scores, record.winner),
        ):
            for text in (variant.to_json(), variant.to_json(pretty=True)):
                quick = _quick(text)
                assert quick == variant == _strict(text)
                assert _quick(text.encode()) == variant


def _paths(value: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    """The path of every value in ``value`` (not the whole)."""
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _objects(value: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    """The path of every JSON object in ``value``."""
    if isinstance(value, dict):
        yield path
        for key, item in value.items():
            yield from _objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, (*path, index))


def _at(doc: Any, path: tuple[object, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


# A short record of three rounds, so that every value of it can be damaged.
_RECORD = record_match(_played(4, 3, 400))
_DOC: dict[str, Any] = json.loads(_RECORD.to_json())
_DOC["rounds"] = _DOC["rounds"][:2] + [
    {**_DOC["rounds"][2], "actions": _DOC["rounds"][2]["actions"][:6]}
]
_VALUE_PATHS = list(_paths(_DOC))
_OBJECT_PATHS = list(_objects(_DOC))

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.sampled_from([2**53, -(2**53), 2**53 - 1, 0, 1, 4, -1]),
    st.sampled_from(
        ["[0|0]", "[6|6]", "[1|0]", "draw", "pass", "lot", "finisher", "domino", "blocked", "0"]
    ),
    st.sampled_from(["18446744073709551615", "18446744073709551616", "007", '"', "a\\b"]),
    st.text(max_size=8),
    st.lists(st.sampled_from(["[0|1]", "[2|2]", 3, None]), max_size=3),
    st.just({}),
    st.just([]),
)


@given(st.lists(st.tuples(st.sampled_from(_VALUE_PATHS), _VALUES), min_size=1, max_size=3))
def test_a_damaged_record_gets_the_strict_readers_verdict(
    changes: list[tuple[tuple[object, ...], object]],
) -> None:
    """Whatever values are replaced, reading gives what the strict reader alone gives.

    The same record when it reads, the same message when it is refused; and
    the quick reader itself gives either that record or nothing.
    """
    doc = json.loads(json.dumps(_DOC))
    for path, value in changes:
        try:
            _at(doc, path[:-1])[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the place
    text = json.dumps(doc, separators=(",", ":"))
    strict = _strict(text)
    quick = _quick(text)
    assert quick is None or quick == strict
    assert _outcome(text) == strict


@given(
    st.sampled_from(_OBJECT_PATHS),
    st.data(),
)
def test_a_repeated_key_in_any_object_is_refused(
    path: tuple[object, ...], data: st.DataObject
) -> None:
    """A key written twice (the first value any JSON) is refused as the strict reader refuses it.

    The strict parser refuses it before either reader sees the document.
    """
    target = _at(_DOC, path)
    key = data.draw(st.sampled_from(sorted(target)))
    first = data.draw(st.sampled_from(["0", "7", "null", '"x"', '"[0|0]"', "[]", '{"a":"\\""}']))
    inner = json.dumps(target, separators=(",", ":"))
    text = json.dumps(_DOC, separators=(",", ":"))
    start = data.draw(st.sampled_from([i for i in range(len(text)) if text.startswith(inner, i)]))
    forged = inner.replace(f'"{key}":', f'"{key}":{first},"{key}":', 1)
    forged_text = text[:start] + forged + text[start + len(inner) :]
    assert _quick(forged_text) is None
    with pytest.raises(InvalidRecord, match="appears twice"):
        MatchRecord.from_json(forged_text)


@pytest.mark.parametrize(
    ("change", "reads"),
    [
        (lambda text: text.replace('"names":["seat 0"', '"names":["seat \\"0\\""', 1), True),
        (lambda text: text.replace('"names":["seat 0"', '"names":["seat \\u0030"', 1), True),
        (lambda text: text.replace('"players":4', '"players":4.0', 1), False),
        (lambda text: text.replace('"players":4', '"players":0000000000000000004', 1), False),
        (lambda text: text.replace('"winner":', '"winner":-0,"x":', 1), False),
        (lambda text: text.replace('"format_version":1', '"format_version":true', 1), False),
    ],
)
def test_texts_the_quick_reader_leaves_get_the_strict_readers_verdict(
    change: Any, reads: bool
) -> None:
    """An escaped quote or character, a float, a long number, an extra key: the strict verdict."""
    text = change(_RECORD.to_json())
    assert text != _RECORD.to_json()
    strict = _strict(text)
    assert isinstance(strict, MatchRecord) is reads
    assert _quick(text) in (None, strict)
    assert _outcome(text) == strict
