"""The browser game in a real browser: headless Chromium (the system's, never downloaded).

Each test runs ``american-sniff serve`` as a process of its own and drives
Chromium over the DevTools Protocol (``tests/cdp.py``), clicking as a person
does: a tile of the hand, then one of its points on the table. Every payload
each page receives is recorded, and checked at the end against the match's
states: no page ever received a tile hidden from its seat.

Without Chromium the module skips, unless ``AMERICAN_SNIFF_REQUIRE_BROWSER``
is set (as CI sets it), and then it fails.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from american_sniff import ALL_TILES, MatchRecord, MatchState, Tile, replay
from american_sniff.layout import Layout, Point, Side
from american_sniff.render import render_svg
from american_sniff.web.game import Game, new_setup
from american_sniff.web.pictures import Pictures
from american_sniff.web.store import LogEntry, Store

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websocket")  # websocket-client: the DevTools Protocol's transport

from cdp import Browser, Page, chromium
from web_leaks import hidden_tiles

if chromium() is None:
    if os.environ.get("AMERICAN_SNIFF_REQUIRE_BROWSER"):  # CI: skipping would hide a gap
        raise RuntimeError("AMERICAN_SNIFF_REQUIRE_BROWSER is set, and chromium is missing")
    pytest.skip("no chromium on this machine (apt-get install chromium)", allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _Server:
    """``american-sniff serve`` on a database and a port, as a process that can be restarted.

    ``bot_delay`` is the server's ``--bot-delay``: 0, so that the bots play at once.
    """

    def __init__(self, db: Path, bot_delay: float = 0) -> None:
        self.db = db
        self.bot_delay = bot_delay
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}/"
        self.key = ""
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "american_sniff", "serve", "--port", str(self.port)]
        command += ["--db", str(self.db), "--bot-delay", str(self.bot_delay)]
        self._process = subprocess.Popen(
            command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        assert "American Sniff is served at" in line, line
        self.key = line.strip().rsplit("#key=", 1)[1]

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(20)
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            answer: dict[str, Any] = json.load(response)
            return answer

    def states(self, match_id: str) -> list[MatchState]:
        """Every state of the match so far, from its record (the operator's download)."""
        url = f"{self.base}api/matches/{match_id}/record?key={self.key}"
        with urllib.request.urlopen(url) as response:
            return list(replay(MatchRecord.from_json(response.read())))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[_Server]:
    """A running server on a fresh database."""
    running = _Server(tmp_path / "matches.sqlite3")
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the module's tests."""
    executable = chromium()
    assert executable is not None
    started = Browser(executable)
    yield started
    started.close()


def _need(page: Page) -> str:
    """What the page waits for: ``place``, ``settlement``, ``end`` (or after ``wait``)."""
    need: str = page.wait(
        "document.body.dataset.need && document.body.dataset.need !== 'wait' "
        "&& document.body.dataset.need",
        timeout=60,
    )
    return need


def _place_by_clicking(page: Page) -> str:
    """Click the first playable tile, then its first legal point (or the opening button)."""
    page.click("#hand button.tile.playable")
    page.wait("Boolean(document.querySelector('g.point.legal, #open-here.shown'))")
    seq = page.js("document.body.dataset.seq")
    if page.js("Boolean(document.querySelector('#open-here.shown'))"):
        page.click("#open-here")
    else:
        page.click("#table g.point.legal")
    page.wait(f"document.body.dataset.seq !== {json.dumps(seq)}")
    return str(seq)


def _check_no_hidden_tile(
    page: Page,
    states: list[MatchState] | Callable[[], list[MatchState]],
    seat: int | None,
) -> int:
    """Check every payload the page received; return how many there were.

    ``states`` may be a function that reads them: it is called once the
    payloads are collected, so that a match the bots go on playing has every
    state a payload names (a list read before could be one action short).
    """
    page.js("1")  # collect what arrived
    payloads = page.frames + page.responses
    assert payloads
    if callable(states):
        states = states()
    for payload in payloads:
        leaked = hidden_tiles(payload, states, seat)
        assert not leaked, f"{sorted(map(str, leaked))} reached seat {seat}: {payload[:200]}"
    return len(payloads)


def _check_drawings(page: Page, server: _Server, match_id: str) -> None:
    """The page holds every drawing of the state it shows, though each came only when it changed.

    The page's hello asks for each drawing only where it changed
    (``"pictures": "changed"``); the page keeps the others. What it holds
    must be what a page that was sent every drawing would hold.
    """
    seq = page.js("current.view.seq")
    drawn = Pictures().drawn(server.states(match_id)[seq])[0]
    held = page.js(
        "({table: current.table, last_table: current.last_table, tallies: current.tallies})"
    )
    assert held == drawn


def test_a_whole_match_against_bots_by_clicking(server: _Server, browser: Browser) -> None:
    """One person against a bot, by clicking, to the match's end; settlements shown and read.

    On the way, the drawings the page holds are those of the state it shows
    (:func:`_check_drawings`).
    """
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page = browser.page()
    page.size(1200, 900)
    page.go(made["seats"][0]["url"])
    settlements = 0
    placements = 0
    while (need := _need(page)) != "end":
        if need == "settlement" or placements % 4 == 0:
            _check_drawings(page, server, made["id"])
        if need == "settlement":
            settlements += 1
            revealed = page.js("document.querySelectorAll('#settlement .revealed svg').length")
            title = page.js("document.getElementById('settlement-title').textContent")
            assert "Round" in title
            assert revealed > 0  # the hands, revealed
            # Each hand's pips and rounding; each side's score before and after.
            last = page.js("current.view.last_round")
            pips = page.js(
                "[...document.querySelectorAll('#settlement td.pips')].map((t) => t.textContent)"
            )
            assert pips == [
                str(sum(int(c) for c in "".join(h) if c.isdigit())) for h in last["hands"]
            ]
            changes = page.js(
                "[...document.querySelectorAll('#settlement li.side-change')]"
                ".map((t) => t.textContent)"
            )
            assert len(changes) == 2
            for side, text in enumerate(changes):
                before = last["scores"][side] + last["deductions"][side]
                assert text.endswith(
                    f"{before} \u2212 {last['deductions'][side]} = {last['scores'][side]}"
                    if last["deductions"][side]
                    else f"{before} \u2212 0 = {before}"
                )
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
        else:
            _place_by_clicking(page)
            placements += 1
    assert settlements >= 1
    assert placements > 10
    title = page.js("document.getElementById('settlement-title').textContent")
    assert "won the match" in title
    states = server.states(made["id"])
    assert states[-1].winner is not None
    _check_no_hidden_tile(page, states, 0)
    # The record opens in the replay viewer, which steps with the keyboard.
    viewer = browser.page()
    token = made["seats"][0]["url"].split("#", 1)[1]
    viewer.go(f"{server.base}replay#match={made['id']}&token={token}")
    viewer.wait("document.body.dataset.frame === '0'")
    viewer.key("ArrowRight")
    viewer.wait("document.body.dataset.frame === '1'")
    # One tile on the table: its two ends, in words, the engine's names as the tooltip.
    ends = viewer.js("document.getElementById('replay-ends').textContent")
    assert re.fullmatch(r"Counted ends: the \d on the left \+ the \d on the right = \d+\.", ends)
    assert " low" in viewer.js("document.getElementById('replay-ends').title")
    viewer.key("End")
    viewer.wait(f"document.body.dataset.frame === '{len(states) - 1}'")
    assert "won the match" in viewer.js("document.getElementById('replay-settlement').textContent")
    viewer.close()
    page.close()


def test_the_page_waits_longer_each_time_it_cannot_reconnect(
    server: _Server, browser: Browser
) -> None:
    """1 s, doubled per failure up to 30 s; at least 10 s after a 4429; a state starts again."""
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 5})
    page = browser.page()
    page.go(made["seats"][0]["url"])
    page.wait("document.body.dataset.connected === 'yes'")
    page.js("Math.random = () => 0.5")  # the random part at its middle: no change
    waits = page.js("[0, 1, 2, 4, 5, 9].map((n) => reconnectWait(1006, n))")
    assert waits == [1000, 2000, 4000, 16000, 30000, 30000]
    assert page.js("[0, 3, 6].map((n) => reconnectWait(4429, n))") == [10000, 10000, 30000]
    page.js("Math.random = () => 0")  # the shortest a page may wait
    assert page.js("reconnectWait(1006, 0)") == 750
    # A close for reconnecting too often: the page waits 10 s (3/4 of it at least).
    page.js(
        "window.waits = []; const later = window.setTimeout; "
        "window.setTimeout = (f, ms, ...rest) => "
        "{ if (f === connect) window.waits.push(ms); return later(f, ms, ...rest); }; "
        "socket.close(4429, 'too many')"
    )
    assert page.wait("window.waits.length === 1 && window.waits[0]") == 7500
    assert page.js("failures") == 1
    page.js("connect()")  # it comes back (as it would after the wait), and a state resets it
    page.wait("document.body.dataset.connected === 'yes' && failures === 0")
    page.close()


