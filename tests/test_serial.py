"""Saving and loading states: ``MatchState.to_json`` and ``MatchState.from_json``.

``ROUNDTRIP_MATCHES`` (default 30, a third of that under the quick Hypothesis
profile: see ``scenarios.sweep``) sets how many random matches the exhaustive
round-trip test plays; CI runs it with 300 (100 each of 2, 3 and 4 players).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    IllegalMove,
    InvalidState,
    MatchState,
    apply,
    legal_moves,
    new_match,
    parse_move,
)
from american_sniff.conformance.protocol import read_move  # deprecated: its alias is tested
from american_sniff.serial import MAX_STATE_BYTES, context_key, state_to_dict
from scenarios import DRAW_DEAL, sweep

ROUNDTRIP_MATCHES = int(os.environ.get("ROUNDTRIP_MATCHES") or sweep(30))


def _states(players: int, seed: int) -> Iterator[MatchState]:
    """Every state of a seeded random match, the final one included."""
    rng = random.Random(seed)
    state = new_match(players, seed=seed)
    yield state
    while not state.is_over:
        state = apply(state, rng.choice(legal_moves(state)))
        yield state


def _doc(state: MatchState) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(state.to_json())
    return loaded


def _mid_round(players: int = 2, seed: int = 5, round_: int = 2, placed: int = 4) -> MatchState:
    """A state of round ``round_`` with at least ``placed`` tiles on the table."""
    for state in _states(players, seed):
        if state.round == round_ and len(state.layout) >= placed:
            return state
    raise AssertionError("the match ended too early")


def _load(doc: dict[str, Any]) -> MatchState:
    return MatchState.from_json(json.dumps(doc))


# -- the round trip ---------------------------------------------------------------------


#: The round-trip matches are split into this many tests, so pytest-xdist can share them out.
_CHUNKS = 10


@pytest.mark.sweep
@pytest.mark.parametrize("chunk", range(_CHUNKS))
def test_every_state_of_random_matches_round_trips_exactly(chunk: int) -> None:
    """``from_json(to_json(s)) == s`` with the same legal moves, over whole random matches.

    The matches are split evenly between 2, 3 and 4 players; this test plays
    every ``_CHUNKS``-th one of the ``ROUNDTRIP_MATCHES``, from ``chunk``.
    """
    count = matches = 0
    for number in range(chunk, ROUNDTRIP_MATCHES, _CHUNKS):
        players = 2 + number % 3
        for state in _states(players, 1000 + number):
            loaded = MatchState.from_json(state.to_json())
            assert loaded == state
            assert legal_moves(loaded) == legal_moves(state)
            count += 1
        matches += 1
    assert matches == len(range(chunk, ROUNDTRIP_MATCHES, _CHUNKS))
    assert count > 100 * matches


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_loaded_state_has_the_same_future(players: int) -> None:
    """The same moves from a loaded state give the same states as from the original."""
    state = _mid_round(players, seed=players, round_=2, placed=3)
    loaded = MatchState.from_json(state.to_json())
    rng = random.Random(9)
    for _ in range(200):
        if state.is_over:
            break
        position = rng.randrange(len(legal_moves(state)))
        state = apply(state, legal_moves(state)[position])
        loaded = apply(loaded, legal_moves(loaded)[position])
        assert loaded == state


def test_bytes_load_like_text() -> None:
    """UTF-8 bytes load like the text they encode."""
    state = _mid_round()
    assert MatchState.from_json(state.to_json().encode()) == state


def test_a_mid_round_four_player_state_is_a_few_kilobytes() -> None:
    """No state of several 4-player matches takes more than 6 KB (the last round included)."""
    largest = max(len(s.to_json()) for seed in range(6) for s in _states(4, seed))
    assert 1000 < largest < 6000


def test_the_document_holds_everything_needed_to_go_on() -> None:
    """The documented top-level keys, in order, with big integers as decimal strings."""
    state = apply(
        new_match(2, seed=2**64 - 1, deals=[DRAW_DEAL, DRAW_DEAL]),
        legal_moves(new_match(2, seed=2**64 - 1, deals=[DRAW_DEAL]))[0],
    )
    doc = _doc(state)
    assert list(doc) == [
        "format",
        "format_version",
        "rules_version",
        "players",
        "seed",
        "rng",
        "round",
        "opener",
        "turn",
        "scores",
        "winner",
        "hands",
        "stock",
        "drawn",
        "history",
        "deals",
        "last_round",
        "actions_before",
        "dealt_from",
    ]
    assert (doc["format"], doc["format_version"], doc["rules_version"]) == (
        "american-sniff/state",
        1,
        "1",
    )
    assert doc["seed"] == "18446744073709551615"
    assert doc["rng"] == str(state.info.rng)
    assert len(doc["deals"]) == 1
    assert doc["history"] == [
        {"seat": 0, "move": "[0|0] opens", "tile": None, "end_sum": 0, "points": 0}
    ]


def _numbers(value: object) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_number_is_beyond_what_javascript_holds_exactly(players: int) -> None:
    """Every JSON number fits in 2**53; seeds and generator states are strings."""
    for seed in (2**64 - 1, 2**63 + 12345):
        for state in list(_states(players, seed))[::25]:
            assert all(abs(n) < 2**53 for n in _numbers(_doc(state)))


def test_no_private_field_or_cache_is_written() -> None:
    """The JSON names no private field, cache or internal mask."""
    state = _mid_round()
    legal_moves(state)  # fill the cache
    text = state.to_json()
    for name in ("_legal", "_log", "open_keys", "tile_mask", "value_mask", "drawn_count", "info"):
        assert f'"{name}"' not in text


def test_a_draw_in_the_history_names_its_tile_and_the_stock_goes_on_from_it() -> None:
    """The drawn tiles are in the history; the stock is what is left, in order."""
    state = new_match(2, seed=1, deals=[DRAW_DEAL])
    state = apply(state, legal_moves(state)[0])
    state = apply(state, legal_moves(state)[0])  # seat 1 draws [5|5]
    doc = _doc(state)
    assert doc["history"][-1] == {
        "seat": 1,
        "move": "draw",
        "tile": "[5|5]",
        "end_sum": None,
        "points": None,
    }
    assert doc["stock"][:2] == ["[6|6]", "[0|3]"]
    assert MatchState.from_json(state.to_json()) == state


# -- refusing what the rules cannot reach -------------------------------------------------


def _edit(change: Callable[[dict[str, Any]], object], state: MatchState | None = None) -> str:
    """The message of the InvalidState that loading ``state``'s document after ``change`` raises."""
    doc = _doc(state or _mid_round())
    change(doc)
    with pytest.raises(InvalidState) as error:
        _load(doc)
    return str(error.value)


