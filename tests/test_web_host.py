"""The browser game's server as a host under load and attack, with sockets the test controls.

Starlette's TestClient never makes a send wait, so these tests drive
:meth:`Server.socket` with fake WebSockets: one that reads everything it is
sent, and one that never reads (its every send waits for ever).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("starlette")

from starlette.websockets import WebSocket

from american_sniff.web.app import SEND_QUEUE, Server
from american_sniff.web.game import Game, new_setup
from american_sniff.web.limits import RateLimit, SocketLimits, json_depth, same_origin
from american_sniff.web.rooms import Room
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
        self.scope: dict[str, Any] = {"type": "websocket", "extensions": {}}  # no wire: queued
        self.client = None  # no address: every fake socket counts as one client
        self.headers: dict[str, str] = {"host": "testserver"}
        if origin is not None:
            self.headers["origin"] = origin
        self.reads = reads
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed: int | None = None
        self.accepted = False
        self.seen: list[str] = []

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
        self.seen.append(text)
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
        # Lifted socket limits: these tests send as fast as the server answers.
        server = Server(store or Store(":memory:"), bot_delay=0, limits=SocketLimits.lifted())
        try:
            await scenario(server)
        finally:
            await server.close()

    asyncio.run(main())


def _connect(server: Server, socket: FakeSocket) -> asyncio.Task[None]:
    return asyncio.create_task(server.socket(socket))  # type: ignore[arg-type, unused-ignore]


def _people(server: Server, players: int = 2) -> Game:
    game = Game.create(server.store, new_setup(players, ["human"] * players))
    server.rooms.hold(game)
    return game


def _room(server: Server, game: Game) -> Room:
    """The room that holds ``game`` on ``server``."""
    room = server.rooms.get(game.id)
    assert room is not None
    assert room.game is game
    return room


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
        assert game.seq > SEND_QUEUE
        # The stuck spectator was dropped (closed, no longer sent to); the other saw every state.
        assert stuck.closed == 4408
        assert all(c.socket is not cast(Any, stuck) for c in _room(server, game).sockets)
        seen = [json.loads(t)["view"]["seq"] for t in watcher.seen if '"state"' in t[:20]]
        await watcher.state(game.seq)  # the other spectator sees every state
        assert seen == sorted(seen)
        for task in tasks:
            task.cancel()

    _run(scenario)


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
        assert len(_room(server, game).sockets) == 2
        for task in tasks:
            task.cancel()

    _run(scenario)


def test_a_fake_socket_is_enough_of_a_websocket() -> None:
    """The fake has every method the server calls on a Starlette WebSocket."""
    used = ("accept", "receive", "send_text", "send_json", "close")
    assert all(hasattr(WebSocket, name) and hasattr(FakeSocket, name) for name in used)


# -- limits ---------------------------------------------------------------------------


def test_a_deep_or_binary_message_gets_a_clear_error_and_the_socket_goes_on() -> None:
    """A message nested too deep, or sent as binary, is refused with a message, no traceback."""

    async def scenario(server: Server) -> None:
        game = _people(server)
        seat = FakeSocket(game.id)
        task = _connect(server, seat)
        seat.inbox.put_nowait({"type": "websocket.receive", "text": "[" * 3000})
        assert (await seat.next())["message"] == "no match has this link"
        await task
        seat = FakeSocket(game.id)
        task = _connect(server, seat)
        seat.say(type="hello", token=game.setup.seats[0].token)
        await seat.state(0)
        seat.inbox.put_nowait({"type": "websocket.receive", "text": "[" * 2000 + "]" * 2000})
        assert "nests at most 4 levels" in (await seat.next())["message"]
        seat.inbox.put_nowait({"type": "websocket.receive", "bytes": b"\x00" * 10})
        assert "sent as text" in (await seat.next())["message"]
        seat.inbox.put_nowait({"type": "websocket.receive", "text": " " * 5000})
        assert "too long" in (await seat.next())["message"]
        seat.say(type="hint")  # still served
        assert (await seat.next())["type"] in ("hint", "error")
        task.cancel()

    _run(scenario)


def test_a_websocket_from_another_sites_page_is_refused() -> None:
    """A WebSocket whose Origin is another site gets a reason and close code 4403."""

    async def scenario(server: Server) -> None:
        game = _people(server)
        foreign = FakeSocket(game.id, origin="https://elsewhere.example")
        await server.socket(foreign)  # type: ignore[arg-type, unused-ignore]
        assert "another site" in (await foreign.next())["message"]
        assert foreign.closed == 4403
        own = FakeSocket(game.id, origin="http://testserver")
        task = _connect(server, own)
        own.say(type="hello", token=game.setup.spectator)
        assert (await own.state(0))["you"] == "spectator"
        task.cancel()

    _run(scenario)


def test_the_json_depth_is_read_without_parsing() -> None:
    """Brackets in strings and escaped quotes do not count; a broken text still has a depth."""
    assert json_depth('{"a": "\\"[[[", "b": [1, {"c": []}]}') == 4
    assert json_depth("[" * 100_000) == 100_000
    assert json_depth("") == 0


def _depth_by_hand(text: str) -> int:
    """The depth read one character at a time: the reference for :func:`json_depth`."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


