"""The pictures a browser's page shows beside the view: a table, the last round's, the tallies.

A page shows one drawing of the table: the wide one (the default page of
:func:`~american_sniff.render.render_svg`) or, in a box narrower than
560 pixels, the narrow one (:data:`~american_sniff.web.frames.NARROW_PAGE`,
a portrait page whose arms turn sooner). Each socket says which one its
page shows (:data:`WIDE` or :data:`NARROW`) and gets only that one, so a
table is drawn on a page only when a page of the match shows it.

A match's :class:`Pictures` draws them for a state only the first time some
browser asks, and keeps the last of each: the same texts go to every viewer
that shows the same table, since they show only what every viewer sees. A
table is drawn again only when it changed, so a draw or a pass draws
nothing, and the last round's table is drawn once for the whole round after it.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..layout import Layout
from ..render import render_svg, tally_svg
from ..state import MatchState
from .frames import NARROW_PAGE

__all__ = ["NARROW", "TABLES", "WIDE", "Pictures"]

#: The table drawn on the default page, sent as the message's ``table``.
WIDE = "wide"

#: The table drawn on :data:`~american_sniff.web.frames.NARROW_PAGE`, sent as
#: the message's ``table_narrow``.
NARROW = "narrow"

#: The drawings of the table a socket may ask for.
TABLES = (WIDE, NARROW)


class Pictures:
    """The pictures of one match's latest state, per drawing of the table, and the tables drawn.

    >>> from american_sniff import new_match
    >>> drawn, text = Pictures().drawn(new_match(2, seed=1))
    >>> sorted(drawn), text.startswith('"table": ')
    (['last_table', 'table', 'tallies'], True)
    """

    def __init__(self) -> None:
        self._state: MatchState | None = None
        # Per drawing of the table asked for: the pictures of ``_state`` and their text.
        self._drawn: dict[str, tuple[dict[str, Any], str]] = {}
        # Per drawing (``wide``, ``narrow``, ``last``): the layout last drawn, its
        # picture, and the picture as JSON text (the last round's table stays a
        # whole round: it is written once).
        self._tables: dict[str, tuple[Layout, str, str]] = {}

    def drawn(self, state: MatchState, table: str = WIDE) -> tuple[dict[str, Any], str]:
        """The pictures of ``state`` with the ``table`` asked for, and their JSON text.

        The pictures are ``table`` (the SVG of the table on the wide page)
        or ``table_narrow`` (on the narrow page), ``last_table`` (the table
        of the round just settled, on the wide page, or None) and ``tallies``
        (each side's score as a tally); the text is the members of a JSON
        object, without its braces.

        :raises ValueError: if ``table`` is not one of :data:`TABLES`.
        """
        if table not in TABLES:
            raise ValueError(f"a table is one of {', '.join(TABLES)}, not {table!r}")
        if self._state is not state:
            self._state = state
            self._drawn.clear()
        made = self._drawn.get(table)
        if made is not None:
            return made
        last = state.last_round
        if table == WIDE:
            member, (picture, text) = "table", self._table(WIDE, state.layout)
        else:
            member, (picture, text) = "table_narrow", self._table(NARROW, state.layout, NARROW_PAGE)
        if last is None:
            last_picture, last_text = None, "null"
        else:
            last_picture, last_text = self._table("last", last.layout)
        tallies, tallies_text = _tallies(tuple(state.scores))
        pictures = {member: picture, "last_table": last_picture, "tallies": list(tallies)}
        # json.dumps(pictures)[1:-1], from the texts written once.
        text = f'"{member}": {text}, "last_table": {last_text}, "tallies": {tallies_text}'
        made = self._drawn[table] = (pictures, text)
        return made

    def _table(
        self, name: str, layout: Layout, page: tuple[int, int] | None = None
    ) -> tuple[str, str]:
        """The picture of ``layout`` on ``page`` (or the default page), and its JSON text.

        They are made only when new: not again when the drawing ``name`` was
        made from the same layout.
        """
        cached = self._tables.get(name)
        if cached is not None and cached[0] is layout:
            return cached[1], cached[2]
        picture = _svg(
            render_svg(layout, caption=False)
            if page is None
            else render_svg(layout, caption=False, page=page)
        )
        self._tables[name] = (layout, picture, json.dumps(picture))
        return picture, self._tables[name][2]


def _svg(document: str) -> str:
    """An SVG document without its XML declaration, to go inline in a page."""
    if document.startswith("<?xml"):
        document = document.split("\n", 1)[1]
    return document


@functools.lru_cache(maxsize=4096)
def _tally(score: int) -> str:
    return _svg(tally_svg(score))


@functools.lru_cache(maxsize=4096)
def _tallies(scores: tuple[int, ...]) -> tuple[tuple[str, ...], str]:
    """Each side's tally of ``scores``, and their list as JSON text."""
    tallies = tuple(_tally(score) for score in scores)
    return tallies, json.dumps(list(tallies))
