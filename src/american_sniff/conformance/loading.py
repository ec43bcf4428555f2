"""The vector files: their format, and reading them strictly.

A vector file is one JSON document in the library's conventions (see
``american_sniff.serial``): ``format`` is :data:`VECTORS_FORMAT`, with
``format_version`` (:data:`VECTORS_FORMAT_VERSION`), ``rules_version``, the
``kind`` of its vectors (one of :data:`KINDS`) and the ``vectors``
themselves, each with a unique ``id``, a ``description``, the features it
``requires``, and its ``steps``: requests (or raw lines) each with the whole
expected answer. A perft vector holds counts instead of steps. The ``order``
file also lists, under ``exclusive``, the adjacent pairs of the refusal order
that no move can break together (:func:`exclusive_pairs`).
``docs/conformance.md`` describes every field.

The shipped files are package data, read with :mod:`importlib.resources`;
:func:`load_vectors` reads them, or the files of another directory.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from .. import __version__
from ..rules import RULES_VERSION
from ..serial import read_json
from .protocol import PROTOCOL_VERSION

__all__ = [
    "KINDS",
    "MANIFEST_FORMAT",
    "MANIFEST_NAME",
    "MAX_VECTOR_FILE_BYTES",
    "VECTORS_FORMAT",
    "VECTORS_FORMAT_VERSION",
    "InvalidVectors",
    "Vector",
    "exclusive_pairs",
    "export_vectors",
    "load_vectors",
    "manifest_schema",
    "read_vectors",
    "step_bytes",
    "step_line",
    "vectors_schema",
]

#: The ``format`` of a vector file.
VECTORS_FORMAT = "american-sniff/vectors"
#: The kinds of vectors, in the order the kit runs them (one file each when shipped).
KINDS = (
    "positions",
    "settlement",
    "refusals",
    "order",
    "robustness",
    "seeds",
    "perft",
    "matches",
)
#: The version of the vector format: 2 holds every request with its whole expected answer.
VECTORS_FORMAT_VERSION = 2
#: The longest vector file read (8 MiB; the largest shipped file is a few hundred KB).
MAX_VECTOR_FILE_BYTES = 8 << 20

#: The ``format`` of the manifest that :func:`export_vectors` writes beside the files.
MANIFEST_FORMAT = "american-sniff/vectors-manifest"
#: The manifest's file name (:func:`load_vectors` does not read it as vectors).
MANIFEST_NAME = "manifest.json"

_T = TypeVar("_T")


class InvalidVectors(ValueError):
    """A vector file that cannot be read: not JSON, not in the format, or a repeated id."""


@attrs.frozen
class Vector:
    """One conformance vector, as read from its file.

    :ivar id: The vector's unique name, its kind first: ``"positions/worked-example-10"``.
    :ivar kind: One of :data:`KINDS`.
    :ivar description: What the vector shows, in words.
    :ivar requires: The ``hello`` features an engine needs for the vector
        (``"seed"``); an engine without them skips it.
    :ivar fresh: Whether the vector starts from a fresh engine (it sends its
        own ``hello``, and may end with ``quit``).
    :ivar data: The vector's JSON object, every field of its kind (checked on loading).
    """

    id: str
    kind: str
    description: str
    requires: tuple[str, ...] = ()
    fresh: bool = False
    data: Mapping[str, Any] = attrs.field(repr=False, factory=dict)


# -- reading -------------------------------------------------------------------------

_TOP_KEYS = frozenset({"format", "format_version", "rules_version", "kind", "vectors"})
#: The order file's extra key: the pairs of the refusal order no move can break together.
_EXCLUSIVE = "exclusive"
_EXCLUSIVE_KEYS = frozenset({"first", "second", "why"})
_STEP_KEYS = frozenset({"at", "request", "line", "line_hex", "pad_to", "expect"})
#: The keys of which a step holds exactly one: what it sends.
_SENT_KEYS = ("request", "line", "line_hex")
#: A ``line_hex``: pairs of lowercase hex digits, none of them a newline (``0a``).
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_VECTOR_KEYS = frozenset({"id", "description", "requires", "fresh", "steps"})
_PERFT_KEYS = frozenset({"id", "description", "requires", "start", "depth", "counts", "divide"})


def read_vectors(text: str | bytes, name: str = "the vector file") -> tuple[Vector, ...]:
    """The vectors of one vector file's text, each checked against the format.

    :raises InvalidVectors: naming the file and the first problem.
    """
    data = read_json(text, max_bytes=MAX_VECTOR_FILE_BYTES, error=InvalidVectors, what=name)
    if not isinstance(data, dict):
        raise InvalidVectors(f"{name} must be a JSON object, got {type(data).__name__}")
    if data.get("format") != VECTORS_FORMAT:
        raise InvalidVectors(
            f"{name}: format must be {VECTORS_FORMAT!r}, got {data.get('format')!r}"
        )
    if data.get("format_version") != VECTORS_FORMAT_VERSION:
        raise InvalidVectors(
            f"{name}: format_version {data.get('format_version')!r} is not supported "
            f"(this library reads version {VECTORS_FORMAT_VERSION})"
        )
    if data.get("rules_version") != RULES_VERSION:
        raise InvalidVectors(
            f"{name}: rules_version {data.get('rules_version')!r} is not {RULES_VERSION!r}"
        )
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise InvalidVectors(f"{name}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    extra = set(data) - _TOP_KEYS - ({_EXCLUSIVE} if kind == "order" else set())
    if extra:
        raise InvalidVectors(f"{name}: unknown keys {', '.join(sorted(extra))}")
    if _EXCLUSIVE in data:
        _check_exclusive(data[_EXCLUSIVE], name)
    items = data.get("vectors")
    if not isinstance(items, list):
        raise InvalidVectors(f"{name}: vectors must be a list")
    vectors = []
    for index, item in enumerate(items):
        where = f"{name}, vector {index}"
        vectors.append(_vector(item, kind, where))
    return tuple(vectors)


def _vector(item: object, kind: str, where: str) -> Vector:
    if not isinstance(item, dict):
        raise InvalidVectors(f"{where} must be an object")
    _keys(item, _PERFT_KEYS if kind == "perft" else _VECTOR_KEYS, where)
    ident = _field(item, "id", str, where)
    description = _field(item, "description", str, where)
    if not ident.startswith(f"{kind}/"):
        raise InvalidVectors(f"{where}: the id {ident!r} must start with {kind + '/'!r}")
    requires = _field(item, "requires", list, where)
    if not all(isinstance(feature, str) for feature in requires):
        raise InvalidVectors(f"{where}: requires must be a list of strings")
    fresh = item.get("fresh", False)
    if not isinstance(fresh, bool):
        raise InvalidVectors(f"{where}: fresh must be true or false")
    if kind == "perft":
        _check_perft(item, where)
    else:
        steps = _field(item, "steps", list, where)
        if not steps:
            raise InvalidVectors(f"{where}: steps must not be empty")
        for number, step in enumerate(steps):
            _check_step(step, f"{where}, step {number}")
    return Vector(ident, kind, description, tuple(requires), fresh, item)


def _keys(item: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    extra = set(item) - set(allowed)
    if extra:
        raise InvalidVectors(f"{where}: unknown keys {', '.join(sorted(extra))}")


def _field(item: Mapping[str, Any], key: str, kind: type[_T], where: str) -> _T:
    value = item.get(key)
    if type(value) is not kind:
        raise InvalidVectors(f"{where}: {key} must be a {kind.__name__}, got {value!r:.80}")
    return value


def _check_step(step: object, where: str) -> None:
    if not isinstance(step, dict):
        raise InvalidVectors(f"{where} must be an object")
    _keys(step, _STEP_KEYS, where)
    _field(step, "at", str, where)
    if sum(key in step for key in _SENT_KEYS) != 1:
        raise InvalidVectors(f"{where}: a step has exactly one of request, line or line_hex")
    if "request" in step:
        _field(step, "request", dict, where)
    elif "line_hex" in step:
        _check_hex(_field(step, "line_hex", str, where), where)
    else:
        line = _field(step, "line", str, where)
        if "\n" in line:
            raise InvalidVectors(f"{where}: a line must not hold a newline")
        if "pad_to" in step and _field(step, "pad_to", int, where) < len(line.encode("utf-8")):
            raise InvalidVectors(f"{where}: pad_to is shorter than the line")
    if "pad_to" in step and "line" not in step:
        raise InvalidVectors(f"{where}: pad_to goes with line only")
    expect = _field(step, "expect", dict, where)
    if type(expect.get("ok")) is not bool:
        raise InvalidVectors(f"{where}: expect must hold ok, true or false")


def _check_hex(text: str, where: str) -> None:
    """Refuse a ``line_hex`` that is not whole bytes of lowercase hex, or holds a newline."""
    if not _HEX.fullmatch(text):
        raise InvalidVectors(f"{where}: line_hex must be pairs of lowercase hex digits")
    if any(text[i : i + 2] == "0a" for i in range(0, len(text), 2)):
        raise InvalidVectors(f"{where}: line_hex must not hold a newline (0a)")


def _check_exclusive(entries: object, name: str) -> None:
    if not isinstance(entries, list):
        raise InvalidVectors(f"{name}: exclusive must be a list")
    for number, entry in enumerate(entries):
        where = f"{name}, exclusive {number}"
        if not isinstance(entry, dict):
            raise InvalidVectors(f"{where} must be an object")
        missing = _EXCLUSIVE_KEYS - set(entry)
        if missing:
            raise InvalidVectors(f"{where}: missing keys {', '.join(sorted(missing))}")
        _keys(entry, _EXCLUSIVE_KEYS, where)
        for key in sorted(_EXCLUSIVE_KEYS):
            _field(entry, key, str, where)


def step_line(step: Mapping[str, Any]) -> str:
    """The text a step with ``line`` sends (without its newline): ``pad_to`` applied.

    A step may give ``pad_to``, a length in bytes: the line is then followed by
    spaces until it is that long in UTF-8, so that a line near the protocol's
    1 MiB limit is shipped as a few bytes.

    >>> step_line({"line": '{"cmd": "state"}', "pad_to": 20})
    '{"cmd": "state"}    '
    """
    line: str = step["line"]
    size: int = step.get("pad_to", 0)
    return line + " " * (size - len(line.encode("utf-8")))


def step_bytes(step: Mapping[str, Any]) -> bytes:
    r"""The bytes a step sends (without its newline), whichever of its three keys it has.

    A ``request`` is sent as compact JSON, a ``line`` as UTF-8 (``pad_to``
    applied), and a ``line_hex`` as the bytes its hex digits spell: a line
    that is not UTF-8 text, which a JSON file cannot hold as a string.

    >>> step_bytes({"line_hex": "7bff7d"})
    b'{\xff}'
    >>> step_bytes({"request": {"cmd": "state"}})
    b'{"cmd":"state"}'
    """
    if "line_hex" in step:
        return bytes.fromhex(step["line_hex"])
    if "line" in step:
        return step_line(step).encode("utf-8")
    return json.dumps(step["request"], separators=(",", ":")).encode("utf-8")


def _check_perft(item: Mapping[str, Any], where: str) -> None:
    _field(item, "start", dict, where)
    depth = _field(item, "depth", int, where)
    counts = _field(item, "counts", list, where)
    if depth < 1 or len(counts) != depth or not all(type(c) is int for c in counts):
        raise InvalidVectors(f"{where}: counts must hold one integer per depth 1 to {depth}")
    for number, entry in enumerate(_field(item, "divide", list, where)):
        here = f"{where}, divide {number}"
        if not isinstance(entry, dict):
            raise InvalidVectors(f"{here} must be an object")
        _keys(entry, ("move", "count"), here)
        _field(entry, "move", str, here)
        _field(entry, "count", int, here)


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
            if entry.name.endswith(".json") and entry.is_file() and entry.name != MANIFEST_NAME
        ]
    vectors = [vector for name, text in sorted(files) for vector in read_vectors(text, name)]
    if not vectors:
        where = "the package" if directory is None else str(directory)
        raise InvalidVectors(f"{where} holds no vectors (no .json vector file with a vector)")
    _check_unique(vectors)
    return tuple(sorted(vectors, key=lambda v: KINDS.index(v.kind)))


def exclusive_pairs(directory: str | Path | None = None) -> tuple[tuple[str, str, str], ...]:
    """The pairs of the refusal order that no move can break together, from the order file.

    Each is ``(first, second, why)``: two adjacent codes of the documented
    order (docs/protocol.md, "The order of the codes") and the reason no
    single move breaks both rules, so that no ``order/...`` vector shows them.
    Read from ``order.json`` of ``directory``, or of the shipped files.

    >>> ("must_place", "must_draw") in {pair[:2] for pair in exclusive_pairs()}
    True

    :raises InvalidVectors: if the order file cannot be read.
    """
    name = "order.json"
    if directory is None:
        folder = importlib.resources.files("american_sniff.conformance").joinpath("vectors")
        text = folder.joinpath(name).read_bytes()
    else:
        path = Path(directory) / name
        if not path.is_file():
            raise InvalidVectors(f"{path} is not a vector file")
        text = _read(path)
    read_vectors(text, name)  # the whole file is checked, its exclusive pairs included
    data = read_json(text, max_bytes=MAX_VECTOR_FILE_BYTES, error=InvalidVectors, what=name)
    return tuple(
        (entry["first"], entry["second"], entry["why"]) for entry in data.get(_EXCLUSIVE, [])
    )


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


def export_vectors(directory: str | Path) -> dict[str, Any]:
    """Write the shipped vector files, byte for byte, and a manifest into ``directory``.

    The manifest (``manifest.json``, :data:`MANIFEST_FORMAT`) names the
    versions the files follow and, for each file, its kind, how many vectors
    it holds, its size and its SHA-256, so that the files can be published
    as a release asset and checked after download. Returns the manifest.

    :raises InvalidVectors: if ``directory`` exists and is not a directory.
    """
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise InvalidVectors(f"{path} exists and is not a directory")
    path.mkdir(parents=True, exist_ok=True)
    folder = importlib.resources.files("american_sniff.conformance").joinpath("vectors")
    entries = []
    for kind in KINDS:
        name = f"{kind}.json"
        data = folder.joinpath(name).read_bytes()
        (path / name).write_bytes(data)
        entries.append(
            {
                "name": name,
                "kind": kind,
                "vectors": len(read_vectors(data, name)),
                "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    manifest = {
        "format": MANIFEST_FORMAT,
        "format_version": 1,
        "vectors_format_version": VECTORS_FORMAT_VERSION,
        "rules_version": RULES_VERSION,
        "protocol_version": PROTOCOL_VERSION,
        "library_version": __version__,
        "files": entries,
    }
    text = json.dumps(manifest, indent=2) + "\n"
    (path / MANIFEST_NAME).write_text(text, encoding="utf-8")
    return manifest


def vectors_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a vector file, as parsed JSON.

    It ships as ``american_sniff/schemas/vectors.schema.json``. A file is valid
    against it exactly when :func:`read_vectors` reads it, but for what JSON
    Schema cannot say (ids unique and prefixed by the kind, one perft count
    per depth, integers only, no repeated key, the size limit).
    """
    return _schema("vectors.schema.json")


def manifest_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the manifest :func:`export_vectors` writes."""
    return _schema("vectors-manifest.schema.json")


def _schema(name: str) -> dict[str, Any]:
    text = (
        importlib.resources.files("american_sniff").joinpath(f"schemas/{name}").read_text("utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema
