"""The exceptions the library raises."""

from __future__ import annotations

__all__ = ["IllegalMove", "InvalidDeal", "InvalidState"]


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


class InvalidState(ValueError):
    """A match state, or the JSON of one, that the rules cannot reach.

    Raised by :func:`~american_sniff.validate_state` and
    :meth:`MatchState.from_json <american_sniff.MatchState.from_json>`; the
    message names the first inconsistency found (a missing or repeated tile,
    an illegal action in the history, a hand size no play could reach, a
    winner below the target, a wrong type, an unknown key, a wrong format or
    rules version, ...).
    """
