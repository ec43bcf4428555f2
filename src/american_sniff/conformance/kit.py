"""The conformance kit: run the vectors against an engine that speaks the protocol.

:func:`run_kit` sends each vector's requests to an engine (a
:class:`SubprocessEngine` for a program in any language, or a
:class:`LocalEngine` for the library itself, in-process) and compares the
answers with the vector's expected values. It reports, vector by vector,
whether the engine passed and, if not, the first difference.

Comparisons are exact, with two allowances: legal moves, open points and
contributions are compared as multisets, never in the library's order; and an
answer may hold keys the vector does not mention (only the vector's keys are
compared).
"""

from __future__ import annotations

import collections
import contextlib
import json
import queue
import shlex
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Protocol

import attrs

from ..engine import legal_moves
from ..records import MatchRecord, replay
from ..rules import RULES_VERSION
from ..serial import read_json
from .loading import Vector, load_vectors
from .protocol import MAX_LINE_BYTES, PROTOCOL_VERSION, Session

__all__ = [
    "DEFAULT_TIMEOUT",
    "Engine",
    "EngineError",
    "KitReport",
    "LocalEngine",
    "SubprocessEngine",
    "VectorResult",
    "handshake",
    "run_kit",
]

#: Seconds the kit waits for each answer by default.
DEFAULT_TIMEOUT = 10.0
#: Answers whose legal moves, open points or contributions are compared as multisets.
_SET_KEYS = frozenset({"open_points", "contributions", "moves", "legal_moves"})
#: How many of the engine's last standard-error lines a failure quotes.
_STDERR_LINES = 5


class EngineError(Exception):
    """The engine did not answer as the protocol requires.

    It could not start, exited, did not answer in time, wrote a line that is
    not a JSON object with ``ok``, or refused the ``hello`` handshake.
    """


class Engine(Protocol):
    """Something that answers protocol requests: a program, or the library in-process."""

    def request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and return its answer.

        :raises EngineError: if no well-formed answer comes.
        """

    def restart(self) -> None:
        """Start afresh after a failure (a new process, a new session)."""

    def close(self) -> None:
        """Stop the engine."""


class LocalEngine:
    """The library's own :class:`~american_sniff.conformance.protocol.Session`, in-process.

    Requests and answers go through JSON text, as they would over a pipe.

    >>> engine = LocalEngine()
    >>> engine.request({"cmd": "table", "moves": ["[2|2] opens"]})["end_sum"]
    4
    """

    def __init__(self) -> None:
        self._session = Session()

    def request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """The session's answer to ``message``."""
        answer: dict[str, Any] = json.loads(self._session.handle_line(json.dumps(message)))
        return answer

    def restart(self) -> None:
        """Begin a new session."""
        self._session = Session()

    def close(self) -> None:
        """Nothing to stop."""


