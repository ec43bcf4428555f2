"""How fast ``american-sniff serve`` hosts: scripted WebSocket clients, a database on disk.

The server runs in a child process exactly as ``american-sniff serve`` runs
it (:func:`american_sniff.web.serving.server_config`, a SQLite file in a
temporary directory), except that bots do not wait and the rate limit on new
matches and the limits of sockets are lifted (the benchmark creates hundreds
of matches and opens hundreds of sockets, all from one address). The clients run in this
process: each seat is a small WebSocket client of its own (an
:class:`asyncio.Protocol` that speaks RFC 6455 itself, masking its frames
and answering pings, with no task per socket, so that 400 seats and 200
spectators cost the client side as little as possible), which plays its
seat's first legal placement as soon as its state comes (or after a
person's thinking time, with ``--think``), and goes on after each
settlement. The clients do not draw, so their hello says
``"pictures": false`` and the server draws no table for them; with
``--pictures`` their hello is the browser's page's own (``play.js``: the
seat's token, the bots' speed and the drawing of the table the page shows,
``--table wide`` on a desktop, the default, or ``narrow`` on a phone). Every
match is between two people (two sockets), so every action is a person's
move or a draw the server makes for them.

Four measurements:

* ``load``: ``--matches`` matches at once (default 200) for ``--seconds``:
  the actions per second the server made, and each move's round trip (from
  the seat's send to its receipt of the state after it), p50 and p99;
* ``base``: ``--few`` matches (default 20), the same measurements;
* ``spectators``: the same ``--few`` matches while one more match is played
  with ``--spectators`` spectators (default 200) watching it: how much the
  others slow down (the round trip's ratio to ``base``);
* ``stuck``: the same ``--few`` matches while one more match has a
  spectator that never reads: the others' round trip, and whether the server
  dropped the stuck socket (close code 4408).

Each also gives the server process's CPU time per action (from
``/proc``), which a machine shared with other work slows far less than the
wall-clock numbers.

**Several workers on PostgreSQL.** With ``--db postgresql://...`` the
matches are kept in a fresh schema of that database (dropped afterwards), and
the server is ``american-sniff serve --workers N`` as it runs (``--workers``,
default 1: the supervisor of :mod:`american_sniff.web.workers`, the rate
limits shared in the database, each still checked), and every client's
socket goes through the one listening socket to whichever worker the system
hands it; as ``serve`` does, that worker hands each game WebSocket to the
worker that owns its match (:mod:`american_sniff.web.handoff`), unless
``--no-handoff``. The server's CPU per action is then summed over the supervisor and
all its workers, and the CPU of the database's own processes that serve them
(found by their ``application_name``) is given beside it, with the appends
the workers' store refused because the log had grown since they were planned
(``refused_appends``: a client's move refused as stale, or a forced draw
made by two workers at once, the second refused).

**Idle sockets.** ``--idle-sockets N`` measures the ``--few`` matches and a
stream of HTTP requests (the start page and ``/api/kinds``, each timed from
the connection to the end of the answer) twice: alone, then while ``N``
WebSockets are open and idle (each said hello as a spectator of one match,
and then only answers pings). The script raises its open-files limit to the
hard limit (the server, its child, inherits it); ``N`` needs about ``N + 200``
files in each process.

Usage (from the repository root)::

    PYTHONPATH=src python benchmarks/serve.py              # about 90 s
    PYTHONPATH=src python benchmarks/serve.py --quick      # a few seconds, a smoke test
    PYTHONPATH=src python benchmarks/serve.py --json serve.json
    PYTHONPATH=src python benchmarks/serve.py --pictures     # clients that draw, like browsers
    PYTHONPATH=src python benchmarks/serve.py --load-only --profile serve.prof  # cProfile, CPU
    PYTHONPATH=src python benchmarks/serve.py --load-only --db postgresql://127.0.0.1/test \
        --workers 3                     # three workers on PostgreSQL, one socket
    PYTHONPATH=src python benchmarks/serve.py --idle-sockets 5000   # HTTP and play beside them
    PYTHONPATH=src python benchmarks/serve.py --messages 3000  # the server's own work per action
    PYTHONPATH=src python benchmarks/serve.py --messages 1000 --callgrind  # its instructions

The results are in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import functools
import hashlib
import inspect
import json
import os
import platform
import random
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The name the benchmark's connections give PostgreSQL (to find their processes).
_APPLICATION = "american-sniff-bench"


def _serve_postgres(url: str, schema: str, workers: int, default_gc: bool, handoff: bool) -> None:
    """The child on PostgreSQL: ``workers`` workers on one socket, as ``serve --workers`` runs.

    With ``handoff`` (as ``serve`` does), each game WebSocket is handed to the
    worker that owns its match (:mod:`american_sniff.web.handoff`).
    """
    import signal  # noqa: PLC0415

    import uvicorn  # noqa: PLC0415 - the child's own imports

    from american_sniff.store import PostgresStore  # noqa: PLC0415
    from american_sniff.web.app import create_app  # noqa: PLC0415
    from american_sniff.web.buckets import SharedBuckets  # noqa: PLC0415
    from american_sniff.web.handoff import Channels, HandingServer  # noqa: PLC0415
    from american_sniff.web.limits import RateLimit, SocketLimits  # noqa: PLC0415
    from american_sniff.web.serving import listen, server_config, tune_collector  # noqa: PLC0415
    from american_sniff.web.shared import LibraryStore  # noqa: PLC0415
    from american_sniff.web.store import StaleLog  # noqa: PLC0415
    from american_sniff.web.workers import supervise  # noqa: PLC0415

    PostgresStore(url, schema=schema).close()  # the tables, made once before the fork
    listener = listen("127.0.0.1", 0)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    channels = Channels(workers) if workers > 1 and handoff else None

    class Counted(LibraryStore):
        """The library's store, counting the appends it refused (the log had grown)."""

        refused = 0

        def append(self, match_id: str, entry: Any, *, expected: int | None = None) -> int:
            try:
                return super().append(match_id, entry, expected=expected)
            except StaleLog:
                self.refused += 1
                raise

    def work(number: int) -> None:
        store = Counted(PostgresStore(url, schema=schema))
        app = create_app(
            store,
            bot_delay=0,
            creations=RateLimit(burst=10**9, every=1e-9),
            limits=SocketLimits.lifted(),
            buckets=SharedBuckets(url, schema=schema),
        )
        config = server_config(app, max_connections=10_000)
        server = (
            uvicorn.Server(config)
            if channels is None
            else HandingServer(config, channels.worker(number))
        )
        if not default_gc:
            tune_collector()
        # uvicorn raises SIGTERM again once it has stopped: here that returns,
        # so that the count is printed.
        signal.signal(signal.SIGTERM, lambda number, frame: None)
        server.run(sockets=[listener])
        print(f"REFUSED {store.refused}", flush=True)

    supervise(listener, workers, work, say=lambda line: None, channels=channels)


