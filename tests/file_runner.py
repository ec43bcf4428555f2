"""A runner of the conformance vectors that reads only the files: no ``american_sniff`` import.

It is written from docs/conformance.md alone, as an implementer in another
language would write theirs: it reads the vector files with a JSON parser,
sends each step's request (or line) to an engine, and compares the answer
with the step's ``expect`` by the documented rules. The tests check that it
reaches the kit's verdict on every vector, for the correct engines and for
the wrong ones.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: The lists compared as multisets (docs/conformance.md, "What is compared").
MULTISETS = {"moves", "open_points", "contributions"}


class Failed(Exception):
    """A vector's first difference."""


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def same(expected: Any, got: Any) -> bool:
    """Whether ``got`` matches ``expected``: every expected key, multisets where documented."""
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return False
        for key, value in expected.items():
            if key not in got:
                return False
            if key in MULTISETS and isinstance(value, list):
                if not isinstance(got[key], list):
                    return False
                if Counter(map(_key, value)) != Counter(map(_key, got[key])):
                    return False
            elif not same(value, got[key]):
                return False
        return True
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(got) == len(expected)
            and all(same(a, b) for a, b in zip(expected, got, strict=True))
        )
    return type(expected) is type(got) and expected == got


def own_choices_typed(cmd: Any, answer: dict[str, Any]) -> bool:
    """The engine's own fields: a failure's message, hello's engine and features."""
    if answer.get("ok") is False:
        return isinstance(answer.get("message"), str)
    if cmd == "hello":
        features = answer.get("features")
        return (
            isinstance(answer.get("engine"), str)
            and isinstance(features, list)
            and all(isinstance(f, str) for f in features)
        )
    return True


class Runner:
    """Runs vector files against an engine given as two functions: send a line, restart."""

    def __init__(self, send: Callable[[str | bytes], str], restart: Callable[[], None]) -> None:
        self.send = send
        self.restart = restart
        self.features: list[str] = []

    def ask(self, line: str | bytes) -> dict[str, Any]:
        """Send a line; the answer, which must be an object with ok."""
        try:
            answer = json.loads(self.send(line))
        except Exception as exc:
            raise Failed(f"no answer: {exc}") from None
        if not isinstance(answer, dict) or not isinstance(answer.get("ok"), bool):
            raise Failed("the answer is not an object with ok")
        return answer

    def hello(self) -> None:
        """The handshake; the engine's features."""
        request = {"cmd": "hello", "protocol_version": 1, "rules_version": "1"}
        answer = self.ask(json.dumps(request))
        want = {"ok": True, "protocol": "american-sniff/engine", "protocol_version": 1}
        if not same({**want, "rules_version": "1"}, answer) or not own_choices_typed(
            "hello", answer
        ):
            raise Failed("hello")
        self.features = answer["features"]

    def steps(self, vector: dict[str, Any]) -> None:
        """Run a vector's steps; raise Failed at the first difference."""
        for step in vector["steps"]:
            line: str | bytes
            if "line_hex" in step:  # a line that is not UTF-8, sent as its bytes
                cmd, line = None, bytes.fromhex(step["line_hex"])
            elif "line" in step:  # pad_to: spaces added up to that many bytes
                padding = step.get("pad_to", 0) - len(step["line"].encode("utf-8"))
                cmd, line = None, step["line"] + " " * padding
            else:
                cmd, line = step["request"].get("cmd"), json.dumps(step["request"])
            answer = self.ask(line)
            if not same(step["expect"], answer) or not own_choices_typed(cmd, answer):
                raise Failed(step["at"])

    def perft(self, vector: dict[str, Any]) -> None:
        """Count the sequences of each depth through the protocol; compare the counts."""
        depth = vector["depth"]
        counts = [0] * depth

        def legal_after(path: list[str]) -> list[str]:
            if not self.ask(json.dumps({"cmd": "new", **vector["start"]}))["ok"]:
                raise Failed("new")
            for move in path:
                if not self.ask(json.dumps({"cmd": "move", "move": move}))["ok"]:
                    raise Failed(f"the engine refused its own legal move {move}")
            answer = self.ask('{"cmd": "legal"}')
            if not answer["ok"]:
                if answer.get("error") == "no_deal":
                    return []
                raise Failed("legal")
            moves: list[str] = answer["moves"]
            return moves

        def walk(path: list[str]) -> None:
            moves = legal_after(path)
            counts[len(path)] += len(moves)
            if len(path) + 1 < depth:
                for move in moves:
                    walk([*path, move])

        walk([])
        if counts != vector["counts"]:
            raise Failed(f"perft: {counts}")

    def run(self, vector: dict[str, Any]) -> str:
        """The verdict on one vector: "pass", "fail" or "skip"."""
        if not set(vector["requires"]) <= set(self.features):
            return "skip"
        fresh = vector.get("fresh", False)
        if fresh:
            self.restart()
        try:
            if "steps" in vector:
                self.steps(vector)
            else:
                self.perft(vector)
        except Failed:
            verdict = "fail"
        else:
            verdict = "pass"
        if fresh or verdict == "fail":
            self.restart()
            self.hello()
        return verdict


def vectors(directory: Path) -> Iterator[dict[str, Any]]:
    """Every vector of the directory's ``*.json`` files."""
    for path in sorted(directory.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("format") == "american-sniff/vectors":
            assert document["format_version"] == 2
            yield from document["vectors"]


def run_directory(
    directory: Path, send: Callable[[str | bytes], str], restart: Callable[[], None]
) -> dict[str, str]:
    """The verdict on every vector of ``directory``, by id."""
    runner = Runner(send, restart)
    runner.hello()
    return {vector["id"]: runner.run(vector) for vector in vectors(directory)}
