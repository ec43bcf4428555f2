"""Every list is length-checked before its elements are read, and messages stay short (issue 42).

Each reader (state, signed state, view, event, record, protocol line) refuses
a list longer than play can need on its length alone, with a message that
names the list, and no error message grows with the input: at most 1 KB.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from american_sniff import (
    ALL_TILES,
    Deal,
    InvalidDeal,
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
from american_sniff.conformance.protocol import Session
from american_sniff.deal import MAX_DEALS
from american_sniff.errors import MAX_MESSAGE_BYTES, bounded_message

KEY = b"a key of sixteen bytes or more"
Doc = dict[str, Any]


def _deal(chooser: random.Random, players: int = 2) -> Deal:
    tiles = list(ALL_TILES)
    chooser.shuffle(tiles)
    size = {2: 7, 3: 6, 4: 5}[players]
    return Deal([tiles[s * size : (s + 1) * size] for s in range(players)], tiles[players * size :])


def _deal_doc(deal: Deal) -> Doc:
    return {
        "hands": [[str(t) for t in hand] for hand in deal.hands],
        "stock": [str(t) for t in deal.stock],
        "opener": deal.opener,
    }


def _played(players: int = 3, steps: int = 40) -> list[Any]:
    chooser = random.Random(players)
    state = new_match(players, seed=5)
    states = [state]
    while state.winner is None and len(states) <= steps:
        state = apply(state, chooser.choice(legal_moves(state)))
        states.append(state)
    return states


def _later_round() -> Any:
    """A state of round 2 or later, some actions in."""
    for state in _played(3, 400):
        if state.round > 1 and len(state.history) >= 4:
            return state
    raise AssertionError("no such state")


def _refused(read: Callable[[str], object], error: type[Exception], doc: object) -> str:
    with pytest.raises(error) as caught:
        read(json.dumps(doc, separators=(",", ":")))
    return str(caught.value)


# -- deals ---------------------------------------------------------------------------


def test_a_match_takes_at_most_max_deals_deals() -> None:
    """new_match refuses one deal too many, so every state it gives can be saved and loaded."""
    chooser = random.Random(1)
    deal = _deal(chooser)
    with pytest.raises(InvalidDeal, match=f"at most {MAX_DEALS} deals"):
        new_match(2, seed=1, deals=[deal] * (MAX_DEALS + 1))
    state = new_match(2, seed=1, deals=[deal] * MAX_DEALS)
    assert MatchState.from_json(state.to_json()) == state
    assert MatchState.from_json(state.to_json(key=KEY), key=KEY) == state


def test_a_state_of_too_many_valid_deals_is_refused_unread() -> None:
    """3,500 valid deals (almost 1 MiB): refused on the list's length, before a deal is built."""
    chooser = random.Random(2)
    doc: Doc = json.loads(new_match(2, seed=1).to_json())
    doc["deals"] = [_deal_doc(_deal(chooser))] * 3500
    message = _refused(MatchState.from_json, InvalidState, doc)
    assert message == f"$.deals holds 3500 deals; a match is given at most {MAX_DEALS} deals"


def test_a_deal_of_too_many_hands_is_refused_unread() -> None:
    """A deal (or a state) with more hands than seats: refused on the length."""
    doc: Doc = json.loads(new_match(2, seed=1).to_json())
    hand = doc["hands"][0]  # seven tiles: as dense as a real hand
    doc["deals"] = [{"hands": [hand] * 5000, "stock": [], "opener": None}]
    assert _refused(MatchState.from_json, InvalidState, doc).startswith(
        "$.deals[0].hands holds 5000 hands; no match has more than 4 seats"
    )
    doc = json.loads(new_match(2, seed=1).to_json())
    doc["hands"] = [hand] * 5000
    assert _refused(MatchState.from_json, InvalidState, doc).startswith("$.hands holds 5000 hands")


def test_a_previous_round_of_too_many_hands_is_refused_unread() -> None:
    """last_round's hands, deductions and scores are bounded by the seats and sides."""
    doc: Doc = json.loads(_later_round().to_json())
    doc["last_round"]["hands"] = [[str(tile) for tile in ALL_TILES[:6]]] * 3000
    assert _refused(MatchState.from_json, InvalidState, doc).startswith(
        "$.last_round.hands holds 3000 hands"
    )


# -- views and events ------------------------------------------------------------------


def _view_doc() -> Doc:
    state = _later_round()
    doc: Doc = json.loads(view_for(state, 0).to_json(geometry=True))
    return doc


_TILES6 = [str(tile) for tile in ALL_TILES[:6]]


