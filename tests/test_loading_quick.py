"""The quick reader of untrusted state texts: the same verdict as the strict reader, faster.

``MatchState.from_json(text)`` first reads a text with the plain JSON parser
and one pass over the document as the writers give it; anything else goes to
the strict reader (``read_json``, the converter, ``_build_state``). Either
way the state is validated in full. These tests pin that the quick reader
takes every honest save, that it never lets through what the strict reader
refuses, and that both give the same state or the same message.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Deal,
    InvalidState,
    MatchState,
    apply,
    legal_moves,
    new_match,
    serial,
    view_for,
)
from american_sniff.serial.quick import NOT_PARSED
from american_sniff.views import view_to_dict
from scenarios import random_play


def _strict_only(text: object, monkeypatch: pytest.MonkeyPatch) -> MatchState | str:
    """What the strict reader alone makes of ``text``: the state, or the message."""
    with monkeypatch.context() as patch:
        # Neither the quick reader's state nor the document it parsed.
        patch.setattr(serial.loading, "quick_read", lambda _: (None, NOT_PARSED))
        return _outcome(text)


def _outcome(text: object) -> MatchState | str:
    try:
        return MatchState.from_json(text)  # type: ignore[call-overload, no-any-return]
    except InvalidState as error:
        return str(error)


def _refuse_strict(*_: object, **__: object) -> object:
    raise AssertionError("the strict reader was used")


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**64 - 1), st.integers(0, 2), st.booleans())
def test_every_honest_save_is_read_by_the_quick_reader(
    players: int, seed: int, given_deals: int, signed: bool
) -> None:
    """Seeded or given deals, signed or not, as text or bytes: the strict reader is not needed."""
    chooser = random.Random(seed)
    size = {2: 7, 3: 6, 4: 5}[players]
    deals = []
    for _ in range(given_deals):
        tiles = list(ALL_TILES)
        chooser.shuffle(tiles)
        hands = [tiles[seat * size : (seat + 1) * size] for seat in range(players)]
        opener = chooser.choice([None, *range(players)])
        deals.append(Deal(hands=hands, stock=tiles[players * size :], opener=opener))
    states = random_play(new_match(players, seed=seed, deals=deals), 300, seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(serial.loading, "read_json", _refuse_strict)
        for state in states[::5] + states[-2:]:
            text = state.to_json(key=b"k" * 16) if signed else state.to_json()
            assert MatchState.from_json(text) == state
            assert MatchState.from_json(text.encode()) == state


def _objects(value: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    """The path of every JSON object in ``value``."""
    if isinstance(value, dict):
        yield path
        for key, item in value.items():
            yield from _objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, (*path, index))


def _at(doc: Any, path: tuple[object, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


_STATES = random_play(new_match(4, seed=8), 200, 8)
_LATE = next(s for s in _STATES if s.round >= 2 and len(s.history) >= 6)
_DOC: dict[str, Any] = json.loads(_LATE.to_json())
_OBJECT_PATHS = list(_objects(_DOC))


@given(st.sampled_from(_OBJECT_PATHS), st.data())
def test_a_repeated_key_in_any_object_is_refused(
    path: tuple[object, ...], data: st.DataObject
) -> None:
    """A key written twice (the first value any JSON) is refused as the strict reader refuses it.

    The plain parser keeps the last value of a repeated key; the quick reader
    must notice the dropped one.
    """
    text = json.dumps(_DOC, separators=(",", ":"))
    target = _at(_DOC, path)
    key = data.draw(st.sampled_from(sorted(target)))
    first = data.draw(st.sampled_from(["0", "7", "null", '"x"', '"[0|0]"', "[]", '{"a":"\\""}']))
    inner = json.dumps(target, separators=(",", ":"))
    assert text.count(inner) == 1  # every object of this document is written once
    forged = inner.replace(f'"{key}":', f'"{key}":{first},"{key}":', 1)
    with pytest.raises(InvalidState, match="appears twice"):
        MatchState.from_json(text.replace(inner, forged))


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.sampled_from([2**53, -(2**53), 2**53 - 1, 0, 1, 5, -5]),
    st.sampled_from(["[0|0]", "[6|6]", "[1|0]", "draw", "pass", "seed", "deal", "domino", "0"]),
    st.text(max_size=8),
    st.lists(st.sampled_from(["[0|1]", "[2|2]", 3]), max_size=3),
    st.just({}),
)


def _value_paths(value: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _value_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _value_paths(item, (*path, index))


_VALUE_PATHS = list(_value_paths(_DOC))


@given(st.lists(st.tuples(st.sampled_from(_VALUE_PATHS), _VALUES), min_size=1, max_size=3))
def test_a_damaged_document_gets_the_strict_readers_verdict(
    changes: list[tuple[tuple[object, ...], object]],
) -> None:
    """Whatever values are replaced, loading gives what the strict reader alone gives.

    The same state when it loads, the same message when it is refused; with
    the document's previous round kept, as a server would have it, so that
    the reader also cuts the kept text out wherever it was left intact.
    """
    MatchState.from_json(_LATE.to_json())
    doc = json.loads(json.dumps(_DOC))
    for path, value in changes:
        try:
            _at(doc, path[:-1])[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the place
    text = json.dumps(doc, separators=(",", ":"))
    with pytest.MonkeyPatch.context() as patch:
        assert _outcome(text) == _strict_only(text, patch)


@pytest.mark.parametrize(
    "change",
    [
        lambda text: text.replace(',"actions_before":', ',"actions_before" :'),
        lambda text: json.dumps(json.loads(text), indent=2),
        lambda text: text.replace(',"dealt_from":"seed"}', "}"),
        lambda text: text.replace("american-sniff/state", "american\\u002dsniff/state"),
    ],
)
def test_documents_not_as_the_writers_give_them_load_as_before(
    change: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spaces, indents, an older document without a key, escapes: the same state as before."""
    text = change(_LATE.to_json())
    assert text != _LATE.to_json()
    assert _outcome(text) == _strict_only(text, monkeypatch) == _LATE


