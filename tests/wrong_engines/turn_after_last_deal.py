"""A wrong engine: after the last given deal ends blocked, the move answer keeps a turn.

Once a match from given deals (and no seed) has played its last deal, no
round follows: the answer to the move that ended it has ``turn`` null, and
``legal``, ``move`` and ``state`` then answer ``no_deal``. This engine nulls
the turn only when a player went out (it looks for the finisher of the round
that has no deal), so after a blocked last round it names a seat to move.
"""

from __future__ import annotations

from typing import Any

from minimal import Engine, Match, Rules, serve


class KeptTurnMatch(Match):
    """A match whose move answers keep the turn after a blocked last round (the bug)."""

    def shown_turn(self, round_end: dict[str, Any] | None) -> int | None:
        """Null after a win, or after the last deal when a player went out; else the turn."""
        went_out = round_end is not None and round_end["finisher"] is not None
        if self.winner is not None or (self.dealt_out and went_out):
            return None
        return self.turn


class TurnAfterLastDeal(Engine):
    """Plays :class:`KeptTurnMatch` matches."""

    match_class = KeptTurnMatch


if __name__ == "__main__":
    name = "wrong: turn kept after the last deal"
    serve(Rules(), name, TurnAfterLastDeal(Rules(), name))
