"""The pages docs/protocol.md and docs/conformance.md say what is true.

Their ``>>>`` examples run as doctests with every page of docs/; these tests
check the rest: the JSON request shown, and the names the pages give.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from american_sniff.conformance.loading import load_vectors
from american_sniff.conformance.protocol import Session

DOCS = Path(__file__).parents[1] / "docs"
WRONG_ENGINES = Path(__file__).parent / "wrong_engines"


def test_the_new_request_shown_in_json_is_a_real_one() -> None:
    """The sample new request with a deal starts a match where opening [0|5] wins."""
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)```", text, flags=re.DOTALL)
    assert block is not None
    session = Session()
    assert session.handle(json.loads(block.group(1)))["ok"]
    assert session.handle({"cmd": "move", "move": "[0|5] opens"})["winner"] == 0


def test_the_pages_name_what_exists() -> None:
    """The vector ids, files and wrong engines the pages name are real."""
    text = (DOCS / "conformance.md").read_text(encoding="utf-8")
    ids = {vector.id for vector in load_vectors()}
    for named in re.findall(
        r'"((?:positions|settlement|refusals|order|robustness|seeds|perft|matches)/[a-z0-9-]+)"',
        text,
    ):
        assert named in ids
    for engine in re.findall(r"`(\w+\.py)`", text):
        assert (WRONG_ENGINES / engine).is_file(), engine
