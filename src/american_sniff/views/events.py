"""Events: an action as a viewer sees it, and applying it to the view before.

:func:`~american_sniff.event_for` makes an event and
:func:`~american_sniff.apply_event` applies it.

The event classes themselves are in :mod:`american_sniff.views.model`.
"""

from __future__ import annotations

from typing import Any, overload

import attrs

from ..errors import InvalidView
from ..moves import Draw, Place
from ..state import Action, MatchState
from .build import view_for
from .checks import check_event_on, event_log
from .model import PlayerView, SpectatorView, ViewEvent, tile_order

__all__ = [
    "apply_event",
    "event_for",
]

# -- events ---------------------------------------------------------------------------


def event_for(state: MatchState, seat: int | None) -> ViewEvent:
    """The event of the action that led to ``state``, as ``seat`` (None: a spectator) sees it.

    ``apply_event(view_for(before, seat), event_for(after, seat))`` equals
    ``view_for(after, seat)``. It costs the same at any point of a round.

    >>> from american_sniff import apply, legal_moves, new_match
    >>> state = new_match(2, seed=1)
    >>> after = apply(state, legal_moves(state)[0])
    >>> event = event_for(after, 0)
    >>> event.seq, str(event.action)
    (1, 'seat 1: [0|1] opens, sum 1, 0 points')
    >>> apply_event(view_for(state, 0), event) == view_for(after, 0)
    True

    :raises ValueError: if no action led to ``state`` (it starts the match),
        or ``seat`` is neither None nor a seat of the match.
    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    view = view_for(state, seat)
    action = view.last_action
    if action is None:
        raise ValueError("no action led to this state: it is the start of the match")
    started = action.round_result is not None
    if started:
        a = action
        action = Action(a.seat, a.move, a.tile, a.end_sum, a.points, a.scores, None, a.winner)
    return ViewEvent(
        viewer=seat,
        seq=view.seq,
        action=action,
        turn=view.turn,
        drawn=view.drawn if isinstance(view, PlayerView) else None,
        legal_moves=view.legal_moves if isinstance(view, PlayerView) else (),
        voids=view.voids,
        next_round=view if started else None,
    )


@overload
def apply_event(view: PlayerView, event: ViewEvent) -> PlayerView: ...


@overload
def apply_event(view: SpectatorView, event: ViewEvent) -> SpectatorView: ...


def apply_event(view: SpectatorView, event: ViewEvent) -> SpectatorView:
    """The view after ``event``, from the view before it; the same as ``view_for`` gives.

    It costs the same at any point of a round.

    An event that cannot follow ``view`` is refused, and ``view`` is left as
    it was (views are immutable): see
    :func:`~american_sniff.views.check_event` for what is checked (the
    actor is the seat to move, a draw needs stock, no seat places a tile the
    viewer holds, a placement is legal on the table and scores what the rules
    give, and what the event says follows from its action).

    :raises InvalidView: (a :class:`ValueError`) if the event is for another
        viewer, does not follow ``view`` (its sequence number is not the next
        one), or cannot follow it by the rules.
    """
    if event.viewer != view.viewer:
        raise InvalidView(f"the event is for viewer {event.viewer}, the view for {view.viewer}")
    if event.seq != view.seq + 1:
        raise InvalidView(
            f"the event has sequence number {event.seq}; the view expects {view.seq + 1}"
        )
    action = event.action
    log = event_log(view, event)
    layout = check_event_on(view, event, log)
    if event.next_round is not None:
        return event.next_round
    seat, move = action.seat, action.move
    hand_sizes = list(view.hand_sizes)
    stock_size = view.stock_size
    if type(move) is Place:
        hand_sizes[seat] -= 1
    elif type(move) is Draw:
        hand_sizes[seat] += 1
        stock_size -= 1
    changes: dict[str, Any] = {
        "turn": event.turn,
        "scores": action.scores,
        "winner": action.winner,
        "hand_sizes": tuple(hand_sizes),
        "stock_size": stock_size,
        "layout": layout,
        "voids": event.voids,
        "seq": event.seq,
        "ended": None,
        "log": log,
    }
    if isinstance(view, PlayerView):
        hand = view.hand
        if type(move) is Place and seat == view.seat:
            hand = tuple([tile for tile in hand if tile != move.tile])
        elif type(move) is Draw and action.tile is not None:
            hand = tuple(sorted((*hand, action.tile), key=tile_order))
        changes.update(hand=hand, drawn=event.drawn, legal_moves=event.legal_moves)
    return attrs.evolve(view, **changes)