@pytest.mark.parametrize(
    ("path", "element", "start"),
    [
        (("geometry", "tiles"), None, "$.geometry.tiles holds 500 tiles"),
        (("geometry", "anchors"), None, "$.geometry.anchors holds 500 anchors"),
        (("geometry", "tiles", 0, "edges"), None, "$.geometry.tiles[0].edges holds 500 edges"),
        (("table", "contributions"), None, "$.table.contributions holds 500 contributions"),
        (("table", "open_points"), None, "$.table.open_points holds 500 points"),
        (("table", "placements"), None, "$.table.placements holds 500 placements"),
        (("last_round", "hands"), _TILES6, "$.last_round.hands holds 500 hands"),
        (("voids",), [3], "$.voids holds 500 lists"),
        (("hand_sizes",), 1234567, "$.hand_sizes holds 500 integers"),
    ],
)
def test_every_list_of_a_view_is_bounded_before_it_is_read(
    path: tuple[Any, ...], element: object, start: str
) -> None:
    """Geometry, contributions, hands...: 500 plausible elements are refused on the length."""
    doc = _view_doc()
    target = doc
    for step in path[:-1]:
        target = target[step]
    items = target[path[-1]]
    target[path[-1]] = [items[0] if element is None else element] * 500
    assert _refused(PlayerView.from_json, InvalidView, doc).startswith(start)


def test_an_event_and_its_next_round_are_bounded_too() -> None:
    """An event's voids, and the view of its next round, are length-checked."""
    state = _later_round()
    doc: Doc = json.loads(event_for(state, 0).to_json())
    doc["voids"] = [[3]] * 400  # (denser lists are refused unread)
    assert _refused(ViewEvent.from_json, InvalidView, doc).startswith("$.voids holds 400 lists")


# -- records ---------------------------------------------------------------------------------


