"""JSON for states and views (being split into a package of one module per concern)."""

from __future__ import annotations

# The names of __all__, and (with `as`) the names that stay importable here as
# before the split but are not in __all__: check_header, converter,
# round_result_to_json and structure are documented; the rest are the
# package's own helpers, not part of the API.
from .quick import (
    FORMAT_VERSION,
    MAX_SAFE_INTEGER,
    MAX_STATE_BYTES,
    SCHEMA_NAMES,
    STATE_FORMAT,
    ActionDoc,
    action_log_from,
    action_to_dict,
    action_to_json,
    format_schema,
    move_text,
    parse_move_text,
    parse_tile_text,
    read_json,
    round_result_to_dict,
    state_from_json,
    state_to_dict,
    state_to_json,
    tile_text,
)
from .quick import LOG_TEXTS as LOG_TEXTS
from .quick import SIGNED_PLACEMENTS as SIGNED_PLACEMENTS
from .quick import SIGNED_TABLES as SIGNED_TABLES
from .quick import action_text as action_text
from .quick import check_header as check_header
from .quick import converter as converter
from .quick import document_header as document_header
from .quick import ints_text as ints_text
from .quick import json_words as json_words
from .quick import kept_move_text as kept_move_text
from .quick import log_text as log_text
from .quick import round_result_to_json as round_result_to_json
from .quick import structure as structure
from .quick import tiles_text as tiles_text

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
