"""``american-sniff serve --workers N``: N worker processes on one listening socket, supervised.

The parent process binds the socket, then forks the workers (:func:`supervise`).
Each worker is a whole server, with its own event loop and its own
connections to the database, and accepts on the shared socket: the system
hands each new connection to one of them, so a browser's socket lands on any
worker, and any worker serves any match (the matches, the moves' announcements,
the bot seats' leases and the shared rate limits are in PostgreSQL).

The parent serves nothing; it supervises:

* a worker that ends while the server runs (it crashed, or was killed) is
  started again: at once if it had run :data:`SHORT_LIFE` seconds or more,
  else after a pause of half a second that doubles with each short life in
  a row, up to :data:`MAX_PAUSE` seconds (a database that is down does not
  make it spin);
* ``SIGTERM`` or ``SIGINT`` (Ctrl-C) to the parent stops every worker in good
  order (``SIGTERM``: each closes its sockets and gives its bot seats up),
  and kills those still running after :data:`GRACE` seconds;
* a worker whose parent is gone (killed with ``kill -9``) stops too, within
  about a second.

With ``channels`` (:class:`~american_sniff.web.handoff.Channels`, made
before the fork), each worker may hand a game WebSocket to the worker that
owns its match (:mod:`american_sniff.web.handoff`); the parent keeps the
channels, so that a worker started again has its own, and closes the
connections left in the channel of a worker that ended.

Workers are forked (``os.fork``), so this needs a system that has it (Linux,
the BSDs, macOS). The parent must hold no thread and no database connection
when it forks: each worker opens its own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .handoff import Channels

__all__ = ["GRACE", "MAX_PAUSE", "SHORT_LIFE", "can_fork", "supervise"]

#: Seconds the workers have to stop after ``SIGTERM``; then they are killed.
GRACE = 15.0

#: A worker that ends within this many seconds of its start is restarted after a pause.
SHORT_LIFE = 2.0

#: The longest pause before a worker that keeps ending is started again, in seconds.
MAX_PAUSE = 10.0

#: How often the parent looks at its workers, in seconds.
_TICK = 0.05


def can_fork() -> bool:
    """Whether this system can fork workers (not on Windows)."""
    return hasattr(os, "fork")


def supervise(
    listener: socket.socket,
    workers: int,
    work: Callable[[int], None],
    *,
    say: Callable[[str], None] | None = None,
    channels: Channels | None = None,
) -> int:
    """Fork ``workers`` processes that each run ``work(number)``, and keep them running.

    ``work`` serves on ``listener`` until the worker is told to stop
    (``SIGTERM``), in the forked child; ``number`` is the worker's number,
    1 to ``workers`` (a restarted worker keeps its number). ``say`` gets a
    line for each worker started and each that ended (by default printed
    to the standard error). ``channels``, if given, are the workers' channels
    of hand-off, which ``work`` uses (:meth:`Channels.worker
    <american_sniff.web.handoff.Channels.worker>`): this process keeps them,
    tells them when a worker ends, and closes them at the end.

    Returns 0 once every worker has stopped after ``SIGTERM`` or ``SIGINT``
    to this process.

    :raises ValueError: if ``workers`` is under 1.
    :raises OSError: if a worker cannot be forked at the start.
    """
    if workers < 1:
        raise ValueError(f"workers is 1 or more, got {workers}")
    if say is None:
        say = _to_stderr
    supervisor = _Supervisor(listener, work, say, channels)
    try:
        return supervisor.run(workers)
    finally:
        if channels is not None:
            channels.close()


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class _Supervisor:
    """The parent's state: which worker runs in which process, and since when."""

    def __init__(
        self,
        listener: socket.socket,
        work: Callable[[int], None],
        say: Callable[[str], None],
        channels: Channels | None,
    ) -> None:
        self.listener = listener
        self.channels = channels
        self.work = work
        self.say = say
        self.stopping = False
        self.running: dict[int, tuple[int, float]] = {}  # pid: (number, started)
        self.due: dict[int, float] = {}  # number: when it may start again
        self.failures: dict[int, int] = {}  # number: short lives in a row

    def run(self, workers: int) -> int:
        previous = {
            number: signal.signal(number, self._stop) for number in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            for number in range(1, workers + 1):
                self._start(number)
            while self.running or (self.due and not self.stopping):
                self._reap()
                if self.stopping:
                    self._stop_all()
                    break
                now = time.monotonic()
                for number, when in list(self.due.items()):
                    if when <= now:
                        del self.due[number]
                        with contextlib.suppress(OSError):  # tried again at the next tick
                            self._start(number)
                time.sleep(_TICK)
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
            for pid in self.running:  # left only if the parent itself failed
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        return 0

    def _stop(self, number: int, frame: object) -> None:
        self.stopping = True

    def _start(self, number: int) -> None:
        supervisor = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            self.due[number] = time.monotonic() + 1.0
            raise
        if pid == 0:  # the worker
            os._exit(_child(self.listener, self.work, number, supervisor))
        self.running[pid] = (number, time.monotonic())
        self.say(f"worker {number} is process {pid}")

    def _reap(self) -> None:
        """Note the workers that ended, and when each is to start again."""
        while self.running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:  # pragma: no cover - nothing left to wait for
                self.running.clear()
                return
            if pid == 0:
                return
            number, started = self.running.pop(pid, (0, 0.0))
            if number and self.channels is not None:
                self.channels.ended(number)
            if not number or self.stopping:
                continue
            lived = time.monotonic() - started
            short = self.failures.get(number, 0) + 1 if lived < SHORT_LIFE else 0
            self.failures[number] = short
            pause = 0.0 if not short else min(MAX_PAUSE, 0.5 * 2 ** (short - 1))
            self.say(
                f"worker {number} (process {pid}) {_ended(status)}: starting it again"
                + (f" in {pause:g} s" if pause else "")
            )
            self.due[number] = time.monotonic() + pause

    def _stop_all(self) -> None:
        """Ask every worker to stop; kill those that have not after :data:`GRACE` seconds."""
        for pid in self.running:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + GRACE
        while self.running and time.monotonic() < deadline:
            self._reap()
            time.sleep(_TICK)
        for pid in list(self.running):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
            number, _ = self.running.pop(pid)
            if self.channels is not None:
                self.channels.ended(number)


def _ended(status: int) -> str:
    """How a worker ended, from its wait status.

    >>> _ended(9), _ended(1 << 8)
    ('was killed by signal 9', 'exited with code 1')
    """
    if os.WIFSIGNALED(status):
        return f"was killed by signal {os.WTERMSIG(status)}"
    return f"exited with code {os.waitstatus_to_exitcode(status)}"


def _child(
    listener: socket.socket, work: Callable[[int], None], number: int, supervisor: int
) -> int:
    """Run ``work(number)`` in a forked worker of ``supervisor``; its exit code."""
    # Its own process group: Ctrl-C reaches the parent alone, which stops the
    # workers in order. The signals' handlers are the server's to set.
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    for number_of in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number_of, signal.SIG_DFL)
    # (The supervisor's id is the one it had before the fork: it may be gone already.)
    threading.Thread(target=_orphaned, args=(supervisor,), daemon=True).start()
    try:
        work(number)
    except SystemExit as leaving:  # the server could not start (it said why)
        return leaving.code if isinstance(leaving.code, int) else 1
    except BaseException:  # whatever ends a worker is told, and it exits
        traceback.print_exc()
        sys.stderr.flush()
        return 1
    finally:
        with contextlib.suppress(OSError):
            listener.close()
    sys.stdout.flush()
    return 0


def _orphaned(parent: int) -> None:
    """Stop this worker (``SIGTERM``) once its parent is gone (in a thread of the worker)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)
