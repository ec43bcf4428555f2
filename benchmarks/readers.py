"""How long and how much memory every untrusted reader takes on hostile texts of 1 MiB.

Each reader that a host may hand text it did not write is fed hostile texts
of several shapes, each as long as the reader accepts and at most 1 MiB:
many empty or malformed elements, deep nesting, huge numbers, long strings,
many keys, long histories of plausible actions. Every case runs in a fresh
subprocess, which reports

* the best time of ``--runs`` readings, in milliseconds;
* the peak of memory that Python allocated during one reading
  (:mod:`tracemalloc`), in MB;
* how far the process's peak resident size rose above its size just before
  one reading (``VmHWM`` after resetting it, Linux), in MB;
* what the reader answered: the error's class and the start of its message.

The targets of issue 26 are at most 50 ms and 50 MB per 1 MiB text (with
a floor of 1 ms, for the browser's frames of at most 4 KiB, where a
reader's fixed cost is the whole cost); a case over either, or a reader
that answers with anything but its documented error, is marked. Timings
depend on the machine: the numbers in ``README.md`` say where they were
taken.

Usage (from the repository root)::

    PYTHONPATH=src python3 benchmarks/readers.py               # every case
    PYTHONPATH=src python3 benchmarks/readers.py --reader state --runs 3
    PYTHONPATH=src python3 benchmarks/readers.py --markdown    # the README's table
    PYTHONPATH=src python3 benchmarks/readers.py --saves       # real saves, for speed
    PYTHONPATH=src python3 benchmarks/readers.py --cpu         # on a machine shared with others
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import random
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

MIB = 1 << 20
#: The targets per 1 MiB text.
TARGET_MS = 50.0
TARGET_MB = 50.0
#: The time every text may take however short it is (a reader's fixed cost).
FLOOR_MS = 1.0
#: The signing key of the signed reader's texts.
KEY = b"benchmark key of sixteen bytes or more"


# -- real documents, to build the hostile ones from --------------------------------------


def _played(players: int, seed: int, actions: int) -> list[Any]:
    """The states of a match of random legal moves, at most ``actions`` of them."""
    from american_sniff import apply, legal_moves, new_match  # noqa: PLC0415

    state = new_match(players=players, seed=seed)
    states = [state]
    chooser = random.Random(seed)
    while state.winner is None and len(states) <= actions:
        state = apply(state, chooser.choice(legal_moves(state)))
        states.append(state)
    return states


def _mid_round(players: int = 3) -> Any:
    """A state in the middle of a round after the first, with a last round."""
    states = _played(players, 5, 400)
    return next(s for s in reversed(states) if s.info.round > 1 and len(s.history) >= 6)


ACTION = {"seat": 0, "move": "draw", "tile": "[0|0]", "end_sum": None, "points": None}
HIDDEN_DRAW = {**ACTION, "tile": None}
PLACE = {"seat": 0, "move": "[0|0] opens", "tile": None, "end_sum": 0, "points": 0}


def _fill(doc: dict[str, Any], path: tuple[Any, ...], element: object, size: int) -> str:
    """``doc`` as compact JSON with the list at ``path`` as many ``element`` as fit in ``size``."""
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = []
    room = size - len(_compact(doc)) - 64
    count = max(1, room // (len(_compact(element)) + 1))
    target[path[-1]] = [element] * count
    text = _compact(doc)
    while len(text.encode()) > size:  # (never in practice: the estimate leaves room)
        target[path[-1]] = target[path[-1]][: -max(1, count // 100)]
        text = _compact(doc)
    return text


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _many_keys(doc: dict[str, Any], size: int) -> str:
    """``doc`` with as many unknown keys as fit in ``size``."""
    doc = dict(doc)
    room = size - len(_compact(doc)) - 64
    for index in range(room // 14):  # '"k0000000":0,'
        doc[f"k{index:07d}"] = 0
    return _compact(doc)


def _repeated_key(doc: dict[str, Any], size: int) -> str:
    """``doc`` followed by its ``players`` key repeated as often as fits (the last one wins)."""
    text = _compact(doc)[:-1]
    key = next(iter(k for k in doc if isinstance(doc[k], int)))
    extra = f',"{key}":{doc[key]}'
    return text + extra * ((size - len(text) - 2) // len(extra)) + "}"


def _generic(size: int) -> dict[str, str]:
    """The shapes that need no document: nesting, numbers, strings, escapes."""
    return {
        "deep-arrays": "[" * size,
        "deep-objects": '{"a":' * (size // 5),
        "huge-number": '{"seed":' + "9" * (size - 20) + "}",
        "many-floats": "[" + ",".join(["1.5"] * (size // 4 - 1)) + "]",
        "long-string": '{"seed":"' + "x" * (size - 20) + '"}',
        "escapes": '{"seed":"' + "\\u00e9" * ((size - 20) // 6) + '"}',
        "lone-surrogates": '{"seed":"' + "\\ud800" * ((size - 20) // 6) + '"}',
        "not-json": "{" + "x" * (size - 2) + "}",
        "many-small-ints": "[" + ",".join(["7"] * (size // 2 - 1)) + "]",
    }


def _document_shapes(
    doc: dict[str, Any], lists: dict[str, tuple[Any, ...]], size: int
) -> dict[str, str]:
    """The shapes made from a real document: its lists filled, its keys multiplied."""
    shapes: dict[str, str] = {}
    history = lists.get("actions")
    if history is not None:
        for name, element in (
            ("empty-objects", {}),
            ("empty-lists", []),
            ("empty-strings", ""),
            ("nested-lists", [[[[]]]]),
            ("nulls", None),
            ("bad-moves", {**ACTION, "move": "drew"}),
            ("plausible-draws", ACTION),
            ("hidden-draws", HIDDEN_DRAW),
            ("plausible-opens", PLACE),
        ):
            shapes[name] = _fill(json.loads(_compact(doc)), history, element, size)
    tiles = lists.get("tiles")
    if tiles is not None:
        shapes["many-tiles"] = _fill(json.loads(_compact(doc)), tiles, "[0|0]", size)
        shapes["bad-tiles"] = _fill(json.loads(_compact(doc)), tiles, "[9|9]", size)
    ints = lists.get("ints")
    if ints is not None:
        shapes["many-scores"] = _fill(json.loads(_compact(doc)), ints, 0, size)
    shapes["many-keys"] = _many_keys(json.loads(_compact(doc)), size)
    shapes["repeated-key"] = _repeated_key(json.loads(_compact(doc)), size)
    return shapes


def _valid_deal(players: int, seed: int) -> dict[str, Any]:
    """A valid deal's document (a seeded deal, its opener named)."""
    from american_sniff.engine import seeded_deal  # noqa: PLC0415

    hands, stock, _ = seeded_deal(players, seed)
    return {
        "hands": [[str(tile) for tile in hand] for hand in hands],
        "stock": [str(tile) for tile in stock],
        "opener": 0,
    }


