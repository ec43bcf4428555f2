"""Hostile texts of up to 1 MiB: each reader refuses them with its documented error only."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from american_sniff import (
    InvalidRecord,
    InvalidState,
    InvalidView,
    MatchRecord,
    MatchState,
    PlayerView,
    ViewEvent,
    apply,
    event_for,
    legal_moves,
    new_match,
    record_match,
    view_for,
)

_MIB = 1 << 20


def _state_with_history(element: object) -> str:
    """A real save whose history is as many copies of ``element`` as fit in 1 MiB."""
    doc = json.loads(new_match(players=2, seed=1).to_json())
    doc["history"] = [element] * ((_MIB - 1024) // (len(json.dumps(element)) + 1))
    text = json.dumps(doc, separators=(",", ":"))
    assert len(text.encode()) <= _MIB
    return text


@pytest.mark.parametrize("element", [{}, [], "", [[[[]]]]], ids=["dict", "list", "str", "nested"])
def test_a_mib_of_bad_actions_is_refused_with_invalid_state(element: object) -> None:
    """Many malformed actions: refused unread, as denser than any state, with InvalidState."""
    with pytest.raises(InvalidState, match=r"^the state is refused unread: it holds \d+ "):
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


def _state_doc() -> dict[str, object]:
    doc: dict[str, object] = json.loads(new_match(players=2, seed=1).to_json())
    return doc


@pytest.mark.parametrize(
    ("element", "kind"),
    [([], "an array"), ("", "a string"), (None, "null"), (7, "a number")],
    ids=["list", "str", "null", "number"],
)
def test_an_element_that_is_no_action_is_named_with_what_it_is(element: object, kind: str) -> None:
    """A history of [] or "": the message names the element, what it should be and what it is."""
    doc = _state_doc()
    doc["history"] = [element] * 3
    with pytest.raises(InvalidState) as caught:
        MatchState.from_json(json.dumps(doc))
    assert str(caught.value) == (
        f"the state is not in the format: expected an action object, got {kind} @ $.history[0]"
    )


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("last_round", [], "expected a round object, got an array @ $.last_round"),
        ("deals", [""], "expected a deal object, got a string @ $.deals[0]"),
        ("deals", [[]], "expected a deal object, got an array @ $.deals[0]"),
    ],
)
def test_other_objects_of_a_state_are_named_too(key: str, value: object, message: str) -> None:
    """A finished round or a deal that is no object: a clear message, not an "unknown error"."""
    doc = _state_doc()
    doc[key] = value
    with pytest.raises(InvalidState, match=r"^the state is not in the format: ") as caught:
        MatchState.from_json(json.dumps(doc))
    assert str(caught.value).endswith(message)
    assert "unknown error" not in str(caught.value)


def test_a_view_history_of_lists_is_named() -> None:
    """The view reader shares the converter: the same clear message for its history."""
    doc = json.loads(view_for(new_match(players=2, seed=1), 0).to_json())
    doc["history"] = [[]]
    with pytest.raises(InvalidView) as caught:
        PlayerView.from_json(json.dumps(doc))
    assert str(caught.value).endswith("expected an action object, got an array @ $.history[0]")


def test_a_record_round_that_is_a_string_is_named() -> None:
    """The record reader shares the converter too: a round that is a string is named as such."""
    doc = json.loads(record_match([new_match(players=2, seed=1)]).to_json())
    doc["rounds"] = [""]
    with pytest.raises(InvalidRecord) as caught:
        MatchRecord.from_json(json.dumps(doc))
    assert "got a string @ $.rounds[0]" in str(caught.value)
    assert "unknown error" not in str(caught.value)


@pytest.mark.parametrize(
    ("shape", "element"),
    [("containers", []), ("commas", 0)],
)
def test_a_text_denser_than_any_document_is_refused_unread(shape: str, element: object) -> None:
    """Far more arrays or values than a state of its length holds: refused before parsing."""
    doc = _state_doc()
    doc["scores"] = [element] * 20_000
    words = "arrays and objects" if shape == "containers" else "values"
    refused = f"^the state is refused unread: it holds 200\\d\\d {words} in "
    with pytest.raises(InvalidState, match=refused):
        MatchState.from_json(json.dumps(doc, separators=(",", ":")))


@pytest.mark.parametrize(
    "read",
    [PlayerView.from_json, ViewEvent.from_json, MatchRecord.from_json],
    ids=["view", "event", "record"],
)
def test_every_reader_refuses_a_dense_text_unread(read: Callable[[str], object]) -> None:
    """The view, event and record readers share the check (a list of 50,000 empty lists)."""
    with pytest.raises((InvalidView, InvalidRecord), match="is refused unread: it holds 50001 "):
        read("[" + ",".join(["[]"] * 50_000) + "]")


def test_a_dense_protocol_line_is_answered_with_bad_json() -> None:
    """The engine protocol answers a line of 100,000 empty objects with bad_json, unread."""
    from american_sniff.conformance.protocol import Session

    answer = json.loads(Session().handle_line("[" + ",".join(["{}"] * 100_000) + "]"))
    assert answer["error"] == "bad_json"
    assert "refused unread" in answer["message"]


def test_a_history_longer_than_any_round_is_refused_before_it_is_read() -> None:
    """113 plausible actions: refused on the list's length, before any action is read."""
    doc = _state_doc()
    action = {"seat": 0, "move": "draw", "tile": "[0|0]", "end_sum": None, "points": None}
    doc["history"] = [action] * 113
    with pytest.raises(InvalidState, match=r"^\$\.history holds 113 actions; no round holds more"):
        MatchState.from_json(json.dumps(doc))
    view = json.loads(view_for(new_match(players=2, seed=1), 0).to_json())
    view["history"] = [{"seat": 0, "move": "draw", "tile": None, "end_sum": None, "points": None}]
    view["history"] *= 113
    with pytest.raises(InvalidView, match=r"^\$\.history holds 113 actions"):
        PlayerView.from_json(json.dumps(view))


