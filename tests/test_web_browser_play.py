"""The browser game played as a keyboard, a screen reader and a phone meet it, in headless Chromium.

Whole matches by keyboard alone, checked by axe-core along the way, at a
desktop's size (1280 x 800) and a phone's (390 x 844), with 2 and 4 players;
the four-player table measured at three phone widths (360, 390 and 430 px);
the marks of what just happened kept off the points you tap; a wrong move's
reason; the replay in a player's words; the sounds and their switch; the
bots' speed. The bots play at once here (the server's delay is 0 and the
page asks for the ``instant`` speed), so that a whole match takes seconds.

The server, the browser and the helpers are those of ``test_web_browser``
(which skips without Chromium, and fails under CI's flag).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websocket")  # websocket-client: the DevTools Protocol's transport

from cdp import Browser, Page
from test_web_browser import (
    _axe_source,
    _axe_violations,
    _need,
    _place_by_clicking,
    _Server,
    browser,
    server,
)

__all__ = ["browser", "server"]  # the fixtures, taken from test_web_browser

#: The screens: a desktop's and a phone's.
SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}
#: Three phones, by width: a small one, a common one, a large one.
PHONES = ((360, 780), (390, 844), (430, 932))

#: The focused element, described: its id, or its data-tile, data-move or
#: data-point, and whether it is inside the dialog.
_FOCUS = """(() => { const a = document.activeElement;
    if (!a || a === document.body) return {what: 'body'};
    return {what: a.id || a.dataset.tile || a.dataset.move || a.dataset.point || a.tagName,
        tile: a.matches('#hand button.tile.playable'), choice: a.matches('#choices button'),
        opening: a.id === 'open-here', inDialog: Boolean(a.closest('#settlement')),
        log: a.id === 'log'}; })()"""


def _focus(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.js(_FOCUS)
    return found


def _open_at_speed(page: Page, server: _Server, url: str, speed: str = "instant") -> None:
    """Open ``url`` with the bots' speed ``speed`` remembered by the page, as a player sets it."""
    page.go(server.base)
    page.js(f"localStorage.setItem('sniff-speed', {json.dumps(speed)})")
    page.go(url)
    page.to_front()
    page.wait("document.body.dataset.seq !== undefined")


def _axe_clean(page: Page, source: str, where: str) -> None:
    found = _axe_violations(page, source)
    assert found == [], where


def _keyboard_turn(page: Page) -> None:
    """Place a tile by keyboard alone: the focus is on a playable tile (or its place) already."""
    focus = page.wait(
        "(() => { const a = document.activeElement; return a && a.matches("
        "'#hand button.tile.playable, #choices button, #open-here') && a.outerHTML.length; })()"
    )
    assert focus
    seq = page.js("document.body.dataset.seq")
    if _focus(page)["tile"]:
        page.key("Enter")  # pick the tile: the focus goes to its first place
        page.wait("document.activeElement.matches('#choices button, #open-here')")
    page.key("Enter")
    page.wait(f"document.body.dataset.seq !== {json.dumps(seq)}")


