"""A wrong engine: it parses request lines however deeply they nest.

The protocol refuses a line whose arrays and objects nest deeper than 64 as
``bad_json``, before reading it as a request. This engine parses any depth:
a line just over the limit is read as a request (and refused for its keys,
``bad_request``), and a very deep one overflows its parser's recursion
(``internal``).
"""

from __future__ import annotations

from minimal import Engine, Rules, parse_unbounded, serve


class NoNestingLimit(Engine):
    """Reads lines with no nesting limit (the bug)."""

    parse = staticmethod(parse_unbounded)


if __name__ == "__main__":
    name = "wrong: no nesting limit"
    serve(Rules(), name, NoNestingLimit(Rules(), name))
