"""Making views: :func:`~american_sniff.view_for` and :func:`~american_sniff.spectator_view`."""

from __future__ import annotations

from typing import overload

import attrs

from ..engine import legal_moves
from ..rules import TARGET
from ..state import Action, ActionLog, MatchState, RoundResult, action_node, check_seat, log_of
from .facts import hidden_log, seen_after
from .model import PUBLIC_LIMIT, Node, PlayerView, SpectatorView
from .writer import keep_hidden_text

__all__ = [
    "spectator_view",
    "view_for",
]

# -- views ---------------------------------------------------------------------------


@overload
def view_for(state: MatchState, seat: int, *, last_round_history: bool = False) -> PlayerView: ...


@overload
def view_for(
    state: MatchState, seat: None, *, last_round_history: bool = False
) -> SpectatorView: ...


def view_for(
    state: object, seat: int | None, *, last_round_history: bool = False
) -> PlayerView | SpectatorView:
    """What ``seat`` may see of ``state``; with ``seat=None``, what a spectator may see.

    The view costs the same at any point of a round (see the module's notes).
    The previous round's actions are left out unless ``last_round_history``.

    >>> from american_sniff import new_match
    >>> view = view_for(new_match(2, seed=1), 0)
    >>> len(view.hand), view.hand_sizes, view.stock_size, view.seq
    (7, (7, 7), 14, 0)

    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    :raises ValueError: if ``seat`` is neither None nor a seat of the match.
    """
    if type(state) is not MatchState:
        raise TypeError(f"view_for() needs a MatchState, got {state!r}")
    info = state.info
    players = info.players
    if seat is not None:
        check_seat(players, seat)
    layout = state.layout
    log: Node = log_of(state)
    viewer = players if seat is None else seat
    seen = seen_after(log, players, layout, viewer)
    hidden = hidden_log(log, viewer)
    keep_hidden_text(log, hidden, viewer)
    last = info.last_round
    public_result = None if last is None else _public_result(last, viewer, last_round_history)
    ended = None if seen.actions else _ended(state, viewer, last_round_history)
    hand_sizes = tuple([len(hand) for hand in state.hands])
    stock_size = len(info.deck) - state.drawn_count
    seq = info.actions_before + seen.actions
    # What every viewer sees: a spectator's view, and the first fields of a player's.
    public = {
        "players": players,
        "round": info.round,
        "opener": info.opener,
        "turn": state.turn,
        "target": TARGET[players],
        "scores": state.scores,
        "winner": state.winner,
        "hand_sizes": hand_sizes,
        "stock_size": stock_size,
        "layout": layout,
        "last_round": public_result,
        "voids": seen.void_sets,
        "seq": seq,
        "log": hidden,
        "ended": ended,
    }
    if seat is None:
        return SpectatorView(**public)
    to_move = state.winner is None and state.turn == seat
    return PlayerView(
        **public,
        seat=seat,
        hand=state.hands[seat],
        drawn=state.drawn if to_move else None,
        legal_moves=legal_moves(state) if to_move else (),
    )


def spectator_view(state: MatchState, *, last_round_history: bool = False) -> SpectatorView:
    """What a spectator may see of ``state``: ``view_for(state, None)``.

    Everything every seat may see, and nothing any one seat alone may see: no
    hand, no drawn tile, no legal moves, and no tile drawn by anyone.

    >>> from american_sniff import new_match
    >>> view = spectator_view(new_match(3, seed=1))
    >>> view.viewer, view.hand_sizes, view.stock_size
    (None, (6, 6, 6), 10)

    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    return view_for(state, None, last_round_history=last_round_history)


#: The public forms of the last rounds' results, by the result's id (the entry
#: holds the result, so the id cannot be reused while it lives).
_PUBLIC: dict[tuple[int, int, bool], tuple[RoundResult, RoundResult]] = {}


def _public_result(result: RoundResult, viewer: int, with_history: bool) -> RoundResult:
    """``result`` without its history, or with the tiles ``viewer`` may not see hidden in it.

    Made once per result and viewer: every view of the round shares it.
    """
    key = (id(result), viewer, with_history)
    entry = _PUBLIC.get(key)
    if entry is not None and entry[0] is result:
        return entry[1]
    if len(_PUBLIC) >= PUBLIC_LIMIT:
        _PUBLIC.clear()
    public = _hide_in_result(result, viewer, with_history)
    _PUBLIC[key] = (result, public)
    return public


def _hide_in_result(result: RoundResult, viewer: int, with_history: bool) -> RoundResult:
    """``result`` without its history, or with the tiles ``viewer`` may not see hidden in it."""
    log: ActionLog = None
    if with_history:
        for action in result.history:
            tile = action.tile if action.seat == viewer else None
            log = action_node(
                action.seat, action.move, tile, action.end_sum, action.points, action.scores, log
            )
    # Built field by field, as evolve(log=log) would, without its generic walk of the fields.
    return RoundResult(
        round=result.round,
        end=result.end,
        finisher=result.finisher,
        layout=result.layout,
        hands=result.hands,
        deductions=result.deductions,
        scores=result.scores,
        log=log,
        given=result.given,
    )


def _ended(state: MatchState, viewer: int, last_round_history: bool) -> Action | None:
    """In a round's first state, the action that ended the round before, as ``viewer`` sees it."""
    action = state.last_action
    if action is None:
        return None
    result = action.round_result
    assert result is not None  # a round's first state: the round before ended
    public = _public_result(result, viewer, last_round_history)
    tile = action.tile if action.seat == viewer else None
    return attrs.evolve(action, tile=tile, round_result=public)