def _dialog_keeps_the_focus(page: Page) -> None:
    """The dialog has the focus; Tab and Shift+Tab go round its controls and never behind it."""
    page.wait("Boolean(document.activeElement.closest('#settlement'))")
    for shift in (False, False, False, True, True):
        page.key("Tab", shift=shift)
        assert _focus(page)["inDialog"], _focus(page)
    assert page.js("document.querySelector('main').inert") is True


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_whole_match_by_keyboard_alone_with_axe_along_the_way(
    server: _Server, browser: Browser, players: int, screen: str
) -> None:
    """Keys only, to the match's end: the focus is always on the next control, axe finds nothing.

    After every move and bot reply the focus is on a playable tile (Enter
    picks it and moves the focus to its first place, Enter places it); while
    a dialog is shown it has the focus, Tab stays in it, and closing it gives
    the focus back to the game. Undo, reached by Tab, gives the focus back to
    the hand. axe-core runs at the first turn, once the log scrolls, every
    tenth turn, at the first settlement and at the match's end.
    """
    source = _axe_source()
    width, height = SCREENS[screen]
    seats = ["human", "greedy", "greedy", "greedy"][:players]
    made = server.post(
        "api/matches", {"players": players, "seats": seats, "seed": {2: 38, 4: 46}[players]}
    )
    page = browser.page()
    page.size(width, height, mobile=width < 500)
    _open_at_speed(page, server, made["seats"][0]["url"])
    turns = settlements = 0
    undone = log_checked = False
    while (need := _need(page)) != "end":
        assert _focus(page)["what"] != "body"
        if need == "settlement":
            _dialog_keeps_the_focus(page)
            if settlements == 0:
                _axe_clean(page, source, "settlement")
            settlements += 1
            page.wait("document.activeElement.id === 'go-on'")  # its one control
            page.key("Enter")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            page.wait("document.activeElement !== document.body")
            continue
        if turns % 10 == 0:
            _axe_clean(page, source, f"turn {turns}")
        if not log_checked and page.js(
            "(() => { const l = document.getElementById('log');"
            " return l.scrollHeight > l.clientHeight; })()"
        ):
            _axe_clean(page, source, "the log scrolls")
            log_checked = True
        _keyboard_turn(page)
        turns += 1
        if not undone and players == 2 and turns == 2:
            # Undo by Tab from the hand, then the focus is back on a playable tile.
            _need(page)
            seq = page.js("document.body.dataset.seq")
            for _ in range(30):
                if page.js("document.activeElement.id") == "undo":
                    break
                page.key("Tab")
            assert page.js("document.activeElement.id") == "undo"
            page.key("Enter")
            page.wait(f"document.body.dataset.seq !== {json.dumps(seq)}")
            page.wait(
                "document.activeElement.matches('#hand button.tile.playable, #choices button')"
            )
            undone = True
    print("TURNS", turns, settlements)
    assert turns > 10
    assert settlements >= 1
    assert log_checked
    assert undone or players == 4
    _dialog_keeps_the_focus(page)
    assert "won the match" in page.js("document.getElementById('settlement-title').textContent")
    _axe_clean(page, source, "match end")
    # Closing the match's end gives the focus back to the page: the replay's link.
    for _ in range(6):
        if page.js("document.activeElement.id") == "go-on":
            break
        page.key("Tab")
    page.key("Enter")
    page.wait("document.activeElement.id === 'replay-link'")
    assert page.js("document.querySelector('main').inert") is False
    page.close()


def test_the_log_is_reached_and_scrolled_by_keyboard(server: _Server, browser: Browser) -> None:
    """Once the play's log scrolls, Tab reaches it, its keys scroll it, and axe finds nothing."""
    source = _axe_source()
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page = browser.page()
    page.size(1280, 800)
    _open_at_speed(page, server, made["seats"][0]["url"])
    overflows = (
        "(() => { const l = document.getElementById('log');"
        " return l.scrollHeight > l.clientHeight + 100; })()"
    )
    while not page.js(overflows):
        need = _need(page)
        assert need != "end"
        if need == "settlement":
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
        else:
            _place_by_clicking(page)
    _need(page)
    assert _axe_violations(page, source) == []
    page.js("document.getElementById('undo').focus()")
    for _ in range(20):
        if page.js("document.activeElement.id") == "log":
            break
        page.key("Tab")
    assert page.js("document.activeElement.id") == "log"
    assert page.js("document.getElementById('log').getAttribute('aria-labelledby')") == "log-title"
    bottom = page.js("document.getElementById('log').scrollTop")
    assert bottom > 0  # the newest line is in sight
    page.key("Home")
    page.wait("document.getElementById('log').scrollTop === 0")
    page.key("PageDown")
    page.wait("document.getElementById('log').scrollTop > 0")
    page.key("End")
    page.wait(f"document.getElementById('log').scrollTop >= {bottom} - 1")
    page.close()