def test_a_missing_tile_is_refused() -> None:
    """A tile that is nowhere is named."""
    message = _edit(lambda doc: doc["stock"].pop())
    assert "is missing" in message


def test_a_tile_in_two_places_is_refused() -> None:
    """A tile both in a hand and in the stock is named with both places."""

    def change(doc: dict[str, Any]) -> None:
        doc["stock"][0] = doc["hands"][1][0]

    message = _edit(change)
    assert "in more than one place" in message
    assert "hand 1 and the stock" in message


def test_a_table_that_is_no_legal_sequence_of_placements_is_refused() -> None:
    """A placement on a point that is not open is named with its index."""

    def change(doc: dict[str, Any]) -> None:
        placements = [a for a in doc["history"] if a["end_sum"] is not None]
        placements[1]["move"] = placements[1]["move"].split(" on ")[0] + " on [6|6] line_b"

    assert "not a legal sequence of placements: placement 2" in _edit(change)


def test_hand_sizes_no_play_can_reach_are_refused() -> None:
    """Moving a tile from one hand to another gives hand sizes no deal leads to."""

    def change(doc: dict[str, Any]) -> None:
        doc["hands"][0].append(doc["hands"][1].pop())

    assert "hand sizes no play can reach" in _edit(change)


def test_a_drawn_tile_that_does_not_fit_is_refused() -> None:
    """``drawn`` must be a tile that fits an open point."""
    state = _mid_round()
    misfit = next(t for t in state.hands[state.turn] if not state.layout.fits(t))

    def change(doc: dict[str, Any]) -> None:
        doc["drawn"] = str(misfit)

    assert f"the drawn tile {misfit} does not fit" in _edit(change, state)


