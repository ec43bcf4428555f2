"""How an engine's answer is compared with the answer a vector expects.

Every vector step holds the library's whole answer to its request, less the
fields that are the engine's own choice (:data:`OWN_CHOICE`). An engine's
answer passes when it holds every key of the expected answer with the same
value, at every depth. Three allowances, and no others:

* the lists named in :data:`SET_KEYS` (legal moves, open points,
  contributions) are compared as multisets: their order is the engine's own;
* an answer may hold keys the expected answer lacks (the protocol lets an
  engine add keys);
* the fields of :data:`OWN_CHOICE` are not compared, only their type is
  checked: ``message`` of a failure (any string), ``engine`` of ``hello``
  (any string) and ``features`` of ``hello`` (a list of strings).

``docs/conformance.md`` states the same rules; a runner in another language
implements exactly these.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = [
    "FIRST",
    "OWN_CHOICE",
    "SET_KEYS",
    "difference",
    "expected_answer",
    "field_of",
    "own_choice_problem",
    "text",
]

#: The lists compared as multisets, wherever they appear in an answer.
SET_KEYS = frozenset({"moves", "open_points", "contributions"})

#: The fields compared first, in this order, at every depth: the structural
#: ones, of which a difference elsewhere is often only a symptom (a missing
#: round end makes the scores differ too). The other fields follow in the
#: order of the expected answer.
FIRST = ("ok", "error", "code", "round_end", "end", "finisher", "winner", "turn", "round")
_RANK = {key: rank for rank, key in enumerate(FIRST)}

#: The fields that are the engine's own choice, by command (``"*"``: in every
#: failure answer), with the JSON type each must have.
OWN_CHOICE: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "*": MappingProxyType({"message": "string"}),
        "hello": MappingProxyType({"engine": "string", "features": "list of strings"}),
    }
)


def text(value: object) -> str:
    """``value`` as compact JSON, keys sorted: how values are quoted and compared."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def expected_answer(cmd: object, answer: Mapping[str, Any]) -> dict[str, Any]:
    """The part of the library's ``answer`` (to a request of ``cmd``) that an engine must match.

    >>> expected_answer("move", {"ok": False, "error": "illegal_move", "code": "must_place",
    ...                          "message": "seat 1 must place"})
    {'ok': False, 'error': 'illegal_move', 'code': 'must_place'}
    """
    skipped = set(_own_keys(cmd, answer))
    return {key: value for key, value in answer.items() if key not in skipped}


def _own_keys(cmd: object, answer: Mapping[str, Any]) -> dict[str, str]:
    keys: dict[str, str] = {}
    if answer.get("ok") is False:
        keys.update(OWN_CHOICE["*"])
    elif isinstance(cmd, str) and cmd in OWN_CHOICE:
        keys.update(OWN_CHOICE[cmd])
    return keys


def own_choice_problem(cmd: object, answer: Mapping[str, Any]) -> str | None:
    """What is wrong with the own-choice fields of ``answer``, or None if present and typed."""
    for key, kind in _own_keys(cmd, answer).items():
        value = answer.get(key)
        good = isinstance(value, str) if kind == "string" else _strings(value)
        if not good:
            got = "missing" if key not in answer else f"got {text(value)}"
            return f"{key}: expected any {kind} (the engine's own choice), {got}"
    return None


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def difference(expected: object, got: object, path: str = "") -> str | None:
    """The first difference between an expected answer and an engine's, in words, or None.

    The message starts with the field's name (``turn: expected 2, got 0``,
    ``round_end.hands[1]: ...``). The fields of :data:`FIRST` are compared
    first; when more than one field of the answer differs, the message ends by
    naming every other one.

    >>> difference({"turn": 2, "table": {"end_sum": 5}}, {"turn": 2, "table": {"end_sum": 4}})
    'table.end_sum: expected 5, got 4'
    >>> difference({"scores": [15, 0], "round_end": {"end": "domino"}},
    ...            {"scores": [25, 0], "round_end": None})
    'round_end: expected an object, got null (other fields that differ: scores)'
    """
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"{path or 'the answer'}: expected an object, got {text(got)}"
        first: str | None = None
        others: list[str] = []
        for key in sorted(expected, key=lambda key: _RANK.get(key, len(FIRST))):
            found = _field_difference(key, expected[key], got, path)
            if found is None:
                continue
            if first is not None:
                others.append(key)
            elif path:  # below the top, the first difference is enough
                return found
            else:
                first = found
                if key == "ok":  # every other field follows from it: say which error
                    return first + _refusal_named(expected, got)
        if first is not None and others:
            return f"{first} (other fields that differ: {', '.join(others)})"
        return first
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        for index, (item, other) in enumerate(zip(expected, got, strict=True)):
            found = difference(item, other, f"{path}[{index}]")
            if found:
                return found
        return None
    if type(expected) is not type(got) or text(expected) != text(got):
        return f"{path}: expected {text(expected)}, got {text(got)}"
    return None


def _refusal_named(expected: Mapping[str, Any], got: Mapping[str, Any]) -> str:
    """The error kind (and code) of whichever side of an ``ok`` difference refused, in words.

    >>> _refusal_named({"ok": False, "error": "invalid_deal"}, {"ok": True})
    ' (the vector expects error "invalid_deal")'
    >>> _refusal_named({"ok": True}, {"ok": False, "error": "bad_json", "message": "no"})
    ' (the engine answered error "bad_json", message "no")'
    """
    engine = expected.get("ok") is not False
    failure = got if engine else expected
    parts = [f"{key} {text(failure[key])}" for key in ("error", "code") if key in failure]
    message = failure.get("message")
    if engine and isinstance(message, str):
        parts.append(f"message {text(message[:_MESSAGE_QUOTED])}")
    if not parts:
        return ""
    return f" (the {'engine answered' if engine else 'vector expects'} {', '.join(parts)})"


#: How much of an engine's refusal message a difference quotes.
_MESSAGE_QUOTED = 120


def _field_difference(key: str, value: object, got: Mapping[str, Any], path: str) -> str | None:
    """The difference in the field ``key`` of an object, or None."""
    where = f"{path}.{key}" if path else key
    if key not in got:
        return f"{where}: missing (expected {text(value)})"
    if key in SET_KEYS and isinstance(value, list):
        return _multiset_difference(value, got[key], where)
    return difference(value, got[key], where)


def field_of(found: str) -> str:
    """The field a message of :func:`difference` names first (``turn``, ``round_end.hands[1]``).

    >>> field_of('moves (compared as a set): missing "draw"')
    'moves'
    """
    return found.split(": ", 1)[0].removesuffix(" (compared as a set)")


def _multiset_difference(expected: list[Any], got: object, path: str) -> str | None:
    if not isinstance(got, list):
        return f"{path}: expected a list, got {text(got)}"
    want = collections.Counter(text(item) for item in expected)
    have = collections.Counter(text(item) for item in got)
    if want == have:
        return None
    parts = []
    missing = sorted((want - have).elements())
    extra = sorted((have - want).elements())
    if missing:
        parts.append(f"missing {', '.join(missing)}")
    if extra:
        parts.append(f"unexpected {', '.join(extra)}")
    return f"{path} (compared as a set): {'; '.join(parts)}"