def _serve(db: str, profile: str | None = None, default_gc: bool = False) -> None:
    """The child: serve ``db`` on a free loopback port, and print the port.

    With ``profile``, the server runs under :mod:`cProfile`, whose statistics
    are written to that file when it stops. The garbage collector is tuned as
    ``american-sniff serve`` tunes it, unless ``default_gc``.
    """
    import uvicorn  # noqa: PLC0415 - the child's own imports

    from american_sniff.web.app import create_app  # noqa: PLC0415
    from american_sniff.web.limits import RateLimit, SocketLimits  # noqa: PLC0415
    from american_sniff.web.serving import listen, server_config, tune_collector  # noqa: PLC0415
    from american_sniff.web.store import Store  # noqa: PLC0415

    # Every client is on loopback, one address: its limits are lifted (each
    # limit is still checked, as for any client, so that its cost is measured).
    app = create_app(
        Store(db),
        bot_delay=0,
        creations=RateLimit(burst=10**9, every=1e-9),
        limits=SocketLimits.lifted(),
    )
    listener = listen("127.0.0.1", 0)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    server = uvicorn.Server(server_config(app, max_connections=10_000))
    if not default_gc:  # as american-sniff serve does
        tune_collector()
    if profile is None:
        server.run(sockets=[listener])
        return
    import cProfile  # noqa: PLC0415 - only when asked
    import signal  # noqa: PLC0415

    def stop(number: int, frame: object) -> None:
        raise SystemExit(0)

    # uvicorn stops on SIGTERM, then raises it again: here that ends the
    # profiled call, so that its statistics are written.
    signal.signal(signal.SIGTERM, stop)
    profiler = cProfile.Profile(time.thread_time)  # CPU time: the machine may be busy
    try:
        profiler.runcall(server.run, sockets=[listener])
    finally:
        profiler.dump_stats(profile)


