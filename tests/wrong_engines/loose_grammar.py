"""A wrong engine: it reads move texts by a pattern of its own, not by the grammar's steps.

A text that ends with `` opens`` but has no tile before it (``"[1|4]  opens"``,
``" opens"``) is ``not_a_tile`` by the grammar of docs/protocol.md; this
engine's pattern finds no move form in it and answers ``not_a_move``. Every
real move reads the same, so only odd texts show the gap: the vector
``refusals/move-texts`` does, and so does the lockstep fuzzer.
"""

from __future__ import annotations

import re

from minimal import Point, Rules, Tile, read_move, serve

_FORM = re.compile(r"draw|pass|\[\d\|\d\] opens|\[\d\|\d\] on .*")


class LooseGrammar(Rules):
    """Reads a text as no move unless it matches its pattern (the bug)."""

    @staticmethod
    def read_move(move: str) -> tuple[str, Tile | None, Point | None, set[str]]:
        """not_a_move for any text its pattern does not match; else the grammar's reading."""
        if _FORM.fullmatch(move) is None:
            return "none", None, None, {"not_a_move"}
        return read_move(move)


if __name__ == "__main__":
    serve(LooseGrammar(), "wrong: a loose move grammar")
