r"""A wrong engine: a lone surrogate escape (``"\ud800"``) makes the line ``bad_json``.

Strict JSON readers of some languages refuse an escape of half a surrogate
pair, since it names no character. The protocol reads it as a string like
any other: a move of it is ``not_a_move``, a key of it an unknown key. The
vector ``robustness/json-corners`` sends both.
"""

from __future__ import annotations

from typing import Any

from minimal import Engine, Rules, parse_line, serve


def _lone(value: object) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, dict):
        return any(_lone(key) or _lone(item) for key, item in value.items())
    return isinstance(value, list) and any(_lone(item) for item in value)


def parse_refusing_surrogates(line: str) -> Any:
    """The line's JSON, refused if a string holds a lone surrogate (the bug)."""
    value = parse_line(line)
    if _lone(value):
        raise ValueError("a lone surrogate escape is no character")
    return value


class LoneSurrogates(Engine):
    """Refuses lone surrogate escapes."""

    parse = staticmethod(parse_refusing_surrogates)


if __name__ == "__main__":
    serve(Rules(), "wrong: lone surrogates", LoneSurrogates(Rules(), "wrong: lone surrogates"))
