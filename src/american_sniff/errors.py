"""The exceptions the library raises."""

from __future__ import annotations

__all__ = ["IllegalMove", "InvalidDeal"]


class IllegalMove(ValueError):
    """A move the rules do not allow in the given state.

    The message names the rule that refused it (not in hand, point not open,
    values do not match, must draw, must play the drawn tile, cannot pass,
    match over, ...). The state the move was tried on is unchanged: states are
    immutable.
    """


class InvalidDeal(ValueError):
    """A deal that cannot start a round.

    For example wrong hand sizes, missing or repeated tiles, or an opener that
    contradicts the rules.
    """