class SubprocessEngine:
    """A program speaking the protocol on its standard input and output.

    ``command`` is a command line (split as a POSIX shell would, without
    running a shell) or a list of arguments. Each answer must come within
    ``timeout`` seconds. The engine's standard error is read and its last
    lines are quoted when the engine fails. Use it as a context manager, or
    call :meth:`close`.

    :raises EngineError: if the program cannot be started.
    """

    def __init__(self, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise EngineError("the engine command is empty")
        self._argv = argv
        self._timeout = timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._threads: list[threading.Thread] = []
        self._start()

    def __enter__(self) -> SubprocessEngine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _start(self) -> None:
        try:
            process = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
            )
        except OSError as exc:
            raise EngineError(f"cannot start {self._argv[0]!r}: {exc.strerror or exc}") from None
        self._process = process
        self._lines = queue.Queue()
        self._stderr.clear()
        assert process.stdout is not None
        assert process.stderr is not None
        self._threads = [
            threading.Thread(target=_read_lines, args=(process.stdout, self._lines), daemon=True),
            threading.Thread(target=_keep_tail, args=(process.stderr, self._stderr), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Write ``message`` as one line and read the answer line.

        :raises EngineError: if the engine has exited, does not answer within
            the timeout, or answers with something other than a JSON object
            holding ``ok``.
        """
        process = self._process
        if process is None:
            raise EngineError("the engine is closed")
        assert process.stdin is not None
        line = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"
        try:
            process.stdin.write(line)
            process.stdin.flush()
        except OSError:
            raise EngineError(f"the engine stopped reading{self._exit_note()}") from None
        try:
            answer = self._lines.get(timeout=self._timeout)
        except queue.Empty:
            raise EngineError(
                f"no answer to {message.get('cmd')!r} within {self._timeout:g} seconds"
            ) from None
        if answer is None:
            raise EngineError(f"the engine closed its output{self._exit_note()}")
        try:
            data = read_json(
                answer, max_bytes=MAX_LINE_BYTES + 1, error=ValueError, what="the engine's answer"
            )
        except ValueError as exc:
            raise EngineError(str(exc)) from None
        if not isinstance(data, dict) or type(data.get("ok")) is not bool:
            raise EngineError(f"the answer is not an object with ok: {answer[:200]!r}")
        return data

    def _exit_note(self) -> str:
        process = self._process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
        note = "" if code is None else f" (exit code {code})"
        for thread in self._threads[1:]:
            thread.join(timeout=1)
        if self._stderr:
            note += "; its last words: " + " | ".join(self._stderr)
        return note

    def restart(self) -> None:
        """Stop the program and start it again."""
        self.close()
        self._start()

    def close(self) -> None:
        """Close the program's input, and end it if it has not exited within a second."""
        process = self._process
        if process is None:
            return
        self._process = None
        assert process.stdin is not None
        with contextlib.suppress(OSError):  # it may have gone already
            process.stdin.close()
        try:
            process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for thread in self._threads:
            thread.join(timeout=1)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _read_lines(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    """Put each line of ``stream`` (cut at the protocol's limit) on ``lines``; None at the end."""
    try:
        while True:
            line = stream.readline(MAX_LINE_BYTES + 2)
            if not line:
                break
            if not line.endswith(b"\n"):
                while True:  # skip the rest of an over-long line
                    rest = stream.readline(MAX_LINE_BYTES)
                    if not rest or rest.endswith(b"\n"):
                        break
            lines.put(line)
    except (OSError, ValueError):
        pass  # the stream was closed under us
    lines.put(None)


def _keep_tail(stream: IO[bytes], tail: collections.deque[str]) -> None:
    """Keep the last lines of ``stream`` in ``tail``."""
    try:
        for line in iter(lambda: stream.readline(4096), b""):
            text = line.decode("utf-8", "replace").strip()
            if text:
                tail.append(text)
    except (OSError, ValueError):
        pass  # the stream was closed under us


# -- results -----------------------------------------------------------------------------


@attrs.frozen
class VectorResult:
    """How an engine did on one vector.

    :ivar id: The vector's id.
    :ivar kind: The vector's kind.
    :ivar passed: Whether every answer matched.
    :ivar difference: The first difference found, in words; None if it passed.
    """

    id: str
    kind: str
    passed: bool
    difference: str | None = None

    def __str__(self) -> str:
        if self.passed:
            return f"PASS {self.id}"
        return f"FAIL {self.id}: {self.difference}"


@attrs.frozen
class KitReport:
    """The outcome of running the kit against an engine.

    :ivar engine: The engine's ``hello`` answer (its name, versions, features).
    :ivar results: One result per vector, in the order run.
    """

    engine: Mapping[str, Any]
    results: tuple[VectorResult, ...]

    @property
    def passed(self) -> bool:
        """Whether the engine passed every vector."""
        return all(result.passed for result in self.results)

    @property
    def failures(self) -> tuple[VectorResult, ...]:
        """The vectors the engine failed."""
        return tuple(result for result in self.results if not result.passed)

    def summary(self) -> str:
        """One line: how many vectors passed and failed, and which engine ran them."""
        total = len(self.results)
        failed = len(self.failures)
        name = self.engine.get("engine", "the engine")
        verdict = "all passed" if not failed else f"{total - failed} passed, {failed} failed"
        return f"{total} vectors: {verdict} ({name})"

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON values (what ``american-sniff conformance --json`` prints)."""
        return {
            "format": "american-sniff/conformance-report",
            "format_version": 1,
            "rules_version": RULES_VERSION,
            "engine": dict(self.engine),
            "passed": self.passed,
            "total": len(self.results),
            "failed": len(self.failures),
            "results": [attrs.asdict(result) for result in self.results],
        }


# -- running ----------------------------------------------------------------------------


def handshake(engine: Engine) -> dict[str, Any]:
    """Send ``hello`` and check the engine's protocol and rules versions; return its answer.

    :raises EngineError: if the engine refuses, or speaks another version.
    """
    answer = engine.request(
        {"cmd": "hello", "protocol_version": PROTOCOL_VERSION, "rules_version": RULES_VERSION}
    )
    if not answer.get("ok"):
        raise EngineError(f"the engine refused hello: {_refusal(answer)}")
    if answer.get("protocol_version") != PROTOCOL_VERSION:
        raise EngineError(
            f"the engine speaks protocol version {answer.get('protocol_version')!r}, "
            f"not {PROTOCOL_VERSION}"
        )
    if answer.get("rules_version") != RULES_VERSION:
        raise EngineError(
            f"the engine plays rules version {answer.get('rules_version')!r}; "
            f"the vectors are for {RULES_VERSION!r}"
        )
    return answer


def run_kit(
    engine: Engine,
    vectors: Sequence[Vector] | None = None,
    *,
    progress: Callable[[VectorResult], None] | None = None,
) -> KitReport:
    """Run ``vectors`` (default: the shipped ones) against ``engine``.

    Each result is also given to ``progress`` as soon as it is known. A vector
    during which the engine fails (exits, times out, answers garbage) fails
    with that reason, and the engine is restarted for the next one.

    >>> report = run_kit(LocalEngine())
    >>> report.passed, report.summary().startswith(f"{len(report.results)} vectors: all passed")
    (True, True)

    :raises EngineError: if the engine fails the ``hello`` handshake (also
        after a restart), since no vector can then be run.
    """
    vectors = load_vectors() if vectors is None else vectors
    hello = handshake(engine)
    results = []
    for vector in vectors:
        try:
            difference = _RUNNERS[vector.kind](engine, vector.data)
        except EngineError as exc:
            difference = f"the engine failed: {exc}"
            engine.restart()
            handshake(engine)
        result = VectorResult(vector.id, vector.kind, difference is None, difference)
        if progress is not None:
            progress(result)
        results.append(result)
    return KitReport(engine=hello, results=tuple(results))


# -- the vectors, kind by kind ------------------------------------------------------------


def _positions(engine: Engine, vector: Mapping[str, Any]) -> str | None:
    moves: list[str] = []
    for number, step in enumerate(vector["steps"], start=1):
        moves.append(step["move"])
        answer = engine.request({"cmd": "table", "moves": moves})
        where = f"step {number} ({step['move']})"
        if not answer["ok"]:
            return f"{where}: refused: {_refusal(answer)}"
        difference = _difference(step["expect"], answer)
        if difference:
            return f"{where}: {difference}"
    return None


def _settlement(engine: Engine, vector: Mapping[str, Any]) -> str | None:
    answer = engine.request(
        {
            "cmd": "settle",
            "players": vector["players"],
            "hands": vector["hands"],
            "finisher": vector["finisher"],
            "scores": vector["scores"],
        }
    )
    if not answer["ok"]:
        return f"refused: {_refusal(answer)}"
    return _difference(vector["expect"], answer)


def _refusals(engine: Engine, vector: Mapping[str, Any]) -> str | None:
    expect = vector["expect"]
    move = vector["move"]
    if vector.get("table") is not None:
        table = vector["table"]
        answer = engine.request({"cmd": "table", "moves": [*table, move]})
        return _check_refused(answer, expect["code"], move, index=len(table))
    problem = _start(engine, vector["start"], vector["moves"])
    if problem:
        return problem
    legal = engine.request({"cmd": "legal"})
    problem = _check_legal(legal, expect.get("legal_moves"), "before the move")
    if problem:
        return problem
    before = engine.request({"cmd": "state"})
    if not before["ok"]:
        return f"state was refused: {_refusal(before)}"
    problem = _check_refused(engine.request({"cmd": "move", "move": move}), expect["code"], move)
    if problem:
        return problem
    after = engine.request({"cmd": "state"})
    difference = _difference(before, after)
    if difference:
        return f"the refused move changed the state: {difference}"
    legal = engine.request({"cmd": "legal"})
    return _check_legal(legal, expect.get("legal_moves"), "after the refused move")


def _matches(engine: Engine, vector: Mapping[str, Any]) -> str | None:
    record = vector["record"]
    rounds = record["rounds"]
    problem = _start(engine, {"players": record["players"], "deals": _record_deals(record)}, ())
    if problem:
        return problem
    # The legal moves before each action, from the reference replay of the record.
    expected_legal = iter(_legal_before_each_action(record))
    result = record["result"]
    for number, played in enumerate(rounds, start=1):
        actions = played["actions"]
        for index, action in enumerate(actions):
            where = f"round {number}, action {index} ({action['move']})"
            answer = engine.request({"cmd": "legal"})
            problem = _check_legal(answer, next(expected_legal), f"{where}, before")
            if problem:
                return problem
            answer = engine.request({"cmd": "move", "move": action["move"]})
            if not answer["ok"]:
                return f"{where}: refused: {_refusal(answer)}"
            last = index == len(actions) - 1
            final = result if last and number == len(rounds) else None
            difference = _difference(_expected_answer(action, played, last, final), answer)
            if difference:
                return f"{where}: {difference}"
    return _check_match_over(engine, result)


def _record_deals(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The deals of ``record``'s rounds, as the ``new`` request takes them.

    Where the finisher of the round before opens, the deal's opener must be
    ignored; a decoy (the next seat) there catches an engine that uses it.
    """
    players = record["players"]
    return [
        {
            "hands": r["hands"],
            "stock": r["stock"],
            "opener": (r["opener"] + 1) % players if r["opener_by"] == "finisher" else r["opener"],
        }
        for r in record["rounds"]
    ]


def _expected_answer(
    action: Mapping[str, Any],
    played: Mapping[str, Any],
    last: bool,
    final: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """What the engine must answer to ``action`` of the round ``played``.

    ``last`` says whether the action is the round's last; ``final`` is the
    record's result when it is the match's last action, None otherwise.
    """
    expected = {key: action[key] for key in ("seat", "tile", "end_sum", "points")}
    if last and played["end"] is not None:
        expected["round_end"] = {
            key: played[key] for key in ("end", "finisher", "deductions", "scores")
        }
    else:
        expected["round_end"] = None
    if final is not None:
        expected.update(winner=final["winner"], scores=final["scores"])
    else:
        expected["winner"] = None
    return expected


def _check_match_over(engine: Engine, result: Mapping[str, Any]) -> str | None:
    """Check the engine's state after the last action against the record's ``result``."""
    state = engine.request({"cmd": "state"})
    if not state["ok"]:
        return f"state after the match was refused: {_refusal(state)}"
    difference = _difference(result, state)
    if difference:
        return f"the final state: {difference}"
    legal = engine.request({"cmd": "legal"})
    return _check_legal(legal, [], "after the match was won")


def _legal_before_each_action(record: Mapping[str, Any]) -> list[list[str]]:
    """The legal moves before each action of ``record``, by the library's own replay."""
    states = list(replay(MatchRecord.from_dict(record)))
    return [[str(move) for move in legal_moves(state)] for state in states[:-1]]


_RUNNERS: Mapping[str, Callable[[Engine, Mapping[str, Any]], str | None]] = {
    "positions": _positions,
    "settlement": _settlement,
    "refusals": _refusals,
    "matches": _matches,
}


def _start(engine: Engine, start: Mapping[str, Any], moves: Sequence[str]) -> str | None:
    """Start the vector's match and play ``moves``; a problem in words, or None."""
    answer = engine.request({"cmd": "new", **start})
    if not answer["ok"]:
        return f"new was refused: {_refusal(answer)}"
    for number, move in enumerate(moves, start=1):
        answer = engine.request({"cmd": "move", "move": move})
        if not answer["ok"]:
            return f"move {number} of the position ({move}) was refused: {_refusal(answer)}"
    return None


def _check_legal(answer: Mapping[str, Any], expected: object, when: str) -> str | None:
    if not answer["ok"]:
        return f"legal {when} was refused: {_refusal(answer)}"
    if expected is None:
        return None
    difference = _difference({"legal_moves": expected}, {"legal_moves": answer.get("moves")})
    return f"{when}: {difference}" if difference else None


def _check_refused(
    answer: Mapping[str, Any], code: str, move: str, index: int | None = None
) -> str | None:
    if answer["ok"]:
        return f"{move!r} was accepted; expected the refusal {code}"
    if answer.get("error") != "illegal_move" or answer.get("code") != code:
        return f"{move!r}: expected the refusal {code}, got {_refusal(answer)}"
    if index is not None and answer.get("index") != index:
        return f"{move!r}: refused at index {answer.get('index')!r}, expected {index}"
    return None


def _refusal(answer: Mapping[str, Any]) -> str:
    """An error answer in words: its kind, its code if any, and its message."""
    kind = answer.get("error")
    code = answer.get("code")
    text = f"{kind} {code}" if code is not None else f"{kind}"
    message = answer.get("message")
    return f"{text} ({message})" if message else text


# -- comparing -------------------------------------------------------------------------


def _text(value: object) -> str:
    return json.dumps(value, separators=(", ", ": "), sort_keys=True)


def _difference(expected: object, got: object, path: str = "") -> str | None:
    """The first difference between an expected JSON value and an answer, or None.

    Only the keys of an expected object are compared; the lists named in
    :data:`_SET_KEYS` are compared as multisets.
    """
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"{path or 'the answer'}: expected an object, got {_text(got)}"
        for key, value in expected.items():
            where = f"{path}.{key}" if path else key
            if key not in got:
                return f"{where}: missing (expected {_text(value)})"
            if key in _SET_KEYS and isinstance(value, list):
                difference = _multiset_difference(value, got[key], where)
            else:
                difference = _difference(value, got[key], where)
            if difference:
                return difference
        return None
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        for index, (item, other) in enumerate(zip(expected, got, strict=True)):
            difference = _difference(item, other, f"{path}[{index}]")
            if difference:
                return difference
        return None
    if _text(expected) != _text(got):
        return f"{path}: expected {_text(expected)}, got {_text(got)}"
    return None


def _multiset_difference(expected: list[Any], got: object, path: str) -> str | None:
    if not isinstance(got, list):
        return f"{path}: expected a list, got {_text(got)}"
    want = collections.Counter(_text(item) for item in expected)
    have = collections.Counter(_text(item) for item in got)
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