def _plausible_state_shapes(doc: dict[str, Any], size: int) -> dict[str, str]:
    """Lists of real-looking elements in a state: valid deals, hands, a round's hands (issue 42).

    ``valid-deals`` fills the text with valid deals (more than a match is
    given); ``most-deals`` holds as many as a match may be given, a valid
    state the reader loads; the hands are real hands, many of them.
    """
    players = doc["players"]
    deal = _valid_deal(players, 7)
    made = {
        "valid-deals": _fill(json.loads(_compact(doc)), ("deals",), deal, size),
        "valid-hands": _fill(json.loads(_compact(doc)), ("hands",), doc["hands"][0], size),
    }
    if doc.get("last_round") is not None:
        hand = doc["last_round"]["hands"][0] or doc["hands"][0]
        made["round-hands"] = _fill(json.loads(_compact(doc)), ("last_round", "hands"), hand, size)
    if "signature" not in doc:  # the signed reader would refuse it by its signature
        made["most-deals"] = _most_deals(players)
    return made


def _most_rounds() -> int:
    """The most deals, and record rounds, the readers take (1,000, issue 42; also before it)."""
    from american_sniff.serial import parsing  # noqa: PLC0415

    most: int = getattr(parsing, "MOST_ROUNDS", 1000)
    return most


def _fewest_actions(players: int) -> int:
    """The fewest actions a record's round before its last holds (a hand's worth; also before)."""
    from american_sniff import rules  # noqa: PLC0415

    fewest: Callable[[int], int] | None = getattr(rules, "fewest_actions", None)
    return 1 if fewest is None else fewest(players)