def test_a_drawn_tile_that_was_not_just_drawn_is_refused() -> None:
    """A fitting ``drawn`` tile needs a draw of that tile as the last action."""
    state = _mid_round()
    fitting = next(t for t in state.hands[state.turn] if state.layout.fits(t))

    def change(doc: dict[str, Any]) -> None:
        doc["drawn"] = str(fitting)

    assert "was not just drawn" in _edit(change, state)


def test_a_winner_below_the_target_is_refused() -> None:
    """A winner must have reached the target."""
    assert "below the target" in _edit(lambda doc: doc.update(winner=0))


def test_a_score_at_the_target_without_a_winner_is_refused() -> None:
    """A side at or past the target means the match is over."""

    def change(doc: dict[str, Any]) -> None:
        doc["scores"][1] = 250

    assert "at or past the target 250, but there is no winner" in _edit(change)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("turn", 2, "turn must be a seat from 0 to 1, got 2"),
        ("turn", -1, "turn must be a seat from 0 to 1, got -1"),
        ("opener", 5, "opener must be a seat from 0 to 1, got 5"),
        ("winner", 3, "winner (a side) must be a seat from 0 to 1, got 3"),
        ("players", 5, "players must be 2, 3 or 4"),
        ("round", 0, "round must be an integer from 1 to 2**53 - 1"),
    ],
)
def test_seats_and_numbers_out_of_range_are_refused(key: str, value: int, message: str) -> None:
    """A turn, opener, winner, player count or round out of range is named."""
    assert message in _edit(lambda doc: doc.update({key: value}))


def test_an_action_by_a_seat_out_of_range_is_refused() -> None:
    """Every action's seat is checked."""

    def change(doc: dict[str, Any]) -> None:
        doc["history"][0]["seat"] = 7

    assert "$.history[0].seat must be from 0 to 1, got 7" in _edit(change)


def test_an_action_out_of_turn_is_refused() -> None:
    """An action by the wrong seat is caught by the replay, with its index."""

    def change(doc: dict[str, Any]) -> None:
        first, second = doc["history"][:2]
        first["seat"], second["seat"] = second["seat"], first["seat"]

    assert "action 1 ([" in (message := _edit(change))
    assert "but it is seat" in message


def test_a_wrong_claimed_score_is_refused() -> None:
    """The points an action claims are checked against the rules."""

    def change(doc: dict[str, Any]) -> None:
        action = next(a for a in doc["history"] if a["points"] == 0)
        action["points"] = 5

    assert "claims points 5; the rules give 0" in _edit(change)


