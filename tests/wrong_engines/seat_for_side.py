"""A wrong engine: with four players, the winner is the seat that reached the target.

With four players the scoring sides are partnerships, seat % 2, and
``winner`` names the side. The engine reports the seat instead. Seats 0 and 1
are their own sides' numbers, so only a match won by seat 2 or seat 3 shows
the gap.
"""

from __future__ import annotations

from minimal import Rules, serve


class SeatForSide(Rules):
    """Names the winning seat as the winner (the bug)."""

    def winning_side(self, seat: int, players: int) -> int:
        """The seat itself, not its side."""
        return seat


if __name__ == "__main__":
    serve(SeatForSide(), "wrong: the winning seat for the winning side")
