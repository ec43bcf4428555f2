r"""A wrong engine: a repeated key is found only when it is written the same way twice.

The engine decodes keys (``"c\u006dd"`` is ``cmd``), but looks for repeats
among the keys as written, so ``{"cmd": "state", "c\u006dd": "legal"}``
passes and the last value wins. The protocol compares keys as decoded: a
repeat, ``bad_json``. The vector ``robustness/json-corners`` sends such lines.
"""

from __future__ import annotations

import json
from typing import Any

from minimal import Engine, Rules, _no_float, _safe_int, parse_line, serve
from written_keys import as_written


def parse_written_repeats(line: str) -> Any:
    """The line's JSON; repeats looked for among the keys as written (the bug)."""
    parse_line(as_written(line))  # refuses a key written twice the same way
    return json.loads(line, parse_float=_no_float, parse_int=_safe_int, parse_constant=_no_float)


class WrittenKeyRepeats(Engine):
    """Finds repeated keys as written only."""

    parse = staticmethod(parse_written_repeats)


if __name__ == "__main__":
    serve(Rules(), "wrong: repeats as written", WrittenKeyRepeats(Rules(), "wrong: repeats"))
