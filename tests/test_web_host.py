"""The browser game's server as a host under load and attack, with sockets the test controls.

Starlette's TestClient never makes a send wait, so these tests drive
:meth:`Server.socket` with fake WebSockets: one that reads everything it is
sent, and one that never reads (its every send waits for ever).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest

pytest.importorskip("starlette")

from starlette.websockets import WebSocket

from american_sniff.web.app import SEND_QUEUE, Server
from american_sniff.web.game import Game, new_setup
from american_sniff.web.store import Store

#: How long a test waits for the server before it calls the server stuck (never reached
#: when the server is right: a safety net, not a timing the test depends on).
_PATIENCE = 30


class FakeSocket:
    """Enough of Starlette's WebSocket for :meth:`Server.socket`.

    ``reads=False`` makes every send wait for ever, as a browser that never
    reads makes a real send wait once the network's buffers are full.
    """

    def __init__(self, match_id: str, *, reads: bool = True, origin: str | None = None) -> None:
        self.path_params = {"match_id": match_id}
        self.headers: dict[str, str] = {"host": "testserver"}
        if origin is not None:
            self.headers["origin"] = origin
        self.reads = reads
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed: int | None = None
        self.accepted = False

    async def accept(self) -> None:
        """The handshake."""
        self.accepted = True

    async def receive(self) -> dict[str, Any]:
        """The browser's next ASGI message."""
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        """A message to the browser (waits for ever if it never reads)."""
        if not self.reads:
            await asyncio.Event().wait()
        await self.outbox.put(json.loads(text))

    async def send_json(self, data: Any) -> None:
        """A JSON message to the browser."""
        await self.send_text(json.dumps(data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the socket with ``code``."""
        self.closed = code
        await self.inbox.put({"type": "websocket.disconnect", "code": code})

    def say(self, **message: Any) -> None:
        """Send the server a text message, as the browser would."""
        self.inbox.put_nowait({"type": "websocket.receive", "text": json.dumps(message)})

    async def next(self) -> dict[str, Any]:
        """The next message the server sent."""
        return await asyncio.wait_for(self.outbox.get(), _PATIENCE)

    async def state(self, seq: int) -> dict[str, Any]:
        """Read until a state message of sequence number ``seq`` or more."""
        while True:
            message = await self.next()
            if message["type"] == "state" and message["view"]["seq"] >= seq:
                return message


def _run(scenario: Callable[[Server], Awaitable[None]], store: Store | None = None) -> None:
    async def main() -> None:
        server = Server(store or Store(":memory:"), bot_delay=0)
        try:
            await scenario(server)
        finally:
            await server.close()

    asyncio.run(main())


def _connect(server: Server, socket: FakeSocket) -> asyncio.Task[None]:
    return asyncio.create_task(server.socket(socket))  # type: ignore[arg-type]


def _people(server: Server, players: int = 2) -> Game:
    game = Game.create(server.store, new_setup(players, ["human"] * players))
    server._games[game.id] = game
    return game


async def _until(condition: Callable[[], bool]) -> None:
    """Let the server run until ``condition`` holds (no timing: it runs in this event loop)."""
    for _ in range(_PATIENCE * 1000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the server is stuck")


async def _placements(game: Game, seats: dict[int, FakeSocket], count: int) -> None:
    """Let the people at ``seats`` make ``count`` actions, each seat answering its own state."""
    latest: dict[int, dict[str, Any] | None] = dict.fromkeys(seats)
    for _ in range(count):
        if game.state.winner is not None:
            return
        seq, waiting = game.seq, game.waiting_for()
        if waiting:
            for n in waiting:
                seats[n].say(type="continue")
        else:
            turn = game.state.turn
            message = latest[turn]
            while message is None or message["view"]["seq"] < seq:
                message = latest[turn] = await seats[turn].state(seq)
            seats[turn].say(type="move", move=message["view"]["legal_moves"][0], seq=seq)
        await _until(lambda: game.seq > seq or game.waiting_for() != waiting)  # noqa: B023


def test_a_spectator_that_never_reads_is_dropped_and_freezes_nobody() -> None:
    """One never-reading socket fills its own queue and is dropped; the seats play on."""

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        stuck = FakeSocket(game.id, reads=False)
        watcher = FakeSocket(game.id)
        tasks = [_connect(server, s) for s in (*seats.values(), stuck, watcher)]
        for n, socket in seats.items():
            socket.say(type="hello", token=game.setup.seats[n].token)
        for socket in (stuck, watcher):
            socket.say(type="hello", token=game.setup.spectator)
        await _placements(game, seats, SEND_QUEUE + 8)
        assert game.seq >= SEND_QUEUE + 8 or game.state.winner is not None
        # The stuck spectator was dropped (closed, no longer sent to); the other saw every state.
        assert stuck.closed == 4408
        assert all(c.socket is not cast(Any, stuck) for c in server._sockets[game.id])
        seen = {m["view"]["seq"] async for m in _drain(watcher)}
        assert game.seq in seen
        for task in tasks:
            task.cancel()

    _run(scenario)


async def _drain(socket: FakeSocket) -> Any:
    while not socket.outbox.empty():
        message = socket.outbox.get_nowait()
        if message["type"] == "state":
            yield message


def test_a_socket_that_reads_is_never_dropped() -> None:
    """A reading socket gets far more messages than the queue holds, and is never dropped."""

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        tasks = [_connect(server, s) for s in seats.values()]
        for n, socket in seats.items():
            socket.say(type="hello", token=game.setup.seats[n].token)
        await _placements(game, seats, 3 * SEND_QUEUE)
        assert all(s.closed is None for s in seats.values())
        assert len(server._sockets[game.id]) == 2
        for task in tasks:
            task.cancel()

    _run(scenario)


def test_a_fake_socket_is_enough_of_a_websocket() -> None:
    """The fake has every method the server calls on a Starlette WebSocket."""
    used = ("accept", "receive", "send_text", "send_json", "close")
    assert all(hasattr(WebSocket, name) and hasattr(FakeSocket, name) for name in used)
