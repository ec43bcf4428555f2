"""What a seat, or a spectator, may see of a match (being split into one module per concern)."""

from __future__ import annotations

from .writer import (
    EVENT_FORMAT,
    MAX_VIEW_BYTES,
    VIEW_FORMAT,
    MovePreview,
    PlayerView,
    SpectatorView,
    ViewEvent,
    apply_event,
    event_for,
    event_from_json,
    event_to_dict,
    geometry_to_dict,
    known_voids,
    spectator_view,
    view_for,
    view_from_json,
    view_to_dict,
)
from .writer import TABLE_PAGE as TABLE_PAGE

__all__ = [
    "EVENT_FORMAT",
    "MAX_VIEW_BYTES",
    "VIEW_FORMAT",
    "MovePreview",
    "PlayerView",
    "SpectatorView",
    "ViewEvent",
    "apply_event",
    "event_for",
    "event_from_json",
    "event_to_dict",
    "geometry_to_dict",
    "known_voids",
    "spectator_view",
    "view_for",
    "view_from_json",
    "view_to_dict",
]