def _messages(  # noqa: PLR0913 - the measurement's settings, keyword-only
    actions: int,
    pictures: bool,
    *,
    seed: int = 1,
    warm: int = 0,
    bracket: Any = None,
    table: str = "wide",
    at_once: int = 20,
) -> dict[str, Any]:
    """The server's work per action without the network: the change and every message.

    ``at_once`` two-person matches (``--at-once``, 20 unless told; the load
    has 200: the server's kept drawings and views then serve more matches)
    are played in turn in this process through the server's
    own code (:meth:`Game.plan_move` or :meth:`Game.plan_play`, then
    :meth:`Game.take`) and each action's message is made for both seats
    (:meth:`Server.text`), with or without the pictures (with them, the
    drawing of the table a page shows, ``table``; a server from before
    sockets chose theirs sends every page both); no socket and no
    database write; the collector is tuned as ``american-sniff serve`` tunes
    it, unless ``--default-gc``. The matches are dealt from ``seed``, so that every run
    plays the same actions. The first ``warm`` actions are played before the
    measurement starts (the server's caches fill, as in a server that has
    run for a while). The CPU time per action (``time.process_time``) is what
    a busy machine changes least; with ``bracket`` (the callgrind helper
    library, see :func:`_callgrind`) the instructions of the measured actions
    are counted too, between callgrind's client requests.
    """
    from american_sniff.engine import legal_moves  # noqa: PLC0415 - the child's imports
    from american_sniff.web.app import Server  # noqa: PLC0415
    from american_sniff.web.game import Game, new_setup  # noqa: PLC0415
    from american_sniff.web.store import Store  # noqa: PLC0415

    if not pictures and "pictures" not in inspect.signature(Server.text).parameters:
        return {"actions": 0, "note": "this server always sends the pictures"}
    deals = random.Random(seed)
    shown: dict[str, Any] = (
        {"table": table} if "table" in inspect.signature(Server.text).parameters else {}
    )

    def new_game() -> Game:
        setup = new_setup(2, ["human", "human"], seed=deals.randrange(2**64))
        return Game.create(server.store, setup)

    server = Server(Store(":memory:"), bot_delay=0)
    games = [new_game() for _ in range(at_once)]
    done = 0
    first: int | None = None  # the actions done when the measurement started
    started = 0.0
    while done < warm + actions:
        if first is None and done >= warm:
            first = done
            if bracket is not None:
                bracket.cg_start()
            started = time.process_time()
        for index, game in enumerate(games):
            state = game.state
            if state.winner is not None:
                # The next match in its place (before 2026-12-07, each match
                # that had ended started one more in every round of the loop).
                games[index] = new_game()
                continue
            waiting = game.waiting_for()
            for seat in waiting:
                change = game.plan_go_on(seat)
                assert change is not None
                game.take(change)
            if waiting:
                continue
            forced = game.forced()
            if forced is not None:
                game.take(game.plan_play(forced))
            else:
                move = str(legal_moves(state)[0])
                game.take(game.plan_move(state.turn, move, game.seq))
            done += 1
            for seat in (0, 1):
                if pictures:
                    server.text(game, seat, **shown)
                else:
                    server.text(game, seat, pictures=False)
    cpu = time.process_time() - started
    measured = done - (first or 0)
    if bracket is not None:
        bracket.cg_stop(f"{'with' if pictures else 'without'}:{measured}".encode())
    return {"actions": measured, "cpu_ms_per_action": round(cpu / measured * 1000, 3)}


def _callgrind(
    actions: int, seed: int, table: str, default_gc: bool, at_once: int = 20
) -> dict[str, Any]:
    """Instructions per action of :func:`_messages`, with and without the pictures, by callgrind.

    One child process runs under valgrind's callgrind with the counting off,
    and turns it on around the measured actions alone through callgrind's
    client requests (a small library compiled from valgrind's
    ``callgrind.h``, as ``hosting.py`` does): the interpreter's start, the
    imports and the warm-up are not counted. String hashing is fixed
    (``PYTHONHASHSEED=0``), so a run repeats its count.
    """
    from hosting import helper  # noqa: PLC0415 - the bracket library, shared

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        library = helper(folder)
        if library is None:
            return {"note": "no C compiler for callgrind's client requests"}
        out = str(Path(folder) / "callgrind.out")
        child = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--messages",
                str(actions),
                "--seed",
                str(seed),
                "--table",
                table,
                "--at-once",
                str(at_once),
                *(["--default-gc"] if default_gc else []),
                "--bracketed",
                library,
            ],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        for dump in Path(folder).glob("callgrind.out.*"):
            text = dump.read_text()
            named = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.MULTILINE)
            summed = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
            if named and summed:
                kind, count = named.group(1).split(":")
                results[f"{kind} pictures"] = {
                    "actions": int(count),
                    "instructions_per_action": round(int(summed.group(1)) / int(count)),
                }
        results["timed under callgrind"] = json.loads(child.stdout)
    return results


class Stats:
    """What the clients of one measurement saw."""

    def __init__(self) -> None:
        self.actions = 0
        self.trips: list[float] = []
        self.errors: list[str] = []

    def report(self, seconds: float) -> dict[str, Any]:
        """The measurement's numbers."""
        trips = sorted(self.trips)

        def quantile(q: float) -> float | None:
            return (
                None
                if not trips
                else round(trips[min(len(trips) - 1, int(q * len(trips)))] * 1000, 1)
            )

        return {
            "actions_per_s": round(self.actions / seconds, 1),
            "moves": len(trips),
            "trip_p50_ms": quantile(0.50),
            "trip_p99_ms": quantile(0.99),
            "trip_mean_ms": None if not trips else round(statistics.fmean(trips) * 1000, 1),
            "errors": len(self.errors),
            "error_kinds": dict(collections.Counter(e[:60] for e in self.errors).most_common(3)),
        }


def _cpu(pid: int) -> float:
    """The CPU seconds (user and system) the process ``pid`` has used (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:  # it ended meanwhile
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _server_cpu() -> float:
    """The CPU seconds of the server: its process and its workers (``--workers``), if any."""
    try:
        children = Path(f"/proc/{_SERVER}/task/{_SERVER}/children").read_text().split()
    except FileNotFoundError:
        children = []
    return _cpu(_SERVER) + sum(_cpu(int(pid)) for pid in children)


def _database_cpu() -> float | None:
    """The CPU seconds of the PostgreSQL processes serving the benchmark's server (or None)."""
    if _DATABASE is None:
        return None
    import psycopg  # noqa: PLC0415 - only with --db postgresql://...

    with psycopg.connect(_DATABASE, autocommit=True) as db:
        pids = db.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (_APPLICATION,)
        ).fetchall()
    return sum(_cpu(pid) for (pid,) in pids)