def _most_deals(players: int) -> str:
    """A valid save of a match given as many deals as it may be, a few actions in."""
    from american_sniff import Deal, apply, legal_moves, new_match  # noqa: PLC0415
    from american_sniff.engine import seeded_deal  # noqa: PLC0415

    hands, stock, _ = seeded_deal(players, 7)
    state = new_match(players, seed=5, deals=[Deal(hands, stock, 0)] * _most_rounds())
    for _ in range(4):
        state = apply(state, legal_moves(state)[0])
    return str(state.to_json())


# -- the readers ----------------------------------------------------------------------


class Reader:
    """An untrusted reader: what to call, its documented error, its limit, its shapes."""

    def __init__(
        self,
        name: str,
        call: Callable[[str], object],
        error: type[BaseException] | None,
        limit: int,
        shapes: Callable[[int], dict[str, str]],
    ) -> None:
        self.name = name
        self.call = call
        #: None: the reader answers every text (the protocol line), never raises.
        self.error = error
        self.limit = limit
        self.shapes = shapes


def _state_reader(signed: bool) -> Reader:
    from american_sniff import InvalidState, MatchState  # noqa: PLC0415
    from american_sniff.serial import MAX_STATE_BYTES  # noqa: PLC0415

    def shapes(size: int) -> dict[str, str]:
        state = _mid_round()
        doc = json.loads(state.to_json(key=KEY) if signed else state.to_json())
        made = {
            **_generic(size),
            **_document_shapes(
                doc,
                {"actions": ("history",), "tiles": ("stock",), "ints": ("scores",)},
                size,
            ),
        }
        made["round-actions"] = _fill(
            json.loads(_compact(doc)), ("last_round", "history"), {}, size
        )
        made["many-deals"] = _fill(
            json.loads(_compact(doc)), ("deals",), {"hands": [], "stock": [], "opener": 0}, size
        )
        made.update(_plausible_state_shapes(doc, size))
        return made  # a signed text keeps its signature: the forgery is refused by it

    if signed:
        return Reader(
            "signed state",
            lambda text: MatchState.from_json(text, key=KEY),
            InvalidState,
            MAX_STATE_BYTES,
            shapes,
        )
    return Reader("state", MatchState.from_json, InvalidState, MAX_STATE_BYTES, shapes)


def _view_reader() -> Reader:
    from american_sniff import InvalidView, PlayerView, view_for  # noqa: PLC0415
    from american_sniff.views import MAX_VIEW_BYTES  # noqa: PLC0415

    def shapes(size: int) -> dict[str, str]:
        doc = json.loads(view_for(_mid_round(), 0).to_json())
        return {
            **_generic(size),
            **_document_shapes(
                doc,
                {"actions": ("history",), "tiles": ("hand",), "ints": ("hand_sizes",)},
                size,
            ),
            "many-placements": _fill(
                json.loads(_compact(doc)), ("table", "placements"), "[0|0] opens", size
            ),
            "many-previews": _fill(json.loads(_compact(doc)), ("previews",), {}, size),
            **_plausible_view_shapes(size),
        }

    return Reader("view", PlayerView.from_json, InvalidView, MAX_VIEW_BYTES, shapes)


def _plausible_view_shapes(size: int) -> dict[str, str]:
    """A view's geometry, contributions and round's hands, filled with real elements (issue 42)."""
    from american_sniff import view_for  # noqa: PLC0415

    doc = json.loads(view_for(_mid_round(), 0).to_json(geometry=True))
    geometry = doc["geometry"]
    made = {
        "geometry-tiles": _fill(
            json.loads(_compact(doc)), ("geometry", "tiles"), geometry["tiles"][0], size
        ),
        "geometry-anchors": _fill(
            json.loads(_compact(doc)), ("geometry", "anchors"), geometry["anchors"][0], size
        ),
        "geometry-edges": _fill(
            json.loads(_compact(doc)),
            ("geometry", "tiles", 0, "edges"),
            geometry["tiles"][0]["edges"][0],
            size,
        ),
        "contributions": _fill(
            json.loads(_compact(doc)),
            ("table", "contributions"),
            doc["table"]["contributions"][0],
            size,
        ),
    }
    hand = next(h for h in doc["last_round"]["hands"] if h)
    made["round-hands"] = _fill(json.loads(_compact(doc)), ("last_round", "hands"), hand, size)
    return made