#: The geometry of the table at the page's size: each tile's long side, each seat's
#: box and whether its text overflows it, the table's box, and every mark that
#: meets what it must not (an open point's ring, another mark, the figure's edge).
_MEASURE = """(() => {
    const box = (n) => { const b = n.getBoundingClientRect();
        return {x: b.left, y: b.top, width: b.width, height: b.height}; };
    const meet = (a, b) => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5
        && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
    const circleMeets = (c, b) => {
        const dx = Math.max(b.x - c.x, 0, c.x - (b.x + b.width));
        const dy = Math.max(b.y - c.y, 0, c.y - (b.y + b.height));
        return dx * dx + dy * dy < (c.r - 0.5) * (c.r - 0.5); };
    const svg = document.querySelector('#table svg');
    const tiles = [...document.querySelectorAll('#table g.tile > rect:first-of-type')]
        .map((r) => { const b = r.getBoundingClientRect(); return Math.max(b.width, b.height); });
    const ringsAt = '#table g.point .hit, #table g.point circle:first-child';
    const rings = [...document.querySelectorAll(ringsAt)].map((c) => {
            const b = c.getBoundingClientRect();
            return {x: b.left + b.width / 2, y: b.top + b.height / 2, r: b.width / 2,
                point: c.closest('g.point').dataset.point}; });
    const marks = [...document.querySelectorAll('#table .seat-badge circle, #table text.gain')]
        .map((m) => ({box: box(m), what: m.matches('text') ? m.textContent
            : 'badge ' + m.closest('g.tile').dataset.tile}));
    const problems = [];
    const edge = svg ? box(svg) : null;
    const shown = box(document.getElementById('table-box'));
    marks.forEach((m, i) => {
        for (const ring of rings) {
            if (circleMeets(ring, m.box)) problems.push(m.what + ' on ' + ring.point);
        }
        for (const o of marks.slice(i + 1)) {
            if (meet(m.box, o.box)) problems.push(m.what + ' on ' + o.what);
        }
        for (const outer of [edge, shown]) {
            if (m.box.x < outer.x - 0.5 || m.box.y < outer.y - 0.5
                || m.box.x + m.box.width > outer.x + outer.width + 0.5
                || m.box.y + m.box.height > outer.y + outer.height + 0.5) {
                problems.push(m.what + ' clipped');
            }
        }
    });
    const seats = [...document.querySelectorAll('#seats > .seat')].map((s) => ({
        seat: s.dataset.seat, place: s.dataset.place, box: box(s),
        spills: s.scrollWidth > s.clientWidth + 1 || s.scrollHeight > s.clientHeight + 1
            || [...s.querySelectorAll('*')].some((c) => { const b = c.getBoundingClientRect();
                const o = s.getBoundingClientRect();
                return b.width > 0 && (b.left < o.left - 0.5 || b.right > o.right + 0.5); }) }));
    return {tiles, marks: marks.length, problems, seats, table: shown, page: innerWidth,
        gains: document.querySelectorAll('#table text.gain').length};
})()"""


def _measured(page: Page, width: int, height: int) -> dict[str, Any]:
    page.size(width, height, mobile=width < 500)
    page.js("draw()")  # as the page's resize handler does
    found: dict[str, Any] = page.js(_MEASURE)
    return found


def _no_overlap(first: dict[str, float], second: dict[str, float]) -> bool:
    return (
        first["x"] + first["width"] <= second["x"] + 0.5
        or second["x"] + second["width"] <= first["x"] + 0.5
        or first["y"] + first["height"] <= second["y"] + 0.5
        or second["y"] + second["height"] <= first["y"] + 0.5
    )


def test_the_four_player_table_fits_three_phones_with_its_marks_clear(
    server: _Server, browser: Browser
) -> None:
    """A whole round of four players, measured at 360, 390 and 430 px wide and on a desktop.

    Tiles are 40 px or more on their long side on each phone; every seat's
    label fits its box, and no seat covers another or the table; no "+N" or
    seat badge covers an open point's ring (the end's value marker and the
    place you tap), another mark, or the figure's edge.
    """
    seats = ["human", "greedy", "greedy", "greedy"]
    made = server.post("api/matches", {"players": 4, "seats": seats, "seed": 7})
    page = browser.page()
    page.size(390, 844, mobile=True)
    _open_at_speed(page, server, made["seats"][0]["url"])
    smallest = {width: 1000.0 for width, _ in PHONES}
    rounds = turns = gains = 0
    most = 0
    while rounds < 1 and (need := _need(page)) != "end":
        if need == "settlement":
            rounds += 1
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            continue
        for width, height in (*PHONES, SCREENS["desktop"]):
            found = _measured(page, width, height)
            assert found["problems"] == [], (width, turns, found["problems"])
            gains += found["gains"] if width == 390 else 0
            if width < 500:
                if found["tiles"]:
                    smallest[width] = min(smallest[width], *found["tiles"])
                    most = max(most, len(found["tiles"]))
                for seat in found["seats"]:
                    assert not seat["spills"], (width, seat)
                    assert _no_overlap(seat["box"], found["table"]), (width, seat)
                    assert seat["box"]["x"] >= -0.5, (width, seat)
                    assert seat["box"]["x"] + seat["box"]["width"] <= width + 0.5, (width, seat)
                for i, seat in enumerate(found["seats"]):
                    for other in found["seats"][i + 1 :]:
                        assert _no_overlap(seat["box"], other["box"]), (width, seat, other)
        page.size(390, 844, mobile=True)
        page.js("draw()")
        _place_by_clicking(page)
        turns += 1
    assert rounds == 1
    assert most >= 12  # a full table was measured
    assert gains >= 1  # and a "+N" on it
    for width, _ in PHONES:
        assert smallest[width] >= 40, smallest
    page.close()