def test_a_match_the_server_cannot_serve_is_said_so_and_not_asked_for_again(
    server: _Server, browser: Browser
) -> None:
    """A log that no longer replays: the page shows the server's reason and does not reconnect.

    The server closes such a socket with 4409; a page that reconnected would
    ask again forever, as it does after a lost connection.
    """
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 5})
    server.stop()
    with Store(server.db) as store:
        stored = store.load(made["id"])
        assert stored is not None
        state = Game(stored, store).state
        held = set(state.hands[state.turn])
        tile = next(t for t in sorted(ALL_TILES) if t not in held and t.is_double)
        store.append(made["id"], LogEntry("move", f"{tile} opens"), expected=len(stored.log))
    server.start()
    page = browser.page()
    page.go(made["seats"][0]["url"])
    page.wait("document.getElementById('error').textContent.includes('cannot be served here')")
    page.wait("document.body.dataset.connected === 'no'")
    assert str(tile) in page.js("document.getElementById('error').textContent")
    # Nothing is waiting to connect again, and no socket is opened in the next second.
    page.js(
        "window.opened = 0; const Real = window.WebSocket; "
        "window.WebSocket = function (...args) { window.opened += 1; return new Real(...args); }"
    )
    time.sleep(1.5)  # longer than the shortest wait before a reconnection (750 ms)
    assert page.js("window.opened") == 0
    assert "reconnecting" not in page.js("document.getElementById('status').textContent")
    page.close()


