"""A wrong engine: the player who went out gains what the other sides lose in settlement.

That is the scoring of some other All Fives games; under these rules
settlement only deducts, and the finisher gains nothing.
"""

from __future__ import annotations

from minimal import Rules, Tile, serve


class FinisherGains(Rules):
    """Credits the finisher's side with the other sides' rounded hands."""

    def settle(
        self, players: int, hands: list[list[Tile]], finisher: int | None, scores: list[int]
    ) -> tuple[list[int], list[int], list[int]]:
        """Settle as the rules do, then credit the finisher (the bug)."""
        deductions, totals, after = super().settle(players, hands, finisher, scores)
        if finisher is not None:
            side = finisher % 2 if players == 4 else finisher
            after[side] += sum(total for other, total in enumerate(totals) if other != side)
        return deductions, totals, after


if __name__ == "__main__":
    serve(FinisherGains(), "wrong: the finisher gains")
