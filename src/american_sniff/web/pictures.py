"""The pictures a browser's page shows beside the view: the tables and the tallies, drawn once.

A match's :class:`Pictures` (one per match held in memory, see
:class:`~american_sniff.web.rooms.Room`) draws them for a state only the
first time some browser asks, and keeps the last of each: the same texts
go to every viewer, since they show only what every viewer sees. A table is
drawn again only when it changed, so a draw or a pass draws nothing, and the
last round's table is drawn once for the whole round after it.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..layout import Layout
from ..render import render_svg, tally_svg
from ..state import MatchState
from .frames import NARROW_PAGE

__all__ = ["Pictures"]


class Pictures:
    """The pictures of one match's latest state, and the tables they were drawn from."""

    def __init__(self) -> None:
        self._drawn: tuple[MatchState, dict[str, Any], str] | None = None
        self._tables: dict[str, tuple[Layout, str]] = {}

    def drawn(self, state: MatchState) -> tuple[dict[str, Any], str]:
        """The pictures of ``state``, and their JSON text (the members of an object, no braces).

        The members are ``table`` (the SVG of the table), ``table_narrow``
        (the same on a narrow screen's page), ``last_table`` (the table of
        the round just settled, or None) and ``tallies`` (each side's score
        as a tally).
        """
        cached = self._drawn
        if cached is not None and cached[0] is state:
            return cached[1], cached[2]
        tables = self._tables
        last = state.last_round
        pictures = {
            "table": _table(tables, "table", state.layout),
            "table_narrow": _table(tables, "narrow", state.layout, NARROW_PAGE),
            "last_table": None if last is None else _table(tables, "last", last.layout),
            "tallies": [_tally(score) for score in state.scores],
        }
        text = json.dumps(pictures)[1:-1]
        self._drawn = (state, pictures, text)
        return pictures, text


def _svg(document: str) -> str:
    """An SVG document without its XML declaration, to go inline in a page."""
    if document.startswith("<?xml"):
        document = document.split("\n", 1)[1]
    return document


def _table(
    tables: dict[str, tuple[Layout, str]],
    name: str,
    layout: Layout,
    page: tuple[int, int] | None = None,
) -> str:
    """The picture of ``layout`` on ``page`` (or the default page), drawn only when new.

    It is not drawn again when ``tables[name]`` was drawn from the same layout.
    """
    cached = tables.get(name)
    if cached is not None and cached[0] is layout:
        return cached[1]
    picture = _svg(
        render_svg(layout, caption=False)
        if page is None
        else render_svg(layout, caption=False, page=page)
    )
    tables[name] = (layout, picture)
    return picture


@functools.lru_cache(maxsize=4096)
def _tally(score: int) -> str:
    return _svg(tally_svg(score))
