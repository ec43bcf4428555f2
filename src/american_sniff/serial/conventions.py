"""The conventions every document shares: formats, versions, limits, texts, headers.

The names, numbers and limits of the formats, the text of a tile and of a
move, the header every document opens with, and the JSON Schemas that ship
with the package. See :mod:`american_sniff.serial` for the conventions.
"""

from __future__ import annotations

import json
from typing import Any

from .._json import deprecated
from ..moves import Move, parse_move
from ..rules import RULES_VERSION
from ..tiles import ALL_TILES, Tile, parse_tile

__all__ = [
    "FORMAT_VERSION",
    "MAX_SAFE_INTEGER",
    "MAX_STATE_BYTES",
    "SCHEMA_NAMES",
    "STATE_FORMAT",
    "format_schema",
    "move_text",
    "parse_move_text",
    "parse_tile_text",
    "tile_text",
]

#: The version of the JSON formats; it changes only when a format changes.
FORMAT_VERSION = 1
#: The ``format`` of a saved state.
STATE_FORMAT = "american-sniff/state"
#: The longest state text that loading reads: 1 MiB (a state is a few KB).
MAX_STATE_BYTES = 1 << 20
#: The largest integer a document may hold as a number: JavaScript's
#: ``Number.MAX_SAFE_INTEGER``. Larger values (seeds) are decimal strings.
MAX_SAFE_INTEGER = 2**53 - 1


# -- the schemas ----------------------------------------------------------------------

#: The formats that ship a JSON Schema, by the short name ``format_schema`` takes.
SCHEMA_NAMES = (
    "state",
    "view",
    "event",
    "record",
    "vectors",
    "vectors-manifest",
    "protocol-request",
    "protocol-answer",
    "report",
    "conformance-report",
)


def format_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a format, as parsed JSON.

    ``name`` is ``"state"``, ``"view"`` (a player's or a spectator's),
    ``"event"``, ``"record"``, ``"vectors"`` (a conformance vector file),
    ``"vectors-manifest"``, or ``"protocol-request"`` and
    ``"protocol-answer"`` (the engine protocol's lines, one definition per
    command under ``$defs``), ``"report"`` (the referee's) or
    ``"conformance-report"`` (the kit's); the schemas ship with the package as
    ``american_sniff/schemas/NAME.schema.json``. A document the library
    writes is valid against its schema; validity says nothing of the rules,
    which the readers check.

    :raises ValueError: if ``name`` is not one of those.
    """
    if name not in SCHEMA_NAMES:
        raise ValueError(f"no schema named {name!r}; the schemas are {', '.join(SCHEMA_NAMES)}")
    from importlib import resources  # noqa: PLC0415 - only schema users need it

    schemas = resources.files("american_sniff").joinpath("schemas")
    text = schemas.joinpath(f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


# -- text forms of tiles, points, moves and big integers ---------------------------------


def tile_text(tile: Tile) -> str:
    """A tile as the formats write it: ``"[1|4]"``."""
    return str(tile)


def move_text(move: Move) -> str:
    """A move as the formats write it (``str(move)``)."""
    return str(move)


def _parse_tile_text(text: str) -> Tile:
    return parse_tile(text, strict=True)


def _parse_move_text(text: str) -> Move:
    return parse_move(text, strict=True)


#: Deprecated: :func:`~american_sniff.parse_tile` with ``strict=True``.
parse_tile_text = deprecated(
    "american_sniff.serial.parse_tile_text", "parse_tile(text, strict=True)", _parse_tile_text
)
#: Deprecated: :func:`~american_sniff.parse_move` with ``strict=True``.
parse_move_text = deprecated(
    "american_sniff.serial.parse_move_text", "parse_move(text, strict=True)", _parse_move_text
)


# -- the tables of tiles' texts ---------------------------------------------------

#: Each tile by its text, for the signed path (which reads only the library's own text).
TILE_OF_TEXT = {str(tile): tile for tile in ALL_TILES}
#: Each tile's text, by its index.
_TILE_TEXTS: tuple[str, ...] = tuple(str(tile) for tile in ALL_TILES)
#: The JSON text (a quoted string) of each tile, by its index.
TILE_JSON: tuple[str, ...] = tuple(f'"{text}"' for text in _TILE_TEXTS)


# -- the header every document opens with ------------------------------------------


def document_header(document_format: str) -> dict[str, Any]:
    """The fields every JSON document of the library opens with: its format and the versions.

    >>> document_header(STATE_FORMAT)["format"] == STATE_FORMAT
    True
    """
    return {
        "format": document_format,
        "format_version": FORMAT_VERSION,
        "rules_version": RULES_VERSION,
    }


def json_words(value: object) -> str:
    """A value read from JSON, written as JSON writes it (``null``, not ``None``).

    Messages about a document quote what it holds in its own language; a
    missing key reads as ``missing``. Long values are cut to 60 characters.

    >>> json_words(None), json_words("x"), json_words([1, True])
    ('null', '"x"', '[1, true]')
    """
    if value is _MISSING:
        return "missing"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


_MISSING = object()


def check_header(data: dict[str, Any], expected: str, error: type[ValueError]) -> None:
    """Refuse a document of another format, format version or rules version."""
    kind = data.get("format", _MISSING)
    if kind != expected:
        raise error(f"the document's format is {json_words(kind)}, not {json_words(expected)}")
    version = data.get("format_version", _MISSING)
    if version != FORMAT_VERSION or type(version) is not int:
        raise error(
            f"format_version {json_words(version)} is not supported"
            f" (this library reads {FORMAT_VERSION})"
        )
    rules = data.get("rules_version", _MISSING)
    if rules != RULES_VERSION:
        raise error(
            f"rules_version {json_words(rules)} is not supported"
            f" (this library plays {json_words(RULES_VERSION)})"
        )