def test_a_record_of_too_many_rounds_is_refused_unread() -> None:
    """More rounds than a match is given deals: refused on the length, before one is built."""
    doc: Doc = json.loads(record_match(_played(2, 30)).to_json())
    doc["rounds"] = doc["rounds"][:1] * (MAX_DEALS + 1)
    message = _refused(MatchRecord.from_json, InvalidRecord, doc)
    assert message == f"$.rounds holds {MAX_DEALS + 1} rounds; a record holds at most 1000 rounds"
    doc["rounds"] = doc["rounds"][:1]
    doc["rounds"][0]["hands"] = [[]] * 100
    assert _refused(MatchRecord.from_json, InvalidRecord, doc).startswith(
        "$.rounds[0].hands holds 100 hands"
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_round_before_the_last_holds_at_least_a_hands_worth_of_actions(players: int) -> None:
    """No round ends in fewer actions than a hand holds; only a record's last may stop sooner.

    The adversary's record of rounds of one action each (no play gives one)
    is refused on the lists' lengths, before a round is built; a round of a
    hand's worth reads, and so does a last round of any length.
    """
    least = {2: 7, 3: 6, 4: 5}[players]
    states = _played(players, 600)
    doc: Doc = json.loads(record_match(states).to_json())
    assert len(doc["rounds"]) >= 2
    first = doc["rounds"][0]
    assert len(first["actions"]) >= least  # a played record
    short = {**first, "actions": first["actions"][: least - 1]}
    for rounds in ([short, first], [first, short, first], [short] * 1000):
        message = _refused(MatchRecord.from_json, InvalidRecord, {**doc, "rounds": rounds})
        index = rounds.index(short)
        assert message == (
            f"$.rounds[{index}].actions holds {least - 1} actions, but round {index + 1} is not "
            f"the record's last, so it ended, and no round of {players} players ends in fewer "
            f"than {least} (a hand's worth)"
        )
    enough = {**first, "actions": first["actions"][:least]}
    for rounds in ([enough, first], [first, short], [first, {**first, "actions": []}]):
        record = MatchRecord.from_json(json.dumps({**doc, "rounds": rounds}))
        assert [len(r.actions) for r in record.rounds] == [len(r["actions"]) for r in rounds]


# -- the protocol -------------------------------------------------------------------------------


def test_the_protocol_bounds_the_deals_of_new_and_the_hands_of_settle() -> None:
    """A new of 3,500 deals is invalid_deal, a settle of 15,000 hands bad_request: unread."""
    chooser = random.Random(3)
    deal = _deal_doc(_deal(chooser))
    compact = (",", ":")
    line = json.dumps({"cmd": "new", "players": 2, "deals": [deal] * 3500}, separators=compact)
    answer = json.loads(Session().handle_line(line))
    assert answer["error"] == "invalid_deal"
    assert answer["message"].startswith("$.deals holds 3500 deals")
    hand = deal["hands"][0]
    line = json.dumps({"cmd": "settle", "players": 2, "hands": [hand] * 15_000}, separators=compact)
    answer = json.loads(Session().handle_line(line))
    assert answer["error"] == "bad_request"
    assert answer["message"].startswith("$.hands holds 15000 hands")


# -- messages ------------------------------------------------------------------------------------


def test_unknown_keys_deep_in_a_document_are_counted_and_three_named() -> None:
    """70,000 unknown keys in a deal: the message counts them and names three, not every one."""
    doc: Doc = json.loads(new_match(2, seed=1).to_json())
    doc["deals"] = [{"hands": [], "stock": [], "opener": 0, **{f"k{i}": 0 for i in range(70_000)}}]
    message = _refused(MatchState.from_json, InvalidState, doc)
    assert message.endswith("extra fields found (k0, k1, k2, ... 70000 in all) @ $.deals[0]")
    assert len(message) < 200


def _first_view() -> PlayerView:
    return view_for(new_match(2, seed=1), 0)


@pytest.mark.parametrize(
    ("read", "error", "make"),
    [
        (MatchState.from_json, InvalidState, lambda: json.loads(new_match(2, seed=1).to_json())),
        (PlayerView.from_json, InvalidView, lambda: json.loads(_first_view().to_json())),
        (
            MatchRecord.from_json,
            InvalidRecord,
            lambda: json.loads(record_match([new_match(2, seed=1)]).to_json()),
        ),
    ],
    ids=["state", "view", "record"],
)
@pytest.mark.parametrize("where", ["value", "key"])
def test_no_message_echoes_a_long_astral_string(
    read: Callable[[str], object], error: type[Exception], make: Callable[[], Doc], where: str
) -> None:
    """A string of 60,000 astral characters where a tile or a key goes: the message stays short."""
    doc = make()
    long = "\U0001f600" * 60_000
    if where == "key":
        doc[long] = 0
    else:
        doc["format"] = long
    text = json.dumps(doc, ensure_ascii=False)
    with pytest.raises(error) as caught:
        read(text)
    assert len(str(caught.value).encode("utf-8", "surrogatepass")) <= MAX_MESSAGE_BYTES


def test_the_protocol_never_echoes_a_long_value() -> None:
    """An unknown command of 200,000 characters: the answer's message is at most 1 KB."""
    line = json.dumps({"cmd": "\U0001f600" * 200_000}, ensure_ascii=False)
    answer = json.loads(Session().handle_line(line))
    assert answer["error"] == "bad_request"
    assert len(answer["message"].encode()) <= MAX_MESSAGE_BYTES


@pytest.mark.parametrize("text", ["x" * 5000, "\U0001f600" * 400, "\ud800" * 2000, "é" * 999])
def test_a_bounded_message_keeps_its_start_within_a_kilobyte(text: str) -> None:
    """Cut on a character boundary, with the length said; a short one is kept whole."""
    message = bounded_message(text)
    size = len(text.encode("utf-8", "surrogatepass"))
    assert len(message.encode("utf-8", "surrogatepass")) <= MAX_MESSAGE_BYTES
    if size <= MAX_MESSAGE_BYTES:
        assert message == text
    else:
        assert message.endswith(f"... ({len(text)} characters in all)")
        assert text.startswith(message.split("... (")[0])


# -- the caches -------------------------------------------------------------------------------


def test_the_caches_kept_per_save_hold_at_most_saves_kept_entries() -> None:
    """After more distinct saves than SAVES_KEPT, each per-save cache holds at most that many.

    Each entry keeps a whole action log alive (some 17 KB for a distinct
    save), so the count bounds their memory: 2,048 of them, far below 50 MB.
    """
    from american_sniff.serial import writing

    loaded = 0
    seed = 0
    while loaded < writing.SAVES_KEPT + 200:
        chooser = random.Random(seed)
        state = new_match(2, seed=seed)
        seed += 1
        while state.winner is None and loaded < writing.SAVES_KEPT + 200:
            state = apply(state, chooser.choice(legal_moves(state)))
            MatchState.from_json(state.to_json(key=KEY), key=KEY)
            loaded += 1
    assert writing.SAVES_KEPT == 2048
    for cache in (writing.LOG_TEXTS, writing.ROUND_TEXTS, writing.SIGNED_PLACEMENTS):
        assert len(cache) <= writing.SAVES_KEPT
