"""``american-sniff serve --workers N`` on PostgreSQL, played through its shared socket.

Each client's socket lands on whichever worker the system hands it to. The
matches are played at once (people and bots), a worker is killed with
``kill -9`` in the middle, and then:

* no move is lost or applied twice: every move a seat sent is in the log at
  the number it was planned on, and every log replays;
* every socket sees its match's states in order, up to the last;
* the killed worker's bot seats move again within 5 s, and the worker is
  started again;
* the creation limit is the server's, not each worker's;
* ``SIGTERM`` stops every worker.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from american_sniff.engine import legal_moves
from american_sniff.web.game import Game, new_setup
from pg_testing import POSTGRES_URL, library, postgres_schema, psycopg_or_skip

pytest.importorskip("uvicorn")
client = pytest.importorskip("websockets.asyncio.client")
sync_client = pytest.importorskip("websockets.sync.client")
exceptions = pytest.importorskip("websockets.exceptions")

from american_sniff.web.handoff import owner  # noqa: E402

psycopg_or_skip()  # (not importorskip: under AMERICAN_SNIFF_REQUIRE_POSTGRES=1 it fails)


@pytest.fixture
def schema() -> Iterator[str]:
    """A new PostgreSQL schema on the test database."""
    yield from postgres_schema("sniff_many")


class Served:
    """An ``american-sniff serve --workers N`` process, its address and what it printed."""

    def __init__(self, url: str, workers: int, *options: str) -> None:
        command = [sys.executable, "-m", "american_sniff", "serve", "--port", "0", "--db", url]
        self.process = subprocess.Popen(
            [*command, "--workers", str(workers), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.process.stdout is not None
        self.lines: list[str] = []
        self.seen: set[int] = set()  # every worker seen, to be killed if the test fails
        first = self.process.stdout.readline()
        assert "is served at http://" in first, first
        self.address = first.split("http://", 1)[1].split("/", 1)[0]
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if workers > 1:  # (one serves in the process itself)
            self.until(lambda: len(self.workers()) == workers, "the workers did not start")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def workers(self) -> list[int]:
        """The process ids of the running workers (the supervisor's children)."""
        pid = self.process.pid
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as children:
                workers = [int(p) for p in children.read().split()]
        except FileNotFoundError:
            return []
        self.seen.update(workers)
        return workers

    def until(self, condition: Any, what: str, seconds: float = 60) -> None:
        """Wait until ``condition()``; fail with ``what`` after ``seconds``."""
        deadline = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < deadline, f"{what}: {self.lines}"
            time.sleep(0.05)

    def stop(self) -> int:
        """SIGTERM to the supervisor; its exit code once it and its workers have stopped."""
        workers = self.workers()
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(20)
        for pid in workers:
            assert not os.path.exists(f"/proc/{pid}/stat") or _ended(pid), f"{pid} still runs"
        return code

    def kill(self) -> None:
        """Kill the supervisor and its workers (after a failed test)."""
        for pid in [*self.workers(), *self.seen, self.process.pid]:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait(10)

    def close(self) -> None:
        """Kill what still runs, and close the pipe once everything printed is read."""
        if self.process.poll() is None or any(not _ended(pid) for pid in self.seen):
            self.kill()
        self._reader.join(10)
        assert self.process.stdout is not None
        if not self._reader.is_alive():  # (closing a pipe being read would wait for ever)
            self.process.stdout.close()


def _ended(pid: int) -> bool:
    """Whether the process ``pid`` has ended (gone, or a zombie not yet waited for)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@dataclass
class SeatLog:
    """What one seat's client did and saw, over all its connections."""

    seat: int
    #: The move sent at each seq (the last, if sent again after a reconnect).
    sent: dict[int, str] = field(default_factory=dict)
    #: For each connection, the seqs of the states it got, in the order they came.
    seen: list[list[int]] = field(default_factory=list)
    #: When each state came whose last action was seat ``bot``'s: (time, seq).
    bot_moves: list[tuple[float, int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    connections: int = 0
    finished: bool = False


async def _play(  # noqa: PLR0913 - one seat's whole client, reconnecting
    address: str,
    match_id: str,
    token: str | None,
    log: SeatLog,
    stop: asyncio.Event,
    *,
    calm: asyncio.Event,
    bot: int | None,
    think: float,
) -> None:
    """Play one seat (or watch, with ``seat`` -1) until ``stop``, reconnecting when dropped.

    Once ``calm`` is set, it sends no more moves (so that the last states come).
    """
    rng = random.Random(match_id + str(log.seat))
    while not stop.is_set() and not log.finished:
        try:
            async with client.connect(f"ws://{address}/ws/{match_id}", open_timeout=5) as ws:
                log.connections += 1
                seen: list[int] = []
                log.seen.append(seen)
                await ws.send(json.dumps({"type": "hello", "token": token, "pictures": False}))
                went_on = moved = -1
                while not stop.is_set():
                    try:
                        text = await asyncio.wait_for(ws.recv(), 0.2)
                    except TimeoutError:
                        continue
                    message = json.loads(text)
                    if message["type"] == "error":
                        log.errors.append(message["message"])
                        continue
                    view = message["view"]
                    seq = view["seq"]
                    seen.append(seq)
                    last = view["last_action"]
                    if bot is not None and last is not None and last["seat"] == bot:
                        log.bot_moves.append((time.monotonic(), seq))
                    if view["winner"] is not None:
                        log.finished = True
                        return
                    if log.seat < 0 or calm.is_set():
                        continue
                    if log.seat in message["waiting_for"]:
                        if went_on != view["round"]:
                            went_on = view["round"]
                            await ws.send(json.dumps({"type": "continue"}))
                        continue
                    placements = [m for m in view["legal_moves"] or [] if " " in m]
                    if view["turn"] == log.seat and placements and moved != seq:
                        moved = seq  # (a state may come twice: one move for it)
                        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                        log.sent[seq] = placements[0]
                        move = {"type": "move", "move": placements[0], "seq": seq}
                        await ws.send(json.dumps(move))
        except (OSError, TimeoutError, exceptions.WebSocketException):
            # The worker went away: through the socket again (after a second if
            # this address opened too many: the limit all the workers share).
            refused = log.errors and log.errors[-1].startswith("too many new connections")
            await asyncio.sleep(1.0 if refused else 0.05)


def test_workers_on_one_socket_lose_nothing_when_one_is_killed(schema: str) -> None:
    """Three workers, people's and bots' matches at once, one worker killed with ``kill -9``."""
    store = library(schema)
    # 15 sockets, and the reconnections after the kill (and of sockets dropped
    # for reading too slowly on a busy machine): within the 30 new sockets at
    # once, then one a second, that an address may open (the workers share it).
    people = [Game.create(store, new_setup(2, ["human", "human"])) for _ in range(3)]
    bots = [Game.create(store, new_setup(2, ["greedy", "human"])) for _ in range(3)]
    store.close()
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    served = Served(url, 3, "--bot-delay", "0.1")
    try:
        logs: dict[str, list[SeatLog]] = {}
        killed_at: list[float] = []
        at_kill: dict[str, int] = {}

        async def scenario() -> None:
            stop, calm = asyncio.Event(), asyncio.Event()
            tasks = []
            for game in [*people, *bots]:
                bot = 0 if game in bots else None
                seats = [n for n, s in enumerate(game.setup.seats) if s.token is not None]
                logs[game.id] = [SeatLog(n) for n in seats] + [SeatLog(-1)]
                for log in logs[game.id]:
                    token = (
                        game.setup.spectator if log.seat < 0 else game.setup.seats[log.seat].token
                    )
                    tasks.append(
                        asyncio.create_task(
                            _play(
                                served.address,
                                game.id,
                                token,
                                log,
                                stop,
                                calm=calm,
                                bot=bot,
                                think=0.05,
                            )
                        )
                    )
            await asyncio.sleep(2.5)
            # Kill the worker that drives the most bot seats now.
            victim = await asyncio.to_thread(_busiest_driver, schema, served.workers())
            assert victim is not None, "no worker drives a bot seat"
            for game in bots:
                at_kill[game.id] = max((s for c in logs[game.id][-1].seen for s in c), default=0)
            os.kill(victim, signal.SIGKILL)
            killed_at.append(time.monotonic())
            # Played on until every bot has moved again (or 5.5 s), and a little more.
            while time.monotonic() - killed_at[0] < 5.5 and not all(
                logs[g.id][-1].finished
                or any(seq > at_kill[g.id] for _, seq in logs[g.id][-1].bot_moves)
                for g in bots
            ):
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)
            calm.set()  # no more moves: the last states come to every socket
            games = [*people, *bots]
            # Quiet: the stored matches did not change for a second (a forced draw
            # may wait FOLLOW seconds), and every socket has their last state.
            deadline = time.monotonic() + 15
            before: dict[str, int] = {}
            while time.monotonic() < deadline:
                await asyncio.sleep(1.0)
                finals = await asyncio.to_thread(_finals, schema, [g.id for g in games])
                if finals == before and all(
                    log.seen and log.seen[-1] and log.seen[-1][-1] == finals[game.id]
                    for game in games
                    for log in logs[game.id]
                ):
                    break
                before = finals
            stop.set()
            await asyncio.gather(*tasks)

        asyncio.run(scenario())
        # The killed worker is started again.
        served.until(lambda: len(served.workers()) == 3, "the killed worker was not restarted")
        assert any("was killed by signal 9: starting it again" in line for line in served.lines)
        # The creation limit holds for the server, not for each worker.
        codes = [_create(served.address) for _ in range(13)]
        assert codes == [201] * 10 + [429] * 3
        assert served.stop() == 0
    finally:
        served.close()

    store = library(schema)
    try:
        for game in [*people, *bots]:
            stored = store.load(game.id)
            assert stored is not None
            replayed = Game(stored, store)  # the log replays
            final = replayed.seq
            moves = _moves_by_seq(stored.log)
            for log in logs[game.id]:
                # No move lost or applied twice: each seat's move is in the log at its seq
                # (one sent as the match ended, or to a worker killed before it wrote, is not).
                for seq, move in log.sent.items():
                    if seq < final:
                        assert moves[seq] == move, (game.id, seq)
                # Every connection saw its states in order, and the last is the log's.
                for seqs in log.seen:
                    assert seqs == sorted(seqs), (game.id, log.seat, seqs)
                assert log.seen[-1][-1] == final, (
                    game.id,
                    log.seat,
                    final,
                    [(g.seat, g.seen[-1][-4:], g.errors) for g in logs[game.id]],
                    stored.log[-3:],
                    served.lines[-30:],  # what the server printed (a traceback?)
                )
                assert not [e for e in log.errors if "could not" in e], log.errors
        # The bots of every match moved again within 5 s of the kill.
        for game in bots:
            watcher = logs[game.id][-1]
            if watcher.finished and at_kill[game.id] >= max(s for c in watcher.seen for s in c):
                continue  # over before the kill
            after = [t for t, seq in watcher.bot_moves if seq > at_kill[game.id]]
            assert after, f"the bot of {game.id} never moved again"
            assert after[0] - killed_at[0] < 5, after[0] - killed_at[0]
    finally:
        store.close()


def _moves_by_seq(log: Any) -> dict[int, str]:
    """The move of each action number in a log (whose undos none of these clients asked)."""
    moves: dict[int, str] = {}
    for entry in log:
        assert entry.kind in {"move", "continue"}
        if entry.kind == "move":
            moves[len(moves)] = entry.value
    return moves


def _finals(schema: str, ids: list[str]) -> dict[str, int]:
    """How many actions each match of ``ids`` has had, as stored."""
    store = library(schema)
    try:
        finals = {}
        for match_id in ids:
            stored = store.load(match_id)
            assert stored is not None
            finals[match_id] = Game(stored, store).seq
        return finals
    finally:
        store.close()


def _busiest_driver(schema: str, workers: list[int]) -> int | None:
    """The worker that holds the most bot seats' leases now (None if none holds one)."""
    import psycopg

    with psycopg.connect(POSTGRES_URL, autocommit=True) as db:
        holders = db.execute(
            f'SELECT holder FROM "{schema}".sniff_leases '
            "WHERE expires > extract(epoch from clock_timestamp())"
        ).fetchall()
    pids = [int(holder.split("-", 1)[0]) for (holder,) in holders]
    held = [pid for pid in workers if pid in pids]
    return max(held, key=pids.count) if held else None


def _create(address: str) -> int:
    """The status of one ``POST /api/matches`` to the server at ``address``."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"http://{address}/api/matches",
        data=json.dumps({"players": 2, "seats": ["human", "greedy"]}).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_seats_on_two_workers_are_never_told_the_table_changed(schema: str) -> None:
    """People's matches, each seat's socket on another worker: no move or going on is refused.

    Issue 41: a seat plays as soon as its state comes (as the benchmark's
    clients do), so one seat goes on and opens a round through one worker
    while the other goes on through the other. A message planned on the
    state its socket was last sent, where nothing it depends on changed, is
    never answered "the table has changed since".
    """
    store = library(schema)
    games = [Game.create(store, new_setup(2, ["human", "human"], seed=n)) for n in range(14)]
    store.close()
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    one, two = Served(url, 1), Served(url, 1)
    logs = {game.id: [SeatLog(0), SeatLog(1)] for game in games}
    try:

        async def scenario() -> None:
            stop, calm = asyncio.Event(), asyncio.Event()
            tasks = [
                asyncio.create_task(
                    _play(
                        # Seat 0 of half the matches on one worker, of the others on the other.
                        (one, two)[(n + log.seat) % 2].address,
                        game.id,
                        game.setup.seats[log.seat].token,
                        log,
                        stop,
                        calm=calm,
                        bot=None,
                        think=0.0,
                    )
                )
                for n, game in enumerate(games)
                for log in logs[game.id]
            ]
            deadline = time.monotonic() + 7
            while time.monotonic() < deadline and not all(
                log.finished for seats in logs.values() for log in seats
            ):
                await asyncio.sleep(0.1)
            calm.set()
            await asyncio.sleep(1.0)  # (a forced draw may wait FOLLOW seconds)
            stop.set()
            await asyncio.gather(*tasks)

        asyncio.run(scenario())
    finally:
        one.close()
        two.close()
    errors = [e for seats in logs.values() for log in seats for e in log.errors]
    assert errors == [], collections.Counter(errors)
    sent = sum(len(log.sent) for seats in logs.values() for log in seats)
    assert sent >= 200, sent  # many moves, each planned on the state its socket was sent
    store = library(schema)
    try:
        for game in games:
            stored = store.load(game.id)
            assert stored is not None
            final = Game(stored, store).seq  # the log replays
            moves = _moves_by_seq(stored.log)
            for log in logs[game.id]:
                for seq, move in log.sent.items():
                    if seq < final:
                        assert moves[seq] == move, (game.id, seq)  # each landed, once
    finally:
        store.close()


def test_the_workers_stop_when_their_supervisor_is_killed(schema: str) -> None:
    """``kill -9`` of the supervisor: its workers notice, and stop within a few seconds."""
    library(schema).close()  # the schema and its tables
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    served = Served(url, 2)
    try:
        workers = served.workers()
        os.kill(served.process.pid, signal.SIGKILL)
        served.process.wait(10)
        deadline = time.monotonic() + 5
        while any(os.path.exists(f"/proc/{pid}") for pid in workers):
            assert time.monotonic() < deadline, "the workers outlived their supervisor"
            time.sleep(0.05)
    finally:
        served.close()


# -- the hand-off of a match's sockets to the worker that owns it --------------------------
#
# Which worker serves a socket is seen from outside, in /proc: the process
# that holds the server's end of the TCP connection (nothing is added to the
# server for it). Which worker accepts a connection is made certain by
# stopping (SIGSTOP) every other worker while it is accepted.


def _numbered(served: Served, workers: int) -> dict[int, int]:
    """Each worker's process id, by its number (from the supervisor's lines), once it serves."""
    numbered: dict[int, int] = {}

    def all_named() -> bool:  # the supervisor names each worker as it forks it
        running = set(served.workers())
        for line in list(served.lines):
            if line.startswith("worker ") and " is process " in line:
                number, process = int(line.split()[1]), int(line.rsplit(" ", 1)[1])
                if process in running:
                    numbered[number] = process
        return sorted(numbered) == list(range(1, workers + 1))

    for _ in range(3):
        served.until(all_named, "not every worker was named")
        # Each is serving (its server started, and so it takes the connections
        # handed to it) once it has answered a request of its own.
        try:
            for pid in numbered.values():
                raw = _accepted_by(served, pid, [p for p in numbered.values() if p != pid])
                with raw:
                    raw.sendall(
                        b"GET /api/kinds HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    )
                    assert raw.recv(12) == b"HTTP/1.1 200"
        except WorkerGone as gone:  # (seen once in CI, under load: its lines say why)
            print(gone)  # (shown if the test fails later)
            numbered.clear()  # it was started again: name them again
            continue
        return numbered
    raise AssertionError("the workers kept ending as they started")


class WorkerGone(AssertionError):
    """A worker's process ended while the test was stopping it (the supervisor's last lines)."""


def _port_hex(address: str) -> str:
    return f"{int(address.rsplit(':', 1)[1]):04X}"


def _accept_queue(address: str) -> int:
    """How many connections wait to be accepted on the server's listening socket."""
    port = _port_hex(address)
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == f"0100007F:{port}" and fields[3] == "0A":  # listening
                return int(fields[4].split(":")[1], 16)
    raise AssertionError("the listening socket is not in /proc/net/tcp")