def test_a_stock_of_more_tiles_than_the_set_is_refused_before_it_is_read() -> None:
    """29 tiles in the stock: refused on the list's length (the set has 28)."""
    doc = _state_doc()
    doc["stock"] = ["[0|0]"] * 29
    with pytest.raises(InvalidState, match=r"^\$\.stock holds 29 tiles; there are 28$"):
        MatchState.from_json(json.dumps(doc))


def test_many_unknown_keys_are_counted_and_the_first_named() -> None:
    """Thousands of unknown keys: the message counts them and names three, not every one."""
    doc = _state_doc()
    doc.update({f"k{index}": 0 for index in range(5000)})
    with pytest.raises(InvalidState) as caught:
        MatchState.from_json(json.dumps(doc))
    assert str(caught.value) == (
        "the state is not in the format: 5000 unknown keys (k0, k1, k2, ...) @ $"
    )


def test_more_legal_moves_than_any_position_has_are_refused_before_they_are_read() -> None:
    """113 legal moves (no position has more than 4 x 28): refused on the list's length."""
    state = new_match(players=2, seed=1)
    after = apply(state, legal_moves(state)[0])
    event = json.loads(event_for(after, after.turn).to_json())
    assert event["legal_moves"], "the seat to move has a move"
    event["legal_moves"] = [event["legal_moves"][0]] * 113
    with pytest.raises(InvalidView, match=r"^\$\.legal_moves holds 113 moves; no position has"):
        ViewEvent.from_json(json.dumps(event))
    view = json.loads(view_for(state, state.turn).to_json())
    view["previews"] = [view["previews"][0]] * 113
    with pytest.raises(InvalidView, match=r"^\$\.previews holds 113 moves; no position has"):
        PlayerView.from_json(json.dumps(view))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (', "zzz": 1, "zzz": 2', "the key 'zzz' appears twice in one object"),
        (', "zzz": 12345678901234567890123', "has more than 20 digits"),
    ],
    ids=["repeated-key", "long-number"],
)
def test_what_only_the_strict_parser_refuses_is_refused_after_the_quick_reader(
    extra: str, message: str
) -> None:
    """The strict reader reuses the quick reader's document only where the two parsers agree."""
    text = _state_doc_text()[:-1] + extra + "}"
    with pytest.raises(InvalidState, match=message):
        MatchState.from_json(text)


def _state_doc_text() -> str:
    return json.dumps(_state_doc())