@given(st.text(alphabet='[]{}"\\x\n', max_size=40))
def test_the_json_depth_is_the_depth_read_by_hand(text: str) -> None:
    """The regular-expression reading agrees with one character at a time, broken texts too."""
    assert json_depth(text) == _depth_by_hand(text)


def test_same_origin_compares_the_origin_with_the_host() -> None:
    """Same host and port pass; another host, port or an unreadable origin fail."""
    host = {"host": "localhost:8000"}
    assert same_origin({**host, "origin": "http://LOCALHOST:8000"})
    assert not same_origin({**host, "origin": "http://localhost:8001"})
    assert not same_origin({**host, "origin": "null"})
    assert not same_origin({**host, "origin": "http://[::1"})


def test_the_rate_limit_refills_one_at_a_time_and_forgets_old_addresses() -> None:
    """After the burst, one more each period; addresses beyond the memory are forgotten."""
    now = [100.0]
    limit = RateLimit(burst=3, every=10, clock=lambda: now[0])
    assert [limit.take("x") for _ in range(4)] == [0, 0, 0, 10]
    now[0] += 4
    assert limit.take("x") == 6
    now[0] += 6
    assert limit.take("x") == 0
    assert limit.take("x") == 10
    for n in range(10_050):
        limit.take(f"a{n}")
    assert len(limit._buckets) <= 10_000


