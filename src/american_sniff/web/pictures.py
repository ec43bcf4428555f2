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

__all__ = ["CHANGED", "NARROW", "TABLES", "WIDE", "Pictures"]

#: The table drawn on the default page, sent as the message's ``table``.
WIDE = "wide"

#: The table drawn on :data:`~american_sniff.web.frames.NARROW_PAGE`, sent as
#: the message's ``table_narrow``.
NARROW = "narrow"

#: The drawings of the table a socket may ask for.
TABLES = (WIDE, NARROW)

#: What a hello's ``pictures`` says for the drawings only where they changed:
#: each of a state message's drawings (``table`` or ``table_narrow``,
#: ``last_table``, ``tallies``) is left out where it is the same as in the
#: last state message the socket was sent, which the page keeps
#: (:meth:`Pictures.members`). The page's own hello says so.
CHANGED = "changed"


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
        if self._state is not state:
            self._state = state
            self._drawn.clear()
        made = self._drawn.get(table)
        if made is not None:
            return made
        (member, text), (_, last_text), (_, tallies_text) = self.members(state, table)
        last_picture = None if state.last_round is None else self._tables["last"][1]
        tallies = _tallies(tuple(state.scores))[0]
        pictures = {
            member: self._tables[table][1],
            "last_table": last_picture,
            "tallies": list(tallies),
        }
        # json.dumps(pictures)[1:-1], from the texts written once.
        text = f'"{member}": {text}, "last_table": {last_text}, "tallies": {tallies_text}'
        made = self._drawn[table] = (pictures, text)
        return made

    def members(self, state: MatchState, table: str = WIDE) -> tuple[tuple[str, str], ...]:
        """Each drawing of :meth:`drawn` for ``state``, as its member's name and its JSON text.

        A drawing's text is the same object for as long as it does not
        change: the table's while the table is the same, the last round's
        for the whole round after it, the tallies' while the scores are. A
        host that sends each drawing only where it changed
        (:data:`CHANGED`) compares them with ``is``.

        >>> from american_sniff import apply, legal_moves, new_match
        >>> pictures = Pictures()
        >>> state = new_match(2, seed=1)
        >>> before = pictures.members(state, NARROW)
        >>> [member for member, text in before]
        ['table_narrow', 'last_table', 'tallies']
        >>> after = pictures.members(apply(state, legal_moves(state)[0]), NARROW)
        >>> [new is old for (_, new), (_, old) in zip(after, before)]
        [False, True, True]

        :raises ValueError: if ``table`` is not one of :data:`TABLES`.
        """
        if table not in TABLES:
            raise ValueError(f"a table is one of {', '.join(TABLES)}, not {table!r}")
        last = state.last_round
        if table == WIDE:
            member, text = "table", self._table(WIDE, state.layout)[1]
        else:
            member, text = "table_narrow", self._table(NARROW, state.layout, NARROW_PAGE)[1]
        last_text = "null" if last is None else self._table("last", last.layout)[1]
        tallies = _tallies(tuple(state.scores))[1]
        return (member, text), ("last_table", last_text), ("tallies", tallies)

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
