"""The drawings stay the same: every table of random matches against the drawings made before.

``render_golden.json`` holds a digest of each drawing of 540 tables: the
tables of nine random matches (three each of 2, 3 and 4 players) as they
grew, each drawn as the browser's pages draw it (the wide page and the
narrow one, without the caption), with the caption on the default page, and
as text (:func:`~american_sniff.render.render_text`). The file was written by
the renderer as it stood before the layout search was made cheaper for the
server (commit 565213c, ``python tests/test_render_golden.py --write``); the
tests draw the same tables with today's renderer, in the order a server
draws them (each match's tables one after the other, the matches in turn,
so that each search carries on from the one before) and again with every
remembered search and kept placement forgotten before each drawing, and
require the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from american_sniff import Layout, apply, legal_moves, new_match
from american_sniff.render import geometry, render_svg, render_text, svg

#: Where the digests are kept.
GOLDEN = Path(__file__).with_name("render_golden.json")

#: The narrow page of the browser (``american_sniff.web.frames.NARROW_PAGE``,
#: written out: the web extra is not needed here).
NARROW_PAGE = (24, 36)

#: The drawings of a table, by name.
DRAWINGS: dict[str, Callable[[Layout], str]] = {
    "wide": lambda layout: render_svg(layout, caption=False),
    "narrow": lambda layout: render_svg(layout, caption=False, page=NARROW_PAGE),
    "captioned": render_svg,
    "text": render_text,
}


def _match_tables(players: int, seed: int, count: int) -> list[Layout]:
    """The first ``count`` tables of a random match, each as it grew (none twice in a row)."""
    rng = random.Random(seed)
    state = new_match(players, seed=seed)
    tables: list[Layout] = []
    while len(tables) < count and not state.is_over:
        state = apply(state, rng.choice(legal_moves(state)))
        if state.layout.tiles and (not tables or state.layout is not tables[-1]):
            tables.append(state.layout)
    return tables


def tables_in_turn() -> Iterator[Layout]:
    """540 tables of nine matches, drawn in turn as a server draws them (one per match in turn)."""
    matches = [_match_tables(2 + n % 3, 1000 + n, 60) for n in range(9)]
    assert all(len(tables) == 60 for tables in matches)
    at = 0
    while any(at < len(tables) for tables in matches):
        for tables in matches:
            if at < len(tables):
                yield tables[at]
        at += 1


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _drawn(forget: bool) -> dict[str, list[str]]:
    """Each drawing's digests, table by table; with ``forget``, each from a cold start."""
    digests: dict[str, list[str]] = {name: [] for name in DRAWINGS}
    for layout in tables_in_turn():
        for name, draw in DRAWINGS.items():
            if forget:
                _forget()
            digests[name].append(_digest(draw(layout)))
    return digests


def _forget() -> None:
    """Forget every search, table, choice, placement and tile's drawing the renderer keeps."""
    geometry._MEMORY.clear()
    for module in (geometry, svg):
        for name, kept in vars(module).items():
            clear = getattr(kept, "cache_clear", None)
            if clear is not None:
                clear()
            elif name in {"_SHAPES", "_CHOICES", "_TILE_TEXTS"}:
                kept.clear()


def _golden() -> dict[str, list[str]]:
    digests: dict[str, list[str]] = json.loads(GOLDEN.read_text())["digests"]
    return digests


def test_the_golden_file_covers_many_tables() -> None:
    """540 tables of 2, 3 and 4 players, 4 drawings each, nearly all different."""
    golden = _golden()
    assert set(golden) == set(DRAWINGS)
    assert all(len(digests) == 540 for digests in golden.values())
    assert len(set(golden["wide"])) > 500


@pytest.mark.sweep
@pytest.mark.parametrize("forget", [False, True], ids=["carried-on", "cold"])
def test_every_drawing_is_the_same_as_before(forget: bool) -> None:
    """Today's drawings of every table are byte for byte those of the renderer before."""
    golden = _golden()
    drawn = _drawn(forget)
    for name in DRAWINGS:
        pairs = zip(drawn[name], golden[name], strict=True)
        wrong = [n for n, (now, before) in enumerate(pairs) if now != before]
        assert not wrong, (name, wrong[:10])


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps({"digests": _drawn(forget=True)}, indent=0) + "\n")
