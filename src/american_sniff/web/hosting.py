"""What the browser game sends to each browser: a seat's view, or the spectator view.

This module is the one place where the web game meets the library's hosting
loop. Every document that leaves the server for a browser is the library's
own view document (``docs/formats.md``), made by
:func:`~american_sniff.view_for` for a seat and by
:func:`~american_sniff.views.spectator_view` for anyone else: the sequence
number (``seq``, which a move must name, so that a stale click never lands),
the last action, and the end sum and points of every legal move
(``previews``) are the library's. A browser never receives a field of the
match state directly.
"""

from __future__ import annotations

from typing import Any

from ..state import MatchState
from ..views import spectator_view, view_for, view_to_dict

__all__ = ["SPECTATOR", "seat_document", "spectator_document", "viewer_document"]

#: The viewer name of a spectator (anyone who is not a seat).
SPECTATOR = "spectator"


def seat_document(state: MatchState, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may see of ``state``: its view document, as JSON values.

    >>> from american_sniff import new_match
    >>> doc = seat_document(new_match(2, seed=1), 0)
    >>> doc["seat"], len(doc["hand"]), doc["seq"]
    (0, 7, 0)
    """
    return view_to_dict(view_for(state, seat))


def spectator_document(state: MatchState) -> dict[str, Any]:
    """What every seat may see of ``state`` and nothing any one seat alone may see.

    >>> from american_sniff import new_match
    >>> doc = spectator_document(new_match(3, seed=5))
    >>> doc["seat"], doc["hand"], doc["hand_sizes"]
    (None, None, [6, 6, 6])
    """
    return view_to_dict(spectator_view(state))


def viewer_document(state: MatchState, viewer: int | str) -> dict[str, Any]:
    """:func:`seat_document` for a seat number, :func:`spectator_document` for :data:`SPECTATOR`.

    :raises ValueError: if ``viewer`` is neither a seat of the match nor
        :data:`SPECTATOR`.
    """
    if viewer == SPECTATOR:
        return spectator_document(state)
    if isinstance(viewer, int) and not isinstance(viewer, bool):
        return seat_document(state, viewer)
    raise ValueError(f"a viewer is a seat number or {SPECTATOR!r}, got {viewer!r}")
