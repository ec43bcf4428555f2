"""The pages docs/protocol.md and docs/conformance.md say what is true.

Their ``>>>`` examples run as doctests with every page of docs/; these tests
check the rest: the JSON request shown, and the names the pages give.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import generate_vectors as generate
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


#: A vector id in backticks, as the pages name them.
NAMED_ID = r"`((?:positions|settlement|refusals|order|robustness|seeds|perft|matches)/[a-z0-9_-]+)`"


def test_every_vector_the_pages_name_in_backticks_exists() -> None:
    """protocol.md and conformance.md name only vectors that ship."""
    ids = {vector.id for vector in load_vectors()}
    for page in ("protocol.md", "conformance.md"):
        named = set(re.findall(NAMED_ID, (DOCS / page).read_text(encoding="utf-8")))
        assert named <= ids, (page, named - ids)


def test_the_order_of_the_error_kinds_names_a_vector_per_pair() -> None:
    """The section lists exactly the error pairs the generator makes a vector for."""
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    section = text.split("### The order of the error kinds", 1)[1].split("\n## ", 1)[0]
    named = {ident for ident in re.findall(NAMED_ID, section) if "-before-" in ident}
    pairs = {f"robustness/{first}-before-{second}" for first, second, *_ in generate.ERROR_PAIRS}
    assert named == pairs
