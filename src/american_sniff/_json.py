"""The JSON toolkit every format shares: 64-bit text, the pretty-printer, deprecated names.

The formats (the saved state, views, records, the engine protocol, the
conformance vectors) write and read their JSON with the helpers here, so that
each convention is written once:

* :func:`u64_text` and :func:`read_u64`: a 64-bit unsigned integer (a seed, a
  generator state) as a decimal string, so that JavaScript reads it exactly;
* :func:`pretty_json`: JSON text for people and diffs, short lists and
  objects on one line;
* :class:`DealDoc`: a deal as every format writes it;
* :func:`deprecated`: a public name that went away, kept as a thin alias that
  warns and delegates.

The rules core (tiles, points, layout, moves, rules, state, engine, _fast,
rng) never imports this module.
"""

from __future__ import annotations

import functools
import json
import re
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from .rng import MASK64

__all__ = ["DealDoc", "deprecated", "pretty_json", "read_u64", "u64_text"]

#: A 64-bit unsigned integer in decimal: no sign, no leading zero, at most 20 digits.
_U64 = re.compile(r"0|[1-9][0-9]{0,19}")


@attrs.frozen
class DealDoc:
    """A deal as the formats write it, before its texts are read.

    The saved state's ``deals`` and the engine protocol's ``new`` request hold
    it. Every key is required; the protocol fills in a missing ``opener`` with
    null before reading (a deal there may leave it out).

    :ivar hands: Each seat's hand, tiles as text.
    :ivar stock: The stock in draw order, tiles as text.
    :ivar opener: The seat that opens if a lot is due, or null.
    """

    hands: list[list[str]]
    stock: list[str]
    opener: int | None


def u64_text(value: int) -> str:
    """A 64-bit unsigned integer as the formats write it: decimal digits in a string.

    >>> u64_text(2**64 - 1)
    '18446744073709551615'
    """
    return str(value)


def read_u64(
    text: object, what: str, error: Callable[[str], Exception], *, nullable: bool = False
) -> int:
    """The integer written ``text`` as :func:`u64_text` writes it; the one reader of 64-bit text.

    ``text`` must be a string of decimal digits without a leading zero (``"0"``
    itself is fine) of an integer from 0 to 2**64 - 1. The length is checked
    before anything is converted, so a huge string costs nothing.

    >>> read_u64("18446744073709551615", "seed", ValueError)
    18446744073709551615
    >>> read_u64("007", "$.seed", ValueError)
    Traceback (most recent call last):
    ...
    ValueError: $.seed must be a decimal string of an integer from 0 to 2**64 - 1, without leading zeros; got '007'

    :param what: What the text is, the subject of the message (``"$.seed"``).
    :param error: Makes the exception to raise from the message.
    :param nullable: Whether the format allows null there (the message says so).
    :raises Exception: ``error(message)`` if ``text`` is not such a string.
    """  # noqa: E501 (the doctest's message is one line)
    if type(text) is str and _U64.fullmatch(text) and int(text) <= MASK64:
        return int(text)
    shown = text[:30] if isinstance(text, str) else text
    null = "null or " if nullable else ""
    raise error(
        f"{what} must be {null}a decimal string of an integer from 0 to 2**64 - 1, "
        f"without leading zeros; got {shown!r}"
    )


def pretty_json(
    value: Any, *, width: int, ensure_ascii: bool = True, flat_scalars: bool = False
) -> str:
    """``value`` as JSON text for people: a list or object that fits stays on one line.

    Every other list or object holds one member a line, indented by two
    spaces. A member fits when its indent, its key and its one-line text are
    at most ``width`` characters; with ``flat_scalars``, a list or object of
    scalars only is kept on one line whatever its width, and a member's key is
    not counted. ``ensure_ascii`` is :func:`json.dumps`'s, for the values (keys
    are always ASCII-escaped).

    >>> print(pretty_json({"a": [1, 2], "b": ["x", "y"]}, width=20))
    {
      "a": [1, 2],
      "b": ["x", "y"]
    }
    """

    def text(item: Any, indent: int, lead: int) -> str:
        flat = json.dumps(item, separators=(", ", ": "), ensure_ascii=ensure_ascii)
        if not isinstance(item, dict | list) or not item:
            return flat
        members = item.values() if isinstance(item, dict) else item
        if flat_scalars:
            lead = 0
            if not any(isinstance(member, dict | list) for member in members):
                return flat
        if indent + lead + len(flat) <= width:
            return flat
        pad = " " * (indent + 2)
        if isinstance(item, dict):
            lines = []
            for key, member in item.items():
                name = json.dumps(key) + ": "
                lines.append(pad + name + text(member, indent + 2, len(name)))
            return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
        lines = [pad + text(member, indent + 2, 0) for member in item]
        return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"

    return text(value, 0, 0)


_F = TypeVar("_F", bound=Callable[..., Any])


def deprecated(name: str, replacement: str, function: _F) -> _F:
    """``function`` under its old public ``name``: it warns that ``replacement`` is the name now.

    The alias delegates every call, so users' code keeps working; the warning
    (:class:`DeprecationWarning`) names what to call instead.
    """

    @functools.wraps(function)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"{name} is deprecated: use {replacement}", DeprecationWarning, stacklevel=2)
        return function(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = name.rpartition(".")[2]
    alias.__doc__ = f"Deprecated: use {replacement}.\n\n{name} warns and calls it."
    return alias  # type: ignore[return-value]
