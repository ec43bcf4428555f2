r"""A wrong engine: an object's keys are matched as written, their escapes not decoded.

``"c\u006dd"`` is the key ``cmd``: the protocol compares keys as decoded.
This engine matches the key's text as written, so ``{"c\u006dd": "state"}``
has no ``cmd`` (``bad_request``) and ``{"cmd": ..., "c\u006dd": ...}`` has an
unknown key instead of a repeated one. The vector ``robustness/json-corners``
sends both.
"""

from __future__ import annotations

import re
from typing import Any

from minimal import Engine, Rules, parse_line, serve

#: A key as written: a string and the colon after it.
KEY = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)')


def as_written(line: str) -> str:
    """The line with each key's backslashes doubled, so that it reads as written."""
    return KEY.sub(lambda m: '"' + m.group(1).replace("\\", "\\\\") + '"' + m.group(2), line)


def parse_written_keys(line: str) -> Any:
    """The line's JSON, keys left as written (the bug)."""
    return parse_line(as_written(line))


class WrittenKeys(Engine):
    """Matches keys as written."""

    parse = staticmethod(parse_written_keys)


if __name__ == "__main__":
    serve(Rules(), "wrong: keys as written", WrittenKeys(Rules(), "wrong: keys as written"))
