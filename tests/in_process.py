"""The engines of ``tests/wrong_engines`` answering in-process, for the kit's tests.

An :class:`InProcess` engine is a minimal engine (or a wrong one) that the kit
talks to through JSON text, as it would over a pipe, without a subprocess:
the tables of wrong engines then take seconds. ``tests/wrong_engines`` is put
on the import path, so that its modules import as they do when run as programs.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

WRONG_ENGINES = Path(__file__).parent / "wrong_engines"
sys.path.insert(0, str(WRONG_ENGINES))

import minimal  # noqa: E402 - found on the path just set

from american_sniff.conformance.kit import EngineError  # noqa: E402 - after the engines' path


class InProcess:
    """An engine of ``tests/wrong_engines``, made afresh by ``make`` at each restart."""

    def __init__(self, make: Callable[[], minimal.Engine]) -> None:
        self.make = make
        self.engine = make()

    def request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """The answer to a request."""
        return self.send_line(json.dumps(message))

    def send_line(self, line: str | bytes) -> dict[str, Any]:
        """The answer to a line (text, or bytes as they are), as it would come over a pipe."""
        answer: dict[str, Any] = json.loads(self.text(line))
        return answer

    def text(self, line: str | bytes) -> str:
        """The answer line to a line; :class:`EngineError` if the engine gave up (exited)."""
        try:
            if isinstance(line, bytes):
                return json.dumps(self.engine.raw_line(line))
            return json.dumps(self.engine.line(line))
        except Exception as exc:  # the engine stopped: as if its process had exited
            raise EngineError(f"the engine exited: {exc}") from None

    def restart(self) -> None:
        """A fresh engine."""
        self.engine = self.make()

    def close(self) -> None:
        """Nothing to stop."""


def rules_engine(name: str) -> Callable[[], minimal.Engine]:
    """The maker of the rule-breaking engine ``tests/wrong_engines/<name>.py``."""
    module = importlib.import_module(name)
    rules = next(
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, minimal.Rules)
        and value is not minimal.Rules
    )
    return lambda: minimal.Engine(rules(), f"wrong: {name}")


def wrong_engine(name: str) -> Callable[[], minimal.Engine]:
    """The maker of ``tests/wrong_engines/<name>.py``: its Engine subclass, or its Rules'."""
    module = importlib.import_module(name)
    engines = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, minimal.Engine)
        and value is not minimal.Engine
    ]
    if not engines:
        return rules_engine(name)
    (engine,) = engines
    return lambda: engine(minimal.Rules(), f"wrong: {name}")