def _event_reader() -> Reader:
    from american_sniff import InvalidView, ViewEvent, event_for  # noqa: PLC0415
    from american_sniff.views import MAX_VIEW_BYTES  # noqa: PLC0415

    def shapes(size: int) -> dict[str, str]:
        doc = json.loads(event_for(_mid_round(), 0).to_json())
        return {
            **_generic(size),
            **_document_shapes(doc, {"ints": ("scores",)}, size),
            "many-legal-moves": _fill(json.loads(_compact(doc)), ("legal_moves",), "draw", size),
            "many-voids": _fill(json.loads(_compact(doc)), ("voids", 0), 0, size),
            "empty-legal-moves": _fill(json.loads(_compact(doc)), ("legal_moves",), [], size),
        }

    return Reader("event", ViewEvent.from_json, InvalidView, MAX_VIEW_BYTES, shapes)


def _record_reader() -> Reader:
    from american_sniff import InvalidRecord, MatchRecord, record_match  # noqa: PLC0415
    from american_sniff.records import MAX_RECORD_BYTES  # noqa: PLC0415

    def shapes(size: int) -> dict[str, str]:
        doc = json.loads(record_match(_played(3, 5, 300)).to_json())
        made = {
            **_generic(size),
            **_document_shapes(
                doc,
                {"actions": ("rounds", 0, "actions"), "tiles": ("rounds", 0, "stock")},
                size,
            ),
            "many-rounds": _fill(json.loads(_compact(doc)), ("rounds",), {}, size),
        }
        # Real-looking rounds: each of one action (no play gives it, but the
        # reader reads it), or a round of the match, as many as fit; and
        # rounds of real hands.
        first = json.loads(_compact(doc["rounds"][0]))
        first["actions"] = first["actions"][:1]
        made["one-action-rounds"] = _fill(json.loads(_compact(doc)), ("rounds",), first, size)
        most = json.loads(_compact(doc))
        most["rounds"] = [first] * _most_rounds()  # as many as a record may hold
        made["most-one-action-rounds"] = _compact(most)
        # The shortest rounds a record may hold before its last (a hand's
        # worth of actions, issue 42's floor), as many as it may hold: with
        # the round's hands, and bare (no tile, the shortest action object).
        least = _fewest_actions(doc["players"])
        fewest = json.loads(_compact(doc["rounds"][0]))
        fewest["actions"] = fewest["actions"][:least]
        most = json.loads(_compact(doc))
        most["rounds"] = [fewest] * _most_rounds()
        made["fewest-action-rounds"] = _compact(most)
        bare = {
            **fewest,
            "hands": [[] for _ in fewest["hands"]],
            "stock": [],
            "actions": [{**HIDDEN_DRAW, "tile": None}] * least,
            "end": None,
            "finisher": None,
            "deductions": None,
        }
        most["rounds"] = [bare] * _most_rounds()
        made["bare-fewest-rounds"] = _compact(most)
        made["valid-rounds"] = _fill(json.loads(_compact(doc)), ("rounds",), doc["rounds"][1], size)
        made["round-hands"] = _fill(
            json.loads(_compact(doc)), ("rounds", 0, "hands"), doc["rounds"][0]["hands"][0], size
        )
        # Valid rounds, as many as fit: a long record the reader accepts (the
        # finished rounds repeated, then the one the record stops in).
        rounds = doc["rounds"]
        copies = size // len(_compact(rounds)) - 1
        doc["rounds"] = rounds[:-1] * max(1, copies) + rounds[-1:]
        made["long-valid-record"] = _compact(doc)
        return made

    return Reader("record", MatchRecord.from_json, InvalidRecord, MAX_RECORD_BYTES, shapes)


