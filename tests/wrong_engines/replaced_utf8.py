"""A wrong engine: a line that is not UTF-8 is read with replacement characters.

The protocol's lines are UTF-8, and a line that is not is ``bad_json``. This
engine decodes each line leniently, as many readers do by default, putting
U+FFFD for every bad byte: a move of a stray byte becomes a move of U+FFFD,
refused as ``not_a_move``. The vector ``robustness/not-utf8`` sends such lines
as bytes (its steps' ``line_hex``).
"""

from __future__ import annotations

from minimal import Engine, Rules, serve


class ReplacedUtf8(Engine):
    """Reads bad bytes as U+FFFD (the bug)."""

    @staticmethod
    def decode(data: bytes) -> str:
        """The line's text, every byte that is not UTF-8 replaced."""
        return data.decode("utf-8", "replace")


if __name__ == "__main__":
    serve(Rules(), "wrong: bad UTF-8 replaced", ReplacedUtf8(Rules(), "wrong: bad UTF-8 replaced"))
