"""The browser game's pictures on their own: drawn once per state, a kept table not drawn again.

:mod:`american_sniff.web.pictures` needs no Starlette, so these run in the
main suite; ``tests/test_web_host.py`` checks the same through the server.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

import american_sniff.web.pictures as pictures_module
from american_sniff import Draw, MatchState, Place, apply, legal_moves, new_match
from american_sniff.render import render_svg, tally_svg
from american_sniff.web.frames import NARROW_PAGE
from american_sniff.web.pictures import NARROW, WIDE


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, object]]:
    """Count the tables drawn (the layout and the page of each)."""
    drawn: list[tuple[object, object]] = []

    def counted(layout: Any, **options: Any) -> str:
        drawn.append((layout, options.get("page")))
        return render_svg(layout, **options)

    monkeypatch.setattr(pictures_module, "render_svg", counted)
    return drawn


def _states(seed: int, count: int) -> list[MatchState]:
    """The first ``count`` states of a 2-player match, each seat playing its first legal move."""
    states = [new_match(2, seed=seed)]
    while len(states) < count and states[-1].winner is None:
        states.append(apply(states[-1], legal_moves(states[-1])[0]))
    return states


def test_the_pictures_of_a_state_are_drawn_once_and_read_back_as_their_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asked twice for one state: the same pictures, no second drawing; the text is their JSON.

    Only the drawing of the table asked for is made: the wide one unless the
    narrow one is asked for (a page on a narrow screen).
    """
    drawn = _counted(monkeypatch)
    state = _states(1, 1)[0]
    pictures = pictures_module.Pictures()
    first, text = pictures.drawn(state)
    again, same = pictures.drawn(state)
    assert again is first
    assert same is text
    assert json.loads("{" + text + "}") == first
    assert drawn == [(state.layout, None)]
    assert "table_narrow" not in first
    assert first["last_table"] is None  # no round settled yet
    assert first["tallies"] == [tally_svg(score).split("\n", 1)[1] for score in state.scores]
    assert not first["table"].startswith("<?xml")
    assert first["table"] == render_svg(state.layout, caption=False).split("\n", 1)[1]
    narrow, narrow_text = pictures.drawn(state, NARROW)
    assert drawn == [(state.layout, None), (state.layout, NARROW_PAGE)]
    assert "table" not in narrow
    assert json.loads("{" + narrow_text + "}") == narrow
    expected = render_svg(state.layout, caption=False, page=NARROW_PAGE).split("\n", 1)[1]
    assert narrow["table_narrow"] == expected
    with pytest.raises(ValueError, match="a table is one of wide, narrow"):
        pictures.drawn(state, "round")


def test_a_table_is_drawn_again_only_when_it_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A draw keeps the table (nothing drawn); a placement draws the table asked for.

    A settled round's table is drawn once, when it is new.
    """
    drawn = _counted(monkeypatch)
    pictures = pictures_module.Pictures()
    kinds: set[type] = set()
    states = _states(5, 80)
    for before, after in itertools.pairwise(states):
        pictures.drawn(before, WIDE)
        pictures.drawn(before, NARROW)
        count = len(drawn)
        pictures.drawn(after, WIDE)
        pictures.drawn(after, NARROW)
        kinds.add(type(legal_moves(before)[0]))  # the move that made ``after``
        new = [] if after.layout is before.layout else [after.layout]
        # The wide table, the round just settled (once), then the narrow table.
        expected: list[tuple[object, object]] = [(layout, None) for layout in new]
        last, was = after.last_round, before.last_round
        if last is not None and (was is None or last.layout is not was.layout):
            expected.append((last.layout, None))
        expected += [(layout, NARROW_PAGE) for layout in new]
        assert drawn[count:] == expected
    assert {Draw, Place} <= kinds  # the match had both kinds of action


def test_the_last_rounds_table_is_drawn_once_for_the_round_after_it() -> None:
    """Once a round is settled, its table goes with every state of the next round."""
    states = _states(3, 2000)
    settled = [s for s in states if s.last_round is not None]
    assert settled  # the match reached a second round
    pictures = pictures_module.Pictures()
    last = settled[0].last_round
    assert last is not None
    first = pictures.drawn(settled[0])[0]["last_table"]
    assert first == render_svg(last.layout, caption=False).split("\n", 1)[1]
    for state in settled[1:5]:
        if state.last_round is last:
            assert pictures.drawn(state)[0]["last_table"] is first


@pytest.mark.parametrize("table", [WIDE, NARROW])
def test_each_drawings_text_is_the_same_object_while_it_does_not_change(table: str) -> None:
    """``members`` gives the text of ``drawn`` a member at a time, kept while unchanged.

    The table's text changes with the table, the last round's with the
    round, the tallies' with the scores; each is the same object otherwise
    (a host that sends a drawing only where it changed compares with ``is``).
    """
    pictures = pictures_module.Pictures()
    states = _states(3, 2000)
    assert any(s.last_round is not None for s in states)  # a round was settled
    seen = {"table": 0, "last": 0, "tallies": 0}
    previous: tuple[tuple[str, str], ...] | None = None
    before: MatchState | None = None
    for state in states:
        members = pictures.members(state, table)
        names = [name for name, _ in members]
        assert names == ["table" if table == WIDE else "table_narrow", "last_table", "tallies"]
        text = ", ".join(f'"{name}": {drawn}' for name, drawn in members)
        assert text == pictures.drawn(state, table)[1]
        if previous is not None and before is not None:
            same = [now is then for (_, now), (_, then) in zip(members, previous, strict=True)]
            assert same[0] == (state.layout is before.layout)
            last, was = state.last_round, before.last_round
            rounds = last is not None and was is not None and last.layout is was.layout
            assert same[1] == (last is was or rounds)
            assert same[2] == (state.scores == before.scores)
            for key, kept in zip(seen, same, strict=True):
                seen[key] += kept
        previous, before = members, state
    assert min(seen.values()) > 0  # each was kept at least once
    with pytest.raises(ValueError, match="a table is one of wide, narrow"):
        pictures.members(states[0], "round")
