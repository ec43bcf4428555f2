"""Take the screenshots of the browser game for ``docs/playing-browser.md``, into ``docs/figures/``.

Needs the ``web`` extra, ``websocket-client`` and the system's Chromium (and
``optipng``, if installed, to make the files smaller without a pixel lost)::

    python docs/make_screenshots.py

It serves a fresh database, plays a seeded four-player match against bots by
clicking (as the browser tests do, with ``tests/cdp.py``), and takes each
page as a desktop's screen shows it (1280 x 800) and as a phone's does
(390 x 844): the start page, the table after the bots moved (what just
happened marked), the table in mid-round with a tile picked and a hint, a
round's settlement, the match's end and the replay viewer; 12 files.
Screenshots are not compared by the tests: a new browser draws fonts a
little differently.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from cdp import Browser, Page, chromium  # noqa: E402

FIGURES = Path(__file__).resolve().parent / "figures"
#: The screens each page is taken at: (width, height) in CSS pixels.
SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}
#: The pages taken, in the order the docs show them.
SHOTS = ("start", "bots", "table", "settlement", "end", "replay")


def _post(base: str, path: str, body: object) -> dict[str, object]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        answer: dict[str, object] = json.load(response)
        return answer


def _shoot(page: Page, name: str) -> None:
    """``name`` at each screen's size, the page drawn again for it (as its resize handler does)."""
    assert name in SHOTS, name
    for label, (width, height) in SCREENS.items():
        path = FIGURES / f"browser-{name}-{label}.png"
        page.size(width, height, mobile=width < 500)
        page.js(  # the game page and the replay viewer draw for the new size
            "typeof draw === 'function' && typeof current !== 'undefined' && current ? draw()"
            " : typeof show === 'function' && typeof index !== 'undefined' ? show(index) : null"
        )
        # The game page is sent the one drawing of the table its box shows: it
        # asks for the other when the box crosses 560 px, and draws it when it comes.
        page.wait(
            "!document.body.dataset.table || document.body.dataset.table"
            " === tableWanted(document.getElementById('table'))"
        )
        page.screenshot(path, width, height)
        if shutil.which("optipng"):
            subprocess.run(["optipng", "-quiet", "-o2", "-strip", "all", str(path)], check=True)
    page.size(*SCREENS["desktop"])


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
            page.size(*SCREENS["desktop"])
            page.reduced_motion(True)  # each tile where it lies, not on its way in
            page.go(base)
            _shoot(page, "start")
            seats = ["human", "greedy", "search", "random"]
            made = _post(base, "api/matches", {"players": 4, "seats": seats, "seed": 12})
            url = made["seats"][0]["url"]  # type: ignore[index]
            page.go(str(url))
            shot = {"bots": False, "table": False, "settlement": False}
            placed = 0
            while (need := _need(page)) != "end":
                if need == "settlement":
                    if not shot["settlement"]:
                        _shoot(page, "settlement")
                        shot["settlement"] = True
                    page.click("#go-on")
                    page.wait("!document.getElementById('settlement').classList.contains('shown')")
                    continue
                if placed == 2 and not shot["bots"]:
                    _shoot(page, "bots")  # the bots' placements since this seat's turn marked
                    shot["bots"] = True
                if placed == 3 and not shot["table"]:
                    page.click("#hint")  # the hint's tile picked, its point lit, its reason
                    page.wait("Boolean(document.getElementById('hint-why'))")
                    _shoot(page, "table")
                    shot["table"] = True
                _place(page)
                placed += 1
            _shoot(page, "end")
            token = str(url).split("#", 1)[1]
            page.go(f"{base}replay#match={made['id']}&token={token}")
            page.wait("document.body.dataset.frame === '0'")
            for _ in range(16):  # a round well under way
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
