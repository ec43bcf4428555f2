"""The browser game's screenshots in docs/figures: all twelve, at the screens' sizes, all shown."""

from __future__ import annotations

import re
import struct
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
#: The pages and screens that ``docs/make_screenshots.py`` takes.
PAGES = ("start", "bots", "table", "settlement", "end", "replay")
SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}


def _png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_each_page_is_taken_at_each_screens_size_and_kept_small() -> None:
    """Twelve files, each exactly its screen's size (no smaller scale), none over 200 KB."""
    for page in PAGES:
        for label, size in SCREENS.items():
            path = DOCS / "figures" / f"browser-{page}-{label}.png"
            assert _png_size(path) == size, path
            assert path.stat().st_size < 200_000, path
    assert len(list((DOCS / "figures").glob("browser-*.png"))) == len(PAGES) * len(SCREENS)


def test_the_script_takes_them_and_the_guide_shows_them_all() -> None:
    """make_screenshots.py names the same pages and screens; playing-browser.md shows each file."""
    script = (DOCS / "make_screenshots.py").read_text()
    assert re.search(r'SCREENS = \{"desktop": \(1280, 800\), "phone": \(390, 844\)\}', script)
    assert "SHOTS = (" + ", ".join(f'"{page}"' for page in PAGES) + ")" in script
    guide = (DOCS / "playing-browser.md").read_text()
    shown = set(re.findall(r"\]\(figures/(browser-[a-z]+-[a-z]+\.png)\)", guide))
    assert shown == {f"browser-{p}-{s}.png" for p in PAGES for s in SCREENS}
