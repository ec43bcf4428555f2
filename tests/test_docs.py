"""The examples of the docs pages run."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

_DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("page", ["bots.md"])
def test_the_examples_of_a_docs_page_run(page: str) -> None:
    """Every ``>>>`` example of the page gives the output written under it."""
    result = doctest.testfile(
        str(_DOCS / page), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted > 0
    assert result.failed == 0
