"""The vector files: their format, and reading them strictly.

A vector file is one JSON document in the library's conventions (see
``american_sniff.serial``): ``format`` is :data:`VECTORS_FORMAT`, with
``format_version``, ``rules_version``, the ``kind`` of its vectors (one of
:data:`KINDS`) and the ``vectors`` themselves, each with a unique ``id``, a
``description`` and the fields of its kind. ``docs/conformance.md`` describes
every field.

The shipped files are package data, read with :mod:`importlib.resources`;
:func:`load_vectors` reads them, or the files of another directory.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from ..errors import InvalidRecord
from ..records import MatchRecord
from ..serial import check_header, read_json, structure

__all__ = [
    "KINDS",
    "MAX_VECTOR_FILE_BYTES",
    "VECTORS_FORMAT",
    "InvalidVectors",
    "Vector",
    "load_vectors",
    "read_vectors",
]

#: The ``format`` of a vector file.
VECTORS_FORMAT = "american-sniff/vectors"
#: The kinds of vectors, in the order the kit runs them (one file each when shipped).
KINDS = ("positions", "settlement", "refusals", "matches")
#: The longest vector file read (8 MiB; the largest shipped file is a few hundred KB).
MAX_VECTOR_FILE_BYTES = 8 << 20


class InvalidVectors(ValueError):
    """A vector file that cannot be read: not JSON, not in the format, or a repeated id."""


@attrs.frozen
class Vector:
    """One conformance vector, as read from its file.

    :ivar id: The vector's unique name, its kind first: ``"positions/worked-example-10"``.
    :ivar kind: One of :data:`KINDS`.
    :ivar description: What the vector shows, in words.
    :ivar data: The vector's JSON object, every field of its kind (checked on loading).
    """

    id: str
    kind: str
    description: str
    data: Mapping[str, Any] = attrs.field(repr=False)


# -- the format, as documents the converter checks -----------------------------------


@attrs.frozen
class _Contribution:
    point: str
    value: int


@attrs.frozen
class _Table:
    open_points: list[str]
    contributions: list[_Contribution]
    end_sum: int
    points: int


@attrs.frozen
class _Step:
    move: str
    expect: _Table


@attrs.frozen
class _Position:
    id: str
    description: str
    steps: list[_Step]


@attrs.frozen
class _Settled:
    deductions: list[int]
    side_totals: list[int]
    scores: list[int]


@attrs.frozen
class _Settlement:
    id: str
    description: str
    players: int
    hands: list[list[str]]
    finisher: int | None
    scores: list[int]
    expect: _Settled


@attrs.frozen
class _Deal:
    hands: list[list[str]]
    stock: list[str]
    opener: int


@attrs.frozen
class _Start:
    players: int
    deals: list[_Deal]
    scores: list[int] | None = None
    round: int | None = None


@attrs.frozen
class _Refused:
    code: str
    legal_moves: list[str] | None = None


@attrs.frozen
class _Refusal:
    id: str
    description: str
    move: str
    expect: _Refused
    start: _Start | None = None
    moves: list[str] | None = None
    table: list[str] | None = None


@attrs.frozen
class _Match:
    id: str
    description: str
    record: dict[str, Any]


_DOCS: Mapping[str, type] = {
    "positions": _Position,
    "settlement": _Settlement,
    "refusals": _Refusal,
    "matches": _Match,
}


# -- reading -------------------------------------------------------------------------


def read_vectors(text: str | bytes, name: str = "the vector file") -> tuple[Vector, ...]:
    """The vectors of one vector file's text, each checked against its kind's format.

    :raises InvalidVectors: naming the file and the first problem.
    """
    data = read_json(text, max_bytes=MAX_VECTOR_FILE_BYTES, error=InvalidVectors, what=name)
    if not isinstance(data, dict):
        raise InvalidVectors(f"{name} must be a JSON object, got {type(data).__name__}")
    try:
        check_header(data, VECTORS_FORMAT, InvalidVectors)
    except InvalidVectors as exc:
        raise InvalidVectors(f"{name}: {exc}") from None
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _DOCS:
        raise InvalidVectors(f"{name}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    extra = set(data) - {"format", "format_version", "rules_version", "kind", "vectors"}
    if extra:
        raise InvalidVectors(f"{name}: unknown keys {', '.join(sorted(extra))}")
    items = data.get("vectors")
    if not isinstance(items, list):
        raise InvalidVectors(f"{name}: vectors must be a list")
    vectors = []
    for index, item in enumerate(items):
        where = f"{name}, vector {index}"
        structure(item, _DOCS[kind], InvalidVectors, where)
        vector_id = item["id"]
        if not vector_id.startswith(f"{kind}/"):
            raise InvalidVectors(f"{where}: the id {vector_id!r} must start with {kind + '/'!r}")
        if kind == "refusals" and (item.get("table") is None) == (item.get("start") is None):
            raise InvalidVectors(f"{where}: a refusal has either start and moves, or table")
        if kind == "matches":
            _check_record(item["record"], where)
        vectors.append(Vector(vector_id, kind, item["description"], item))
    return tuple(vectors)


def load_vectors(directory: str | Path | None = None) -> tuple[Vector, ...]:
    """Every vector of the ``*.json`` files of ``directory``, or of the shipped files.

    The vectors come kind by kind in :data:`KINDS` order, each file's in its
    own order.

    >>> vectors = load_vectors()
    >>> vectors[0].id
    'positions/worked-examples-1-9'

    :raises InvalidVectors: if a file cannot be read, or two vectors share an id.
    """
    if directory is None:
        folder = importlib.resources.files("american_sniff.conformance").joinpath("vectors")
        files = [
            (entry.name, entry.read_bytes())
            for entry in folder.iterdir()
            if entry.name.endswith(".json") and entry.is_file()
        ]
    else:
        path = Path(directory)
        if not path.is_dir():
            raise InvalidVectors(f"{path} is not a directory of vector files")
        files = [
            (entry.name, _read(entry))
            for entry in path.iterdir()
            if entry.name.endswith(".json") and entry.is_file()
        ]
    vectors = [vector for name, text in sorted(files) for vector in read_vectors(text, name)]
    if not vectors:
        where = "the package" if directory is None else str(directory)
        raise InvalidVectors(f"{where} holds no vectors (no .json vector file with a vector)")
    _check_unique(vectors)
    return tuple(sorted(vectors, key=lambda v: KINDS.index(v.kind)))


def _check_record(data: object, where: str) -> None:
    """Refuse a match vector whose record is not a finished match in the record format."""
    try:
        record = MatchRecord.from_dict(data)
    except InvalidRecord as exc:
        raise InvalidVectors(f"{where}: {exc}") from None
    if record.winner is None:
        raise InvalidVectors(f"{where}: the record must be of a finished match (it has no winner)")


def _read(path: Path) -> bytes:
    if path.stat().st_size > MAX_VECTOR_FILE_BYTES:
        raise InvalidVectors(f"{path.name} is longer than {MAX_VECTOR_FILE_BYTES} bytes")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InvalidVectors(f"{path.name} cannot be read: {exc.strerror}") from None


def _check_unique(vectors: Iterable[Vector]) -> None:
    seen: set[str] = set()
    for vector in vectors:
        if vector.id in seen:
            raise InvalidVectors(f"two vectors are named {vector.id!r}")
        seen.add(vector.id)
