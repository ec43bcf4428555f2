"""A wrong engine: it reads its input through a 64 KiB line buffer.

A line longer than that is cut: the engine answers its first 64 KiB as if
they were a whole line (not JSON, so ``bad_json``), then gives up and exits,
as a Go program reading with a default ``bufio.Scanner`` does. The protocol
asks for lines of up to 1 MiB, the newline counted; only a vector with a
longer line than 64 KiB shows the gap (the longest request of a real match is
a few kilobytes).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from minimal import Engine, Rules

#: The engine's line buffer, the newline counted.
BUFFER = 64 << 10


class EngineExited(Exception):
    """The engine has exited: it answers nothing more."""


class ShortLineBuffer(Engine):
    """Answers the first 64 KiB of a longer line, then exits (the bug)."""

    def __init__(self, rules: Rules, name: str) -> None:
        super().__init__(rules, name)
        self.exited = False

    def line(self, line: str) -> dict[str, Any]:
        """The answer to the buffer's worth of ``line``; after a cut line, nothing."""
        if self.exited:
            raise EngineExited("the engine exited after a line longer than its buffer")
        data = line.encode("utf-8")
        if len(data) + 1 > BUFFER:
            self.exited = True
            return super().line(data[: BUFFER - 1].decode("utf-8", "replace"))
        return super().line(line)


def main() -> None:
    """Serve on standard input and output until a line overflows the buffer."""
    engine = ShortLineBuffer(Rules(), "wrong: a 64 KiB line buffer")
    while True:
        raw = sys.stdin.buffer.readline(BUFFER)
        if not raw:
            return
        try:
            answer = engine.line(raw.decode("utf-8", "replace").removesuffix("\n"))
        except EngineExited:
            return
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if not raw.endswith(b"\n") or (answer.get("ok") and answer.get("quit")):
            return


if __name__ == "__main__":
    main()
