"""The conformance kit: run the vectors against an engine that speaks the protocol.

:func:`run_kit` sends each vector's requests to an engine (a
:class:`SubprocessEngine` for a program in any language, or a
:class:`LocalEngine` for the library itself, in-process) and compares every
answer with the whole answer the vector file holds for it, by the rules of
:mod:`~american_sniff.conformance.compare`. It judges from the files alone:
nothing is worked out with the library at run time. It reports, vector by
vector, whether the engine passed and, if not, the first difference, naming
the step, the field, and quoting the request and the answer.
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

from ..rules import RULES_VERSION
from ..serial import read_json
from .compare import difference, field_of, own_choice_problem, text
from .loading import Vector, load_vectors, step_bytes, step_line
from .protocol import MAX_LINE_BYTES, PROTOCOL, PROTOCOL_VERSION, Session

__all__ = [
    "DEFAULT_TIMEOUT",
    "Engine",
    "EngineCrashed",
    "EngineError",
    "KitReport",
    "LocalEngine",
    "SubprocessEngine",
    "VectorResult",
    "check_step",
    "handshake",
    "perft",
    "run_kit",
    "run_vector",
]

#: Seconds the kit waits for each answer by default.
DEFAULT_TIMEOUT = 10.0
#: How many of the engine's last standard-error lines a failure quotes.
_STDERR_LINES = 5


class EngineError(Exception):
    """The engine did not answer as the protocol requires.

    It could not start, exited, did not answer in time, wrote a line that is
    not a JSON object with ``ok``, or refused the ``hello`` handshake.
    """


class EngineCrashed(EngineError):
    """The engine crashed: its process ended, or it answered with a line that is no answer.

    (A line that is not JSON, or JSON that is not an object holding ``ok``.)
    """


class Engine(Protocol):
    """Something that answers protocol requests: a program, or the library in-process."""

    def request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and return its answer.

        :raises EngineError: if no well-formed answer comes.
        """

    def send_line(self, line: str | bytes) -> dict[str, Any]:
        """Send one line as it is (the newline added) and return its answer.

        A ``str`` is sent as UTF-8; ``bytes`` are sent as they are, for a line
        that is not UTF-8 text (a vector step's ``line_hex``).

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
        return self.send_line(json.dumps(message))

    def send_line(self, line: str | bytes) -> dict[str, Any]:
        """The session's answer to ``line`` (text, or bytes as they are), its newline added.

        The newline counts toward :data:`~.protocol.MAX_LINE_BYTES`, as it does
        for ``american-sniff engine``.
        """
        raw = (line if isinstance(line, bytes) else line.encode("utf-8")) + b"\n"
        answer: dict[str, Any] = json.loads(self._session.handle_line(raw))
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
        return self.send_line(json.dumps(message, separators=(",", ":")))

    def send_line(self, text_line: str | bytes) -> dict[str, Any]:
        """Write ``text_line`` (UTF-8 text, or bytes as they are) and a newline; read the answer.

        :raises EngineError: as :meth:`request` does; the message quotes the
            line sent and the engine's answer.
        """
        process = self._process
        if process is None:
            raise EngineError("the engine is closed")
        assert process.stdin is not None
        raw = text_line if isinstance(text_line, bytes) else text_line.encode("utf-8")
        line = raw + b"\n"
        asked = f"the request {text_line[:200]!r}"
        try:
            process.stdin.write(line)
            process.stdin.flush()
        except OSError:
            raise EngineCrashed(f"the engine stopped reading{self._exit_note()}") from None
        try:
            answer = self._lines.get(timeout=self._timeout)
        except queue.Empty:
            raise EngineError(f"no answer to {asked} within {self._timeout:g} seconds") from None
        if answer is None:
            raise EngineCrashed(f"the engine closed its output after {asked}{self._exit_note()}")
        quoted = answer[:200].decode("utf-8", "replace")
        try:
            data = read_json(
                answer, max_bytes=MAX_LINE_BYTES + 1, error=ValueError, what="the engine's answer"
            )
        except ValueError as exc:
            raise EngineCrashed(f"{exc}: the engine wrote {quoted!r} for {asked}") from None
        if not isinstance(data, dict) or type(data.get("ok")) is not bool:
            raise EngineCrashed(f"the answer to {asked} is not an object with ok: {quoted!r}")
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
    :ivar passed: Whether every answer matched (True for a skipped vector).
    :ivar difference: The first difference found, in words; None if it passed.
    :ivar skipped: Whether the vector was not run: the engine lacks a feature it requires.
    :ivar where: Where a failure is, in a few words: the step (counted from
        1) and the field that differs first (``"step 12, field turn"``), or
        ``"a crash"``, ``"no answer"``, ``"perft depth 3"``; None if it passed.
        It is not part of the JSON report (the ``difference`` says it all).
    """

    id: str
    kind: str
    passed: bool
    difference: str | None = None
    skipped: bool = False
    where: str | None = None

    def __str__(self) -> str:
        if self.skipped:
            return f"SKIP {self.id}: {self.difference}"
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
        """Whether the engine passed every vector it ran."""
        return all(result.passed for result in self.results)

    @property
    def failures(self) -> tuple[VectorResult, ...]:
        """The vectors the engine failed."""
        return tuple(result for result in self.results if not result.passed)

    @property
    def skipped(self) -> tuple[VectorResult, ...]:
        """The vectors not run, for a feature the engine lacks."""
        return tuple(result for result in self.results if result.skipped)

    def summary(self) -> str:
        """One line: the vectors passed, failed and skipped, the engine, and the first failure.

        The first failure is named by its vector, step and field.
        """
        total = len(self.results)
        failed = len(self.failures)
        skipped = len(self.skipped)
        name = self.engine.get("engine", "the engine")
        verdict = (
            "all passed" if not failed else f"{total - failed - skipped} passed, {failed} failed"
        )
        if skipped:
            verdict += f", {skipped} skipped"
        line = f"{total} vectors: {verdict} ({name})"
        if failed:
            first = self.failures[0]
            line += f"; the first failure: {first.id}" + (f", {first.where}" if first.where else "")
        return line

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON values (what ``american-sniff conformance --json`` prints)."""
        return {
            "format": "american-sniff/conformance-report",
            "format_version": 2,
            "rules_version": RULES_VERSION,
            "engine": dict(self.engine),
            "passed": self.passed,
            "total": len(self.results),
            "failed": len(self.failures),
            "skipped": len(self.skipped),
            "results": [
                attrs.asdict(result, filter=lambda field, _: field.name != "where")
                for result in self.results
            ],
        }


# -- running ----------------------------------------------------------------------------


def handshake(engine: Engine) -> dict[str, Any]:
    """Send ``hello`` and check the engine's protocol, versions and own fields; return its answer.

    :raises EngineError: if the engine refuses, or speaks another protocol or version.
    """
    answer = engine.request(
        {"cmd": "hello", "protocol_version": PROTOCOL_VERSION, "rules_version": RULES_VERSION}
    )
    if not answer.get("ok"):
        raise EngineError(f"the engine refused hello: {_refusal(answer)}")
    for key, want in (
        ("protocol", PROTOCOL),
        ("protocol_version", PROTOCOL_VERSION),
        ("rules_version", RULES_VERSION),
    ):
        if answer.get(key) != want or type(answer.get(key)) is not type(want):
            raise EngineError(
                f"hello: {key}: expected {text(want)}, got {text(answer.get(key))} "
                "(the kit speaks only this protocol and rules version)"
            )
    problem = own_choice_problem("hello", answer)
    if problem:
        raise EngineError(f"the hello answer: {problem}")
    return answer


def run_kit(
    engine: Engine,
    vectors: Sequence[Vector] | None = None,
    *,
    progress: Callable[[VectorResult], None] | None = None,
    stop_at_failure: bool = False,
) -> KitReport:
    """Run ``vectors`` (default: the shipped ones) against ``engine``.

    Each result is also given to ``progress`` as soon as it is known. A vector
    that requires a feature the engine's ``hello`` does not list is skipped.
    A vector during which the engine fails (exits, times out, answers
    garbage) fails with that reason, and the engine is restarted for the next
    one; so is it before and after a ``fresh`` vector. With
    ``stop_at_failure`` the run ends at the first failed vector.

    >>> report = run_kit(LocalEngine())
    >>> report.passed, report.summary().startswith(f"{len(report.results)} vectors: all passed")
    (True, True)

    :raises EngineError: if the engine fails the ``hello`` handshake (also
        after a restart), since no vector can then be run.
    """
    vectors = load_vectors() if vectors is None else vectors
    hello = handshake(engine)
    features = set(hello["features"])
    results = []
    for vector in vectors:
        missing = sorted(set(vector.requires) - features)
        if missing:
            result = VectorResult(
                vector.id, vector.kind, True, f"needs the feature {', '.join(missing)}", True
            )
        else:
            if vector.fresh:
                engine.restart()
            try:
                found, where = _run_vector(engine, vector)
            except EngineCrashed as exc:
                found, where = f"the engine crashed: {exc}", "a crash"
                engine.restart()
                handshake(engine)
            except EngineError as exc:
                found, where = f"the engine failed: {exc}", "no answer"
                engine.restart()
                handshake(engine)
            else:
                if vector.fresh:
                    engine.restart()
                    handshake(engine)
            result = VectorResult(vector.id, vector.kind, found is None, found, where=where)
        if progress is not None:
            progress(result)
        results.append(result)
        if stop_at_failure and not result.passed:
            break
    return KitReport(engine=hello, results=tuple(results))


def run_vector(engine: Engine, vector: Vector) -> str | None:
    """Run one vector against ``engine``: the first difference in words, or None.

    Steps are counted from 1, as every count of the kit's messages is.

    :raises EngineError: if the engine fails to answer (the message names the step).
    """
    return _run_vector(engine, vector)[0]


def _run_vector(engine: Engine, vector: Vector) -> tuple[str | None, str | None]:
    """The first difference of a vector, and where it is in a few words; (None, None) if none."""
    if vector.kind == "perft":
        found = _perft_vector(engine, vector.data)
        return found, None if found is None else found.split(":", 1)[0]
    for number, step in enumerate(vector.data["steps"], 1):
        try:
            found = check_step(engine, step)
        except EngineError as exc:
            raise type(exc)(f"at step {number} ({step['at']}): {exc}") from None
        if found:
            field = field_of(found.split("\n", 1)[0].removeprefix(f"{step['at']}: "))
            return f"step {number}, {found}", f"step {number}, field {field}"
    return None, None


def check_step(engine: Engine, step: Mapping[str, Any]) -> str | None:
    """Send one step's request (or line) and compare the answer: the difference, or None."""
    line: str | bytes
    if "line_hex" in step:
        line, cmd = step_bytes(step), None
    elif "line" in step:
        line, cmd = step_line(step), None
    else:
        line, cmd = json.dumps(step["request"], separators=(",", ":")), step["request"].get("cmd")
    answer = engine.send_line(line)
    found = difference(step["expect"], answer) or own_choice_problem(cmd, answer)
    if found is None:
        return None
    return f"{step['at']}: {found}\n  request: {_quoted(line)}\n  answer:  {text(answer)}"