def test_the_server_restarts_in_mid_match_and_play_goes_on(
    server: _Server, browser: Browser
) -> None:
    """Kill the server in mid-match; a new one on the same database resumes; the page reconnects."""
    seats = ["human", "greedy", "search-quick", "random"]
    made = server.post("api/matches", {"players": 4, "seats": seats, "seed": 33})
    page = browser.page()
    page.size(390, 844, mobile=True)
    page.go(made["seats"][0]["url"])
    for _ in range(3):
        if _need(page) == "place":
            _place_by_clicking(page)
        elif _need(page) == "settlement":
            page.click("#go-on")
    _need(page)  # the bots have played up to the person's turn (or a settlement)
    before = int(page.js("document.body.dataset.seq"))
    server.stop()
    page.wait("document.getElementById('status').textContent.includes('reconnecting')")
    assert page.js("document.body.dataset.connected") == "no"
    server.start()
    page.wait("document.body.dataset.connected === 'yes'")
    assert int(page.js("document.body.dataset.seq")) == before  # where it stood
    for _ in range(3):
        need = _need(page)
        if need == "end":
            break
        if need == "place":
            _place_by_clicking(page)
        else:
            page.click("#go-on")
    assert int(page.js("document.body.dataset.seq")) > before
    _check_no_hidden_tile(page, lambda: server.states(made["id"]), 0)
    page.close()


def test_two_people_in_two_browser_contexts_and_a_spectator(
    server: _Server, browser: Browser
) -> None:
    """Two seats in two contexts play round 1 to its settlement; each sees only its own view."""
    made = server.post("api/matches", {"players": 2, "seats": ["human", "human"]})
    pages = {}
    for link in made["seats"]:
        page = browser.page(new_context=True)
        page.size(1000, 800)
        page.go(link["url"])
        pages[link["seat"]] = page
    spectator = browser.page(new_context=True)
    spectator.go(made["spectator"])
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline
        needs = {seat: page.js("document.body.dataset.need") for seat, page in pages.items()}
        if all(need in ("settlement", "end") for need in needs.values()):
            break
        acting = [seat for seat, need in needs.items() if need == "place"]
        if acting:
            seq = _place_by_clicking(pages[acting[0]])
            for page in pages.values():
                page.wait(f"document.body.dataset.seq !== {json.dumps(seq)}")
        else:
            time.sleep(0.05)
    states = server.states(made["id"])
    for seat, page in pages.items():
        assert page.js("document.querySelectorAll('#settlement .revealed svg').length") > 0 or (
            page.js("document.body.dataset.need") == "end"
        )
        count = _check_no_hidden_tile(page, states, seat)
        assert count >= len(states) // 2
        page.close()
    spectator.wait(f"document.body.dataset.seq === '{len(states) - 1}'")
    assert spectator.js("document.querySelectorAll('#hand .tile').length") == 0
    _check_no_hidden_tile(spectator, states, None)
    spectator.close()


# -- what just happened, accessibility, friends ----------------------------------------

#: axe-core, the accessibility engine (``npm install axe-core``; ``.ci/run`` installs it
#: into ``.ci-node``). ``AMERICAN_SNIFF_AXE`` may name another copy of ``axe.min.js``.
AXE = Path(
    os.environ.get(
        "AMERICAN_SNIFF_AXE",
        Path(__file__).resolve().parent.parent / ".ci-node/node_modules/axe-core/axe.min.js",
    )
)


