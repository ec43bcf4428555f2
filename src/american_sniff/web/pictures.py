"""The pictures a match's browsers are sent: each drawn once per state and shared by every socket.

A message to a browser that draws carries the table as an SVG figure, the
last round's table once a round has ended, and the tallies. The page shows
one drawing of the table: the wide one (the default page of
:func:`~american_sniff.render.render_svg`) or, in a box narrower than
560 pixels, the narrow one (:data:`~american_sniff.web.frames.NARROW_PAGE`,
a portrait page whose arms turn sooner). Each socket says which one it
shows (:data:`WIDE` or :data:`NARROW`), gets only that one, and a table is
drawn on a page only when a socket of the match shows it.

:class:`Pictures` keeps, per match, the pictures of the state last drawn as
JSON text (the same text for every socket that shows that table), and each
table's last drawing: a draw or a pass keeps the table, and the last round's
table stays for a whole round, so neither is drawn again.
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

#: The tables a socket may ask for.
TABLES = (WIDE, NARROW)


def _svg(document: str) -> str:
    """An SVG document without its XML declaration, to go inline in a page."""
    if document.startswith("<?xml"):
        document = document.split("\n", 1)[1]
    return document


@functools.lru_cache(maxsize=4096)
def _tally(score: int) -> str:
    return _svg(tally_svg(score))


class _Match:
    """What one match's pictures keep: the last state's texts and each table's last drawing."""

    __slots__ = ("state", "tables", "texts")

    def __init__(self) -> None:
        self.state: MatchState | None = None
        # Per table asked for: the pictures of ``state`` and their JSON text.
        self.texts: dict[str, tuple[dict[str, Any], str]] = {}
        # Per drawing (``wide``, ``narrow``, ``last``): the layout last drawn, and its picture.
        self.tables: dict[str, tuple[Layout, str]] = {}

    def table(self, name: str, layout: Layout, page: tuple[int, int] | None = None) -> str:
        """The picture of ``layout`` on ``page`` (or the default page), drawn only when new."""
        cached = self.tables.get(name)
        if cached is not None and cached[0] is layout:
            return cached[1]
        picture = _svg(
            render_svg(layout, caption=False)
            if page is None
            else render_svg(layout, caption=False, page=page)
        )
        self.tables[name] = (layout, picture)
        return picture


class Pictures:
    """The pictures of every match held, drawn once per state and table.

    >>> from american_sniff import new_match
    >>> pictures = Pictures()
    >>> drawn, text = pictures.drawn("m1", new_match(2, seed=1), WIDE)
    >>> sorted(drawn), text.startswith('"table": ')
    (['last_table', 'table', 'tallies'], True)
    """

    def __init__(self) -> None:
        self._matches: dict[str, _Match] = {}

    def drawn(self, match_id: str, state: MatchState, table: str) -> tuple[dict[str, Any], str]:
        """The pictures of ``state`` with the ``table`` asked for, and their JSON text.

        The pictures are ``table`` (the wide drawing) or ``table_narrow``
        (the narrow one), ``last_table`` (the last round's table, on the
        default page, or None) and ``tallies`` (each side's score as a tally);
        the text is the members of a JSON object, without its braces.

        :raises ValueError: if ``table`` is not one of :data:`TABLES`.
        """
        if table not in TABLES:
            raise ValueError(f"a table is one of {', '.join(TABLES)}, not {table!r}")
        kept = self._matches.get(match_id)
        if kept is None:
            kept = self._matches[match_id] = _Match()
        if kept.state is not state:
            kept.state = state
            kept.texts.clear()
        made = kept.texts.get(table)
        if made is not None:
            return made
        last = state.last_round
        if table == WIDE:
            pictures: dict[str, Any] = {"table": kept.table(WIDE, state.layout)}
        else:
            pictures = {"table_narrow": kept.table(NARROW, state.layout, NARROW_PAGE)}
        pictures["last_table"] = None if last is None else kept.table("last", last.layout)
        pictures["tallies"] = [_tally(score) for score in state.scores]
        made = kept.texts[table] = (pictures, json.dumps(pictures)[1:-1])
        return made

    def forget(self, match_id: str) -> None:
        """Drop what is kept of the match ``match_id`` (nothing if there is none)."""
        self._matches.pop(match_id, None)

    def __contains__(self, match_id: object) -> bool:
        return match_id in self._matches