def test_a_wrong_previous_round_is_refused() -> None:
    """The previous round's result is replayed and its settlement checked."""

    def change(doc: dict[str, Any]) -> None:
        doc["last_round"]["deductions"][0] += 5
        doc["last_round"]["scores"][0] -= 5

    assert "round 2 starts at scores" in _edit(change) or "the result of round 1" in _edit(change)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(players="2"), "expected int @ $.players"),
        (lambda d: d.update(turn=True), "expected int @ $.turn"),
        (lambda d: d.update(hands="[0|0]"), "expected list @ $.hands"),
        (lambda d: d["hands"].__setitem__(0, [1, 2]), "expected str @ $.hands[0][0]"),
        (lambda d: d.update(extra=1), "extra fields found (extra)"),
        (lambda d: d.pop("stock"), "required field missing @ $.stock"),
        (lambda d: d["history"][0].update(note="x"), "extra fields found (note) @ $.history[0]"),
        (lambda d: d.update(seed=7), "expected str @ $.seed"),
        (lambda d: d.update(seed="-1"), "$.seed must be a decimal string"),
        (lambda d: d.update(seed="007"), "$.seed must be a decimal string"),
        (lambda d: d.update(rng=str(2**64)), "$.rng must be a decimal string"),
        (lambda d: d["hands"][0].__setitem__(0, "[4|1]"), "'[4|1]' is not a tile"),
        (lambda d: d["history"][0].update(move="[0|1] onto"), "$.history[0].move"),
        (lambda d: d.update(format="american-sniff/record"), 'format is "american-sniff/record"'),
        (lambda d: d.update(format_version=2), "format_version 2 is not supported"),
        (lambda d: d.update(rules_version="2"), 'rules_version "2" is not supported'),
    ],
)
def test_wrong_types_unknown_keys_and_versions_are_refused(
    change: Callable[[dict[str, Any]], object], message: str
) -> None:
    """The shape of the document is checked, and the message says where it is wrong."""
    assert message in _edit(change)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not valid JSON"),
        ('{"format": "american-sniff/state"', "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "refused unread: it holds 100000 arrays"),
        (" " * 30_000 + "[" * 2_000 + "]" * 2_000, "nested too deeply"),
        ("1" * 5000, "more than 20 digits"),
        ('{"a": 9007199254740992}', "beyond 2**53 - 1"),
        ('{"a": -9007199254740992}', "beyond 2**53 - 1"),
        ('{"a": 1.5}', "not an integer"),
        ('{"a": NaN}', "not an integer"),
        ('{"a": 1, "a": 2}', "appears twice"),
        ("[1, 2]", "must be a JSON object"),
        ("null", "must be a JSON object"),
        (" " * (MAX_STATE_BYTES + 1), "at most 1048576 are read"),
    ],
)
def test_hostile_text_is_refused_cleanly(text: str, message: str) -> None:
    """Non-JSON, deep nesting, huge numbers and huge texts get InvalidState, nothing else."""
    with pytest.raises(InvalidState) as error:
        MatchState.from_json(text)
    assert message in str(error.value)


@pytest.mark.parametrize("value", [None, 5, ["x"], b"\xff\xfe"])
def test_what_is_not_text_is_refused(value: object) -> None:
    """Only str and UTF-8 bytes are read."""
    with pytest.raises(InvalidState):
        MatchState.from_json(value)  # type: ignore[call-overload]


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


_FUZZ_STATE = _mid_round()
_FUZZ_PATHS = [p for p in _paths(_doc(_FUZZ_STATE)) if p]


@given(st.sampled_from(_FUZZ_PATHS), _JSON_VALUES)
def test_any_damaged_document_loads_to_a_valid_state_or_is_refused(
    path: tuple[object, ...], value: object
) -> None:
    """Replacing any value of a good document never gives another exception than InvalidState.

    When the damaged document still loads, the state it gives is one the rules can reach.
    """
    doc = _doc(_FUZZ_STATE)
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        state = _load(doc)
    except InvalidState:
        return
    # It loaded: then it is a reachable state, and it saves back to the same document.
    assert _load(_doc(state)) == state


def test_every_tile_text_is_read_back() -> None:
    """Every tile of the set survives a state's round trip as the library's own instance."""
    state = _mid_round()
    loaded = MatchState.from_json(state.to_json())
    held = [t for hand in loaded.hands for t in hand] + list(loaded.stock) + list(loaded.layout)
    assert sorted(held) == list(ALL_TILES)
    assert all(any(t is u for u in ALL_TILES) for t in held)


def test_a_first_round_with_a_round_before_it_is_refused() -> None:
    """Round 1 has no previous round; a document that gives one is refused."""

    def change(doc: dict[str, Any]) -> None:
        doc["round"] = 1
        doc["last_round"]["round"] = 0

    assert "the first round has no round before it" in _edit(change)


def test_scores_that_are_not_multiples_of_five_are_refused() -> None:
    """Points and deductions are multiples of five, so every score is one."""

    def change(doc: dict[str, Any]) -> None:
        doc["scores"][0] += 3
        doc["last_round"]["scores"][0] += 3

    assert "must be multiples of 5" in _edit(change)


