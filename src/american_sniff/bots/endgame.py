"""Exact play once the stock is empty: alpha-beta over the rest of the round.

With the stock empty nothing is left to chance within the round: a seat that
cannot place passes, and every hidden tile is in another hand. With two
players those tiles are all the opponent's, so the view shows the whole
position and a search of the rest of the round is exact play. With four the
hidden tiles split among three hands; the search bot samples splits that
agree with the view (:class:`~american_sniff.bots.Determiniser`) and searches
each exactly.

:func:`endgame_values` scores a position the way the search bot's playouts
do (:func:`outcome_value`, as
:func:`~american_sniff.bots.search.playout_value` scores a finished round): to the end of the
round, settlement included, and a won match worth the same however it is
won. The two sides' values are opposite (this seat's side gains what the
other loses), so one side maximises and the other minimises: an alpha-beta
search with a table of the positions already valued (reached by another
order of the same placements). It stops at the round's end, so it knows
nothing of the rounds after; and it is a search of one known position, so
with four players it assumes each sampled split is the truth.

A search is bounded by a number of *nodes* (positions made by
:func:`~american_sniff.apply`); one that needs more gives up and returns
None, so that a caller keeps within its budget.

Where the C extension of :mod:`american_sniff.batch` is built, a search with
no deadline runs in C (``_cendgame.c``, through
``american_sniff.bots._playouts.endgame_values_fast``): the same
positions in the same order, the same values and the same nodes spent, bit
for bit, many times faster. A search with a deadline stays in Python, which
reads the clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import apply
from ..moves import Move
from ..rules import side_of
from ..state import MatchState
from ._kernel import EndgameSearch
from ._playouts import endgame_values_fast, use_c_endgame

__all__ = ["endgame_values", "outcome_value"]

_INFINITY = float("inf")


def outcome_value(
    start: MatchState, end: MatchState, seat: int, scores: Sequence[int] | None = None
) -> float:
    """How good ``end`` is for ``seat``'s side compared with ``start``, by the scores alone.

    ``2 * target`` if ``seat``'s side has won the match at ``end``, and
    ``-2 * target`` if another side has: a won match is worth the same however
    it is won. Otherwise the points ``seat``'s side gained from ``start``'s
    scores to ``scores`` (by default ``end``'s) less the mean of what the
    other sides gained.

    >>> from american_sniff import new_match
    >>> state = new_match(2, seed=1)
    >>> outcome_value(state, state, 0, (15, 5))
    10.0
    """
    players = start.players
    mine = side_of(players, seat)
    if end.winner is not None:
        return float(2 * end.target if end.winner == mine else -2 * end.target)
    if scores is None:
        scores = end.scores
    gains = [after - before for after, before in zip(scores, start.scores, strict=True)]
    others = [gain for side, gain in enumerate(gains) if side != mine]
    return gains[mine] - sum(others) / len(others)


def endgame_values(
    state: MatchState,
    seat: int,
    moves: Sequence[Move],
    nodes: int,
    *,
    deadline: float | None = None,
) -> tuple[list[float], int] | None:
    """The exact value of each of ``moves`` in ``state`` for ``seat``'s side, and the nodes spent.

    ``state`` must be a position of two or four players with the stock
    empty, ``seat`` to move, and ``moves`` legal in it. A move's value is
    :func:`outcome_value` of the round's end
    (or the match's) under best play by both sides from there. Returns None
    if that takes more than ``nodes`` positions, or if the search is still
    going at ``deadline`` (a ``time.monotonic()`` time; None for no limit).

    >>> from american_sniff import apply, legal_moves, new_match
    >>> state = new_match(2, seed=9)
    >>> while state.stock_size or len(legal_moves(state)) < 2:
    ...     state = apply(state, legal_moves(state)[0])
    >>> [len(hand) for hand in state.hands], len(legal_moves(state))
    ([2, 2], 3)
    >>> endgame_values(state, state.turn, legal_moves(state), 1000)
    ([10.0, 0.0, 10.0], 9)
    >>> endgame_values(state, state.turn, legal_moves(state), 5) is None
    True

    :raises ValueError: if the number of players is not 2 or 4, the match
        is over, or the stock is not empty.
    """
    if state.players not in (2, 4):
        raise ValueError(f"an exact endgame needs 2 or 4 players, not {state.players}")
    if state.winner is not None:
        raise ValueError("the match is over: there is no endgame to search")
    if state.stock_size:
        raise ValueError(f"an exact endgame needs an empty stock; it holds {state.stock_size}")
    if deadline is None and use_c_endgame():
        return endgame_values_fast(state, seat, moves, nodes)
    search = EndgameSearch(state, seat, nodes, deadline is not None, deadline or 0.0)
    if len(moves) > search.left:
        return None
    search.left -= len(moves)
    values: list[float] = []
    for move in moves:
        value = search.value(apply(state, move), -_INFINITY, _INFINITY)
        if search.out:
            return None
        values.append(value)
    return values, nodes - search.left