def _holders(address: str, client: socket.socket, pids: list[int]) -> list[int]:
    """The processes of ``pids`` that hold the server's end of ``client``'s connection."""
    port, peer = _port_hex(address), f"{client.getsockname()[1]:04X}"
    inode = None
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == f"0100007F:{port}" and fields[2] == f"0100007F:{peer}":
                inode = fields[9]
    assert inode is not None, "the connection is not in /proc/net/tcp"
    held = []
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]":
                        held.append(pid)
                        break
    return held


def _served_by(address: str, client: socket.socket, pids: list[int], pid: int) -> bool:
    """Whether worker ``pid``, and no other of ``pids``, holds ``client``'s connection."""
    return _holders(address, client, pids) == [pid]


def _accepted_by(served: Served, pid: int, others: list[int]) -> socket.socket:
    """A new connection to the server that worker ``pid`` accepted (the ``others`` stopped).

    A worker still starting may wait on one of the others (a lock it holds in
    the database while it makes its tables), which, stopped, never lets go:
    so a connection not taken within a while is given up, the others run on
    for a moment, and a new one is tried (six tries in all).
    """
    for attempt in range(6):
        if attempt:
            time.sleep(2)  # the others run on, and let go of what they hold
        for other in others:
            try:
                os.kill(other, signal.SIGSTOP)
            except ProcessLookupError:
                for stopped in others:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(stopped, signal.SIGCONT)
                lines = "\n".join(served.lines[-20:])
                raise WorkerGone(
                    f"worker process {other} has ended; the server said:\n{lines}"
                ) from None
        try:
            raw = socket.create_connection(tuple(served.address.rsplit(":", 1)), timeout=10)  # type: ignore[arg-type]
            try:
                # Generous: a worker just forked on a loaded machine may take a while to serve.
                served.until(
                    lambda: _accept_queue(served.address) == 0, "the connection was not taken", 15
                )
            except AssertionError:
                raw.close()
                if attempt == 5:
                    raise
                continue
            except BaseException:
                raw.close()
                raise
        finally:
            for other in others:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(other, signal.SIGCONT)
        return raw
    raise AssertionError("unreachable")  # pragma: no cover