def _protocol_reader() -> Reader:
    from american_sniff.conformance.protocol import MAX_LINE_BYTES, Session  # noqa: PLC0415

    def answer(text: str) -> object:
        return Session().handle_line(text)

    def shapes(size: int) -> dict[str, str]:
        new = {"cmd": "new", "players": 2, "seed": "1"}
        table = {"cmd": "table", "moves": []}
        settle = {"cmd": "settle", "players": 2, "hands": []}
        return {
            **_generic(size),
            "many-table-moves": _fill(dict(table), ("moves",), "[0|0] opens", size),
            "empty-table-moves": _fill(dict(table), ("moves",), [], size),
            "many-deals": _fill({**new, "deals": []}, ("deals",), {}, size),
            "valid-deals": _fill({**new, "deals": []}, ("deals",), _valid_deal(2, 7), size),
            "settle-hands": _fill(settle, ("hands",), _valid_deal(2, 7)["hands"][0], size),
            "many-keys": _many_keys(new, size),
        }

    return Reader("protocol line", answer, None, MAX_LINE_BYTES, shapes)


def _frame_reader() -> Reader:
    from american_sniff.web.connection import parse as served  # noqa: PLC0415 - the server's
    from american_sniff.web.game import GameError  # noqa: PLC0415
    from american_sniff.web.limits import MAX_MESSAGE  # noqa: PLC0415

    def parse(text: str) -> object:
        # What the server does with a browser's message: web/connection.py's receive
        # refuses one over MAX_MESSAGE characters, then its parse reads it.
        if len(text) > MAX_MESSAGE:
            raise GameError("the message is too long")
        return served(text)

    move = {"type": "move", "move": "[1|2] on [2|2] high"}

    def shapes(size: int) -> dict[str, str]:
        made = {
            **_generic(size),
            "strings-of-brackets": '["' + "[" * (size - 4) + '"]',
            "many-keys": _many_keys(move, size),
        }
        # And a frame of a whole MiB, which the length check refuses.
        made["one-mib"] = _compact({**move, "move": "x" * MIB})
        return made

    return Reader("web frame", parse, GameError, MAX_MESSAGE, shapes)


READERS: dict[str, Callable[[], Reader]] = {
    "state": lambda: _state_reader(signed=False),
    "signed": lambda: _state_reader(signed=True),
    "view": _view_reader,
    "event": _event_reader,
    "record": _record_reader,
    "protocol": _protocol_reader,
    "frame": _frame_reader,
}


# -- measuring one case, in its own process -------------------------------------------------


def _status_bytes(field: str) -> int:
    """A size from ``/proc/self/status`` (``VmRSS``, ``VmHWM``), in bytes (Linux), or 0."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _reset_peak() -> bool:
    """Reset the process's peak resident size to its size now (Linux 4.0 and later)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return True


def _outcome(reader: Reader, text: str) -> tuple[str, str, bool]:
    """What the reader answered: kind, the start of the message, whether it is documented."""
    try:
        answer = reader.call(text)
    except Exception as exc:
        documented = reader.error is not None and isinstance(exc, reader.error)
        return type(exc).__name__, str(exc)[:110], documented
    if reader.error is None:
        shown = str(answer)
        try:
            documented = json.loads(shown).get("ok") is not None
        except ValueError:
            documented = False
        return "answer", shown[:110], documented
    return "accepted", type(answer).__name__, True


def measure_one(reader_name: str, shape: str, runs: int, *, cpu: bool = False) -> dict[str, Any]:
    """The numbers of one case (run in the subprocess).

    ``cpu``: time by the process's CPU time (:func:`time.process_time`), not
    the wall clock, which a machine shared with other work inflates by the
    time the process waits for a core.
    """
    reader = READERS[reader_name]()
    size = min(reader.limit, MIB)
    text = reader.shapes(size)[shape]
    kind, message, documented = _outcome(reader, text)  # also warms up the imports
    clock = time.process_time if cpu else time.perf_counter
    best = float("inf")
    for _ in range(runs):
        start = clock()
        with contextlib.suppress(Exception):  # the outcome was recorded above
            reader.call(text)
        best = min(best, clock() - start)
    gc.collect()
    rss_before = _status_bytes("VmRSS")
    reset = _reset_peak()
    with contextlib.suppress(Exception):  # the outcome was recorded above
        reader.call(text)
    if reset:
        rss_peak = _status_bytes("VmHWM")
    else:  # the peak since the process began: an upper bound
        rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    tracemalloc.start()
    with contextlib.suppress(Exception):  # the outcome was recorded above
        reader.call(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "reader": reader.name,
        "shape": shape,
        "bytes": len(text.encode()),
        "ms": best * 1000,
        "traced_mb": peak / 1e6,
        "rss_mb": max(0, rss_peak - rss_before) / 1e6,
        "outcome": kind,
        "message": message,
        "documented": documented,
    }


