"""Hostile texts of up to 1 MiB: each reader refuses them with its documented error only."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from american_sniff import InvalidState, InvalidView, MatchState, PlayerView, ViewEvent, new_match

_MIB = 1 << 20


def _state_with_history(element: object) -> str:
    """A real save whose history is as many copies of ``element`` as fit in 1 MiB."""
    doc = json.loads(new_match(players=2, seed=1).to_json())
    doc["history"] = [element] * (_MIB // (len(json.dumps(element)) + 1) - 200)
    text = json.dumps(doc, separators=(",", ":"))
    assert len(text.encode()) <= _MIB
    return text


@pytest.mark.parametrize("element", [{}, [], "", [[[[]]]]], ids=["dict", "list", "str", "nested"])
def test_a_mib_of_bad_actions_is_refused_with_invalid_state(element: object) -> None:
    """Many malformed actions: refused at the first one, with InvalidState and its path."""
    with pytest.raises(InvalidState, match=r"history\[0\]"):
        MatchState.from_json(_state_with_history(element))


@pytest.mark.parametrize(
    "text",
    [
        "[" * _MIB,
        '{"seed":' + "9" * (_MIB - 20) + "}",
        '{"seed":"' + "x" * (_MIB - 20) + '"}',
    ],
    ids=["deep", "huge-number", "long-string"],
)
@pytest.mark.parametrize(
    ("read", "error"),
    [
        (MatchState.from_json, InvalidState),
        (PlayerView.from_json, InvalidView),
        (ViewEvent.from_json, InvalidView),
    ],
    ids=["state", "view", "event"],
)
def test_a_hostile_mib_is_refused_with_the_documented_error(
    read: Callable[[str], object], error: type[Exception], text: str
) -> None:
    """Deep nesting, a huge number, a long string: the reader's own error, never another."""
    with pytest.raises(error):
        read(text)
