"""JSON for states and views: one set of conventions, one converter.

Every document this library writes (a state, a player's view, a match record)
follows the same conventions, so that a program in any language reads them
with a plain JSON parser:

* the top level names its ``format`` (``"american-sniff/state"``,
  ``"american-sniff/view"``, ...), its ``format_version`` (an integer, 1 for
  now) and the ``rules_version`` of the game it was played under;
* a tile is a string ``"[a|b]"`` with ``a <= b`` (``"[1|4]"``, never
  ``"[4|1]"``);
* a point is a tile, a space and a side: ``"[1|1] branch_a"``; the sides are
  ``low``, ``high``, ``line_a``, ``line_b``, ``branch_a`` and ``branch_b``;
* a move is ``"[1|4] opens"``, ``"[1|2] on [1|1] line_b"``, ``"draw"`` or
  ``"pass"``, exactly as ``str(move)`` writes it;
* seats and sides are integers from 0; scores are integers (they may be
  negative);
* an integer that may exceed 2**53 (a seed, a generator state: 64-bit
  unsigned) is a decimal string such as ``"18446744073709551615"``, so that
  JavaScript reads it exactly;
* a value that does not apply is ``null``; every key of the format is always
  present, and no other key is allowed.

An **action** (one entry of a history) is an object with the keys ``seat``,
``move``, ``tile`` (the tile drawn by a ``draw``; ``null`` for other moves,
and in a view for a tile another seat drew), ``end_sum`` and ``points`` (the
table's end sum after a placement and what it scored; ``null`` for a draw or a
pass).

Reading is strict and bounded: the text is at most :data:`MAX_STATE_BYTES`
long, numbers must be integers JavaScript holds exactly (at most 2**53 - 1 in
size), no key may repeat, and a
document nested deeper than the format (or otherwise malformed) is refused with
:class:`~american_sniff.InvalidState` naming the problem and where it is
(``$.hands[1][0]``). Nothing is ever evaluated or unpickled.

The state format is documented field by field in ``docs/formats.md``.

The package has one module per concern (import every name from the package
itself; the modules are its layout, not its API):
:mod:`~american_sniff.serial.conventions` (formats, versions, limits, the
texts of tiles and moves, headers, schemas),
:mod:`~american_sniff.serial.parsing` (the strict JSON parser and the document
classes), :mod:`~american_sniff.serial.dicts` (a state's document as dicts),
:mod:`~american_sniff.serial.writing` (the fast text writer and signing),
:mod:`~american_sniff.serial.loading` (the front door and the strict reader),
:mod:`~american_sniff.serial.quick` (the quick reader of untrusted texts) and
:mod:`~american_sniff.serial.signed` (the signed reader).
"""

from __future__ import annotations

# The names of __all__, and (with `as`) the names that stay importable here as
# before the split but are not in __all__: check_header, converter,
# round_result_to_json and structure are documented; the rest are the
# package's own helpers, not part of the API.
from .conventions import (
    FORMAT_VERSION,
    MAX_SAFE_INTEGER,
    MAX_STATE_BYTES,
    SCHEMA_NAMES,
    STATE_FORMAT,
    format_schema,
    move_text,
    parse_move_text,
    parse_tile_text,
    tile_text,
)
from .conventions import check_header as check_header
from .conventions import document_header as document_header
from .conventions import json_words as json_words
from .dicts import action_to_dict, action_to_json, round_result_to_dict, state_to_dict
from .dicts import round_result_to_json as round_result_to_json
from .loading import action_log_from, state_from_json
from .parsing import ActionDoc, read_json
from .parsing import converter as converter
from .parsing import structure as structure
from .writing import LOG_TEXTS as LOG_TEXTS
from .writing import SIGNED_PLACEMENTS as SIGNED_PLACEMENTS
from .writing import SIGNED_TABLES as SIGNED_TABLES
from .writing import action_text as action_text
from .writing import context_key, state_to_json
from .writing import ints_text as ints_text
from .writing import kept_move_text as kept_move_text
from .writing import log_text as log_text
from .writing import tiles_text as tiles_text

__all__ = [
    "FORMAT_VERSION",
    "MAX_SAFE_INTEGER",
    "MAX_STATE_BYTES",
    "SCHEMA_NAMES",
    "STATE_FORMAT",
    "ActionDoc",
    "action_log_from",
    "action_to_dict",
    "action_to_json",
    "context_key",
    "format_schema",
    "move_text",
    "parse_move_text",
    "parse_tile_text",
    "read_json",
    "round_result_to_dict",
    "state_from_json",
    "state_to_dict",
    "state_to_json",
    "tile_text",
]