#: The server's process id (set by :func:`main`).
_SERVER = 0

#: Whether the clients ask for the pictures, as the browser's page does (``--pictures``).
_PICTURES = False

#: The PostgreSQL database of ``--db`` (None: a SQLite file).
_DATABASE: str | None = None

#: The drawing of the table a page shows (``--table``): ``wide`` on a desktop.
_TABLE = "wide"

#: What the hello's ``pictures`` says with ``--pictures``: the page's own
#: ``"changed"`` (each drawing only where it changed), or True with
#: ``--every-drawing`` (every drawing in every message, as the page asked
#: before 2026-12-07).
_DRAWINGS: bool | str = "changed"


def _hello(token: str) -> dict[str, Any]:
    """A client's hello: the page's own (``play.js``) with ``--pictures``, else no pictures."""
    if _PICTURES:
        return {
            "type": "hello",
            "token": token,
            "speed": "normal",
            "table": _TABLE,
            "pictures": _DRAWINGS,
        }
    return {"type": "hello", "token": token, "pictures": False}


def _post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


async def _new_match(base: str) -> dict[str, Any]:
    return await asyncio.to_thread(
        _post, base, "api/matches", {"players": 2, "seats": ["human"] * 2}
    )


# -- a lean WebSocket client -------------------------------------------------------------
#
# The load generator shares the machine with the server, so the clients must
# cost far less than the server per action. A client built on the
# ``websockets`` package (a task per socket, a timer per read) cost about as
# much CPU per action as the server itself; this one is an asyncio protocol
# that parses the frames itself (RFC 6455: masked text frames out, unmasked
# frames in, pings answered) and plays from its callbacks, with no task per
# socket.

#: What a client sends to open the WebSocket (RFC 6455, section 4.1).
_UPGRADE = (
    "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
)

#: The GUID a server hashes with the key (RFC 6455, section 1.3).
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame: FIN set, masked with a fresh key (RFC 6455, section 5.3)."""
    size = len(payload)
    if size < 126:
        head = bytes((0x80 | opcode, 0x80 | size))
    elif size < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
    key = os.urandom(4)
    stream = (key * (size // 4 + 1))[:size]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(size, "big")
    return head + key + masked


class Client(asyncio.Protocol):
    """One WebSocket to the server: :meth:`on_text` is called with each text message.

    ``opened`` is done once the server has accepted the upgrade, ``closed``
    once the connection is gone, with the close code the server sent (or
    None). :meth:`pause` stops reading, as a client that never reads.
    """

    #: The bytes every client has read from the server so far.
    read = 0

    def __init__(self, path: str, host: str) -> None:
        self.path, self.host = path, host
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[int | None] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._key = base64.b64encode(os.urandom(16))
        self._fragments: list[bytes] = []
        self._code: int | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # noqa: D102
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        request = _UPGRADE.format(path=self.path, host=self.host, key=self._key.decode())
        transport.write(request.encode())

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"no upgrade: {exc}"))
        if not self.closed.done():
            self.closed.set_result(self._code)

    def data_received(self, data: bytes) -> None:  # noqa: D102
        Client.read += len(data)
        buffer = self._buffer
        buffer += data
        if not self.opened.done():
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).decode("latin-1")
            del buffer[: end + 4]
            accept = base64.b64encode(hashlib.sha1(self._key + _GUID).digest()).decode()
            if not head.startswith("HTTP/1.1 101") or accept not in head:
                self.opened.set_exception(ConnectionError(head.split("\r\n", 1)[0]))
                assert self.transport is not None
                self.transport.close()
                return
            self.opened.set_result(None)
        start = 0
        size = len(buffer)
        while size - start >= 2:
            first, second = buffer[start], buffer[start + 1]
            length, at = second & 0x7F, start + 2
            if length == 126:
                if size - at < 2:
                    break
                length, at = int.from_bytes(buffer[at : at + 2], "big"), at + 2
            elif length == 127:
                if size - at < 8:
                    break
                length, at = int.from_bytes(buffer[at : at + 8], "big"), at + 8
            if size - at < length:
                break
            payload = bytes(buffer[at : at + length])
            start = at + length
            self._frame_in(first, payload)
        del buffer[:start]

    def _frame_in(self, first: int, payload: bytes) -> None:
        opcode = first & 0x0F
        if opcode == 0x9:  # ping: answer with the same payload
            self.write(0xA, payload)
        elif opcode == 0x8:  # close: its code, then answer and hang up
            self._code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
            self.write(0x8, payload[:2])
            assert self.transport is not None
            self.transport.close()
        elif opcode in (0x0, 0x1):  # text, maybe in fragments
            self._fragments.append(payload)
            if first & 0x80:
                text = b"".join(self._fragments).decode()
                self._fragments = []
                self.on_text(text)

    def write(self, opcode: int, payload: bytes) -> None:
        """Send one frame, if the connection is still open."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_frame(opcode, payload))

    def send(self, message: dict[str, Any]) -> None:
        """Send ``message`` as a JSON text frame."""
        self.write(0x1, json.dumps(message).encode())

    def close(self) -> None:
        """Close the connection (a close frame, then the socket)."""
        self.write(0x8, (1000).to_bytes(2, "big"))
        if self.transport is not None:
            self.transport.close()

    def pause(self) -> None:
        """Stop reading: the server's frames pile up in the network's buffers."""
        assert self.transport is not None
        self.transport.pause_reading()

    def resume(self) -> None:
        """Read again."""
        assert self.transport is not None
        self.transport.resume_reading()

    def on_text(self, text: str) -> None:
        """A text message came (a subclass plays or counts it)."""


