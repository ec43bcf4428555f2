"""What the browser game sends to each browser: a seat's view, or the spectator view.

This module is the one place where the web game meets the library's hosting
loop (views, spectators, per-legal-move previews, the last action). Every
payload that leaves the server for a browser is built here from
:func:`~american_sniff.view_for` (a seat) or :func:`spectator_view` (anyone
else), and from nothing else: a browser never receives a field of the match
state directly.

Each document is the library's view document (``docs/formats.md``) with the
fields a client needs on top:

* ``seq``: how many actions the match has had (moves are refused unless they
  name the current one, so a stale click never lands);
* ``last_action``: the last action as the viewer may see it (another seat's
  drawn tile hidden);
* ``previews``: for each legal placement, in ``legal_moves`` order, the end
  sum and the points it would give (``null`` for a draw or a pass).
"""

from __future__ import annotations

from typing import Any

from ..moves import Place
from ..rules import placement_points
from ..serial import action_to_json
from ..state import Action, MatchState
from ..views import PlayerView, view_for, view_to_dict

__all__ = ["SPECTATOR", "seat_document", "spectator_document", "viewer_document"]

#: The viewer name of a spectator (anyone who is not a seat).
SPECTATOR = "spectator"


def seat_document(state: MatchState, seat: int, seq: int) -> dict[str, Any]:
    """Everything ``seat`` may see of ``state``, as JSON values (see the module's notes).

    >>> from american_sniff import new_match
    >>> doc = seat_document(new_match(2, seed=1), 0, 0)
    >>> doc["seat"], len(doc["hand"]), doc["seq"]
    (0, 7, 0)
    """
    view = view_for(state, seat)
    doc = view_to_dict(view)
    doc["seq"] = seq
    doc["last_action"] = _action_doc(view.last_action, seat)
    doc["previews"] = _previews(view)
    return doc


def spectator_document(state: MatchState, seq: int) -> dict[str, Any]:
    """What every seat may see of ``state`` and nothing any one seat alone may see.

    It is a view document with ``seat`` null, no hand, no drawn tile, no legal
    moves, and every drawn tile hidden (in this round's history and in the
    previous round's). The hands a settlement revealed are public and stay.

    >>> from american_sniff import new_match
    >>> doc = spectator_document(new_match(3, seed=5), 0)
    >>> doc["seat"], doc["hand"], doc["hand_sizes"]
    (None, [], [6, 6, 6])
    """
    # Seat 0's view holds its own hand, its drawn tiles and its legal moves:
    # each of them is taken out below, and nothing else in a view is private.
    doc = view_to_dict(view_for(state, 0))
    doc["seat"] = None
    doc["hand"] = []
    doc["drawn"] = None
    doc["legal_moves"] = []
    doc["history"] = [_hidden(action) for action in doc["history"]]
    last_round = doc["last_round"]
    if last_round is not None:
        last_round["history"] = [_hidden(action) for action in last_round["history"]]
    doc["seq"] = seq
    doc["last_action"] = _action_doc(state.last_action, None)
    doc["previews"] = []
    return doc


def viewer_document(state: MatchState, viewer: int | str, seq: int) -> dict[str, Any]:
    """:func:`seat_document` for a seat number, :func:`spectator_document` for :data:`SPECTATOR`.

    :raises ValueError: if ``viewer`` is neither a seat of the match nor
        :data:`SPECTATOR`.
    """
    if viewer == SPECTATOR:
        return spectator_document(state, seq)
    if isinstance(viewer, int) and not isinstance(viewer, bool):
        return seat_document(state, viewer, seq)
    raise ValueError(f"a viewer is a seat number or {SPECTATOR!r}, got {viewer!r}")


def _hidden(action: dict[str, Any]) -> dict[str, Any]:
    """An action document with its drawn tile hidden."""
    return {**action, "tile": None}


def _action_doc(action: Action | None, seat: int | None) -> dict[str, Any] | None:
    """The last action as ``seat`` (None: a spectator) may see it, with the round's end if any."""
    if action is None:
        return None
    doc = action_to_json(action, hide_tile=action.seat != seat)
    doc["ended_round"] = action.round_result is not None
    doc["won"] = action.winner is not None
    return doc


def _previews(view: PlayerView) -> list[dict[str, int] | None]:
    """For each legal move of ``view``: the end sum and points a placement gives, else None."""
    previews: list[dict[str, int] | None] = []
    for move in view.legal_moves:
        if isinstance(move, Place):
            end_sum = view.layout.place(move.tile, move.at).end_sum
            previews.append({"end_sum": end_sum, "points": placement_points(end_sum)})
        else:
            previews.append(None)
    return previews