class _Transport:
    """Enough of an asyncio transport for uvicorn's HTTP protocol."""

    def __init__(self) -> None:
        self.closed = False
        self.written = b""
        self.protocol: object = None

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 5), "sockname": ("127.0.0.1", 80)}.get(name, default)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def write(self, data: bytes) -> None:
        self.written += data

    def get_protocol(self) -> object:
        return self.protocol

    def set_protocol(self, protocol: object) -> None:
        self.protocol = protocol

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_a_request_whose_headers_are_late_is_closed() -> None:
    """The header clock closes a connection whose headers are not in; a complete one stays."""
    uvicorn = pytest.importorskip("uvicorn")
    from uvicorn.server import ServerState

    from american_sniff.web.serving import HeaderTimeout

    async def main() -> None:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            await asyncio.Event().wait()  # an answer that takes its time

        config = uvicorn.Config(app, http=HeaderTimeout, log_level="warning")
        config.load()
        for data, closed in ((b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: 1", True), (b"", True)):
            transport = _Transport()
            protocol = HeaderTimeout(config=config, server_state=ServerState(), app_state={})
            transport.protocol = protocol
            protocol.connection_made(transport)  # type: ignore[arg-type, unused-ignore]
            if data:
                protocol.data_received(data)
            protocol.headers_late()
            assert transport.closed == closed
            protocol.connection_lost(None)
        transport = _Transport()
        protocol = HeaderTimeout(config=config, server_state=ServerState(), app_state={})
        transport.protocol = protocol
        protocol.connection_made(transport)  # type: ignore[arg-type, unused-ignore]
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        protocol.headers_late()
        assert not transport.closed  # its headers are in: the answer is on its way
        protocol.connection_lost(None)

    asyncio.run(main())


def _payload(server: Server, game: Game, viewer: int | str) -> dict[str, Any]:
    """The state message of ``viewer``, made the plain way from the library's documents."""
    from american_sniff.views import event_for, event_to_dict
    from american_sniff.web.hosting import viewer_document

    state = game.state
    doc = viewer_document(state, viewer)
    seat = viewer if isinstance(viewer, int) else None
    return {
        "type": "state",
        "match": game.id,
        "you": viewer,
        "seats": [s.kind for s in game.setup.seats],
        "names": [s.name for s in game.setup.seats],
        "waiting_for": game.waiting_for(),
        "can_undo": seat is not None and game.undo_point(seat) is not None,
        "rematch": None,
        "ended": _room(server, game).ended,
        "view": doc,
        "event": None if game.seq == 0 else event_to_dict(event_for(state, seat)),
        "settled": doc["last_round"] is not None,
        **_room(server, game).pictures.drawn(state)[0],
    }


def test_the_served_limits_on_headers_and_frames(tmp_path: Any) -> None:
    """On a real server: over 16 KiB of headers is refused; a frame over 16 KiB closes (1009)."""
    uvicorn = pytest.importorskip("uvicorn")
    client = pytest.importorskip("websockets.sync.client")
    import socket

    from american_sniff.web.app import create_app
    from american_sniff.web.limits import MAX_HEADER_BYTES
    from american_sniff.web.serving import MAX_FRAME, listen, server_config

    store = Store(tmp_path / "m.sqlite3")
    app = create_app(store, bot_delay=0)
    listener = listen("127.0.0.1", 0)
    port = listener.getsockname()[1]
    server = uvicorn.Server(server_config(app))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        for _ in range(_PATIENCE * 100):
            if server.started:
                break
            threading.Event().wait(0.01)
        big = b"X-Big: " + b"a" * MAX_HEADER_BYTES + b"\r\n"
        with socket.create_connection(("127.0.0.1", port), timeout=_PATIENCE) as raw:
            raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + big + b"\r\n")  # at once
            assert raw.recv(64).startswith(b"HTTP/1.1 431")
        with socket.create_connection(("127.0.0.1", port), timeout=_PATIENCE) as raw:
            raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + big)  # and the rest never comes
            assert raw.recv(64).startswith(b"HTTP/1.1 400")
        game = Game.create(store, new_setup(2, ["human", "human"]))
        with client.connect(f"ws://127.0.0.1:{port}/ws/{game.id}", max_size=None) as ws:
            ws.send(json.dumps({"type": "hello", "token": game.setup.spectator}))
            assert json.loads(ws.recv(timeout=_PATIENCE))["type"] == "state"
            ws.send("x" * (MAX_FRAME + 1))
            with pytest.raises(Exception, match="1009"):
                ws.recv(timeout=_PATIENCE)
    finally:
        server.should_exit = True
        thread.join(_PATIENCE)


# -- storage --------------------------------------------------------------------------


def _read_only(store: Store, on: bool) -> None:
    """Make the database refuse every write, as a full disk or a read-only file would."""
    store._db.execute(f"PRAGMA query_only = {'ON' if on else 'OFF'}")


