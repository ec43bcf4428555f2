"""A wrong engine: ``settle`` takes its ``scores`` without checking their length.

The protocol refuses a ``settle`` whose ``scores`` do not hold one integer
per side as ``bad_request``. This engine settles whatever it is given, and
its arithmetic fails on the wrong length, so it answers ``internal``.
"""

from __future__ import annotations

from minimal import Engine, Rules, serve


class UncheckedSettleScores(Engine):
    """Passes any scores on to the settlement (the bug)."""

    def check_scores(self, scores: list[int], players: int) -> None:
        """Check nothing."""


if __name__ == "__main__":
    serve(
        Rules(),
        "wrong: settle's scores unchecked",
        UncheckedSettleScores(Rules(), "wrong: settle's scores unchecked"),
    )