def _axe_source() -> str:
    """The text of ``axe.min.js``; a failure under CI's flag when it is missing, else a skip."""
    if not AXE.is_file():
        message = f"axe-core is missing ({AXE}): npm install --prefix .ci-node axe-core"
        if os.environ.get("AMERICAN_SNIFF_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE.read_text(encoding="utf-8")


def _axe_violations(page: Page, source: str) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (every rule axe runs by default)."""
    if not page.js("typeof axe !== 'undefined'"):
        page.js(source + "\n;true")
    found: list[dict[str, Any]] = page.js(
        """axe.run(document).then((r) => r.violations.map((v) => ({
            id: v.id, help: v.help,
            nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ") + ": " + n.failureSummary),
        })))"""
    )
    return found


def _axe_at_both_widths(page: Page, source: str) -> list[dict[str, Any]]:
    """axe-core's violations at a desktop's width (1280) and at a phone's (390), as they stand."""
    found = []
    for width, height, mobile in ((390, 844, True), (1280, 800, False)):
        page.size(width, height, mobile=mobile)
        found += [{**v, "width": width} for v in _axe_violations(page, source)]
    return found


def _contrast(first: str, second: str) -> float:
    """WCAG's contrast ratio of two CSS colours given as ``rgb(...)`` or ``#rrggbb``."""

    def luminance(text: str) -> float:
        if text.startswith("#"):
            parts = [int(text[i : i + 2], 16) for i in (1, 3, 5)]
        else:
            parts = [int(float(v)) for v in text[text.index("(") + 1 : -1].split(",")[:3]]
        linear = [
            c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4
            for c in parts
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _blend(colour: str, alpha: float) -> str:
    """``colour`` (``#rrggbb``) at ``alpha`` over white, as ``#rrggbb``."""
    parts = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(alpha * c + (1 - alpha) * 255):02x}" for c in parts)


def _recent(page: Page) -> list[dict[str, Any]]:
    """The tiles marked as just placed: tile, seat, the badge's text and the ring's colour."""
    found: list[dict[str, Any]] = page.js(
        """[...document.querySelectorAll('#table g.tile.recent')].map((g) => ({
            tile: g.dataset.tile, seat: Number(g.dataset.seat),
            badge: g.querySelector('.seat-badge text').textContent,
            ring: g.querySelector('.recent-ring').getAttribute('stroke'),
        }))"""
    )
    return found


def _expected_recent(view: dict[str, Any], you: int) -> list[tuple[str, int, int]]:
    """The placements since the start of ``you``'s last turn, from a view document."""
    history = view["history"]
    at = len(history) - 1
    while at >= 0 and not (history[at]["seat"] == you and history[at]["move"] != "draw"):
        at -= 1
    while at > 0 and history[at - 1]["seat"] == you and history[at - 1]["move"] == "draw":
        at -= 1
    return [
        (a["move"].split(" ")[0], a["seat"], a["points"] or 0)
        for a in history[max(at, 0) :]
        if a["move"] not in ("draw", "pass")
    ]


def test_what_just_happened_is_marked_by_seat_with_points_and_a_move_in(
    server: _Server, browser: Browser
) -> None:
    """The bots' placements since your turn: tinted and badged by seat, +N, moving in."""
    seats = ["human", "greedy", "greedy", "greedy"]
    made = server.post("api/matches", {"players": 4, "seats": seats, "seed": 5})
    page = browser.page()
    page.size(1280, 800)
    page.reduced_motion(False)
    page.go(made["seats"][0]["url"])
    gains_seen = 0
    checked = 0
    for _ in range(40):
        need = _need(page)
        if need == "end":
            break
        if need == "settlement":
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            continue
        view = page.js("current.view")
        expected = _expected_recent(view, 0)
        marked = _recent(page)
        assert [(m["tile"], m["seat"]) for m in marked] == sorted(
            [(t, s) for t, s, _ in expected],
            key=lambda ts: page.js(
                f"[...document.querySelectorAll('#table g.tile')].findIndex("
                f"(g) => g.dataset.tile === {json.dumps(ts[0])})"
            ),
        )
        for mark in marked:  # the seat's number, not only its colour
            assert mark["badge"] == str(mark["seat"])
            assert _contrast(mark["ring"], "#ffffff") >= 3
        rings = {m["seat"]: m["ring"] for m in marked}
        assert len(set(rings.values())) == len(rings)  # one tint per seat
        gains = page.js(
            "[...document.querySelectorAll('#table text.gain')].map((t) => t.textContent)"
        )
        assert sorted(gains) == sorted(f"+{p}" for _, _, p in expected if p)
        gains_seen += len(gains)
        fresh = page.js("document.body.dataset.fresh")
        if fresh and checked < 3:
            checked += 1
            first = json.dumps(fresh.split(" ")[0])
            selector = f"#table g.tile[data-tile={first}]"
            style = (
                f"getComputedStyle(document.querySelector({json.dumps(selector)})).animationName"
            )
            assert page.js(style) == "sniff-move-in"
            page.reduced_motion(True)
            assert page.js(style) == "none"
            page.reduced_motion(False)
            # A redraw of the same state (a tile picked, a hint) does not move it again.
            page.js("draw()")
            assert page.js(style) == "none"
        _place_by_clicking(page)
    assert checked >= 1
    assert gains_seen >= 1
    page.close()


def test_the_table_is_reachable_and_readable_without_colour_or_a_mouse(
    server: _Server, browser: Browser
) -> None:
    """Open points are labelled controls (in words), marks reach 3:1, the hint is spoken."""
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page = browser.page()
    page.size(390, 844, mobile=True)
    page.go(made["seats"][0]["url"])
    keyboard_moves = 0
    for _ in range(30):
        need = _need(page)
        if need != "place":
            if need == "end":
                break
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            continue
        points = page.js(
            """[...document.querySelectorAll('#table g.point')].map((g) => ({
                tab: g.getAttribute('tabindex'), role: g.getAttribute('role'),
                label: g.getAttribute('aria-label'), point: g.dataset.point,
                engine: g.querySelector('title').textContent }))"""
        )
        for point in points:
            assert point["tab"] == "0"
            assert point["role"] == "button"
            assert point["label"].startswith(("The ", "the ")), point
            assert point["point"] in point["engine"]  # the engine's name, as a tooltip
        if not points:  # the round's opening: the opening button
            _place_by_clicking(page)
            continue
        # Focus stays on an open point across a redraw.
        first = page.js(
            "(() => { const g = document.querySelector('#table g.point'); g.focus();"
            " draw(); return g.dataset.point; })()"
        )
        assert page.js("document.activeElement.dataset.point") == first
        assert page.js("document.activeElement.closest('#table') !== null")
        # The hint, in words, in a live region.
        page.click("#hint")
        text = page.wait("document.getElementById('hint-text').textContent")
        assert page.js("document.getElementById('hint-text').getAttribute('aria-live')") == "polite"
        assert text.startswith("Hint: play [")
        assert " on the " in text
        # Contrast of the marks, with a tile picked: the legal end's ring and the
        # playable tile's outline against white; the unplayable fade.
        page.click("#hand button.tile.playable")
        page.wait("Boolean(document.querySelector('g.point.legal, #open-here.shown'))")
        ring = page.js(
            "getComputedStyle(document.querySelector('#table g.point.legal circle')).stroke"
        )
        assert _contrast(ring, "#ffffff") >= 3
        outline = page.js(
            "getComputedStyle(document.querySelector('#hand button.tile.playable')).borderTopColor"
        )
        assert _contrast(outline, "#ffffff") >= 3
        faded = page.js(
            "(() => { const b = document.querySelector('#hand button.tile[aria-disabled=true]');"
            " return b ? Number(getComputedStyle(b).opacity) : null; })()"
        )
        if faded is not None:
            assert _contrast(_blend("#222222", faded), _blend("#fbf8ef", faded)) >= 3
        label = page.js("document.querySelector('#table g.point.legal').getAttribute('aria-label')")
        assert label.startswith("Place [")
        assert ": sum " in label
        # The keyboard: focus the legal point, press Enter.
        seq = page.js("document.body.dataset.seq")
        page.js("document.querySelector('#table g.point.legal').focus()")
        page.key("Enter")
        page.wait(f"document.body.dataset.seq !== {json.dumps(seq)}")
        keyboard_moves += 1
        if keyboard_moves >= 3:
            break
    # The play's log names each join in words, with the engine's move as its tooltip.
    placed = page.js(
        """[...document.querySelectorAll('#log li')]
        .filter((li) => li.textContent.includes(' placed '))
        .map((li) => [li.textContent, li.title])"""
    )
    assert placed
    for text, title in placed:
        assert re.search(r" placed \[\d\|\d\] on (the \d of|the double|the Sniff|a branch)", text)
        assert " on [" in title
    # The engine's names, everywhere, behind the checkbox; and back to words.
    if page.js("document.getElementById('sum-line').textContent"):
        page.click("#notation")
        page.wait(
            "/ends: \\[\\d\\|\\d\\] (low|high|line|branch)/"
            ".test(document.getElementById('sum-line').textContent)"
        )
        page.click("#notation")
        page.wait(
            "document.getElementById('sum-line').textContent.startsWith('Counted ends: the ')"
        )
    assert keyboard_moves >= 3
    page.close()


def test_axe_finds_no_violation_on_any_page(server: _Server, browser: Browser) -> None:
    """axe-core in Chromium, 1280 and 390 wide: start, table, settlement, match end, replay."""
    source = _axe_source()
    page = browser.page()
    page.size(1280, 800)
    page.go(server.base)
    page.wait("document.querySelectorAll('#seat-rows select').length === 4")
    assert _axe_at_both_widths(page, source) == []
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page.go(made["seats"][0]["url"])
    checked: set[str] = set()
    while (need := _need(page)) != "end":
        if need == "settlement":
            if "settlement" not in checked:
                assert _axe_at_both_widths(page, source) == [], "settlement"
                checked.add("settlement")
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            continue
        if "table" not in checked and page.js(
            "document.querySelectorAll('#table g.tile').length > 2"
        ):
            page.click("#hand button.tile.playable")  # a tile picked: the legal ends shown
            assert _axe_at_both_widths(page, source) == [], "table"
            checked.add("table")
        _place_by_clicking(page)
    assert _axe_at_both_widths(page, source) == [], "match end"
    title = page.js("document.getElementById('settlement-title').textContent")
    won = server.states(made["id"])[-1].winner == 0
    assert title.startswith("You won the match" if won else "You lost: seat 1 won the match")
    # The rematch keeps the seats: this page's link opens seat 0 of the new match.
    page.click("#rematch")
    page.wait(f"location.pathname !== '/play/{made['id']}'")
    # (the bot may have opened the new match already: any seq will do)
    page.wait("document.readyState === 'complete' && document.body.dataset.connected === 'yes'")
    rematch = page.js("location.pathname").rsplit("/", 1)[1]
    assert server.states(rematch)[0].round == 1
    assert page.js("document.getElementById('who').textContent") == "You are seat 0"
    assert page.js("location.hash") == "#" + made["seats"][0]["url"].split("#", 1)[1]
    token = made["seats"][0]["url"].split("#", 1)[1]
    page.go(f"{server.base}replay#match={made['id']}&token={token}")
    page.wait("document.body.dataset.frame === '0'")
    page.key("End")
    assert _axe_at_both_widths(page, source) == [], "replay"
    assert checked == {"table", "settlement"}
    page.close()


def test_friends_name_their_seats_copy_their_links_and_read_why_undo_is_off(
    server: _Server, browser: Browser
) -> None:
    """The setup page's names reach the table; each link has a copy button; Undo says why not."""
    page = browser.page(new_context=True)
    page.size(390, 844, mobile=True)
    page.go(server.base)
    page.wait("document.querySelectorAll('#seat-rows select').length === 4")
    page.js(
        """(() => {
        const players = document.getElementById('players');
        players.value = '2';
        players.dispatchEvent(new Event('change'));
        const second = document.getElementById('seat-1');
        second.value = 'human';
        second.dispatchEvent(new Event('change'));
        document.getElementById('name-0').value = '  Ana ';
        document.getElementById('name-1').value = 'Bo';
        })()"""
    )
    assert page.js("document.getElementById('name-1').hidden") is False
    page.click("#start")
    page.wait("!document.getElementById('links-panel').hidden")
    labels = page.js("[...document.querySelectorAll('#links strong')].map((s) => s.textContent)")
    assert labels == ["Seat 0 (Ana)", "Seat 1 (Bo)", "Spectators"]
    assert page.js("document.querySelectorAll('#links button.copy').length") == 3
    # What the page hands the clipboard (read back by a wrapper: headless
    # Chromium lets a page write its clipboard, not read it).
    page.js(
        """(() => {
        const write = navigator.clipboard.writeText.bind(navigator.clipboard);
        navigator.clipboard.writeText = (text) => { window.copiedText = text; return write(text); };
        })()"""
    )
    page.click("#links button.copy")
    page.wait("document.querySelector('#links button.copy').dataset.copied")
    assert page.js("document.querySelector('#links button.copy').dataset.copied") == "yes"
    assert page.js("document.querySelector('#links button.copy').textContent") == "Copied"
    urls = page.js("[...document.querySelectorAll('#links input')].map((i) => i.value)")
    assert page.js("window.copiedText") == urls[0]
    seats = {}
    for seat, url in enumerate(urls[:2]):
        table = browser.page(new_context=True)
        table.size(1280, 800)
        table.go(url)
        table.wait("document.body.dataset.seq !== undefined")
        seats[seat] = table
    for seat, table in seats.items():
        other = 1 - seat
        names = table.js("[...document.querySelectorAll('#seats .name')].map((n) => n.textContent)")
        assert names[other].startswith(("Ana (seat 0)", "Bo (seat 1)")[other])
        assert names[seat] == "You"
        assert table.js("document.getElementById('who').textContent").endswith(
            ("(Ana)", "(Bo)")[seat]
        )
        why = table.js("document.getElementById('undo-why')")
        assert why is not None
        assert table.js("document.getElementById('undo-why').hidden") is False
        assert "other people" in table.js("document.getElementById('undo-why').textContent")
        table.close()
    page.close()


def test_the_ends_are_named_in_a_players_words(server: _Server, browser: Browser) -> None:
    """The words read from the figure: the number and its side; the Sniff's branches."""
    layout = Layout.empty().place(Tile(3, 3))
    layout = layout.place(Tile(1, 3), Point(Tile(3, 3), Side.LINE_A))
    layout = layout.place(Tile(3, 5), Point(Tile(3, 3), Side.LINE_B))
    figure = render_svg(layout, caption=False).split("\n", 1)[1]
    page = browser.page()
    page.go(server.base)
    words = page.js(
        f"""(() => {{
        const box = document.createElement('div');
        box.innerHTML = {json.dumps(figure)};
        document.body.append(box);
        const found = pointWordsOf(box.querySelector('svg'));
        box.remove();
        return Object.fromEntries(found);
        }})()"""
    )
    assert words == {
        "[1|3] low": "the 1 on the left",
        "[3|3] branch_a": "the Sniff's upper branch",
        "[3|3] branch_b": "the Sniff's lower branch",
        "[3|5] high": "the 5 on the right",
    }
    page.close()


_TILE_SIDES = """[...document.querySelectorAll('SCOPE g.tile rect:first-of-type')].map((r) => {
    const box = r.getBoundingClientRect(); return Math.max(box.width, box.height); })"""


def test_the_table_keeps_its_tiles_readable_from_a_rounds_start_to_its_end(
    server: _Server, browser: Browser
) -> None:
    """Tiles 28 px or longer at 390 and 1280 px wide, early and late, in play and in replay."""
    seats = ["human", "greedy", "greedy", "greedy"]
    made = server.post("api/matches", {"players": 4, "seats": seats, "seed": 5})
    page = browser.page()
    page.size(390, 844, mobile=True)
    page.go(made["seats"][0]["url"])
    most = 0
    smallest = {390: 1000.0, 1280: 1000.0}
    while (need := _need(page)) == "place":
        for width, height in ((1280, 800), (390, 844)):
            page.size(width, height, mobile=width < 500)
            page.js("draw()")  # as the page's resize handler does
            # The page asks for the drawing its box shows (the narrow one in a box
            # under 560 px: a phone's, and a desktop's with four seats around
            # the table), and draws it when it comes.
            page.wait(
                "document.body.dataset.table === tableWanted(document.getElementById('table'))"
            )
            sides = page.js(_TILE_SIDES.replace("SCOPE", "#table"))
            if sides:
                smallest[width] = min(smallest[width], *sides)
                most = max(most, len(sides))
            # The table fills its panel: its width, the height it is given, or twice its size.
            fill = page.js(
                "(() => { const s = document.querySelector('#table svg'); if (!s) return null;"
                " const b = s.getBoundingClientRect(), v = s.viewBox.baseVal;"
                " return [b.width / document.getElementById('table').clientWidth,"
                " b.height / (innerHeight * (innerWidth < 560 ? 0.55 : 0.6)),"
                " b.width / v.width]; })()"
            )
            if fill and sides:
                assert max(fill[0], fill[1], fill[2] / 2) >= 0.99, fill
        _place_by_clicking(page)
    assert need in ("settlement", "end")
    assert most >= 12  # late in the round
    assert smallest[390] >= 28, smallest
    assert smallest[1280] >= 28, smallest
    # The replay (the operator's, of a match still going on).
    page.go(f"{server.base}replay#match={made['id']}&key={server.key}")
    page.wait("document.body.dataset.frame === '0'")
    # The last frame of round 1: the fullest table of the round.
    page.js("roundStep(1)")  # what PageDown does
    page.wait("document.body.dataset.frame !== '0'")
    for width, height in ((390, 844), (1280, 800)):
        page.size(width, height, mobile=width < 500)
        page.js("show(index)")  # as the page's resize handler does
        sides = page.js(_TILE_SIDES.replace("SCOPE", "#replay-frame"))
        assert len(sides) >= 12
        assert min(sides) >= 28, (width, min(sides))
    page.close()


#: Each seat's box and the table's, and what each seat shows, as the page stands.
_SEATS = """(() => {
    const box = (n) => { const b = n.getBoundingClientRect();
        return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; };
    return {table: box(document.getElementById('table-box')),
        seats: [...document.querySelectorAll('#seats > .seat')].map((s) => ({
            seat: Number(s.dataset.seat), place: s.dataset.place, box: box(s),
            name: s.querySelector('.name').textContent,
            count: s.querySelector('.count').textContent,
            score: s.querySelector('.side-score').textContent,
            since: s.querySelector('.since').textContent,
            mark: getComputedStyle(s.querySelector('.seat-mark')).backgroundColor,
            shown: s.offsetParent !== null }))};
})()"""


def _rgb(colour: str) -> str:
    """``#rrggbb`` as the ``rgb(r, g, b)`` that ``getComputedStyle`` gives."""
    return "rgb({}, {}, {})".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_seats_sit_around_the_table_at_both_widths(
    server: _Server, browser: Browser, players: int
) -> None:
    """Yours below the table, the opposite above, the others at its sides; each with its news.

    On a phone the table takes the page's width: the seats on your left and
    right sit above its left and right corners, either side of the opposite one.
    """
    seats = ["human", "greedy", "greedy", "greedy"][:players]
    made = server.post("api/matches", {"players": players, "seats": seats, "seed": 8})
    page = browser.page()
    page.size(1280, 800)
    page.go(made["seats"][0]["url"])
    for _ in range(2):  # the bots have moved since this seat's last turn
        if _need(page) == "place":
            _place_by_clicking(page)
    assert _need(page) == "place"
    view = page.js("current.view")
    expected = {
        2: {0: "bottom", 1: "top"},
        3: {0: "bottom", 1: "left", 2: "right"},
        4: {0: "bottom", 1: "left", 2: "top", 3: "right"},
    }[players]
    recent = _expected_recent(view, 0)
    for width, height in ((1280, 800), (390, 844)):
        page.size(width, height, mobile=width < 500)
        page.js("draw()")
        shown = page.js(_SEATS)
        table = shown["table"]
        assert {s["seat"]: s["place"] for s in shown["seats"]} == expected
        middle_x = (table["left"] + table["right"]) / 2
        middle_y = (table["top"] + table["bottom"]) / 2
        for seat in shown["seats"]:
            box, place = seat["box"], seat["place"]
            assert seat["shown"]
            if place == "top":
                assert box["bottom"] <= table["top"] + 1, (width, seat)
                assert box["left"] < middle_x < box["right"], (width, seat)
            elif place == "bottom":
                assert box["top"] >= table["bottom"] - 1, (width, seat)
                assert box["left"] < middle_x < box["right"], (width, seat)
            elif width < 500:
                assert box["bottom"] <= table["top"] + 1, (width, seat)
                if place == "left":
                    assert box["left"] >= table["left"] - 1, (width, seat)
                    assert box["right"] < middle_x, (width, seat)
                else:
                    assert box["right"] <= table["right"] + 1, (width, seat)
                    assert box["left"] > middle_x, (width, seat)
            else:
                assert box["top"] < middle_y < box["bottom"], (width, seat)
                if place == "left":
                    assert box["right"] <= table["left"] + 1, (width, seat)
                else:
                    assert box["left"] >= table["right"] - 1, (width, seat)
            number = seat["seat"]
            size = view["hand_sizes"][number]
            assert seat["count"] == f"{size} tile{'' if size == 1 else 's'}"
            side = number % 2 if players == 4 else number
            assert seat["score"].endswith(f": {view['scores'][side]}")
            assert seat["name"] == "You" if number == 0 else seat["name"].startswith("Seat ")
            # What it did since your last turn, with the mark its tiles carry on the table.
            placed = [tile for tile, by, _ in recent if by == number]
            for tile in placed:
                assert tile in seat["since"], (seat, recent)
            if placed:
                assert seat["since"].startswith(("Placed", "Drew"))
            colour = page.js(f"SEAT_COLOURS[{number}]")
            assert seat["mark"] == _rgb(colour)
            for marked in _recent(page):
                if marked["seat"] == number:
                    assert marked["ring"] == colour
        assert any(tile for tile, by, _ in recent if by != 0)  # the others' news was checked
    page.close()


def test_how_to_play_is_linked_from_the_start_page_and_the_table(
    server: _Server, browser: Browser
) -> None:
    """The start page and the table link to How to play, which teaches every part of a match."""
    source = _axe_source()
    page = browser.page()
    page.size(1280, 800)
    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page.go(made["seats"][0]["url"])
    page.wait("document.body.dataset.seq !== undefined")
    assert page.js("document.getElementById('how-to-play').getAttribute('href')") == "/how-to-play"
    page.go(server.base)
    page.wait("document.querySelectorAll('#seat-rows select').length === 4")
    page.click("#how-to-play")
    page.wait("location.pathname === '/how-to-play' && document.readyState === 'complete'")
    assert page.js("document.querySelector('h1').textContent") == "How to play"
    sections = page.js(
        "Object.fromEntries([...document.querySelectorAll('main section[id]')]"
        ".map((s) => [s.id, s.textContent.replace(/\\s+/g, ' ')]))"
    )
    # Each part of a match, with the facts a player needs (RULES.md).
    facts = {
        "aim": ["250 points", "200 points"],
        "deal": ["28 tiles", "7 tiles", "6", "5", "clockwise", "any tile"],
        "ends": ["open end", "you must"],
        "sniff": ["first double", "Sniff", "branches", "only one Sniff"],
        "scoring": ["5, 10, 15, 20, 25, 30 or 35", "both its halves", "6 + 1 + 4 + 4 = 15"],
        "drawing": ["one tile at a time", "at once", "pass", "stock is empty"],
        "settlement": ["last tile", "nearest five", "3 becomes 5", "8 becomes 10", "Nobody gains"],
        "partners": ["seats 0 and 2", "share one score", "on its own"],
        "winning": ["reaches or passes the target", "no settlement", "50"],
    }
    for section, needed in facts.items():
        for text in needed:
            assert text in sections[section], (section, text)
    # Every section is in the page's contents.
    contents = page.js("[...document.querySelectorAll('ul.toc a')].map((a) => a.hash.slice(1))")
    assert contents == list(sections)
    assert _axe_at_both_widths(page, source) == [], "how to play"
    page.close()


def test_each_hint_has_its_reason_in_words_beside_it(server: _Server, browser: Browser) -> None:
    """The hint's line says why, as the library's ``hint_reason`` does, in the live region."""
    from american_sniff import parse_move, view_for
    from american_sniff.session import hint_reason

    made = server.post("api/matches", {"players": 2, "seats": ["human", "greedy"], "seed": 21})
    page = browser.page()
    page.size(390, 844, mobile=True)
    page.go(made["seats"][0]["url"])
    hints = 0
    while hints < 4 and (need := _need(page)) != "end":
        if need == "settlement":
            page.click("#go-on")
            page.wait("!document.getElementById('settlement').classList.contains('shown')")
            continue
        page.click("#hint")
        why = page.wait(
            "document.getElementById('hint-why') && document.getElementById('hint-why').textContent"
        )
        move = page.js("hint")
        state = server.states(made["id"])[-1]
        expected = hint_reason(view_for(state, 0), parse_move(move))
        assert why == f"Why: {expected[0].upper()}{expected[1:]}."
        # Beside the hint, in the same polite live region: a screen reader reads both.
        assert page.js("document.getElementById('hint-why').closest('[aria-live=polite]').id") == (
            "hint-text"
        )
        assert page.js("document.getElementById('hint-text').textContent").startswith("Hint: ")
        # A move made: the next turn's line starts empty again.
        seq = page.js("document.body.dataset.seq")
        if page.js("Boolean(document.querySelector('#table g.point.chosen'))"):
            page.click("#table g.point.chosen")
        else:  # the round's opening: the hinted tile is picked, its button shown
            page.click("#open-here")
        page.wait(f"document.body.dataset.seq !== {json.dumps(seq)}")
        hints += 1
    assert hints == 4
    page.close()


def test_the_operators_list_pages_through_every_stored_match(
    server: _Server, browser: Browser
) -> None:
    """The start page with the operator's key lists the stored matches a page at a time.

    102 matches, one of them broken (its log no longer replays): the first 100
    come first, newest first; "More matches" brings the other two, the broken
    one with its reason, and then hides itself.
    """
    store = Store(server.db)
    try:
        broken = Game.create(store, new_setup(2, ["human", "greedy"], seed=1))
        store.append(broken.id, LogEntry("move", "pass"), expected=0)  # no pass on an empty table
        for seed in range(101):
            Game.create(store, new_setup(2, ["human", "greedy"], seed=seed))
    finally:
        store.close()
    page = browser.page()
    page.go(f"{server.base}#key={server.key}")
    page.wait("document.querySelectorAll('#matches .stored').length === 100")
    assert page.js("document.getElementById('more-matches').hidden") is False
    page.click("#more-matches")
    page.wait("document.querySelectorAll('#matches .stored').length === 102")
    assert page.js("document.getElementById('more-matches').hidden") is True
    shown = page.js("document.querySelector('#matches .stored.broken').textContent")
    assert shown.startswith(f"{broken.id}: broken (")
    watched = "document.querySelectorAll('#matches .stored a[download]').length"
    assert page.js(watched) == 101  # each good match's record link
    page.close()