def test_a_move_the_database_cannot_save_is_a_message_and_changes_nothing(tmp_path: Any) -> None:
    """The write fails: the seat is told, the match is as it was, the move goes through later."""
    store = Store(tmp_path / "m.sqlite3")

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        tasks = [_connect(server, s) for s in seats.values()]
        for n, socket in seats.items():
            socket.say(type="hello", token=game.setup.seats[n].token)
        turn = game.state.turn
        view = (await seats[turn].state(0))["view"]
        _read_only(store, True)
        seats[turn].say(type="move", move=view["legal_moves"][0], seq=0)
        error = await seats[turn].next()
        assert error["type"] == "error"
        assert "could not save" in error["message"]
        assert "readonly" in error["message"]
        assert game.seq == 0
        assert store.load(game.id).log == ()  # type: ignore[union-attr]
        _read_only(store, False)
        seats[turn].say(type="move", move=view["legal_moves"][0], seq=0)
        assert (await seats[turn].state(1))["view"]["seq"] == 1
        stored = store.load(game.id)
        assert stored is not None
        loaded = Game(stored, store)
        # The move is saved; the server may already have saved the forced draw
        # that follows it, before its own copy has it.
        assert loaded.states[:2] == game.states[:2]
        for task in tasks:
            task.cancel()

    _run(scenario, store)


def test_a_bot_move_the_database_cannot_save_is_told_to_everyone(tmp_path: Any) -> None:
    """A bot's move that cannot be written reaches every browser as a message; it plays later."""
    store = Store(tmp_path / "m.sqlite3")
    from american_sniff import new_match

    seed = next(s for s in range(100) if new_match(2, seed=s).turn == 1)

    async def scenario(server: Server) -> None:
        game = Game.create(store, new_setup(2, ["human", "greedy"], seed))
        _read_only(store, True)
        seat, watcher = FakeSocket(game.id), FakeSocket(game.id)
        tasks = [_connect(server, s) for s in (seat, watcher)]
        seat.say(type="hello", token=game.setup.seats[0].token)
        watcher.say(type="hello", token=game.setup.spectator)
        for socket in (seat, watcher):
            message = await socket.next()
            while message["type"] != "error":
                message = await socket.next()
            assert "could not save" in message["message"]
            assert "try again when someone acts" in message["message"]
        room = server.rooms.get(game.id)
        assert room is not None
        assert room.game.seq == 0
        _read_only(store, False)
        seat.say(type="hint")  # any message wakes the bots
        assert (await seat.state(1))["view"]["seq"] >= 1
        for task in tasks:
            task.cancel()

    _run(scenario, store)


# -- pictures -------------------------------------------------------------------------


def test_pictures_are_drawn_once_per_state_whatever_the_watchers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seven browsers on one match: each state's table is drawn once, each message made once."""
    import american_sniff.web.pictures as pictures_module

    drawn: list[tuple[object, object]] = []
    from american_sniff.render import render_svg as real

    def counted(layout: Any, **options: Any) -> str:
        drawn.append((layout, options.get("page")))
        return real(layout, **options)

    monkeypatch.setattr(pictures_module, "render_svg", counted)

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        spectators = [FakeSocket(game.id) for _ in range(5)]
        tasks = [_connect(server, s) for s in (*seats.values(), *spectators)]
        for n, socket in seats.items():
            socket.say(type="hello", token=game.setup.seats[n].token)
        for number, socket in enumerate(spectators):  # two of them on a phone
            table = "narrow" if number < 2 else "wide"
            socket.say(type="hello", token=game.setup.spectator, table=table)
        await _placements(game, seats, 6)
        for socket in spectators:
            await socket.state(game.seq)
        # One drawing of each table reached per page (the wide one and the narrow
        # screen's), and no round ended: no last table. A draw keeps the table
        # (not drawn again), so the tables are counted, not the states.
        assert game.state.last_round is None
        tables = {id(state.layout) for state in game.states}
        assert len(drawn) == 2 * len(tables)
        assert len({(id(layout), page) for layout, page in drawn}) == len(drawn)
        assert {id(layout) for layout, _ in drawn} == tables
        # Every spectator on one page got the same texts, one per state.
        assert len(spectators[0].seen) == game.seq + 1
        assert spectators[1].seen == spectators[0].seen
        assert all(s.seen == spectators[2].seen for s in spectators[2:])
        assert spectators[2].seen != spectators[0].seen
        for task in tasks:
            task.cancel()

    _run(scenario)


