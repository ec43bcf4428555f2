"""The JSON Schemas of the state, view and event formats accept everything the library writes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import event_for, new_match, spectator_view, view_for
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


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**64 - 1), st.integers(1, 400))
def test_everything_written_is_valid_against_its_schema(
    players: int, seed: int, steps: int
) -> None:
    """States (plain and signed), views of each seat and of a spectator, and every event."""
    states = random_play(new_match(players, seed=seed), steps, seed % 2**32)
    for state in states[-12:]:
        assert _errors("state", state.to_json()) == []
        assert _errors("state", state.to_json(key=KEY)) == []
        for seat in range(players):
            assert _errors("view", view_for(state, seat).to_json()) == []
            full = view_for(state, seat, last_round_history=True)
            assert _errors("view", full.to_json()) == []
        assert _errors("view", spectator_view(state).to_json()) == []
        if state.last_action is not None:
            for viewer in (*range(players), None):
                assert _errors("event", event_for(state, viewer).to_json()) == []


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