def _shape_names(reader_name: str) -> list[str]:
    reader = READERS[reader_name]()
    return list(reader.shapes(min(reader.limit, MIB)))


# -- real saves, for the valid path ----------------------------------------------------------


def time_saves(runs: int) -> None:
    """The best time of loading real saves (2, 3 and 4 players, mid-match), strict and signed."""
    from american_sniff import MatchState  # noqa: PLC0415

    for players in (2, 3, 4):
        states = _played(players, 11, 300)
        texts = [s.to_json() for s in states[::10]]
        signed = [s.to_json(key=KEY) for s in states[::10]]
        for label, batch, key in (("strict", texts, None), ("signed", signed, KEY)):
            best = float("inf")
            for _ in range(runs):
                start = time.perf_counter()
                for text in batch:
                    MatchState.from_json(text, key=key)
                best = min(best, time.perf_counter() - start)
            per = best / len(batch) * 1e6
            size = sum(map(len, batch)) // len(batch)
            print(
                f"{players} players, {label:6}: {per:8.1f} us a save "
                f"({len(batch)} saves, ~{size} bytes)"
            )


# -- the report -------------------------------------------------------------------------


def _flag(row: dict[str, Any]) -> str:
    marks = []
    if row["ms"] > max(FLOOR_MS, TARGET_MS * row["bytes"] / MIB):  # linear: 50 ms a MiB
        marks.append("SLOW")
    if max(row["traced_mb"], row["rss_mb"]) > TARGET_MB:
        marks.append("BIG")
    if not row["documented"]:
        marks.append("UNDOCUMENTED ERROR")
    return " ".join(marks)


def main(argv: list[str] | None = None) -> int:
    """Run the cases (each in a subprocess) and print a table; non-zero if any misses a target."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reader", choices=sorted(READERS), action="append")
    parser.add_argument("--shape", action="append", help="only these shapes")
    parser.add_argument("--runs", type=int, default=5, help="readings per case (best is kept)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--json", metavar="PATH", help="also write every row to PATH")
    parser.add_argument("--saves", action="store_true", help="time loading real saves instead")
    parser.add_argument(
        "--cpu", action="store_true", help="time by CPU time, not the wall clock (a busy machine)"
    )
    parser.add_argument("--one", nargs=2, metavar=("READER", "SHAPE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one[0], args.one[1], args.runs, cpu=args.cpu)))
        return 0
    if args.saves:
        time_saves(max(args.runs, 3))
        return 0
    rows = []
    for reader_name in args.reader or list(READERS):
        for shape in _shape_names(reader_name):
            if args.shape and shape not in args.shape:
                continue
            command = [sys.executable, __file__, "--one", reader_name, shape]
            command += ["--runs", str(args.runs)] + (["--cpu"] if args.cpu else [])
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{reader_name} {shape}: the case failed\n{done.stderr}", file=sys.stderr)
                return 2
            row = json.loads(done.stdout)
            rows.append(row)
            if not args.markdown:
                print(
                    f"{row['reader']:14} {shape:20} {row['bytes'] / MIB:5.2f} MiB "
                    f"{row['ms']:8.1f} ms {row['traced_mb']:7.1f} MB traced "
                    f"{row['rss_mb']:7.1f} MB rss  {row['outcome']}: {row['message'][:60]!r} "
                    f"{_flag(row)}",
                    flush=True,
                )
    if args.markdown:
        print("| reader | shape | KiB | ms | MB traced | MB rss | answer |")
        print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
        for row in rows:
            flag = f" **{_flag(row)}**" if _flag(row) else ""
            print(
                f"| {row['reader']} | {row['shape']} | {row['bytes'] / 1024:,.0f} | "
                f"{row['ms']:.1f} | {row['traced_mb']:.1f} | {row['rss_mb']:.1f} | "
                f"{row['outcome']}{flag} |"
            )
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    return 1 if any(_flag(row) for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
