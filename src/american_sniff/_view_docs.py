"""The view and event documents as reading structures them (see ``views``).

Each class is one JSON object of the view format (``docs/formats.md``),
before its texts are parsed; :func:`american_sniff.serial.structure` reads
parsed JSON into them. They live apart from :mod:`american_sniff.views`
because that module may be compiled with mypyc, which keeps only the
runtime classes of the annotations (``list``, not ``list[str]``), while the
converter reads the full types.
"""

from __future__ import annotations

import attrs

from .serial import ActionDoc

__all__ = [
    "AnchorDoc",
    "ContributionDoc",
    "EdgeDoc",
    "EventDoc",
    "GeometryDoc",
    "PlacedDoc",
    "PreviewDoc",
    "TableDoc",
    "ViewDoc",
    "ViewRoundDoc",
]


@attrs.frozen
class TableDoc:
    """A view's ``table`` object."""

    placements: list[str]
    open_points: list[str]
    contributions: list[ContributionDoc]
    end_sum: int
    sniff: str | None


@attrs.frozen
class ContributionDoc:
    """One entry of a table's ``contributions``."""

    point: str
    value: int


@attrs.frozen
class PreviewDoc:
    """One entry of a view's ``previews``."""

    move: str
    end_sum: int | None
    points: int


@attrs.frozen
class EdgeDoc:
    """One edge of a placed tile in a view's ``geometry``."""

    side: str
    segment: list[int]
    facing: str


@attrs.frozen
class PlacedDoc:
    """One placed tile in a view's ``geometry``."""

    tile: str
    rect: list[int]
    heading: str
    low_half: list[int]
    high_half: list[int]
    edges: list[EdgeDoc]


@attrs.frozen
class AnchorDoc:
    """One anchor (an open point) in a view's ``geometry``."""

    point: str
    x: int
    y: int
    facing: str
    marker: list[int]
    value: int | None


@attrs.frozen
class GeometryDoc:
    """A view's ``geometry`` object."""

    page: list[int] | None
    half: int
    bounds: list[int]
    tiles: list[PlacedDoc]
    anchors: list[AnchorDoc]


@attrs.frozen
class ViewRoundDoc:
    """A view's ``last_round`` object."""

    round: int
    end: str
    finisher: int | None
    hands: list[list[str]]
    deductions: list[int]
    scores: list[int]
    placements: list[str]
    history: list[ActionDoc] | None
    dealt_from: str


@attrs.frozen
class ViewDoc:
    """A view document (a player's or a spectator's)."""

    format: str
    format_version: int
    rules_version: str
    players: int
    seat: int | None
    round: int
    opener: int
    turn: int
    target: int
    scores: list[int]
    winner: int | None
    hand: list[str] | None
    drawn: str | None
    hand_sizes: list[int]
    stock_size: int
    table: TableDoc
    legal_moves: list[str] | None
    previews: list[PreviewDoc] | None
    history: list[ActionDoc]
    last_round: ViewRoundDoc | None
    voids: list[list[int]]
    seq: int
    last_action: ActionDoc | None
    geometry: GeometryDoc | None


@attrs.frozen
class EventDoc:
    """An event document."""

    format: str
    format_version: int
    rules_version: str
    viewer: int | None
    seq: int
    action: ActionDoc
    scores: list[int]
    winner: int | None
    turn: int
    drawn: str | None
    legal_moves: list[str]
    voids: list[list[int]]
    next_round: ViewDoc | None
