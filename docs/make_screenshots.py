"""Take the screenshots of the browser game for ``docs/playing-browser.md``, into ``docs/figures/``.

Needs the ``web`` extra, ``websocket-client`` and the system's Chromium::

    python docs/make_screenshots.py

It serves a fresh database, plays a seeded match against bots by clicking
(as the browser tests do, with ``tests/cdp.py``), and takes each page at a
desktop width (1200 px) and at a phone's (390 px): the table with a tile
picked and its points lit, a round's settlement, the match's end, the start
page and the replay viewer. Screenshots are not compared by the tests: a new
browser draws fonts a little differently.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from cdp import Browser, Page, chromium  # noqa: E402

FIGURES = Path(__file__).resolve().parent / "figures"
WIDTHS = {"desktop": 1200, "phone": 390}
#: The widths each page is taken at (the docs show these).
SHOTS = {
    "start": ("phone",),
    "table": ("desktop", "phone"),
    "settlement": ("phone",),
    "end": ("desktop",),
    "replay": ("desktop",),
}


def _post(base: str, path: str, body: object) -> dict[str, object]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        answer: dict[str, object] = json.load(response)
        return answer


def _shoot(page: Page, name: str) -> None:
    for label in SHOTS[name]:
        width = WIDTHS[label]
        page.screenshot(FIGURES / f"browser-{name}-{label}.png", width)
    page.size(1200, 900)


def _need(page: Page) -> str:
    need: str = page.wait(
        "document.body.dataset.need !== 'wait' && document.body.dataset.need", timeout=60
    )
    return need


def _place(page: Page) -> None:
    page.click("#hand button.tile.playable")
    page.wait("Boolean(document.querySelector('g.point.legal, #open-here.shown'))")
    seq = page.js("document.body.dataset.seq")
    if page.js("Boolean(document.querySelector('#open-here.shown'))"):
        page.click("#open-here")
    else:
        page.click("#table g.point.legal")
    page.wait(f"document.body.dataset.seq !== {json.dumps(seq)}")


def main() -> int:  # noqa: PLR0915 - one script, step by step
    """Serve, play, shoot."""
    executable = chromium()
    if executable is None:
        print("no chromium on this machine", file=sys.stderr)
        return 1
    FIGURES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "american_sniff", "serve", "--port", "0"]
        command += ["--db", f"{folder}/shots.sqlite3", "--bot-delay", "0"]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        line = server.stdout.readline()
        base = line.split(" at ", 1)[1].split("#", 1)[0]
        browser = Browser(executable)
        try:
            page = browser.page()
            page.size(1200, 900)
            page.reduced_motion(True)  # each tile where it lies, not on its way in
            page.go(base)
            _shoot(page, "start")
            seats = ["human", "greedy", "search", "random"]
            made = _post(base, "api/matches", {"players": 4, "seats": seats, "seed": 12})
            url = made["seats"][0]["url"]  # type: ignore[index]
            page.go(str(url))
            shot = {"table": False, "settlement": False}
            placed = 0
            while (need := _need(page)) != "end":
                if need == "settlement":
                    if not shot["settlement"]:
                        _shoot(page, "settlement")
                        shot["settlement"] = True
                    page.click("#go-on")
                    page.wait("!document.getElementById('settlement').classList.contains('shown')")
                    continue
                if placed == 3 and not shot["table"]:
                    page.click("#hand button.tile.playable")
                    page.wait("Boolean(document.querySelector('g.point.legal, #open-here.shown'))")
                    _shoot(page, "table")
                    shot["table"] = True
                _place(page)
                placed += 1
            _shoot(page, "end")
            token = str(url).split("#", 1)[1]
            page.go(f"{base}replay#match={made['id']}&token={token}")
            page.wait("document.body.dataset.frame === '0'")
            for _ in range(6):
                page.key("ArrowRight")
            _shoot(page, "replay")
        finally:
            browser.close()
            server.terminate()
            server.wait(20)
            server.stdout.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
