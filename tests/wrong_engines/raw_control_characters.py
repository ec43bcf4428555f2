"""A wrong engine: a raw control character inside a string is read as part of it.

JSON forbids the characters U+0000 to U+001F unescaped in a string, and the
protocol answers such a line ``bad_json``; this engine's reader is lenient
(as Python's is with ``strict=False``), so a move with a raw tab is read, and
refused as ``not_a_move``. The vector ``robustness/json-corners`` sends such lines.
"""

from __future__ import annotations

import json
from typing import Any

from minimal import MAX_DEPTH, Engine, Rules, _no_float, _pairs, _safe_int, depth, serve


def parse_lenient_strings(line: str) -> Any:
    """The line's JSON, raw control characters allowed in strings (the bug)."""
    if depth(line) > MAX_DEPTH:
        raise ValueError(f"the line nests deeper than {MAX_DEPTH}")
    if not line.strip():
        raise ValueError("the line is empty")
    return json.loads(
        line,
        strict=False,
        parse_float=_no_float,
        parse_int=_safe_int,
        parse_constant=_no_float,
        object_pairs_hook=_pairs,
    )


class RawControlCharacters(Engine):
    """Reads raw control characters in strings."""

    parse = staticmethod(parse_lenient_strings)


if __name__ == "__main__":
    serve(Rules(), "wrong: raw controls", RawControlCharacters(Rules(), "wrong: raw controls"))