def test_numbers_javascript_cannot_hold_are_refused() -> None:
    """A round or a score beyond 2**53 - 1 is refused before anything else."""
    assert "beyond 2**53 - 1" in _edit(lambda doc: doc.update(round=2**60))
    assert "beyond 2**53 - 1" in _edit(lambda doc: doc["scores"].__setitem__(0, -(10**18)))


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ("drew", "not_a_move", "not a move: 'drew' (expected '[a|b] opens', "),
        ("[1|2] on", "not_a_move", "not a move: '[1|2] on'"),
        ("[2|1] opens", "not_a_tile", "not a tile: '[2|1]' is not a tile written"),
        ("[1|2] on [7|1] low", "not_a_point", "not a point: '[7|1] low': '[7|1]' is not"),
        (
            "[1|2] on [1|1] middle",
            "not_a_point",
            "not a point: '[1|1] middle' (expected '[a|b] SIDE' with SIDE one of "
            "low, high, line_a, line_b, branch_a, branch_b)",
        ),
    ],
)
def test_a_move_text_is_refused_with_the_protocol_code(text: str, code: str, message: str) -> None:
    """The one move-text reader refuses with the refusal code the protocol answers with."""
    with pytest.raises(IllegalMove) as caught:
        parse_move(text, strict=True)
    assert caught.value.code == code
    assert str(caught.value).startswith(message)
    with pytest.raises(IllegalMove) as again, pytest.deprecated_call():
        read_move(text)
    assert (again.value.code, str(again.value)) == (code, str(caught.value))


def test_move_texts_read_back_to_the_interned_moves() -> None:
    """Each form reads back to its move; a placement read twice is the same object."""
    for text in ("draw", "pass", "[1|4] opens", "[1|2] on [1|1] branch_b"):
        move = parse_move(text, strict=True)
        assert str(move) == text
        assert parse_move(text, strict=True) == move
    assert parse_move("[1|2] on [1|1] branch_b", strict=True) is parse_move(
        "[1|2] on [1|1] branch_b", strict=True
    )


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.booleans())
def test_the_state_text_is_the_state_dict_written_compactly(
    players: int, seed: int, given_deals: bool
) -> None:
    """``to_json`` writes exactly what ``json.dumps`` writes of ``state_to_dict``.

    It joins kept pieces of text; checked on every state of a match, from a seed
    or with deals left.
    """
    if given_deals and players == 2:
        state = new_match(2, seed=seed, deals=[DRAW_DEAL, DRAW_DEAL])
        rng = random.Random(seed)
        states = [state]
        while not state.is_over and len(states) < 200:
            state = apply(state, rng.choice(legal_moves(state)))
            states.append(state)
    else:
        states = list(_states(players, seed))
    for state in states:
        assert state.to_json() == json.dumps(state_to_dict(state), separators=(",", ":"))


def test_a_context_key_binds_a_save_to_its_match_and_moment() -> None:
    """Signed under context_key(secret, id, seq): only the same id and seq load it."""
    secret = b"s" * 32
    first = new_match(2, seed=5)
    later = apply(first, legal_moves(first)[0])
    text = later.to_json(key=context_key(secret, "m-1", 1))
    assert MatchState.from_json(text, key=context_key(secret, "m-1", 1)) == later
    for context in (("m-1", 0), ("m-2", 1), ("m-1", "1"), ("m-11",), ("m-1", 1, 0)):
        with pytest.raises(InvalidState, match="signature is wrong"):
            MatchState.from_json(text, key=context_key(secret, *context))
    assert context_key(secret, "ab", 1) != context_key(secret, "a", "b1")
    assert context_key(secret) != context_key(secret, "")


@pytest.mark.parametrize(
    ("secret", "context", "message"),
    [
        (b"short", ("m",), "at least 16"),
        ("not bytes" * 4, ("m",), "at least 16"),
        (b"s" * 32, (1.5,), "strings and integers, not float"),
        (b"s" * 32, (True,), "strings and integers, not bool"),
        (b"s" * 32, (None,), "strings and integers, not NoneType"),
    ],
)
def test_a_context_key_refuses_what_it_cannot_bind(
    secret: Any, context: tuple[Any, ...], message: str
) -> None:
    """A short secret or a context part that is not a string or an integer: a ValueError."""
    with pytest.raises(ValueError, match=message):
        context_key(secret, *context)