def _address(base: str) -> tuple[str, int]:
    """The host and port of ``base`` (``http://127.0.0.1:PORT/``)."""
    host, port = base.split("://", 1)[1].strip("/").rsplit(":", 1)
    return host, int(port)


async def _open(
    base: str, match: str, make: Callable[[str, str], Client], small: bool = False
) -> Any:
    """A client of ``make`` connected to the match's WebSocket and upgraded.

    With ``small``, the socket's receive buffer is 4 KiB, so that a client that
    stops reading fills the network's buffers soon.
    """
    loop = asyncio.get_running_loop()
    host, port = _address(base)
    raw = socket.socket()
    raw.setblocking(False)
    if small:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    await loop.sock_connect(raw, (host, port))
    _, client = await loop.create_connection(
        lambda: make(f"/ws/{match}", f"{host}:{port}"), sock=raw
    )
    await asyncio.wait_for(client.opened, 60)
    return client


class Seat(Client):
    """A person's seat: plays its first legal placement on its turn, goes on after each round.

    With ``think``, it waits between half and one and a half times that many
    seconds before each move (as a person does; the round trip is timed from
    the send). ``finished`` is done once the match has a winner.
    """

    def __init__(  # noqa: PLR0913, PLR0917 - a seat's settings
        self, path: str, host: str, seat: int, stats: Stats | None, think: float, rng: random.Random
    ) -> None:
        super().__init__(path, host)
        self.seat, self.stats, self.think, self.rng = seat, stats, think, rng
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.seen = 0
        self.went_on = 0
        self.sent_seq = -1
        self.sent_at = 0.0

    def on_text(self, text: str) -> None:  # noqa: D102
        message = json.loads(text)
        kind, stats = message["type"], self.stats
        if kind == "error":
            if stats is not None:
                stats.errors.append(message["message"])
            return
        if kind != "state":
            return
        view = message["view"]
        seq = view["seq"]
        if stats is not None:
            if self.seat == 0 and seq > self.seen:
                stats.actions += seq - self.seen
            if self.sent_at and seq > self.sent_seq:
                stats.trips.append(time.perf_counter() - self.sent_at)
                self.sent_at = 0.0
        self.seen = max(self.seen, seq)
        if view["winner"] is not None:
            if not self.finished.done():
                self.finished.set_result(None)
            return
        if self.seat in message["waiting_for"]:
            if self.went_on != view["round"]:
                self.went_on = view["round"]
                self.send({"type": "continue"})
            return
        if view["turn"] != self.seat or self.sent_seq == seq:
            return
        placements = [m for m in view["legal_moves"] or [] if " " in m]
        if placements:
            self.sent_seq = seq
            move = {"type": "move", "move": placements[0], "seq": seq}
            if self.think:
                delay = self.think * self.rng.uniform(0.5, 1.5)
                asyncio.get_running_loop().call_later(delay, self._move, move)
            else:
                self._move(move)

    def _move(self, move: dict[str, Any]) -> None:
        self.sent_at = time.perf_counter()
        self.send(move)

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        super().connection_lost(exc)
        if not self.finished.done():
            self.finished.set_result(None)


class Watcher(Client):
    """A spectator: reads every frame (``ready`` once one came); ``stuck``: two, then no more."""

    def __init__(self, path: str, host: str, stuck: bool = False) -> None:
        super().__init__(path, host)
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.frames = 0
        self.stuck = stuck

    def on_text(self, text: str) -> None:  # noqa: D102
        self.frames += 1
        if not self.ready.done():
            self.ready.set_result(None)
        if self.stuck and self.frames == 2:
            self.pause()


def _seat_of(  # noqa: PLR0913, PLR0917 - a seat's settings, then the client's
    seat: int, stats: Stats | None, think: float, rng: random.Random, path: str, host: str
) -> Seat:
    return Seat(path, host, seat, stats, think, rng)