def test_a_wrong_move_is_told_why_in_a_players_words(server: _Server, browser: Browser) -> None:
    """A tile that fits nowhere, and a tile on a point it does not fit: the reason, in words."""
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page = browser.page()
    page.size(390, 844, mobile=True)
    _open_at_speed(page, server, made["seats"][0]["url"])
    told = {"tile": "", "point": ""}
    while not all(told.values()):
        need = _need(page)
        assert need != "end"
        if need == "settlement":
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            continue
        view = page.js("current.view")
        numbers = sorted(
            {
                int(c["point"].split("|")[1][0]) if " high" in c["point"] else int(c["point"][1])
                for c in view["table"]["contributions"]
            }
        )
        unplayable = page.js(
            "[...document.querySelectorAll('#hand button.tile[aria-disabled=true]')]"
            ".map((b) => b.dataset.tile)"
        )
        if unplayable and not told["tile"] and numbers:
            page.click(f"#hand button.tile[data-tile='{unplayable[0]}']")
            told["tile"] = page.wait("document.getElementById('error').textContent")
            shown = ", ".join(map(str, numbers[:-1])) + (" or " if len(numbers) > 1 else "")
            assert told["tile"] == (
                f"{unplayable[0]} fits no open end: it has no {shown}{numbers[-1]}."
            )
            # The same reason is the tile's label, for a screen reader.
            label = page.js(
                f"document.querySelector(\"#hand button.tile[data-tile='{unplayable[0]}']\")"
                ".getAttribute('aria-label')"
            )
            assert label.endswith(told["tile"][len(unplayable[0]) : -1])
        page.click("#hand button.tile.playable")
        page.wait("Boolean(document.querySelector('g.point.legal, #open-here.shown'))")
        tile = page.js("selected")
        wrong = page.js(
            f"""[...document.querySelectorAll('#table g.point:not(.legal)')]
            .map((g) => g.dataset.point)
            .filter((p) => !tileValues({json.dumps(tile)}).includes(pointNumber(p)))"""
        )
        if wrong and not told["point"]:
            page.click(f"#table g.point[data-point='{wrong[0]}']")
            told["point"] = page.wait("document.getElementById('error').textContent")
            number = page.js(f"pointNumber({json.dumps(wrong[0])})")
            where = page.js(f"pointName({json.dumps(wrong[0])})")
            assert told["point"] == f"{tile} does not go on {where}: it has no {number}."
            assert " low" not in told["point"]
            assert " high" not in told["point"]
        _place_by_clicking(page)
    page.close()


def test_the_replay_tells_each_action_in_a_players_words(server: _Server, browser: Browser) -> None:
    """Every frame's line and settlement: the join in words, never the engine's side names."""
    made = server.post(
        "api/matches", {"players": 4, "seats": ["human", "greedy", "greedy", "greedy"], "seed": 9}
    )
    page = browser.page()
    page.size(1280, 800)
    _open_at_speed(page, server, made["seats"][0]["url"])
    while (need := _need(page)) != "end" and int(page.js("current.view.round")) < 3:
        if need == "settlement":
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
        else:
            _place_by_clicking(page)
    page.go(f"{server.base}replay#match={made['id']}&key={server.key}")
    page.wait("document.body.dataset.frame === '0'")
    lines = page.js(
        """(() => { const out = [];
        for (let i = 0; i < replay.frames.length; i++) { show(i);
            out.push([document.getElementById('replay-title').textContent,
                document.getElementById('replay-settlement').textContent]); }
        return out; })()"""
    )
    assert len(lines) > 40
    texts = " ".join(title + " " + settled for title, settled in lines)
    for engine in (" low", " high", "line_", "branch_", " line A", " line B", " opens"):
        assert engine not in texts, engine
    assert " placed [" in texts
    assert " opened with [" in texts
    assert any(" drew " in title for title, _ in lines)
    assert any("went out" in settled or "blocked" in settled for _, settled in lines)
    assert "Deducted: " not in texts  # each seat's deduction is named
    page.close()