def _said_hello(
    stack: contextlib.ExitStack, served: Served, raw: socket.socket, match_id: str, token: Any
) -> Any:
    """The WebSocket over ``raw`` to ``match_id`` (closed with ``stack``), its hello answered."""
    ws = stack.enter_context(
        sync_client.connect(f"ws://{served.address}/ws/{match_id}", sock=raw, open_timeout=10)
    )
    ws.send(json.dumps({"type": "hello", "token": token, "pictures": False}))
    message = json.loads(ws.recv(timeout=10))
    assert message["type"] == "state", message
    return ws


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="needs Linux's /proc")
def test_every_socket_of_a_match_is_served_by_the_worker_that_owns_it(schema: str) -> None:
    """Sockets of one match accepted by each of three workers all end on its owner."""
    store = library(schema)
    game = Game.create(store, new_setup(2, ["human", "human"]))
    store.close()
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    served = Served(url, 3)
    sockets = []
    stack = contextlib.ExitStack()
    try:
        numbered = _numbered(served, 3)
        pids = list(numbered.values())
        owner_pid = numbered[owner(game.id, 3)]
        tokens = [game.setup.seats[0].token, game.setup.seats[1].token, game.setup.spectator]
        landed = [p for p in pids if p != owner_pid] + [owner_pid]  # two elsewhere, one there
        for pid, token in zip(landed, tokens, strict=True):
            raw = _accepted_by(served, pid, [p for p in pids if p != pid])
            stack.callback(raw.close)
            sockets.append((raw, _said_hello(stack, served, raw, game.id, token)))
        for raw, _ in sockets:
            served.until(
                functools.partial(_served_by, served.address, raw, pids, owner_pid),
                f"not served by the owner {owner_pid} alone",
            )
        # The connections stayed open across the hand-off: a move through the
        # first seat's socket reaches all three.
        state = game.state
        seat = state.turn
        ws = sockets[seat][1]
        move = str(legal_moves(state)[0])
        ws.send(json.dumps({"type": "move", "move": move, "seq": 0}))
        for _, each in sockets:
            assert json.loads(each.recv(timeout=10))["view"]["seq"] == 1
    finally:
        stack.close()
        served.close()


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="needs Linux's /proc")
def test_when_the_owner_is_killed_its_sockets_close_and_the_match_is_served_again(
    schema: str,
) -> None:
    """``kill -9`` of the owner: the page connects again, and its match goes on."""
    store = library(schema)
    game = Game.create(store, new_setup(2, ["human", "human"]))
    store.close()
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    served = Served(url, 2)
    try:
        numbered = _numbered(served, 2)
        owner_pid = numbered[owner(game.id, 2)]
        other = next(p for p in numbered.values() if p != owner_pid)
        seat = game.state.turn
        token = game.setup.seats[seat].token
        raw = _accepted_by(served, other, [owner_pid])  # handed to the owner
        with contextlib.ExitStack() as stack:
            stack.callback(raw.close)
            ws = _said_hello(stack, served, raw, game.id, token)
            served.until(
                lambda: _holders(served.address, raw, [owner_pid, other]) == [owner_pid],
                "not handed to the owner",
            )
            os.kill(owner_pid, signal.SIGKILL)
            with pytest.raises(exceptions.ConnectionClosed):
                ws.recv(timeout=10)  # closed with its worker
        # The page connects again (as often as it must), to whichever worker:
        # the other serves it itself, or the owner started again does.
        deadline = time.monotonic() + 20
        while True:
            try:
                with sync_client.connect(
                    f"ws://{served.address}/ws/{game.id}", open_timeout=10
                ) as again:
                    again.send(json.dumps({"type": "hello", "token": token, "pictures": False}))
                    view = json.loads(again.recv(timeout=10))["view"]
                    move = str(legal_moves(game.state)[0])
                    again.send(json.dumps({"type": "move", "move": move, "seq": view["seq"]}))
                    assert json.loads(again.recv(timeout=10))["view"]["seq"] == view["seq"] + 1
                    break
            except (OSError, exceptions.ConnectionClosed, exceptions.InvalidHandshake):
                assert time.monotonic() < deadline, f"not served again: {served.lines}"
                time.sleep(0.2)
        served.until(lambda: len(served.workers()) == 2, "the killed worker was not restarted")
        assert served.stop() == 0
    finally:
        served.close()