async def _table(  # noqa: PLR0913, PLR0917 - one table's settings
    base: str,
    stats: Stats | None,
    stop: asyncio.Future[None],
    think: float,
    rng: random.Random,
    first: asyncio.Future[dict[str, Any]] | None = None,
    once: bool = False,
) -> None:
    """One table: a match after another until ``stop`` (the first is ``first``'s, if given).

    With ``once``, only that match.
    """
    while not stop.done():
        made = await (first if first is not None else _new_match(base))
        first = None
        seats = []
        for n in (0, 1):
            token = made["seats"][n]["url"].split("#", 1)[1]
            seat = await _open(base, made["id"], functools.partial(_seat_of, n, stats, think, rng))
            seat.send(_hello(token))
            seats.append(seat)
        await asyncio.wait(
            [stop, *(s.finished for s in seats)], return_when=asyncio.FIRST_COMPLETED
        )
        if not stop.done():  # one seat has seen the winner: give the other 5 s to
            await asyncio.wait([s.finished for s in seats], timeout=5)
        for seat in seats:
            seat.close()
        if once:
            return


async def _watched(  # noqa: PLR0913, PLR0917 - the watched table's settings
    base: str,
    stop: asyncio.Future[None],
    think: float,
    rng: random.Random,
    spectators: int,
    watching: asyncio.Future[None],
    counted: list[int],
) -> None:
    """A table watched by ``spectators`` spectators, who follow it to each new match.

    ``watching`` is done once the first match's spectators all have their
    first frame; ``counted`` gets the frames the spectators of each match read.
    """
    while not stop.done():
        made = await _new_match(base)
        token = made["spectator"].split("#", 1)[1]
        watchers = []
        for _ in range(spectators):
            watcher = await _open(base, made["id"], Watcher)
            watcher.send(_hello(token))
            watchers.append(watcher)
        await asyncio.gather(*(w.ready for w in watchers))
        if not watching.done():
            watching.set_result(None)
        first: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        first.set_result(made)
        await _table(base, None, stop, think, rng, first, once=True)
        counted.append(sum(w.frames for w in watchers))
        for watcher in watchers:
            watcher.close()


async def _get(base: str, path: str) -> int:
    """The status of ``GET path`` on a connection of its own, read to the end."""
    host, port = _address(base)
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode()
        )
        answer = await reader.read()
    finally:
        writer.close()
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


async def _probe(
    base: str, stop: asyncio.Future[None], times: list[float], codes: list[int]
) -> None:
    """Time a request every 20 ms (the start page and ``/api/kinds`` in turn) until ``stop``."""
    paths = ("/", "/api/kinds")
    n = 0
    while not stop.done():
        started = time.perf_counter()
        try:
            code = await asyncio.wait_for(_get(base, paths[n % 2]), 30)
        except (OSError, TimeoutError):
            code = 0
        times.append(time.perf_counter() - started)
        codes.append(code)
        n += 1
        await asyncio.sleep(0.02)