# -- the previous round, read once per round --------------------------------------------


def _round_states(players: int, seed: int) -> list[MatchState]:
    """Two or more states of one round that has a round before it."""
    states = random_play(new_match(players, seed=seed), 400, seed)
    later = [s for s in states if s.round == 2]
    assert len(later) >= 2
    return later


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_states_of_a_round_share_the_previous_round_read_once(players: int) -> None:
    """Loading a second state of the round reuses the first one's previous round, as its value."""
    first, *others = _round_states(players, 21)
    loaded = MatchState.from_json(first.to_json())
    for state in others:
        again = MatchState.from_json(state.to_json())
        assert again == state
        assert again.last_round is loaded.last_round


@pytest.mark.parametrize("players", [2, 4])
def test_a_kept_previous_round_spliced_into_another_match_is_refused(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept text stands for its round only where that round leads to the state."""
    ours = _round_states(players, 3)[0]
    theirs = _round_states(players, 4)[0]
    MatchState.from_json(theirs.to_json())  # its previous round is now kept
    text = ours.to_json()
    start = text.index(',"last_round":') + len(',"last_round":')
    end = text.index(',"actions_before":')
    kept = theirs.to_json()
    spliced = (
        text[:start]
        + kept[
            kept.index(',"last_round":') + len(',"last_round":') : kept.index(',"actions_before":')
        ]
        + text[end:]
    )
    assert spliced != text
    verdict = _outcome(spliced)
    assert isinstance(verdict, str)
    assert verdict == _strict_only(spliced, monkeypatch)


@pytest.mark.parametrize(
    "forge",
    [
        # the kept round after a first last_round key, or before a second one
        lambda text, kept: text.replace(',"last_round":', ',"last_round":null,"last_round":', 1),
        lambda text, kept: text.replace(
            ',"actions_before":', ',"last_round":null,"actions_before":', 1
        ),
        # the kept round moved to the end, after a null in its place
        lambda text, kept: (
            text.replace(',"last_round":' + kept, ',"last_round":null', 1)[:-1]
            + ',"last_round":'
            + kept
            + "}"
        ),
    ],
)
def test_a_kept_previous_round_around_a_repeated_key_is_refused(
    forge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repeated last_round key next to the kept text: the strict reader's verdict."""
    state = _round_states(3, 5)[1]
    text = state.to_json()
    MatchState.from_json(text)
    start = text.index(',"last_round":') + len(',"last_round":')
    kept = text[start : text.index(',"actions_before":')]
    forged = forge(text, kept)
    assert forged != text
    verdict = _outcome(forged)
    assert verdict == _strict_only(forged, monkeypatch)
    assert isinstance(verdict, str)
    assert "appears twice" in verdict


def test_a_tampered_copy_of_a_previous_round_found_good_is_still_checked() -> None:
    """A previous round equal in all but one deduction to one that loaded is refused."""
    state = _round_states(2, 9)[0]
    MatchState.from_json(state.to_json())
    doc = json.loads(state.to_json())
    doc["last_round"]["deductions"][0] += 5
    doc["last_round"]["scores"][0] -= 5
    doc["scores"][0] -= 5
    with pytest.raises(InvalidState):
        MatchState.from_json(json.dumps(doc, separators=(",", ":")))


# -- the history's text, kept from the load ----------------------------------------------


def _reordered_action(text: str) -> str:
    """``text`` with the keys of its history's last action in another order."""
    doc = json.loads(text)
    action = doc["history"][-1]
    doc["history"][-1] = {key: action[key] for key in reversed(list(action))}
    return json.dumps(doc, separators=(",", ":"))


def _spaced_action(text: str) -> str:
    """``text`` with a space in its history's first action (after its seat)."""
    start = text.index(',"history":[{"seat":')
    cut = text.index(",", start + len(',"history":[{"seat":'))
    return text[:cut] + " " + text[cut:]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("change", [lambda text: text, _reordered_action, _spaced_action])
def test_what_an_untrusted_load_writes_is_the_writers_text(players: int, change: Any) -> None:
    """Its state's text, its views' texts and the next state's text: as if never loaded."""
    state = _round_states(players, 13)[-1]
    text = change(state.to_json())
    serial.LOG_TEXTS.clear()
    loaded = MatchState.from_json(text)
    assert loaded == state
    written = loaded.to_json()
    assert written == json.dumps(serial.state_to_dict(state), separators=(",", ":"))
    for seat in [*range(players), None]:
        view = view_for(loaded, seat)
        assert view.to_json() == json.dumps(view_to_dict(view), separators=(",", ":"))
    if loaded.winner is None:
        after = apply(loaded, legal_moves(loaded)[0])
        assert after.to_json() == json.dumps(serial.state_to_dict(after), separators=(",", ":"))


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_server_loop_on_untrusted_text_writes_the_writers_texts(players: int) -> None:
    """Load, view every seat, play, save, for a whole match: every text as the writers give it."""
    chooser = random.Random(players)
    text = new_match(players, seed=players).to_json()
    for _ in range(2000):
        state = MatchState.from_json(text)
        if state.winner is not None:
            break
        for seat in [*range(players), None]:
            view = view_for(state, seat)
            assert view.to_json() == json.dumps(view_to_dict(view), separators=(",", ":"))
        moves = legal_moves(state)
        after = apply(state, moves[chooser.randrange(len(moves))])
        text = after.to_json()
        assert text == json.dumps(serial.state_to_dict(after), separators=(",", ":"))
    assert state.winner is not None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_server_loop_on_signed_text_loads_every_state_and_writes_the_writers_texts(
    players: int,
) -> None:
    """Signed saves, each previous round read once: every state loads as it was saved."""
    key = bytes(range(32))
    chooser = random.Random(players)
    saved = new_match(players, seed=players + 7)
    rounds: dict[int, object] = {}  # each result held, so that no id is reused
    for _ in range(2000):
        state = MatchState.from_json(saved.to_json(key=key), key=key)
        assert state == saved
        if state.last_round is not None:
            rounds[id(state.last_round)] = state.last_round
        if state.winner is not None:
            break
        view = view_for(state, state.turn)
        assert view.to_json() == json.dumps(view_to_dict(view), separators=(",", ":"))
        moves = legal_moves(state)
        saved = apply(state, moves[chooser.randrange(len(moves))])
    assert state.winner is not None
    assert len(rounds) == state.round - 1  # one result per previous round, shared by its states
