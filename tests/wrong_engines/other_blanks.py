"""A wrong engine: every Unicode blank is a blank between JSON's tokens.

JSON's blanks are space, tab, line feed and carriage return; a form feed, a
vertical tab, a no-break space or a line separator between tokens make the
line ``bad_json``. This engine skips them as a tokenizer built on a language's
"is whitespace" test does. The vector ``robustness/json-corners`` sends such lines.
"""

from __future__ import annotations

import re
from typing import Any

from minimal import Engine, Rules, parse_line, serve

#: Every character Unicode counts as a blank (White_Space) but JSON does not.
OTHER_BLANKS = re.compile(r"[^\S \t\n\r\x1c-\x1f]")


def parse_any_blank(line: str) -> Any:
    """The line's JSON, any Unicode blank taken for a space (the bug)."""
    return parse_line(OTHER_BLANKS.sub(" ", line))


class OtherBlanks(Engine):
    """Skips every Unicode blank."""

    parse = staticmethod(parse_any_blank)


if __name__ == "__main__":
    serve(Rules(), "wrong: any blank", OtherBlanks(Rules(), "wrong: any blank"))