def _quantiles(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    if not ordered:
        return {"p50_ms": None, "p99_ms": None}
    return {
        f"p{round(q * 100)}_ms": round(
            ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1
        )
        for q in (0.50, 0.99)
    }


async def _measure(  # noqa: PLR0913, PLR0917 - one measurement's settings
    base: str,
    tables: int,
    seconds: float,
    extra: str | None,
    spectators: int,
    think: float,
    http: bool = False,
) -> dict[str, Any]:
    """``tables`` matches for ``seconds``, with an extra match watched (``extra``) or not.

    With ``http``, a request is timed every 20 ms meanwhile (:func:`_probe`).
    """
    stats = Stats()
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[None] = loop.create_future()
    rng = random.Random(1)
    side: list[asyncio.Task[Any]] = []
    stuck: Watcher | None = None
    if extra == "spectators":
        watching: asyncio.Future[None] = loop.create_future()
        counted: list[int] = []
        side.append(
            asyncio.create_task(_watched(base, stop, think, rng, spectators, watching, counted))
        )
        await watching
    elif extra == "stuck":  # a spectator that never reads: it stops reading after 2 frames
        made = await _new_match(base)
        first: asyncio.Future[dict[str, Any]] = loop.create_future()
        first.set_result(made)
        token = made["spectator"].split("#", 1)[1]
        stuck = await _open(base, made["id"], lambda p, h: Watcher(p, h, stuck=True), small=True)
        stuck.send(_hello(token))
        side.append(asyncio.create_task(_table(base, None, stop, think, rng, first)))
    tasks = [asyncio.create_task(_table(base, stats, stop, think, rng)) for _ in range(tables)]
    await asyncio.sleep(min(2.0, seconds / 5))  # everyone connected and playing
    stats.actions, stats.trips = 0, []
    times: list[float] = []
    codes: list[int] = []
    if http:
        side.append(asyncio.create_task(_probe(base, stop, times, codes)))
    database = await asyncio.to_thread(_database_cpu)
    started, cpu, read = time.perf_counter(), _server_cpu(), Client.read
    await asyncio.sleep(seconds)
    elapsed, cpu = time.perf_counter() - started, _server_cpu() - cpu
    read = Client.read - read
    after = await asyncio.to_thread(_database_cpu)
    report = stats.report(elapsed)
    if database is not None and after is not None and stats.actions:
        report["database_cpu_ms_per_action"] = round((after - database) / stats.actions * 1000, 2)
    if http:
        report["http"] = {
            "requests": len(codes),
            "ok": codes.count(200),
            "refused_503": codes.count(503),
            "failed": codes.count(0),
            **_quantiles(times),
        }
    # What a busy machine cannot hide: the server's own CPU time per action.
    report["server_cpu_share"] = round(cpu / elapsed, 2)
    if stats.actions:
        report["server_cpu_ms_per_action"] = round(cpu / stats.actions * 1000, 2)
        # What the server sent, over every socket of the matches.
        report["kb_sent_per_action"] = round(read / stats.actions / 1000, 1)
        report["actions_per_server_cpu_s"] = round(stats.actions / cpu, 1) if cpu else None
    stop.set_result(None)
    await asyncio.gather(*tasks, *side, return_exceptions=True)
    if extra == "spectators":
        report["spectator_frames_per_s"] = round(sum(counted) / elapsed, 1)
    if stuck is not None:
        # Read what the stuck socket was sent: a few messages, then the server's close.
        stuck.resume()
        try:
            code = await asyncio.wait_for(asyncio.shield(stuck.closed), 10)
        except TimeoutError:
            code = None
            stuck.close()
        report["stuck_frames"] = stuck.frames
        report["stuck_closed_with"] = code
    return report


async def _idle_sockets(base: str, args: argparse.Namespace) -> dict[str, Any]:
    """The ``--few`` matches and HTTP, alone and beside ``--idle-sockets`` idle WebSockets."""
    results: dict[str, Any] = {}
    print(f"alone: {args.few} matches and HTTP for {args.seconds} s", flush=True)
    results["alone"] = await _measure(base, args.few, args.seconds, None, 0, args.few_think, True)
    print(f"  {results['alone']}", flush=True)
    made = await _new_match(base)
    token = made["spectator"].split("#", 1)[1]
    idle: list[Watcher] = []
    gate = asyncio.Semaphore(100)
    opened_at = time.perf_counter()

    async def one() -> None:
        async with gate:
            watcher = await _open(base, made["id"], Watcher)
            watcher.send({"type": "hello", "token": token, "pictures": False})
            await asyncio.wait_for(watcher.ready, 60)
            idle.append(watcher)

    failures = [
        r
        for r in await asyncio.gather(
            *(one() for _ in range(args.idle_sockets)), return_exceptions=True
        )
        if r is not None
    ]
    opening = time.perf_counter() - opened_at
    print(f"{len(idle)} idle sockets open ({len(failures)} failed) in {opening:.1f} s", flush=True)
    results["beside"] = await _measure(base, args.few, args.seconds, None, 0, args.few_think, True)
    results["beside"]["idle_sockets"] = len(idle)
    results["beside"]["idle_sockets_still_open"] = sum(1 for w in idle if not w.closed.done())
    results["beside"]["idle_sockets_failed"] = len(failures)
    results["beside"]["opening_s"] = round(opening, 1)
    print(f"  {results['beside']}", flush=True)
    for watcher in idle:
        watcher.close()
    for q in ("p50", "p99"):
        before, after = results["alone"][f"trip_{q}_ms"], results["beside"][f"trip_{q}_ms"]
        if before and after:
            results["beside"][f"slowdown_{q}"] = round(after / before, 2)
    return results


async def _run(base: str, args: argparse.Namespace) -> dict[str, Any]:
    if args.idle_sockets:
        return await _idle_sockets(base, args)
    results: dict[str, Any] = {}
    print(f"load: {args.matches} matches for {args.seconds} s", flush=True)
    results["load"] = await _measure(base, args.matches, args.seconds, None, 0, args.think)
    print(f"  {results['load']}", flush=True)
    if args.load_only:
        return results
    for name, extra in (("base", None), ("spectators", "spectators"), ("stuck", "stuck")):
        print(f"{name}: {args.few} matches for {args.seconds} s", flush=True)
        results[name] = await _measure(
            base, args.few, args.seconds, extra, args.spectators, args.few_think
        )
        print(f"  {results[name]}", flush=True)
    for name in ("spectators", "stuck"):
        for q in ("p50", "p99"):
            before, after = results["base"][f"trip_{q}_ms"], results[name][f"trip_{q}_ms"]
            if before and after:
                results[name][f"slowdown_{q}"] = round(after / before, 2)
    return results


def main() -> int:
    """Run the measurements and print them (and write ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--serve", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--few", type=int, default=20)
    parser.add_argument("--spectators", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="S",
        help="the load's seats wait 0.5 to 1.5 times S seconds before each move (0: none)",
    )
    parser.add_argument(
        "--few-think",
        type=float,
        default=0.0,
        metavar="S",
        help="the same for the base, spectators and stuck measurements",
    )
    parser.add_argument("--quick", action="store_true", help="small and short: a smoke test")
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument(
        "--pictures",
        action="store_true",
        help="the clients ask for the pictures (the tables drawn as SVG), as a browser does",
    )
    parser.add_argument(
        "--every-drawing",
        action="store_true",
        help="with --pictures: the hello asks for every drawing in every message "
        "(pictures: true, as the page did before 2026-12-07), not only where it changed",
    )
    parser.add_argument(
        "--table",
        choices=("wide", "narrow"),
        default="wide",
        help="with --pictures (and --messages): the drawing of the table the pages show"
        " (wide: a desktop's, narrow: a phone's)",
    )
    parser.add_argument(
        "--messages",
        type=int,
        metavar="N",
        help="only the server's own work for N actions, in this process (no network)",
    )
    parser.add_argument(
        "--at-once",
        type=int,
        default=20,
        metavar="N",
        help="--messages: how many matches are played in turn (the load has 200)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="--messages: the seed the matches are dealt from"
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="--messages: count the instructions per action under valgrind's callgrind",
    )
    parser.add_argument("--bracketed", metavar="LIBRARY", help=argparse.SUPPRESS)
    parser.add_argument(
        "--load-only", action="store_true", help="only the load measurement (200 matches)"
    )
    parser.add_argument(
        "--profile", metavar="PATH", help="run the server under cProfile, its statistics to PATH"
    )
    parser.add_argument(
        "--default-gc",
        action="store_true",
        help="leave the server's garbage collector as Python sets it (not tune_collector;"
        " also for --messages)",
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="keep the matches in this PostgreSQL database (postgresql://...), in a fresh "
        "schema, instead of a SQLite file",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="with --db: N workers on one listening socket, as serve --workers N",
    )
    parser.add_argument(
        "--no-handoff",
        action="store_true",
        help="with --workers: each worker serves the sockets it accepts (no hand-off to the"
        " match's owner), to compare",
    )
    parser.add_argument(
        "--idle-sockets",
        type=int,
        default=0,
        metavar="N",
        help="only: the --few matches and HTTP requests, alone and beside N idle WebSockets",
    )
    parser.add_argument("--schema", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve and args.schema:
        _serve_postgres(args.serve, args.schema, args.workers, args.default_gc, not args.no_handoff)
        return 0
    if args.serve:
        _serve(args.serve, args.profile, args.default_gc)
        return 0
    if args.messages and args.callgrind:
        results = _callgrind(args.messages, args.seed, args.table, args.default_gc, args.at_once)
        print(json.dumps(results, indent=2))
        return 0
    if args.messages:
        if not args.default_gc:  # as american-sniff serve does
            from american_sniff.web.serving import tune_collector  # noqa: PLC0415

            tune_collector()
        bracket = None
        if args.bracketed:
            import ctypes  # noqa: PLC0415 - only under callgrind

            bracket = ctypes.CDLL(args.bracketed)
            bracket.cg_stop.argtypes = [ctypes.c_char_p]
        settings = {
            "seed": args.seed,
            "warm": args.messages // 5,
            "bracket": bracket,
            "table": args.table,
            "at_once": args.at_once,
        }
        results = {
            "without pictures": _messages(args.messages, pictures=False, **settings),
            "with pictures": _messages(args.messages, pictures=True, **settings),
        }
        print(json.dumps(results, indent=2))
        return 0
    if args.quick:
        args.matches, args.few, args.spectators, args.seconds = 10, 4, 10, 2.0
    if args.workers != 1 and not args.db:
        parser.error("--workers needs --db postgresql://...")
    # Every socket is a file, in this process and in the server's.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    schema = f"bench_{os.getpid()}" if args.db else None
    with tempfile.TemporaryDirectory() as directory:
        db = str(Path(directory) / "serve.sqlite3")
        if args.db:
            joiner = "&" if "?" in args.db else "?"
            db = f"{args.db}{joiner}application_name={_APPLICATION}"
        child = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--serve",
                db,
                *(["--schema", schema, "--workers", str(args.workers)] if schema else []),
                *(["--profile", str(Path(args.profile).resolve())] if args.profile else []),
                *(["--default-gc"] if args.default_gc else []),
                *(["--no-handoff"] if args.no_handoff else []),
            ],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        refused = 0
        try:
            assert child.stdout is not None
            line = child.stdout.readline()
            if not line.startswith("PORT "):
                print("the server did not start", file=sys.stderr)
                return 1
            base = f"http://127.0.0.1:{int(line.split()[1])}/"
            global _SERVER, _PICTURES, _DATABASE, _TABLE, _DRAWINGS  # noqa: PLW0603 - read by the measurements
            _DATABASE = args.db
            _SERVER, _PICTURES, _TABLE = child.pid, args.pictures, args.table
            _DRAWINGS = True if args.every_drawing else "changed"
            results = asyncio.run(_run(base, args))
        finally:
            child.terminate()
            child.wait(30)
            if schema is not None:
                _drop(args.db, schema)
                # Each worker's count of appends refused, printed as it stopped.
                rest = child.stdout.read() if child.stdout is not None else ""
                for line in rest.splitlines():
                    if line.startswith("REFUSED "):
                        refused += int(line.split()[1])
    if schema is not None:
        results["refused_appends"] = refused
    results["meta"] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "args": {k: v for k, v in vars(args).items() if k != "serve"},
    }
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    broken = [
        name
        for name in ("load", "base", "alone", "beside")
        if name in results and not results[name]["moves"]
    ]
    return 1 if broken else 0


def _drop(url: str, schema: str) -> None:
    """Drop the benchmark's schema from the database at ``url``."""
    import psycopg  # noqa: PLC0415 - only with --db postgresql://...

    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    sys.exit(main())
