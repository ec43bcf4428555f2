"""The inputs the conformance vectors and the fuzzer both send: data, and no generator.

The lines and requests an engine must refuse (:data:`BAD_LINES`,
:data:`BAD_REQUESTS`, :data:`BAD_SEEDS`), JSON's corners
(:data:`JSON_CORNERS`, :data:`NOT_UTF8`) and the texts a seed may not be
(:data:`SEED_TEXTS`), with the deal they are sent after (:data:`TABLE_DEAL`,
:data:`NEW`). The vector generator (``tools/generate_vectors.py``, a tool of
the repository that is not in the package) writes them into the shipped
vectors; :mod:`~american_sniff.conformance.fuzz` mixes them into its play.
Importing this module loads nothing beyond the tiles and the protocol's bounds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..rules import SCORE_UNIT, TARGET
from ..serial import tile_text
from ..tiles import ALL_TILES, Tile, parse_tile
from .protocol import MAX_ROUND, MIN_SCORE

__all__ = [
    "BAD_LINES",
    "BAD_REQUESTS",
    "BAD_SEEDS",
    "JSON_CORNERS",
    "NEW",
    "NOT_UTF8",
    "SEED_TEXTS",
    "TABLE_DEAL",
    "deal_of",
    "filled",
]


def _tiles(text: str) -> tuple[Tile, ...]:
    """The tiles written in ``text``, e.g. ``"[1|4] [4|4]"``."""
    return tuple(parse_tile(tile, strict=True) for tile in re.findall(r"\[\d\|\d\]", text))


def deal_of(hands: Sequence[str], opener: int, stock: str = "") -> dict[str, Any]:
    """A deal of ``new``: ``hands``, then ``stock`` drawn first, then the other tiles in set order.

    >>> deal_of(["[1|4]", "[0|0]"], 1)["stock"][:2]
    ['[0|1]', '[0|2]']
    """
    dealt = [sorted(_tiles(hand), key=lambda tile: tile.index) for hand in hands]
    first = list(_tiles(stock))
    used = {tile for hand in dealt for tile in hand} | set(first)
    rest = [tile for tile in ALL_TILES if tile not in used]
    return {
        "hands": [[tile_text(t) for t in hand] for hand in dealt],
        "stock": [tile_text(t) for t in first + rest],
        "opener": opener,
    }


def filled(deal: dict[str, Any], sizes: Sequence[int]) -> dict[str, Any]:
    """``deal`` with hands topped up to ``sizes`` from the front of its stock."""
    stock = list(deal["stock"])
    hands = []
    for hand, size in zip(deal["hands"], sizes, strict=True):
        extra = size - len(hand)
        hands.append(
            sorted([*hand, *stock[:extra]], key=lambda t: parse_tile(t, strict=True).index)
        )
        del stock[:extra]
    return {"hands": hands, "stock": stock, "opener": deal["opener"]}


#: Two players. Seat 0 opens; the opening, a later Sniff ([4|4]) and an
#: ordinary double ([2|2]) come up in the first moves.
TABLE_DEAL = deal_of(
    ["[1|4] [1|1] [4|4] [0|0] [2|6] [3|5] [4|6]", "[1|2] [3|4] [1|5] [2|2] [0|2] [0|4] [3|3]"], 0
)
#: A ``new`` of :data:`TABLE_DEAL`: the match the bad inputs are sent in.
NEW = {"cmd": "new", "players": 2, "deals": [TABLE_DEAL]}

#: Lines that are not one JSON object, each as the docs list the kinds of bad_json.
BAD_LINES: tuple[tuple[str, str], ...] = (
    ("not JSON", '{"cmd": "legal"'),
    ("an empty line", ""),
    ("only blanks", "   "),
    ("an array, not an object", '["legal"]'),
    ("a string, not an object", '"legal"'),
    ("null", "null"),
    ("a float", '{"cmd": "new", "players": 2.0, "seed": "1"}'),
    ("a float written with an exponent", '{"cmd": "new", "players": 2e0, "seed": "1"}'),
    ("NaN", '{"cmd": "new", "players": NaN, "seed": "1"}'),
    ("an integer above 2**53 - 1", '{"cmd": "new", "players": 9007199254740992, "seed": "1"}'),
    ("an integer below -(2**53 - 1)", '{"cmd": "new", "players": 2, "round": -9007199254740992}'),
    ("a repeated key", '{"cmd": "legal", "cmd": "state"}'),
    ("a byte-order mark", '\ufeff{"cmd": "legal"}'),
)

#: Requests that are answered with an error, by the kind of error: (what, request).
BAD_REQUESTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("an unknown command", {"cmd": "undo"}),
    ("no command", {"players": 2}),
    ("a command that is not a string", {"cmd": 5}),
    ("an unknown key", {"cmd": "legal", "verbose": True}),
    ("an unknown key in new", {**NEW, "variant": "classic"}),
    ("an unknown key in a deal", {**NEW, "deals": [{**TABLE_DEAL, "dealer": 0}]}),
    ("an unknown key in hello", {"cmd": "hello", "protocol_version": 1, "debug": True}),
    ("a missing key", {"cmd": "move"}),
    ("a move that is not a string", {"cmd": "move", "move": 5}),
    ("players as a string", {**NEW, "players": "2"}),
    ("players as a boolean", {**NEW, "players": True}),
    ("a seed as a number", {"cmd": "new", "players": 2, "seed": 5}),
    ("hello of protocol version 2", {"cmd": "hello", "protocol_version": 2}),
    ("hello of rules version 2", {"cmd": "hello", "protocol_version": 1, "rules_version": "2"}),
    ("a new with neither deals nor seed", {"cmd": "new", "players": 2}),
    ("five players", {**NEW, "players": 5}),
    ("a deal with a short hand", {**NEW, "deals": [filled(TABLE_DEAL, (6, 7))]}),
    ("a deal with no opener and no seed", {**NEW, "deals": [{**TABLE_DEAL, "opener": None}]}),
    ("a deal with an opener off the table", {**NEW, "deals": [{**TABLE_DEAL, "opener": 2}]}),
    ("round 0", {**NEW, "round": 0}),
    ("round one past the highest", {**NEW, "round": MAX_ROUND + 1}),
    ("scores at the target", {**NEW, "scores": [TARGET[2], 0]}),
    ("scores not multiples of 5", {**NEW, "scores": [12, 0]}),
    ("scores below the lowest", {**NEW, "scores": [MIN_SCORE - SCORE_UNIT, 0]}),
    ("scores of the wrong length", {**NEW, "scores": [0, 0, 0]}),
    ("a draw in a table", {"cmd": "table", "moves": ["[1|4] opens", "draw"]}),
    (
        "a finisher whose hand is not empty",
        {"cmd": "settle", "players": 2, "hands": [["[1|2]"], ["[3|4]"]], "finisher": 0},
    ),
    ("a tile in two hands", {"cmd": "settle", "players": 2, "hands": [["[1|2]"], ["[1|2]"]]}),
    ("three hands for two players", {"cmd": "settle", "players": 2, "hands": [[], [], []]}),
    (
        "settle with three scores for two sides",
        {"cmd": "settle", "players": 2, "hands": [[], []], "scores": [0, 0, 0]},
    ),
    (
        "settle with no scores (an empty list) for two sides",
        {"cmd": "settle", "players": 2, "hands": [["[1|2]"], []], "scores": []},
    ),
    (
        "settle with one score per seat of four players, not per side",
        {"cmd": "settle", "players": 4, "hands": [[], [], [], []], "scores": [0, 0, 0, 0]},
    ),
)


#: Seeds an engine with the ``seed`` feature refuses.
BAD_SEEDS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("a seed that is not a number", {"cmd": "new", "players": 2, "seed": "abc"}),
    ("a negative seed", {"cmd": "new", "players": 2, "seed": "-1"}),
    ("a seed with a leading zero", {"cmd": "new", "players": 2, "seed": "01"}),
    ("a seed of 2**64", {"cmd": "new", "players": 2, "seed": "18446744073709551616"}),
)


#: Lines of JSON's corners, each with its answer's error kind (None: answered ok)
#: after ``_NEW``: (what, the line, the kind). docs/protocol.md, "Reading a line".
JSON_CORNERS: tuple[tuple[str, str, str | None], ...] = (
    (
        "-0 is the integer 0",
        '{"cmd": "settle", "players": 2, "hands": [[], ["[1|1]"]], '
        '"finisher": -0, "scores": [-0, 10]}',
        None,
    ),
    (
        "a raw control character (U+0001) in a string",
        '{"cmd": "move", "move": "dr\x01aw"}',
        "bad_json",
    ),
    ("a raw tab in a string", '{"cmd": "move", "move": "draw\t"}', "bad_json"),
    ("a raw U+001F in a key", '{"cmd": "state", "\x1f": 1}', "bad_json"),
    (
        "a raw DEL (U+007F) in a string: not a control character for JSON",
        '{"cmd": "move", "move": "\x7f"}',
        "illegal_move",
    ),
    (
        "an escaped control character in a string",
        '{"cmd": "move", "move": "dr\\u0001aw"}',
        "illegal_move",
    ),
    (
        "a lone high surrogate escape, read as a string",
        '{"cmd": "move", "move": "\\ud800"}',
        "illegal_move",
    ),
    (
        "a lone low surrogate escape, read as a string",
        '{"cmd": "move", "move": "\\udfff draw"}',
        "illegal_move",
    ),
    ("surrogates in the wrong order", '{"cmd": "move", "move": "\\udc00\\ud800"}', "illegal_move"),
    ("a lone surrogate as a key: an unknown key", '{"cmd": "state", "\\ud83d": 1}', "bad_request"),
    ("an escaped key: c\\u006dd is cmd", '{"c\\u006dd": "state"}', None),
    ("an escaped command", '{"cmd": "st\\u0061te"}', None),
    (
        "an escaped key twice over: \\u0063\\u006d\\u0064",
        '{"\\u0063\\u006d\\u0064": "legal"}',
        None,
    ),
    ("cmd and c\\u006dd: a repeated key", '{"cmd": "state", "c\\u006dd": "state"}', "bad_json"),
    ("c\\u006dd twice: a repeated key", '{"c\\u006dd": "legal", "c\\u006dd": "legal"}', "bad_json"),
    (
        "a repeated escaped key of a command",
        '{"cmd": "move", "move": "draw", "mov\\u0065": "draw"}',
        "bad_json",
    ),
    ("the blanks of JSON a line can hold, everywhere", '\t\r {\t"cmd"\r: "state" } \t', None),
    ("a form feed after the object", '{"cmd": "state"}\x0c', "bad_json"),
    ("a form feed before the object", '\x0c{"cmd": "state"}', "bad_json"),
    ("a form feed between tokens", '{"cmd":\x0c"state"}', "bad_json"),
    ("a vertical tab after the object", '{"cmd": "state"}\x0b', "bad_json"),
    ("a no-break space (U+00A0) before the object", '\xa0{"cmd": "state"}', "bad_json"),
    ("a no-break space between tokens", '{"cmd":\xa0"state"}', "bad_json"),
    ("a line separator (U+2028) after the object", '{"cmd": "state"}\u2028', "bad_json"),
    ("an ideographic space (U+3000) after the object", '{"cmd": "state"}\u3000', "bad_json"),
)

#: Lines that are not UTF-8, each bad_json: (what, the bytes).
NOT_UTF8: tuple[tuple[str, bytes], ...] = (
    ("a byte 0xff in a string", b'{"cmd": "move", "move": "\xff"}'),
    ("a continuation byte with no lead", b'{"cmd": "move", "move": "\x80draw"}'),
    ("a surrogate encoded in UTF-8 (ED A0 80)", b'{"cmd": "move", "move": "\xed\xa0\x80"}'),
    ("an overlong encoding of / (C0 AF)", b'{"cmd": "move", "move": "\xc0\xaf"}'),
    ("a three-byte sequence cut short", b'{"cmd": "move", "move": "\xe2\x82"}'),
    ("a byte 0xfe after the object", b'{"cmd": "state"}\xfe'),
    ("Latin-1 text (0xe9) in a key", b'{"cmd": "state", "caf\xe9": 1}'),
)

#: Seeds whose text holds more than ASCII digits, each invalid_deal: (what, the seed).
SEED_TEXTS: tuple[tuple[str, str], ...] = (
    ("full-width digits", "\uff11\uff12"),
    ("an Arabic-Indic digit", "\u0663"),
    ("a Devanagari digit", "\u0967"),
    ("a superscript digit", "\u00b9"),
    ("a sign", "+1"),
    ("a leading blank", " 1"),
    ("a trailing blank", "1 "),
    ("a leading zero", "007"),
    ("an empty text", ""),
    ("a separator", "1_000"),
)
