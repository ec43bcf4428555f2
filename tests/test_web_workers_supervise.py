"""The supervisor of ``serve --workers`` (web/workers.py) on its own: no server, no database.

Its workers here are small functions, run in a process of their own (the
supervisor forks, and takes over the signals of the process it runs in).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from american_sniff.web.workers import can_fork, supervise

pytestmark = pytest.mark.skipif(not can_fork(), reason="the workers are forked")

#: A supervisor of one worker that ``exit``s with code 3 at once, each time.
_FAILING = """
import socket, sys
from american_sniff.web.workers import supervise
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
def work(number):
    sys.exit(3)
print("started", flush=True)
code = supervise(listener, 1, work, say=lambda line: print(line, flush=True))
print("stopped", code, flush=True)
"""

#: A supervisor of two workers that run until told to stop.
_RUNNING = """
import signal, socket, sys, time
from american_sniff.web.workers import supervise
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
def work(number):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(0.05)
code = supervise(listener, 2, work, say=lambda line: print(line, flush=True))
print("stopped", code, flush=True)
"""


def _run(script: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_a_worker_that_keeps_ending_is_started_again_after_longer_pauses() -> None:
    """Ended within 2 s of its start, again and again: started after 0.5 s, then 1 s, then 2 s."""
    process = _run(_FAILING)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "started"
    time.sleep(2.2)
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=20)
    lines = out.splitlines()
    ended = [line for line in lines if "exited with code 3" in line]
    assert ended[0].endswith("exited with code 3: starting it again in 0.5 s")
    assert ended[1].endswith("starting it again in 1 s")
    assert ended[2].endswith("starting it again in 2 s")
    assert lines[-1] == "stopped 0"


def test_sigterm_stops_every_worker_and_the_supervisor_returns_0() -> None:
    """``SIGTERM`` to the supervisor: each worker is told, and ends; then the supervisor."""
    process = _run(_RUNNING)
    assert process.stdout is not None
    started = [process.stdout.readline().strip() for _ in range(2)]
    assert [line.split(" is process ")[0] for line in started] == ["worker 1", "worker 2"]
    pids = [int(line.rsplit(" ", 1)[1]) for line in started]
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=20)
    assert out.strip() == "stopped 0"
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_workers_are_one_or_more() -> None:
    """No workers at all is refused before anything is forked."""
    with pytest.raises(ValueError, match="workers is 1 or more, got 0"):
        supervise(None, 0, print)  # type: ignore[arg-type]
