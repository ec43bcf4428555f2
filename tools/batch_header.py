"""Write the C kernel's header of numbers, ``batch/_rules.h``, from the Python sources.

The C kernel (``batch/_cbatch.c`` and the files it includes) writes no rule
number, no word of a slot's layout, no action id and no observation offset of
its own: it includes this header, and this script writes the header from the
modules that own them:

* :mod:`american_sniff.rules`: the hand size, the target, the sides and the
  next seat for each number of players, a hand's rounding for every pip count
  a hand can hold, and what a placement scores for every end sum the open
  points can make (tabulated from the functions, so any change to one of them
  carries over);
* :mod:`american_sniff.actions`: the tiles, the points and the action ids;
* :mod:`american_sniff.observation`: where each segment of the observation starts;
* :mod:`american_sniff.batch._pybatch`: the words of a slot's state and of its
  facts, and the error codes.

Run it from the repository's root after changing any of them::

    python tools/batch_header.py          # write the header
    python tools/batch_header.py --check  # exit 1 if the checked-in header is stale

``tests/test_batch_rules.py`` fails while the checked-in header differs from
a fresh one. The script imports the package from the ``src`` beside it (not
an installed copy), so a scratch copy of the repository writes its own header.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
#: Where the header is written, under the repository's root.
HEADER = Path("src/american_sniff/batch/_rules.h")

#: The words of a slot's state: the C name (``AS_`` prefixed) and the name in ``_pybatch``.
_STATE_WORDS = (
    ("PLAYERS", "PLAYERS"),
    ("ROUND", "ROUND"),
    ("TURN", "TURN"),
    ("WINNER", "WINNER"),
    ("DRAWN", "DRAWN"),
    ("DRAWN_COUNT", "DRAWN_COUNT"),
    ("STOCK_SIZE", "STOCK_SIZE"),
    ("END_SUM", "END_SUM"),
    ("SNIFF", "SNIFF"),
    ("VALUES", "VALUES"),
    ("TABLE", "TABLE"),
    ("OPEN", "OPEN"),
    ("HANDS", "HANDS"),
    ("SCORES", "SCORES"),
    ("RNG", "RNG"),
    ("SEED", "SEED"),
    ("ACTIONS", "ACTIONS"),
    ("ROUND_ACTIONS", "ROUND_ACTIONS"),
    ("STOCK", "STOCK"),
    ("WORDS", "STATE_WORDS"),
)
#: The facts' words beside a slot's state, as above.
_FACT_WORDS = (
    ("F_PLAYED", "F_PLAYED"),
    ("F_VOIDS", "F_VOIDS"),
    ("F_MOVER", "F_MOVER"),
    ("F_DRAWS", "F_DRAWS"),
    ("F_KNOWN", "F_KNOWN"),
    ("F_SHOWN", "F_SHOWN"),
    ("F_ROUND", "F_ROUND"),
    ("F_OPENER", "F_OPENER"),
    ("FACT_WORDS", "FACT_WORDS"),
)
#: The error codes of a step, as above.
_ERRORS = (
    ("OK", "OK"),
    ("ILLEGAL", "ILLEGAL"),
    ("OUT_OF_RANGE", "OUT_OF_RANGE"),
    ("MATCH_OVER", "MATCH_OVER"),
    ("BAD_STATE", "BAD_STATE"),
)


def _enum(title: str, names: Iterable[tuple[str, int]]) -> list[str]:
    """A C enum of ``names`` (name, value), under a comment ``title``."""
    lines = [f"/* {title} */", "enum {"]
    lines += [f"    {name} = {value}," for name, value in names]
    lines[-1] = lines[-1].rstrip(",")
    return [*lines, "};", ""]


#: The C types of the tables, by name: the bits of each (all signed).
_BITS = {"int8_t": 8, "int16_t": 16, "int32_t": 32}


def _table(title: str, kind: str, name: str, size: str, values: Sequence[int]) -> list[str]:
    """A static const C array ``name[size]`` of ``values``, ten to a line.

    :raises ValueError: if a value does not fit ``kind`` (a rule changed past
        what the table's type holds: widen the type here).
    """
    bits = _BITS[kind]
    wrong = [v for v in values if not -(1 << (bits - 1)) <= v < 1 << (bits - 1)]
    if wrong:
        raise ValueError(f"{name} is {kind}, which cannot hold {wrong[0]}: widen its type")
    rows = [
        "    " + ", ".join(str(v) for v in values[at : at + 10]) for at in range(0, len(values), 10)
    ]
    return [
        f"/* {title} */",
        f"static const {kind} {name}[{size}] = {{",
        ",\n".join(rows),
        "};",
        "",
    ]


def render() -> str:
    """The header's text, from the package under ``src/`` (which must be first on ``sys.path``)."""
    from american_sniff import actions, observation, rules  # noqa: PLC0415
    from american_sniff.batch import _pybatch  # noqa: PLC0415
    from american_sniff.tiles import ALL_TILES  # noqa: PLC0415

    counts = rules.PLAYER_COUNTS
    seats = max(counts)
    by_players = range(seats + 1)  # indexed by the number of players: 0 and 1 hold none
    max_pips = sum(tile.pips for tile in ALL_TILES)
    max_end_sum = sum(_pybatch.POINT_WORTH)

    def per_count(rule: Callable[[int], int]) -> list[int]:
        return [rule(p) if p in counts else 0 for p in by_players]

    def per_seat(rule: Callable[[int, int], int]) -> list[int]:
        return [rule(p, s) if p in counts else 0 for p in by_players for s in range(seats)]

    offsets = []
    start = 0
    for name, width in observation.OBSERVATION_FIELDS:
        offsets.append((f"OB_{name.upper()}", start))
        start += width
    offsets.append(("AS_OBSERVATION", observation.OBSERVATION_SIZE))
    lines = [
        "/*",
        " * The numbers of the C kernel (_cbatch.c and the files it includes), written",
        " * by tools/batch_header.py from american_sniff.rules, .actions, .observation",
        " * and .batch._pybatch. Do not edit: change those and run the tool again",
        " * (tests/test_batch_rules.py fails while this file is stale).",
        " */",
        "#ifndef AMERICAN_SNIFF_BATCH_RULES_H",
        "#define AMERICAN_SNIFF_BATCH_RULES_H",
        "",
        "#include <stdint.h>",
        "",
    ]
    lines += _enum(
        "The words of a slot's state, int32 (docs/ai.md describes each).",
        [(f"AS_{c}", getattr(_pybatch, py)) for c, py in _STATE_WORDS],
    )
    lines += _enum(
        "The facts beside a slot's state, int64 words (see _cvector.c).",
        [(f"AS_{c}", getattr(_pybatch, py)) for c, py in _FACT_WORDS],
    )
    lines += _enum(
        "The error codes, one per slot and step.",
        [(f"AS_{c}", getattr(_pybatch, py)) for c, py in _ERRORS],
    )
    lines += _enum(
        "The tiles, the points and the actions (american_sniff.actions).",
        [
            ("AS_TILES", len(ALL_TILES)),
            ("AS_POINTS", len(actions.POINTS)),
            ("AS_ACTIONS_COUNT", actions.NUM_ACTIONS),
            ("AS_DRAW", actions.DRAW_ACTION),
            ("AS_PASS", actions.PASS_ACTION),
        ],
    )
    lines += [
        "/* A hand's word with every tile's bit set; the bound of counters and scores. */",
        f"#define AS_HAND_BITS 0x{_pybatch.HAND_BITS:08X}u",
        f"#define AS_SCORE_LIMIT {_pybatch.LIMIT}",
        "",
    ]
    lines += _enum("Where each segment of the observation starts (OBSERVATION_FIELDS).", offsets)
    slot_at, slot_start = [], 0
    for name, width in observation.ACTION_SLOT_FIELDS:
        slot_at.append((f"IS_{name.upper()}", slot_start))
        slot_start += width
    lines += _enum(
        "The history's uint16 records; an action's slot in the recall tensor (ACTION_SLOT_FIELDS).",
        [
            ("AS_H_TILE_SHIFT", _pybatch.H_TILE_SHIFT),
            ("AS_H_SEAT_SHIFT", _pybatch.H_SEAT_SHIFT),
            ("AS_HISTORY_WORDS", _pybatch.HISTORY_WORDS),
            *slot_at,
            ("IS_SLOT", slot_start),
        ],
    )
    lines += _enum(
        "The player counts (rules.PLAYER_COUNTS), a hand's most pips, the greatest end sum.",
        [
            ("AS_MIN_PLAYERS", min(counts)),
            ("AS_MAX_PLAYERS", seats),
            ("AS_MAX_PIPS", max_pips),
            ("AS_MAX_END_SUM", max_end_sum),
        ],
    )
    size = "AS_MAX_PLAYERS + 1"
    lines += _table(
        "rules.hand_size, by number of players",
        "int8_t",
        "as_rule_hand_size",
        size,
        per_count(rules.hand_size),
    )
    lines += _table(
        "rules.target, by number of players",
        "int32_t",
        "as_rule_target",
        size,
        per_count(rules.target),
    )
    lines += _table(
        "rules.side_count, by number of players",
        "int8_t",
        "as_rule_side_count",
        size,
        per_count(rules.side_count),
    )
    seat_size = "(AS_MAX_PLAYERS + 1) * AS_MAX_PLAYERS"
    lines += _table(
        "rules.side_of, at players * AS_MAX_PLAYERS + seat",
        "int8_t",
        "as_rule_side_of",
        seat_size,
        per_seat(rules.side_of),
    )
    lines += _table(
        "rules.next_seat, at players * AS_MAX_PLAYERS + seat",
        "int8_t",
        "as_rule_next_seat",
        seat_size,
        per_seat(rules.next_seat),
    )
    lines += _table(
        "observation.action_slots, by number of players",
        "int16_t",
        "as_rule_action_slots",
        size,
        per_count(observation.action_slots),
    )
    lines += _table(
        "observation.information_state_size, by number of players",
        "int32_t",
        "as_rule_information_size",
        size,
        per_count(observation.information_state_size),
    )
    lines += _table(
        "rules.round_hand, by a hand's pips",
        "int16_t",
        "as_rule_round_hand",
        "AS_MAX_PIPS + 1",
        [rules.round_hand(pips) for pips in range(max_pips + 1)],
    )
    lines += _table(
        "rules.placement_points, by the end sum after a placement",
        "int16_t",
        "as_rule_placement_points",
        "AS_MAX_END_SUM + 1",
        [rules.placement_points(end_sum) for end_sum in range(max_end_sum + 1)],
    )
    lines += _scale_tables(observation)
    lines += ["#endif", ""]
    return "\n".join(lines)


def _scale_tables(observation: ModuleType) -> list[str]:
    """observation.SCALE_DIVISORS as a float table, and SCALE_CLIPS as two segments' bounds."""
    divisors = observation.SCALE_DIVISORS
    if set(observation.SCALE_CLIPS) != {"scores", "round"}:
        raise ValueError("SCALE_CLIPS clips other segments than scores and round: add them here")
    for value in divisors:
        if value != float(int(value)):
            raise ValueError(f"a divisor {value} is not a whole number: write it exactly here")
    rows = [
        "    " + ", ".join(f"{int(v)}.0f" for v in divisors[at : at + 10])
        for at in range(0, len(divisors), 10)
    ]
    lines = [
        "/* observation.SCALE_DIVISORS, by entry (0: the row's own target entry) */",
        "static const float as_scale_divisors[AS_OBSERVATION] = {",
        ",\n".join(rows),
        "};",
        "",
        "/* observation.SCALE_CLIPS: the bounds of the scaled scores and round. */",
    ]
    for name in ("scores", "round"):
        low, high = observation.SCALE_CLIPS[name]
        lines.append(f"#define AS_SCALE_{name.upper()}_LOW {float(low)!r}f")
        lines.append(f"#define AS_SCALE_{name.upper()}_HIGH {float(high)!r}f")
    return [*lines, ""]


def main(argv: Sequence[str] | None = None) -> int:
    """Write the header, or with ``--check`` say whether the checked-in one is fresh."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the header is stale"
    )
    options = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    fresh = render()
    path = ROOT / HEADER
    if options.check:
        stale = not path.is_file() or path.read_text(encoding="utf-8") != fresh
        if stale:
            print(f"{HEADER} is stale: run python tools/batch_header.py", file=sys.stderr)
        return int(stale)
    path.write_text(fresh, encoding="utf-8", newline="\n")
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