def _quoted(line: str | bytes, most: int = 400) -> str:
    """``line`` for a message: a long line is cut, with its length in bytes; bytes as a literal."""
    if isinstance(line, bytes):
        return repr(line[:most]) + (
            "" if len(line) <= most else f"... ({len(line):,} bytes in all)"
        )
    if len(line) <= most:
        return line
    return f"{line[:most]}... ({len(line.encode('utf-8')):,} bytes in all)"


# -- perft ------------------------------------------------------------------------------


def perft(engine: Engine, start: Mapping[str, Any], depth: int) -> tuple[list[int], dict[str, int]]:
    """Count the action sequences from ``start`` (a ``new`` request's fields), through the protocol.

    Returns the number of sequences of each length 1 to ``depth``, and the
    divide: for each first move, the number of sequences of length ``depth``
    that begin with it. Each position is reached afresh with ``new`` and
    its moves; a position whose ``legal`` answers no moves (the match is over)
    or ``no_deal`` (the deals ran out) ends its sequences.

    >>> perft(LocalEngine(), {"players": 2, "seed": "1"}, 2)[0]
    [7, 25]

    :raises EngineError: if the engine fails to answer, or refuses a step
        of the walk (its ``new``, or a move its own ``legal`` listed).
    """
    counts = [0] * depth

    def legal_at(path: Sequence[str]) -> list[str]:
        answer = engine.request({"cmd": "new", **start})
        if not answer["ok"]:
            raise EngineError(f"perft: new was refused: {_refusal(answer)}")
        for move in path:
            answer = engine.request({"cmd": "move", "move": move})
            if not answer["ok"]:
                raise EngineError(
                    f"perft: after {list(path)}, the engine refused {move!r}, "
                    f"which its legal listed: {_refusal(answer)}"
                )
        answer = engine.request({"cmd": "legal"})
        if not answer["ok"]:
            if answer.get("error") == "no_deal":
                return []
            raise EngineError(f"perft: legal after {list(path)} was refused: {_refusal(answer)}")
        moves = answer.get("moves")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise EngineError(f"perft: legal after {list(path)} answered moves {moves!r}")
        return sorted(moves)

    def visit(path: list[str]) -> int:
        moves = legal_at(path)
        counts[len(path)] += len(moves)
        if len(path) + 1 == depth:
            return len(moves)
        return sum(visit([*path, move]) for move in moves)

    first = legal_at([])
    counts[0] = len(first)
    if depth == 1:
        return counts, dict.fromkeys(first, 1)
    divide = {move: visit([move]) for move in first}
    return counts, divide


def _perft_vector(engine: Engine, vector: Mapping[str, Any]) -> str | None:
    counts, divide = perft(engine, vector["start"], vector["depth"])
    expected: list[int] = vector["counts"]
    if counts == expected:
        return None
    depth = next(d for d, (a, b) in enumerate(zip(expected, counts, strict=True), 1) if a != b)
    want = {entry["move"]: entry["count"] for entry in vector["divide"]}
    lines = [
        f"{move}: expected {want.get(move, 0)}, got {divide.get(move, 0)}"
        for move in sorted(set(want) | set(divide))
        if want.get(move, 0) != divide.get(move, 0)
    ]
    return (
        f"perft depth {depth}: expected {expected[depth - 1]} sequences, got "
        f"{counts[depth - 1]} (counts by depth: expected {expected}, got {counts}); "
        f"divide at depth {vector['depth']}, the first moves that differ:\n  " + "\n  ".join(lines)
    )


def _refusal(answer: Mapping[str, Any]) -> str:
    """An error answer in words: its kind, its code if any, and its message."""
    kind = answer.get("error")
    code = answer.get("code")
    words = f"{kind} {code}" if code is not None else f"{kind}"
    message = answer.get("message")
    return f"{words} ({message})" if message else words
