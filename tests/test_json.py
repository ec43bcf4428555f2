"""The JSON toolkit: the one 64-bit text reader, the pretty-printer and deprecated aliases."""

from __future__ import annotations

import json
import warnings

import pytest

from american_sniff import InvalidRecord, InvalidState
from american_sniff._json import deprecated, pretty_json, read_u64, u64_text


@pytest.mark.parametrize("value", [0, 1, 2**53 + 1, 2**64 - 1])
def test_64_bit_text_reads_back(value: int) -> None:
    """What u64_text writes, read_u64 reads."""
    assert read_u64(u64_text(value), "x", ValueError) == value


@pytest.mark.parametrize(
    "text", ["", "-1", "+1", "01", " 1", "1 ", "1.0", "0x10", "18446744073709551616", "9" * 30, 7]
)
def test_64_bit_text_refuses_everything_else(text: object) -> None:
    """No sign, no leading zero, no space, no other base, nothing at or past 2**64, not a number."""
    with pytest.raises(InvalidState) as refused:
        read_u64(text, "$.rng", InvalidState)
    message = str(refused.value)
    assert message.startswith("$.rng must be a decimal string of an integer from 0 to 2**64 - 1")
    assert message.endswith(repr(text[:30] if isinstance(text, str) else text))


def test_a_nullable_64_bit_text_says_null_is_allowed() -> None:
    """The message says null is allowed where the format allows it."""
    with pytest.raises(InvalidRecord, match=r"^\$\.seed must be null or a decimal string"):
        read_u64("x", "$.seed", InvalidRecord, nullable=True)


def test_every_reader_of_a_seed_says_the_same() -> None:
    """The state, the record and the protocol read a seed with the one reader."""
    from american_sniff import MatchRecord, MatchState, new_match, record_match
    from american_sniff.conformance.protocol import Session

    state = json.loads(new_match(2, seed=1).to_json())
    state["seed"] = "01"
    with pytest.raises(InvalidState, match="without leading zeros; got '01'"):
        MatchState.from_json(json.dumps(state))
    record = record_match([new_match(2, seed=1)]).to_dict()
    record["seed"] = "01"
    with pytest.raises(InvalidRecord, match="without leading zeros; got '01'"):
        MatchRecord.from_dict(record)
    answer = Session().handle({"cmd": "new", "players": 2, "seed": "01"})
    assert (answer["ok"], answer["error"]) == (False, "invalid_deal")
    assert answer["message"].endswith("without leading zeros; got '01'")


def test_the_pretty_printer_keeps_what_fits_on_one_line() -> None:
    """A member that fits in the width (indent and key counted) stays on one line."""
    doc = {"a": [1, 2, 3], "b": {"c": "é", "d": [[1, 2], [3, 4]]}}
    assert json.loads(pretty_json(doc, width=10)) == doc
    assert pretty_json(doc, width=200) == json.dumps(doc, separators=(", ", ": "))
    assert pretty_json(doc, width=25, ensure_ascii=False).splitlines() == [
        "{",
        '  "a": [1, 2, 3],',
        '  "b": {',
        '    "c": "é",',
        '    "d": [[1, 2], [3, 4]]',
        "  }",
        "}",
    ]
    assert '"\\u00e9"' in pretty_json(doc, width=25)


def test_flat_scalars_keeps_every_list_of_scalars_on_one_line() -> None:
    """With flat_scalars, a list of scalars is one line whatever its width."""
    doc = {"k": {"long": list(range(40)), "nested": [[1], [2]]}}
    lines = pretty_json(doc, width=30, flat_scalars=True).splitlines()
    assert f'    "long": {json.dumps(list(range(40)), separators=(", ", ": "))},' in lines
    assert '    "nested": [[1], [2]]' in lines


def test_a_deprecated_alias_warns_and_delegates() -> None:
    """The alias warns with the new name, and returns what the function returns."""

    def double(value: int) -> int:
        return 2 * value

    alias = deprecated("pkg.old", "new(value)", double)
    with pytest.deprecated_call(match=r"pkg\.old is deprecated: use new\(value\)"):
        assert alias(4) == 8
    assert alias.__name__ == "old"
    assert alias.__doc__ is not None
    assert "new(value)" in alias.__doc__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning):
            alias(1)
