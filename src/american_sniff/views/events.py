"""Events: an action as a viewer sees it, and applying it to the view before.

:func:`~american_sniff.event_for` makes an event and
:func:`~american_sniff.apply_event` applies it; :func:`~american_sniff.views.events_since` gives a
reconnecting client every event it missed.

The event classes themselves are in :mod:`american_sniff.views.model`.
"""

from __future__ import annotations

from typing import Any, overload

import attrs

from ..engine import apply
from ..errors import IllegalMove, InvalidView
from ..layout import Layout
from ..moves import Draw, Place
from ..replayer import hands_as_dealt
from ..rules import side_count
from ..state import Action, MatchState
from .build import view_for
from .checks import check_event_on, event_log
from .model import PlayerView, SpectatorView, ViewEvent, tile_order

__all__ = [
    "EventsUnavailable",
    "apply_event",
    "event_for",
    "events_since",
]

# -- events ---------------------------------------------------------------------------


def event_for(
    state: MatchState, seat: int | None, *, view: SpectatorView | None = None
) -> ViewEvent:
    """The event of the action that led to ``state``, as ``seat`` (None: a spectator) sees it.

    ``apply_event(view_for(before, seat), event_for(after, seat))`` equals
    ``view_for(after, seat)``. It costs the same at any point of a round.
    A host that made ``view_for(state, seat)`` already (to send it too) may
    pass it as ``view``: the event is made from it, and the view is not
    made again. Another view gives another state's event.

    >>> from american_sniff import apply, legal_moves, new_match
    >>> state = new_match(2, seed=1)
    >>> after = apply(state, legal_moves(state)[0])
    >>> event = event_for(after, 0)
    >>> event.seq, str(event.action)
    (1, 'seat 1: [0|1] opens, sum 1, 0 points')
    >>> apply_event(view_for(state, 0), event) == view_for(after, 0)
    True

    :raises ValueError: if no action led to ``state`` (it starts the match),
        ``seat`` is neither None nor a seat of the match, or ``view`` is
        another viewer's.
    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    if view is None:
        view = view_for(state, seat)
    elif view.viewer != seat:
        raise ValueError(f"that view is not the viewer {seat!r}'s")
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


# -- the events a client missed -------------------------------------------------------


class EventsUnavailable(ValueError):
    """The events since a sequence number cannot be given from this state.

    A host answers it by sending the client a whole view (``view_for``)
    instead. The message says which of the three cases it is: the number is
    negative, ahead of the state, or before the earliest one the state can
    replay from (see :func:`events_since`).

    :ivar seq: The sequence number asked for.
    :ivar earliest: The earliest sequence number this state gives events since.
    :ivar latest: The state's own sequence number.
    """

    def __init__(self, message: str, *, seq: int, earliest: int, latest: int) -> None:
        super().__init__(message)
        self.seq = seq
        self.earliest = earliest
        self.latest = latest


def events_since(state: MatchState, seat: int | None, seq: int) -> tuple[ViewEvent, ...]:
    """The events, as ``seat`` (None: a spectator) sees them, from sequence number ``seq`` on.

    These are what a client whose view is at ``seq`` missed: applied in order
    to that view with :func:`~american_sniff.apply_event`, they give
    ``view_for(state, seat)``. The first has sequence number ``seq + 1`` and
    the last ``state.seq``; none when ``seq`` is ``state.seq``.

    A state holds its own round's actions and the action that ended the
    round before, so the earliest ``seq`` it can answer is the one before
    that action: ``state.info.actions_before - 1`` from round 2 on, and 0
    in round 1. The round is played again from its deal, so the cost grows
    with the round's actions (at most 112), not with the match's.

    >>> from american_sniff import apply, legal_moves, new_match, view_for
    >>> state = new_match(2, seed=1)
    >>> client = view_for(state, 0)              # the client's view, at seq 0
    >>> for _ in range(5):
    ...     state = apply(state, legal_moves(state)[0])
    >>> missed = events_since(state, 0, client.seq)
    >>> [event.seq for event in missed]
    [1, 2, 3, 4, 5]
    >>> for event in missed:
    ...     client = apply_event(client, event)
    >>> client == view_for(state, 0)
    True

    :raises EventsUnavailable: (a :class:`ValueError`) if ``seq`` is
        negative, greater than ``state.seq``, or earlier than the state can
        replay from.
    :raises ValueError: if ``seat`` is neither None nor a seat of the match,
        or the state's round does not play again to the state (a state made
        by hand, not by the engine).
    :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`
        or ``seq`` is not an integer.
    """
    if type(state) is not MatchState:
        raise TypeError(f"events_since() needs a MatchState, got {state!r}")
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise TypeError(f"the sequence number is an integer, got {seq!r}")
    view_for(state, seat)  # checks the seat
    latest = state.seq
    start = _round_start(state)
    earliest = start.seq - 1 if start.last_action is not None else start.seq
    if seq < 0 or seq > latest or seq < earliest:
        if seq < 0:
            why = "it is negative"
        elif seq > latest:
            why = f"the state is at {latest}, behind it"
        else:
            why = f"this state replays events from {earliest} on only: send a whole view"
        raise EventsUnavailable(
            f"no events since sequence number {seq}: {why}",
            seq=seq,
            earliest=earliest,
            latest=latest,
        )
    if seq == latest:
        return ()
    # The round is played again from its deal; each state from seq + 1 on
    # gives its event (the round's first state gives the action that ended
    # the round before, with the new round's view).
    events: list[ViewEvent] = []
    current = start
    if current.seq > seq:
        events.append(event_for(current, seat))
    try:
        for action in state.history:
            current = apply(current, action.move)
            if current.seq > seq:
                events.append(event_for(current, seat))
    except IllegalMove as error:
        raise ValueError(f"the state's round does not play again: {error}") from None
    if current != state:
        raise ValueError("the state's round does not play again to the state")
    return tuple(events)


def _round_start(state: MatchState) -> MatchState:
    """The first state of ``state``'s round, rebuilt from its deal and its actions."""
    info = state.info
    last = info.last_round
    scores = last.scores if last is not None else (0,) * side_count(info.players)
    try:
        hands = hands_as_dealt(state.hands, state.history)
    except ValueError as error:
        raise ValueError(f"the state's round does not play again: {error}") from None
    return MatchState(info, info.opener, hands, Layout.empty(), scores, None, None, 0)
