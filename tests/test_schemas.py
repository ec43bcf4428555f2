"""The JSON Schemas of the state, view and event formats accept everything the library writes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import REFUSAL_CODES, event_for, new_match, spectator_view, view_for
from american_sniff.conformance.loading import load_vectors, step_line
from american_sniff.conformance.protocol import _REQUESTS, ERROR_KINDS, Session
from american_sniff.serial import SCHEMA_NAMES, format_schema
from scenarios import random_play

jsonschema = pytest.importorskip("jsonschema")

VALIDATORS = {name: jsonschema.Draft202012Validator(format_schema(name)) for name in SCHEMA_NAMES}
KEY = b"sixteen bytes or more of key"


def _errors(name: str, text: str) -> list[str]:
    doc: Any = json.loads(text)
    return [error.message for error in VALIDATORS[name].iter_errors(doc)]


def test_every_schema_is_a_valid_2020_12_schema() -> None:
    """Each shipped schema passes the metaschema and names its draft."""
    for name in SCHEMA_NAMES:
        schema = format_schema(name)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(schema)
    with pytest.raises(ValueError, match="no schema named"):
        format_schema("nothing")


@pytest.mark.sweep
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**64 - 1), st.integers(1, 400))
def test_everything_written_is_valid_against_its_schema(
    players: int, seed: int, steps: int
) -> None:
    """States (plain and signed), views of each seat and of a spectator, and every event."""
    states = random_play(new_match(players, seed=seed), steps, seed % 2**32)
    # the last few states of each example: the examples' random lengths spread them over the match
    for state in states[-4:]:
        assert _errors("state", state.to_json()) == []
        assert _errors("state", state.to_json(key=KEY)) == []
        for seat in range(players):
            assert _errors("view", view_for(state, seat).to_json()) == []
            full = view_for(state, seat, last_round_history=True)
            assert _errors("view", full.to_json()) == []
        assert _errors("view", spectator_view(state).to_json()) == []
        assert _errors("view", spectator_view(state).to_json(geometry=True, page=None)) == []
        if state.last_action is not None:
            for viewer in (*range(players), None):
                assert _errors("event", event_for(state, viewer).to_json()) == []
    assert _errors("view", view_for(states[-1], 0).to_json(geometry=True)) == []


def test_the_schemas_refuse_what_the_readers_refuse() -> None:
    """An unknown key, a tile written backwards and a wrong format are schema errors too."""
    state = random_play(new_match(3, seed=4), 30, 1)[-1]
    state_doc = json.loads(state.to_json())
    view_doc = json.loads(view_for(state, 0).to_json())
    event_doc = json.loads(event_for(state, 1).to_json())
    for name, doc in (("state", state_doc), ("view", view_doc), ("event", event_doc)):
        assert _errors(name, json.dumps({**doc, "extra": 1}))
        assert _errors(name, json.dumps({**doc, "format": "american-sniff/other"}))
    assert _errors("state", json.dumps({**state_doc, "stock": ["[4|1]"]}))
    assert _errors("view", json.dumps({**view_doc, "seq": -1}))


# -- the engine protocol's lines -----------------------------------------------------

REQUESTS = format_schema("protocol-request")
ANSWERS = format_schema("protocol-answer")
ANSWER_FOR = {"new": "state"}  # new answers as state does; every other command by its name


def _strict(node: Any) -> Any:
    """A copy of a schema in which every object with listed properties allows no others.

    The protocol lets an engine add keys of its own, so the shipped answer schema
    allows them; the library's own engine writes exactly the listed keys.
    """
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: value if key == "if" else _strict(value) for key, value in node.items()}
    if "properties" in copy and "additionalProperties" not in copy:
        copy["additionalProperties"] = False
    return copy


def _definition(schema: dict[str, Any], name: str, *, strict: bool = False) -> Any:
    """A validator of the definition ``name`` of a protocol schema."""
    base = _strict(schema) if strict else schema
    return jsonschema.Draft202012Validator(
        {"$schema": base["$schema"], "$defs": base["$defs"], "$ref": f"#/$defs/{name}"}
    )


REQUEST_CHECK = jsonschema.Draft202012Validator(REQUESTS)
ANSWER_CHECK = jsonschema.Draft202012Validator(ANSWERS)
ANSWER_DEFS = {
    name: (_definition(ANSWERS, name), _definition(ANSWERS, name, strict=True))
    for name in ("hello", "state", "legal", "move", "table", "settle", "quit", "failure")
}


def _check_exchange(request: object, answer: dict[str, Any]) -> None:
    """One request and the library's answer to it, against the protocol's schemas.

    The answer is valid against the definition of its command (or the failure's),
    with no key the docs do not list; a request the library carries out is valid,
    and a request the schema refuses is refused by the library too.
    """
    assert list(ANSWER_CHECK.iter_errors(answer)) == []
    cmd = request.get("cmd") if isinstance(request, dict) else None
    name = "failure" if not answer["ok"] else ANSWER_FOR.get(str(cmd), str(cmd))
    for validator in ANSWER_DEFS[name]:
        assert [e.message for e in validator.iter_errors(answer)] == [], (request, answer)
    valid = REQUEST_CHECK.is_valid(request)
    if answer["ok"]:
        assert valid, (request, [e.message for e in REQUEST_CHECK.iter_errors(request)])
    if not valid:
        assert not answer["ok"], request


def test_the_protocol_schemas_describe_every_command() -> None:
    """Each command has a request definition and an answer definition.

    The error kinds and refusal codes are the library's.
    """
    assert sorted(REQUESTS["properties"]["cmd"]["enum"]) == sorted(_REQUESTS)
    for cmd in _REQUESTS:
        assert REQUESTS["$defs"][cmd]["properties"]["cmd"] == {"const": cmd}
        assert ANSWER_FOR.get(cmd, cmd) in ANSWERS["$defs"]
    failure = ANSWERS["$defs"]["failure"]["properties"]
    assert failure["error"]["enum"] == list(ERROR_KINDS)
    assert sorted(failure["code"]["enum"]) == sorted(REFUSAL_CODES)


@pytest.mark.sweep
def test_every_exchange_of_the_shipped_vectors_is_valid() -> None:
    """Every request of the shipped conformance vectors and the library's answer to it.

    Perft vectors start from a position, which is sent as a ``new`` request.
    """
    kinds: set[str] = set()
    failures = 0
    for vector in load_vectors():
        session = Session()
        if vector.kind == "perft":
            request = {"cmd": "new", **vector.data["start"]}
            _check_exchange(request, session.handle(request))
            continue
        for step in vector.data["steps"]:
            if "line_hex" in step:  # not UTF-8: no request, and bad_json
                answer = json.loads(session.handle_line(bytes.fromhex(step["line_hex"])))
                assert answer["error"] == "bad_json"
                _check_exchange(None, answer)
                continue
            if "line" in step:
                line = step_line(step)
                answer = json.loads(session.handle_line(line))
                if answer.get("error") == "bad_json":
                    # no request to check (too long, too deep, or not JSON at all)
                    _check_exchange(None, answer)
                    kinds.add("bad_json")
                    continue
                request = json.loads(line)
            else:
                request = step["request"]
                answer = json.loads(session.handle_line(json.dumps(request)))
            _check_exchange(request, answer)
            failures += not answer["ok"]
            kinds.add(answer.get("error", "ok"))
    # every answer kind the library gives turns up: the test checks refusals as well
    assert {"ok", "bad_json", "bad_request", "illegal_move", "invalid_deal"} <= kinds
    assert failures > 100


@given(
    st.sampled_from([2, 3, 4]),
    st.integers(0, 2**64 - 1),
    st.lists(st.integers(0, 2**16), min_size=1, max_size=120),
    st.text(max_size=24),
)
@pytest.mark.sweep
def test_a_random_session_is_valid_line_by_line(
    players: int, seed: int, choices: list[int], junk: str
) -> None:
    """A seeded match played at random: new, legal, move, state and refused moves, each valid."""
    session = Session()
    requests: list[dict[str, Any]] = [
        {"cmd": "hello", "protocol_version": 1},
        {"cmd": "new", "players": players, "seed": str(seed)},
    ]
    for request in requests:
        _check_exchange(request, session.handle(request))
    for choice in choices:
        legal = session.handle({"cmd": "legal"})
        _check_exchange({"cmd": "legal"}, legal)
        for request in (
            {"cmd": "move", "move": junk},
            {"cmd": "table", "moves": [junk]},
            {"cmd": "state"},
        ):
            _check_exchange(request, session.handle(request))
        if not legal["moves"]:
            break
        request = {"cmd": "move", "move": legal["moves"][choice % len(legal["moves"])]}
        _check_exchange(request, session.handle(request))
    _check_exchange({"cmd": "quit"}, session.handle({"cmd": "quit"}))


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "nothing"},
        {"players": 2},
        {"cmd": "legal", "extra": 1},
        {"cmd": "hello"},
        {"cmd": "hello", "protocol_version": True},
        {"cmd": "new", "players": 5, "seed": "1"},
        {"cmd": "new", "players": 2, "seed": 1},
        {"cmd": "new", "players": 2, "seed": "18446744073709551616"},
        {"cmd": "new", "players": 2, "deals": [{"hands": [["[4|1]"], []], "stock": []}]},
        {"cmd": "new", "players": 2, "seed": "1", "scores": [3, 0]},
        {"cmd": "new", "players": 2, "seed": "1", "round": 0},
        {"cmd": "move"},
        {"cmd": "move", "move": 3},
        {"cmd": "table", "moves": "[1|4] opens"},
        {"cmd": "settle", "players": 2, "hands": [["[0|7]"], []]},
        {"cmd": "settle", "players": 2, "hands": [[], []], "finisher": -1},
    ],
)
def test_the_request_schema_refuses_what_the_engine_refuses(request_: dict[str, Any]) -> None:
    """A request of the wrong shape is invalid, and the library refuses it too."""
    assert not REQUEST_CHECK.is_valid(request_)
    answer = Session().handle(request_)
    assert answer["ok"] is False
    _check_exchange(request_, answer)


def test_the_answer_schema_refuses_a_wrong_answer() -> None:
    """An answer with a key of the wrong type, or an illegal move without its code, is invalid."""
    hello, _ = ANSWER_DEFS["hello"]
    move, strict_move = ANSWER_DEFS["move"]
    failure, _ = ANSWER_DEFS["failure"]
    assert not hello.is_valid({"ok": True, "protocol": "american-sniff/engine"})
    answer = {
        "ok": True, "seat": 0, "move": "[1|4] opens", "tile": None, "end_sum": 5, "points": 5,
        "scores": [5, 0], "round_end": None, "winner": None, "turn": 1, "round": 1,
    }  # fmt: skip
    assert move.is_valid(answer)
    assert move.is_valid({**answer, "engine_note": "x"})  # the protocol lets an engine add keys
    assert not strict_move.is_valid({**answer, "engine_note": "x"})
    assert not move.is_valid({**answer, "move": "[4|1] opens"})
    assert not move.is_valid({**answer, "end_sum": 2**53})
    assert not failure.is_valid({"ok": False, "error": "illegal_move", "message": "no"})
    assert not failure.is_valid({"ok": False, "error": "bad_json", "message": "x", "code": "x"})
    assert not failure.is_valid({"ok": False, "error": "lost", "message": "x"})