def test_sounds_play_for_a_placement_a_score_and_a_rounds_end_and_the_switch_is_kept(
    server: _Server, browser: Browser
) -> None:
    """The sounds of a round, each of its kind; the switch off silences them, across a reload."""
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page = browser.page(new_context=True)
    page.size(1280, 800)
    _open_at_speed(page, server, made["seats"][0]["url"])
    assert page.js("document.getElementById('sound').checked") is True  # on at first
    heard: set[str] = set()
    while len(heard) < 3:
        need = _need(page)
        assert need != "end"
        before = page.js("current.view")
        if need == "settlement":
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            continue
        page.js("soundsPlayed.length = 0")
        _place_by_clicking(page)
        _need(page)
        after = page.js("current.view")
        played = page.js("soundsPlayed")
        heard.update(played)
        if after["round"] != before["round"]:
            assert "round" in played
        elif any(a["points"] for a in after["history"][len(before["history"]) :]):
            assert "score" in played
        assert "place" in played or "score" in played or "round" in played
    assert page.js("typeof audio === 'object' && audio !== null")  # the Web Audio context
    if _need(page) == "settlement":
        page.click("#go-on")
        page.wait("!document.getElementById('settlement').classList.contains('shown')")
    page.click("#sound")
    assert page.js("localStorage.getItem('sniff-sound')") == "off"
    page.go(server.base)  # (a reload: the same address again would only move to its hash)
    page.go(made["seats"][0]["url"])
    page.wait("document.body.dataset.seq !== undefined")
    assert page.js("document.getElementById('sound').checked") is False
    assert page.js("soundsPlayed") == []
    if _need(page) == "settlement":
        page.click("#go-on")
        page.wait("!document.getElementById('settlement').classList.contains('shown')")
    if _need(page) == "place":
        seq = page.js("current.view.seq")
        _place_by_clicking(page)
        _need(page)
        assert page.js("soundsPlayed") == []
        assert page.js("current.view.seq") > seq + 1  # the bots played too, silently
    page.close()


def test_the_bots_speed_is_chosen_remembered_and_kept_to(browser: Browser, tmp_path: Path) -> None:
    """Instant, normal (the server's delay) and slow (twice it), remembered across a reload."""
    slow_server = _Server(tmp_path / "speed.sqlite3", bot_delay=0.3)
    slow_server.start()
    try:
        seats = ["human", "random", "random", "random"]
        made = slow_server.post("api/matches", {"players": 4, "seats": seats, "seed": 3})
        page = browser.page(new_context=True)
        page.size(1280, 800)
        _open_at_speed(page, slow_server, made["seats"][0]["url"], "normal")
        assert page.js("document.getElementById('speed').value") == "normal"
        waits: dict[str, float] = {}
        for speed in ("slow", "instant", "normal"):
            page.js(
                "(() => { const s = document.getElementById('speed');"
                f" s.value = {json.dumps(speed)}; s.dispatchEvent(new Event('change')); }})()"
            )
            assert page.js("localStorage.getItem('sniff-speed')") == speed
            for _ in range(5):  # (a move that ends the round waits for nobody: again)
                if _need(page) == "settlement":
                    page.click("#go-on")
                    page.wait("!document.getElementById('settlement').classList.contains('shown')")
                assert _need(page) == "place"
                started = time.monotonic()
                _place_by_clicking(page)
                if _need(page) == "place":
                    waits[speed] = time.monotonic() - started
                    break
        # Three bots at least (and any draws) between two turns of the person: at
        # once, less than the least a normal pace waits (a busy machine has room).
        assert waits["instant"] < 0.9, waits
        assert waits["normal"] >= 0.9, waits  # 0.3 s each
        assert waits["slow"] >= 1.8, waits  # 0.6 s each
        page.go(slow_server.base)  # a reload
        page.go(made["seats"][0]["url"])
        page.wait("document.body.dataset.seq !== undefined")
        assert page.js("document.getElementById('speed').value") == "normal"
        page.close()
    finally:
        slow_server.stop()