def test_a_client_that_does_not_draw_gets_no_pictures_and_none_are_drawn_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seats whose hello says ``"pictures": false`` get the view without pictures, never drawn.

    A spectator that draws (a browser's page, which asks for nothing) joins
    later: from then on the pictures of each state are drawn, once.
    """
    import american_sniff.web.pictures as pictures_module
    from american_sniff.render import render_svg as real

    drawn: list[object] = []

    def counted(layout: Any, **options: Any) -> str:
        drawn.append(layout)
        return real(layout, **options)

    monkeypatch.setattr(pictures_module, "render_svg", counted)
    pictures = ("table", "table_narrow", "last_table", "tallies")

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        tasks = [_connect(server, s) for s in seats.values()]
        for n, socket in seats.items():
            socket.say(type="hello", token=game.setup.seats[n].token, pictures=False)
        await _placements(game, seats, 6)
        assert game.seq >= 6
        assert drawn == []
        for socket in seats.values():
            assert socket.seen
            for text in socket.seen:
                message = json.loads(text)
                if message["type"] == "state":
                    assert not set(pictures) & set(message)
                    assert message["view"]["seat"] in (0, 1)
        watcher = FakeSocket(game.id)
        tasks.append(_connect(server, watcher))
        watcher.say(type="hello", token=game.setup.spectator)
        first = await watcher.state(game.seq)
        assert set(pictures) - {"table_narrow"} <= set(first)
        assert len(drawn) == 1  # this state's table, on the wide page (the page's own)
        for task in tasks:
            task.cancel()

    _run(scenario)


def test_a_hello_that_asks_for_the_changed_drawings_gets_each_only_when_it_changed() -> None:
    """``"pictures": "changed"`` leaves out each drawing the socket was last sent; no other hello.

    The seats ask for the changed drawings; spectators whose hellos say
    something else (other case, a list, a number) get every drawing in every
    message. Kept as the page keeps them, the seats' drawings are the
    spectators' at every state.
    """
    drawings = ("table", "last_table", "tallies")

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        watchers = [FakeSocket(game.id) for _ in range(3)]
        tasks = [_connect(server, s) for s in (*seats.values(), *watchers)]
        for n, socket in seats.items():
            socket.say(type="hello", token=game.setup.seats[n].token, pictures="changed")
        for watcher, asked in zip(watchers, ["CHANGED", ["changed"], 1], strict=True):
            watcher.say(type="hello", token=game.setup.spectator, pictures=asked)
        await _placements(game, seats, 40)
        await watchers[0].state(game.seq)
        every: dict[int, dict[str, Any]] = {}
        for text in watchers[0].seen:
            message = json.loads(text)
            assert set(drawings) <= set(message)
            every[message["view"]["seq"]] = {member: message[member] for member in drawings}
        for watcher in watchers[1:]:
            assert [json.loads(t)["view"]["seq"] for t in watcher.seen] == [
                json.loads(t)["view"]["seq"] for t in watchers[0].seen
            ]
            assert all(set(drawings) <= set(json.loads(text)) for text in watcher.seen)
        for socket in seats.values():
            states = [json.loads(t) for t in socket.seen if json.loads(t)["type"] == "state"]
            assert set(drawings) <= set(states[0])
            kept: dict[str, Any] = {}
            left_out = set()
            for message in states:
                left_out |= set(drawings) - set(message)
                kept.update({member: message[member] for member in drawings if member in message})
                assert kept == every[message["view"]["seq"]]
            assert left_out == set(drawings)  # each was left out at least once
        for task in tasks:
            task.cancel()

    _run(scenario)


def test_the_pictures_text_is_the_json_of_the_pictures_through_whole_matches() -> None:
    """Each state's pictures text, spliced from texts written once, is ``json.dumps`` of them.

    Through whole random matches of 2 to 4 players (so with a last round's
    table for most states), for both drawings of the table.
    """
    import random

    from american_sniff import apply, legal_moves, new_match
    from american_sniff.web.pictures import NARROW, WIDE, Pictures

    rng = random.Random(7)
    for players in (2, 3, 4):
        pictures = Pictures()
        state = new_match(players, seed=players)
        checked = 0
        while not state.is_over and checked < 400:
            for table in (WIDE, NARROW):
                drawn, text = pictures.drawn(state, table)
                assert text == json.dumps(drawn)[1:-1]
                checked += 1
            state = apply(state, rng.choice(legal_moves(state)))
        assert checked >= 100
        assert state.last_round is not None


def test_the_narrow_table_is_drawn_and_sent_only_to_the_sockets_that_show_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page shows one drawing of the table: it gets that one alone, and only it is drawn.

    Two seats on a desktop (no ``table`` in their hello, or ``"wide"``) get
    ``table`` and never ``table_narrow``, and no table is drawn on the narrow
    page. A spectator on a phone (``"table": "narrow"``) gets ``table_narrow``
    alone, drawn on the narrow page, the same as the replay's; a ``table``
    message switches a socket to the other drawing, and the state comes again.
    """
    import american_sniff.web.pictures as pictures_module
    from american_sniff.render import render_svg as real
    from american_sniff.web.frames import NARROW_PAGE

    pages: list[object] = []

    def counted(layout: Any, **options: Any) -> str:
        pages.append(options.get("page"))
        return real(layout, **options)

    monkeypatch.setattr(pictures_module, "render_svg", counted)

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        tasks = [_connect(server, s) for s in seats.values()]
        seats[0].say(type="hello", token=game.setup.seats[0].token)
        seats[1].say(type="hello", token=game.setup.seats[1].token, table="wide")
        await _placements(game, seats, 6)
        assert pages
        assert NARROW_PAGE not in pages
        for socket in seats.values():
            states = [m for m in map(json.loads, socket.seen) if m["type"] == "state"]
            assert states
            for message in states:
                assert "table" in message
                assert "table_narrow" not in message
        phone = FakeSocket(game.id)
        tasks.append(_connect(server, phone))
        phone.say(type="hello", token=game.setup.spectator, table="narrow")
        first = await phone.state(game.seq)
        assert "table" not in first
        narrow = real(game.state.layout, caption=False, page=NARROW_PAGE).split("\n", 1)[1]
        assert first["table_narrow"] == narrow
        assert pages.count(NARROW_PAGE) == 1
        # Turned to a desktop's width: the page asks for the wide table.
        phone.say(type="table", table="wide")
        again = await phone.state(game.seq)
        assert "table_narrow" not in again
        assert again["table"] == real(game.state.layout, caption=False).split("\n", 1)[1]
        phone.say(type="table", table="round")
        error = await phone.next()
        assert error == {"type": "error", "message": "a table is one of wide, narrow"}
        for task in tasks:
            task.cancel()

    _run(scenario)


def test_the_servers_commits_run_in_the_writers_thread(tmp_path: Any) -> None:
    """Every write of a move is made by the writer's thread, never on the event loop's."""
    store = Store(tmp_path / "m.sqlite3")
    threads: list[str] = []
    real = store.append_many

    def watched(entries: Any, expected: Any = None) -> Any:
        threads.append(threading.current_thread().name)
        return real(entries, expected)

    store.append_many = watched  # type: ignore[method-assign]

    async def scenario(server: Server) -> None:
        game = _people(server)
        seats = {n: FakeSocket(game.id) for n in (0, 1)}
        tasks = [_connect(server, s) for s in seats.values()]
        for n, socket in seats.items():
            socket.say(type="hello", token=game.setup.seats[n].token)
        await _placements(game, seats, 5)
        for task in tasks:
            task.cancel()

    _run(scenario, store)
    assert threads
    assert set(threads) == {"american-sniff-writer"}


def test_a_message_text_is_its_payload_and_a_kept_table_is_not_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The spliced text reads back as the payload; a draw that keeps the table draws nothing."""
    import american_sniff.web.pictures as pictures_module
    from american_sniff import Draw, view_for
    from american_sniff.render import render_svg as real

    drawn: list[tuple[object, object]] = []
    draws: list[Draw] = []

    def counted(layout: Any, **options: Any) -> str:
        drawn.append((layout, options.get("page")))
        return real(layout, **options)

    monkeypatch.setattr(pictures_module, "render_svg", counted)

    async def scenario(server: Server) -> None:
        game = _people(server)
        for _ in range(200):
            for viewer in (0, 1, "spectator"):
                message = json.loads(server.text(game, viewer))
                seat = viewer if isinstance(viewer, int) else None
                assert message == _payload(server, game, viewer)
                assert message["view"] == json.loads(view_for(game.state, seat).to_json())
                assert message["waiting_for"] == game.waiting_for()
            state = game.state
            if state.winner is not None:
                break
            move = view_for(state, state.turn).legal_moves[0]
            before = len(drawn)
            game.commit(game.plan_play(move))
            if isinstance(move, Draw) and game.state.layout is state.layout:
                draws.append(move)
                server.text(game, 0)
                assert len(drawn) == before  # the same table: not drawn again
        assert drawn
        assert draws

    _run(scenario)


def test_the_collector_is_tuned_for_serving() -> None:
    """tune_collector: what exists is frozen out of the collector's way; collections come seldom."""
    import gc

    from american_sniff.web.serving import COLLECTOR_THRESHOLDS, tune_collector

    before = gc.get_threshold()
    freezer = None
    try:
        freezer = tune_collector()
        assert freezer is not None
        assert gc.get_threshold() == COLLECTOR_THRESHOLDS
        assert COLLECTOR_THRESHOLDS[0] > before[0]
        assert gc.get_freeze_count() > 0
        assert tune_collector(freezer=False) is None
    finally:
        if freezer is not None:
            freezer.stop()
        gc.unfreeze()
        gc.set_threshold(*before)


class _Node:
    """A thing a cycle is made of, that a weak reference can watch."""

    def __init__(self) -> None:
        self.other: object = None


def test_the_freezer_freezes_what_is_made_and_looks_at_everything_seldom() -> None:
    """Frozen often (no young collection walks it); a cycle frozen and dropped goes at the look."""
    import gc
    import weakref

    from american_sniff.web.serving import Freezer

    freezer = Freezer(every=0.01, whole=3600.0)
    try:
        made = [[n] for n in range(1000)]  # tracked, and kept
        frozen = gc.get_freeze_count()
        _wait_until(lambda: gc.get_freeze_count() >= frozen + len(made))
        assert gc.get_count()[0] < len(made)  # the young generation did not keep them
    finally:
        freezer.stop()
        gc.unfreeze()
    # A cycle that becomes garbage once frozen is kept until the look at everything.
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    gone = weakref.ref(first)
    gc.freeze()
    del first, second
    gc.collect()
    assert gone() is not None  # frozen: no collection sees it
    freezer = Freezer(every=0.01, whole=0.05)
    try:
        _wait_until(lambda: gone() is None)  # the look at everything freed it
    finally:
        freezer.stop()
        gc.unfreeze()


def _wait_until(condition: Callable[[], bool]) -> None:
    """Wait (at most a minute, a generous bound) until ``condition`` holds."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.005)
