"""Wrong engines that each get one field of one answer wrong, or swap one pair of the refusal order.

:data:`FIELDS` names every field of every answer the protocol defines, as
``COMMAND.PATH`` (``"move.turn"``, ``"state.table.end_sum"``,
``"move.round_end.hands"``; ``"line.error"`` for the answer to a line that is
no request). For each, :func:`field_engine` is the minimal engine with that
one field wrong in every answer that holds it; for each pair of
:data:`ORDER_SWAPS`, :func:`order_engine` is the minimal engine that reports
the second code of the pair before the first. The tests run every one of them
and expect each to fail the kit, naming its field or pair.

Run as a program, ``fields.py move.turn`` or ``fields.py not_in_hand,must_place_drawn``
serves that wrong engine over the protocol.
"""

from __future__ import annotations

import sys
from typing import Any

from minimal import ORDER, Engine, Rules, serve

#: Every field of every answer, by command, as the tests check it against the vectors.
FIELDS = (
    "hello.protocol",
    "hello.protocol_version",
    "hello.rules_version",
    "hello.error",
    *(
        f"{cmd}.{key}"
        for cmd in ("new", "state")
        for key in (
            "players",
            "round",
            "opener",
            "turn",
            "target",
            "scores",
            "winner",
            "hand_sizes",
            "stock_size",
            "table",
            "table.open_points",
            "table.contributions",
            "table.end_sum",
            "error",
        )
    ),
    "legal.moves",
    "legal.error",
    "move.seat",
    "move.move",
    "move.tile",
    "move.end_sum",
    "move.points",
    "move.scores",
    "move.round_end",
    "move.round_end.round",
    "move.round_end.end",
    "move.round_end.finisher",
    "move.round_end.hands",
    "move.round_end.deductions",
    "move.round_end.scores",
    "move.winner",
    "move.turn",
    "move.round",
    "move.error",
    "move.code",
    "table.open_points",
    "table.contributions",
    "table.end_sum",
    "table.points",
    "table.error",
    "table.code",
    "table.index",
    "settle.deductions",
    "settle.side_totals",
    "settle.scores",
    "settle.error",
    "line.error",
    "other.error",
)

#: The adjacent pairs of the refusal order that the order vectors cover.
ORDER_SWAPS = (
    ("match_over", "not_a_move"),
    ("not_a_tile", "not_a_point"),
    ("not_a_point", "not_in_hand"),
    ("not_in_hand", "must_place_drawn"),
    ("must_place_drawn", "point_required"),
    ("opening_has_no_point", "point_not_open"),
    ("point_not_open", "values_differ"),
    ("must_place_drawn", "must_place"),
    ("must_place", "stock_empty"),
    ("already_on_table", "point_required"),
)

#: The protocol's commands.
COMMANDS = ("hello", "new", "legal", "move", "state", "table", "settle", "quit")


def wrong(value: Any) -> Any:
    """A value that differs from ``value``, of the kind a bug would give."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "!"
    if isinstance(value, list):
        return value[:-1] if value else ["[0|0]"]
    return None  # an object: null instead


def command_of(line: str) -> str:
    """The command a request line names: one of the protocol's, "other", or "line"."""
    try:
        request = Engine.parse(line)
    except ValueError:
        return "line"
    if not isinstance(request, dict):
        return "line"
    cmd = request.get("cmd")
    return cmd if isinstance(cmd, str) and cmd in COMMANDS else "other"


class WrongField(Engine):
    """The minimal engine with one field of one command's answers wrong."""

    def __init__(self, field: str) -> None:
        super().__init__(Rules(), f"wrong: {field}")
        self.cmd, _, path = field.partition(".")
        self.path = path.split(".")

    def line(self, line: str) -> dict[str, Any]:
        """The right answer, with the field wrong where it is there."""
        answer = super().line(line)
        if command_of(line) != self.cmd:
            return answer
        holder: Any = answer
        for key in self.path[:-1]:
            holder = holder.get(key) if isinstance(holder, dict) else None
        last = self.path[-1]
        if isinstance(holder, dict) and last in holder:
            holder[last] = wrong(holder[last])
        return answer


class SwappedOrder(Rules):
    """Rules that report the second code of a pair of the refusal order before the first."""

    def __init__(self, first: str, second: str) -> None:
        order = [code for code in ORDER if code != second]
        order.insert(order.index(first), second)  # just before first: nothing else moves
        self.order = tuple(order)


def field_engine(field: str) -> Engine:
    """The wrong engine of ``field`` (a name of :data:`FIELDS`)."""
    if field not in FIELDS:
        raise ValueError(f"no such field: {field}")
    return WrongField(field)


def order_engine(first: str, second: str) -> Engine:
    """The wrong engine that reports ``second`` before ``first``."""
    if (first, second) not in ORDER_SWAPS:
        raise ValueError(f"no such pair: {first}, {second}")
    return Engine(SwappedOrder(first, second), f"wrong: {second} before {first}")


if __name__ == "__main__":
    name = sys.argv[1]
    if "," in name:
        first, second = name.split(",")
        engine = order_engine(first, second)
    else:
        engine = field_engine(name)
    serve(engine.rules, engine.name, engine)
